// SlabAnd against an oracle built from sorted arrays (no roaring): random terms of every container kind over shared
// containers, each with its own window and a forced or automatic probe strategy, random plans, slab ranges at the
// edges. Properties:
// 1. plan(terms, lo, hi) is the intersection of the terms' values inside [lo, hi] ∩ every term's window, as a sorted
//    array, or undefined when that is empty; the order of the terms does not change it.
// 2. slab(plans, lo, hi) is the union of the plans' answers (undefined when all are empty).
// 3. Results are the caller's own: mutating one leaves the next identical call's answer unchanged.
// 4. After construction the allocation hook counts exactly one array per non-empty answer and no bitmap; term
//    bitmaps stay unchanged.
// Negative controls: an evaluator that ignores the terms' windows, and one that drops a plan's last term, both fail.
import { propertyParams, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PlanTerms, rarestFirst, SlabAnd } from '../src/bitmap/slab-and.js';
import { MAX_ORDINAL, type ProbeStrategy, WindowTerm } from '../src/bitmap/window-term.js';
import {
  type BitmapCase,
  CONTAINER_KINDS,
  caseBitmap,
  caseValues,
  type Holding,
  interestingPoints,
  modelRange,
  SPAN,
  windowOf,
} from './bitmap-arbitraries.js';

interface Scenario {
  terms: { bitmapCase: BitmapCase; strategy: ProbeStrategy | undefined; ownWindow: boolean }[];
  plans: number[][];
  seed: number;
}

const STRATEGIES: readonly (ProbeStrategy | undefined)[] = [undefined, 'array', 'gallop', 'clip', 'rank'];

/** 2..4 terms over the same 1..3 containers (so they overlap), 1..4 plans of 1..3 of them. */
const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    containerCount: fc.integer({ min: 1, max: 3 }),
    placement: fc.constantFrom('bottom', 'middle', 'top'),
    termCount: fc.integer({ min: 2, max: 4 }),
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  })
  .chain(({ containerCount, placement, termCount, seed }) => {
    const firstKey = placement === 'bottom' ? 0 : placement === 'middle' ? 0x4000 : SPAN - containerCount;
    const termArb = fc.record({
      bitmapCase: fc.record({
        firstKey: fc.constant(firstKey),
        containers: fc.array(
          fc.record({ kind: fc.constantFrom(...CONTAINER_KINDS), seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }) }),
          { minLength: containerCount, maxLength: containerCount },
        ),
        holding: fc.constantFrom<Holding>('mutable', 'frozen', 'view'),
      }),
      strategy: fc.constantFrom(...STRATEGIES),
      ownWindow: fc.boolean(),
    });
    const planArb = fc.uniqueArray(fc.integer({ min: 0, max: termCount - 1 }), { minLength: 1, maxLength: 3 });
    return fc.record({
      terms: fc.array(termArb, { minLength: termCount, maxLength: termCount }),
      plans: fc.array(planArb, { minLength: 1, maxLength: 4 }),
      seed: fc.constant(seed),
    });
  });

interface Built {
  windowTerms: WindowTerm[];
  values: Uint32Array[];
  plans: WindowTerm[][];
  ranges: { lo: number; hi: number }[];
}

function build(scenario: Scenario): Built {
  const random = seededRandom(scenario.seed);
  const values = scenario.terms.map((t) => caseValues(t.bitmapCase));
  const first = scenario.terms[0]!.bitmapCase;
  const merged = Uint32Array.from(values.flatMap((v) => Array.from(v))).sort();
  const points = interestingPoints(first, merged, random);
  const shared = windowOf(points, random);
  const windowTerms = scenario.terms.map((t, i) => {
    const window = t.ownWindow ? windowOf(points, random) : shared;
    const options = t.strategy === undefined ? {} : { strategy: t.strategy };
    return new WindowTerm(caseBitmap(t.bitmapCase, values[i]), window.lo, window.hi, options);
  });
  const plans = scenario.plans.map((plan) => plan.map((index) => windowTerms[index]!));
  const base = first.firstKey * SPAN;
  const ranges = [
    { lo: base, hi: base + SPAN - 1 }, // one whole slab
    { lo: base + SPAN / 2, hi: base + SPAN + 1000 }, // straddling a 2^16 boundary
    { lo: 0, hi: MAX_ORDINAL }, // everything
    windowOf(points, random),
    windowOf(points, random),
  ].map(({ lo, hi }) => ({ lo: Math.min(lo, MAX_ORDINAL), hi: Math.min(hi, MAX_ORDINAL) }));
  return { windowTerms, values, plans, ranges };
}

