// Packfile writer and reader against an in-memory oracle (the list of items written). Properties:
// 1. FOR groups: any u32 values decode to themselves, from the group's end, using exactly its bytes.
// 2. Round trip: for random item lists (sizes 0 up to past the record byte cap; counts 0, 1, 127, 128, 129 and
//    many records), both codecs, any itemsPerRecord and byte cap, readRange(0, n) returns the items exactly, the
//    counts and app data match, and recordOfItem agrees with the records' item ranges.
// 3. readItems of a random sorted subset returns exactly those items, in order, for any concurrency and batch cap;
//    readRange of a random window likewise.
// 4. The content hash is SHA-256 over `u32 LE length ‖ item`, whatever the codec and record layout.
// 5. itemView of a 'none' pack is the item itself, as a view of the mapping (no copy).
// 6. With a dictionary (codec 2), properties 2 and 4 hold as without, the dictionary costs its own bytes in the file,
//    and records of repeated content compress smaller against a dictionary of that content.
// 7. scanRecords visits every record once, in order: its item sizes and payload are the items, concatenated.
import { createHash } from 'node:crypto';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeForGroup, encodeForGroup } from '../src/packfile/for-group.ts';
import type { PackfileReader } from '../src/packfile/reader.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import { makeItems, openPack, writePack } from './packfile-support.ts';

const itemArb = fc.oneof(
  { weight: 6, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 64 }) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 5000 }).map((n) => new Uint8Array(n).fill(n & 0xff)) },
);

const layoutArb = fc
  .record({
    itemsPerRecord: fc.constantFrom(1, 2, 3, 16, 128),
    maxRecordBytes: fc.constantFrom(1, 64, 1000, 1024 * 1024),
    codec: fc.constantFrom('zstd' as const, 'none' as const),
    contentHash: fc.boolean(),
    dictionary: fc.option(fc.uint8Array({ minLength: 1, maxLength: 300 }), { nil: undefined }),
  })
  .map(({ dictionary, ...layout }) =>
    dictionary === undefined || layout.codec === 'none' ? layout : { ...layout, dictionary },
  );

/** The items of a pack as scanRecords visits them (property 7), checking the records come in order. */
async function scanned(reader: PackfileReader): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  await reader.scanRecords((payload, sizes, firstItem) => {
    expect(firstItem).toBe(out.length);
    let at = 0;
    for (const size of sizes) {
      out.push(payload.slice(at, at + size));
      at += size;
    }
    expect(at).toBe(payload.length);
  });
  return out;
}

function expectedHash(items: readonly Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const item of items) {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(item.length);
    hash.update(length).update(item);
  }
  return new Uint8Array(hash.digest());
}

describe('FOR groups', () => {
  it('decode any u32 values to themselves from the group end (property 1)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 32 - 1 }), { maxLength: 300 }), fc.nat({ max: 7 }), (values, pad) => {
        const group = encodeForGroup(values, 0, values.length);
        const bytes = new Uint8Array(pad + group.length);
        bytes.set(group, pad);
        const decoded = new Array<number>(values.length);
        const start = decodeForGroup(bytes, bytes.length, values.length, 0, decoded, {
          file: 'x',
          base: 0,
          field: 'f',
        });
        expect(start).toBe(pad);
        expect(decoded).toEqual(values);
      }),
      propertyParams(),
    );
  });
});

