// strata-state end to end: `replay` of a capture folder and of one stream (text and JSON), a state kept with
// --state-dir and shown by `inspect`, and every failure (missing source, truncated stream, wrong network, not a
// state) as one line on stderr with exit code 1 and no stack trace. In-process with captured streams (the command's
// own `main`), plus one real child process through the bin for the non-TTY path.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '@strata/cli-kit';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/strata-state.js';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

async function strataState(...args: string[]): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const io: CliIo = { stdout, stderr, tty: false };
  const code = await main(args, io);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { code, stdout: out(), stderr: err() };
}

/** stderr lines that are not pino log lines: what the command said to a person. */
const messages = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{"level":'));

function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  const lines = messages(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^strata-state: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

const LINE = /^(\d+) ([0-9a-f]{64}) ([0-9a-f]{64}) (match|MISMATCH)$/;
const folder = () => fixturePath('stellar-core-lcm', 'MergeTests');
const streamFile = () => {
  const name = readdirSync(folder()).find((file) => file.endsWith('.xdr'));
  if (name === undefined) throw new Error('MergeTests holds no stream');
  return join(folder(), name);
};

describeWithFixtures('strata-state', [['stellar-core-lcm', 'MergeTests']], () => {
  it('replays a capture folder: one line per ledger, every hash equal to its header, then the summary', async () => {
    const result = await strataState('replay', folder());
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const summary = lines.pop();
    const streams = readdirSync(folder()).filter((file) => file.endsWith('.xdr')).length;
    expect(summary).toBe(`${lines.length} of ${lines.length} ledgers match (${streams} streams)`);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const [, , computed, header, verdict] = LINE.exec(line) ?? [];
      expect(verdict, line).toBe('match');
      expect(computed).toBe(header);
    }
    // Not a terminal: progress is structured log lines on stderr, and only those.
    expect(messages(result.stderr)).toEqual([]);
    expect(result.stderr).toMatch(/"msg":"done"/);
  });

  it('--json prints one object per ledger and a summary object', async () => {
    const result = await strataState('replay', '--json', streamFile());
    expect(result.code, result.stderr).toBe(0);
    const objects = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = objects.pop();
    expect(objects.length).toBeGreaterThan(0);
    for (const ledger of objects) {
      expect(ledger.matches).toBe(true);
      expect(ledger.bucketListHash).toBe(ledger.headerBucketListHash);
    }
    expect(summary).toMatchObject({ ledgers: objects.length, matching: objects.length, mismatches: [] });
  });

  it('keeps the state with --state-dir, and inspect shows the ledger and hash the replay ended on', async () => {
    const dir = tempDir();
    const stateDir = join(dir, 'state');
    const replay = await strataState('replay', '--state-dir', stateDir, streamFile());
    expect(replay.code, replay.stderr).toBe(0);
    const last = LINE.exec(replay.stdout.trimEnd().split('\n').at(-2) ?? '');
    expect(last).not.toBeNull();
    const inspect = await strataState('inspect', stateDir);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain(`ledger ${last?.[1]} `);
    expect(inspect.stdout).toContain(`bucketListHash ${last?.[3]}`);
    const json = await strataState('inspect', '--json', stateDir);
    const report = JSON.parse(json.stdout) as { ledger: number; bucketListHash: string; levels: { live: unknown[] } };
    expect(report.ledger).toBe(Number(last?.[1]));
    expect(report.bucketListHash).toBe(last?.[3]);
    expect(report.levels.live).toHaveLength(11);
  });

  it('fails with exit 1 and names the first ledger when the hashes do not match (the wrong network)', async () => {
    const result = await strataState('replay', '--network-passphrase', 'not the capture network', streamFile());
    expectOneLineError(result, /HASH_MISMATCH .*ledgers do not match, the first ledger \d+/);
    expect(result.stdout).toMatch(/MISMATCH/);
    expect(result.stdout).toMatch(/^0 of \d+ ledgers match$/m);
  });

  describe('bad input is one line and exit 1', () => {
    it('a missing source', async () => {
      const dir = tempDir();
      expectOneLineError(await strataState('replay', join(dir, 'nope')), /IO .*cannot open the ledger source/);
    });

    it('a truncated stream, with the file and offset', async () => {
      const dir = tempDir();
      const truncated = join(dir, 'truncated.xdr');
      writeFileSync(truncated, readFileSync(streamFile()).subarray(0, 1000));
      expectOneLineError(await strataState('replay', truncated), /truncated\.xdr.*TRUNCATED .*at offset \d+/);
    });

    it('inspect of a directory that holds no state', async () => {
      const dir = tempDir();
      expectOneLineError(await strataState('inspect', dir), /strata-state: [A-Z_]+ /);
    });

    it('an unknown command', async () => {
      const result = await strataState('frobnicate');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/unknown command/);
    });
  });

  it('the bin runs as a real process (the built package): summary on stdout, structured progress on stderr', () => {
    // npm test builds every package before the tests; the bin runs dist/, as an installed package does.
    const bin = fileURLToPath(new URL('../bin/strata-state.js', import.meta.url));
    const child = spawnSync(process.execPath, [bin, 'replay', folder()], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout).toMatch(/^(\d+) of \1 ledgers match \(\d+ streams\)$/m);
    for (const line of child.stderr.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});
