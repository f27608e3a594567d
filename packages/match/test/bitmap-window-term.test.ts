// WindowTerm at its edges: bad windows and probes (MatchError codes), empty windows, the top ordinal, probes from
// outside the window, ids outside the window, the strategy each shape gets, and the array copy behind a dense prefix.
// The probes against a model over random bitmaps are property 8 of roaring-contract.test.ts.
import { errorOf } from '@strata/test-kit';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import { ARRAY_STRATEGY_LIMIT, MAX_ORDINAL, type ProbeStrategy, WindowTerm } from '../src/bitmap/window-term.js';
import { MatchError, MatchErrorCode } from '../src/errors.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const SPAN = 0x1_0000;
const STRATEGIES: readonly ProbeStrategy[] = ['array', 'gallop', 'clip', 'rank'];

function frozenView(bitmap: RoaringBitmap32): RoaringBitmap32 {
  bitmap.runOptimize();
  return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
}

function everyNth(n: number, count: number, offset = 0): RoaringBitmap32 {
  return new RoaringBitmap32(new Uint32Array(count).map((_, i) => offset + i * n));
}

describe('WindowTerm: bad input', () => {
  const bitmap = new RoaringBitmap32([1, 2, 3]);

  it('refuses a bitmap that is not a RoaringBitmap32', () => {
    const error = errorOf(MatchError, () => new WindowTerm(new Set([1]) as unknown as RoaringBitmap32, 0, 10));
    expect([error.code, error.field]).toEqual([MatchErrorCode.INVALID_ARGUMENT, 'bitmap']);
  });

  it('refuses windows that are not 0 ≤ lo ≤ hi + 1, hi ≤ 2^32 - 1, integers', () => {
    for (const [lo, hi] of [
      [-1, 5],
      [1.5, 5],
      [Number.NaN, 5],
      [5, 3],
      [0, -2],
      [0, MAX_ORDINAL + 1],
      [MAX_ORDINAL + 1, MAX_ORDINAL + 1],
      [0, 2.5],
    ] as const) {
      const error = errorOf(MatchError, () => new WindowTerm(bitmap, lo, hi));
      expect([error.code, error.field], `[${lo}, ${hi}]`).toEqual([MatchErrorCode.INVALID_ORDINAL_RANGE, 'window']);
    }
  });

  it('refuses a probe that is not an integer, in every strategy', () => {
    for (const strategy of STRATEGIES) {
      const term = new WindowTerm(bitmap, 0, 10, { strategy });
      for (const probe of [
        () => term.nextValue(1.5),
        () => term.previousValue(Number.NaN),
        () => term.has(Number.POSITIVE_INFINITY),
      ]) {
        const error = errorOf(MatchError, probe);
        expect([error.code, error.field]).toEqual([MatchErrorCode.INVALID_ARGUMENT, 'x']);
      }
    }
  });
});

