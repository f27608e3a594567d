// SlabAnd's claims one by one: a plan that is empty on a slab allocates nothing (no bitmap, no array), whichever
// way it is proved empty; each evaluation path (filter, single-term array part, scratch AND, count-first last term,
// union across plans) gives the right candidates; bad input is a MatchError; rarestFirst orders by window cardinality.
// The allocation tests come first in a file of their own, so little garbage from other tests is pending when they
// read RoaringBitmap32.getInstancesCount() (a collection can only lower it; see the negative control).
import { errorOf } from '@strata/test-kit';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import { rarestFirst, SlabAnd } from '../src/bitmap/slab-and.js';
import { MAX_ORDINAL, WindowTerm } from '../src/bitmap/window-term.js';
import { MatchError, MatchErrorCode } from '../src/errors.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const SPAN = 0x1_0000;
const SLABS = 4;
const CHUNK = SLABS * SPAN;

function frozen(bitmap: RoaringBitmap32): RoaringBitmap32 {
  bitmap.runOptimize();
  return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
}

function where(keep: (ordinal: number) => boolean): RoaringBitmap32 {
  const out: number[] = [];
  for (let i = 0; i < CHUNK; i++) if (keep(i)) out.push(i);
  return frozen(new RoaringBitmap32(out));
}

const term = (bitmap: RoaringBitmap32, lo = 0, hi = CHUNK - 1) => new WindowTerm(bitmap, lo, hi);

const even = where((i) => i % 2 === 0);
const odd = where((i) => i % 2 === 1);
const thirds = [0, 1, 2].map((r) => where((i) => i % 3 !== r)); // pairwise overlapping, jointly empty
const onlySlab0 = where((i) => i < SPAN && i % 5 === 0); // absent from slabs 1..3

/** Plans that are empty on slab 1, each proved empty a different way. */
const emptyOnSlab1 = {
  'a term absent from the slab (pre-check)': [term(onlySlab0), term(even)],
  'never-co-occurring dense pair (count-first last term)': [term(even), term(odd)],
  'jointly empty triple (in-place middle terms)': thirds.map((t) => term(t)),
  'a rare term whose values miss the other (filter path)': [
    term(frozen(new RoaringBitmap32([SPAN + 1, SPAN + 3]))),
    term(even),
  ],
};
const slab1 = [SPAN, 2 * SPAN - 1] as const;

describe('SlabAnd: an empty plan on a slab allocates nothing', () => {
  for (const [name, plan] of Object.entries(emptyOnSlab1)) {
    it(name, () => {
      const fresh = new SlabAnd();
      const constructed = { ...fresh.allocations };
      const instances = RoaringBitmap32.getInstancesCount();
      for (let round = 0; round < 50; round++) {
        expect(fresh.plan(plan, ...slab1)).toBeUndefined();
        expect(fresh.slab([plan, plan], ...slab1)).toBeUndefined();
      }
      expect(RoaringBitmap32.getInstancesCount()).toBeLessThanOrEqual(instances);
      expect(fresh.allocations).toEqual(constructed);
    });
  }

  it('a non-empty plan allocates exactly its result array, and still no bitmap', () => {
    const evaluator = new SlabAnd();
    const constructed = { ...evaluator.allocations };
    const instances = RoaringBitmap32.getInstancesCount();
    const results = [0, 1, 2, 3].map((slab) =>
      evaluator.plan([term(even), term(thirds[0]!)], slab * SPAN, slab * SPAN + SPAN - 1),
    );
    expect(RoaringBitmap32.getInstancesCount()).toBeLessThanOrEqual(instances);
    expect(evaluator.allocations).toEqual({ bitmaps: constructed.bitmaps, arrays: constructed.arrays + 4 });
    const expected = [0, 1, 2, 3].map((slab) => {
      let count = 0;
      for (let i = slab * SPAN; i < (slab + 1) * SPAN; i++) if (i % 2 === 0 && i % 3 !== 0) count++;
      return count;
    });
    expect(results.map((r) => r?.length)).toEqual(expected);
  });

  it('negative control: the instance count sees bitmaps an allocating AND creates', () => {
    const instances = RoaringBitmap32.getInstancesCount();
    const kept = [];
    for (let i = 0; i < 50; i++) kept.push(RoaringBitmap32.and(RoaringBitmap32.fromRange(...slab1), even));
    expect(RoaringBitmap32.getInstancesCount()).toBeGreaterThan(instances);
    expect(kept).toHaveLength(50);
  });
});

