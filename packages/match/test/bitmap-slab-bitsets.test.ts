// The WebAssembly kernel of the slab ANDs (src/slab-bitsets.wat): the checked-in module matches the .wat; a
// term's part of a slab loads as the same set whatever its container kind (array, bitset, run; empty); counts, ORs of
// ANDs and extraction equal a sorted-array model over random terms of every kind, at the bottom and at the top of the
// ordinal range. Negative control: a model that drops one value is told apart.
import { expectWasmModuleInSync, seededRandom } from '@strata/test-kit';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import { SlabBitsets } from '../src/bitmap/slab-bitsets.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const random = seededRandom(2026_12_01);

function frozen(bitmap: RoaringBitmap32): RoaringBitmap32 {
  bitmap.runOptimize();
  return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
}

/** A term over one container starting at `base`, of the given kind. */
function term(base: number, kind: 'array' | 'bitset' | 'run' | 'empty'): RoaringBitmap32 {
  const bitmap = new RoaringBitmap32();
  if (kind === 'array') for (let i = 0; i < 3000; i++) bitmap.add(base + Math.floor(random() * 65_536));
  if (kind === 'bitset') for (let i = 0; i < 65_536; i++) if (random() < 0.3) bitmap.add(base + i);
  if (kind === 'run') {
    for (let start = Math.floor(random() * 500); start < 65_536; start += 700 + Math.floor(random() * 900)) {
      bitmap.addRange(base + start, base + Math.min(65_536, start + 1 + Math.floor(random() * 600)));
    }
  }
  return frozen(bitmap);
}

/** Values of the AND of `bitmaps` inside [lo, hi], by the library alone. */
function model(bitmaps: readonly RoaringBitmap32[], lo: number, hi: number): number[] {
  let values = bitmaps[0]!.toArray().filter((v) => v >= lo && v <= hi);
  for (const b of bitmaps.slice(1)) values = values.filter((v) => b.has(v));
  return values;
}

const KINDS = ['array', 'bitset', 'run', 'empty'] as const;

describe('slab bitsets kernel', () => {
  it('the checked-in module matches src/slab-bitsets.wat', async () => {
    await expectWasmModuleInSync(new URL('../src/slab-bitsets.wat', import.meta.url));
  });

  for (const base of [0, 0xffff_0000]) {
    it(`loads, counts, ORs and extracts like the model (container at ${base})`, () => {
      const scratch = new RoaringBitmap32();
      const bitsets = new SlabBitsets();
      const terms = [...KINDS, ...KINDS].map((kind) => term(base, kind));
      const ranges: [number, number][] = [
        [base, base + 65_535],
        [base + 1000, base + 40_000],
        [base + 65_535, base + 65_535],
      ];
      for (const [lo, hi] of ranges) {
        bitsets.begin(lo, hi);
        const slots = terms.map((t) => bitsets.slot(t, scratch));
        terms.forEach((t, i) => {
          expect(slots[i] === -1, `term ${i}`).toBe(model([t], lo, hi).length === 0);
        });
        for (let trial = 0; trial < 40; trial++) {
          const k = 1 + Math.floor(random() * 3);
          const pick = Array.from({ length: k }, () => Math.floor(random() * terms.length));
          if (pick.some((i) => slots[i] === -1)) continue;
          const expected = model(
            pick.map((i) => terms[i]!),
            lo,
            hi,
          );
          const picked = pick.map((i) => slots[i]!);
          expect(bitsets.count(picked, k)).toBe(expected.length);
          bitsets.clearAccumulator();
          bitsets.orAnd(picked, k);
          expect(Array.from(bitsets.accumulated())).toEqual(expected);
        }
        // An OR of two ANDs plus loose values, against the union of the models.
        const live = slots.map((s, i) => [s, i] as const).filter(([s]) => s !== -1);
        if (live.length >= 2) {
          const [a, b] = [live[0]!, live[live.length - 1]!];
          const loose = [lo, hi];
          bitsets.clearAccumulator();
          bitsets.orAnd([a[0], b[0]], 2);
          bitsets.orAnd([b[0]], 1);
          bitsets.orValues(loose);
          const union = new Set([
            ...model([terms[a[1]]!, terms[b[1]]!], lo, hi),
            ...model([terms[b[1]]!], lo, hi),
            ...loose,
          ]);
          const expected = [...union].sort((x, y) => x - y);
          const got = Array.from(bitsets.accumulated());
          expect(got).toEqual(expected);
          // Negative control: a model short of one value differs.
          expect(got).not.toEqual(expected.slice(1));
        }
      }
    });
  }
});
