// The chunk layer's encodings against oracles. Properties:
// 1. PortableRoaringWriter: for random ascending ordinal sets (sparse, dense, runs, several containers, the array /
//    bitset / run thresholds), the bytes deserialize with roaring's safe portable reader and as a frozen view to
//    exactly the set; each container takes the form runOptimize() gives it (same serialized size as roaring's own
//    run-optimized bitmap, less the header bytes our run-capable header saves or costs).
// 2. checkPortableStructure accepts every written bitmap and roaring's own serializations, and refuses every
//    truncation and every extension by a byte (the frozen view must never be handed bytes whose headers point past
//    the item); refuses headers that lie about keys, counts or runs.
// 3. SipHash-2-4-128 matches the reference implementation's vectors (key 00..0f, messages 00..n-1).
// 4. IndexItemWriter (index.pack v2 items): the planned size is the written size; the body is a delta list exactly
//    when the set has at most LIST_MAX_ORDINALS ordinals and the list is strictly smaller than the bitmap, else the
//    bitmap (codec 0); a list decodes (decodeOrdinalList, listBitmapOf) to exactly the set, a bitmap passes the
//    structure check and views as exactly the set.
// 5. decodeOrdinalList refuses what no writer writes — unknown codecs, a first ordinal cut short, a gap cut short,
//    over 32 bits or not canonical, an ordinal past 2^32 − 1, more than LIST_MAX_ORDINALS ordinals — and a cut of a
//    list item is refused or decodes to a prefix of the set (which is why the record CRC must cover every item).
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import {
  decodeOrdinalList,
  INDEX_ITEM_HEADER_BYTES,
  IndexItemWriter,
  LIST_MAX_ORDINALS,
  listBitmapOf,
} from '../src/chunk/index-item.js';
import { checkPortableStructure, PortableRoaringWriter } from '../src/chunk/portable-roaring.js';
import { SipHash128 } from '../src/chunk/siphash.js';
import { ColdStoreError } from '../src/errors.js';

const { RoaringBitmap32 } = roaring;

/** Ascending unique ordinals: random mixes of sparse picks, dense blocks and runs over a few containers. */
const ordinalSetArb: fc.Arbitrary<Uint32Array> = fc
  .array(
    fc.oneof(
      fc.array(fc.nat({ max: 4 * 65_536 }), { minLength: 1, maxLength: 200 }),
      fc
        .record({ start: fc.nat({ max: 4 * 65_536 }), length: fc.integer({ min: 1, max: 9_000 }) })
        .map(({ start, length }) => Array.from({ length }, (_, i) => start + i)),
      fc
        .record({ container: fc.nat({ max: 3 }), count: fc.integer({ min: 4_000, max: 4_200 }), seed: fc.nat() })
        .map(({ container, count, seed }) => {
          // Around the array/bitset threshold: `count` distinct values, no runs to speak of.
          const out = new Set<number>();
          let x = seed | 1;
          while (out.size < count) {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            out.add(container * 65_536 + (x % 65_536));
          }
          return [...out];
        }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => Uint32Array.from([...new Set(parts.flat())].sort((a, b) => a - b)));

function encode(values: Uint32Array): Uint8Array {
  const writer = new PortableRoaringWriter();
  const size = writer.plan(values, 0, values.length);
  const out = new Uint8Array(size + 3);
  expect(writer.write(values, out, 3)).toBe(size + 3);
  return out.subarray(3);
}

describe('portable roaring encoding', () => {
  it('property 1: written bytes read back, safely and as frozen views, to exactly the set', () => {
    fc.assert(
      fc.property(ordinalSetArb, (values) => {
        const bytes = encode(values);
        const safe = RoaringBitmap32.deserialize(Buffer.from(bytes), 'portable');
        expect(safe.size).toBe(values.length);
        expect(safe.toUint32Array()).toEqual(values);
        const view = RoaringBitmap32.unsafeFrozenView(bytes, 'unsafe_frozen_portable');
        expect(view.isEqual(safe)).toBe(true);
        const theirs = new RoaringBitmap32(values);
        theirs.runOptimize();
        // Same container forms: their size minus their header equals ours minus ours.
        const containers = new Set([...values].map((v) => v >>> 16)).size;
        const hasRun = theirs.serialize('portable').length;
        const ourHeader = 4 + Math.ceil(containers / 8) + 4 * containers + (containers >= 4 ? 4 * containers : 0);
        const theirHeaderRun = ourHeader;
        const theirHeaderNoRun = 8 + 8 * containers;
        const body = bytes.length - ourHeader;
        expect([hasRun - theirHeaderRun, hasRun - theirHeaderNoRun]).toContain(body);
      }),
      propertyParams({ numRuns: 150 }),
    );
  });

  it('property 2: the structure check accepts whole bitmaps and refuses truncations and extensions', () => {
    fc.assert(
      fc.property(ordinalSetArb, (values) => {
        const bytes = encode(values);
        const padded = new Uint8Array(bytes.length + 1);
        padded.set(bytes);
        expect(checkPortableStructure(padded, 0, bytes.length)).toBeUndefined();
        expect(checkPortableStructure(padded, 0, bytes.length + 1)).toBeDefined();
        for (const cut of [0, 1, 3, 4, 5, 8, bytes.length - 1, Math.floor(bytes.length / 2)]) {
          if (cut >= 0 && cut < bytes.length) expect(checkPortableStructure(bytes, 0, cut)).toBeDefined();
        }
        const theirs = new RoaringBitmap32(values);
        expect(
          checkPortableStructure(theirs.serialize('portable'), 0, theirs.getSerializationSizeInBytes('portable')),
        ).toBeUndefined();
        theirs.runOptimize();
        const optimized = theirs.serialize('portable');
        expect(checkPortableStructure(optimized, 0, optimized.length)).toBeUndefined();
      }),
      propertyParams({ numRuns: 150 }),
    );
  });

  it('property 2: lying headers are refused', () => {
    // Two containers, keys 0 and 1: [cookie][flags][key card][key card][containers].
    const values = Uint32Array.from([1, 2, 3, 65_536 + 7]);
    const good = encode(values);
    expect(checkPortableStructure(good, 0, good.length)).toBeUndefined();
    const descending = good.slice();
    descending[4 + 1 + 4] = 0; // second key 1 → 0
    expect(checkPortableStructure(descending, 0, descending.length)).toMatch(/key/);
    const moreValues = good.slice();
    moreValues[4 + 1 + 2] = 9; // first cardinality 3 → 10: its array runs past the bitmap
    expect(checkPortableStructure(moreValues, 0, moreValues.length)).toBeDefined();
    const badCookie = good.slice();
    badCookie[0] = 0x99;
    expect(checkPortableStructure(badCookie, 0, badCookie.length)).toMatch(/cookie/);
    // A run container [start 65530, length 9]: passes the container's end.
    const run = encode(Uint32Array.from({ length: 10 }, (_, i) => 100 + i));
    const pastEnd = run.slice();
    pastEnd[pastEnd.length - 4] = 0xfa;
    pastEnd[pastEnd.length - 3] = 0xff;
    expect(checkPortableStructure(pastEnd, 0, pastEnd.length)).toMatch(/passes the container/);
    const wrongTotal = run.slice();
    wrongTotal[wrongTotal.length - 2] = 3; // run length 10 → 4: the header says 10
    expect(checkPortableStructure(wrongTotal, 0, wrongTotal.length)).toMatch(/runs hold/);
  });
});

/** Small sets (the common terms): 1 to 1,100 ordinals spread over up to 2^32, so first ordinals of every width. */
const smallSetArb: fc.Arbitrary<Uint32Array> = fc
  .record({
    max: fc.constantFrom(200, 70_000, 2 ** 24, 2 ** 32 - 1),
    values: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 1_100 }),
  })
  .map(({ max, values }) =>
    Uint32Array.from([...new Set(values.map((v) => Math.floor(v * max)))].sort((a, b) => a - b)),
  );

