// The slab stepper (spec §4.4; upstream slab_match.go): one stage's walk over its window, slab by slab, in either
// direction through one code path. Each live plan holds a bound proved with next-value / previous-value probes (the
// first ordinal at or after which, descending at or before which, its next candidate can lie); the stepper jumps
// straight to the nearest bound, evaluates that slab's part of the window as the OR of the plans whose bound lies in
// it (each the AND of its terms, rarest first: SlabAnd), hands out the result, and re-proves only the bounds the
// cursor has reached. Synchronous; one stepper per stage of one walk.
import { assert } from '@strata/base';
import { GROUP_MIN_PLANS } from '../bitmap/plan-group.js';
import { type PlanTerms, SlabAnd, type SlabAndAllocations, usesKernel } from '../bitmap/slab-and.js';
import type { WindowTerm } from '../bitmap/window-term.js';
import { CandidateWalk } from './candidate-walk.js';
import type { Direction } from './types.js';

/** A plan's bound when its terms have no candidate left in the stage: the plan is done for the stage. */
const RETIRED = -1;
/** A plan's bound before its first proof. */
const UNPROVED = -2;

/** Deliberate defects of the stepper (negative controls); see EngineFaults. */
export interface StepperFaults {
  readonly skipOneSlabTooFar?: boolean;
  readonly groupProofDropsPlan?: boolean;
}

/** Observers of the stepper (a subset of MatchTrace). */
export interface StepperTrace {
  onSlab?(lo: number, hi: number, candidates: number, allocations: Readonly<SlabAndAllocations>): void;
  onGroupProof?(lo: number, hi: number, plans: number, empty: boolean): void;
}

/**
 * Walks one stage: `plans` are the stage's surviving plans (every term present in the stage's lookup), each sorted
 * rarest first, over the half-open window [start, end) of the stage.
 *
 * Bounds. A plan's bound is proved in rounds from a position x: each term in turn moves x to its next value at or
 * after x (descending: previous value at or before x); a term with none retires the plan. A round that leaves x where
 * it started has found a candidate (every term holds x), and x is the bound. A round that moves x but stays in the
 * slab x started in also ends the proof, with x as the bound (the slab's AND will tell). A round that crosses into a
 * later slab proved the slabs in between candidate-free for this plan, so another round starts from there. The next
 * slab opened is the one holding the nearest bound of the live plans, from that bound to the slab's far edge (clipped
 * to the window): the slabs opened are exactly the slabs holding some plan's proved bound.
 *
 * Group proof. The stage's plans of dense terms (SlabAnd.setGroup, plan-group.ts) are first tested together on a
 * slab: when the OR of all their ANDs is empty there, none of them is evaluated on it; otherwise they are evaluated
 * one by one as any plan. Their bounds are proved together too: when every term of the group holds a value from
 * the cursor to its slab's edge, each member's proof would end where it starts, so each stale member's bound is the
 * cursor without probing its terms again.
 */
export class SlabStepper extends CandidateWalk {
  private readonly plans: readonly PlanTerms[];
  private readonly bounds: number[];
  /** Per plan: how many of its evaluations in a row came up empty (0: the last one had candidates). */
  private readonly emptyRuns: Uint8Array;
  /**
   * Per plan: 1 when its ANDs run in the kernel or it is a member of the group proof (SlabAnd.setGroup), where a slab
   * costs less than a gallop's roaring count.
   */
  private readonly inKernel: Uint8Array;
  /** Per plan: 1 when it is a member of the group proof; the group's size and its members' distinct terms. */
  private readonly inGroup: Uint8Array;
  private readonly groupSize: number;
  private readonly groupTerms: readonly WindowTerm[];
  /** Scratch of nextBlock, reused: the plans evaluated on the slab, their indexes and their counts. */
  private readonly inSlab: PlanTerms[] = [];
  private readonly inSlabIndex: number[] = [];
  private readonly inSlabCounts: number[] = [];
  private readonly start: number;
  private readonly end: number;
  private readonly descending: boolean;
  private readonly slabSize: number;
  private readonly evaluator = new SlabAnd();
  private readonly faults: StepperFaults;
  private readonly trace: StepperTrace | undefined;
  /** Ascending: the inclusive low edge of what is left; descending: its exclusive high edge. */
  private cursor: number;
  private done = false;