describe('WindowTerm: edges', () => {
  it('an empty window (hi = lo - 1) holds nothing, at 0, mid-container and at the top', () => {
    const bitmap = new RoaringBitmap32([0, 5, SPAN, MAX_ORDINAL]);
    for (const lo of [0, 5, SPAN, MAX_ORDINAL]) {
      for (const strategy of STRATEGIES) {
        const term = new WindowTerm(bitmap, lo, lo - 1, { strategy });
        expect(term.cardinality).toBe(0);
        expect([term.nextValue(lo), term.previousValue(lo), term.has(lo), term.intersects(0, MAX_ORDINAL)]).toEqual([
          -1,
          -1,
          false,
          false,
        ]);
      }
    }
  });

  it('reaches 0 and 2^32 - 1 in every strategy', () => {
    const bitmap = new RoaringBitmap32([0, 1, MAX_ORDINAL - 1, MAX_ORDINAL]);
    for (const strategy of STRATEGIES) {
      const term = new WindowTerm(bitmap, 0, MAX_ORDINAL, { strategy });
      expect(term.nextValue(0), strategy).toBe(0);
      expect(term.previousValue(0)).toBe(0);
      expect(term.nextValue(MAX_ORDINAL)).toBe(MAX_ORDINAL);
      expect(term.previousValue(MAX_ORDINAL)).toBe(MAX_ORDINAL);
      expect(term.nextValue(2)).toBe(MAX_ORDINAL - 1);
      expect(term.previousValue(MAX_ORDINAL - 2)).toBe(1);
      expect(term.intersects(MAX_ORDINAL, MAX_ORDINAL)).toBe(true);
      expect(term.intersects(2, MAX_ORDINAL - 2)).toBe(false);
      const top = new WindowTerm(bitmap, MAX_ORDINAL, MAX_ORDINAL, { strategy });
      expect([top.cardinality, top.nextValue(0), top.previousValue(2 ** 40)]).toEqual([1, MAX_ORDINAL, MAX_ORDINAL]);
    }
  });

  it('probes from outside the window clamp to it; ids outside the window do not exist', () => {
    const bitmap = new RoaringBitmap32([3, 10, 20, 30, 40]);
    for (const strategy of STRATEGIES) {
      const term = new WindowTerm(bitmap, 10, 30, { strategy });
      expect(term.cardinality).toBe(3);
      expect([term.nextValue(-5), term.nextValue(0), term.nextValue(31), term.nextValue(2 ** 40)]).toEqual([
        10, 10, -1, -1,
      ]);
      expect([
        term.previousValue(2 ** 40),
        term.previousValue(35),
        term.previousValue(9),
        term.previousValue(-1),
      ]).toEqual([30, 30, -1, -1]);
      expect([term.has(3), term.has(40), term.has(20), term.intersects(0, 9), term.intersects(31, 100)]).toEqual([
        false,
        false,
        true,
        false,
        false,
      ]);
      expect([term.nextValue(11), term.previousValue(29), term.nextValue(30), term.previousValue(10)]).toEqual([
        20, 20, 30, 10,
      ]);
    }
  });

  it('crosses container boundaries: across 2^16 in both directions, and to a value many containers away', () => {
    const far = 40 * SPAN + 7;
    const bitmap = new RoaringBitmap32([SPAN - 1, SPAN, 3 * SPAN, far]);
    for (const strategy of STRATEGIES) {
      const term = new WindowTerm(bitmap, 0, MAX_ORDINAL, { strategy });
      expect([term.nextValue(SPAN - 1), term.nextValue(SPAN + 1), term.nextValue(3 * SPAN + 1)], strategy).toEqual([
        SPAN - 1,
        3 * SPAN,
        far,
      ]);
      expect([term.previousValue(far - 1), term.previousValue(3 * SPAN - 1), term.previousValue(SPAN - 2)]).toEqual([
        3 * SPAN,
        SPAN,
        -1,
      ]);
    }
  });
});

describe('WindowTerm: strategies', () => {
  it('picks array for a small window part, gallop for bitset, clip for run and rank for array containers', () => {
    const chunk = 16 * SPAN;
    const dense = frozenView(everyNth(2, chunk / 2));
    const runs = new RoaringBitmap32();
    for (let start = 0; start < chunk; start += 1000) runs.addRange(start, start + 500);
    const sparse = frozenView(everyNth(61, Math.floor(chunk / 61)));
    expect(new WindowTerm(dense, 0, 2 * ARRAY_STRATEGY_LIMIT - 1).strategy).toBe('array');
    expect(new WindowTerm(dense, 0, 2 * ARRAY_STRATEGY_LIMIT).strategy).toBe('gallop');
    expect(new WindowTerm(frozenView(runs), 0, chunk - 1).strategy).toBe('clip');
    expect(new WindowTerm(sparse, 0, chunk - 1).strategy).toBe('rank');
    expect(new WindowTerm(sparse, 0, chunk - 1, { strategy: 'clip' }).strategy).toBe('clip');
  });

  it('copies a window behind a dense prefix (offset past the rangeUint32Array limit) exactly', () => {
    const prefixed = everyNth(2, 200_000); // 200,000 values below 400,000
    const inWindow = [500_000, 500_001, 700_000, 11 * SPAN - 1];
    prefixed.addMany(inWindow);
    const bitmap = frozenView(prefixed);
    const term = new WindowTerm(bitmap, 450_000, MAX_ORDINAL, { strategy: 'array' });
    expect(Array.from(term.arrayPart(0, MAX_ORDINAL) ?? [])).toEqual(inWindow);
    expect(Array.from(term.arrayPart(500_001, 700_000) ?? [])).toEqual([500_001, 700_000]);
    expect(new WindowTerm(bitmap, 450_000, MAX_ORDINAL, { strategy: 'rank' }).arrayPart(0, 10)).toBeUndefined();
  });

  it('never mutates the bitmap it reads (a frozen view serves every strategy)', () => {
    const mutable = everyNth(3, 100_000);
    const before = Buffer.from(mutable.serialize('portable')).toString('hex');
    for (const strategy of STRATEGIES) {
      const term = new WindowTerm(mutable, 1000, 250_000, { strategy });
      for (let x = 900; x < 250_100; x += 777) {
        term.nextValue(x);
        term.previousValue(x);
        term.intersects(x, x + 5);
      }
    }
    expect(Buffer.from(mutable.serialize('portable')).toString('hex')).toBe(before);
  });
});
