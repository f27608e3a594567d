// The frame of a tool: newProgram, run and packageManifest. Properties:
// 1. a run that succeeds, `--help`, `--version` and `-V` are exit code 0; the version printed is the one passed in,
//    and the help line names the package;
// 2. a usage error (unknown option, missing required option, a number refused by integerOption) is exit code 1
//    with one line `<name>: …` from commander, on stderr, and nothing on stdout;
// 3. whatever an action throws (a StrataError, an errno error, a plain Error, a string, a null-prototype object) is
//    exit code 1 and exactly one line `<name>: describeError(thrown)`, without a stack trace;
// 4. subcommands inherit the output and the override (their usage errors and failures are the same one line);
// 5. packageManifest finds the nearest package.json above a module (src/ and dist/sub/ alike); a manifest without a
//    version or that is not JSON is BAD_MANIFEST naming the file; a URL that is not file: is INVALID_ARGUMENT.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StrataError } from '@strata/base';
import { errorOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  CliKitError,
  CliKitErrorCode,
  describeError,
  EXIT_FAILURE,
  EXIT_SUCCESS,
  integerOption,
  newProgram,
  packageManifest,
  run,
} from '../src/index.js';
import { capturedIo, messageLines } from './captured-io.js';

class ToolError extends StrataError<'INVALID_ARGUMENT' | 'IO'> {
  override readonly name = 'ToolError';
}

const version = { version: '9.8.7', packageName: '@example/tool' };

/** `tool [--count <n>]`, whose action throws `thrown` when given (and otherwise writes "ran" to stdout). */
function tool(io: ReturnType<typeof capturedIo>['io'], thrown?: () => unknown) {
  return newProgram('tool', 'An example tool.', io, version)
    .option('--count <n>', 'a count, 0 to 10', integerOption(0, 10))
    .requiredOption('--name <name>', 'a name')
    .action(() => {
      if (thrown !== undefined) throw thrown();
      io.stdout.write('ran\n');
    });
}

async function runTool(args: readonly string[], thrown?: () => unknown) {
  const { io, stdout, stderr } = capturedIo();
  const code = await run(tool(io, thrown), ['node', 'tool', ...args], io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Exit code 1, nothing on stdout, one line on stderr that starts with `tool: ` and holds no stack frame. */
function expectOneLine(result: { code: number; stdout: string; stderr: string }): string {
  expect(result.code, result.stderr).toBe(EXIT_FAILURE);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  const lines = messageLines(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  const line = lines[0] ?? '';
  expect(line.startsWith('tool: '), line).toBe(true);
  expect(line).not.toMatch(/\bat .*:\d+:\d+/);
  return line;
}

describe('newProgram and run', () => {
  it('1. success, --help, --version and -V are exit code 0', async () => {
    expect(await runTool(['--name', 'x'])).toEqual({ code: EXIT_SUCCESS, stdout: 'ran\n', stderr: '' });
    for (const flag of ['--version', '-V']) {
      expect(await runTool([flag])).toEqual({ code: EXIT_SUCCESS, stdout: '9.8.7\n', stderr: '' });
    }
    const help = await runTool(['--help']);
    expect(help.code).toBe(EXIT_SUCCESS);
    expect(help.stdout).toContain('print the version of @example/tool');
    expect(help.stdout).toContain('--count <n>');
  });

  it('2. a usage error is one line from commander and exit code 1', async () => {
    expect(expectOneLine(await runTool(['--name', 'x', '--bogus']))).toBe("tool: unknown option '--bogus'");
    expect(expectOneLine(await runTool([]))).toBe("tool: required option '--name <name>' not specified");
    expect(expectOneLine(await runTool(['--name', 'x', '--count', '1e3']))).toBe(
      "tool: option '--count <n>' argument '1e3' is invalid. must be a whole number from 0 to 10",
    );
  });

  it('3. whatever an action throws is one line and exit code 1, never a stack', async () => {
    const missing = join(tempDir('cli-kit'), 'missing.txt');
    const thrown: (() => unknown)[] = [
      () => new ToolError('INVALID_ARGUMENT', '--name x is taken', { field: '--name' }),
      () => new ToolError('IO', 'cannot read the input', { file: missing, cause: errnoError(missing) }),
      () => errnoError(missing),
      () => new Error('something broke\n  on two lines'),
      () => new TypeError(''),
      () => 'a thrown string',
      () => Object.create(null),
    ];
    for (const make of thrown) {
      const error = make();
      const line = expectOneLine(await runTool(['--name', 'x'], () => error));
      expect(line).toBe(`tool: ${describeError(error)}`);
    }
    // What those lines say (describe-error.test.ts checks describeError itself).
    expect(expectOneLine(await runTool(['--name', 'x'], thrown[0]))).toBe('tool: --name x is taken');
    expect(expectOneLine(await runTool(['--name', 'x'], thrown[2]))).toBe(
      `tool: ${missing}: no such file or directory`,
    );
  });

  it('4. subcommands inherit the output and the override', async () => {
    const { io, stdout, stderr } = capturedIo();
    const program = newProgram('tool', 'An example tool.', io, version);
    program
      .command('read')
      .argument('<file>')
      .action((file: string) => {
        readFileSync(file);
      });
    const missing = join(tempDir('cli-kit'), 'nothing-here');
    expect(await run(program, ['node', 'tool', 'read', missing], io)).toBe(EXIT_FAILURE);
    expect(await run(program, ['node', 'tool', 'read'], io)).toBe(EXIT_FAILURE);
    expect(stdout.text()).toBe('');
    expect(messageLines(stderr.text())).toEqual([
      `tool: ${missing}: no such file or directory`,
      "tool: missing required argument 'file'",
    ]);
  });
});

/** The error node:fs throws for a missing file. */
function errnoError(path: string): unknown {
  try {
    readFileSync(path);
  } catch (error) {
    return error;
  }
  throw new Error(`${path} exists`);
}

describe('packageManifest', () => {
  it("5. finds the nearest package.json above a module: this package's for its tests", () => {
    const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(packageManifest(import.meta.url)).toEqual({ name: '@strata/cli-kit', version: own.version });
  });

  it('5. walks up from a module in a nested folder, from a URL or its string', () => {
    const root = tempDir('cli-kit-manifest');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'a-tool', version: '1.2.3' }));
    mkdirSync(join(root, 'dist', 'sub'), { recursive: true });
    const module = pathToFileURL(join(root, 'dist', 'sub', 'main.js'));
    expect(packageManifest(module)).toEqual({ name: 'a-tool', version: '1.2.3' });
    expect(packageManifest(module.href)).toEqual({ name: 'a-tool', version: '1.2.3' });
  });

  it('5. refuses a manifest without a version, one that is not JSON, and a URL that is not file:', () => {
    const root = tempDir('cli-kit-manifest');
    const file = join(root, 'package.json');
    const module = pathToFileURL(join(root, 'src', 'main.ts'));
    for (const text of [JSON.stringify({ name: 'a-tool' }), '{ not json', 'null']) {
      writeFileSync(file, text);
      const error = errorOf(CliKitError, () => packageManifest(module));
      expect(error.code, text).toBe(CliKitErrorCode.BAD_MANIFEST);
      expect(error.file).toBe(file);
    }
    for (const url of ['https://example.com/main.js', 'main.js']) {
      expect(errorOf(CliKitError, () => packageManifest(url)).code).toBe(CliKitErrorCode.INVALID_ARGUMENT);
    }
  });
});
