// SEP-54 data lakes: layout, writer and range reader. Properties:
// 1. Names follow SEP-54 exactly (its own examples: `FFFFFFFF--0-15`, `FFFFFFFD--2-3.xdr.zst`, `FFFFFFFD--2.xdr.zst`)
//    and the config has galexie's manifest fields.
// 2. Write then read returns the same LCM bytes, for whole and partial ranges, several batch/partition shapes.
// 3. Reading a sub-range opens only the files that hold it (a deleted unrelated file does not matter).
// 4. A missing file, bad zstd, a truncated batch and a batch whose sequences disagree with its name fail with
//    LedgerMetaError naming the file.
// 5. An empty batch (endSequence < startSequence, count 0) is BATCH_MISMATCH, not a batch of no ledgers; range options
//    that are not uint32 integers, or an inverted range, are INVALID_ARGUMENT naming the option (from the call, before
//    any file is read); a `to` before the lake's first ledger is OUT_OF_ORDER rather than an empty read.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { compress, decompress } from 'zstd-napi';
import {
  batchLocation,
  DATA_LAKE_CONFIG_FILE,
  type DataLakeRange,
  DataLakeWriter,
  encodeLedgerCloseMetaBatch,
  readDataLake,
} from '../src/datalake.js';
import { LedgerMetaError } from '../src/errors.js';
import { generateNetwork, SYNTHETIC_NETWORK_PASSPHRASE } from '../src/generator.js';
import { batchHeader } from './batch-header.js';

const ledgers = [
  ...generateNetwork({ seed: 'lake', ledgers: 40, eventsPerLedger: 10, accounts: 30, contracts: 3, record: false }),
];
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function writeLake(dir: string, ledgersPerBatch: number, batchesPerPartition: number): Promise<void> {
  const writer = await DataLakeWriter.create(dir, {
    ledgersPerBatch,
    batchesPerPartition,
    networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE,
  });
  for (const ledger of ledgers) await writer.write(ledger.lcm, ledger.sequence);
  await writer.close();
}

async function readAll(dir: string, range: DataLakeRange = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const lcm of readDataLake(dir, range)) out.push(b64(lcm));
  return out;
}

async function failure(promise: Promise<unknown>): Promise<LedgerMetaError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerMetaError);
    return error as LedgerMetaError;
  }
  throw new Error('expected a LedgerMetaError');
}

describe('SEP-54 layout', () => {
  it('names batches and partitions as the SEP-54 examples do', () => {
    expect(batchLocation(2, { ledgersPerBatch: 2, batchesPerPartition: 8 })).toMatchObject({
      partition: 'FFFFFFFF--0-15',
      file: 'FFFFFFFD--2-3.xdr.zst',
      relativePath: 'FFFFFFFF--0-15/FFFFFFFD--2-3.xdr.zst',
    });
    expect(batchLocation(19, { ledgersPerBatch: 2, batchesPerPartition: 8 }).relativePath).toBe(
      'FFFFFFEF--16-31/FFFFFFED--18-19.xdr.zst',
    );
    expect(batchLocation(2, { ledgersPerBatch: 1, batchesPerPartition: 1 })).toMatchObject({
      partition: null,
      file: 'FFFFFFFD--2.xdr.zst',
    });
    expect(batchLocation(2, { ledgersPerBatch: 1, batchesPerPartition: 64_000 }).relativePath).toBe(
      'FFFFFFFF--0-63999/FFFFFFFD--2.xdr.zst',
    );
  });

  it('writes the config and the files the layout names', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    const config = JSON.parse(await readFile(join(dir, DATA_LAKE_CONFIG_FILE), 'utf8'));
    expect(config).toEqual({
      networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE,
      version: '1.0',
      compression: 'zstd',
      ledgersPerBatch: 4,
      batchesPerPartition: 3,
    });
    const partitions = (await readdir(dir)).filter((name) => name !== DATA_LAKE_CONFIG_FILE).sort();
    // Ledgers 2..41 in partitions of 12 ledgers: 0-11, 12-23, 24-35, 36-47.
    expect(partitions).toEqual(['FFFFFFDB--36-47', 'FFFFFFE7--24-35', 'FFFFFFF3--12-23', 'FFFFFFFF--0-11']);
    expect((await readdir(join(dir, 'FFFFFFFF--0-11'))).sort()).toEqual([
      'FFFFFFF7--8-11.xdr.zst',
      'FFFFFFFB--4-7.xdr.zst',
      'FFFFFFFF--0-3.xdr.zst',
    ]);
    // The first batch holds ledgers 2..3 only (the network starts at 2), with its real range in the XDR.
    const first = decompress(await readFile(join(dir, 'FFFFFFFF--0-11', 'FFFFFFFF--0-3.xdr.zst')));
    expect([first.readUInt32BE(0), first.readUInt32BE(4), first.readUInt32BE(8)]).toEqual([2, 3, 2]);
  });
});

