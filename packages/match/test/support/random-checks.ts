// The randomized checks (upstream TestMatches_RandomizedAgainstPostFilter and its lookup-window and schedule
// variants) as functions over an Engine: random corpora and random queries (support/arbitraries.ts), each query run
// in both directions against the oracle. Plain functions so the negative controls can require them to fail.
import { isMatchAll } from '@strata/events';
import type { InMemoryChunkReader } from '@strata/test-contracts';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import type { Direction } from '../../src/engine/types.js';
import { corpusOf, corpusSpecArb, type RandomQuery, randomQueryArb, windowOf } from './arbitraries.js';
import { type Corpus, readerOf } from './corpus.js';
import { checkFetches, checkPaging, checkQuery, OracleCache } from './engine-checks.js';
import { expectedStream } from './oracle.js';
import { CollidingReader, type LookupRewrite, LookupRewritingReader } from './readers.js';
import type { Engine, Query, Schedule } from './run-engine.js';

export interface RandomParams {
  readonly slabShift: number;
  readonly minSize: number;
  readonly maxSize: number;
  readonly numRuns: number;
  /** Random queries per corpus (each in both directions). */
  readonly queries: number;
  /** Stop at the first failure without shrinking (negative controls, large corpora). */
  readonly endOnFailure?: boolean;
  /** A fixed seed (negative controls, which must fail on every run); STRATA_FC_SEED still overrides it. */
  readonly seed?: number;
}

/** How often the random queries were informative: some match in the window, and not every event a match. */
export interface RandomStats {
  queries: number;
  informative: number;
  matched: number;
}

const opposite = (d: Direction): Direction => (d === 'asc' ? 'desc' : 'asc');

type QueryBody = (
  reader: InMemoryChunkReader,
  corpus: Corpus,
  oracle: OracleCache,
  query: Query,
  random: RandomQuery,
) => Promise<void>;

/** Runs `body` for every random query of every random corpus, in both directions. */
function forRandomQueries(params: RandomParams, stats: RandomStats, body: QueryBody): Promise<void> {
  const slab = 2 ** params.slabShift;
  return fc.assert(
    fc.asyncProperty(
      corpusSpecArb(params.slabShift, params.minSize, params.maxSize),
      fc.array(randomQueryArb, { minLength: params.queries, maxLength: params.queries }),
      async (spec, queries) => {
        const corpus = corpusOf(spec);
        const oracle = new OracleCache(corpus);
        const reader = readerOf(corpus);
        for (const random of queries) {
          const window = windowOf(random.edges, corpus.eventCount, slab);
          const { filters } = random.filterSet;
          const inWindow = expectedStream(oracle.matches(filters), window, 'asc').length;
          stats.queries++;
          stats.matched += inWindow;
          if (inWindow > 0 && inWindow < window.end - window.start) stats.informative++;
          for (const direction of [random.direction, opposite(random.direction)]) {
            await body(reader, corpus, oracle, { filters, window, direction, limit: random.limit }, random);
          }
        }
      },
    ),
    propertyParams({
      numRuns: params.numRuns,
      ...(params.endOnFailure === true ? { endOnFailure: true } : {}),
      ...(params.seed === undefined ? {} : { seed: params.seed }),
    }),
  );
}

/**
 * The differential property: every random query's page is the oracle's, and (for half the queries) paging through
 * the window to its end gives the oracle's whole stream.
 */
export function randomDifferential(engine: Engine, params: RandomParams, stats: RandomStats): Promise<void> {
  const schedule: Schedule = { slabShift: params.slabShift };
  return forRandomQueries(params, stats, async (reader, _corpus, oracle, query, random) => {
    await checkQuery(engine, reader, oracle, query, schedule, random.filterSet.kind);
    if (random.pageToEnd) {
      await checkPaging(engine, reader, oracle, { ...query, limit: random.limit }, schedule, random.filterSet.kind);
    }
  });
}

/** Batch-schedule invariance: stage-1 widths 1 and 8 × batch sizes 1, 7 and 512 give the oracle's stream. */
export function randomScheduleInvariance(engine: Engine, params: RandomParams, stats: RandomStats): Promise<void> {
  return forRandomQueries(params, stats, async (reader, _corpus, oracle, query, random) => {
    for (const stage1Slabs of [1, 8]) {
      for (const batchSize of [1, 7, 512]) {
        const schedule = { slabShift: params.slabShift, stage1Slabs, batchSize };
        await checkQuery(engine, reader, oracle, query, schedule, random.filterSet.kind);
      }
    }
  });
}

/** The fetch tracer on random corpora: exact true candidates in emission order (index queries only). */
export function randomFetches(engine: Engine, params: RandomParams, stats: RandomStats): Promise<void> {
  return forRandomQueries(params, stats, async (reader, _corpus, oracle, query, random) => {
    if (isMatchAll(query.filters)) return;
    for (const schedule of [
      { slabShift: params.slabShift },
      { slabShift: params.slabShift, stage1Slabs: 1, batchSize: 7 },
    ]) {
      await checkFetches(engine, reader, oracle, query, schedule, random.filterSet.kind);
      await checkFetches(
        engine,
        reader,
        oracle,
        { filters: query.filters, window: query.window, direction: query.direction },
        schedule,
        random.filterSet.kind,
      );
    }
  });
}

/** Lookups rewritten outside the window they asked for (both rewrites, two seeds) leave every stream unchanged. */
export function randomLookupRewrites(engine: Engine, params: RandomParams, stats: RandomStats): Promise<void> {
  return forRandomQueries(params, stats, async (base, corpus, oracle, query, random) => {
    for (const rewrite of ['outside', 'clip'] satisfies LookupRewrite[]) {
      for (const seed of [1, 2]) {
        const reader = new LookupRewritingReader(base, rewrite, seed, 2 * corpus.eventCount + 64);
        for (const stage1Slabs of [1, 8]) {
          const schedule = { slabShift: params.slabShift, stage1Slabs, batchSize: 7 };
          await checkQuery(engine, reader, oracle, query, schedule, `${random.filterSet.kind} ${rewrite} seed ${seed}`);
        }
      }
    }
  });
}

/** Lookups with false positives inside the window (collisions): the post-filter removes them, the stream is unchanged. */
export function randomFalsePositives(engine: Engine, params: RandomParams, stats: RandomStats): Promise<void> {
  return forRandomQueries(params, stats, async (base, _corpus, oracle, query, random) => {
    for (const seed of [1, 2]) {
      const reader = new CollidingReader(base, seed, 64);
      for (const stage1Slabs of [1, 8]) {
        const schedule = { slabShift: params.slabShift, stage1Slabs };
        await checkQuery(engine, reader, oracle, query, schedule, `${random.filterSet.kind} colliding seed ${seed}`);
      }
    }
  });
}
