// The span walk: a stage of sparse plans walked in spans of whole slabs, each evaluated natively over its whole range
// (SpanAnd: a few roaring calls per plan per span, where the slab stepper makes them per plan per slab and proves
// bounds in between). Spans are sized from what the walk has found so far, so a consumer that wants one match
// opens one slab and one that wants the whole stage gets it in a few spans; each span is capped so its candidates
// stay bounded (SPAN_MAX_VALUES). The stage's choice between this walk and the slab stepper is spansFit.
// Synchronous; one walk per stage of one matchEvents call.
import type { OrdinalWindow } from '@strata/events';
import { type CountedPlan, SpanAnd, spanBound } from '../bitmap/span-and.js';
import { CandidateWalk } from './candidate-walk.js';
import type { Direction } from './types.js';

/**
 * A span of more than one slab holds at most this many candidates (2^17: 512 KiB as the Uint32Array handed out),
 * proved before it is evaluated (spanBound); a span of one slab is never cut, so it holds at most the slab's ordinals.
 */
export const SPAN_MAX_VALUES = 131_072;

/**
 * A stage is walked by spans when each plan's rarest term holds at most 1/SPARSE_INVERSE of the stage's ordinals: the
 * density of a roaring array container at its fullest (4,096 of 65,536). Denser plans keep the slab stepper, whose
 * bound proofs, count-first ANDs, WebAssembly kernel and group proof are built for bitset and run containers.
 */
const SPARSE_INVERSE = 16;

/** A span is sized for this many times the candidates still wanted, at the rate found so far. */
const SPAN_MARGIN = 1.1;

/**
 * True when the stage's plans (each rarest first, as resolvePlans orders them) are sparse enough for the span walk:
 * every plan's rarest term at most 1/16 of the stage (see SPARSE_INVERSE). Measured on the 700 real pubnet requests
 * of the engine bench (plans of six terms whose rarest, an address, holds about 1 % of the chunk): see README
 * "Performance".
 */
export function spansFit(plans: readonly CountedPlan[], stage: OrdinalWindow): boolean {
  const ordinals = stage.end - stage.start;
  if (plans.length === 0) return false;
  for (let p = 0; p < plans.length; p++) if (plans[p]![0]!.cardinality * SPARSE_INVERSE > ordinals) return false;
  return true;
}

/** Slabs walked and candidates found so far in one matchEvents call (stage 1's rate sizes stage 2's first span). */
export interface SpanRate {
  slabs: number;
  candidates: number;
}

/** Deliberate defect of the span walk (negative controls); see EngineFaults. */
export interface SpanFaults {
  readonly spanDropsEdgeOrdinal?: boolean;
}

/** Observers of the span walk (a subset of MatchTrace). */
export interface SpanTrace {
  onSpan?(lo: number, hi: number, candidates: number): void;
}

/** Options of a span walk: its span cap (a test seam; SPAN_MAX_VALUES), the shared rate, faults and trace. */
export interface SpanWalkOptions {
  readonly maxValues?: number;
  readonly rate?: SpanRate;
  readonly faults?: SpanFaults;
  readonly trace?: SpanTrace | undefined;
}

/**
 * Walks one stage in spans: `plans` are the stage's plans (every term present in the stage's lookup, rarest first)
 * over the half-open window [start, end) of the stage. A span is whole slabs from the cursor (the partial slab the
 * cursor is in counts as one), in walk order. Its width: while nothing has been found, as many slabs as the walk has
 * covered so far (one at first: the walk doubles), else the slabs that should hold SPAN_MARGIN times the candidates
 * still wanted at the rate found so far (at least one); then cut while spanBound says its candidates could exceed the
 * cap (a span of one slab is never cut). Plans with a term absent from the
 * whole stage (cardinality 0 there) are left out: they have no candidate.
 */
