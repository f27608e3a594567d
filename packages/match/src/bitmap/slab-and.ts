// The per-slab evaluation of the slab stepper (spec §4.4 "Evaluate the slab"): each plan is the AND of its terms
// restricted to [lo, hi] ∩ the terms' window, rarest term first, and a slab's candidates are the OR across plans.
// roaring 2.7.0 has no many-way AND and no count-first AND, so this one counts before it materializes: a plan that
// is empty on a slab allocates nothing (no bitmap, no array), which is what keeps never-matching plans cheap.
import { assert } from '@strata/base';
import roaring from 'roaring';
import { MatchError, MatchErrorCode } from '../errors.js';
import { PlanGroup, type PlanGroupOptions } from './plan-group.js';
import { MAX_KERNEL_TERMS, SlabBitsets } from './slab-bitsets.js';
import { ARRAY_CONTAINER_MAX, checkOrdinalRange, type WindowTerm } from './window-term.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A plan: the terms whose AND gives its candidates (at least one). */
export type PlanTerms = readonly WindowTerm[];

/**
 * A plan whose rarest term has at most this many values in the slab, times its other terms, is evaluated by probing
 * each of those values in the other terms (`has`) instead of with bitmap ANDs (see bench/bitmap.bench.ts).
 */
const FILTER_LIMIT = 16;

/**
 * Objects a SlabAnd has created since construction: the hook tests prove its allocation claims with. The constructor
 * makes its two scratch bitmaps and its filter buffer; after that, `plan` and `slab` create one array per non-empty
 * result and nothing else. (CRoaring's own container memory inside the scratch bitmaps is not counted.)
 */
export interface SlabAndAllocations {
  /** RoaringBitmap32 instances. */
  bitmaps: number;
  /** Uint32Arrays (results and the filter buffer). */
  arrays: number;
}

/** Where the last plan evaluation left its `count` values. */
type PlanResult = 'none' | 'scratch' | 'filtered' | 'array-part' | 'kernel';

/**
 * Plans of this many terms or more run in the kernel. Two dense terms do not: roaring counts their AND without
 * materializing it (the scratch copy of one, andCardinality with the other), and galloping over empty slabs with that
 * count measured 2.4x faster than loading both terms per slab (bench/engine.bench.ts filters.dense-pairs-disjoint).
 * From three terms roaring must materialize an intermediate AND (a bitset converted to an array when small), which
 * the kernel never does (dense-triples-empty 3.8x faster).
 */
const KERNEL_MIN_TERMS = 3;

/**
 * True when a plan's ANDs run in the WebAssembly kernel (SlabBitsets) on ranges inside one container: KERNEL_MIN_TERMS
 * terms or more, every one dense (bitset or run containers: the gallop and clip strategies). One term of array
 * containers keeps the plan on roaring, whose AND with it is already small (measured: pubnet-mix, whose plans carry an
 * address term of ~800 a slab, 2x slower when every term was loaded as a bitset).
 */
export function usesKernel(terms: PlanTerms): boolean {
  if (terms.length < KERNEL_MIN_TERMS || terms.length > MAX_KERNEL_TERMS) return false;
  for (let i = 0; i < terms.length; i++) {
    const strategy = terms[i]!.strategy;
    if (strategy !== 'gallop' && strategy !== 'clip') return false;
  }
  return true;
}

const CONTAINER_SPAN = 65_536;

/** `terms` sorted by ascending window cardinality (stable): the order `plan` and `slab` want a plan's terms in. */
export function rarestFirst<T extends { readonly cardinality: number }>(terms: readonly T[]): T[] {
  // An insertion sort of a copy: plans hold a handful of terms, and Array.prototype.sort allocates a work array
  // per call (measured: 0.3 MB per 256-plan request).
  const sorted = terms.slice();
  for (let i = 1; i < sorted.length; i++) {
    const term = sorted[i]!;
    let j = i - 1;
    while (j >= 0 && sorted[j]!.cardinality > term.cardinality) {
      sorted[j + 1] = sorted[j]!;
      j--;
    }
    sorted[j + 1] = term;
  }
  return sorted;
}

// Measured (bench/bitmap.bench.ts, same run and machine as window-term.ts PROBE_FIGURES; 128 slabs of one chunk, ns per
// slab, terms built per walk) against the Go engine's evalSlab with roaring 2.7.0's API (fromRange + allocating and
// chain + orInPlace, then toUint32Array): never-co-occurring dense pair 1,029 vs 3,630, jointly-empty dense triple
// 1,534 vs 5,419, 5 topic-count plans that never match 5,442 vs 18,080, all with 0 objects allocated per slab vs 3,
// 4 and 11; 200-value term ∧ dense 330 vs 1,293; 4,000-value term ∧ dense 1,310 vs 1,544; dense ∧ dense 11,780 vs
// 14,060; OR of 8 sparse ∧ dense plans 54,100 vs 58,640. Against the same scratch AND without counting the last term
// first: 0.79-0.84x on the never-matching rows, 1.06-1.19x where the plans match (the extra counting pass).

