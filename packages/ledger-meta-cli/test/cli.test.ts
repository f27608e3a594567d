// The command-line tools end to end: strata-gen's body writes a network (stream and data lake), strata-meta prints
// it back, and the printed events and batches are exactly what the generator recorded. One real child process
// checks the non-TTY path: JSON progress lines on stderr, a JSON summary on stdout.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { detectLedgerSource, generateNetwork } from '@strata/ledger-meta';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/command.js';
import { runGenerate, STREAM_FILE_NAME } from '../src/strata-gen.js';
import { buildProgram, printChanges, printEvents } from '../src/strata-meta.js';
import { expectedEventLines } from './cli-harness.js';

const options = {
  ledgers: 12,
  seed: '7',
  eventsPerLedger: 20,
  contracts: 5,
  accounts: 50,
  startLedger: 2,
  ledgersPerBatch: 4,
  batchesPerPartition: 2,
};
/** Output that goes nowhere, without a terminal (so progress is pino lines into a PassThrough). */
const quietIo = (): CliIo => ({ stdout: new PassThrough().resume(), stderr: new PassThrough().resume(), tty: false });
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Runs `print` into a PassThrough and returns the parsed JSON lines. */
async function lines(print: (out: PassThrough) => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await print(out);
  out.end();
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const recorded = [...generateNetwork({ ...options, record: true })];
const expectedEvents = expectedEventLines(recorded, b64);
const expectedChanges = recorded.map((ledger) => ({
  ledger: ledger.sequence,
  init: (ledger.batch?.init ?? []).map(b64),
  live: (ledger.batch?.live ?? []).map(b64),
  dead: (ledger.batch?.dead ?? []).map(b64),
}));

describe.each(['stream', 'datalake'] as const)('strata-gen --format %s, then strata-meta', (format) => {
  it('prints back exactly the events and batches the generator recorded', async () => {
    const out = tempDir('cli');
    const summary = await runGenerate({ ...options, out, format }, quietIo());
    expect(summary.ledgers).toBe(options.ledgers);
    expect(summary.events).toBe(expectedEvents.length);
    const source = format === 'stream' ? join(out, STREAM_FILE_NAME) : out;
    expect(await detectLedgerSource(source)).toBe(format);
    expect(expectedEvents.length).toBeGreaterThan(50);
    expect(await lines((sink) => printEvents(source, {}, sink))).toEqual(expectedEvents);
    expect(await lines((sink) => printChanges(source, {}, sink))).toEqual(expectedChanges);
    // A ledger range reads only those ledgers.
    const ranged = await lines((sink) => printChanges(source, { from: 5, to: 7 }, sink));
    expect(ranged.map((line) => line.ledger)).toEqual([5, 6, 7]);
  });
});

describe('strata-meta arguments', () => {
  it('rejects a ledger bound that is not a sequence number', async () => {
    const program = buildProgram(quietIo());
    await expect(program.parseAsync(['node', 'strata-meta', 'events', 'x', '--from', '-3'])).rejects.toThrow(
      /whole number from 0 to 4294967295/,
    );
  });
});

describe('strata-gen as a process without a terminal', () => {
  it('logs JSON progress lines on stderr and prints a JSON summary on stdout', () => {
    const out = tempDir('cli-proc');
    const script = fileURLToPath(new URL('../src/strata-gen.ts', import.meta.url));
    const child = spawnSync(
      process.execPath,
      [
        '--conditions=strata-source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(script)}); process.exitCode = await main(['node', 'strata-gen', '--ledgers', '5', '--out', ${JSON.stringify(out)}, '--events-per-ledger', '10']);`,
      ],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) },
    );
    expect(child.status, child.stderr).toBe(0);
    const summary = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as { ledgers: number };
    expect(summary.ledgers).toBe(5);
    const logLines = child.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg?: string });
    expect(logLines.length).toBeGreaterThan(0);
  });
});
