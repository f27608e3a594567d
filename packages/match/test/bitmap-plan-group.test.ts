// The group proof (src/bitmap/plan-group.ts) against a model: PlanGroup.provesEmpty(lo, hi) is true exactly when every
// member plan's AND has nothing in [lo, hi] ∩ the window, computed by roaring alone. Properties:
// 1. Exact on random groups of 2-4-term plans over terms whose containers are of every kind (bitset, array, run,
//    absent: the portable serialization's every case, loaded in blocks of up to 8 containers), at the bottom and at
//    the top of the ordinal range, windows cut mid-container, ranges of a whole container, part of one and one id,
//    walking up and down; both answers occur often.
// 2. Two groups used in turn on the thread's kernel each reload their own blocks (the answers stay exact).
// 3. Only groupable plans join (two terms or more, every one dense), and too few make no group.
// 4. Negative control: the dropLastPlan fault proves slabs empty that the model says are not.
import { seededRandom } from '@strata/test-kit';
import roaring from 'roaring';
import { describe, expect, it } from 'vitest';
import { GROUP_MIN_PLANS, PlanGroup } from '../src/bitmap/plan-group.js';
import { WindowTerm } from '../src/bitmap/window-term.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const SPAN = 65_536;
const random = seededRandom(2026_12_02);
const pick = (n: number) => Math.floor(random() * n);

function frozen(bitmap: RoaringBitmap32): RoaringBitmap32 {
  bitmap.runOptimize();
  return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
}

/** An id's family (0..3) as bitset and array containers see it, and as run containers do (runs of 1,024). */
const family = (id: number) => (Math.imul(id ^ 0x2545_f491, 0x9e37_79b9) >>> 30) & 3;
const runFamily = (id: number) => (id >>> 10) & 3;

/** A term over `containers` containers from `firstKey`: per container a random kind; its ids those of its families. */
function randomTerm(firstKey: number, containers: number): RoaringBitmap32 {
  const families = new Set([pick(4), pick(4)]);
  const bitmap = new RoaringBitmap32();
  const ids = new Uint32Array(SPAN);
  for (let key = firstKey; key < firstKey + containers; key++) {
    const base = key * SPAN;
    const kind = pick(5); // 0, 1 bitset; 2 array; 3 run; 4 absent
    if (kind === 4) continue;
    let n = 0;
    for (let i = 0; i < SPAN; i++) {
      const id = base + i;
      if (kind === 3 ? families.has(runFamily(id)) : families.has(family(id)) && (kind !== 2 || i % 23 === 0)) {
        ids[n++] = id;
      }
    }
    bitmap.addMany(ids.subarray(0, n));
  }
  return frozen(bitmap);
}

/** True when every plan's AND is empty on [lo, hi] ∩ [windowLo, windowHi], by roaring alone. */
function modelEmpty(
  plans: readonly (readonly RoaringBitmap32[])[],
  lo: number,
  hi: number,
  w: [number, number],
): boolean {
  const from = Math.max(lo, w[0]);
  const to = Math.min(hi, w[1]);
  if (from > to) return true;
  return plans.every((plan) => {
    const and = RoaringBitmap32.fromRange(from, to + 1);
    for (const term of plan) and.andInPlace(term);
    return and.isEmpty;
  });
}

interface Case {
  readonly bitmaps: RoaringBitmap32[];
  readonly planIndexes: number[][];
  readonly window: [number, number];
  readonly firstKey: number;
  readonly containers: number;
}

function randomCase(firstKey: number, containers: number, termCount: number): Case {
  const bitmaps = Array.from({ length: termCount }, () => randomTerm(firstKey, containers));
  const planIndexes = Array.from({ length: GROUP_MIN_PLANS + pick(8) }, () => {
    const size = Math.min(2 + pick(3), termCount);
    const chosen = new Set<number>();
    while (chosen.size < size) chosen.add(pick(termCount));
    return [...chosen];
  });
  // Cut mid-container at either end half the time (inside one container: lo ≤ hi still).
  const cutLo = random() < 0.5 ? 0 : pick(SPAN / 2);
  const cutHi = random() < 0.5 ? 0 : pick(SPAN / 2);
  const lo = firstKey * SPAN + cutLo;
  const hi = (firstKey + containers) * SPAN - 1 - cutHi;
  return { bitmaps, planIndexes, window: [lo, hi], firstKey, containers };
}

/** The case's plans as WindowTerms (forced dense strategies: the group loads whatever the containers are). */
function plansOf(c: Case): WindowTerm[][] {
  const terms = c.bitmaps.map(
    (b, i) => new WindowTerm(b, c.window[0], c.window[1], { strategy: i % 2 ? 'clip' : 'gallop' }),
  );
  return c.planIndexes.map((indexes) => indexes.map((i) => terms[i]!));
}