describe('SlabAnd: evaluation paths', () => {
  const evaluator = new SlabAnd();
  const ordinals = (values: Uint32Array | undefined) => (values === undefined ? undefined : Array.from(values));

  it('filter path: a few values of the rarest term probed in the others', () => {
    const rare = term(frozen(new RoaringBitmap32([3, 4, 10, SPAN + 2, SPAN + 7])));
    expect(ordinals(evaluator.plan([rare, term(even)], 0, CHUNK - 1))).toEqual([4, 10, SPAN + 2]);
    expect(ordinals(evaluator.plan([rare, term(even), term(thirds[1]!)], 0, CHUNK - 1))).toEqual([SPAN + 2]);
  });

  it('a single-term plan is the term inside the range (array part or scratch AND)', () => {
    const rare = term(frozen(new RoaringBitmap32([3, 4, 10, SPAN + 2])));
    expect(ordinals(evaluator.plan([rare], 4, SPAN + 2))).toEqual([4, 10, SPAN + 2]);
    const dense = evaluator.plan([term(even)], SPAN - 3, SPAN + 3);
    expect(ordinals(dense)).toEqual([SPAN - 2, SPAN, SPAN + 2]);
  });

  it('scratch AND with a last term that holds everything left (its AND is skipped)', () => {
    const multiplesOf4 = term(where((i) => i % 4 === 0));
    const result = evaluator.plan([multiplesOf4, term(even)], 0, SPAN - 1);
    expect(result?.length).toBe(SPAN / 4);
    expect(result?.[1]).toBe(4);
  });

  it('clips to the range and to every term window', () => {
    const narrow = new WindowTerm(even, 100, 200);
    expect(ordinals(evaluator.plan([term(even), narrow], 0, CHUNK - 1))?.length).toBe(51);
    expect(ordinals(evaluator.plan([term(even), narrow], 150, 160))).toEqual([150, 152, 154, 156, 158, 160]);
    expect(evaluator.plan([term(even), narrow], 201, CHUNK - 1)).toBeUndefined();
    expect(evaluator.plan([term(even)], 10, 9)).toBeUndefined(); // an empty range
  });

  it('the union across plans, with empty plans among them', () => {
    const rare = term(frozen(new RoaringBitmap32([1, 5, 9])));
    const union = evaluator.slab(
      [[term(even), term(odd)], [rare], [term(where((i) => i < 12 && i % 4 === 0)), term(even)], [rare, term(odd)]],
      0,
      SPAN - 1,
    );
    expect(ordinals(union)).toEqual([0, 1, 4, 5, 8, 9]);
    expect(evaluator.slab([], 0, 10)).toBeUndefined();
  });

  it('results are fresh arrays: a later call does not overwrite an earlier result', () => {
    const first = evaluator.plan([term(even)], 0, 9);
    const second = evaluator.plan([term(odd)], 0, 9);
    expect([ordinals(first), ordinals(second)]).toEqual([
      [0, 2, 4, 6, 8],
      [1, 3, 5, 7, 9],
    ]);
  });
});

describe('SlabAnd: bad input and rarestFirst', () => {
  const evaluator = new SlabAnd();

  it('refuses a plan without terms and a bad range', () => {
    const noTerms = errorOf(MatchError, () => evaluator.plan([], 0, 10));
    expect([noTerms.code, noTerms.field]).toEqual([MatchErrorCode.INVALID_ARGUMENT, 'terms']);
    const noTermsInSlab = errorOf(MatchError, () => evaluator.slab([[term(even)], []], 0, 10));
    expect([noTermsInSlab.code, noTermsInSlab.field]).toEqual([MatchErrorCode.INVALID_ARGUMENT, 'plans[1]']);
    for (const [lo, hi] of [
      [-1, 10],
      [10, 8],
      [0, MAX_ORDINAL + 1],
      [0.5, 3],
    ] as const) {
      const error = errorOf(MatchError, () => evaluator.plan([term(even)], lo, hi));
      expect([error.code, error.field]).toEqual([MatchErrorCode.INVALID_ORDINAL_RANGE, 'slab']);
    }
  });

  it('rarestFirst orders by cardinality inside the window, stably, without touching its input', () => {
    const a = term(even);
    const b = term(onlySlab0);
    const c = new WindowTerm(even, 0, 9);
    const d = term(odd);
    const input = [a, b, c, d];
    expect(rarestFirst(input)).toEqual([c, b, a, d]);
    expect(input).toEqual([a, b, c, d]);
  });
});
