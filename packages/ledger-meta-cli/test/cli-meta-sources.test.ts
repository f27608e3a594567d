// strata-meta's <source> and range, checked so that a run that cannot print anything useful fails with one line
// that says why instead of exiting 0 with no output: --version; an empty file, an empty folder, a folder of .xdr.zst
// batches without the lake's .config.json, a .xdr.zst file given as a record stream, a missing path; an inverted
// range; and a range past the end (or before the start) of a data lake, a stream file and a folder of streams (the
// real stellar-core captures). Numeric options are whole ledger sequences.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_FILE_NAME } from '../src/strata-gen.js';
import { expectOneLineError, runCli } from './cli-harness.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** Ledgers 2..13: a data lake of 4-ledger batches in partitions of two, and the same network as a stream. */
let work = '';
let lake = '';
let stream = '';
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'strata-cli-meta-'));
  lake = join(work, 'lake');
  const network = ['--ledgers', '12', '--events-per-ledger', '5', '--accounts', '20', '--contracts', '3'];
  const layout = ['--ledgers-per-batch', '4', '--batches-per-partition', '2'];
  for (const [format, out] of [
    ['datalake', lake],
    ['stream', join(work, 'stream')],
  ] as const) {
    const result = await runCli('strata-gen', [...network, ...layout, '--format', format, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
  }
  stream = join(work, 'stream', STREAM_FILE_NAME);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The batch files of the lake, by partition. */
const batchFiles = () =>
  readdirSync(lake)
    .filter((name) => !name.startsWith('.'))
    .flatMap((partition) => readdirSync(join(lake, partition)).map((file) => join(lake, partition, file)));

describe('strata-meta --version', () => {
  it("prints the package's version and exits 0", async () => {
    const result = await runCli('strata-meta', ['--version']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });
});

describe('strata-meta sources that hold no ledgers', () => {
  it('refuses an empty file', async () => {
    const file = join(tempDir('cli-meta'), 'empty.xdr');
    writeFileSync(file, '');
    for (const command of ['events', 'changes']) {
      expectOneLineError(await runCli('strata-meta', [command, file]), 'strata-meta', /empty\.xdr is empty/);
    }
  });

  it('refuses an empty folder', async () => {
    const dir = tempDir('cli-meta');
    expectOneLineError(await runCli('strata-meta', ['events', dir]), 'strata-meta', /is an empty folder/);
  });

  it('refuses a folder of .xdr.zst batch files without .config.json, naming the missing config', async () => {
    const dir = tempDir('cli-meta');
    for (const file of batchFiles()) copyFileSync(file, join(dir, file.split('/').pop() ?? ''));
    const result = await runCli('strata-meta', ['events', dir]);
    expectOneLineError(result, 'strata-meta', /holds \.xdr\.zst batch files but no \.config\.json/);
  });

  it('refuses a folder with neither stream files nor a data lake config', async () => {
    const dir = tempDir('cli-meta');
    writeFileSync(join(dir, 'README.txt'), 'nothing here');
    const result = await runCli('strata-meta', ['changes', dir]);
    expectOneLineError(result, 'strata-meta', /holds no \.xdr stream files and no \.config\.json/);
  });

  it('refuses a folder whose stream files are empty', async () => {
    const dir = tempDir('cli-meta');
    mkdirSync(join(dir, 'run'));
    writeFileSync(join(dir, 'run', 'a.xdr'), '');
    const result = await runCli('strata-meta', ['changes', dir]);
    expectOneLineError(result, 'strata-meta', /the streams in .* hold no ledgers/);
  });

  it('says that a .xdr.zst file is a compressed batch, not a record stream', async () => {
    const [batch] = batchFiles();
    const result = await runCli('strata-meta', ['events', batch ?? '']);
    expectOneLineError(result, 'strata-meta', /\.xdr\.zst is zstd-compressed .*not a record-marked .*stream/);
  });

  it('says in words that a path does not exist', async () => {
    const result = await runCli('strata-meta', ['events', join(tempDir('cli-meta'), 'nowhere')]);
    expectOneLineError(result, 'strata-meta', /nowhere: cannot open the ledger source \(no such file or directory\)/);
  });
});

describe('strata-meta ranges', () => {
  it('refuses an inverted range (--from 510 --to 500) on every kind of source', async () => {
    for (const source of [lake, stream, join(work, 'stream')]) {
      const result = await runCli('strata-meta', ['events', source, '--from', '510', '--to', '500']);
      expectOneLineError(result, 'strata-meta', /--from 510 is after --to 500: the range is empty/);
    }
  });

  it('says that a range is past the end of a data lake, with and without --to', async () => {
    for (const range of [
      ['--from', '500', '--to', '510'],
      ['--from', '500'],
      ['--from', '14'],
    ]) {
      const result = await runCli('strata-meta', ['changes', lake, ...range]);
      expectOneLineError(result, 'strata-meta', new RegExp(`ledger ${range[1]} is past the end of the data lake`));
    }
  });

  it('prints the part of a range the lake holds, then says where the lake ends', async () => {
    const result = await runCli('strata-meta', ['changes', lake, '--from', '10', '--to', '20']);
    const pastEnd = /ledgers 14\.\.20 are past the end of the data lake .*newest ledger is 13/;
    expectOneLineError(result, 'strata-meta', pastEnd);
    const printed = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { ledger: number }).ledger);
    expect(printed).toEqual([10, 11, 12, 13]);
  });

  it('says that a range is before the start of a data lake', async () => {
    const result = await runCli('strata-meta', ['events', lake, '--from', '0', '--to', '1']);
    const beforeStart = /ledgers 0\.\.1 are before the start of the data lake .*begins at ledger 2/;
    expectOneLineError(result, 'strata-meta', beforeStart);
  });

  it('says that a range is past the end of a stream, with the ledgers it holds', async () => {
    const result = await runCli('strata-meta', ['events', stream, '--from', '500', '--to', '510']);
    expectOneLineError(result, 'strata-meta', /ledger 500 is past the end: .*ledgers\.xdr holds ledgers 2\.\.13/);
  });

  it('refuses --from and --to that are not ledger sequences', async () => {
    for (const value of ['1e3', '0x10', '', '2.5', '4294967296', '-3']) {
      const result = await runCli('strata-meta', ['events', lake, '--from', value]);
      expectOneLineError(result, 'strata-meta', /--from .*whole number from 0 to 4294967295/);
    }
  });

  it('prints a range inside the source (a negative control for the refusals)', async () => {
    for (const source of [lake, stream]) {
      const result = await runCli('strata-meta', ['changes', source, '--from', '5', '--to', '7']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(3);
    }
  });
});

describeWithFixtures('strata-meta ranges on the stellar-core captures', [['stellar-core-lcm', 'MergeTests']], () => {
  it('says that a range is past the end of every stream in a folder', async () => {
    const folder = fixturePath('stellar-core-lcm', 'MergeTests');
    const result = await runCli('strata-meta', ['changes', folder, '--from', '500', '--to', '510']);
    expectOneLineError(
      result,
      'strata-meta',
      /ledger 500 is past the end: the streams in .*MergeTests hold ledgers 2\.\.\d+/,
    );
    const file = fixturePath('stellar-core-lcm', 'MergeTests', '7b2e6a32c85708f5.xdr');
    const ranged = await runCli('strata-meta', ['events', file, '--from', '500']);
    expectOneLineError(
      ranged,
      'strata-meta',
      /ledger 500 is past the end: .*7b2e6a32c85708f5\.xdr holds ledgers 2\.\.\d+/,
    );
  });
});
