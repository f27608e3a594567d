// What the cross-chunk pager reads from (spec §4.7 step 5): the served ledger range and one ChunkReader per chunk,
// resolved lazily. The node implements it over its hot and cold tiers; tests implement it over in-memory readers.
import type { ChunkReader } from '@strata/events';

/** The ledgers a source serves, both inclusive: `oldestLedger` is the retention floor, `latestLedger` the tip. */
export interface LedgerRange {
  readonly oldestLedger: number;
  readonly latestLedger: number;
}

/**
 * The chunks one request pages over.
 *
 * Contract (what the pager relies on):
 * - `ledgerRange()` is called once per request, before any chunk is opened; every bound of the page (the floor,
 *   the tip, which chunks exist) comes from that one answer. It must hold integers with
 *   2 ≤ oldestLedger ≤ latestLedger + 1 ≤ MAX_LEDGER + 1 (latestLedger = oldestLedger - 1: nothing served yet).
 * - `openChunk(chunkId)` is called only for chunks holding a ledger of that range, in walk order, at most once per
 *   chunk per request, and only when the page reaches the chunk (a page that fills in its first chunk opens no
 *   other). The reader's `chunkId` must be `chunkId`, and its `ledgerOffsets()` must cover every ledger of the
 *   range inside the chunk (a chunk without events still has a reader, whose offsets count zero for its ledgers);
 *   offsets may run past `latestLedger` (a hot chunk that grew after the range was read): the page ignores them.
 * - The source owns the readers: the pager never closes one, and keeps none after the request settles. A source
 *   serving concurrent requests may hand the same reader to each (ChunkReader allows concurrent callers).
 * - Anything either method throws or rejects with is reported as MatchError READER_FAILED with it as `cause`
 *   (and `chunkId` for openChunk); an answer outside this contract is STORE_INCONSISTENT.
 */
export interface EventChunkSource {
  ledgerRange(): LedgerRange | Promise<LedgerRange>;
  openChunk(chunkId: number): Promise<ChunkReader>;
}
