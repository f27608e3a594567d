// Runs the `strata` command as a real child process (node + tsx over the sources, the workspace's strata-source
// condition), so the integration tests see what a user sees: exit code, stdout, stderr, files left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const cliSource = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface StrataResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The body a child runs: import the CLI from source and exit with its code. */
function childBody(args: readonly string[]): string {
  return [
    `const { main } = await import(${JSON.stringify(cliSource)});`,
    `process.exitCode = await main(${JSON.stringify(['node', 'strata', ...args])});`,
  ].join(' ');
}

/**
 * Runs `strata <args>`; `killWhen(stderrSoFar)` returning true sends SIGKILL at that moment (a crash at a point the
 * test chooses from the child's own log lines, not from a timer).
 */
export function runStrata(
  args: readonly string[],
  options: {
    readonly killWhen?: (stderr: string) => boolean;
    /** Called with all of stderr so far on every chunk of it, and the child (to signal it, or feed its source). */
    readonly onStderr?: (stderr: string, child: ChildProcess) => void;
    /** Extra environment variables (the negative controls' seams). */
    readonly env?: Readonly<Record<string, string>>;
    /** Called with the child as soon as it is spawned (to kill it at a moment of the test's choosing). */
    readonly onSpawn?: (child: ChildProcess) => void;
  } = {},
): Promise<StrataResult> {
  const child = spawn(
    process.execPath,
    ['--conditions=strata-source', '--import', 'tsx', '--input-type=module', '-e', childBody(args)],
    { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  options.onSpawn?.(child);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let killed = false;
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    options.onStderr?.(Buffer.concat(stderr).toString('utf8'), child);
    if (!killed && options.killWhen?.(Buffer.concat(stderr).toString('utf8')) === true) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/** The stderr lines that are not pino JSON log lines: what the command said to a person. */
export function messageLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

/** The complete JSON log lines of stderr (a line still being written, without its newline, is left out). */
export function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