/**
 * Evaluates plans on slabs. Results are fresh sorted Uint32Arrays the caller owns: the stepper emits them forward
 * or backward by index, cuts a page with `subarray`, and hands them to `ChunkReader.fetchEvents` as they are; they
 * hold no native memory and share nothing with the term bitmaps.
 *
 * A walk's dense plans may also be compiled into a group proof (setGroup, groupProvesEmpty: plan-group.ts), which
 * tests all of them on a slab at once; the stepper evaluates them here one by one only where it does not prove them
 * empty.
 *
 * Concurrency: one evaluator per walk, used from one thread; calls are synchronous and never mutate a term's bitmap
 * (they AND into the evaluator's own scratch bitmaps).
 */
export class SlabAnd {
  readonly allocations: SlabAndAllocations = { bitmaps: 2, arrays: 1 };
  /** The running AND of the plan being evaluated. */
  private readonly scratch: RoaringBitmap32 = new RoaringBitmap32();
  /** The OR across the plans of one slab. */
  private readonly union: RoaringBitmap32 = new RoaringBitmap32();
  /** The filter path's output; FILTER_LIMIT values always fit, so it never grows. */
  private readonly filtered = new Uint32Array(FILTER_LIMIT);
  private resultKind: PlanResult = 'none';
  /** slab's array results waiting to be merged (views or copies; no typed array is allocated for them). */
  private readonly parts: ArrayLike<number>[] = [];
  /** The kernel's bitsets of the current call's range; `kernelRange` is the range they were loaded for. */
  private readonly bitsets = new SlabBitsets();
  private kernelLo = -1;
  private kernelHi = -1;
  /** The slots of the last kernel plan, and how many. */
  private readonly kernelSlots: number[] = [];
  private kernelTerms = 0;
  private arrayPartResult: Uint32Array = this.filtered.subarray(0, 0);
  /** The group proof of the walk's dense plans (setGroup). */
  private group: PlanGroup | undefined;

  /**
   * Compiles the group proof of `plans` (see plan-group.ts) for groupProvesEmpty, replacing any earlier one. Returns
   * the group's members (the plans it proves; none when too few plans qualify, and there is then no group).
   */
  setGroup(plans: readonly PlanTerms[], options: PlanGroupOptions): ReadonlySet<PlanTerms> {
    this.group = PlanGroup.of(plans, options);
    return this.group?.members ?? NO_MEMBERS;
  }

  /**
   * The candidates of one plan on [lo, hi] ∩ the terms' windows: the AND of `terms` (rarest first, see
   * rarestFirst; any order gives the same answer), or undefined when it is empty.
   */
  plan(terms: PlanTerms, lo: number, hi: number): Uint32Array | undefined {
    checkOrdinalRange(lo, hi, 'slab');
    checkPlan(terms, 'terms');
    this.kernelLo = -1;
    const count = this.evaluate(terms, lo, hi);
    return count === 0 ? undefined : this.takeResult(count);
  }

  /**
   * How many candidates one plan has on [lo, hi] ∩ the terms' windows (any span, several slabs included), allocating
   * nothing: the stepper's test that a run of slabs is empty for a plan.
   */
  count(terms: PlanTerms, lo: number, hi: number): number {
    checkOrdinalRange(lo, hi, 'range');
    checkPlan(terms, 'terms');
    this.kernelLo = -1;
    const count = this.evaluate(terms, lo, hi);
    this.scratch.clear();
    this.resultKind = 'none';
    return count;
  }