describe('packfile round trip', () => {
  it('returns every item exactly, whatever the layout, with or without a dictionary (properties 2, 4, 6, 7)', async () => {
    const dir = tempDir('pack-rt');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(itemArb, { maxLength: 400 }),
        layoutArb,
        fc.uint8Array(),
        async (items, layout, app) => {
          const name = `p${run++}.pack`;
          const summary = await writePack(dir, name, items, layout, app);
          const reader = await openPack(dir, name);
          try {
            expect(reader.itemCount).toBe(items.length);
            expect(summary.itemCount).toBe(items.length);
            expect(reader.recordCount).toBe(summary.recordCount);
            expect(reader.appData).toEqual(app);
            const all = await reader.readRange(0, items.length);
            expect(all.length).toBe(items.length);
            for (let i = 0; i < items.length; i++) expect(all[i]).toEqual(items[i]);
            expect(await scanned(reader)).toEqual(items);
            if (layout.contentHash) {
              expect(reader.contentHash).toEqual(expectedHash(items));
              expect(summary.contentHash).toEqual(expectedHash(items));
            } else {
              expect(reader.contentHash).toBeUndefined();
            }
            // recordOfItem: non-decreasing, starting at 0, ending at recordCount - 1, at most itemsPerRecord per record.
            const perRecord = new Map<number, number>();
            let previous = 0;
            for (let i = 0; i < items.length; i++) {
              const record = reader.recordOfItem(i);
              expect(record === previous || record === previous + 1).toBe(true);
              previous = record;
              perRecord.set(record, (perRecord.get(record) ?? 0) + 1);
            }
            if (items.length > 0) expect(previous).toBe(reader.recordCount - 1);
            for (const count of perRecord.values()) expect(count).toBeLessThanOrEqual(layout.itemsPerRecord);
            expect(reader.stats.pooledBuffersInUse).toBe(0);
          } finally {
            await reader.close();
            await new LocalStorage(dir).remove(name);
          }
        },
      ),
      propertyParams({ numRuns: 60 }),
    );
  });

  it.each([0, 1, 127, 128, 129, 128 * 40 + 3])(
    'round-trips %i items with both codecs and a dictionary',
    async (count) => {
      const dir = tempDir('pack-counts');
      const items = makeItems(count, 300, count);
      const dictionary = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);
      for (const [name, options] of [
        ['zstd', { codec: 'zstd' }],
        ['none', { codec: 'none' }],
        ['dictionary', { codec: 'zstd', dictionary }],
      ] as const) {
        await writePack(dir, `${name}.pack`, items, options);
        const reader = await openPack(dir, `${name}.pack`);
        expect(reader.recordCount).toBe(Math.ceil(count / 128));
        const all = await reader.readRange(0, count);
        expect(all).toEqual(items);
        expect(await scanned(reader)).toEqual(items);
        await reader.close();
      }
    },
  );

  it('compresses repeated content smaller against a dictionary of it, which the pack carries (property 6)', async () => {
    const dir = tempDir('pack-dictionary');
    // Records of 16 items, each a few bytes of noise around a 200-byte text that recurs in every record.
    const common = new Uint8Array(200).map((_, i) => (i * 31 + 7) & 0xff);
    const items = makeItems(2000, 24, 4).map((noise) => {
      const item = new Uint8Array(common.length + noise.length);
      item.set(noise, 0);
      item.set(common, noise.length);
      return item;
    });
    const plain = await writePack(dir, 'plain.pack', items, { itemsPerRecord: 16 });
    const withDictionary = await writePack(dir, 'dict.pack', items, { itemsPerRecord: 16, dictionary: common });
    expect(withDictionary.contentHash).toEqual(plain.contentHash);
    // The dictionary saves more than its own 200 bytes: every record's first copy of the text is a reference.
    expect(withDictionary.bytes + 20 * 125).toBeLessThan(plain.bytes);
    const reader = await openPack(dir, 'dict.pack');
    expect(reader.stats.reads).toBe(2); // the tail, then the dictionary
    expect(await reader.readRange(0, items.length)).toEqual(items);
    expect(await reader.readItems([0, 17, 1999])).toEqual([items[0], items[17], items[1999]]);
    await reader.close();
  });

  it('keeps items larger than the byte cap whole, one record each', async () => {
    const dir = tempDir('pack-large');
    const items = [new Uint8Array(10), new Uint8Array(300_000).fill(7), new Uint8Array(5), new Uint8Array(0)];
    items[0]?.fill(1);
    const summary = await writePack(dir, 'large.pack', items, { maxRecordBytes: 1000, codec: 'none' });
    expect(summary.contentHash).toEqual(expectedHash(items)); // an item larger than the hash's staging buffer
    const reader = await openPack(dir, 'large.pack', { maxBatchBytes: 4096 });
    expect([0, 1, 2, 3].map((i) => reader.recordOfItem(i))).toEqual([0, 1, 2, 2]);
    // Buffer.compare: a deep toEqual of a 300 kB array takes seconds.
    const same = (got: Uint8Array[], want: Uint8Array[]) =>
      got.length === want.length && got.every((item, i) => Buffer.compare(item, want[i] as Uint8Array) === 0);
    expect(same(await reader.readRange(0, 4), items)).toBe(true);
    expect(same(await reader.readItems([1]), [items[1] as Uint8Array])).toBe(true);
    expect(reader.stats.pooledBuffersInUse).toBe(0);
    await reader.close();
  });
});

describe('packfile partial reads', () => {
  it('readItems of a sorted subset and readRange of a window return exactly those items (property 3)', async () => {
    const dir = tempDir('pack-subset');
    const items = makeItems(3000, 200, 7);
    await writePack(dir, 'zstd.pack', items, { codec: 'zstd', maxRecordBytes: 8000 });
    await writePack(dir, 'none.pack', items, { codec: 'none', itemsPerRecord: 50 });
    const readers = [
      await openPack(dir, 'zstd.pack', { concurrency: 3, maxBatchBytes: 5000 }),
      await openPack(dir, 'none.pack', { concurrency: 8, maxBatchBytes: 1 }),
      await openPack(dir, 'none.pack', { concurrency: 1 }),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.nat({ max: items.length - 1 }), { maxLength: 200 }),
        fc.nat({ max: items.length }),
        fc.nat({ max: 300 }),
        fc.nat({ max: readers.length - 1 }),
        async (subset, windowStart, windowLength, which) => {
          const reader = readers[which];
          if (reader === undefined) throw new Error('no reader');
          const positions = subset.sort((a, b) => a - b);
          const got = await reader.readItems(positions);
          expect(got).toEqual(positions.map((p) => items[p]));
          const end = Math.min(items.length, windowStart + windowLength);
          expect(await reader.readRange(windowStart, end)).toEqual(items.slice(windowStart, end));
          expect(reader.stats.pooledBuffersInUse).toBe(0);
        },
      ),
      propertyParams({ numRuns: 80 }),
    );
    for (const reader of readers) await reader.close();
  });

  it('itemView of an uncompressed pack is a view of the mapping (property 5)', async () => {
    const dir = tempDir('pack-view');
    const items = makeItems(1000, 100, 3);
    await writePack(dir, 'none.pack', items, { codec: 'none', maxRecordBytes: 2000 });
    await writePack(dir, 'zstd.pack', items, { codec: 'zstd' });
    const storage = new LocalStorage(dir);
    const file = await storage.open('none.pack');
    const reader = await openPack(dir, 'none.pack');
    const zstdReader = await openPack(dir, 'zstd.pack');
    for (let i = 0; i < items.length; i += 7) {
      const view = reader.itemView(i);
      expect(view).toEqual(items[i]);
      expect(zstdReader.itemView(i)).toBeUndefined();
    }
    // Two views of one record share the mapping's buffer: no copy.
    expect(reader.itemView(1)?.buffer).toBe(reader.itemView(2)?.buffer);
    await Promise.all([reader.close(), zstdReader.close(), file.close()]);
  });
});
