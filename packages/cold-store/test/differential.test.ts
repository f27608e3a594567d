// @strata/match answers identically over a hot chunk and its frozen copy. Each corpus is ingested into a real
// @strata/hot-store chunk (a random start inside the chunk, hot-store's skewed synthetic generator), frozen with
// freezeChunk into local files (packs and indexes in two directories), and queried through both readers.
// Properties:
// 1. Pager: random filter sets over the corpus vocabulary (contracts, types, topics, exact and at-least topic
//    counts, match-all), both directions, random limits, paged through encoded cursors to the end: every page
//    (events, payload bytes, status, cursor) is identical from hot and from cold.
//    Half the corpora (even seeds) are frozen from the hot index's term lists (FreezeOptions.termOrdinals), half with
//    the terms derived and regrouped from the payloads.
// 2. Engine: matchEvents over random ordinal windows at slab widths 2^4 and 2^10 (many slabs from small corpora):
//    the same ordinals and payloads in the same order from hot, from cold, and from cold reopened through a storage
//    that cannot map (lookups then read their index.pack items).
// Not vacuous: besides the random filters, most queries carry one anchored on an event of the corpus (its contract,
// its first topic, its type, each kept or dropped at random; in property 2 an event inside the window), so matches
// come by construction; the runs count matched events and windows where a query matched some but not all events.
import { join } from 'node:path';
import { type ChunkReader, compilePostFilter, encodeCursorV2, type StorageFilter, viewPayload } from '@strata/events';
import { HotStore, hotTermOrdinals } from '@strata/hot-store';
import { type EventPage, matchEvents, planQuery, queryEvents } from '@strata/match';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, syntheticLedger, TOPIC0, u32 } from '../../hot-store/test/support.js';
import { ColdChunkReader } from '../src/index.js';
import { freezeInto, scratchDir, storagesIn, UnmappedStorage } from './chunk-support.js';

const CHUNK = 11;
const FIRST = CHUNK * 10_000 + 2;

const filterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined }),
    type: fc.option(fc.constantFrom(0, 1), { nil: undefined }),
    topic0: fc.option(fc.constantFrom(...TOPIC0), { nil: undefined }),
    topic1: fc.option(fc.integer({ min: 0, max: 20 }).map(u32), { nil: undefined }),
    count: fc.integer({ min: 0, max: 4 }),
    exact: fc.boolean(),
  })
  .map(({ contract, type, topic0, topic1, count, exact }) => ({
    ...(contract === undefined ? {} : { contractId: contract }),
    ...(type === undefined ? {} : { eventType: type }),
    topics: topic1 === undefined ? [topic0] : [topic0, topic1],
    topicCount: { count, exact },
  }));

interface Corpus {
  seed: number;
  shift: number;
  ledgers: number;
  maxEvents: number;
}

const corpusArb: fc.Arbitrary<Corpus> = fc.record({
  seed: fc.nat(),
  shift: fc.integer({ min: 0, max: 9_700 }),
  ledgers: fc.integer({ min: 1, max: 250 }),
  maxEvents: fc.integer({ min: 0, max: 40 }),
});

const queryArb = fc.record({
  filters: fc.oneof(
    { weight: 1, arbitrary: fc.constant<StorageFilter[]>([]) },
    { weight: 6, arbitrary: fc.array(filterArb, { minLength: 1, maxLength: 4 }) },
  ),
  order: fc.constantFrom('asc' as const, 'desc' as const),
  limit: fc.integer({ min: 1, max: 300 }),
  from: fc.nat(),
  span: fc.nat(),
  anchor: fc.option(fc.record({ pick: fc.nat(), contract: fc.boolean(), topic0: fc.boolean(), type: fc.boolean() }), {
    freq: 4,
    nil: undefined,
  }),
});

type Anchor = NonNullable<(typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never)['anchor']>;

/**
 * The query's filters, plus (with an anchor) one that matches the event at ordinal `start + pick % (end - start)`
 * of `reader`: its contract, first topic and type, as the anchor keeps them (none kept: match-all).
 */
async function anchoredFilters(
  reader: ChunkReader,
  filters: StorageFilter[],
  anchor: Anchor | undefined,
  start: number,
  end: number,
): Promise<StorageFilter[]> {
  if (anchor === undefined || end <= start) return filters;
  // `!`: one ordinal fetched, one payload back
  const event = viewPayload((await reader.fetchEvents([start + (anchor.pick % (end - start))]))[0]!);
  const contractId = anchor.contract ? event.contractId : undefined;
  const topic0 = anchor.topic0 ? event.topic(0) : undefined;
  const derived: StorageFilter = {
    ...(contractId === undefined ? {} : { contractId: contractId.slice() }),
    ...(anchor.type ? { eventType: event.type } : {}),
    topics: topic0 === undefined ? [] : [topic0.slice()],
    topicCount: { count: topic0 === undefined ? 0 : 1, exact: false },
  };
  return [...filters, derived];
}