export class SpanWalk extends CandidateWalk {
  private readonly start: number;
  private readonly end: number;
  private readonly descending: boolean;
  private readonly slabSize: number;
  private readonly maxValues: number;
  private readonly rate: SpanRate;
  private readonly evaluator: SpanAnd;
  private readonly faults: SpanFaults;
  private readonly trace: SpanTrace | undefined;
  /** Ascending: the inclusive low edge of what is left; descending: its exclusive high edge. */
  private cursor: number;

  constructor(
    plans: readonly CountedPlan[],
    window: OrdinalWindow,
    direction: Direction,
    slabShift: number,
    options: SpanWalkOptions = {},
  ) {
    super(direction === 'desc');
    this.evaluator = new SpanAnd(plans.filter((terms) => terms.every((term) => term.cardinality > 0)));
    this.start = window.start;
    this.end = window.end;
    this.descending = direction === 'desc';
    this.slabSize = 2 ** slabShift;
    this.maxValues = options.maxValues ?? SPAN_MAX_VALUES;
    this.rate = options.rate ?? { slabs: 0, candidates: 0 };
    this.faults = options.faults ?? {};
    this.trace = options.trace;
    this.cursor = this.descending ? window.end : window.start;
    if (this.evaluator.plans.length === 0) this.cursor = this.descending ? window.start : window.end;
  }

  private slabOf(ordinal: number): number {
    return Math.floor(ordinal / this.slabSize);
  }

  /** Slabs (partial ones included) between the cursor and the stage's far edge. */
  private slabsLeft(): number {
    if (this.descending)
      return this.cursor <= this.start ? 0 : this.slabOf(this.cursor - 1) - this.slabOf(this.start) + 1;
    return this.cursor >= this.end ? 0 : this.slabOf(this.end - 1) - this.slabOf(this.cursor) + 1;
  }

  /** The inclusive range of a span of `slabs` slabs from the cursor. */
  private spanOf(slabs: number): { lo: number; hi: number } {
    if (this.descending) {
      const lo = Math.max((this.slabOf(this.cursor - 1) - slabs + 1) * this.slabSize, this.start);
      return { lo, hi: this.cursor - 1 };
    }
    const hi = Math.min((this.slabOf(this.cursor) + slabs) * this.slabSize, this.end) - 1;
    return { lo: this.cursor, hi };
  }

  /** The next span's width in slabs (see the class comment), at most `left`. */
  private widthFor(wanted: number, left: number): number {
    const { slabs, candidates } = this.rate;
    // Nothing found yet: as many slabs as walked so far (1, 1, 2, 4, ...: the walk doubles), else sized by the rate.
    let width = candidates === 0 ? slabs : Math.ceil((SPAN_MARGIN * wanted * slabs) / candidates);
    width = Math.min(Math.max(width, 1), left);
    for (;;) {
      const { lo, hi } = this.spanOf(width);
      const bound = width === 1 ? 0 : spanBound(this.evaluator.plans, lo, hi);
      if (bound <= this.maxValues) return width;
      width = Math.max(1, Math.min(width - 1, Math.floor((width * this.maxValues) / bound)));
    }
  }

  /** Evaluates spans until one holds candidates: its candidates, or undefined when the stage is exhausted. */
  protected override nextBlock(wanted: number): Uint32Array | undefined {
    for (;;) {
      const left = this.slabsLeft();
      if (left === 0) return undefined;
      const slabs = this.widthFor(wanted, left);
      const { lo, hi } = this.spanOf(slabs);
      this.cursor = this.descending ? lo : hi + 1;
      // The fault: the first ordinal of the span in walk order is left out.
      const drop = this.faults.spanDropsEdgeOrdinal === true ? 1 : 0;
      const from = this.descending ? lo : lo + drop;
      const to = this.descending ? hi - drop : hi;
      const values = from <= to ? this.evaluator.evaluate(from, to) : new Uint32Array(0);
      this.rate.slabs += slabs;
      this.rate.candidates += values.length;
      this.trace?.onSpan?.(lo, hi, values.length);
      if (values.length > 0) return values;
    }
  }
}
