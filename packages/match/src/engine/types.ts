// The match engine's interface (spec §4.3-4.5): what one chunk's walk takes and yields, and the trace hooks tests
// and benchmarks observe it through.
import type { OrdinalWindow } from '@strata/events';
import type { SlabAndAllocations } from '../bitmap/slab-and.js';

/** Walk order: ascending ordinals (oldest first) or descending (newest first). */
export type Direction = 'asc' | 'desc';

/** One event the engine yields: its chunk-relative ordinal and its stored payload (borrowed from the reader). */
export interface Match {
  readonly ordinal: number;
  readonly payload: Uint8Array;
}

/** Slabs are 2^SLAB_SHIFT ordinals, the span of one roaring container. */
export const SLAB_SHIFT = 16;
/** Stage 1 of the two-stage window: this many slabs from the edge the walk starts at. */
export const STAGE1_SLABS = 8;
/** Fetches after the first hold this many ordinals. */
export const MATCH_BATCH_SIZE = 512;
/**
 * The first fetch holds min(firstBatch, MAX_FIRST_BATCH) ordinals: a caller's room is not trusted with an allocation
 * (a request that raises the limit to millions must not allocate millions up front).
 */
export const MAX_FIRST_BATCH = 10_000;

/**
 * Observers of one walk, called synchronously as the engine works; for tests, benchmarks and logs. A hook must not
 * throw (an error thrown by a hook ends the walk with that error).
 */
export interface MatchTrace {
  /** One batched term lookup: the stage's window (half-open) and how many terms it asked for. */
  onLookup?(window: OrdinalWindow, terms: number): void;
  /**
   * A slab evaluated: its inclusive ordinal range [lo, hi] (ascending, lo is the nearest plan bound and may be past
   * the slab base; descending, hi is), the candidates it gave, and the objects the slab evaluator has allocated in
   * this stage so far (SlabAndAllocations: an empty slab adds none).
   */
  onSlab?(lo: number, hi: number, candidates: number, allocations: Readonly<SlabAndAllocations>): void;
  /**
   * A group proof (many dense plans tested on a slab at once, by distributivity): the slab's inclusive range, how
   * many plans the group holds, and whether it proved them all empty there (false: they were evaluated one by one).
   */
  onGroupProof?(lo: number, hi: number, plans: number, empty: boolean): void;
  /**
   * A span evaluated by the span walk (a stage of sparse plans, evaluated natively over many slabs at once): its
   * inclusive ordinal range [lo, hi] (whole slabs from the walk's cursor, clipped to the stage) and the candidates it
   * gave. A stage reports either onSpan or onSlab, never both.
   */
  onSpan?(lo: number, hi: number, candidates: number): void;
  /** One fetchEvents call, with the ordinals (ascending) it asked for. */
  onFetch?(ordinals: Uint32Array): void;
  /** One fetchRange call (match-all), with its window. */
  onFetchRange?(window: OrdinalWindow): void;
}

/** Options of one walk over one chunk. */
export interface MatchOptions {
  readonly direction: Direction;
  /**
   * The first fetch's size: the consumer's remaining room plus one look-ahead (room + 1), so a page that fills
   * needs one right-sized fetch. Capped at MAX_FIRST_BATCH; later fetches hold `batchSize`.
   */
  readonly firstBatch: number;
  /** log2 of the slab width; default SLAB_SHIFT. Tests shrink it (10) to get many slabs from small corpora. */
  readonly slabShift?: number;
  /** Slabs in stage 1; default STAGE1_SLABS. A test seam: it changes I/O counts, never the stream. */
  readonly stage1Slabs?: number;
  /** Fetch size after the first; default MATCH_BATCH_SIZE. A test seam like stage1Slabs. */
  readonly batchSize?: number;
  readonly trace?: MatchTrace;
}
