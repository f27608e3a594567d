// The cross-chunk pager against the oracle pager (test/pager-support.ts) over random sparse corpora of chunks 0..3
// and random scopes (both directions, crossing chunk boundaries, longer than 10,000 ledgers, open-ended at the tip,
// below the floor), limits 1..50. Properties:
// 1. v2 drain: from the scope's start, page after page through cursors round-tripped with encodeCursorV2 /
//    decodeCursorV2 and scopeOfCursor, every page (events with coordinates, ledger ordinals and payload bytes, scan
//    status, scannedLedger, cursor, served range) equals the oracle's, and errors (LEDGER_OUT_OF_RANGE with
//    missingLedger) are the oracle's. The drain ends at COMPLETE, OLDEST_REACHED or WAITING_FOR_LEDGERS (after which
//    the tip may grow once and the drain go on), and what it delivered is exactly every match of the scope within
//    the served range, in walk order: no event lost, none delivered twice. Real engine.
// 2. v1 drain: v1ScanWindow → queryEventsV1 → the cursor as an id (formatEventId, parseV1Cursor) equals the v1
//    oracle page by page (events, filled, cursor), and delivers every match from the start ledger to the tip.
// 3. Engine independence: property 1 holds with the real engine at small slabs (slabShift 4, one stage-1 slab,
//    fetches of 2), so stage seams and batch boundaries fall inside pages, and with the oracle engine (the window's
//    ordinals post-filtered one by one).
// 4. Coverage: the generated drains reach every scan status, LEDGER_OUT_OF_RANGE, kept positions, pages spanning
//    two chunks and pages truncated by the cap.
// 5. Negative controls: a pager that ignores the scan cap, and one that reports a short page as COMPLETE, fail
//    property 1.
import {
  decodeCursorV2,
  encodeCursorV2,
  formatEventId,
  parseV1Cursor,
  type StorageFilter,
  type V1Request,
  v1ScanWindow,
} from '@strata/events';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchEvents } from '../src/engine/match-events.js';
import type { EventChunkSource } from '../src/pager/event-source.js';
import { type PagePosition, type QueryScope, scopeOfCursor, type V2Resume } from '../src/pager/page-request.js';
import {
  type EventPage,
  type MatchEngine,
  type PageEvent,
  type PagerSeams,
  queryEvents,
  queryEventsWith,
  ScanStatus,
} from '../src/pager/query-events.js';
import { queryEventsV1 } from '../src/pager/query-events-v1.js';
import {
  Corpus,
  corpusSpecArb,
  filtersArb,
  matchesIn,
  oracleEngine,
  oraclePage,
  oracleV1Page,
  outcomeOf,
  type ScopePick,
  scopeFor,
  scopePickArb,
} from './pager-support.js';

type Pager = (source: EventChunkSource, scope: QueryScope, position: PagePosition, limit: number) => Promise<EventPage>;

const limitArb = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 50 }));

/** What the drains reached, for property 4. */
type Reached = Map<string, number>;

function note(reached: Reached | undefined, what: string): void {
  if (reached !== undefined) reached.set(what, (reached.get(what) ?? 0) + 1);
}

function asDelivered(events: readonly PageEvent[]): PageEvent[] {
  return events.map((e) => ({ ...e }));
}

/** Property 1 for one corpus, scope, limit and growth choice; throws on the first difference. */
async function drainV2(
  pager: Pager,
  corpus: Corpus,
  pick: ScopePick,
  limit: number,
  grow: boolean,
  reached?: Reached,
): Promise<void> {
  const scope = scopeFor(pick);
  const descending = scope.order === 'desc';
  const source = corpus.source();
  let requestScope = scope;
  let resume: V2Resume | undefined;
  const delivered: PageEvent[] = [];
  let grown = false;
  for (let pages = 0; ; pages++) {
    if (pages > 5_000) throw new Error('the drain made no progress');
    const expected = oraclePage(corpus, source.range, scope, resume, limit);
    const actual = await outcomeOf(() => pager(source, requestScope, resume, limit));
    expect(actual).toEqual(expected);
    if (!('page' in actual)) {
      note(reached, actual.error);
      return;
    }
    const page = actual.page;
    note(reached, page.scanStatus);
    if (page.cursor?.position !== undefined) note(reached, 'kept position');
    if (
      page.events.length > 0 &&
      Math.floor((page.events[0]!.ledger - 2) / 10_000) !== Math.floor((page.events.at(-1)!.ledger - 2) / 10_000)
    ) {
      note(reached, 'page across chunks');
    }
    if (page.scanStatus === ScanStatus.HAS_MORE && page.events.length < limit) note(reached, 'capped page');
    delivered.push(...asDelivered(page.events));
    note(reached, 'page');
    for (const _ of page.events) note(reached, 'event');
    if (page.scanStatus === ScanStatus.WAITING_FOR_LEDGERS && grow && !grown) {
      grown = true;
      source.range = { ...source.range, latestLedger: corpus.spec.grownLatestLedger };
    } else if (page.scanStatus !== ScanStatus.HAS_MORE) {
      break;
    }
    const decoded = decodeCursorV2(encodeCursorV2(page.cursor!));
    requestScope = scopeOfCursor(decoded);
    expect(requestScope).toEqual(scope);
    resume = decoded;
  }
  const tip = source.range.latestLedger;
  const lo = descending ? Math.max(scope.minLedger, source.range.oldestLedger) : scope.minLedger;
  const hi = Math.min(scope.maxLedger ?? tip, tip);
  expect(delivered).toEqual(asDelivered(matchesIn(corpus, scope.filters, lo, hi, descending)));
}