  constructor(
    plans: readonly PlanTerms[],
    window: { readonly start: number; readonly end: number },
    direction: Direction,
    slabShift: number,
    faults: StepperFaults = {},
    trace?: StepperTrace,
  ) {
    super(direction === 'desc');
    this.plans = plans;
    // A plain array of small integers (ordinals below 2^30 stay unboxed; a Float64Array boxed every bound it handed
    // out: 1.5 MB of heap numbers per never-matching request).
    this.bounds = new Array<number>(plans.length).fill(UNPROVED);
    this.emptyRuns = new Uint8Array(plans.length);
    this.descending = direction === 'desc';
    const members =
      plans.length < GROUP_MIN_PLANS
        ? undefined
        : this.evaluator.setGroup(plans, {
            descending: this.descending,
            dropLastPlan: faults.groupProofDropsPlan === true,
          });
    this.inGroup = new Uint8Array(plans.length);
    this.groupSize = members?.size ?? 0;
    this.groupTerms = members === undefined || members.size === 0 ? [] : [...new Set([...members].flat())];
    this.inKernel = new Uint8Array(plans.length);
    for (let p = 0; p < plans.length; p++) {
      if (members?.has(plans[p]!) === true) this.inGroup[p] = 1;
      if (usesKernel(plans[p]!) || this.inGroup[p] === 1) this.inKernel[p] = 1;
    }
    this.start = window.start;
    this.end = window.end;
    this.slabSize = 2 ** slabShift;
    this.faults = faults;
    this.trace = trace;
    this.cursor = this.descending ? window.end : window.start;
    this.done = plans.length === 0 || window.start >= window.end;
  }

  /** Objects the slab evaluator allocated so far (see SlabAndAllocations). */
  get allocations(): Readonly<SlabAndAllocations> {
    return this.evaluator.allocations;
  }

  private slabBase(ordinal: number): number {
    return Math.floor(ordinal / this.slabSize) * this.slabSize;
  }

  private slabOf(ordinal: number): number {
    return Math.floor(ordinal / this.slabSize);
  }

  /** Proves plan p's bound from x (inclusive, inside the window): see the class comment. */
  private prove(p: number, x: number): number {
    const terms = this.plans[p]!;
    const descending = this.descending;
    if (this.emptyRuns[p]! > 0 && this.inKernel[p] === 0) {
      x = this.skipEmptyRun(p, terms, x);
      if (x === RETIRED) return RETIRED;
    }
    for (;;) {
      const from = x;
      for (let i = 0; i < terms.length; i++) {
        x = probe(terms[i]!, x, descending, this.slabSize);
        if (x === -1) return RETIRED;
      }
      if (x === from || this.slabOf(x) === this.slabOf(from)) return x;
    }
  }

  /**
   * Galloping over empty slabs: a plan that came up empty on its last `emptyRuns` evaluations has its next
   * 2^emptyRuns slabs (from x to a slab edge) counted in one count-first AND (SlabAnd.count, allocating nothing);
   * an empty run moves x past it and doubles the next, so a plan that never matches costs a logarithmic number of
   * counts per stage, not one evaluation per slab (dense terms that never co-occur: the seed's "count-first" rows).
   * A run with candidates ends the gallop (the walk goes on slab by slab from x), so the counts cost at most about
   * what the walk over the same slabs would. Returns the new x, or RETIRED past the window.
   */
  private skipEmptyRun(p: number, terms: PlanTerms, x: number): number {
    const size = this.slabSize;
    while (this.emptyRuns[p]! > 0) {
      const span = size * 2 ** Math.min(this.emptyRuns[p]!, 16);
      let lo: number;
      let hi: number;
      if (this.descending) {
        hi = x;
        lo = Math.max(this.slabBase(x) + size - span, this.start);
      } else {
        lo = x;
        hi = Math.min(this.slabBase(x) + span, this.end) - 1;
      }
      if (this.evaluator.count(terms, lo, hi) !== 0) {
        this.emptyRuns[p] = 0;
        break;
      }
      x = this.descending ? lo - 1 : hi + 1;
      if (this.descending ? x < this.start : x >= this.end) return RETIRED;
      if (this.emptyRuns[p]! < 255) this.emptyRuns[p]!++;
    }
    return x;
  }

  /** The nearest live bound from the cursor on, re-proving bounds the cursor has reached; -1 when none is left. */
  private nearestBound(): number {
    const bounds = this.bounds;
    const descending = this.descending;
    const cursor = this.cursor;
    let nearest = -1;
    // 1 when every term of the group holds a value from the cursor to its slab's edge, so each stale member's proof
    // would end where it starts (one round, no term moving x): -1 until a stale member asks.
    let groupHolds = -1;
    for (let p = 0; p < bounds.length; p++) {
      let bound = bounds[p]!;
      if (bound === RETIRED) continue;
      // A held bound stands until the cursor reaches it (bounds only move in the walk direction).
      const stale = bound === UNPROVED || (descending ? bound >= cursor : bound < cursor);
      if (stale) {
        const from = descending ? cursor - 1 : cursor;
        const past = descending ? from < this.start : from >= this.end;
        if (!past && this.inGroup[p] === 1 && groupHolds === -1) groupHolds = this.groupHoldsAt(from) ? 1 : 0;
        bound = past ? RETIRED : this.inGroup[p] === 1 && groupHolds === 1 ? from : this.prove(p, from);
        bounds[p] = bound;
        if (bound === RETIRED) continue;
      }
      if (nearest === -1 || (descending ? bound > nearest : bound < nearest)) nearest = bound;
    }
    return nearest;
  }

