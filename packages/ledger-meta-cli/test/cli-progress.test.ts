// strata-meta's progress on stderr (stdout carries only data lines): a cli-progress bar when stderr is a terminal,
// pino JSON log lines otherwise, over bytes for stream sources and over ledgers for a data-lake range; and an error
// after a bar starts on a line of its own.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { STREAM_FILE_NAME } from '../src/strata-gen.js';
import { runCli } from './cli-harness.js';

const network = ['--ledgers', '10', '--events-per-ledger', '20', '--accounts', '30', '--contracts', '3'];

async function generate(format: 'stream' | 'datalake'): Promise<string> {
  const out = join(tempDir('cli-progress'), 'net');
  const result = await runCli('strata-gen', [...network, '--format', format, '--out', out]);
  expect(result.code, result.stderr).toBe(0);
  return format === 'stream' ? join(out, STREAM_FILE_NAME) : out;
}

interface LogLine {
  msg: string;
  done?: number;
  total?: number;
  unit?: string;
  ledgers?: number;
  lines?: number;
}

const logLines = (stderr: string): LogLine[] =>
  stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogLine);

describe('strata-meta progress without a terminal', () => {
  it('logs JSON lines over the bytes of a stream, ending with a done line that counts ledgers and lines', async () => {
    const stream = await generate('stream');
    const result = await runCli('strata-meta', ['events', stream]);
    expect(result.code, result.stderr).toBe(0);
    const logs = logLines(result.stderr);
    const progress = logs.filter((line) => line.msg === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ unit: 'bytes', done: statSync(stream).size, total: statSync(stream).size });
    const printed = result.stdout.trim().split('\n').length;
    expect(logs.at(-1)).toMatchObject({ msg: 'done', ledgers: 10, lines: printed });
  });

  it('counts ledgers of a data-lake range', async () => {
    const lake = await generate('datalake');
    const result = await runCli('strata-meta', ['changes', lake, '--from', '3', '--to', '8']);
    expect(result.code, result.stderr).toBe(0);
    const logs = logLines(result.stderr);
    expect(logs.find((line) => line.msg === 'progress')).toMatchObject({ unit: 'ledgers', total: 6 });
    expect(logs.at(-1)).toMatchObject({ msg: 'done', ledgers: 6, lines: 6 });
  });
});

describe('strata-meta progress on a terminal', () => {
  it('draws a bar on stderr and leaves stdout to the data', async () => {
    const stream = await generate('stream');
    const result = await runCli('strata-meta', ['events', stream], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/[█░]{10,} 100% \| [\d.]+\/[\d.]+ MiB \| 10 ledgers \| \d+ lines/);
    for (const line of result.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('stops the bar before an error, which gets a line of its own', async () => {
    const lake = await generate('datalake');
    const result = await runCli('strata-meta', ['events', lake, '--from', '5', '--to', '50'], { tty: true });
    expect(result.code).toBe(1);
    // Without the terminal's escape codes: the bar's line, then the error at the start of the next line.
    const text = stripVTControlCharacters(result.stderr);
    expect(text).toMatch(
      /\d+\/46 ledgers \| \d+ lines \| [^\n]*\nstrata-meta: ledgers 12\.\.50 are past the end[^\n]*\n$/,
    );
  });
});