/** A hot chunk of the corpus and its frozen copy; `close` releases both and the directory. */
async function build(corpus: Corpus) {
  const start = FIRST + corpus.shift;
  const count = Math.min(corpus.ledgers, FIRST + 9_999 - start + 1);
  const { dir, cleanup } = scratchDir('diff');
  const store = HotStore.open(join(dir, 'hot.db'), { chunkId: CHUNK, create: true, synchronous: 'normal' });
  // Half one ledger per transaction, half one backfill batch.
  const half = Math.floor(count / 2);
  for (let i = 0; i < half; i++)
    store.ingestLedger(start + i, syntheticLedger(corpus.seed, start + i, corpus.maxEvents));
  if (count > half) {
    store.ingestLedgers(
      Array.from({ length: count - half }, (_, i) => ({
        ledger: start + half + i,
        payloads: syntheticLedger(corpus.seed, start + half + i, corpus.maxEvents),
      })),
    );
  }
  const hot = store.reader();
  // Half the corpora frozen from the hot index's term lists (as the node freezes), half regrouped from the payloads.
  const cold = (await freezeInto(dir, hot, corpus.seed % 2 === 0 ? { termOrdinals: hotTermOrdinals(hot) } : {})).reader;
  return {
    start,
    count,
    dir,
    hot,
    cold,
    close: async () => {
      await cold.close();
      store.close();
      cleanup();
    },
  };
}

function pageShape(page: EventPage) {
  return {
    status: page.scanStatus,
    scanned: page.scannedLedger,
    cursor: page.cursor === undefined ? undefined : encodeCursorV2(page.cursor),
    events: page.events.map(
      (e) => `${e.ledger}/${e.tx}/${e.op}/${e.event}/${e.ledgerOrdinal}/${Buffer.from(e.payload).toString('hex')}`,
    ),
  };
}

async function allPages(
  reader: ChunkReader,
  range: { oldestLedger: number; latestLedger: number },
  scope: Parameters<typeof queryEvents>[1],
  limit: number,
) {
  const source = { ledgerRange: () => range, openChunk: async () => reader };
  const pages: ReturnType<typeof pageShape>[] = [];
  let page = await queryEvents(source, scope, undefined, limit);
  pages.push(pageShape(page));
  while (page.cursor !== undefined && pages.length < 200) {
    page = await queryEvents(source, scope, page.cursor, limit);
    pages.push(pageShape(page));
  }
  return pages;
}

describe('@strata/match over a frozen chunk equals the hot chunk it was frozen from', () => {
  it('property 1: pager pages through cursors, both directions', async () => {
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(corpusArb, fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (corpus, queries) => {
        const chunk = await build(corpus);
        try {
          const range = { oldestLedger: chunk.start, latestLedger: chunk.start + chunk.count - 1 };
          for (const q of queries) {
            const minLedger = chunk.start + (q.from % chunk.count);
            const maxLedger = minLedger + (q.span % (chunk.start + chunk.count - minLedger));
            const filters = await anchoredFilters(chunk.hot, q.filters, q.anchor, 0, chunk.hot.eventCount());
            const scope = { minLedger, maxLedger, order: q.order, filters };
            const want = await allPages(chunk.hot, range, scope, q.limit);
            expect(await allPages(chunk.cold, range, scope, q.limit)).toEqual(want);
            matched += want.reduce((n, p) => n + p.events.length, 0);
          }
        } finally {
          await chunk.close();
        }
      }),
      propertyParams({ numRuns: 25 }),
    );
    expect(matched).toBeGreaterThan(100);
  });

  it('property 2: the engine at slab widths 2^4 and 2^10, mapped and unmapped cold readers', async () => {
    let informative = 0;
    await fc.assert(
      fc.asyncProperty(corpusArb, fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (corpus, queries) => {
        const chunk = await build(corpus);
        const { storage, indexStorage } = storagesIn(chunk.dir);
        const unmapped = await ColdChunkReader.open({
          chunkId: CHUNK,
          storage: new UnmappedStorage(storage),
          indexStorage: new UnmappedStorage(indexStorage),
        });
        try {
          const total = chunk.hot.eventCount();
          for (const q of queries) {
            const startOrdinal = total === 0 ? 0 : q.from % (total + 1);
            const window = { start: startOrdinal, end: startOrdinal + (q.span % (total - startOrdinal + 1)) };
            const filters = await anchoredFilters(chunk.hot, q.filters, q.anchor, window.start, window.end);
            const plan = planQuery(filters);
            const post = compilePostFilter(filters);
            for (const slabShift of [4, 10]) {
              const run = async (reader: ChunkReader) => {
                const out: string[] = [];
                for await (const m of matchEvents(reader, plan, post, window, {
                  direction: q.order,
                  firstBatch: q.limit,
                  slabShift,
                })) {
                  out.push(`${m.ordinal}:${Buffer.from(m.payload).toString('hex')}`);
                }
                return out;
              };
              const want = await run(chunk.hot);
              expect(await run(chunk.cold)).toEqual(want);
              expect(await run(unmapped)).toEqual(want);
              if (want.length > 0 && want.length < window.end - window.start) informative++;
            }
          }
        } finally {
          await unmapped.close();
          await chunk.close();
        }
      }),
      propertyParams({ numRuns: 20 }),
    );
    // Windows where a query matched part of the window (not nothing, not everything): the anchored filters make
    // them common (an anchored window always matches; most of its events belong to other contracts or topics).
    expect(informative).toBeGreaterThan(10);
  });
});
