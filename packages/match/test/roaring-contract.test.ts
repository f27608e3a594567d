// The roaring 2.7.0 (CRoaring 4.5) contract @strata/match relies on. Run this file first on any roaring upgrade:
// every library property the bitmap layer (src/bitmap) and the slab stepper assume is pinned here, checked against
// the library alone or against a sorted-array oracle built without roaring.
//
// 1. Inputs are never mutated: and / or / andNot / orMany / andCardinality / orCardinality / rangeCardinality /
//    rank / select / rangeUint32Array / toUint32Array / intersectsWithRange / has / statistics / isEqual leave every
//    argument byte-identical, and so does passing it to another bitmap's andInPlace / orInPlace / addMany.
// 2. Results share no storage with inputs: mutating any result (flipping its whole span, adding, removing) leaves
//    every input byte-identical, frozen views' backing bytes included; toUint32Array's array is the caller's own.
// 3. The many-way AND: an in-place chain into a range equals the pairwise `and` chain and the oracle for every
//    subset of container kinds (array, bitset, run, multi-key) over whole and partial container ranges; andCardinality
//    = and().size; rangeCardinality and the cached `size` / `isEmpty` are right after in-place ops; swap exchanges.
// 4. Container kinds: addRange / fromRange build run containers; an array container holds at most 4,096 values.
// 5. Ranges at the edges: half-open [a, b) for rangeCardinality / hasRange / addRange; 0 and 2^32 - 1; empty and
//    inverted ranges; intersectsWithRange(a, b) tests [a, b - 1) (so 2^32 - 1 is unreachable through it); rank /
//    select of non-uint32 arguments; rangeUint32Array(offset, limit) takes indexes, not values; minimum / maximum of
//    an empty bitmap.
// 6. Frozen views: 'unsafe_frozen_portable' over an unaligned Buffer slice equals the source; 'unsafe_frozen_croaring'
//    needs 32-byte alignment; views and freeze()d bitmaps reject every mutation the engine could reach.
// 7. Frozen views over one SharedArrayBuffer are readable concurrently from worker threads, agree with the main
//    thread, cannot be written from a worker, and leave the shared bytes unchanged.
// 8. WindowTerm's nextValue / previousValue (every strategy) equal the sorted-array model over random bitmaps of
//    every container kind, with windows at 0, mid-container, on 2^16 boundaries and at 2^32 - 1. Negative controls:
//    an off-by-one probe, and a probe that ignores the window, both fail the same property.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { propertyParams, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import { MAX_ORDINAL, type ProbeStrategy, WindowTerm } from '../src/bitmap/window-term.js';
import {
  type BitmapCase,
  bitmapCaseArb,
  CONTAINER_KINDS,
  type ContainerKind,
  caseBitmap,
  caseValues,
  interestingPoints,
  modelNext,
  modelPrevious,
  modelRange,
  SPAN,
  windowOf,
} from './bitmap-arbitraries.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** The bytes that identify a bitmap's content and layout (portable serialization is canonical per layout). */
const bytesOf = (bitmap: RoaringBitmap32): string => Buffer.from(bitmap.serialize('portable')).toString('hex');

/** toEqual on large typed arrays is slow: compare bytes, and show the diff only when they differ. */
function expectSameValues(actual: Uint32Array, expected: Uint32Array): void {
  const same = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(
    Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength),
  );
  if (!same) expect(Array.from(actual)).toEqual(Array.from(expected));
}

/** Oracle AND / OR of two sorted arrays (merges, no roaring). */
function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = [];
  let j = 0;
  for (const v of a) {
    while (j < b.length && b[j]! < v) j++;
    if (b[j] === v) out.push(v);
  }
  return Uint32Array.from(out);
}

function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  return Uint32Array.from(new Set([...a, ...b])).sort();
}

/** One bitmap of one container kind at `key` (for kind-subset checks). */
function kindBitmap(kind: ContainerKind, key: number, seed: number): { bitmap: RoaringBitmap32; values: Uint32Array } {
  const bitmapCase: BitmapCase = { firstKey: key, containers: [{ kind, seed }], holding: 'frozen' };
  const values = caseValues(bitmapCase);
  return { bitmap: caseBitmap(bitmapCase, values), values };
}