  /** True when every term of the group holds a value between x and the edge of x's slab (as `probe` tests it). */
  private groupHoldsAt(x: number): boolean {
    const terms = this.groupTerms;
    for (let i = 0; i < terms.length; i++) if (probe(terms[i]!, x, this.descending, this.slabSize) !== x) return false;
    return true;
  }

  /** Evaluates the next slab holding a bound: its candidates, or undefined when the stage is exhausted. */
  protected override nextBlock(): Uint32Array | undefined {
    while (!this.done) {
      const bound = this.nearestBound();
      if (bound === -1 || bound < this.start || bound >= this.end) {
        this.done = true;
        return undefined;
      }
      if (this.faults.skipOneSlabTooFar === true && this.skipsPast(bound)) continue;
      let lo: number;
      let hi: number;
      if (this.descending) {
        hi = bound;
        lo = Math.max(this.slabBase(bound), this.start);
        this.cursor = lo;
      } else {
        lo = bound;
        hi = Math.min(this.slabBase(bound) + this.slabSize, this.end) - 1;
        this.cursor = hi + 1;
      }
      const proved = this.groupProof(lo, hi);
      // The scratch arrays keep their length (setting it to 0 would free their storage each slab).
      const { inSlab, inSlabIndex, inSlabCounts } = this;
      let n = 0;
      for (let p = 0; p < this.plans.length; p++) {
        const b = this.bounds[p]!;
        if (b !== RETIRED && b >= lo && b <= hi) {
          if (proved && this.inGroup[p] === 1) {
            if (this.emptyRuns[p]! < 255) this.emptyRuns[p]!++;
            continue;
          }
          inSlab[n] = this.plans[p]!;
          inSlabIndex[n] = p;
          n++;
        }
      }
      assert(n > 0 || proved, 'the nearest bound lies in the slab it opens');
      if (n === 0) {
        this.trace?.onSlab?.(lo, hi, 0, this.evaluator.allocations);
        continue;
      }
      const result = this.evaluator.slab(inSlab, lo, hi, inSlabCounts, n);
      for (let i = 0; i < n; i++) {
        const p = inSlabIndex[i]!;
        if (inSlabCounts[i] !== 0) this.emptyRuns[p] = 0;
        else if (this.emptyRuns[p]! < 255) this.emptyRuns[p]!++;
      }
      this.trace?.onSlab?.(lo, hi, result?.length ?? 0, this.evaluator.allocations);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  /**
   * True when the group proof shows every member empty on [lo, hi]; tried when at least two members and a quarter of
   * the group have their bound there (the proof evaluates every member).
   */
  private groupProof(lo: number, hi: number): boolean {
    if (this.groupSize === 0) return false;
    let members = 0;
    for (let p = 0; p < this.plans.length; p++) {
      const b = this.bounds[p]!;
      if (this.inGroup[p] === 1 && b !== RETIRED && b >= lo && b <= hi) members++;
    }
    if (members < 2 || 4 * members < this.groupSize) return false;
    const empty = this.evaluator.groupProvesEmpty(lo, hi);
    this.trace?.onGroupProof?.(lo, hi, this.groupSize, empty);
    return empty;
  }

  /**
   * The skipOneSlabTooFar fault: a jump that crosses slabs lands one slab past the bound's slab. Moves the cursor
   * there and returns true (the caller re-proves), or false when the bound is in the cursor's own slab.
   */
  private skipsPast(bound: number): boolean {
    const from = this.descending ? this.cursor - 1 : this.cursor;
    if (this.slabOf(bound) === this.slabOf(from)) return false;
    this.cursor = this.descending ? this.slabBase(bound) : this.slabBase(bound) + this.slabSize;
    if (this.descending ? this.cursor <= this.start : this.cursor >= this.end) this.done = true;
    return true;
  }
}

/**
 * One term's step of a bound proof from x: the first value at or after x (descending: at or before), or any smaller
 * (larger) position that is still a valid bound. A term probed cheaply (`array`, `rank`: small or sparse window parts)
 * answers exactly. A dense term (bitset or run containers) answers x itself when it holds a value between x and the
 * edge of x's slab (one `intersects`, where an exact probe costs several native calls), and probes exactly only past
 * a slab it has nothing in: dense terms rarely move a bound, and the slab's AND decides anyway (measured: exact
 * probes of dense terms were 40 % of a never-matching dense request).
 */
function probe(term: WindowTerm, x: number, descending: boolean, slabSize: number): number {
  if (term.strategy === 'array' || term.strategy === 'rank')
    return descending ? term.previousValue(x) : term.nextValue(x);
  const base = Math.floor(x / slabSize) * slabSize;
  if (descending) return term.intersects(base, x) ? x : base === 0 ? -1 : term.previousValue(base - 1);
  return term.intersects(x, base + slabSize - 1) ? x : term.nextValue(base + slabSize);
}
