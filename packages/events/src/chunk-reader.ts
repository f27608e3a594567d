// The read interface of one chunk's events, implemented by the hot tier (the live chunk) and the cold tier
// (frozen packs) and consumed by the match engine and pager (spec §3.2, §4.3–4.7).
import type roaring from 'roaring';
import type { LedgerOffsets, OrdinalWindow } from './ledger-offsets.js';
import type { TermKey } from './terms.js';

/** A roaring bitmap the caller must treat as read-only (frozen, or a view over shared/mapped memory). */
export type ReadonlyBitmap = roaring.RoaringBitmap32;

/** One fetched event: its chunk-relative ordinal and its stored payload bytes (PAYLOAD_VERSION layout). */
export interface FetchedEvent {
  ordinal: number;
  payload: Uint8Array;
}

/**
 * One chunk's events, addressed by dense chunk-relative ordinals `0..eventCount-1` in event-id order.
 *
 * Concurrency contract:
 * - Any number of callers may use one reader at the same time from the thread that opened it; calls do not
 *   block each other and never observe a torn state. Readers are not transferable between worker threads
 *   (roaring instances cannot be posted); a worker opens its own reader.
 * - Snapshot isolation is the caller's: take `ledgerOffsets()` once per request and derive every window from it.
 *   A hot reader may grow between calls (eventCount and offsets move forward only; published events never
 *   change), so results for a window inside the snapshot are stable. A window with end > eventCount() at call
 *   time is a caller bug and rejects with EventsError INVALID_ARGUMENT.
 * - lookupTerms results must be exact INSIDE the window. Ids outside the window may be present or missing (a hot
 *   index may publish ids before offsets; a cold index may return whole-term bitmaps); callers clip.
 *
 * Lifetime contract:
 * - Returned bitmaps are read-only (mutation throws: frozen) and stay valid until `close()`; a caller that needs
 *   one longer clones it. The engine relies on never mutating them (it ANDs into fresh bitmaps).
 * - Returned payload bytes stay valid and unchanged until `close()`; they may alias a shared buffer or a mapping,
 *   so a caller that keeps or mutates them copies first.
 * - After `close()` resolves, every method rejects; `close()` waits for calls already started.
 *
 * Durability: a reader exposes only events whose ledger is complete in its offsets; nothing about crashes is
 * promised here (the owning store states what survives).
 */
export interface ChunkReader {
  /** The chunk this reader serves (chunkIdOfLedger of its first ledger). */
  readonly chunkId: number;

  /** Events currently readable. Monotone non-decreasing for a hot reader, fixed for a cold one. */
  eventCount(): number;

  /** A snapshot of the per-ledger cumulative counts; its eventCount() ≤ the reader's eventCount(). */
  ledgerOffsets(): LedgerOffsets;

  /**
   * Bitmaps of ordinals holding each term, for one window. Result i answers keys[i]: undefined when the term has
   * no ordinal in the window (absent), else a read-only bitmap exact inside `[window.start, window.end)`.
   */
  lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]>;

  /**
   * Payloads of `ordinals`, which must be strictly ascending, unique and < eventCount(); result i is ordinals[i].
   * Anything else rejects with EventsError INVALID_ARGUMENT.
   */
  fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]>;

  /** Every event of `[window.start, window.end)` in ordinal order. */
  fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]>;

  /** Releases the reader's resources (files, mappings, pooled buffers). Idempotent. */
  close(): Promise<void>;
}