describe('roaring contract: inputs and results (1, 2)', () => {
  const pairArb = fc.tuple(bitmapCaseArb(3), bitmapCaseArb(3));

  it('operations leave their inputs byte-identical', () => {
    fc.assert(
      fc.property(pairArb, ([caseA, caseB]) => {
        const a = caseBitmap(caseA);
        const b = caseBitmap(caseB);
        const before = [bytesOf(a), bytesOf(b)];
        const values = caseValues(caseA);
        const mid = values[values.length >>> 1] ?? 0;
        RoaringBitmap32.and(a, b);
        RoaringBitmap32.or(a, b);
        RoaringBitmap32.andNot(a, b);
        RoaringBitmap32.orMany([a, b]);
        a.andCardinality(b);
        a.orCardinality(b);
        a.rangeCardinality(mid, mid + SPAN);
        a.rank(mid);
        a.select(values.length >>> 1);
        a.rangeUint32Array(values.length >>> 2, 100);
        a.toUint32Array();
        a.intersectsWithRange(mid, mid + 3);
        a.has(mid);
        a.statistics();
        a.isEqual(b);
        const scratch = RoaringBitmap32.fromRange(0, 2 ** 32);
        scratch.andInPlace(a);
        scratch.orInPlace(b);
        scratch.addMany(a.toUint32Array());
        expect([bytesOf(a), bytesOf(b)]).toEqual(before);
      }),
      propertyParams({ numRuns: 25 }),
    );
  });

  it('results share no storage with their inputs', () => {
    fc.assert(
      fc.property(pairArb, ([caseA, caseB]) => {
        const a = caseBitmap(caseA);
        const b = caseBitmap(caseB);
        const before = [bytesOf(a), bytesOf(b)];
        const viewBytes = caseA.holding === 'view' ? bytesOf(a) : undefined;
        const results = [
          RoaringBitmap32.and(a, b),
          RoaringBitmap32.and(a, a),
          RoaringBitmap32.or(a, new RoaringBitmap32()),
          RoaringBitmap32.or(a, b),
          RoaringBitmap32.orMany([a]),
          RoaringBitmap32.andNot(a, new RoaringBitmap32()),
          a.clone(),
          new RoaringBitmap32(a),
        ];
        const scratch = new RoaringBitmap32();
        scratch.orInPlace(a); // an empty bitmap ORed with an input must copy, not share, its containers
        results.push(scratch);
        const inPlace = RoaringBitmap32.fromRange(0, 2 ** 32);
        inPlace.andInPlace(a);
        results.push(inPlace);
        for (const result of results) {
          const lo = result.isEmpty ? 0 : result.minimum();
          const hi = result.isEmpty ? 10 : result.maximum();
          result.flipRange(lo, hi + 1);
          result.add(lo);
          result.remove(hi);
          result.runOptimize();
        }
        const array = a.toUint32Array();
        array.fill(7);
        expect([bytesOf(a), bytesOf(b)]).toEqual(before);
        if (viewBytes !== undefined) expect(bytesOf(a)).toBe(viewBytes);
      }),
      propertyParams({ numRuns: 25 }),
    );
  });
});

