// The match engine over one chunk (spec §4.3-4.5; upstream stores/event/match.go Matches and streamSlabs, PR #968): a
// window of ordinals, a plan and the exact post-filter in; the matching events out, in walk order, lazily. Index
// plans walk the window in two stages (the first STAGE1_SLABS slabs from the starting edge, then the rest only if the
// consumer still pulls), one batched term lookup per stage, each stage by spans when its plans are sparse (SpanWalk)
// and slab by slab otherwise (SlabStepper); match-all streams the window with fetchRange and no index work. Fetches are sized to the consumer: the first to its room plus one look-ahead
// (capped), later ones MATCH_BATCH_SIZE; ordinals go to the reader ascending and come back in walk order.
import { describeValue } from '@strata/base';
import type { ChunkReader, FetchedEvent, OrdinalWindow, PostFilter, ReadonlyBitmap } from '@strata/events';
import roaring from 'roaring';
import { type PlanTerms, rarestFirst } from '../bitmap/slab-and.js';
import type { CountedPlan, CountedTerm } from '../bitmap/span-and.js';
import { WindowTerm } from '../bitmap/window-term.js';
import { MatchError, MatchErrorCode } from '../errors.js';
import { checkPlanShape, type IndexPlan, type QueryPlan } from '../planner/query-plan.js';
import { readerCall, storeInconsistent } from '../reader-calls.js';
import type { CandidateWalk } from './candidate-walk.js';
import { SlabStepper } from './slab-stepper.js';
import { type SpanRate, SpanWalk, spansFit } from './span-walk.js';
import {
  MATCH_BATCH_SIZE,
  MAX_FIRST_BATCH,
  type Match,
  type MatchOptions,
  type MatchTrace,
  SLAB_SHIFT,
  STAGE1_SLABS,
} from './types.js';

const { RoaringBitmap32 } = roaring;

/** Slab widths accepted: 2^4 (tests of many slabs on tiny corpora) to 2^16 (one roaring container). */
const MIN_SLAB_SHIFT = 4;
/** Largest fetch size after the first a caller may ask for. */
const MAX_BATCH_SIZE = 65_536;

/** Deliberate defects for the test suite's negative controls (not exported from the package). */
export interface EngineFaults {
  /** When the stepper jumps to the slab holding the next provable candidate, it lands one slab further on. */
  readonly skipOneSlabTooFar?: boolean;
  /**
   * Candidates are the window's whole candidate set (each plan's AND over the whole stage, ORed), fetched in one
   * batch without the slab walk: the post-filter still hides the extra work, the fetch tracer must not.
   */
  readonly fetchWholeCandidateSet?: boolean;
  /** The group proof leaves its last plan out of the OR it tests, yet still counts that plan as proved empty. */
  readonly groupProofDropsPlan?: boolean;
  /** The span walk leaves the first ordinal of every span (in walk order) out of the span it evaluates. */
  readonly spanDropsEdgeOrdinal?: boolean;
}

/**
 * Which walk a stage takes: `auto` (matchEvents) chooses per stage with spansFit; `slabs` and `spans` force one, so the
 * tests pin each walk on its own. `spanMaxValues` replaces SPAN_MAX_VALUES, so small corpora reach the cap. Test seams,
 * not exported from the package.
 */
export interface WalkSeams {
  readonly stageWalk?: 'auto' | 'slabs' | 'spans';
  readonly spanMaxValues?: number;
}

/** Checked options with defaults filled in. */
interface Walk {
  readonly reader: ChunkReader;
  readonly postFilter: PostFilter;
  readonly descending: boolean;
  readonly firstBatch: number;
  readonly batchSize: number;
  readonly slabShift: number;
  readonly stage1Slabs: number;
  readonly trace: MatchTrace | undefined;
  readonly faults: EngineFaults;
  readonly seams: WalkSeams;
  /** What the span walk has found so far in this call: stage 1's rate sizes stage 2's first span. */
  readonly spanRate: SpanRate;
}

function invalid(field: string, detail: string): never {
  throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, detail, { field });
}

function checkInteger(value: unknown, min: number, max: number, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(field, `expected an integer in [${min}, ${max}], got ${describeValue(value)}`);
  }
  return value;
}

function checkReader(reader: ChunkReader): void {
  if (typeof reader !== 'object' || reader === null)
    invalid('reader', `expected a ChunkReader, got ${describeValue(reader)}`);
  for (const method of ['eventCount', 'lookupTerms', 'fetchEvents', 'fetchRange'] as const) {
    if (typeof reader[method] !== 'function') invalid('reader', `a ChunkReader needs a ${method} method`);
  }
}

