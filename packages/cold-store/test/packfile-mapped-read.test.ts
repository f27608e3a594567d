// The packfile reader's two ways of reading records: from the file's mapping (batches whose bytes are in memory) and
// with storage reads (the fan-out, for storages that cannot map, files over the mapping limit and pages not in
// memory). Properties and cases:
// 1. Mapped and read fetches return the oracle's items, for random sorted subsets and windows, both codecs, with
//    and without byte-capped records: the mapped reader makes no storage read after open's, the read one serves no
//    batch from the mapping.
// 2. Residency decides per batch: the batches whose bytes the file reports as not in memory are read, one read
//    each, the others mapped, with the same results.
// 3. A file whose mapping cannot be made (FILE_TOO_LARGE, IO) is read instead; a closed file still rejects CLOSED.
// 4. A mapped record is checked, CRC included, on a reader's first use of it and not again (its pages cannot change:
//    the storage contract): damage present at that first use is reported through the mapping; bytes changed later
//    under the live mapping, which the contract forbids, are not checked again by that reader, while a new reader
//    and every storage read report them. Negative control of (4): without the check (skipRecordCrc) even the first
//    read serves the damaged item.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { propertyParams, rejectionOf, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ColdStoreError, ColdStoreErrorCode } from '../src/errors.ts';
import { TRAILER_BYTES, TrailerField } from '../src/packfile/format.ts';
import { __faults, PackfileReader } from '../src/packfile/reader.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import type { StorageFile } from '../src/storage/storage.ts';
import { FORMAT_ID, makeItems, openPack, openReadPack, writePack } from './packfile-support.ts';

/** A StorageFile over `bytes` (which a test may change): map() is the array itself, read() copies out of it. */
function memoryFile(bytes: Uint8Array, resident?: (offset: number, length: number) => boolean): StorageFile {
  let closed = false;
  const closedError = () => new ColdStoreError(ColdStoreErrorCode.CLOSED, 'closed', { file: 'memory' });
  const file: StorageFile = {
    name: 'memory',
    size: bytes.length,
    read: async (offset, length, into) => {
      if (closed) throw closedError();
      const target = into === undefined ? new Uint8Array(length) : into.subarray(0, length);
      target.set(bytes.subarray(offset, offset + length));
      return target;
    },
    map: () => {
      if (closed) throw closedError();
      return bytes;
    },
    dropCache: () => false,
    close: async () => {
      closed = true;
    },
  };
  if (resident !== undefined) file.resident = resident;
  return file;
}

/** Each record's file offset: what a read-only reader with one-record batches reads, after open's tail read. */
async function recordStarts(bytes: Uint8Array): Promise<number[]> {
  const inner = memoryFile(bytes);
  const offsets: number[] = [];
  const file: StorageFile = {
    ...inner,
    map: () => undefined,
    read: (offset, length, into) => {
      offsets.push(offset);
      return inner.read(offset, length, into);
    },
  };
  const reader = await PackfileReader.open(file, FORMAT_ID, { maxBatchBytes: 1, concurrency: 1 });
  await reader.readRange(0, reader.itemCount);
  await reader.close();
  return offsets.slice(1);
}

/** Where the records end: the offset index, app data and trailer follow. */
function recordsEnd(bytes: Uint8Array): number {
  const trailer = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - TRAILER_BYTES, TRAILER_BYTES);
  const meta = trailer.getUint32(TrailerField.indexSize, true) + trailer.getUint32(TrailerField.appDataSize, true);
  return bytes.length - TRAILER_BYTES - meta;
}

