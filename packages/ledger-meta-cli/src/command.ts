// What strata-gen and strata-meta share: where their output goes (CliIo), strict whole-number options with a
// documented range, `--version` from this package's package.json, and the contract of both `main`s: every failure
// (usage, bad input, unreadable or unwritable files) is one line on stderr and exit code 1, never a stack trace.
import { readFileSync } from 'node:fs';
import { assert } from '@strata/base';
import { LedgerMetaError, LedgerMetaErrorCode } from '@strata/ledger-meta';
import { Command, CommanderError, InvalidArgumentError } from 'commander';

/** Where a command writes: data to `stdout`, progress and errors to `stderr`; `tty` picks the bar over log lines. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Whether stderr is a terminal: a progress bar if so, JSON log lines (pino) otherwise. */
  tty: boolean;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, tty: process.stderr.isTTY === true };
}

export const EXIT_SUCCESS = 0;
/** Every failure: a bad option, a bad source, a file that cannot be read or written, malformed data. */
export const EXIT_FAILURE = 1;

/** The name and version of this package (@strata/ledger-meta-cli): src and dist both sit one level below its package.json. */
export function packageManifest(): { name: string; version: string } {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const { name, version } = manifest as { name?: unknown; version?: unknown };
  assert(typeof name === 'string' && typeof version === 'string', 'package.json has a name and a version');
  return { name, version };
}

/**
 * A commander option parser for a whole number in [min, max]: decimal digits only, so `1e3`, `0x10`, `-1`, `2.5`,
 * `` and ` 7` are refused rather than read as something else, and every value is bounded before any work starts.
 */
export function integerOption(min: number, max: number): (text: string) => number {
  return (text: string): number => {
    const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max)) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

/** The largest ledger sequence (LedgerHeader.ledgerSeq is a uint32). */
export const MAX_LEDGER_SEQUENCE = 0xffff_ffff;

/** A bad option or argument found by a command after parsing: INVALID_ARGUMENT naming the option as `field`. */
export function usageError(field: string, detail: string, file?: string): LedgerMetaError {
  return new LedgerMetaError(
    LedgerMetaErrorCode.INVALID_ARGUMENT,
    detail,
    file === undefined ? { field } : { field, file },
  );
}

/**
 * A new program whose errors and help go to `io` and throw instead of exiting (so `run` can return the exit code),
 * with `--version`. Subcommands added afterwards inherit both.
 */
export function newProgram(name: string, description: string, io: CliIo): Command {
  return new Command(name)
    .description(description)
    .version(packageManifest().version, '-V, --version', 'print the version of @strata/ledger-meta-cli')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${name}: ${text.replace(/^error: /, '')}`),
    });
}

/** Parses `argv` and runs the action; returns the exit code after writing any failure as one line to stderr. */
export async function run(program: Command, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await program.parseAsync([...argv]);
    return EXIT_SUCCESS;
  } catch (error) {
    // Commander has already written its own line (usage errors) or the help or version text (exit code 0).
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr.write(`${program.name()}: ${describeError(error)}\n`);
    return EXIT_FAILURE;
  }
}

/**
 * One line for a failure. A bad argument (INVALID_ARGUMENT) is its detail alone, which names the option; other
 * LedgerMetaErrors keep their code, file and offset. A file-system cause is said in words ("permission denied"),
 * without the errno code or the syscall.
 */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof LedgerMetaError) {
    text = error.code === LedgerMetaErrorCode.INVALID_ARGUMENT ? error.detail : error.message;
    const cause = systemErrorText(error.cause);
    if (cause !== undefined) text += ` (${cause})`;
  } else {
    const system = systemErrorText(error);
    const path = (error as NodeJS.ErrnoException | undefined)?.path;
    if (system !== undefined) text = path === undefined ? system : `${path}: ${system}`;
    else text = error instanceof Error ? error.message : String(error);
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

/** libuv's description of a system error ("no such file or directory"), or undefined for any other value. */
export function systemErrorText(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string') return undefined;
  // Node words them "ECODE: description, syscall 'path'" (and sometimes "-> 'dest'"): keep the description.
  const match = /^[A-Z0-9_]+: (.+?), [a-z_]+\b/.exec(error.message);
  return match?.[1] ?? code;
}
