// @strata/match over the hot store answers exactly as over InMemoryChunkReader. Properties:
// 1. Pager: random corpora (one chunk, a random start inside it) and random filter sets over the corpus vocabulary
//    (contracts, types, topics, exact and at-least topic counts, match-all), both directions, random limits, paged
//    through encoded cursors to COMPLETE: every page (events, payload bytes, status, cursor) is identical.
// 2. Engine: matchEvents over the same windows at slab widths 2^4 and 2^10 (many slabs from small corpora): the
//    same ordinals and payloads in the same order, from the store's own reader and from a worker-style reader.
// Not vacuous: the run counts pages with matches, and queries that match neither nothing nor everything.
import { join } from 'node:path';
import type { ChunkReader } from '@strata/events';
import { compilePostFilter, encodeCursorV2, type StorageFilter } from '@strata/events';
import { type EventPage, matchEvents, planQuery, queryEvents } from '@strata/match';
import { InMemoryChunkReader } from '@strata/test-contracts';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HotStore, openHotReader } from '../src/index.js';
import { CONTRACTS, syntheticLedger, TOPIC0, u32 } from './support.js';

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

const corpusArb: fc.Arbitrary<Corpus> = fc.record({
  seed: fc.nat(),
  shift: fc.integer({ min: 0, max: 9_700 }),
  ledgers: fc.integer({ min: 1, max: 250 }),
  maxEvents: fc.integer({ min: 0, max: 40 }),
});

const queryArb = fc.record({
  filters: fc.oneof(
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 6, arbitrary: fc.array(filterArb, { minLength: 1, maxLength: 4 }) },
  ),
  order: fc.constantFrom('asc' as const, 'desc' as const),
  limit: fc.integer({ min: 1, max: 300 }),
  from: fc.nat(),
  span: fc.nat(),
});

interface Corpus {
  seed: number;
  shift: number;
  ledgers: number;
  maxEvents: number;
}

function build(corpus: Corpus) {
  const start = FIRST + corpus.shift;
  const count = Math.min(corpus.ledgers, FIRST + 9_999 - start + 1);
  const ledgers = Array.from({ length: count }, (_, i) => syntheticLedger(corpus.seed, start + i, corpus.maxEvents));
  const path = join(tempDir('diff'), 'chunk.db');
  const store = HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
  // Half one ledger per transaction, half backfill batches.
  const half = Math.floor(count / 2);
  ledgers.slice(0, half).forEach((payloads, i) => {
    store.ingestLedger(start + i, payloads);
  });
  if (count > half)
    store.ingestLedgers(ledgers.slice(half).map((payloads, i) => ({ ledger: start + half + i, payloads })));
  return { start, count, ledgers, path, store, memory: new InMemoryChunkReader({ startLedger: start, ledgers }) };
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

describe('@strata/match over the hot store equals InMemoryChunkReader', () => {
  it('property 1: pager pages through cursors, both directions', async () => {
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(corpusArb, fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (corpus, queries) => {
        const { start, count, store, memory } = build(corpus);
        try {
          const range = { oldestLedger: start, latestLedger: start + count - 1 };
          for (const q of queries) {
            const minLedger = start + (q.from % count);
            const maxLedger = minLedger + (q.span % (start + count - minLedger));
            const scope = { minLedger, maxLedger, order: q.order, filters: q.filters };
            const hot = await allPages(store.reader(), range, scope, q.limit);
            const want = await allPages(memory, range, scope, q.limit);
            expect(hot).toEqual(want);
            matched += want.reduce((n, p) => n + p.events.length, 0);
          }
        } finally {
          store.close();
        }
      }),
      propertyParams({ numRuns: 40 }),
    );
    expect(matched).toBeGreaterThan(1_000);
  });

  it('property 2: the engine at slab widths 2^4 and 2^10, store reader and worker-style reader', async () => {
    let informative = 0;
    await fc.assert(
      fc.asyncProperty(corpusArb, fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (corpus, queries) => {
        const { store, memory, path } = build(corpus);
        const worker = openHotReader(path, { chunkId: CHUNK });
        try {
          const total = memory.eventCount();
          for (const q of queries) {
            const startOrdinal = total === 0 ? 0 : q.from % (total + 1);
            const window = { start: startOrdinal, end: startOrdinal + (q.span % (total - startOrdinal + 1)) };
            const plan = planQuery(q.filters);
            const post = compilePostFilter(q.filters);
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
              const want = await run(memory);
              expect(await run(store.reader())).toEqual(want);
              expect(await run(worker)).toEqual(want);
              if (want.length > 0 && want.length < window.end - window.start) informative++;
            }
          }
        } finally {
          await worker.close();
          store.close();
        }
      }),
      propertyParams({ numRuns: 30 }),
    );
    expect(informative).toBeGreaterThan(3);
  });
});