describe('mapped and read fetches', () => {
  afterEach(() => {
    __faults.skipRecordCrc = false;
  });

  it('return the same items, the oracle’s (property 1)', async () => {
    const dir = tempDir('pack-mapped');
    let written = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          count: fc.integer({ min: 1, max: 700 }),
          maxBytes: fc.constantFrom(0, 40, 300, 2000),
          seed: fc.nat(),
          codec: fc.constantFrom('zstd' as const, 'none' as const),
          maxRecordBytes: fc.constantFrom(2000, 1024 * 1024),
          maxBatchBytes: fc.constantFrom(1, 5000, 1024 * 1024),
          concurrency: fc.constantFrom(1, 3, 8),
          pick: fc.double({ min: 0.001, max: 1, noNaN: true }),
          window: fc.tuple(fc.nat(), fc.nat()),
        }),
        async (c) => {
          const items = makeItems(c.count, c.maxBytes, c.seed);
          const name = `p${written++}.pack`;
          await writePack(dir, name, items, { codec: c.codec, maxRecordBytes: c.maxRecordBytes });
          const options = { concurrency: c.concurrency, maxBatchBytes: c.maxBatchBytes };
          const mapped = await openPack(dir, name, options);
          const read = await openReadPack(dir, name, options);
          try {
            const positions = items.map((_, i) => i).filter((i) => (i * 2654435761) % 1000 < c.pick * 1000);
            const start = c.window[0] % (items.length + 1);
            const end = start + (c.window[1] % (items.length - start + 1));
            for (const reader of [mapped, read]) {
              expect(await reader.readItems(positions)).toEqual(positions.map((i) => items[i]));
              expect(await reader.readRange(start, end)).toEqual(items.slice(start, end));
              expect(reader.stats.pooledBuffersInUse).toBe(0);
            }
            expect(mapped.stats.reads).toBe(1);
            expect(mapped.stats.mappedBatches).toBe(mapped.stats.batches);
            expect(read.stats.mappedBatches).toBe(0);
            expect(read.stats.reads).toBe(1 + read.stats.batches);
          } finally {
            await Promise.all([mapped.close(), read.close()]);
          }
        },
      ),
      propertyParams({ numRuns: 25 }),
    );
  });

  it('read the batches that are not in memory and map the rest (property 2)', async () => {
    const dir = tempDir('pack-resident');
    const items = makeItems(3000, 120, 21);
    const summary = await writePack(dir, 'p.pack', items, { codec: 'zstd' });
    const bytes = new Uint8Array(readFileSync(join(dir, 'p.pack')));
    const starts = await recordStarts(bytes);
    expect(starts.length).toBe(summary.recordCount);
    const open = async (inMemory: (offset: number, length: number) => boolean) => {
      const asked: [number, number][] = [];
      const file = memoryFile(bytes, (offset, length) => {
        asked.push([offset, length]);
        return inMemory(offset, length);
      });
      return { reader: await PackfileReader.open(file, FORMAT_ID, { maxBatchBytes: 1 }), asked };
    };

    // Out of memory: any range holding the start of a record whose number is a multiple of 3.
    const cold = await open(
      (offset, length) => !starts.some((s, r) => r % 3 === 0 && s >= offset && s < offset + length),
    );
    expect(await cold.reader.readRange(0, items.length)).toEqual(items);
    const coldRecords = Math.ceil(summary.recordCount / 3);
    expect(cold.reader.stats.batches).toBe(summary.recordCount);
    expect(cold.reader.stats.reads).toBe(1 + coldRecords);
    expect(cold.reader.stats.mappedBatches).toBe(summary.recordCount - coldRecords);
    expect(cold.reader.stats.pooledBuffersInUse).toBe(0);
    // The whole pack is one run of adjacent batches: one question for the run, then one per batch.
    expect(cold.asked.length).toBe(1 + summary.recordCount);

    const warm = await open(() => true);
    expect(await warm.reader.readRange(0, items.length)).toEqual(items);
    expect(warm.reader.stats.mappedBatches).toBe(summary.recordCount);
    expect(warm.asked).toEqual([[0, recordsEnd(bytes)]]); // one question for the whole fetch
    await Promise.all([cold.reader.close(), warm.reader.close()]);
  });

  it('read a file whose mapping cannot be made, and reject CLOSED on a closed file (case 3)', async () => {
    const dir = tempDir('pack-nomap');
    const items = makeItems(1000, 80, 22);
    await writePack(dir, 'p.pack', items);
    for (const code of [ColdStoreErrorCode.FILE_TOO_LARGE, ColdStoreErrorCode.IO]) {
      const local = await new LocalStorage(dir).open('p.pack');
      const file: StorageFile = {
        name: local.name,
        size: local.size,
        read: (offset, length, into) => local.read(offset, length, into),
        map: () => {
          throw new ColdStoreError(code, 'no mapping here', { file: local.name });
        },
        dropCache: () => false,
        close: () => local.close(),
      };
      const reader = await PackfileReader.open(file, FORMAT_ID, { maxBatchBytes: 1 });
      expect(await reader.readRange(0, items.length)).toEqual(items);
      expect(reader.stats.mappedBatches).toBe(0);
      expect(reader.stats.reads).toBe(1 + reader.stats.batches);
      await reader.close();
    }
    const file = await new LocalStorage(dir).open('p.pack');
    const reader = await PackfileReader.open(file, FORMAT_ID);
    await file.close(); // under the reader
    expect((await rejectionOf(ColdStoreError, () => reader.readItems([5]))).code).toBe(ColdStoreErrorCode.CLOSED);
    await reader.close();
  });

  describe('a mapped record is checked once per reader (case 4)', () => {
    async function setUp() {
      const dir = tempDir('pack-once');
      const items = makeItems(600, 60, 23);
      await writePack(dir, 'p.pack', items, { codec: 'none', itemsPerRecord: 64 });
      const bytes = new Uint8Array(readFileSync(join(dir, 'p.pack')));
      // Item 70's first byte: record 1, a raw record, so a flip there changes exactly that item.
      const probe = await PackfileReader.open(memoryFile(bytes), FORMAT_ID);
      const view = probe.itemView(70);
      expect(view?.length).toBeGreaterThan(0);
      const at = (view as Uint8Array).byteOffset - bytes.byteOffset;
      await probe.close();
      return { items, bytes, at };
    }

    it('reports damage present at a reader’s first use, through the mapping', async () => {
      const { items, bytes, at } = await setUp();
      bytes[at] = (bytes[at] as number) ^ 0x04;
      const reader = await PackfileReader.open(memoryFile(bytes), FORMAT_ID);
      const error = await rejectionOf(ColdStoreError, () => reader.readItems([70]));
      expect([error.code, error.field]).toEqual([ColdStoreErrorCode.CHECKSUM_MISMATCH, 'record']);
      expect(() => reader.itemView(70)).toThrow(
        expect.objectContaining({ code: ColdStoreErrorCode.CHECKSUM_MISMATCH }),
      );
      expect(reader.stats.mappedBatches).toBe(1);
      expect(await reader.readItems([0, 599])).toEqual([items[0], items[599]]);
      await reader.close();
    });

    it('does not check its pages again, while a new reader and every read do', async () => {
      const { items, bytes, at } = await setUp();
      const reader = await PackfileReader.open(memoryFile(bytes), FORMAT_ID);
      expect(await reader.readItems([70])).toEqual([items[70]]);
      bytes[at] = (bytes[at] as number) ^ 0x04; // what the storage contract rules out: a mapped file changing
      const changed = await reader.readItems([70]);
      expect(changed[0]).not.toEqual(items[70]);
      expect(reader.itemView(70)).toEqual(changed[0]);
      const fresh = await PackfileReader.open(memoryFile(bytes), FORMAT_ID);
      expect((await rejectionOf(ColdStoreError, () => fresh.readItems([70]))).code).toBe(
        ColdStoreErrorCode.CHECKSUM_MISMATCH,
      );
      const read = await PackfileReader.open({ ...memoryFile(bytes), map: () => undefined }, FORMAT_ID);
      expect((await rejectionOf(ColdStoreError, () => read.readItems([70]))).code).toBe(
        ColdStoreErrorCode.CHECKSUM_MISMATCH,
      );
      await Promise.all([reader.close(), fresh.close(), read.close()]);
    });

    it('negative control: without the record check the first mapped read serves the damaged item', async () => {
      const { items, bytes, at } = await setUp();
      bytes[at] = (bytes[at] as number) ^ 0x04;
      __faults.skipRecordCrc = true;
      const reader = await PackfileReader.open(memoryFile(bytes), FORMAT_ID);
      const [served] = await reader.readItems([70]);
      expect(served).not.toEqual(items[70]);
      await reader.close();
    });
  });
});
