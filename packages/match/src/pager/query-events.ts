// The cross-chunk pager (spec §4.7; upstream query/event_page.go QueryEvents): one page of a query over the chunks
// its window spans, each chunk's reader opened only when the page reaches it, the scan capped at 10,000 ledgers from
// the leading edge, resumed from a v2 position (verified) or a v1 start, and ending with the next cursor and a scan
// status. It returns data; the node's RPC layer formats the response and encodes the cursor.
import { assert, CopyBlocks } from '@strata/base';
import {
  type ChunkReader,
  type CursorPosition,
  chunkFirstLedger,
  chunkIdOfLedger,
  chunkLastLedger,
  type EventCursorV2,
  type LedgerOffsets,
  OP_MASK,
  type OrdinalWindow,
  TX_MASK,
  V2_MAX_SCAN_LEDGERS,
} from '@strata/events';
import { matchEvents } from '../engine/match-events.js';
import type { Direction, Match } from '../engine/types.js';
import { MatchError, MatchErrorCode } from '../errors.js';
import { engineFailure, readerCall, storeInconsistent } from '../reader-calls.js';
import type { EventChunkSource, LedgerRange } from './event-source.js';
import {
  type CheckedScope,
  checkLimit,
  checkResume,
  checkScope,
  type PagePosition,
  type QueryScope,
  type Resume,
  type V2Resume,
} from './page-request.js';
import { clipPastPosition, clipToV1Start } from './re-entry.js';
import { checkReader, checkSource, offsetsCovering, servedRange, viewOf } from './reader-calls.js';

/** Ledgers one page scans at most, counted from its leading edge (maxScanLedgers; V2_MAX_SCAN_LEDGERS). */
export const MAX_SCAN_LEDGERS = V2_MAX_SCAN_LEDGERS;

/** How far a page's scan got (the v2 `scanStatus` strings). */
export const ScanStatus = {
  /** More of the scope remains now: the page filled, or its scan hit the 10,000-ledger cap. Never terminal. */
  HAS_MORE: 'HAS_MORE',
  /** Ascending, caught up with the tip before the scope's end (open-ended scopes never get further). */
  WAITING_FOR_LEDGERS: 'WAITING_FOR_LEDGERS',
  /** Descending, reached the oldest served ledger above the scope's minLedger; re-sending the cursor repeats it. */
  OLDEST_REACHED: 'OLDEST_REACHED',
  /** The whole scope is covered; the page has no cursor. */
  COMPLETE: 'COMPLETE',
} as const;
export type ScanStatus = (typeof ScanStatus)[keyof typeof ScanStatus];

/**
 * One delivered event: its id coordinates (from the payload header), its index among its ledger's stored events
 * (what a v2 position records), and its payload bytes, copied out of the reader (a reader's bytes may alias shared
 * buffers), so the page stays valid after the readers close. A page's payloads are views into a few blocks the page
 * owns (@strata/base CopyBlocks: 16 KiB doubling up to 256 KiB): do not mutate them, and copy one that must outlive
 * the rest of the page.
 */
export interface PageEvent extends CursorPosition {
  readonly payload: Uint8Array;
}

/**
 * One page.
 * - `events`: at most `limit`, in walk order.
 * - `scanStatus`: see ScanStatus.
 * - `scannedLedger`: the last ledger fully covered in walk order, as the v2 response reports it: before any
 *   coverage, minLedger - 1 ascending or maxLedger + 1 descending.
 * - `cursor`: the next request's envelope (encodeCursorV2 makes the token), absent when COMPLETE. Its
 *   `scannedLedger` is the same watermark with 0 for none; its `position` is the last event, kept only when the
 *   page stopped inside that event's ledger.
 * - `oldestLedger`, `latestLedger`: the served range the page was computed against (read once), for the response.
 */
export interface EventPage {
  readonly events: readonly PageEvent[];
  readonly scanStatus: ScanStatus;
  readonly scannedLedger: number;
  readonly cursor?: EventCursorV2;
  readonly oldestLedger: number;
  readonly latestLedger: number;
}

/** The engine the pager runs per chunk: matchEvents' signature (a seam for tests). */
export type MatchEngine = typeof matchEvents;

/** Deliberate defects for the property test's negative controls (not exported from the package). */
export interface PagerFaults {
  /** Scan the whole remaining scope in one page, ignoring the 10,000-ledger cap. */
  readonly ignoreScanCap?: boolean;
  /** Report a page with fewer than `limit` events as COMPLETE (as if short meant exhausted). */
  readonly shortPageIsTerminal?: boolean;
}