/** Oracle: the plan's terms' values inside [lo, hi] ∩ each term's window, intersected. */
function modelPlan(built: Built, plan: readonly WindowTerm[], lo: number, hi: number): number[] {
  let from = lo;
  let to = hi;
  for (const term of plan) {
    from = Math.max(from, term.lo);
    to = Math.min(to, term.hi);
  }
  let result: number[] | undefined;
  for (const term of plan) {
    const part = Array.from(modelRange(built.values[built.windowTerms.indexOf(term)]!, from, to));
    if (result === undefined) result = part;
    else {
      const keep = new Set(part);
      result = result.filter((v) => keep.has(v));
    }
  }
  return result ?? [];
}

function modelSlab(built: Built, plans: readonly (readonly WindowTerm[])[], lo: number, hi: number): number[] {
  const all = new Set<number>();
  for (const plan of plans) for (const v of modelPlan(built, plan, lo, hi)) all.add(v);
  return [...all].sort((a, b) => a - b);
}

/** What the properties evaluate: SlabAnd, or a broken stand-in for the negative controls. */
interface Evaluator {
  plan(terms: PlanTerms, lo: number, hi: number): Uint32Array | undefined;
  slab(plans: readonly PlanTerms[], lo: number, hi: number): Uint32Array | undefined;
}

const asArray = (values: Uint32Array | undefined): number[] | undefined =>
  values === undefined ? undefined : Array.from(values);
const orUndefined = (values: number[]): number[] | undefined => (values.length === 0 ? undefined : values);

function slabAndProperty(makeEvaluator: () => Evaluator) {
  return fc.property(scenarioArb, (scenario) => {
    const built = build(scenario);
    const evaluator = makeEvaluator();
    for (const { lo, hi } of built.ranges) {
      for (const plan of built.plans) {
        const expected = orUndefined(modelPlan(built, plan, lo, hi));
        if (JSON.stringify(asArray(evaluator.plan(rarestFirst(plan), lo, hi))) !== JSON.stringify(expected)) {
          return false;
        }
        if (JSON.stringify(asArray(evaluator.plan([...plan].reverse(), lo, hi))) !== JSON.stringify(expected)) {
          return false;
        }
      }
      const expected = orUndefined(modelSlab(built, built.plans, lo, hi));
      const plans = built.plans.map(rarestFirst);
      const first = evaluator.slab(plans, lo, hi);
      if (JSON.stringify(asArray(first)) !== JSON.stringify(expected)) return false;
      first?.fill(0);
      if (JSON.stringify(asArray(evaluator.slab(plans, lo, hi))) !== JSON.stringify(expected)) return false;
    }
    return true;
  });
}

describe('SlabAnd against the sorted-array oracle', () => {
  it('plan and slab answer like the oracle; results are fresh (1, 2, 3)', () => {
    fc.assert(
      slabAndProperty(() => new SlabAnd()),
      propertyParams({ numRuns: 60 }),
    );
  });

  it('the allocation hook counts one array per non-empty answer and no bitmap; terms stay unchanged (4)', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const built = build(scenario);
        const before = built.windowTerms.map((t) => Buffer.from(t.bitmap.serialize('portable')).toString('hex'));
        const evaluator = new SlabAnd();
        const constructed = { ...evaluator.allocations };
        let answers = 0;
        for (const { lo, hi } of built.ranges) {
          for (const plan of built.plans) if (evaluator.plan(plan, lo, hi) !== undefined) answers++;
          if (evaluator.slab(built.plans, lo, hi) !== undefined) answers++;
        }
        expect(evaluator.allocations).toEqual({ bitmaps: constructed.bitmaps, arrays: constructed.arrays + answers });
        const after = built.windowTerms.map((t) => Buffer.from(t.bitmap.serialize('portable')).toString('hex'));
        expect(after).toEqual(before);
      }),
      propertyParams({ numRuns: 30 }),
    );
  });

  it('negative control: an evaluator that ignores the terms windows fails', () => {
    const unclipped = (): Evaluator => {
      const inner = new SlabAnd();
      const whole = (terms: PlanTerms) => terms.map((t) => new WindowTerm(t.bitmap, 0, MAX_ORDINAL));
      return {
        plan: (terms, lo, hi) => inner.plan(whole(terms), lo, hi),
        slab: (plans, lo, hi) => inner.slab(plans.map(whole), lo, hi),
      };
    };
    expect(fc.check(slabAndProperty(unclipped), { numRuns: 60, seed: 18, endOnFailure: true }).failed).toBe(true);
  });

  it('negative control: an evaluator that drops a plan last term fails', () => {
    const dropsLast = (): Evaluator => {
      const inner = new SlabAnd();
      const shorter = (terms: PlanTerms) => (terms.length > 1 ? terms.slice(0, -1) : terms);
      return {
        plan: (terms, lo, hi) => inner.plan(shorter(terms), lo, hi),
        slab: (plans, lo, hi) => inner.slab(plans.map(shorter), lo, hi),
      };
    };
    expect(fc.check(slabAndProperty(dropsLast), { numRuns: 60, seed: 18, endOnFailure: true }).failed).toBe(true);
  });
});
