// The packfile API's edges: bad options and arguments are INVALID_ARGUMENT naming the field; the writer leaves no
// file on abort or failure and none before finish; misuse after close is CLOSED; open reads the tail once (twice
// only for an index and app data larger than 256 KiB); the buffer pool gives every buffer back on failure paths
// and counts what its cap drops.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorCode, rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { ColdStoreError, ColdStoreErrorCode } from '../src/errors.ts';
import { PackfileReader } from '../src/packfile/reader.ts';
import { PackfileWriter, type PackfileWriterOptions } from '../src/packfile/writer.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import type { Storage, StorageFile, StorageWriter } from '../src/storage/storage.ts';
import { FORMAT_ID, makeItems, openPack, openReadPack, writePack } from './packfile-support.ts';

const INVALID = ColdStoreErrorCode.INVALID_ARGUMENT;

async function invalid(call: () => unknown, field: string): Promise<void> {
  const error = await rejectionOf(ColdStoreError, call);
  expect([error.code, error.field], error.message).toEqual([INVALID, field]);
}

/** A StorageFile whose reads fail (IO) from the `failFrom`-th read on: the seam lets tests inject storage faults. */
function failingFile(inner: StorageFile, failFrom: number): StorageFile {
  let reads = 0;
  return {
    name: inner.name,
    size: inner.size,
    read: (offset, length, into) => {
      if (++reads >= failFrom) {
        return Promise.reject(new ColdStoreError(ColdStoreErrorCode.IO, 'injected', { file: inner.name, offset }));
      }
      return inner.read(offset, length, into);
    },
    map: () => undefined,
    dropCache: () => false,
    close: () => inner.close(),
  };
}

describe('packfile options and arguments', () => {
  it('rejects bad writer options, naming the option', async () => {
    const storage = new LocalStorage(tempDir('pack-opts'));
    const cases: [Partial<PackfileWriterOptions> | null, string][] = [
      [{ formatId: -1 }, 'formatId'],
      [{ formatId: 2 ** 32 }, 'formatId'],
      [{ formatId: 1.5 }, 'formatId'],
      [{ formatId: 1, itemsPerRecord: 0 }, 'itemsPerRecord'],
      [{ formatId: 1, itemsPerRecord: 65_537 }, 'itemsPerRecord'],
      [{ formatId: 1, maxRecordBytes: 0 }, 'maxRecordBytes'],
      [{ formatId: 1, maxRecordBytes: 2 ** 30 + 1 }, 'maxRecordBytes'],
      [{ formatId: 1, codec: 'gzip' as 'zstd' }, 'codec'],
      [{ formatId: 1, compressionLevel: 1000 }, 'compressionLevel'],
      [{ formatId: 1, contentHash: 'yes' as unknown as boolean }, 'contentHash'],
      [null, 'options'],
    ];
    for (const [options, field] of cases) {
      await invalid(() => PackfileWriter.create(storage, 'x.pack', options as PackfileWriterOptions), field);
    }
    expect(readdirSync(storage.dir)).toEqual([]);
  });

  it('rejects bad reader options and arguments, naming them', async () => {
    const dir = tempDir('pack-args');
    await writePack(dir, 'p.pack', makeItems(300, 20, 1));
    const file = await new LocalStorage(dir).open('p.pack');
    for (const [options, field] of [
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: 65 }, 'concurrency'],
      [{ concurrency: 2.5 }, 'concurrency'],
      [{ maxBatchBytes: 0 }, 'maxBatchBytes'],
      [{ maxBatchBytes: '1' }, 'maxBatchBytes'],
    ] as const) {
      await invalid(() => PackfileReader.open(file, FORMAT_ID, options as never), field);
    }
    await invalid(() => PackfileReader.open(file, -1), 'expectedFormatId');
    await invalid(() => PackfileReader.open({} as StorageFile, FORMAT_ID), 'file');
    const reader = await PackfileReader.open(file, FORMAT_ID);
    await invalid(() => reader.readItems([3, 2]), 'positions[1]');
    await invalid(() => reader.readItems([3, 3]), 'positions[1]');
    await invalid(() => reader.readItems([300]), 'positions[0]');
    await invalid(() => reader.readItems([-1]), 'positions[0]');
    await invalid(() => reader.readItems([0.5]), 'positions[0]');
    await invalid(() => reader.readItems(5 as unknown as number[]), 'positions');
    await invalid(() => reader.readRange(5, 4), 'end');
    await invalid(() => reader.readRange(0, 301), 'end');
    expectErrorCode(ColdStoreError, () => reader.recordOfItem(300), [INVALID], 'recordOfItem', 'item');
    expectErrorCode(ColdStoreError, () => reader.itemView(-1), [INVALID], 'itemView', 'position');
    expect(await reader.readItems([])).toEqual([]);
    expect(await reader.readRange(300, 300)).toEqual([]);
    await reader.close();
    await reader.close();
    expect((await rejectionOf(ColdStoreError, () => reader.readItems([0]))).code).toBe(ColdStoreErrorCode.CLOSED);
  });
});