/** What queryEventsWith runs with instead of the real engine and rules. */
export interface PagerSeams {
  readonly engine: MatchEngine;
  readonly faults?: PagerFaults;
}

/**
 * One page of `scope` from `position` (spec §4.7), at most `limit` events.
 *
 * Steps: (1) the limit (1..MAX_PAGE_LIMIT), the scope and the resume point are checked before any call to `source`;
 * (2) the page resumes at the position's ledger (re-entry), else just past the watermark, else at the scope's first
 * ledger in walk order; (3) against the served range, read once: an ascending resume past the tip, a descending
 * scope wholly past it, or a re-entry ledger past it, is WAITING_FOR_LEDGERS, and a descending resume below the
 * floor OLDEST_REACHED, both empty with the cursor unchanged; an ascending resume below the floor is
 * LEDGER_OUT_OF_RANGE (`missingLedger`); a descending resume above the tip (without re-entry) starts at the tip, as
 * upstream's ClampRange does; (4) the scan covers at most
 * MAX_SCAN_LEDGERS ledgers from the leading edge; (5) the chunks it spans are walked in order, each reader opened
 * when the page reaches it, and (6) per chunk: one `ledgerOffsets()` snapshot, the ordinal window of the chunk's
 * ledgers (windowForLedgers), on re-entry the position's event fetched and verified (CURSOR_MALFORMED on mismatch)
 * and the window clipped past it, then the engine with `firstBatch` room + 1, pulled for at most room + 1 matches
 * and then closed (`return()`); (7) the status and cursor follow from where the scan stopped.
 *
 * Where the spec is silent:
 * - A page that fills exactly at the end of a chunk stops there: its coverage is the chunk's far ledger and the next
 *   chunk waits for the next page (the look-ahead match is looked for only inside the chunk, spec step 6.5), so a
 *   page that fills in its first chunk opens no other.
 * - An ascending scope with a max beyond the tip reports WAITING_FOR_LEDGERS when its scan stops at the tip, like
 *   an open one; COMPLETE needs the max covered.
 * - A watermark before the scope's first ledger is stored as 0 (none), so position and watermark always pair.
 * - A v1 resume point's unchanged state (WAITING_FOR_LEDGERS) is the watermark before its ledger, without position.
 *
 * Errors (MatchError): INVALID_SCOPE (limit, bounds, direction, filters: planQuery's refusal as `cause`),
 * INVALID_ARGUMENT (a position that is not a V2Resume/V1Resume of u32s), CURSOR_MALFORMED (bookmarks outside the
 * scope, unpaired position and watermark, a ledger ordinal past its ledger's events, a re-entry event with other
 * coordinates), LEDGER_OUT_OF_RANGE, READER_FAILED (`cause`, `chunkId` when a chunk's: any error a source or reader
 * call throws; the engine's own MatchErrors pass through), STORE_INCONSISTENT (`chunkId`: offsets that do not cover
 * the page's ledgers, a reader of another chunk, a payload whose ledger is not its ordinal's).
 *
 * Memory is bounded by the page: at most room + 1 matches are pulled per chunk and only `limit` events kept.
 */
export function queryEvents(
  source: EventChunkSource,
  scope: QueryScope,
  position: PagePosition,
  limit: number,
): Promise<EventPage> {
  return queryEventsWith({ engine: matchEvents }, source, scope, position, limit);
}

/** queryEvents with another engine or deliberate defects: the seam tests use (not exported from the package). */
export async function queryEventsWith(
  seams: PagerSeams,
  source: EventChunkSource,
  scope: QueryScope,
  position: PagePosition,
  limit: number,
): Promise<EventPage> {
  checkLimit(limit);
  const checked = checkScope(scope);
  const resume = checkResume(checked, position);
  checkSource(source);
  const range = await servedRange(source);
  return pageOf(seams, source, checked, resume, limit, range);
}