describe('roaring contract: the many-way AND (3)', () => {
  const kinds: ContainerKind[] = ['array', 'bitset', 'run'];

  it('an in-place chain equals the pairwise and chain and the oracle for every subset of container kinds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const key = 3;
        const members = kinds.map((kind, i) => kindBitmap(kind, key, seed + i));
        // multi-key: the same key plus its neighbours, so ANDs must match keys.
        const multiCase: BitmapCase = {
          firstKey: key - 1,
          containers: [
            { kind: 'run', seed: seed + 7 },
            { kind: 'bitset', seed: seed + 8 },
            { kind: 'array', seed: seed + 9 },
          ],
          holding: 'view',
        };
        const multiValues = caseValues(multiCase);
        members.push({ bitmap: caseBitmap(multiCase, multiValues), values: multiValues });
        const ranges = [
          [key * SPAN, key * SPAN + SPAN - 1],
          [key * SPAN + 1000, key * SPAN + 40_000],
          [(key - 1) * SPAN + 60_000, (key + 1) * SPAN + 5000],
        ] as const;
        for (let mask = 1; mask < 1 << members.length; mask++) {
          const subset = members.filter((_, i) => mask & (1 << i));
          for (const [lo, hi] of ranges) {
            let expected = modelRange(subset[0]!.values, lo, hi);
            for (const member of subset.slice(1)) expected = intersect(expected, member.values);
            const chained = new RoaringBitmap32();
            chained.addRange(lo, hi + 1);
            for (const member of subset) chained.andInPlace(member.bitmap);
            let pairwise = RoaringBitmap32.fromRange(lo, hi + 1);
            for (const member of subset) pairwise = RoaringBitmap32.and(pairwise, member.bitmap);
            expect(chained.size).toBe(expected.length);
            expect(chained.isEmpty).toBe(expected.length === 0);
            expectSameValues(chained.toUint32Array(), expected);
            expectSameValues(pairwise.toUint32Array(), expected);
            if (subset.length === 2) {
              const [a, b] = subset as [(typeof members)[0], (typeof members)[0]];
              expect(a.bitmap.andCardinality(b.bitmap)).toBe(intersect(a.values, b.values).length);
              expect(RoaringBitmap32.and(a.bitmap, b.bitmap).size).toBe(a.bitmap.andCardinality(b.bitmap));
            }
            expect(subset[0]!.bitmap.rangeCardinality(lo, hi + 1)).toBe(modelRange(subset[0]!.values, lo, hi).length);
          }
        }
        const [first, second] = members as [(typeof members)[0], (typeof members)[0]];
        const acc = new RoaringBitmap32(first.values);
        acc.orInPlace(second.bitmap);
        expectSameValues(acc.toUint32Array(), union(first.values, second.values));
      }),
      propertyParams({ numRuns: 8 }),
    );
  });

  it('swap exchanges contents and sizes, and refuses a frozen bitmap', () => {
    const a = new RoaringBitmap32([1]);
    const b = new RoaringBitmap32([2, 3]);
    RoaringBitmap32.swap(a, b);
    expect([a.toArray(), b.toArray(), a.size, b.size]).toEqual([[2, 3], [1], 2, 1]);
    expect(() => RoaringBitmap32.swap(a, new RoaringBitmap32([4]).freeze())).toThrow(/frozen/);
  });
});

describe('roaring contract: container kinds (4)', () => {
  it('addRange and fromRange build run containers', () => {
    expect(RoaringBitmap32.fromRange(0, 3 * SPAN).statistics().runContainers).toBe(3);
    const ranged = new RoaringBitmap32();
    ranged.addRange(10, 200_000);
    const stats = ranged.statistics();
    expect([stats.runContainers, stats.arrayContainers, stats.bitsetContainers]).toEqual([4, 0, 0]);
  });

  it('an array container holds at most 4,096 values; one more is a bitset', () => {
    const values = (n: number) => new Uint32Array(n).map((_, i) => i * 2);
    const atLimit = new RoaringBitmap32(values(4096));
    atLimit.runOptimize();
    const overLimit = new RoaringBitmap32(values(4097));
    overLimit.runOptimize();
    expect(atLimit.statistics().arrayContainers).toBe(1);
    expect(overLimit.statistics().bitsetContainers).toBe(1);
  });

  it('the arbitrary yields every container kind', () => {
    const seen = new Set<string>();
    for (const kind of CONTAINER_KINDS) {
      const { bitmap } = kindBitmap(kind, 0, 17);
      const s = bitmap.statistics();
      if (s.arrayContainers) seen.add('array');
      if (s.bitsetContainers) seen.add('bitset');
      if (s.runContainers) seen.add('run');
    }
    expect([...seen].sort()).toEqual(['array', 'bitset', 'run']);
  });
});

