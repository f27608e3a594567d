// fast-check arbitraries for the bitmap tests: term bitmaps built container by container (array, bitset, run, full
// and empty containers, on consecutive 2^16 keys at the bottom, in the middle and at the top of the 32-bit range),
// their values as a sorted oracle array built without roaring, and inclusive windows / probe points at the edges
// that matter (0, 2^32 - 1, container boundaries, mid-container, the values themselves ± 1).
import { seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export const SPAN = 0x1_0000;
export const MAX_ORDINAL = 0xffff_ffff;

export type ContainerKind = 'empty' | 'array' | 'bitset' | 'run' | 'full';
export const CONTAINER_KINDS: readonly ContainerKind[] = ['empty', 'array', 'bitset', 'run', 'full'];

/** How the bitmap under test is held: built in memory, frozen with freeze(), or a frozen portable view. */
export type Holding = 'mutable' | 'frozen' | 'view';

export interface ContainerSpec {
  kind: ContainerKind;
  seed: number;
}

export interface BitmapCase {
  /** First container key (ordinal >>> 16). */
  firstKey: number;
  containers: ContainerSpec[];
  holding: Holding;
}

/** Offsets inside one container for a spec, ascending; never touches roaring. */
export function containerOffsets(spec: ContainerSpec): number[] {
  const random = seededRandom(spec.seed);
  switch (spec.kind) {
    case 'empty':
      return [];
    case 'full':
      return Array.from({ length: SPAN }, (_, i) => i);
    case 'array': {
      const picked = new Set<number>();
      const count = 1 + Math.floor(random() ** 3 * 200); // skewed small: few-value slabs take SlabAnd's filter path
      if (random() < 0.3) picked.add(0);
      if (random() < 0.3) picked.add(SPAN - 1);
      while (picked.size < count) picked.add(Math.floor(random() * SPAN));
      return [...picked].sort((a, b) => a - b);
    }
    case 'bitset': {
      const density = 0.15 + random() * 0.5; // 9,800..42,600 values: always more than an array container holds
      const out: number[] = [];
      for (let i = 0; i < SPAN; i++) if (random() < density) out.push(i);
      return out;
    }
    case 'run': {
      const out = new Set<number>();
      const runs = 1 + Math.floor(random() * 6);
      for (let r = 0; r < runs; r++) {
        const start = random() < 0.2 ? 0 : Math.floor(random() * SPAN);
        const length = 1 + Math.floor(random() * 6000);
        for (let i = start; i < Math.min(SPAN, start + length); i++) out.add(i);
      }
      return [...out].sort((a, b) => a - b);
    }
  }
}

/** The sorted values of a case (the oracle). */
export function caseValues(bitmapCase: BitmapCase): Uint32Array {
  const parts = bitmapCase.containers.map((spec, index) => {
    const base = (bitmapCase.firstKey + index) * SPAN;
    return containerOffsets(spec).map((offset) => base + offset);
  });
  return Uint32Array.from(parts.flat());
}

/** The roaring bitmap of a case, held as the case says; run-friendly containers become run containers. */
export function caseBitmap(bitmapCase: BitmapCase, values: Uint32Array = caseValues(bitmapCase)): RoaringBitmap32 {
  const bitmap = new RoaringBitmap32(values);
  bitmap.runOptimize();
  switch (bitmapCase.holding) {
    case 'mutable':
      return bitmap;
    case 'frozen':
      return bitmap.freeze();
    case 'view':
      return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
  }
}

const containerSpecArb: fc.Arbitrary<ContainerSpec> = fc.record({
  kind: fc.constantFrom(...CONTAINER_KINDS),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

/** 1..4 consecutive containers starting at key 0, a middle key, or so that the last one is key 0xffff. */
export function bitmapCaseArb(maxContainers = 4): fc.Arbitrary<BitmapCase> {
  return fc
    .record({
      containers: fc.array(containerSpecArb, { minLength: 1, maxLength: maxContainers }),
      placement: fc.constantFrom('bottom', 'middle', 'top'),
      holding: fc.constantFrom<Holding>('mutable', 'frozen', 'view'),
    })
    .map(({ containers, placement, holding }) => ({
      firstKey: placement === 'bottom' ? 0 : placement === 'middle' ? 0x7ff0 : SPAN - containers.length,
      containers,
      holding,
    }));
}

/** Interesting ordinals of a case: the span's edges and container boundaries ± 1, mid-containers, values ± 1. */
export function interestingPoints(bitmapCase: BitmapCase, values: Uint32Array, random: () => number): number[] {
  const points = new Set<number>([0, MAX_ORDINAL]);
  const first = bitmapCase.firstKey * SPAN;
  const end = (bitmapCase.firstKey + bitmapCase.containers.length) * SPAN; // exclusive
  for (let base = first; base <= end; base += SPAN) {
    for (const p of [base - 1, base, base + 1, base + SPAN / 2]) points.add(p);
  }
  for (let i = 0; i < 24 && values.length > 0; i++) {
    const v = values[Math.floor(random() * values.length)]!;
    points.add(v - 1);
    points.add(v);
    points.add(v + 1);
  }
  if (values.length > 0) {
    points.add(values[0]!);
    points.add(values[values.length - 1]!);
  }
  for (let i = 0; i < 24; i++) points.add(first + Math.floor(random() * (end - first)));
  return [...points].filter((p) => p >= 0 && p <= MAX_ORDINAL).sort((a, b) => a - b);
}

/** An inclusive window [lo, hi] over a case: between two interesting points, or empty (hi = lo - 1). */
export function windowOf(points: readonly number[], random: () => number): { lo: number; hi: number } {
  const pick = () => points[Math.floor(random() * points.length)]!;
  if (random() < 0.1) {
    const lo = pick();
    return { lo, hi: lo - 1 };
  }
  if (random() < 0.15) return { lo: 0, hi: MAX_ORDINAL };
  const a = pick();
  const b = pick();
  return a <= b ? { lo: a, hi: b } : { lo: b, hi: a };
}

/** First index i with values[i] ≥ x (the oracle's own binary search). */
function firstAtLeast(values: Uint32Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Oracle: the first value ≥ x inside [lo, hi], or -1. */
export function modelNext(values: Uint32Array, lo: number, hi: number, x: number): number {
  const index = firstAtLeast(values, Math.max(x, lo));
  const value = values[index];
  return value !== undefined && value <= hi ? value : -1;
}

/** Oracle: the last value ≤ x inside [lo, hi], or -1. */
export function modelPrevious(values: Uint32Array, lo: number, hi: number, x: number): number {
  const index = firstAtLeast(values, Math.min(x, hi) + 1) - 1;
  const value = index >= 0 ? values[index] : undefined;
  return value !== undefined && value >= lo ? value : -1;
}

/** Oracle: the values inside [lo, hi]. */
export function modelRange(values: Uint32Array, lo: number, hi: number): Uint32Array {
  return values.subarray(firstAtLeast(values, lo), firstAtLeast(values, hi + 1));
}