/** Spec §4.7 steps 2-7 for a checked request. */
async function pageOf(
  seams: PagerSeams,
  source: EventChunkSource,
  scope: CheckedScope,
  resume: Resume,
  limit: number,
  range: LedgerRange,
): Promise<EventPage> {
  const { oldestLedger: floor, latestLedger: latest } = range;
  const capped = seams.faults?.ignoreScanCap !== true;
  const unchanged = (status: ScanStatus): EventPage => pageResult(scope, range, [], status, resume.state);
  let lo: number;
  let hi: number;
  if (!scope.descending) {
    if (scope.maxLedger !== undefined && resume.ledger > scope.maxLedger) return unchanged(ScanStatus.COMPLETE);
    if (resume.ledger > latest) return unchanged(ScanStatus.WAITING_FOR_LEDGERS);
    if (resume.ledger < floor) {
      throw new MatchError(
        MatchErrorCode.LEDGER_OUT_OF_RANGE,
        `the page starts at ledger ${resume.ledger}, below the oldest served ledger ${floor}`,
        { missingLedger: resume.ledger },
      );
    }
    lo = resume.ledger;
    hi = Math.min(scope.maxLedger ?? latest, latest, capped ? lo + MAX_SCAN_LEDGERS - 1 : latest);
  } else {
    if (resume.ledger < scope.minLedger) return unchanged(ScanStatus.COMPLETE);
    // Nothing of the scope exists yet, or the re-entry event is in a ledger this view does not have yet.
    if (scope.minLedger > latest || (resume.reEntry !== undefined && resume.ledger > latest)) {
      return unchanged(ScanStatus.WAITING_FOR_LEDGERS);
    }
    hi = Math.min(resume.ledger, latest);
    if (hi < floor) return unchanged(ScanStatus.OLDEST_REACHED);
    lo = Math.max(scope.minLedger, floor, capped ? hi - MAX_SCAN_LEDGERS + 1 : floor);
  }

  const walk = await walkChunks(seams.engine, source, scope, resume, lo, hi, limit);
  const { events, nextUnserved } = walk;
  let status: ScanStatus;
  let watermark: number;
  if (nextUnserved !== undefined) {
    status = ScanStatus.HAS_MORE;
    watermark = scope.descending ? nextUnserved + 1 : nextUnserved - 1;
  } else {
    assert(walk.covered !== undefined, 'a page that found no look-ahead covered its chunks');
    watermark = walk.covered;
    status = statusAt(scope, range, watermark);
  }
  if (seams.faults?.shortPageIsTerminal === true && events.length < limit) status = ScanStatus.COMPLETE;
  // Stored as 0 when before the scope's first ledger, so a kept position pairs with it (position at the anchor).
  const mark = scope.descending
    ? watermark > scope.maxLedger!
      ? 0
      : watermark
    : watermark < scope.minLedger
      ? 0
      : watermark;
  const last = events.at(-1);
  // The position survives only while the watermark has not passed it: the page stopped inside its ledger.
  const state: V2Resume =
    last !== undefined && last.ledger === nextUnserved
      ? { position: positionOf(last), scannedLedger: mark }
      : { scannedLedger: mark };
  return pageResult(scope, range, events, status, state);
}

/** The status of a page whose scan covered through `covered` without a look-ahead match. */
function statusAt(scope: CheckedScope, range: LedgerRange, covered: number): ScanStatus {
  if (scope.descending) {
    if (covered <= scope.minLedger) return ScanStatus.COMPLETE;
    if (covered <= range.oldestLedger) return ScanStatus.OLDEST_REACHED;
    return ScanStatus.HAS_MORE;
  }
  if (scope.maxLedger !== undefined && covered >= scope.maxLedger) return ScanStatus.COMPLETE;
  if (covered >= range.latestLedger) return ScanStatus.WAITING_FOR_LEDGERS;
  return ScanStatus.HAS_MORE;
}

function positionOf(event: PageEvent): CursorPosition {
  return { ledger: event.ledger, tx: event.tx, op: event.op, event: event.event, ledgerOrdinal: event.ledgerOrdinal };
}

function pageResult(
  scope: CheckedScope,
  range: LedgerRange,
  events: PageEvent[],
  status: ScanStatus,
  state: V2Resume,
): EventPage {
  const scannedLedger =
    state.scannedLedger !== 0 ? state.scannedLedger : scope.descending ? scope.maxLedger! + 1 : scope.minLedger - 1;
  const page: EventPage = {
    events,
    scanStatus: status,
    scannedLedger,
    oldestLedger: range.oldestLedger,
    latestLedger: range.latestLedger,
  };
  if (status === ScanStatus.COMPLETE) return page;
  const cursor: EventCursorV2 = {
    minLedger: scope.minLedger,
    descending: scope.descending,
    filters: scope.filters,
    scannedLedger: state.scannedLedger,
  };
  if (scope.maxLedger !== undefined) cursor.maxLedger = scope.maxLedger;
  if (state.position !== undefined) cursor.position = state.position;
  return { ...page, cursor };
}