const drainArb = fc.record({
  corpus: corpusSpecArb,
  pick: scopePickArb,
  limit: limitArb,
  grow: fc.boolean(),
});

function drainProperty(pager: Pager, reached?: Reached) {
  return fc.asyncProperty(drainArb, async ({ corpus, pick, limit, grow }) => {
    await drainV2(pager, new Corpus(corpus), pick, limit, grow, reached);
  });
}

function pagerWith(seams: PagerSeams): Pager {
  return (source, scope, position, limit) => queryEventsWith(seams, source, scope, position, limit);
}

/** The real engine with small slabs, one stage-1 slab and fetches of 2. */
const smallSlabEngine: MatchEngine = (reader, plan, postFilter, window, options) =>
  matchEvents(reader, plan, postFilter, window, { ...options, slabShift: 4, stage1Slabs: 1, batchSize: 2 });

describe('pager against the oracle pager', () => {
  const reached: Reached = new Map();

  it('1. v2 drains equal the oracle page by page and deliver every match once (real engine)', async () => {
    await fc.assert(drainProperty(queryEvents, reached), propertyParams({ numRuns: 150 }));
  });

  it('2. v1 drains equal the v1 oracle page by page and deliver every match from the start', async () => {
    const v1Arb = fc.record({
      corpus: corpusSpecArb,
      filters: filtersArb,
      startPick: fc.nat(),
      endPick: fc.option(fc.integer({ min: 1, max: 25_000 }), { nil: undefined }),
      limit: limitArb,
    });
    await fc.assert(
      fc.asyncProperty(v1Arb, async ({ corpus: spec, filters, startPick, endPick, limit }) => {
        const corpus = new Corpus(spec);
        const source = corpus.source();
        const range = source.range;
        const startLedger = range.oldestLedger + (startPick % (range.latestLedger - range.oldestLedger + 1));
        await drainV1(corpus, source, filters, startLedger, endPick === undefined ? 0 : startLedger + endPick, limit);
      }),
      propertyParams({ numRuns: 100 }),
    );
  });

  it('3. the drains hold with small slabs and with the oracle engine', async () => {
    await fc.assert(drainProperty(pagerWith({ engine: smallSlabEngine })), propertyParams({ numRuns: 60 }));
    await fc.assert(drainProperty(pagerWith({ engine: oracleEngine })), propertyParams({ numRuns: 40 }));
  });

  it('4. the drains reached every status, the range error, kept positions, cross-chunk and capped pages', () => {
    for (const what of [
      ScanStatus.HAS_MORE,
      ScanStatus.WAITING_FOR_LEDGERS,
      ScanStatus.OLDEST_REACHED,
      ScanStatus.COMPLETE,
      'LEDGER_OUT_OF_RANGE',
      'kept position',
      'page across chunks',
      'capped page',
    ]) {
      expect(reached.get(what) ?? 0, what).toBeGreaterThan(0);
    }
  });
});

/** Property 2 for one corpus and request. */
async function drainV1(
  corpus: Corpus,
  source: EventChunkSource & { range: { oldestLedger: number; latestLedger: number } },
  filters: StorageFilter[],
  startLedger: number,
  endLedger: number,
  limit: number,
): Promise<void> {
  const range = source.range;
  let request: V1Request = { startLedger, endLedger, cursor: undefined, limit, xdrFormat: 'base64', filters: [] };
  const delivered: PageEvent[] = [];
  for (let pages = 0; ; pages++) {
    if (pages > 5_000) throw new Error('the v1 drain made no progress');
    const window = v1ScanWindow(request, range);
    const expected = oracleV1Page(corpus, range, filters, window, limit);
    const actual = await outcomeOf(() => queryEventsV1(source, filters, window, limit));
    expect(actual).toEqual(expected);
    if (!('page' in actual)) throw new Error(`unexpected ${actual.error}`);
    delivered.push(...asDelivered(actual.page.events));
    if (!actual.page.filled && window.endLedgerExclusive === range.latestLedger + 1) break;
    const cursor = parseV1Cursor(formatEventId(actual.page.cursor));
    request = { startLedger: 0, endLedger: 0, cursor, limit, xdrFormat: 'base64', filters: [] };
  }
  expect(delivered).toEqual(asDelivered(matchesIn(corpus, filters, startLedger, range.latestLedger, false)));
}

describe('negative controls: the drain property catches', () => {
  /** Runs property 1 against a defective pager; returns the first failure's message (a page differing from the oracle's). */
  async function failureOf(faults: NonNullable<PagerSeams['faults']>): Promise<string> {
    const details = await fc.check(drainProperty(pagerWith({ engine: matchEvents, faults })), {
      numRuns: 300,
      endOnFailure: true,
    });
    expect(details.failed).toBe(true);
    return String(details.errorInstance);
  }

  it('5a. a pager that ignores the 10,000-ledger scan cap', async () => {
    expect(await failureOf({ ignoreScanCap: true })).toMatch(/to deeply equal/);
  });

  it('5b. a pager that treats a short page as terminal', async () => {
    expect(await failureOf({ shortPageIsTerminal: true })).toMatch(/to deeply equal/);
  });
});