describe('roaring contract: ranges and cardinality at the edges (5)', () => {
  const edges = new RoaringBitmap32([0, 5, SPAN - 1, SPAN, MAX_ORDINAL]);

  it('rangeCardinality, hasRange and addRange are half-open [a, b), from 0 to 2^32', () => {
    expect(edges.rangeCardinality(0, 1)).toBe(1);
    expect(edges.rangeCardinality(MAX_ORDINAL, 2 ** 32)).toBe(1);
    expect(edges.rangeCardinality(0, 2 ** 32)).toBe(5);
    expect(edges.rangeCardinality(SPAN - 1, SPAN)).toBe(1);
    expect(edges.rangeCardinality(5, 5)).toBe(0); // empty
    expect(edges.rangeCardinality(6, 5)).toBe(0); // inverted
    expect(edges.rangeCardinality(-5, 1)).toBe(1); // a negative start clamps to 0
    expect(edges.rangeCardinality(MAX_ORDINAL, 2 ** 32 + 5)).toBe(1); // an end past 2^32 clamps
    expect(edges.hasRange(5, 6)).toBe(true);
    expect(edges.hasRange(MAX_ORDINAL, 2 ** 32)).toBe(true);
    expect(edges.hasRange(5, 5)).toBe(false);
    const added = new RoaringBitmap32();
    added.addRange(5, 5);
    expect(added.size).toBe(0);
    added.addRange(MAX_ORDINAL, 2 ** 32);
    expect(added.toArray()).toEqual([MAX_ORDINAL]);
    expect(RoaringBitmap32.fromRange(0, 3).toArray()).toEqual([0, 1, 2]);
  });

  it('intersectsWithRange(a, b) tests [a, b - 1): the trap WindowTerm works around', () => {
    expect(edges.intersectsWithRange(5, 6)).toBe(false); // [5, 5): nothing, though 5 is present
    expect(edges.intersectsWithRange(5, 7)).toBe(true);
    expect(edges.intersectsWithRange(4, 6)).toBe(false);
    expect(edges.intersectsWithRange(0, 1)).toBe(false);
    expect(edges.intersectsWithRange(0, 2)).toBe(true);
    // The end clamps to 2^32, so the top ordinal can never be tested this way.
    expect(edges.intersectsWithRange(MAX_ORDINAL, 2 ** 32)).toBe(false);
    expect(edges.intersectsWithRange(MAX_ORDINAL, 2 ** 32 + 1)).toBe(false);
    expect(edges.intersectsWithRange(MAX_ORDINAL - 1, 2 ** 32)).toBe(false);
    const term = new WindowTerm(edges, 0, MAX_ORDINAL, { strategy: 'gallop' });
    expect(term.intersects(5, 5)).toBe(true);
    expect(term.intersects(MAX_ORDINAL, MAX_ORDINAL)).toBe(true);
    expect(term.intersects(MAX_ORDINAL - 3, MAX_ORDINAL - 1)).toBe(false);
  });

  it('rank and select: counts ≤ x, indexes from 0, non-uint32 arguments answer 0 / undefined', () => {
    expect(edges.rank(0)).toBe(1);
    expect(edges.rank(MAX_ORDINAL)).toBe(5);
    expect(edges.rank(-1)).toBe(0);
    expect(edges.rank(2 ** 32)).toBe(0); // not "everything": callers never pass hi + 1 at the top
    expect(edges.rank(1.5)).toBe(0);
    expect(edges.select(0)).toBe(0);
    expect(edges.select(4)).toBe(MAX_ORDINAL);
    expect(edges.select(5)).toBeUndefined();
    expect(edges.select(-1)).toBeUndefined();
  });

  it('rangeUint32Array(offset, limit) takes indexes, not values', () => {
    expect(Array.from(edges.rangeUint32Array(1, 2))).toEqual([5, SPAN - 1]);
    expect(Array.from(edges.rangeUint32Array(10, 30))).toEqual([]); // not "values 10..30"
    expect(Array.from(edges.rangeUint32Array(4, 100))).toEqual([MAX_ORDINAL]);
    expect(Array.from(edges.rangeUint32Array(0, 5, new Uint32Array(2)))).toEqual([0, 5]); // limited by the output
  });

  it('has, add and the empty bitmap at the edges', () => {
    expect([edges.has(-1), edges.has(2 ** 32), edges.has(MAX_ORDINAL)]).toEqual([false, false, true]);
    const empty = new RoaringBitmap32();
    expect(empty.minimum()).toBe(MAX_ORDINAL); // not undefined: callers check isEmpty first
    expect(empty.maximum()).toBe(0);
    expect(empty.select(0)).toBeUndefined();
    expect(empty.rank(5)).toBe(0);
    const out = new RoaringBitmap32();
    out.add(2 ** 32);
    out.add(-1);
    expect(out.size).toBe(0); // out-of-range values are ignored, not wrapped
  });
});