describe('readDataLake', () => {
  for (const [perBatch, perPartition] of [
    [1, 1],
    [1, 64_000],
    [4, 3],
    [7, 2],
  ] as const) {
    it(`returns what was written (${perBatch} ledgers/batch, ${perPartition} batches/partition)`, async () => {
      const dir = tempDir('lake');
      await writeLake(dir, perBatch, perPartition);
      expect(await readAll(dir)).toEqual(ledgers.map((l) => b64(l.lcm)));
      expect(await readAll(dir, { from: 9, to: 23 })).toEqual(ledgers.slice(7, 22).map((l) => b64(l.lcm)));
      expect(await readAll(dir, { from: 41, to: 41 })).toEqual([b64((ledgers[39] as (typeof ledgers)[0]).lcm)]);
    });
  }

  it('reads a sub-range from its own files only', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    await rm(join(dir, 'FFFFFFFF--0-11'), { recursive: true });
    expect(await readAll(dir, { from: 16, to: 30 })).toEqual(ledgers.slice(14, 29).map((l) => b64(l.lcm)));
    const error = await failure(readAll(dir, { from: 10, to: 12 }));
    expect(error.code).toBe('IO');
    expect(error.file).toContain('FFFFFFF7--8-11.xdr.zst');
  });

  it('rejects a range past the end of the lake', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    // 40..43 is a partial last batch (ledgers 40, 41): the missing tail is an error when `to` asks for it.
    expect((await failure(readAll(dir, { from: 40, to: 43 }))).code).toBe('OUT_OF_ORDER');
    // A batch that was never written is a missing file.
    const missing = await failure(readAll(dir, { from: 40, to: 44 }));
    expect(missing.code).toBe('IO');
    expect(missing.file).toContain('FFFFFFD3--44-47.xdr.zst');
  });

  it('fails with LedgerMetaError on bad zstd, a truncated batch and a sequence mismatch', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    const path = join(dir, 'FFFFFFF3--12-23', 'FFFFFFEF--16-19.xdr.zst');
    const original = await readFile(path);

    await writeFile(path, Buffer.from('not zstd at all'));
    const badZstd = await failure(readAll(dir, { from: 16, to: 19 }));
    expect(badZstd.file).toBe(path);
    expect(badZstd.code).toBe('BAD_COMPRESSION');

    // A zstd frame cut short must not pass as a shorter batch.
    await writeFile(path, original.subarray(0, original.length - 7));
    expect((await failure(readAll(dir, { from: 16, to: 19 }))).code).toBe('BAD_COMPRESSION');

    // A batch inflating past the cap is refused before it is all in memory (a decompression bomb).
    await writeFile(path, original);
    const bomb = await failure(readAll(dir, { from: 16, to: 19, maxBatchBytes: 1000 }));
    expect(bomb.code).toBe('TOO_LONG');

    const batch = decompress(original);
    await writeFile(path, compress(batch.subarray(0, batch.length - 100)));
    const truncated = await failure(readAll(dir, { from: 16, to: 19 }));
    expect(truncated.code).toBe('TRUNCATED');
    expect(truncated.file).toBe(path);
    expect(truncated.offset).toBeGreaterThan(12);

    const shifted = Buffer.from(batch);
    shifted.writeUInt32BE(17, 0);
    await writeFile(path, compress(shifted));
    expect((await failure(readAll(dir, { from: 16, to: 19 }))).code).toBe('BATCH_MISMATCH');

    // Ledgers in the wrong file: a well-formed batch of ledgers 20..23 stored under the 16..19 name.
    const wrong = encodeLedgerCloseMetaBatch(
      20,
      ledgers.slice(18, 22).map((l) => l.lcm),
    );
    await writeFile(path, compress(wrong));
    expect((await failure(readAll(dir, { from: 16, to: 19 }))).file).toBe(path);
  });
});

describe('readDataLake ranges and empty batches', () => {
  it('(5) refuses an empty batch as BATCH_MISMATCH naming the file', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 1, 1);
    // Ledger 42 would come after the lake's last ledger (41): an empty batch there must not pass as "nothing new".
    const path = join(dir, batchLocation(42, { ledgersPerBatch: 1, batchesPerPartition: 1 }).relativePath);
    await writeFile(path, compress(batchHeader(42, 41, 0)));
    const empty = await failure(readAll(dir));
    expect(empty.code).toBe('BATCH_MISMATCH');
    expect(empty.file).toBe(path);
    expect((await failure(readAll(dir, { from: 42, to: 42 }))).code).toBe('BATCH_MISMATCH');
  });

  it('(5) refuses bad and inverted range options as INVALID_ARGUMENT naming the option', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    const bad: Array<[DataLakeRange, string]> = [
      [{ from: Number.NaN }, 'from'],
      [{ from: -1 }, 'from'],
      [{ from: 2.5 }, 'from'],
      [{ from: 2 ** 32 }, 'from'],
      [{ to: Number.NaN }, 'to'],
      [{ to: Number.POSITIVE_INFINITY }, 'to'],
      [{ from: 20, to: 10 }, 'from'],
      [{ maxBatchBytes: 0 }, 'maxBatchBytes'],
      [{ maxBatchBytes: Number.NaN }, 'maxBatchBytes'],
      [{ from: '3' as unknown as number }, 'from'],
    ];
    for (const [range, field] of bad) {
      const error = await failure(readAll(dir, range));
      expect([error.code, error.field], JSON.stringify(range)).toEqual(['INVALID_ARGUMENT', field]);
    }
    // Thrown by the call itself, before any file is opened.
    expect(() => readDataLake(join(dir, 'no such lake'), { from: Number.NaN })).toThrow(LedgerMetaError);
  });

  it('(5) reports a `to` before the first ledger of the lake instead of reading nothing', async () => {
    const dir = tempDir('lake');
    await writeLake(dir, 4, 3);
    // The lake holds 2..41 in batches 0-3, 4-7, ...: ledger 1 sits in the first batch's range but is not in it.
    expect((await failure(readAll(dir, { to: 1 }))).code).toBe('OUT_OF_ORDER');
    expect(await readAll(dir, { to: 2 })).toEqual([b64((ledgers[0] as (typeof ledgers)[0]).lcm)]);
  });
});
