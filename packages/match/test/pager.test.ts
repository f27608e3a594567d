// The pager's edge cases: limit and scope bounds refused before any work, forged and mismatched cursors, the served
// range (floor, tip) and its statuses, reader failures wrapped with their cause, lazy opening (openChunk counted),
// what the engine is asked for and how far it is pulled, payload copies, and the v1 entry point (its start search,
// window-end sentinel, empty window and response cursor).
import {
  type ChunkReader,
  chunkFirstLedger,
  chunkLastLedger,
  decodeCursorV2,
  type EventCursorV2,
  encodeCursorV2,
  formatEventId,
  OP_MASK,
  type StorageFilter,
  TX_MASK,
  v1ResponseCursor,
  v1WindowEndCursor,
  validateGetEventsV2,
} from '@strata/events';
import { rejectionOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { matchEvents } from '../src/engine/match-events.js';
import { MatchError, MatchErrorCode } from '../src/errors.js';
import type { EventChunkSource } from '../src/pager/event-source.js';
import { MAX_PAGE_LIMIT, type QueryScope, scopeOfCursor } from '../src/pager/page-request.js';
import {
  type EventPage,
  MAX_SCAN_LEDGERS,
  type MatchEngine,
  queryEvents,
  queryEventsWith,
  ScanStatus,
} from '../src/pager/query-events.js';
import { queryEventsV1 } from '../src/pager/query-events-v1.js';
import { CONTRACTS, Corpus, CountingSource, type EventSpec } from './pager-support.js';

/** n events in one ledger over the slots in id order (several in the last slot when n > 9), all type contract. */
function specs(n: number): EventSpec[] {
  return Array.from({ length: n }, (_, i) => ({ slot: Math.min(i, 8), contract: i % 2, type: 1 as const, topics: [] }));
}

/** A corpus serving [oldest, latest] with `counts[ledger]` events in the listed ledgers. */
function corpusOf(oldest: number, latest: number, counts: Record<number, number>): Corpus {
  return new Corpus({
    oldestLedger: oldest,
    latestLedger: latest,
    grownLatestLedger: latest,
    extraLedgers: 0,
    firstReaderAtFloor: false,
    ledgers: new Map(Object.entries(counts).map(([ledger, n]) => [Number(ledger), specs(n)])),
  });
}

const C1 = chunkFirstLedger(1); // 10,002
const C0_LAST = chunkLastLedger(0); // 10,001

/** Chunks 0 and 1 served; events near the boundary and far from it. */
function twoChunks(): Corpus {
  return corpusOf(2, chunkLastLedger(1), { 10: 3, [C0_LAST - 1]: 2, [C0_LAST]: 4, [C1]: 5, [C1 + 7]: 1, 19000: 2 });
}

const asc = (minLedger: number, maxLedger?: number, filters: StorageFilter[] = []): QueryScope =>
  maxLedger === undefined ? { minLedger, order: 'asc', filters } : { minLedger, maxLedger, order: 'asc', filters };
const desc = (minLedger: number, maxLedger: number, filters: StorageFilter[] = []): QueryScope => ({
  minLedger,
  maxLedger,
  order: 'desc',
  filters,
});

async function refusal(run: () => Promise<unknown>, code: MatchErrorCode): Promise<MatchError> {
  const error = await rejectionOf(MatchError, run);
  expect(error.code, error.message).toBe(code);
  return error;
}

function ledgersOf(page: EventPage): number[] {
  return page.events.map((e) => e.ledger);
}

/** A reader that delegates to `reader` except for `overrides`. */
function readerWith(reader: ChunkReader, overrides: Partial<ChunkReader>): ChunkReader {
  return {
    chunkId: reader.chunkId,
    eventCount: () => reader.eventCount(),
    ledgerOffsets: () => reader.ledgerOffsets(),
    lookupTerms: (keys, window) => reader.lookupTerms(keys, window),
    fetchEvents: (ordinals) => reader.fetchEvents(ordinals),
    fetchRange: (window) => reader.fetchRange(window),
    close: () => reader.close(),
    ...overrides,
  };
}

/** A source over `corpus` whose chunk `chunkId` reader is replaced. */
function sourceWith(corpus: Corpus, chunkId: number, overrides: Partial<ChunkReader>): CountingSource {
  const readers = new Map(corpus.readers);
  readers.set(chunkId, readerWith(corpus.readers.get(chunkId)!, overrides));
  return new CountingSource(readers, corpus.source().range);
}

describe('limit and scope are checked before any work', () => {
  const corpus = twoChunks();

  it('refuses limits outside 1..10,000 (INVALID_SCOPE, field limit) without calling the source', async () => {
    for (const limit of [0, -1, MAX_PAGE_LIMIT + 1, 1.5, Number.NaN, '5', undefined]) {
      const source = corpus.source();
      const error = await refusal(() => queryEvents(source, asc(2), undefined, limit as number), 'INVALID_SCOPE');
      expect(error.field).toBe('limit');
      expect(source.rangeCalls + source.opened.length).toBe(0);
    }
    expect(MAX_PAGE_LIMIT).toBe(10_000);
    expect((await queryEvents(corpus.source(), asc(2), undefined, 1)).events).toHaveLength(1);
    expect((await queryEvents(corpus.source(), asc(2), undefined, MAX_PAGE_LIMIT)).events).toHaveLength(9);
  });

  it('refuses bad scopes with INVALID_SCOPE naming the field', async () => {
    const cases: [unknown, string][] = [
      [null, 'scope'],
      [{ minLedger: 2, order: 'up', filters: [] }, 'scope.order'],
      [{ minLedger: 1, order: 'asc', filters: [] }, 'scope.minLedger'],
      [{ minLedger: 2.5, order: 'asc', filters: [] }, 'scope.minLedger'],
      [{ minLedger: 9, maxLedger: 8, order: 'asc', filters: [] }, 'scope.maxLedger'],
      [{ minLedger: 9, order: 'desc', filters: [] }, 'scope.maxLedger'],
      [
        asc(
          2,
          9,
          Array.from({ length: 257 }, () => ({ topics: [], topicCount: { count: 0, exact: false } })),
        ),
        'scope.filters',
      ],
      [
        asc(2, 9, [{ contractId: new Uint8Array(31), topics: [], topicCount: { count: 0, exact: false } }]),
        'scope.filters[0].contractId',
      ],
    ];
    for (const [scope, field] of cases) {
      const source = corpus.source();
      const error = await refusal(() => queryEvents(source, scope as QueryScope, undefined, 10), 'INVALID_SCOPE');
      expect(error.field).toBe(field);
      expect(source.rangeCalls).toBe(0);
    }
    const filterError = await refusal(
      () =>
        queryEvents(
          corpus.source(),
          asc(2, 9, [{ contractId: new Uint8Array(31), topics: [], topicCount: { count: 0, exact: false } }]),
          undefined,
          1,
        ),
      'INVALID_SCOPE',
    );
    expect(filterError.cause).toBeInstanceOf(MatchError); // planQuery's refusal
  });

  it('a validated getEventsV2 query is a scope as it is, and a cursor maps back onto its scope', async () => {
    const query = validateGetEventsV2({ minLedger: 5, maxLedger: 20_000, order: 'desc', limit: 3 });
    if (query.kind !== 'query') throw new Error('expected a query');
    const page = await queryEvents(corpus.source(), query, undefined, query.limit);
    expect(ledgersOf(page)).toEqual([19_000, 19_000, C1 + 7]);
    const cursor = decodeCursorV2(encodeCursorV2(page.cursor!));
    expect(scopeOfCursor(cursor)).toEqual({ minLedger: 5, maxLedger: 20_000, order: 'desc', filters: [] });
  });
});

describe('forged cursors', () => {
  const corpus = twoChunks();
  /** A real mid-ledger cursor: 2 of ledger 10's 3 events delivered. */
  async function midLedger(): Promise<EventCursorV2> {
    const page = await queryEvents(corpus.source(), asc(2, 30_000), undefined, 2);
    expect(page.cursor?.position).toMatchObject({ ledger: 10, ledgerOrdinal: 1 });
    return decodeCursorV2(encodeCursorV2(page.cursor!));
  }

  it('a position whose ledger is not scannedLedger ± 1 (or the anchor when 0) is CURSOR_MALFORMED', async () => {
    const p = { ledger: 10, tx: 0, op: 0, event: 0, ledgerOrdinal: 0 };
    const cases: [QueryScope, { position: typeof p; scannedLedger: number }][] = [
      [asc(2, 30_000), { position: p, scannedLedger: 0 }], // mark 0: the position must sit at minLedger 2
      [asc(2, 30_000), { position: p, scannedLedger: 8 }], // ascending: mark + 1 = 9
      [asc(2, 30_000), { position: p, scannedLedger: 10 }],
      [desc(2, 30_000), { position: p, scannedLedger: 9 }], // descending: mark - 1 = 8
      [desc(2, 30_000), { position: p, scannedLedger: 0 }], // mark 0: the position must sit at maxLedger
      [asc(11, 30_000), { position: p, scannedLedger: 0 }], // outside the scope
    ];
    for (const [scope, resume] of cases) {
      const source = corpus.source();
      await refusal(() => queryEvents(source, scope, resume, 5), 'CURSOR_MALFORMED');
      expect(source.rangeCalls).toBe(0);
    }
  });

  it('a watermark outside the scope, or coordinates no event id has, are CURSOR_MALFORMED', async () => {
    await refusal(() => queryEvents(corpus.source(), asc(5, 30_000), { scannedLedger: 4 }, 5), 'CURSOR_MALFORMED');
    await refusal(() => queryEvents(corpus.source(), asc(5, 30_000), { scannedLedger: 30_001 }, 5), 'CURSOR_MALFORMED');
    const bad = { ledger: 5, tx: TX_MASK + 1, op: 0, event: 0, ledgerOrdinal: 0 };
    await refusal(
      () => queryEvents(corpus.source(), asc(5, 30_000), { position: bad, scannedLedger: 0 }, 5),
      'CURSOR_MALFORMED',
    );
  });

  it('a position whose event differs from the one at its ledger ordinal is CURSOR_MALFORMED, naming the chunk', async () => {
    const cursor = await midLedger();
    const position = cursor.position!;
    for (const forged of [
      { ...position, event: position.event + 1 },
      { ...position, tx: position.tx + 1 },
      { ...position, op: position.op + 1 },
      { ...position, ledgerOrdinal: 0 },
      { ...position, ledgerOrdinal: 2 },
    ]) {
      const token = encodeCursorV2({ ...cursor, position: forged });
      const decoded = decodeCursorV2(token);
      const error = await refusal(
        () => queryEvents(corpus.source(), scopeOfCursor(decoded), decoded, 5),
        'CURSOR_MALFORMED',
      );
      expect(error.chunkId).toBe(0);
    }
    // A ledger ordinal past the ledger's 3 events.
    const past = { ...cursor, position: { ...position, ledgerOrdinal: 3 } };
    await refusal(() => queryEvents(corpus.source(), scopeOfCursor(past), past, 5), 'CURSOR_MALFORMED');
    // The genuine cursor resumes with the third event.
    const next = await queryEvents(corpus.source(), scopeOfCursor(cursor), cursor, 1);
    expect(next.events[0]).toMatchObject({ ledger: 10, ledgerOrdinal: 2 });
  });

  it('malformed resume values are INVALID_ARGUMENT; a v1 start on a descending scope INVALID_SCOPE', async () => {
    await refusal(() => queryEvents(corpus.source(), asc(2), 5 as never, 5), 'INVALID_ARGUMENT');
    await refusal(() => queryEvents(corpus.source(), asc(2), { scannedLedger: 1.5 }, 5), 'INVALID_ARGUMENT');
    const both = { scannedLedger: 0, from: { ledger: 2, tx: 0, op: 0, event: 0 } };
    await refusal(() => queryEvents(corpus.source(), asc(2), both as never, 5), 'INVALID_ARGUMENT');
    await refusal(
      () => queryEvents(corpus.source(), desc(2, 50), { from: { ledger: 2, tx: 0, op: 0, event: 0 } }, 5),
      'INVALID_SCOPE',
    );
    await refusal(
      () => queryEvents(corpus.source(), asc(5, 50), { from: { ledger: 2, tx: 0, op: 0, event: 0 } }, 5),
      'CURSOR_MALFORMED',
    );
  });
});

describe('the served range: floor, tip and statuses', () => {
  it('ascending below the floor is LEDGER_OUT_OF_RANGE with missingLedger, from a scope or a cursor', async () => {
    const corpus = twoChunks();
    const error = await refusal(
      () =>
        queryEvents(
          new CountingSource(corpus.readers, { oldestLedger: 11, latestLedger: 20_001 }),
          asc(5),
          undefined,
          5,
        ),
      'LEDGER_OUT_OF_RANGE',
    );
    expect(error.missingLedger).toBe(5);
    // A cursor whose re-entry ledger retention has since dropped.
    const page = await queryEvents(corpus.source(), asc(2), undefined, 2);
    const moved = new CountingSource(corpus.readers, { oldestLedger: 11, latestLedger: 20_001 });
    const late = await refusal(() => queryEvents(moved, asc(2), page.cursor, 2), 'LEDGER_OUT_OF_RANGE');
    expect(late.missingLedger).toBe(10);
    expect(moved.opened).toEqual([]);
  });

  it('an open ascending scope waits at the tip with its cursor unchanged, then follows the tip', async () => {
    const corpus = corpusOf(2, 30, { 10: 1, 20: 1, 25: 1 });
    const source = new CountingSource(corpus.readers, { oldestLedger: 2, latestLedger: 22 });
    const first = await queryEvents(source, asc(2), undefined, 10);
    expect([first.scanStatus, ledgersOf(first), first.scannedLedger]).toEqual([
      ScanStatus.WAITING_FOR_LEDGERS,
      [10, 20],
      22,
    ]);
    const again = await queryEvents(source, asc(2), first.cursor, 10);
    expect([again.scanStatus, again.events, again.cursor]).toEqual([ScanStatus.WAITING_FOR_LEDGERS, [], first.cursor]);
    source.range = { oldestLedger: 2, latestLedger: 30 };
    const grown = await queryEvents(source, asc(2), again.cursor, 10);
    expect([grown.scanStatus, ledgersOf(grown), grown.scannedLedger]).toEqual([
      ScanStatus.WAITING_FOR_LEDGERS,
      [25],
      30,
    ]);
    // A scope starting past the tip: nothing scanned yet.
    const early = await queryEvents(source, asc(40), undefined, 10);
    expect([early.scanStatus, early.scannedLedger, early.cursor?.scannedLedger]).toEqual([
      ScanStatus.WAITING_FOR_LEDGERS,
      39,
      0,
    ]);
  });

  it('descending to the floor is OLDEST_REACHED, and re-sending the cursor returns it again', async () => {
    const corpus = corpusOf(2, 30, { 5: 1, 12: 1, 25: 1 });
    const source = new CountingSource(corpus.readers, { oldestLedger: 10, latestLedger: 30 });
    const page = await queryEvents(source, desc(2, 30), undefined, 10);
    expect([page.scanStatus, ledgersOf(page), page.scannedLedger]).toEqual([ScanStatus.OLDEST_REACHED, [25, 12], 10]);
    const again = await queryEvents(source, desc(2, 30), page.cursor, 10);
    expect([again.scanStatus, again.events, again.cursor]).toEqual([ScanStatus.OLDEST_REACHED, [], page.cursor]);
    expect(source.opened).toEqual([0]);
    // At or above the floor, the same walk ends COMPLETE without a cursor.
    const complete = await queryEvents(source, desc(10, 30), undefined, 10);
    expect([complete.scanStatus, complete.scannedLedger, complete.cursor]).toEqual([
      ScanStatus.COMPLETE,
      10,
      undefined,
    ]);
  });

  it('a truncated page is never terminal: HAS_MORE at the 10,000-ledger cap, even empty', async () => {
    const corpus = corpusOf(2, 30_000, { 3: 1, 25000: 1 });
    const page = await queryEvents(corpus.source(), asc(4, 30_000), undefined, 5);
    expect([page.scanStatus, page.events, page.scannedLedger]).toEqual([
      ScanStatus.HAS_MORE,
      [],
      4 + MAX_SCAN_LEDGERS - 1,
    ]);
    const down = await queryEvents(corpus.source(), desc(2, 24_000), undefined, 5);
    expect([down.scanStatus, down.events, down.scannedLedger]).toEqual([
      ScanStatus.HAS_MORE,
      [],
      24_000 - MAX_SCAN_LEDGERS + 1,
    ]);
  });
});

describe('reader failures are wrapped with their cause', () => {
  const corpus = twoChunks();
  const boom = new Error('disk on fire');

  it('ledgerRange and openChunk failures are READER_FAILED (openChunk naming the chunk)', async () => {
    const noRange: EventChunkSource = {
      ledgerRange: () => {
        throw boom;
      },
      openChunk: async () => corpus.readers.get(0)!,
    };
    const e1 = await refusal(() => queryEvents(noRange, asc(2), undefined, 5), 'READER_FAILED');
    expect([e1.cause, e1.chunkId]).toEqual([boom, undefined]);
    const noChunk: EventChunkSource = {
      ledgerRange: () => corpus.source().range,
      openChunk: () => Promise.reject(boom),
    };
    const e2 = await refusal(() => queryEvents(noChunk, desc(2, 15_000), undefined, 5), 'READER_FAILED');
    expect([e2.cause, e2.chunkId]).toEqual([boom, 1]);
  });

  it('ledgerOffsets, the engine walk and the re-entry fetch: READER_FAILED with the reader error and chunk', async () => {
    const e1 = await refusal(
      () =>
        queryEvents(
          sourceWith(corpus, 0, {
            ledgerOffsets: () => {
              throw boom;
            },
          }),
          asc(2),
          undefined,
          5,
        ),
      'READER_FAILED',
    );
    expect([e1.cause, e1.chunkId]).toEqual([boom, 0]);
    const failingFetch = sourceWith(corpus, 1, {
      fetchEvents: () => Promise.reject(boom),
      fetchRange: () => Promise.reject(boom),
    });
    const e2 = await refusal(() => queryEvents(failingFetch, asc(C1), undefined, 5), 'READER_FAILED');
    expect([e2.cause, e2.chunkId]).toEqual([boom, 1]); // wrapped by the engine, kept by the pager
    const cursor = (await queryEvents(corpus.source(), asc(C1), undefined, 2)).cursor!;
    const e3 = await refusal(() => queryEvents(failingFetch, asc(C1), cursor, 5), 'READER_FAILED');
    expect([e3.cause, e3.chunkId]).toEqual([boom, 1]);
  });

  it("a seam engine's plain error is wrapped; its MatchError passes through unchanged", async () => {
    const plain: MatchEngine = async function* () {
      yield* [];
      throw boom;
    };
    const e1 = await refusal(
      () => queryEventsWith({ engine: plain }, corpus.source(), asc(2), undefined, 5),
      'READER_FAILED',
    );
    expect([e1.cause, e1.chunkId]).toEqual([boom, 0]);
    const own = new MatchError(MatchErrorCode.STORE_INCONSISTENT, 'engine says so', { chunkId: 0 });
    const coded: MatchEngine = async function* () {
      yield* [];
      throw own;
    };
    expect(
      await rejectionOf(MatchError, () => queryEventsWith({ engine: coded }, corpus.source(), asc(2), undefined, 5)),
    ).toBe(own);
  });

  it('answers outside the contract are STORE_INCONSISTENT naming the chunk', async () => {
    const short = sourceWith(corpus, 1, { ledgerOffsets: () => corpus.readers.get(1)!.ledgerOffsets().prefix(5) });
    const e1 = await refusal(() => queryEvents(short, asc(C1), undefined, 50), 'STORE_INCONSISTENT');
    expect(e1.chunkId).toBe(1);
    const other = sourceWith(corpus, 1, { chunkId: 0 });
    expect((await refusal(() => queryEvents(other, asc(C1), undefined, 5), 'STORE_INCONSISTENT')).chunkId).toBe(1);
    const badRange: EventChunkSource = {
      ledgerRange: () => ({ oldestLedger: 40, latestLedger: 20 }),
      openChunk: async () => corpus.readers.get(0)!,
    };
    await refusal(() => queryEvents(badRange, asc(40), undefined, 5), 'STORE_INCONSISTENT');
  });
});

describe('lazy opening and bounded pulls', () => {
  it('a page that fills in its first chunk opens no later chunk, in either direction', async () => {
    const corpus = twoChunks();
    const up = corpus.source();
    await queryEvents(up, asc(C0_LAST - 1), undefined, 5); // 6 events in chunk 0 from there
    expect(up.opened).toEqual([0]);
    const down = corpus.source();
    await queryEvents(down, desc(2, C1 + 7), undefined, 6); // 6 events in chunk 1 down to its first ledger
    expect(down.opened).toEqual([1]);
    const both = corpus.source();
    const page = await queryEvents(both, asc(C0_LAST - 1), undefined, 8);
    expect([both.opened, ledgersOf(page).length]).toEqual([[0, 1], 8]);
  });

  it('takes one offsets snapshot per chunk per request, and ignores offsets past the tip', async () => {
    const corpus = twoChunks();
    const calls: number[] = [];
    const readers = new Map<number, ChunkReader>();
    for (const [chunkId, reader] of corpus.readers) {
      readers.set(
        chunkId,
        readerWith(reader, {
          ledgerOffsets: () => {
            calls.push(chunkId);
            return reader.ledgerOffsets();
          },
        }),
      );
    }
    // Chunk 1's reader covers all of it, the tip is its first ledger (a hot chunk that grew after the range read).
    const source = new CountingSource(readers, { oldestLedger: 2, latestLedger: C1 });
    const first = await queryEvents(source, asc(C0_LAST - 1), undefined, 3);
    calls.length = 0;
    const page = await queryEvents(source, asc(C0_LAST - 1), first.cursor, 50); // re-entry in chunk 0, then chunk 1
    expect(ledgersOf(page)).toEqual([C0_LAST, C0_LAST, C0_LAST, C1, C1, C1, C1, C1]);
    expect([page.scanStatus, page.scannedLedger, calls]).toEqual([ScanStatus.WAITING_FOR_LEDGERS, C1, [0, 1]]);
  });

  it('a page full at the end of a chunk stops there; the next page opens only the next chunk', async () => {
    const corpus = twoChunks();
    const source = corpus.source();
    const page = await queryEvents(source, asc(C0_LAST - 1), undefined, 6);
    expect(source.opened).toEqual([0]);
    expect([page.scanStatus, page.scannedLedger, page.cursor?.position]).toEqual([
      ScanStatus.HAS_MORE,
      C0_LAST,
      undefined,
    ]);
    const next = corpus.source();
    const after = await queryEvents(next, asc(C0_LAST - 1), page.cursor, 6);
    expect([next.opened, ledgersOf(after)]).toEqual([[1], [C1, C1, C1, C1, C1, C1 + 7]]);
  });

  it('the engine gets firstBatch room + 1 and is pulled at most room + 1 times, then closed', async () => {
    const corpus = twoChunks();
    const calls: { firstBatch: number; pulled: number; closed: boolean }[] = [];
    const counting: MatchEngine = async function* (reader, plan, postFilter, window, options) {
      const call = { firstBatch: options.firstBatch, pulled: 0, closed: false };
      calls.push(call);
      try {
        for await (const match of matchEvents(reader, plan, postFilter, window, options)) {
          call.pulled++;
          yield match;
        }
      } finally {
        call.closed = true;
      }
    };
    const filters: StorageFilter[] = [
      { contractId: CONTRACTS[0]!, topics: [], topicCount: { count: 0, exact: false } },
    ];
    await queryEventsWith({ engine: counting }, corpus.source(), asc(2, 20_001, filters), undefined, 2);
    await queryEventsWith({ engine: counting }, corpus.source(), asc(C0_LAST - 1, 20_001, filters), undefined, 4);
    expect(calls).toEqual([
      { firstBatch: 3, pulled: 3, closed: true }, // look-ahead found in chunk 0
      { firstBatch: 5, pulled: 3, closed: true }, // chunk 0 exhausted with 3 of 4
      { firstBatch: 2, pulled: 2, closed: true }, // chunk 1: room 1, plus the look-ahead
    ]);
  });

  it('payloads are copies, not the reader’s bytes', async () => {
    const corpus = twoChunks();
    const page = await queryEvents(corpus.source(), asc(10, 10), undefined, 1);
    const [stored] = await corpus.readers.get(0)!.fetchEvents([0]);
    expect(page.events[0]!.payload).toEqual(stored);
    expect(page.events[0]!.payload.buffer).not.toBe(stored!.buffer);
  });
});

describe('the v1 entry point', () => {
  const corpus = corpusOf(2, 20_001, { 10: 9, 11: 2, 12: 1 });

  /** A source counting fetchEvents calls (the match-all walk itself uses fetchRange only). */
  function fetchCounting(): { source: CountingSource; fetches: () => number } {
    let fetches = 0;
    const base = corpus.readers.get(0)!;
    const source = sourceWith(corpus, 0, {
      fetchEvents: (ordinals) => {
        fetches++;
        return base.fetchEvents(ordinals);
      },
    });
    return { source, fetches: () => fetches };
  }

  it('starts at the first stored event at or after its start, by a binary search of about log2 fetches', async () => {
    const events = (
      await queryEventsV1(
        corpus.source(),
        [],
        { start: { ledger: 10, tx: 0, op: 0, event: 0 }, endLedgerExclusive: 11 },
        100,
      )
    ).events;
    expect(events).toHaveLength(9);
    for (const [i, target] of events.entries()) {
      const { source, fetches } = fetchCounting();
      const from = { ledger: 10, tx: target.tx, op: target.op, event: target.event };
      const page = await queryEventsV1(source, [], { start: from, endLedgerExclusive: 13 }, 100);
      expect(page.events.map((e) => e.ledgerOrdinal).slice(0, 9 - i)).toEqual(
        events.slice(i).map((e) => e.ledgerOrdinal),
      );
      expect(fetches()).toBeLessThanOrEqual(i === 0 ? 0 : Math.ceil(Math.log2(10)));
    }
    // Between two events: the next one.
    const between = await queryEventsV1(
      corpus.source(),
      [],
      { start: { ledger: 10, tx: 1, op: 2, event: 0 }, endLedgerExclusive: 11 },
      100,
    );
    expect(between.events[0]).toMatchObject({ tx: 1, op: OP_MASK });
  });

  it('a window-end start skips its ledger without I/O', async () => {
    const { source, fetches } = fetchCounting();
    const start = { ledger: 10, tx: TX_MASK, op: OP_MASK, event: 0 };
    const page = await queryEventsV1(source, [], { start, endLedgerExclusive: 13 }, 100);
    expect([page.events.map((e) => e.ledger), fetches()]).toEqual([[11, 11, 12], 0]);
  });

  it('its cursor is the last id of a full page, else the window-end sentinel', async () => {
    const window = { start: { ledger: 10, tx: 0, op: 0, event: 0 }, endLedgerExclusive: 12 };
    const full = await queryEventsV1(corpus.source(), [], window, 4);
    const ids = full.events.map((e) => formatEventId(e));
    expect([full.filled, formatEventId(full.cursor)]).toEqual([true, v1ResponseCursor(ids, 4, 12)]);
    const partial = await queryEventsV1(corpus.source(), [], window, 100);
    expect([partial.filled, partial.events.length, formatEventId(partial.cursor)]).toEqual([
      false,
      11,
      v1WindowEndCursor(12),
    ]);
  });

  it('an empty window opens no chunk and answers the window-end sentinel of its end', async () => {
    const source = corpus.source();
    const page = await queryEventsV1(
      source,
      [],
      { start: { ledger: 10, tx: 0, op: 0, event: 0 }, endLedgerExclusive: 8 },
      5,
    );
    expect([page.events, page.filled, formatEventId(page.cursor), source.opened]).toEqual([
      [],
      false,
      v1WindowEndCursor(8),
      [],
    ]);
  });

  it('a start below the floor is LEDGER_OUT_OF_RANGE; bad windows INVALID_ARGUMENT', async () => {
    const moved = new CountingSource(corpus.readers, { oldestLedger: 11, latestLedger: 20_001 });
    const window = { start: { ledger: 10, tx: 0, op: 0, event: 0 }, endLedgerExclusive: 12 };
    expect((await refusal(() => queryEventsV1(moved, [], window, 5), 'LEDGER_OUT_OF_RANGE')).missingLedger).toBe(10);
    await refusal(
      () => queryEventsV1(moved, [], { start: window.start, endLedgerExclusive: 0 }, 5),
      'INVALID_ARGUMENT',
    );
    await refusal(
      () => queryEventsV1(moved, [], { start: { ...window.start, tx: -1 }, endLedgerExclusive: 12 }, 5),
      'INVALID_ARGUMENT',
    );
    await refusal(() => queryEventsV1(moved, [], window, 0), 'INVALID_SCOPE');
  });
});