/** The ranges a walk in `direction` asks about: per container a whole one, a part, one id. */
function rangesOf(c: Case, descending: boolean): [number, number][] {
  const ranges: [number, number][] = [];
  for (let k = 0; k < c.containers; k++) {
    const key = c.firstKey + (descending ? c.containers - 1 - k : k);
    const base = key * SPAN;
    const a = pick(SPAN);
    const b = a + pick(SPAN - a);
    ranges.push([base, base + SPAN - 1], [base + a, base + b], [base + a, base + a]);
  }
  return ranges;
}

describe('group proof', () => {
  it('is exact against the model, every container kind, bottom and top of the range, both directions', () => {
    const outcomes = { empty: 0, notEmpty: 0 };
    for (let trial = 0; trial < 24; trial++) {
      const top = trial % 3 === 2;
      const containers = 1 + pick(top ? 3 : 11);
      const c = randomCase(top ? 0x1_0000 - containers : pick(4), containers, 3 + pick(6));
      const model = c.planIndexes.map((indexes) => indexes.map((i) => c.bitmaps[i]!));
      for (const descending of [false, true]) {
        const group = PlanGroup.of(plansOf(c), { descending });
        expect(group, 'a group of dense plans').toBeDefined();
        const scratch = new RoaringBitmap32();
        for (const [lo, hi] of rangesOf(c, descending)) {
          const expected = modelEmpty(model, lo, hi, c.window);
          expect(group!.provesEmpty(lo, hi, scratch), `trial ${trial} [${lo}, ${hi}] ${descending}`).toBe(expected);
          expect(scratch.isEmpty, 'the scratch bitmap is left cleared').toBe(true);
          outcomes[expected ? 'empty' : 'notEmpty']++;
        }
      }
    }
    expect(outcomes.empty).toBeGreaterThan(30);
    expect(outcomes.notEmpty).toBeGreaterThan(30);
  });

  it('two groups used in turn each reload their own blocks', () => {
    const c1 = randomCase(0, 6, 6);
    const c2 = randomCase(0, 6, 6);
    const groups = [c1, c2].map((c) => ({ c, group: PlanGroup.of(plansOf(c), { descending: false })! }));
    const scratch = new RoaringBitmap32();
    for (let key = 0; key < 6; key++) {
      for (const { c, group } of groups) {
        const model = c.planIndexes.map((indexes) => indexes.map((i) => c.bitmaps[i]!));
        const [lo, hi] = [key * SPAN, key * SPAN + SPAN - 1];
        expect(group.provesEmpty(lo, hi, scratch)).toBe(modelEmpty(model, lo, hi, c.window));
      }
    }
  });

  it('takes only plans of two dense terms or more, and needs enough of them', () => {
    const c = randomCase(0, 2, 6);
    const plans = plansOf(c);
    const single = [plans[0]![0]!];
    const sparse = [new WindowTerm(c.bitmaps[0]!, c.window[0], c.window[1], { strategy: 'array' }), plans[0]![0]!];
    const group = PlanGroup.of([...plans, single, sparse], { descending: false })!;
    expect(group.members.size).toBe(plans.length);
    expect(group.members.has(single)).toBe(false);
    expect(group.members.has(sparse)).toBe(false);
    expect(PlanGroup.of(plans.slice(0, GROUP_MIN_PLANS - 1), { descending: false })).toBeUndefined();
  });

  it('negative control: a program without its last plan proves slabs empty that are not', () => {
    // Terms of one family each over 3 bitset containers: plans of two families are empty, the last (family 0 twice
    // over) is not.
    const ofFamily = (f: number) => {
      const ids: number[] = [];
      for (let id = 0; id < 3 * SPAN; id++) if (family(id) === f) ids.push(id);
      return frozen(RoaringBitmap32.from(ids));
    };
    const bitmaps = [ofFamily(0), ofFamily(1), ofFamily(2), ofFamily(3), ofFamily(0)];
    const c: Case = {
      bitmaps,
      planIndexes: [
        [0, 1],
        [1, 2],
        [2, 3],
        [0, 3],
        [1, 3],
        [0, 4],
      ],
      window: [0, 3 * SPAN - 1],
      firstKey: 0,
      containers: 3,
    };
    const model = c.planIndexes.map((indexes) => indexes.map((i) => bitmaps[i]!));
    const scratch = new RoaringBitmap32();
    const sound = PlanGroup.of(plansOf(c), { descending: false })!;
    const faulty = PlanGroup.of(plansOf(c), { descending: false, dropLastPlan: true })!;
    let wrong = 0;
    for (const [lo, hi] of rangesOf(c, false)) {
      const expected = modelEmpty(model, lo, hi, c.window);
      expect(sound.provesEmpty(lo, hi, scratch)).toBe(expected);
      if (faulty.provesEmpty(lo, hi, scratch) && !expected) wrong++;
    }
    expect(wrong, 'slabs the faulty program proved empty wrongly').toBeGreaterThanOrEqual(3);
  });
});