/** Validates every argument before any work, so a bad call fails at the first pull with INVALID_ARGUMENT. */
function checkWalk(
  reader: ChunkReader,
  plan: QueryPlan,
  postFilter: PostFilter,
  window: OrdinalWindow,
  options: MatchOptions,
  faults: EngineFaults,
  seams: WalkSeams,
): Walk {
  checkReader(reader);
  checkPlanShape(plan);
  if (typeof postFilter !== 'function') invalid('postFilter', `expected a function, got ${describeValue(postFilter)}`);
  if (typeof window !== 'object' || window === null)
    invalid('window', `expected { start, end }, got ${describeValue(window)}`);
  const start = checkInteger(window.start, 0, 0xffff_ffff, 'window.start');
  const end = checkInteger(window.end, 0, 0x1_0000_0000, 'window.end');
  if (end < start) invalid('window', `end ${end} is below start ${start}`);
  if (typeof options !== 'object' || options === null)
    invalid('options', `expected an object, got ${describeValue(options)}`);
  if (options.direction !== 'asc' && options.direction !== 'desc') {
    invalid('options.direction', `expected 'asc' or 'desc', got ${describeValue(options.direction)}`);
  }
  const firstBatch = checkInteger(options.firstBatch, 1, Number.MAX_SAFE_INTEGER, 'options.firstBatch');
  const trace = options.trace;
  if (trace !== undefined && (typeof trace !== 'object' || trace === null)) {
    invalid('options.trace', `expected an object, got ${describeValue(trace)}`);
  }
  return {
    reader,
    postFilter,
    descending: options.direction === 'desc',
    firstBatch: Math.min(firstBatch, MAX_FIRST_BATCH),
    batchSize: checkInteger(options.batchSize ?? MATCH_BATCH_SIZE, 1, MAX_BATCH_SIZE, 'options.batchSize'),
    slabShift: checkInteger(options.slabShift ?? SLAB_SHIFT, MIN_SLAB_SHIFT, SLAB_SHIFT, 'options.slabShift'),
    stage1Slabs: checkInteger(options.stage1Slabs ?? STAGE1_SLABS, 1, 2 ** 16, 'options.stage1Slabs'),
    trace,
    faults,
    seams,
    spanRate: { slabs: 0, candidates: 0 },
  };
}

/**
 * The events of `window` (half-open, inside the reader's eventCount) matching `plan` and `postFilter`, in
 * `options.direction` order, read from `reader`. `plan` comes from planQuery(filters) and `postFilter` from
 * @strata/events compilePostFilter(filters) for the same filters: plans only pick candidates, the post-filter decides.
 *
 * Lazy: nothing is looked up or fetched before the first pull, stage 2 is looked up only if the consumer pulls past
 * stage 1, and a consumer that stops pulling (`return()`, `break`) ends the walk. Memory is bounded by one slab's
 * candidates (a stage walked by spans: one span's, at most SPAN_MAX_VALUES or one slab's) and one fetch batch,
 * whatever the window or `firstBatch`.
 *
 * Payloads are the reader's (borrowed: they may alias shared buffers, valid until the reader closes); a consumer that
 * keeps one copies it. Bad arguments reject with MatchError INVALID_ARGUMENT (or INVALID_ARGUMENT from checkPlanShape);
 * a reader call that fails rejects with READER_FAILED (`cause` = the reader's error, `chunkId`); a reader that answers
 * outside its contract (wrong result lengths) with STORE_INCONSISTENT.
 */
export function matchEvents(
  reader: ChunkReader,
  plan: QueryPlan,
  postFilter: PostFilter,
  window: OrdinalWindow,
  options: MatchOptions,
): AsyncGenerator<Match, void, undefined> {
  return matchEventsWith(reader, plan, postFilter, window, options, {});
}

