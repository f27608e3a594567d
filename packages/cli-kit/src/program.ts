// The frame of every Strata command-line tool: where its output goes (CliIo), a commander program that throws
// instead of exiting and prints `--version` from the tool's own package.json, and `run`, which turns whatever the
// program throws into an exit code and at most one line on stderr, never a stack trace. A tool's `main` is
// `run(buildProgram(io), argv, io)`; its bin sets `process.exitCode` to what that resolves to.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeValue } from '@strata/base';
import { Command, CommanderError } from 'commander';
import { checkObject, checkOptionalBoolean, checkString, checkWritable } from './arguments.js';
import { describeError } from './describe-error.js';
import { CliKitError, CliKitErrorCode, invalidArgument } from './errors.js';

/**
 * Where a command writes: data to `stdout`, progress, logs and errors to `stderr`. The process's own streams in a
 * bin (`processIo()`), captured streams in tests. Written to from the command's own async flow only.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Whether stderr is a terminal: a progress bar if so, JSON log lines (pino) otherwise. */
  tty: boolean;
}

/** The process's stdout and stderr; `tty` when stderr is a terminal. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, tty: process.stderr.isTTY === true };
}

export const EXIT_SUCCESS = 0;
/** Every failure: a bad option, a bad input, a file that cannot be read or written, malformed data. */
export const EXIT_FAILURE = 1;

/** Throws INVALID_ARGUMENT unless `io` is a CliIo. */
function checkIo(io: unknown, field = 'io'): CliIo {
  const fields = checkObject(io, field);
  checkWritable(fields.stdout, `${field}.stdout`);
  checkWritable(fields.stderr, `${field}.stderr`);
  if (checkOptionalBoolean(fields.tty, `${field}.tty`) === undefined) {
    throw invalidArgument(`${field}.tty`, 'must be a boolean, got undefined');
  }
  return io as CliIo;
}

/** What `--version` needs from a package.json. */
export interface PackageManifest {
  name: string;
  version: string;
}

/**
 * The name and version in the package.json nearest above the module at `moduleUrl` (pass `import.meta.url`): a
 * tool's src/x.ts and dist/x.js both find their own package's manifest. Read once per call, synchronously.
 * BAD_MANIFEST when none is found, it cannot be read, or it has no string `name` and `version`.
 */
export function packageManifest(moduleUrl: string | URL): PackageManifest {
  let modulePath: string;
  try {
    modulePath = fileURLToPath(moduleUrl);
  } catch {
    throw invalidArgument('moduleUrl', `must be a file: URL such as import.meta.url, got ${describeValue(moduleUrl)}`);
  }
  for (let dir = dirname(modulePath); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new CliKitError(CliKitErrorCode.BAD_MANIFEST, 'cannot read the package.json', { file, cause });
      }
    }
    if (text !== undefined) return manifestFields(text, file);
    if (dirname(dir) === dir) {
      throw new CliKitError(CliKitErrorCode.BAD_MANIFEST, 'no package.json in any folder above the module', {
        file: modulePath,
      });
    }
  }
}

function manifestFields(text: string, file: string): PackageManifest {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (cause) {
    throw new CliKitError(CliKitErrorCode.BAD_MANIFEST, 'the package.json is not JSON', { file, cause });
  }
  const { name, version } = (typeof manifest === 'object' && manifest !== null ? manifest : {}) as {
    name?: unknown;
    version?: unknown;
  };
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new CliKitError(CliKitErrorCode.BAD_MANIFEST, 'the package.json has no string "name" and "version"', {
      file,
    });
  }
  return { name, version };
}

/** What `-V, --version` prints, and the package its help line names. */
export interface ProgramVersion {
  /** Printed by `-V, --version` (usually `packageManifest(import.meta.url).version`). */
  version: string;
  /** Named in the help line: `print the version of <packageName>`. */
  packageName: string;
}

/**
 * A new commander program named `name`: help, usage errors and `--version` go to `io` instead of the process's
 * streams, and end the parse by throwing (commander's exitOverride) instead of exiting, so that `run` can return
 * the exit code. A usage error is the line `<name>: <commander's message>`. Subcommands added afterwards inherit
 * both the output and the override.
 */
export function newProgram(name: string, description: string, io: CliIo, options: ProgramVersion): Command {
  checkString(name, 'name');
  checkString(description, 'description', true);
  checkIo(io);
  const fields = checkObject(options, 'options');
  const version = checkString(fields.version, 'options.version');
  const packageName = checkString(fields.packageName, 'options.packageName');
  return new Command(name)
    .description(description)
    .version(version, '-V, --version', `print the version of ${packageName}`)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${name}: ${text.replace(/^error: /, '')}`),
    });
}

/**
 * Parses `argv` (process.argv form: node, script, arguments…) and runs the chosen action. Resolves to the exit code:
 * 0 after success, `--help` or `--version`; commander's own code after a usage error (which it has already written
 * as one line); 1 after anything the action throws, written as the one line `<program name>: describeError(error)`.
 * Never rejects for a failure of the command; rejects with INVALID_ARGUMENT for a `program`, `argv` or `io` that
 * is not one.
 */
export async function run(program: Command, argv: readonly string[], io: CliIo): Promise<number> {
  if (!(program instanceof Command)) {
    throw invalidArgument('program', `must be a commander Command from newProgram, got ${describeValue(program)}`);
  }
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) {
    throw invalidArgument('argv', `must be an array of strings, got ${describeValue(argv)}`);
  }
  checkIo(io);
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
