// Runs strata-gen or strata-meta for the CLI tests and returns what a shell would see: exit code, stdout, stderr.
// By default the command's `main` runs in this process with captured streams (fast, and the only way to hand it a
// terminal for the progress bar). With STRATA_CLI_HARNESS=child each run is a real child process under tsx from
// source instead, which also runs a `main` that knows nothing of the harness (how the tests were shown to fail on
// the code before the fixes).
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { encodeContractStrkey } from '@strata/ledger-key';
import type { GeneratedLedger } from '@strata/ledger-meta';
import { hex } from '@strata/test-kit';
import { expect } from 'vitest';
import type { CliIo } from '../src/command.js';
import { main as genMain } from '../src/strata-gen.js';
import { main as metaMain } from '../src/strata-meta.js';

export type CliName = 'strata-gen' | 'strata-meta';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A writable that collects what is written, optionally claiming to be a terminal (for cli-progress). */
export class CapturedStream extends PassThrough {
  private readonly chunks: Buffer[] = [];
  readonly isTTY: boolean;
  readonly columns = 120;

  constructor(tty = false) {
    super();
    this.isTTY = tty;
    this.on('data', (chunk: Buffer) => this.chunks.push(chunk));
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const mains = { 'strata-gen': genMain, 'strata-meta': metaMain } as const;
const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs `name args…`; `tty` hands the command a terminal as stderr (in-process only). */
export async function runCli(
  name: CliName,
  args: readonly string[],
  options: { tty?: boolean } = {},
): Promise<CliResult> {
  if (process.env.STRATA_CLI_HARNESS === 'child' && options.tty !== true) return runChild(name, args);
  const stdout = new CapturedStream();
  const stderr = new CapturedStream(options.tty === true);
  const io: CliIo = { stdout, stderr, tty: options.tty === true };
  const code = await mains[name](['node', name, ...args], io);
  // Let the PassThroughs deliver what was written before reading them.
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function runChild(name: CliName, args: readonly string[]): Promise<CliResult> {
  const script = fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url));
  const body = [
    `const { main } = await import(${JSON.stringify(script)});`,
    `const code = await main(${JSON.stringify(['node', name, ...args])});`,
    "if (typeof code === 'number') process.exitCode = code;",
  ].join(' ');
  const child = spawn(
    process.execPath,
    ['--conditions=strata-source', '--import', 'tsx', '--input-type=module', '-e', body],
    { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/** The stderr lines that are not pino log lines (progress), i.e. what a command said to a person. */
export function messageLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{"level":'));
}

/**
 * Checks a failed run: exit code 1 and exactly one line on stderr besides progress logs, `<name>: …` matching
 * `message`, with no stack trace and no errno code (EEXIST, ENOENT…). Returns the line.
 */
export function expectOneLineError(result: CliResult, name: CliName, message: RegExp): string {
  const lines = messageLines(result.stderr);
  expect(result.code, result.stderr).toBe(1);
  expect(lines, result.stderr).toHaveLength(1);
  const line = lines[0] ?? '';
  expect(line.startsWith(`${name}: `), line).toBe(true);
  expect(line).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(line).not.toMatch(/\bE[A-Z]{3,}\b/);
  return line;
}

/** The line strata-meta events prints for each event the generator recorded, with topics and value as `render`s them. */
export function expectedEventLines(ledgers: Iterable<GeneratedLedger>, render: (scVal: Uint8Array) => unknown) {
  return [...ledgers].flatMap((ledger) =>
    ledger.events.map((event) => ({
      id: event.id,
      ledger: ledger.sequence,
      type: event.type,
      contractId: event.contractId === null ? '' : encodeContractStrkey(event.contractId),
      topics: event.topics.map(render),
      value: render(event.value),
      txHash: hex(event.txHash),
    })),
  );
}