/** matchEvents with deliberate defects (the seam negative controls use) and a forced stage walk (WalkSeams). */
export async function* matchEventsWith(
  reader: ChunkReader,
  plan: QueryPlan,
  postFilter: PostFilter,
  window: OrdinalWindow,
  options: MatchOptions,
  faults: EngineFaults,
  seams: WalkSeams = {},
): AsyncGenerator<Match, void, undefined> {
  const walk = checkWalk(reader, plan, postFilter, window, options, faults, seams);
  const count = await readerCall('eventCount', reader.chunkId, async () => reader.eventCount());
  if (window.end > count) invalid('window', `end ${window.end} is past the reader's ${count} events`);
  if (window.start === window.end) return;
  // One generator, no delegation: yield* across async generators costs a promise per level per match (measured: 19 %
  // of a 1,000-event page through three levels).
  if (plan.kind === 'match-all') {
    let size = walk.firstBatch;
    let low = window.start;
    let high = window.end;
    while (low < high) {
      const block = walk.descending
        ? { start: Math.max(high - size, low), end: high }
        : { start: low, end: Math.min(low + size, high) };
      const events = await fetchBlock(walk, block);
      if (walk.descending) high = block.start;
      else low = block.end;
      const n = events.length;
      for (let k = 0; k < n; k++) {
        const event = events[walk.descending ? n - 1 - k : k]!;
        if (postFilter(event.payload)) yield { ordinal: event.ordinal, payload: event.payload };
      }
      size = walk.batchSize;
    }
    return;
  }
  let yielded = 0;
  for (const stage of stagesOf(walk, window)) {
    const candidates = await openStage(walk, plan, stage);
    if (candidates === undefined) continue;
    // The first fetch of a stage carries what is left of the consumer's hint (spec §4.5).
    const hint = walk.firstBatch - yielded;
    let size = hint > 0 ? hint : walk.batchSize;
    for (;;) {
      const batch = candidates(size);
      if (batch.length === 0) break;
      const { ordinals, payloads } = await fetchBatch(walk, batch);
      const n = ordinals.length;
      for (let k = 0; k < n; k++) {
        const i = walk.descending ? n - 1 - k : k;
        const payload = payloads[i]!;
        if (postFilter(payload)) {
          yielded++;
          yield { ordinal: ordinals[i]!, payload };
        }
      }
      if (batch.length < size) break;
      size = walk.batchSize;
    }
  }
}

/**
 * The two stages of a window (spec §4.3): stage 1 is the first `stage1Slabs` slabs counted from the edge the walk
 * starts at (plus the partial slab the window starts in), stage 2 the rest; the seam falls on a slab boundary.
 */
function* stagesOf(walk: Walk, window: OrdinalWindow): Generator<OrdinalWindow> {
  const span = walk.stage1Slabs * 2 ** walk.slabShift;
  const slab = 2 ** walk.slabShift;
  if (walk.descending) {
    const seam = Math.max(Math.floor(window.end / slab) * slab - span, window.start);
    yield { start: seam, end: window.end };
    if (seam > window.start) yield { start: window.start, end: seam };
  } else {
    const seam = Math.min(Math.ceil(window.start / slab) * slab + span, window.end);
    yield { start: window.start, end: seam };
    if (seam < window.end) yield { start: seam, end: window.end };
  }
}

/**
 * Where a stage's candidates come from, in walk order: each call hands out up to `size` more (fewer: the stage is
 * exhausted; none: it was already).
 */
type CandidateBatches = (size: number) => Uint32Array;

/**
 * One stage: one batched lookup and the surviving plans' terms; undefined when no plan survives (no more I/O). The
 * stage is walked by spans when its plans are sparse (spansFit), else slab by slab.
 */
async function openStage(walk: Walk, plan: IndexPlan, stage: OrdinalWindow): Promise<CandidateBatches | undefined> {
  const { reader, trace } = walk;
  trace?.onLookup?.(stage, plan.terms.length);
  const bitmaps = await readerCall('lookupTerms', reader.chunkId, () => reader.lookupTerms(plan.terms, stage));
  if (!Array.isArray(bitmaps) || bitmaps.length !== plan.terms.length) {
    storeInconsistent(`lookupTerms answered ${describeValue(bitmaps)} for ${plan.terms.length} terms`, reader.chunkId);
  }
  const plans = resolvePlans(reader, plan, bitmaps, stage);
  if (plans.length === 0) return undefined;
  if (walk.faults.fetchWholeCandidateSet === true) {
    let whole: Uint32Array | undefined = wholeCandidateSet(plans, stage, walk.descending);
    return () => {
      const batch = whole ?? new Uint32Array(0);
      whole = undefined;
      return batch;
    };
  }
  const direction = walk.descending ? 'desc' : 'asc';
  const { stageWalk = 'auto' } = walk.seams;
  let candidates: CandidateWalk;
  if (stageWalk === 'spans' || (stageWalk === 'auto' && spansFit(plans, stage))) {
    candidates = new SpanWalk(plans, stage, direction, walk.slabShift, {
      rate: walk.spanRate,
      faults: walk.faults,
      trace,
      ...(walk.seams.spanMaxValues === undefined ? {} : { maxValues: walk.seams.spanMaxValues }),
    });
  } else {
    candidates = new SlabStepper(windowTerms(plans, stage), stage, direction, walk.slabShift, walk.faults, trace);
  }
  return (size) => {
    const batch = new Uint32Array(size);
    const taken = candidates.take(batch, size);
    return taken === size ? batch : batch.subarray(0, taken);
  };
}