describe('packfile writer lifecycle', () => {
  it('leaves no file before finish or after abort, and refuses use after either', async () => {
    const dir = tempDir('pack-abort');
    const storage = new LocalStorage(dir);
    const writer = await PackfileWriter.create(storage, 'p.pack', { formatId: 1, maxRecordBytes: 4096 });
    for (const item of makeItems(5000, 500, 2)) await writer.add(item); // several output flushes
    expect(writer.itemCount).toBe(5000);
    expect(await storage.exists('p.pack')).toBe(false);
    await writer.abort();
    await writer.abort();
    expect(readdirSync(dir)).toEqual([]);
    expect((await rejectionOf(ColdStoreError, () => writer.add(new Uint8Array(1)))).code).toBe(
      ColdStoreErrorCode.CLOSED,
    );

    const done = await PackfileWriter.create(storage, 'q.pack', { formatId: 1 });
    await done.add(new Uint8Array(3));
    await done.finish();
    expect((await rejectionOf(ColdStoreError, () => done.finish())).code).toBe(ColdStoreErrorCode.CLOSED);
    await done.abort(); // no-op: the finished file stays
    expect(readdirSync(dir)).toEqual(['q.pack']);
  });

  it('aborts itself when storage fails, and the failure sticks', async () => {
    const dir = tempDir('pack-fail');
    const local = new LocalStorage(dir);
    let writes = 0;
    const storage: Storage = {
      open: (name) => local.open(name),
      exists: (name) => local.exists(name),
      remove: (name) => local.remove(name),
      createWriter: async (name): Promise<StorageWriter> => {
        const inner = await local.createWriter(name);
        return {
          write: (bytes) =>
            ++writes === 2
              ? Promise.reject(new ColdStoreError(ColdStoreErrorCode.IO, 'disk full'))
              : inner.write(bytes),
          get bytesWritten() {
            return inner.bytesWritten;
          },
          commit: () => inner.commit(),
          abort: () => inner.abort(),
        };
      },
    };
    const writer = await PackfileWriter.create(storage, 'p.pack', { formatId: 1, codec: 'none' });
    const items = makeItems(20_000, 400, 3);
    const failure = await rejectionOf(ColdStoreError, async () => {
      for (const item of items) await writer.add(item);
    });
    expect(failure.detail).toBe('disk full');
    expect(readdirSync(dir)).toEqual([]); // the temp file is gone
    expect(await rejectionOf(ColdStoreError, () => writer.add(new Uint8Array(1)))).toBe(failure);
  });

  it('refuses overlapping calls and non-byte items', async () => {
    const writer = await PackfileWriter.create(new LocalStorage(tempDir('pack-misuse')), 'p.pack', {
      formatId: 1,
      itemsPerRecord: 1,
    });
    await invalid(() => writer.add('abc' as unknown as Uint8Array), 'item');
    const first = writer.add(new Uint8Array(10)); // closes a record: awaits storage
    await invalid(() => writer.add(new Uint8Array(1)), 'writer');
    await first;
    await writer.abort();
  });
});

