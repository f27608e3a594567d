// v1 getEvents over the pager (spec §1.2, §1.4): the scan window v1ScanWindow computed becomes an ascending scope
// and a v1 start, walked by the same pager as v2; the page's cursor is v1's (the last id of a full page, else the
// window-end sentinel).
import { describeValue } from '@strata/base';
import { type EventPosition, MAX_POSITION, type StorageFilter, type V1ScanWindow } from '@strata/events';
import { matchEvents } from '../engine/match-events.js';
import { MatchError, MatchErrorCode } from '../errors.js';
import type { EventChunkSource } from './event-source.js';
import { checkCoordinates, checkLimit, planFilters } from './page-request.js';
import { type PageEvent, type PagerSeams, queryEventsWith } from './query-events.js';
import { checkSource, servedRange } from './reader-calls.js';

/**
 * One v1 page.
 * - `events`: at most `limit`, ascending.
 * - `filled`: the page holds `limit` events.
 * - `cursor`: the response cursor as a position (formatEventId makes the string, equal to v1ResponseCursor's): the
 *   last event when filled, else the window-end sentinel MAX_POSITION with the last scanned ledger, which resumes
 *   at the next ledger.
 * - `oldestLedger`, `latestLedger`: the served range the page was computed against.
 */
export interface V1Page {
  readonly events: readonly PageEvent[];
  readonly filled: boolean;
  readonly cursor: EventPosition;
  readonly oldestLedger: number;
  readonly latestLedger: number;
}

/**
 * One v1 page: the events matching `filters` (compileV1Filters' output) from `window.start` (inclusive) up to
 * `window.endLedgerExclusive`, at most `limit` (1..MAX_PAGE_LIMIT; the RPC layer applies v1's default and maximum).
 * `window` is v1ScanWindow's answer for the request, which checked the start against the served range (-32600) and
 * capped the end at 10,000 ledgers and the tip; the pager walks it as the ascending scope [start.ledger, end - 1]
 * from the v1 resume point `{ from: start }` (see queryEvents and V1Resume), so statuses and errors are the same as
 * v2's: a start below the floor by the time the page reads the range is LEDGER_OUT_OF_RANGE.
 *
 * An empty window (a request whose endLedger is at or before its start) opens no chunk: an empty page whose cursor
 * is the window-end sentinel of endLedgerExclusive - 1, as upstream answers it.
 */
export function queryEventsV1(
  source: EventChunkSource,
  filters: readonly StorageFilter[],
  window: V1ScanWindow,
  limit: number,
): Promise<V1Page> {
  return queryEventsV1With({ engine: matchEvents }, source, filters, window, limit);
}

/** queryEventsV1 with another engine or deliberate defects (not exported from the package). */
export async function queryEventsV1With(
  seams: PagerSeams,
  source: EventChunkSource,
  filters: readonly StorageFilter[],
  window: V1ScanWindow,
  limit: number,
): Promise<V1Page> {
  checkLimit(limit);
  if (typeof window !== 'object' || window === null || typeof window.start !== 'object' || window.start === null) {
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, `expected a V1ScanWindow, got ${describeValue(window)}`, {
      field: 'window',
    });
  }
  const end = window.endLedgerExclusive;
  if (typeof end !== 'number' || !Number.isInteger(end) || end < 1 || end > 0x1_0000_0000) {
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, `expected a ledger, got ${describeValue(end)}`, {
      field: 'window.endLedgerExclusive',
    });
  }
  const start = window.start;
  checkCoordinates(start, 'window.start', false);
  if (end <= start.ledger) {
    planFilters(filters);
    checkSource(source);
    const range = await servedRange(source);
    return { events: [], filled: false, cursor: windowEnd(end - 1), ...range };
  }
  const scope = { minLedger: start.ledger, maxLedger: end - 1, order: 'asc' as const, filters };
  const page = await queryEventsWith(seams, source, scope, { from: start }, limit);
  const last = page.events.at(-1);
  const filled = page.events.length === limit;
  // Not full: the page covered what it could of the window (all of it, unless the tip it read was lower).
  const cursor: EventPosition =
    filled && last !== undefined
      ? { ledger: last.ledger, tx: last.tx, op: last.op, event: last.event }
      : windowEnd(page.scannedLedger);
  return {
    events: page.events,
    filled,
    cursor,
    oldestLedger: page.oldestLedger,
    latestLedger: page.latestLedger,
  };
}

/** The window-end sentinel: MaxCursor with its ledger set to the last scanned ledger. */
function windowEnd(ledger: number): EventPosition {
  return { ...MAX_POSITION, ledger };
}