  /**
   * The OR across `plans` on [lo, hi] (each clipped to its terms' windows), or undefined when every plan is empty.
   * `counts`, when given, receives each plan's own count at its index (0: the plan is empty on the range).
   *
   * Plans whose results are small arrays (the filter path, a single term's array part) are merged in JavaScript (one
   * array filled, sorted, deduplicated); as soon as one plan's result is a bitmap, everything is ORed into the union
   * bitmap instead (measured: sixteen sparse plans on a slab cost 20 % of a page in `addMany` calls before).
   */
  slab(
    plans: readonly PlanTerms[],
    lo: number,
    hi: number,
    counts?: number[],
    planCount: number = Array.isArray(plans) ? plans.length : 0,
  ): Uint32Array | undefined {
    checkOrdinalRange(lo, hi, 'slab');
    if (!Array.isArray(plans) || !Number.isInteger(planCount) || planCount < 0 || planCount > plans.length) {
      throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, 'expected an array of plans (and a count within it)');
    }
    for (let index = 0; index < planCount; index++) checkPlan(plans[index]!, index);
    this.kernelLo = -1;
    if (planCount === 1) {
      const result = this.plan(plans[0]!, lo, hi);
      if (counts !== undefined) counts[0] = result?.length ?? 0;
      return result;
    }
    const union = this.union;
    const parts = this.parts;
    let partCount = 0;
    let partValues = 0;
    let bitmapPlans = 0;
    let kernelPlans = 0;
    for (let index = 0; index < planCount; index++) {
      const count = this.evaluate(plans[index]!, lo, hi);
      if (counts !== undefined) counts[index] = count;
      if (count === 0) continue;
      if (this.resultKind === 'kernel') {
        if (kernelPlans === 0) this.bitsets.clearAccumulator();
        this.bitsets.orAnd(this.kernelSlots, this.kernelTerms);
        kernelPlans++;
      } else if (this.resultKind === 'scratch') {
        if (bitmapPlans === 0)
          RoaringBitmap32.swap(union, this.scratch); // the first becomes the union, no copy
        else union.orInPlace(this.scratch);
        this.scratch.clear();
        bitmapPlans++;
      } else {
        // The filter buffer is reused by the next evaluation: keep a copy of its few values; an array part is a
        // view of the term's own copy, stable while the term lives.
        parts[partCount++] =
          this.resultKind === 'filtered' ? Array.from(this.filtered.subarray(0, count)) : this.arrayPartResult;
        partValues += count;
      }
    }
    if (bitmapPlans === 0 && partCount === 0 && kernelPlans === 0) return undefined;
    let values: Uint32Array;
    if (kernelPlans > 0) {
      // Everything on the slab is inside the kernel's container: arrays join the accumulator there.
      for (let i = 0; i < partCount; i++) this.bitsets.orValues(parts[i]!);
      if (bitmapPlans === 0) {
        values = this.bitsets.accumulated().slice();
      } else {
        union.addMany(this.bitsets.accumulated());
        values = union.toUint32Array();
        union.clear();
      }
    } else if (bitmapPlans === 0) {
      values = mergeParts(parts, partCount, partValues);
    } else {
      for (let i = 0; i < partCount; i++) union.addMany(parts[i]!);
      values = union.toUint32Array();
      union.clear();
    }
    parts.fill(EMPTY_PART, 0, partCount); // drop the references, keep the storage
    this.allocations.arrays++;
    return values;
  }

  /**
   * True when the group proof (setGroup) shows every member plan empty on [lo, hi] ∩ their window ([lo, hi] inside
   * one container); false proves nothing (no group, or some member may have candidates there).
   */
  groupProvesEmpty(lo: number, hi: number): boolean {
    checkOrdinalRange(lo, hi, 'slab');
    const group = this.group;
    if (group === undefined || Math.floor(lo / CONTAINER_SPAN) !== Math.floor(hi / CONTAINER_SPAN)) return false;
    return group.provesEmpty(lo, hi, this.scratch);
  }

  /** Evaluates one plan; returns its count (0: empty, nothing allocated) and leaves the values where resultKind says. */
  private evaluate(terms: PlanTerms, lo: number, hi: number): number {
    this.resultKind = 'none';
    let from = lo;
    let to = hi;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      if (term.lo > from) from = term.lo;
      if (term.hi < to) to = term.hi;
    }
    if (from <= to && Math.floor(from / CONTAINER_SPAN) === Math.floor(to / CONTAINER_SPAN) && usesKernel(terms)) {
      const count = this.evaluateInKernel(terms, from, to);
      if (count !== undefined) return count;
    }
    // Every term needs a value in the range: a cheap test before any AND (an array-strategy term's first value there
    // also tightens the start).
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      if (from > to) return 0;
      if (term.strategy === 'array') {
        const first = term.nextValue(from);
        if (first === -1 || first > to) return 0;
        from = first;
      } else if (!term.intersects(from, to)) {
        return 0;
      }
    }
    const rarest = terms[0]!;
    const part = rarest.arrayPart(from, to);
    if (part !== undefined && part.length * (terms.length - 1) <= FILTER_LIMIT) {
      if (terms.length === 1) {
        this.resultKind = 'array-part';
        this.arrayPartResult = part;
        return part.length;
      }
      return this.filter(part, terms);
    }
    return this.andInScratch(terms, from, to);
  }

  /**
   * The kernel path: each term's part of [from, to] loaded once per call as a bitset (shared by every plan naming
   * it), the plan's AND counted there; nothing is allocated when it is empty. Undefined when the kernel has no room
   * left for this plan's terms (the roaring path takes it).
   */
  private evaluateInKernel(terms: PlanTerms, from: number, to: number): number | undefined {
    const bitsets = this.bitsets;
    if (this.kernelLo !== from || this.kernelHi !== to) {
      bitsets.begin(from, to);
      this.kernelLo = from;
      this.kernelHi = to;
    }
    if (!bitsets.roomFor(terms.length)) return undefined;
    const slots = this.kernelSlots;
    for (let i = 0; i < terms.length; i++) {
      const slot = bitsets.slot(terms[i]!.bitmap, this.scratch);
      if (slot === -1) return 0;
      slots[i] = slot;
    }
    const count = bitsets.count(slots, terms.length);
    if (count === 0) return 0;
    this.kernelTerms = terms.length;
    this.resultKind = 'kernel';
    return count;
  }

  /** The filter path: the rarest term's few values, kept when every other term holds them. */
  private filter(part: Uint32Array, terms: PlanTerms): number {
    let count = 0;
    for (const value of part) {
      let inAll = true;
      for (let i = 1; i < terms.length && inAll; i++) inAll = terms[i]!.has(value);
      if (inAll) this.filtered[count++] = value;
    }
    this.resultKind = count === 0 ? 'none' : 'filtered';
    return count;
  }

  /**
   * The bitmap path: the range ANDed in place with the terms in order, stopping as soon as nothing is left. The last
   * term is counted first (andCardinality allocates nothing) while what is left is a bitset container's worth (more
   * than ARRAY_CONTAINER_MAX values): a bitset AND in place may convert and allocate, and a plan that comes up empty
   * only at its last term (never-co-occurring pairs, topic-count plans that never match) then skips it; a term that
   * holds all that is left skips it too. An array container ANDs in place without allocating, so there counting
   * first is only an extra pass (measured: bench/bitmap.bench.ts slab-and.*.count-first).
   */
  private andInScratch(terms: PlanTerms, from: number, to: number): number {
    const scratch = this.scratch;
    scratch.clear();
    scratch.addRange(from, to + 1);
    const last = terms.length - 1;
    for (let i = 0; i < last; i++) {
      scratch.andInPlace(terms[i]!.bitmap);
      if (scratch.isEmpty) return 0;
    }
    const bitmap = terms[last]!.bitmap;
    let count: number;
    const left = scratch.size;
    if (left > ARRAY_CONTAINER_MAX) {
      count = scratch.andCardinality(bitmap);
      if (count !== 0 && count !== left) scratch.andInPlace(bitmap);
    } else {
      scratch.andInPlace(bitmap);
      count = scratch.size;
    }
    if (count === 0) {
      scratch.clear();
      return 0;
    }
    this.resultKind = 'scratch';
    return count;
  }

  /** Copies the last evaluation's `count` values into a fresh array the caller owns. */
  private takeResult(count: number): Uint32Array {
    assert(this.resultKind !== 'none', 'a non-empty plan left its values somewhere');
    let values: Uint32Array;
    switch (this.resultKind) {
      case 'scratch':
        values = this.scratch.toUint32Array();
        this.scratch.clear();
        assert(values.length === count, () => `AND counted ${count} values, materialized ${values.length}`);
        break;
      case 'filtered':
        values = this.filtered.slice(0, count);
        break;
      case 'kernel':
        this.bitsets.clearAccumulator();
        this.bitsets.orAnd(this.kernelSlots, this.kernelTerms);
        values = this.bitsets.accumulated().slice();
        assert(values.length === count, () => `kernel counted ${count} values, extracted ${values.length}`);
        break;
      default:
        values = this.arrayPartResult.slice();
        break;
    }
    this.allocations.arrays++;
    return values;
  }
}