describe('roaring contract: frozen views (6)', () => {
  const source = new RoaringBitmap32([0, 7, SPAN + 3, 5 * SPAN, MAX_ORDINAL]);
  source.addRange(2 * SPAN, 2 * SPAN + 5000);
  source.runOptimize();

  it("'unsafe_frozen_portable' reads an unaligned Buffer slice", () => {
    const bytes = source.serialize('portable');
    for (const offset of [1, 3, 7]) {
      const backing = Buffer.alloc(bytes.length + 16);
      backing.set(bytes, offset);
      const view = RoaringBitmap32.unsafeFrozenView(
        backing.subarray(offset, offset + bytes.length),
        'unsafe_frozen_portable',
      );
      expect(view).toBeInstanceOf(RoaringBitmap32);
      expect(view.isFrozen).toBe(true);
      expect(view.isEqual(source)).toBe(true);
      expectSameValues(view.toUint32Array(), source.toUint32Array());
    }
  });

  it("'unsafe_frozen_croaring' needs 32-byte alignment", () => {
    const size = source.getSerializationSizeInBytes('unsafe_frozen_croaring');
    const aligned = RoaringBitmap32.bufferAlignedAlloc(size + 64, 32);
    expect(RoaringBitmap32.isBufferAligned(aligned, 32)).toBe(true);
    source.serialize('unsafe_frozen_croaring', aligned);
    expect(RoaringBitmap32.unsafeFrozenView(aligned.subarray(0, size), 'unsafe_frozen_croaring').isEqual(source)).toBe(
      true,
    );
    const misaligned = RoaringBitmap32.bufferAlignedAlloc(size + 64, 32).subarray(8, 8 + size);
    source.serialize('unsafe_frozen_croaring', misaligned);
    expect(() => RoaringBitmap32.unsafeFrozenView(misaligned, 'unsafe_frozen_croaring')).toThrow(/32 bytes aligned/);
  });

  it('views and freeze()d bitmaps reject every mutation; their clones are writable and independent', () => {
    const view = RoaringBitmap32.unsafeFrozenView(source.serialize('portable'), 'unsafe_frozen_portable');
    const frozen = source.clone().freeze();
    const other = new RoaringBitmap32([1]);
    const mutations: [string, (b: RoaringBitmap32) => unknown][] = [
      ['add', (b) => b.add(9)],
      ['tryAdd', (b) => b.tryAdd(9)],
      ['delete', (b) => b.delete(7)],
      ['remove', (b) => b.remove(7)],
      ['clear', (b) => b.clear()],
      ['addMany', (b) => b.addMany([9])],
      ['removeMany', (b) => b.removeMany([7])],
      ['addRange', (b) => b.addRange(0, 10)],
      ['removeRange', (b) => b.removeRange(0, 10)],
      ['flipRange', (b) => b.flipRange(0, 10)],
      ['andInPlace', (b) => b.andInPlace(other)],
      ['orInPlace', (b) => b.orInPlace(other)],
      ['andNotInPlace', (b) => b.andNotInPlace(other)],
      ['xorInPlace', (b) => b.xorInPlace(other)],
      ['copyFrom', (b) => b.copyFrom([1])],
      ['pop', (b) => b.pop()],
      ['shift', (b) => b.shift()],
    ];
    for (const bitmap of [view, frozen]) {
      for (const [name, mutate] of mutations) expect(() => mutate(bitmap), name).toThrow(/frozen/);
      expect(bitmap.isEqual(source)).toBe(true);
    }
    expect(() => view.runOptimize()).toThrow(/frozen/);
    const copy = view.clone();
    copy.add(9);
    expect([copy.isFrozen, copy.has(9), view.has(9)]).toEqual([false, true, false]);
  });
});

