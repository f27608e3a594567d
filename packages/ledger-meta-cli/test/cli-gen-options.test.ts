// strata-gen's options, each checked before any work: --version; every numeric option a whole number in its
// documented range (STRATA_GEN_LIMITS), so a huge --events-per-ledger is a one-line error rather than an aborted
// process; options that bound each other; and --out, which must be a folder that can be created or is empty
// (--force writes into a non-empty one), refused in words rather than with raw errno text.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { MAX_EVENTS_PER_BATCH, STRATA_GEN_LIMITS, STREAM_FILE_NAME } from '../src/strata-gen.js';
import { expectOneLineError, runCli } from './cli-harness.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
/** A small network: a few ledgers, few events. */
const small = ['--ledgers', '3', '--events-per-ledger', '5', '--accounts', '20', '--contracts', '3'];

describe('strata-gen --version', () => {
  it("prints the package's version and exits 0, although --ledgers and --out are required", async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli('strata-gen', [flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });
});

describe('strata-gen numeric options', () => {
  // The ranges the README documents (STRATA_GEN_LIMITS), written out: they are the contract.
  const options = {
    '--ledgers': [1, 10_000_000],
    '--events-per-ledger': [0, 50_000],
    '--contracts': [1, 1000],
    '--accounts': [1, 1_000_000],
    '--start-ledger': [1, 2_147_483_647],
    '--ledgers-per-batch': [1, 10_000],
    '--batches-per-partition': [1, 1_000_000],
  } as const;

  it('has the ranges the README documents', () => {
    expect(STRATA_GEN_LIMITS).toEqual({
      ledgers: options['--ledgers'],
      eventsPerLedger: options['--events-per-ledger'],
      contracts: options['--contracts'],
      accounts: options['--accounts'],
      startLedger: options['--start-ledger'],
      ledgersPerBatch: options['--ledgers-per-batch'],
      batchesPerPartition: options['--batches-per-partition'],
    });
    expect(MAX_EVENTS_PER_BATCH).toBe(200_000);
    // And the README's option table says the same.
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const spaced = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');
    for (const [flag, [min, max]] of Object.entries(options)) {
      expect(readme).toMatch(new RegExp(`\\| \`${flag} <n>\` +\\| ${min} to ${spaced(max)} +\\|`));
    }
    expect(readme.replace(/\s+/g, ' ')).toContain(
      '`--ledgers-per-batch` × `--events-per-ledger` may be at most 200 000',
    );
  });

  it('refuses --events-per-ledger 99999999999 with one line, before creating --out', async () => {
    const out = join(tempDir('cli-gen'), 'net');
    const result = await runCli('strata-gen', ['--ledgers', '3', '--out', out, '--events-per-ledger', '99999999999']);
    expectOneLineError(result, 'strata-gen', /--events-per-ledger .*99999999999.* from 0 to 50000/);
    expect(existsSync(out)).toBe(false);
  });

  it.each(Object.entries(options))('refuses a %s that is not a whole number in its range', async (flag, [min, max]) => {
    const out = join(tempDir('cli-gen'), 'net');
    // Forms a lax parser reads as numbers first, then values outside the range.
    const bad = ['1e3', '0x10', '1.5', '', ' 7', 'abc', '-1', String(max + 1), '99999999999'];
    if (min > 0) bad.push(String(min - 1));
    for (const value of bad) {
      const args = flag === '--ledgers' ? ['--ledgers', value] : ['--ledgers', '3', flag, value];
      const result = await runCli('strata-gen', [...args, '--out', out]);
      expectOneLineError(result, 'strata-gen', new RegExp(`${flag} .*whole number from ${min} to ${max}`));
      expect(existsSync(out), `${flag} ${value}`).toBe(false);
    }
  });

  it('refuses a last ledger past 2^31 - 1 (event ids) and a data-lake batch too large to hold in memory', async () => {
    const out = join(tempDir('cli-gen'), 'net');
    const past = await runCli('strata-gen', ['--ledgers', '3', '--start-ledger', '2147483646', '--out', out]);
    expectOneLineError(past, 'strata-gen', /--start-ledger 2147483646 with --ledgers 3 ends at ledger 2147483648/);
    const perBatch = 200_000 / 100 + 1;
    const batch = await runCli('strata-gen', [
      ...['--ledgers', '3', '--format', 'datalake', '--ledgers-per-batch', String(perBatch), '--out', out],
    ]);
    expectOneLineError(batch, 'strata-gen', /--ledgers-per-batch .* × --events-per-ledger 100 .* over 200000/);
    const format = await runCli('strata-gen', ['--ledgers', '3', '--format', 'zip', '--out', out]);
    expectOneLineError(format, 'strata-gen', /--format .*stream, datalake/);
    expect(existsSync(out)).toBe(false);
  });

  it('accepts the edges of each range (a negative control for the refusals)', async () => {
    const out = join(tempDir('cli-gen'), 'net');
    const args = [
      ...['--ledgers', '1', '--events-per-ledger', '0', '--contracts', '1', '--accounts', '1'],
      '--start-ledger',
      '2147483647',
    ];
    const result = await runCli('strata-gen', [...args, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ledgers: 1, events: 0 });
  });
});

describe('strata-gen --out', () => {
  it('refuses a file, a path inside a file and a non-empty folder in words, without errno codes', async () => {
    const dir = tempDir('cli-gen');
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    expectOneLineError(
      await runCli('strata-gen', [...small, '--out', file]),
      'strata-gen',
      /--out .*a-file is a file, not a folder/,
    );
    expectOneLineError(
      await runCli('strata-gen', [...small, '--out', join(file, 'sub', 'deeper')]),
      'strata-gen',
      /--out .*deeper is inside a file, not a folder/,
    );
    const full = join(dir, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'notes.txt'), 'keep me');
    for (const format of ['stream', 'datalake']) {
      const result = await runCli('strata-gen', [...small, '--format', format, '--out', full]);
      expectOneLineError(result, 'strata-gen', /--out .*full is not empty \(1 entry\): pass --force/);
    }
    expect(readdirSync(full)).toEqual(['notes.txt']);
  });

  it('refuses to write over an earlier run unless --force is given, then replaces its files', async () => {
    const out = join(tempDir('cli-gen'), 'net');
    const first = await runCli('strata-gen', [...small, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(join(out, STREAM_FILE_NAME));
    const again = await runCli('strata-gen', [...small, '--seed', '2', '--out', out]);
    expectOneLineError(again, 'strata-gen', /is not empty .*--force/);
    expect(readFileSync(join(out, STREAM_FILE_NAME))).toEqual(before);
    const forced = await runCli('strata-gen', [...small, '--seed', '2', '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, STREAM_FILE_NAME))).not.toEqual(before);
    expect(readdirSync(out)).toEqual([STREAM_FILE_NAME]);
  });

  it('creates a missing folder and its parents', async () => {
    const out = join(tempDir('cli-gen'), 'a', 'b', 'net');
    const result = await runCli('strata-gen', [...small, '--format', 'datalake', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(out)).toContain('.config.json');
  });
});