/** Checks one plan; `at` is its index in a list of plans, or its field name (the name is built only on failure). */
function checkPlan(terms: PlanTerms, at: number | string): void {
  if (!Array.isArray(terms) || terms.length === 0) {
    const field = typeof at === 'number' ? `plans[${at}]` : at;
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, 'a plan needs at least one term', { field });
  }
}

const EMPTY_PART: ArrayLike<number> = [];
const NO_MEMBERS: ReadonlySet<PlanTerms> = new Set();

/** The sorted union of the first `count` sorted `parts` (`total` values in all): one array, sorted, deduplicated. */
function mergeParts(parts: readonly ArrayLike<number>[], count: number, total: number): Uint32Array {
  if (count === 1) return Uint32Array.from(parts[0]!);
  const out = new Uint32Array(total);
  let at = 0;
  for (let p = 0; p < count; p++) {
    const part = parts[p]!;
    if (part instanceof Uint32Array) out.set(part, at);
    else for (let i = 0; i < part.length; i++) out[at + i] = part[i]!;
    at += part.length;
  }
  out.sort();
  let n = 0;
  for (let i = 0; i < total; i++) if (i === 0 || out[i] !== out[n - 1]) out[n++] = out[i]!;
  return n === total ? out : out.subarray(0, n);
}