/** A digest of reads over two bitmaps (plain JS source: the workers eval it, the main thread compiles it). */
const DIGEST_SOURCE = `
function digest(RoaringBitmap32, a, b, rounds) {
  let d = 0;
  for (let r = 0; r < rounds; r++) {
    const x = (r * 2654435761) % 1048576;
    d = (d * 31 + a.rank(x) + (a.select(r % a.size) ?? 0) + a.andCardinality(b) + b.rangeCardinality(x, x + 70000)) % 1e9;
    d = (d * 31 + (a.intersectsWithRange(x, x + 100) ? 1 : 0) + RoaringBitmap32.and(a, b).size) % 1e9;
  }
  const values = b.toUint32Array();
  for (let i = 0; i < values.length; i += 97) d = (d * 31 + values[i]) % 1e9;
  return d;
}`;

/** Worker body: frozen views over the shared bytes, the digest of its reads, and a write attempt. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RoaringBitmap32 } = require(workerData.roaringPath);
const { shared, portable, croaring, rounds } = workerData;
const a = RoaringBitmap32.unsafeFrozenView(Buffer.from(shared, portable.offset, portable.length), 'unsafe_frozen_portable');
const b = RoaringBitmap32.unsafeFrozenView(Buffer.from(shared, croaring.offset, croaring.length), 'unsafe_frozen_croaring');
${DIGEST_SOURCE}
let writeRefused = false;
try { a.add(1); } catch { writeRefused = true; }
parentPort.postMessage({ digest: digest(RoaringBitmap32, a, b, rounds), writeRefused });
`;

const digestOf = new Function(`${DIGEST_SOURCE}\nreturn digest;`)() as (
  bitmapClass: typeof RoaringBitmap32,
  a: RoaringBitmap32,
  b: RoaringBitmap32,
  rounds: number,
) => number;

describe('roaring contract: frozen views across worker threads (7)', () => {
  it('views over one SharedArrayBuffer read the same from 3 workers and the main thread, and stay read-only', async () => {
    const random = seededRandom(7);
    const left = new RoaringBitmap32();
    const right = new RoaringBitmap32();
    for (let i = 0; i < 200_000; i++) {
      const v = Math.floor(random() * 16 * SPAN);
      if (random() < 0.5) left.add(v);
      else right.add(v);
    }
    left.addRange(3 * SPAN, 4 * SPAN);
    right.addRange(3 * SPAN + 100, 3 * SPAN + 9000);
    left.runOptimize();
    right.runOptimize();
    const portableBytes = left.serialize('portable');
    const croaringSize = right.getSerializationSizeInBytes('unsafe_frozen_croaring');
    const croaringOffset = Math.ceil((portableBytes.length + 5) / 32) * 32;
    const shared = RoaringBitmap32.bufferAlignedAllocShared(croaringOffset + croaringSize, 32);
    const portable = { offset: 5, length: portableBytes.length }; // deliberately unaligned
    shared.set(portableBytes, portable.offset);
    const croaring = { offset: croaringOffset, length: croaringSize };
    right.serialize('unsafe_frozen_croaring', shared.subarray(croaring.offset, croaring.offset + croaring.length));
    const before = Buffer.from(shared).toString('hex');

    const roaringPath = createRequire(import.meta.url).resolve('roaring');
    const rounds = 300;
    const workerData = { roaringPath, shared: shared.buffer, portable, croaring, rounds };
    const replies = [0, 1, 2].map(
      () =>
        new Promise<{ digest: number; writeRefused: boolean }>((resolve, reject) => {
          const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
          worker.once('message', (reply) => {
            resolve(reply);
            void worker.terminate();
          });
          worker.once('error', reject);
        }),
    );
    // The main thread reads the same bytes while the workers run.
    const mainA = RoaringBitmap32.unsafeFrozenView(
      shared.subarray(portable.offset, portable.offset + portable.length),
      'unsafe_frozen_portable',
    );
    const mainB = RoaringBitmap32.unsafeFrozenView(
      shared.subarray(croaring.offset, croaring.offset + croaring.length),
      'unsafe_frozen_croaring',
    );
    const expected = digestOf(RoaringBitmap32, left, right, rounds);
    expect(digestOf(RoaringBitmap32, mainA, mainB, rounds)).toBe(expected);
    for (const reply of await Promise.all(replies)) expect(reply).toEqual({ digest: expected, writeRefused: true });
    expect(Buffer.from(shared).toString('hex')).toBe(before);
  });
});

/** What property 8 probes: WindowTerm, or a deliberately broken stand-in for the negative controls. */
interface Probe {
  readonly cardinality: number;
  nextValue(x: number): number;
  previousValue(x: number): number;
}
type ProbeFactory = (bitmap: RoaringBitmap32, lo: number, hi: number, strategy: ProbeStrategy | undefined) => Probe;