describe('packfile open and the buffer pool', () => {
  it('opens with one read of the tail, two when index and app data pass 256 KiB', async () => {
    const dir = tempDir('pack-open');
    const items = makeItems(1000, 50, 4);
    await writePack(dir, 'small.pack', items, {}, new Uint8Array(1000).fill(1));
    await writePack(dir, 'big.pack', items, {}, new Uint8Array(300 * 1024).fill(2));
    const small = await openPack(dir, 'small.pack');
    const big = await openPack(dir, 'big.pack');
    expect(small.stats.reads).toBe(1);
    expect(big.stats.reads).toBe(2);
    expect(big.appData).toEqual(new Uint8Array(300 * 1024).fill(2));
    expect(await big.readItems([999])).toEqual([items[999]]);
    await Promise.all([small.close(), big.close()]);
  });

  it('gives every buffer back when a record is corrupt or storage fails mid-fetch', async () => {
    const dir = tempDir('pack-pool-fail');
    const items = makeItems(4096, 100, 5);
    await writePack(dir, 'p.pack', items);
    // Storage failing after 10 reads, with 8 batches in flight.
    const inner = await new LocalStorage(dir).open('p.pack');
    const reader = await PackfileReader.open(failingFile(inner, 10), FORMAT_ID, { maxBatchBytes: 1 });
    const error = await rejectionOf(ColdStoreError, () => reader.readRange(0, items.length));
    expect(error.code).toBe(ColdStoreErrorCode.IO);
    expect(reader.stats.pooledBuffersInUse).toBe(0);
    await reader.close();
  });

  it('counts buffers dropped by the pool cap, and drops none in steady use', async () => {
    const dir = tempDir('pack-pool-cap');
    const items = makeItems(4096, 100, 6);
    await writePack(dir, 'p.pack', items);
    // Read, not mapped: mapped batches take no read buffer (records inflate into the reader's one scratch).
    const steady = await openReadPack(dir, 'p.pack', { concurrency: 8, maxBatchBytes: 1 });
    for (let round = 0; round < 5; round++) await steady.readRange(0, items.length);
    expect(steady.stats.buffersDroppedByPoolCap).toBe(0);
    // Concurrency 1 keeps 2 free buffers; three fetches at once hold 3 reads.
    const capped = await openReadPack(dir, 'p.pack', { concurrency: 1, maxBatchBytes: 1 });
    const [a, b, c] = await Promise.all([capped.readItems([0]), capped.readItems([2000]), capped.readItems([4000])]);
    expect([a, b, c]).toEqual([[items[0]], [items[2000]], [items[4000]]]);
    expect(capped.stats.buffersDroppedByPoolCap).toBeGreaterThan(0);
    expect(capped.stats.pooledBuffersInUse).toBe(0);
    await Promise.all([steady.close(), capped.close()]);
  });
});

describe('packfile corrupt record mid-fetch', () => {
  it.each([
    ['read', openReadPack],
    ['mapped', openPack],
  ] as const)('rejects with the record named and returns every buffer (%s)', async (_, open) => {
    const dir = tempDir('pack-pool-corrupt');
    const items = makeItems(4096, 100, 7);
    await writePack(dir, 'p.pack', items);
    const reader = await open(dir, 'p.pack');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const bytes = readFileSync(join(dir, 'p.pack'));
    const middle = Math.floor(bytes.length / 2); // inside a record in the middle
    bytes[middle] = (bytes[middle] as number) ^ 0x20;
    writeFileSync(join(dir, 'p.pack'), bytes);
    const error = await rejectionOf(ColdStoreError, () => reader.readRange(0, items.length));
    expect(error.code).toBe(ColdStoreErrorCode.CHECKSUM_MISMATCH);
    expect(error.field).toBe('record');
    expect(error.file).toBe(join(dir, 'p.pack'));
    expect(reader.stats.pooledBuffersInUse).toBe(0);
    await reader.close();
  });
});