interface Walked {
  readonly events: PageEvent[];
  /** The ledger of the first match past a full page (the look-ahead), when the page stopped at one. */
  readonly nextUnserved: number | undefined;
  /** The far ledger (in walk order) of the last chunk walked to its end. */
  readonly covered: number | undefined;
}

/** Steps 5-6: the chunks of [lo, hi] in walk order, until the page is full or the range is walked. */
async function walkChunks(
  engine: MatchEngine,
  source: EventChunkSource,
  scope: CheckedScope,
  resume: Resume,
  lo: number,
  hi: number,
  limit: number,
): Promise<Walked> {
  const { descending } = scope;
  const events: PageEvent[] = [];
  const copies = new CopyBlocks();
  let covered: number | undefined;
  const firstChunk = chunkIdOfLedger(descending ? hi : lo);
  const lastChunk = chunkIdOfLedger(descending ? lo : hi);
  for (let chunkId = firstChunk; ; chunkId += descending ? -1 : 1) {
    // Full at a chunk's end: later chunks wait for the next page.
    if (events.length === limit) break;
    const from = Math.max(lo, chunkFirstLedger(chunkId));
    const to = Math.min(hi, chunkLastLedger(chunkId));
    const id = chunkId;
    const reader = checkReader(await readerCall('openChunk', id, () => source.openChunk(id)), id);
    const offsets = await offsetsCovering(reader, from, to);
    let window = offsets.windowForLedgers(from, to);
    const reEntry = chunkId === firstChunk ? resume.reEntry : undefined;
    if (reEntry?.kind === 'v2') window = await clipPastPosition(reader, offsets, window, reEntry.position, descending);
    else if (reEntry?.kind === 'v1') window = await clipToV1Start(reader, offsets, window, reEntry.from);
    const nextUnserved = await collect(engine, reader, offsets, scope, window, limit, events, copies);
    if (nextUnserved !== undefined) return { events, nextUnserved, covered };
    covered = descending ? from : to;
    if (chunkId === lastChunk) break;
  }
  return { events, nextUnserved: undefined, covered };
}

/**
 * Runs the engine over one chunk's window, appending up to the page's room to `events`; returns the ledger of the
 * look-ahead match (one past the room) if there is one. The generator is closed as soon as it has given room + 1.
 */
async function collect(
  engine: MatchEngine,
  reader: ChunkReader,
  offsets: LedgerOffsets,
  scope: CheckedScope,
  window: OrdinalWindow,
  limit: number,
  events: PageEvent[],
  copies: CopyBlocks,
): Promise<number | undefined> {
  const room = limit - events.length;
  assert(room >= 1, 'a chunk is walked only while the page has room');
  const direction: Direction = scope.descending ? 'desc' : 'asc';
  const { chunkId } = reader;
  let previous = -1;
  try {
    const matches = engine(reader, scope.plan, scope.postFilter, window, { direction, firstBatch: room + 1 });
    let taken = 0;
    for await (const match of matches) {
      const { ordinal } = match;
      assert(
        ordinal >= window.start &&
          ordinal < window.end &&
          (previous < 0 || (scope.descending ? ordinal < previous : ordinal > previous)),
        () => `engine yielded ordinal ${ordinal} after ${previous} for window [${window.start}, ${window.end})`,
      );
      previous = ordinal;
      if (taken === room) return offsets.ledgerOfOrdinal(ordinal); // leaving the loop closes the generator
      events.push(pageEvent(chunkId, offsets, match, copies));
      taken++;
    }
  } catch (error) {
    throw engineFailure(chunkId, error);
  }
  return undefined;
}

/** A delivered event: coordinates from its payload, checked against the ordinal's ledger; payload copied. */
function pageEvent(chunkId: number, offsets: LedgerOffsets, match: Match, copies: CopyBlocks): PageEvent {
  const view = viewOf(match.payload, match.ordinal, chunkId);
  const ledger = offsets.ledgerOfOrdinal(match.ordinal);
  if (view.ledger !== ledger || view.txIndex > TX_MASK || view.opIndex > OP_MASK) {
    storeInconsistent(
      `ordinal ${match.ordinal} of ledger ${ledger} holds the event (${view.ledger}, ${view.txIndex}, ${view.opIndex}, ${view.eventIndex})`,
      chunkId,
    );
  }
  return {
    ledger,
    tx: view.txIndex,
    op: view.opIndex,
    event: view.eventIndex,
    ledgerOrdinal: match.ordinal - offsets.firstOrdinal(ledger),
    payload: copies.copy(match.payload),
  };
}