const STRATEGIES: readonly (ProbeStrategy | undefined)[] = [undefined, 'array', 'gallop', 'clip', 'rank'];

function probeProperty(makeProbe: ProbeFactory) {
  return fc.property(bitmapCaseArb(), fc.integer({ min: 1, max: 2 ** 31 - 1 }), (bitmapCase, seed) => {
    const random = seededRandom(seed);
    const values = caseValues(bitmapCase);
    const bitmap = caseBitmap(bitmapCase, values);
    const points = interestingPoints(bitmapCase, values, random);
    for (let w = 0; w < 3; w++) {
      const { lo, hi } = windowOf(points, random);
      const inWindow = modelRange(values, lo, hi);
      const probePoints = [...points, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1].filter((p) => p >= -1);
      const orders = [
        [...probePoints].sort((a, b) => a - b),
        [...probePoints].sort((a, b) => b - a),
        [...probePoints].sort(() => random() - 0.5),
      ];
      for (const strategy of STRATEGIES) {
        const probe = makeProbe(bitmap, lo, hi, strategy);
        if (probe.cardinality !== inWindow.length) return false;
        for (const order of orders) {
          for (const x of order) {
            if (probe.nextValue(x) !== modelNext(values, lo, hi, x)) return false;
            if (probe.previousValue(x) !== modelPrevious(values, lo, hi, x)) return false;
          }
        }
      }
    }
    return true;
  });
}

const windowTerms: ProbeFactory = (bitmap, lo, hi, strategy) =>
  new WindowTerm(bitmap, lo, hi, strategy === undefined ? {} : { strategy });

describe('roaring contract: next / previous probes against the sorted-array model (8)', () => {
  it('every strategy answers like the model, in ascending, descending and random probe order', () => {
    fc.assert(probeProperty(windowTerms), propertyParams({ numRuns: 40 }));
  });

  it('negative control: a probe off by one fails the property', () => {
    const offByOne: ProbeFactory = (bitmap, lo, hi, strategy) => {
      const term = windowTerms(bitmap, lo, hi, strategy);
      return {
        cardinality: term.cardinality,
        nextValue: (x) => term.nextValue(x + 1),
        previousValue: (x) => term.previousValue(x),
      };
    };
    expect(fc.check(probeProperty(offByOne), { numRuns: 40, seed: 18, endOnFailure: true }).failed).toBe(true);
  });

  it('negative control: a probe that ignores the window fails the property', () => {
    const unclipped: ProbeFactory = (bitmap, lo, hi, strategy) => {
      const term = windowTerms(bitmap, lo, hi, strategy);
      const whole = windowTerms(bitmap, 0, MAX_ORDINAL, strategy);
      return {
        cardinality: term.cardinality,
        nextValue: (x) => whole.nextValue(Math.max(x, lo)),
        previousValue: (x) => term.previousValue(x),
      };
    };
    expect(fc.check(probeProperty(unclipped), { numRuns: 40, seed: 18, endOnFailure: true }).failed).toBe(true);
  });
});