/** The oracle of a delta list's body size: the first ordinal in its fewest bytes, then each gap as LEB128. */
function listBytes(values: Uint32Array): number {
  let bytes = Math.max(1, Math.ceil(Math.log2(values[0]! + 1) / 8));
  for (let i = 1; i < values.length; i++) bytes += Math.max(1, Math.ceil(Math.log2(values[i]! - values[i - 1]!) / 7));
  return bytes;
}

/** An index.pack item of `values` (fingerprint 0xdeadbeef): the writer's bytes. */
function item(values: Uint32Array): Uint8Array {
  const writer = new IndexItemWriter();
  const size = 4 + writer.plan(values, 0, values.length);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, 0xdeadbeef, true);
  expect(writer.write(values, 0, values.length, out, 4)).toBe(size);
  return out;
}

describe('index.pack items', () => {
  it('property 4: the smaller of list and bitmap, decoding to exactly the set', () => {
    const scratch = new Uint32Array(LIST_MAX_ORDINALS);
    fc.assert(
      fc.property(fc.oneof(smallSetArb, ordinalSetArb), (values) => {
        const bytes = item(values);
        const bitmapBytes = new PortableRoaringWriter().plan(values, 0, values.length);
        if (bytes[4] === 0) {
          expect(bytes.length).toBe(INDEX_ITEM_HEADER_BYTES + bitmapBytes);
          expect(checkPortableStructure(bytes, INDEX_ITEM_HEADER_BYTES, bytes.length)).toBeUndefined();
          const view = RoaringBitmap32.unsafeFrozenView(bytes.subarray(5), 'unsafe_frozen_portable');
          expect(view.toUint32Array()).toEqual(values);
          // The list would not have been smaller (or the term is past the list's cap).
          if (values.length <= LIST_MAX_ORDINALS) expect(listBytes(values)).toBeGreaterThanOrEqual(bitmapBytes);
        } else {
          expect(values.length).toBeLessThanOrEqual(LIST_MAX_ORDINALS);
          expect(bytes.length).toBeLessThan(INDEX_ITEM_HEADER_BYTES + bitmapBytes);
          expect(bytes.length).toBe(INDEX_ITEM_HEADER_BYTES + listBytes(values));
          expect(decodeOrdinalList(bytes, scratch)).toBe(values.length);
          expect(scratch.subarray(0, values.length)).toEqual(values);
          const bitmap = listBitmapOf(bytes, 'x', 0);
          expect(bitmap.toUint32Array()).toEqual(values);
          expect(() => (bitmap as InstanceType<typeof RoaringBitmap32>).add(1)).toThrow();
        }
      }),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('property 4: a one-ordinal term is 8 bytes below 2^24, a list of small gaps a byte per ordinal', () => {
    expect(item(Uint32Array.of(8_999_999)).length).toBe(8);
    expect(item(Uint32Array.of(3)).length).toBe(6);
    expect(item(Uint32Array.of(2 ** 32 - 1)).length).toBe(9);
    const spaced = Uint32Array.from({ length: 1000 }, (_, i) => 5_000_000 + i * 100);
    expect(item(spaced).length).toBe(5 + 3 + 999);
    // Consecutive ordinals are one run: the bitmap is smaller.
    expect(item(Uint32Array.from({ length: 50 }, (_, i) => 70_000 + i))[4]).toBe(0);
    // Past LIST_MAX_ORDINALS: always the bitmap.
    expect(item(Uint32Array.from({ length: LIST_MAX_ORDINALS + 1 }, (_, i) => i * 1000))[4]).toBe(0);
  });

  it('property 5: what no writer writes is refused, cuts are refused or a prefix', () => {
    const scratch = new Uint32Array(LIST_MAX_ORDINALS);
    const list = (...bytes: number[]) => Uint8Array.from([0xef, 0xbe, 0xad, 0xde, ...bytes]);
    expect(decodeOrdinalList(list(5, 1), scratch)).toMatch(/codec 5/);
    expect(decodeOrdinalList(list(3, 1, 2), scratch)).toMatch(/first ordinal/);
    expect(decodeOrdinalList(list(1, 7, 0x80), scratch)).toMatch(/runs past/);
    expect(decodeOrdinalList(list(1, 7, 0x80, 0x00), scratch)).toMatch(/not canonical/);
    expect(decodeOrdinalList(list(1, 7, 0xff, 0xff, 0xff, 0xff, 0x1f), scratch)).toMatch(/over 32 bits/);
    expect(decodeOrdinalList(list(4, 0xfe, 0xff, 0xff, 0xff, 1), scratch)).toMatch(/past 2\^32/);
    expect(decodeOrdinalList(list(1, 0, ...new Array(LIST_MAX_ORDINALS).fill(0)), scratch)).toMatch(/more than/);
    expect(decodeOrdinalList(list(1, 0, ...new Array(LIST_MAX_ORDINALS - 1).fill(0)), scratch)).toBe(LIST_MAX_ORDINALS);
    expect(() => listBitmapOf(list(9), 'f', 3)).toThrow(ColdStoreError);
    fc.assert(
      fc.property(smallSetArb, (values) => {
        const bytes = item(values);
        if (bytes[4] === 0) return;
        for (let cut = 0; cut < bytes.length; cut++) {
          const got = cut < INDEX_ITEM_HEADER_BYTES ? 'short' : decodeOrdinalList(bytes.subarray(0, cut), scratch);
          if (typeof got === 'number') expect(scratch.subarray(0, got)).toEqual(values.subarray(0, got));
          if (typeof got === 'number') expect(got).toBeLessThan(values.length);
        }
      }),
      propertyParams({ numRuns: 100 }),
    );
  });
});

describe('SipHash-2-4-128', () => {
  it('property 3: the reference vectors', () => {
    const key = Uint8Array.from({ length: 16 }, (_, i) => i);
    const message = Uint8Array.from({ length: 64 }, (_, i) => i);
    // vectors_sip128[n] of the reference implementation (github.com/veorq/SipHash, vectors.h).
    const vectors: Record<number, string> = {
      0: 'a3817f04ba25a8e66df67214c7550293',
      1: 'da87c1d86b99af44347659119b22fc45',
      7: 'a1f1ebbed8dbc153c0b84aa61ff08239',
      8: '3b62a9ba6258f5610f83e264f31497b4',
      15: '5493e99933b0a8117e08ec0f97cfc3d9',
      16: '6ee2a4ca67b054bbfd3315bf85230577',
      17: '473d06e8738db89854c066c47ae47740',
      63: '5150d1772f50834a503e069a973fbd7c',
    };
    const hash = new SipHash128(key);
    const out = new Uint8Array(20);
    for (const [length, tag] of Object.entries(vectors)) {
      hash.hash(message, 0, Number(length), out, 2);
      expect(Buffer.from(out.subarray(2, 18)).toString('hex'), `message of ${length} bytes`).toBe(tag);
    }
    // At an offset inside a larger buffer: the same tag.
    const shifted = new Uint8Array(80);
    shifted.set(message.subarray(0, 16), 9);
    hash.hash(shifted, 9, 16, out, 0);
    expect(Buffer.from(out.subarray(0, 16)).toString('hex')).toBe(vectors[16]);
  });
});