/**
 * Upstream resolvePlans: a plan naming a term absent from the lookup is dropped (its conjunction is empty); a
 * present term gets its cardinality inside the stage, counted once per distinct term (the rarity both walks order a
 * plan's terms by, rarest first).
 */
function resolvePlans(
  reader: ChunkReader,
  plan: IndexPlan,
  bitmaps: readonly (ReadonlyBitmap | undefined)[],
  stage: OrdinalWindow,
): CountedTerm[][] {
  const terms = new Map<number, CountedTerm>();
  const resolved: CountedTerm[][] = [];
  for (const slots of plan.plans) {
    if (slots.some((slot) => bitmaps[slot] === undefined)) continue;
    const planTerms = slots.map((slot) => {
      let term = terms.get(slot);
      if (term === undefined) {
        const bitmap = bitmaps[slot];
        if (!(bitmap instanceof RoaringBitmap32)) {
          storeInconsistent(`lookupTerms answered ${describeValue(bitmap)} for term ${slot}`, reader.chunkId);
        }
        term = { bitmap, cardinality: bitmap.rangeCardinality(stage.start, stage.end) };
        terms.set(slot, term);
      }
      return term;
    });
    resolved.push(rarestFirst(planTerms));
  }
  return resolved;
}

/**
 * The slab stepper's terms: one WindowTerm over the stage per distinct term, each plan's order kept. The plans'
 * arrays are resolvePlans' own, so each term is replaced in place (a WindowTerm is a CountedTerm too) and no array per
 * plan is made again.
 */
function windowTerms(plans: CountedTerm[][], stage: OrdinalWindow): PlanTerms[] {
  const windowed = new Map<CountedTerm, WindowTerm>();
  for (const terms of plans) {
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      let windowTerm = windowed.get(term);
      if (windowTerm === undefined) {
        windowTerm = new WindowTerm(term.bitmap, stage.start, stage.end - 1, { cardinality: term.cardinality });
        windowed.set(term, windowTerm);
      }
      terms[i] = windowTerm;
    }
  }
  // Every element is now a WindowTerm.
  return plans as WindowTerm[][];
}

/** The fetchWholeCandidateSet fault: every plan's AND over the whole stage, ORed, in walk order. */
function wholeCandidateSet(plans: readonly CountedPlan[], stage: OrdinalWindow, descending: boolean): Uint32Array {
  const union = new RoaringBitmap32();
  for (const terms of plans) {
    const and = RoaringBitmap32.fromRange(stage.start, stage.end);
    for (const term of terms) and.andInPlace(term.bitmap);
    union.orInPlace(and);
  }
  const values = union.toUint32Array();
  return descending ? values.reverse() : values;
}

/**
 * Fetches `candidates` (in walk order) from the reader, which gets them ascending as fetchEvents requires: returns the
 * ascending ordinals and their payloads (the caller walks them backward when descending).
 */
async function fetchBatch(
  walk: Walk,
  candidates: Uint32Array,
): Promise<{ ordinals: Uint32Array; payloads: Uint8Array[] }> {
  const { reader, trace } = walk;
  const ordinals = walk.descending ? candidates.slice().reverse() : candidates;
  trace?.onFetch?.(ordinals);
  const payloads = await readerCall('fetchEvents', reader.chunkId, () => reader.fetchEvents(ordinals));
  if (!Array.isArray(payloads) || payloads.length !== ordinals.length) {
    storeInconsistent(
      `fetchEvents answered ${describeValue(payloads)} for ${ordinals.length} ordinals`,
      reader.chunkId,
    );
  }
  return { ordinals, payloads };
}

/**
 * One block of a match-all walk (spec §4.3: the window streamed with fetchRange, no index work, in blocks sized like
 * fetches so memory stays bounded by a block; descending walks the blocks top-down and yields each reversed).
 */
async function fetchBlock(walk: Walk, block: OrdinalWindow): Promise<FetchedEvent[]> {
  const { reader, trace } = walk;
  trace?.onFetchRange?.(block);
  const events = await readerCall('fetchRange', reader.chunkId, () => reader.fetchRange(block));
  if (!Array.isArray(events) || events.length !== block.end - block.start) {
    storeInconsistent(
      `fetchRange answered ${describeValue(events)} for [${block.start}, ${block.end})`,
      reader.chunkId,
    );
  }
  return events;
}
