// The engine suite's checks as plain async functions over an Engine, so each test file runs them against
// matchEvents and the negative controls run the same functions against matchEventsWith faults and require them to
// fail (the pattern of @strata/test-contracts' chunkReaderChecks). Each throws on its first wrong answer, naming it.
import type { ChunkReader, OrdinalWindow, StorageFilter } from '@strata/events';
import type { InMemoryChunkReader } from '@strata/test-contracts';
import { expect } from 'vitest';
import { type Direction, MATCH_BATCH_SIZE } from '../../src/engine/types.js';
import { type Corpus, readerOf } from './corpus.js';
import { expectedStream, oracleMatches } from './oracle.js';
import { TracingReader } from './readers.js';
import {
  describeQuery,
  type Engine,
  expectStream,
  firstBatchOf,
  pageToEnd,
  type Query,
  runQuery,
  type Schedule,
} from './run-engine.js';

export const DIRECTIONS: readonly Direction[] = ['asc', 'desc'];

/** The oracle's whole-corpus answer per filter list, computed once per list. */
export class OracleCache {
  private readonly answers = new Map<readonly StorageFilter[], Uint32Array>();
  constructor(readonly corpus: Corpus) {}
  matches(filters: readonly StorageFilter[]): Uint32Array {
    let answer = this.answers.get(filters);
    if (answer === undefined) {
      answer = oracleMatches(this.corpus, filters);
      this.answers.set(filters, answer);
    }
    return answer;
  }
}

/** A corpus with its reference reader and its oracle: what every engine test file opens once. */
export interface Fixture {
  readonly corpus: Corpus;
  readonly reader: InMemoryChunkReader;
  readonly oracle: OracleCache;
}

export function fixtureOf(corpus: Corpus): Fixture {
  return { corpus, reader: readerOf(corpus), oracle: new OracleCache(corpus) };
}

/** A check of one query through `reader`; `label` prefixes its assertion messages. */
export type QueryCheck = (
  engine: Engine,
  reader: ChunkReader,
  oracle: OracleCache,
  query: Query,
  schedule?: Schedule,
  label?: string,
) => Promise<void>;

/** One query against the oracle: the engine's stream must be the oracle's, payloads included. */
export const checkQuery: QueryCheck = async (engine, reader, oracle, query, schedule = {}, label = '') => {
  const got = await runQuery(engine, reader, query, schedule);
  const want = expectedStream(oracle.matches(query.filters), query.window, query.direction, query.limit);
  expectStream(oracle.corpus, got, want, `${label} ${describeQuery(query, schedule)}`);
};

export interface MatrixSpec {
  readonly shapes: readonly { readonly name: string; readonly filters: readonly StorageFilter[] }[];
  readonly windows: readonly { readonly name: string; readonly window: OrdinalWindow }[];
  /** Page limits; undefined drains the window. */
  readonly limits: readonly (number | undefined)[];
  readonly schedules?: readonly Schedule[];
}

/** Every shape × window × direction × limit × schedule against the oracle. */
export async function checkMatrix(
  engine: Engine,
  reader: ChunkReader,
  oracle: OracleCache,
  spec: MatrixSpec,
): Promise<number> {
  let queries = 0;
  for (const shape of spec.shapes) {
    for (const { name, window } of spec.windows) {
      for (const direction of DIRECTIONS) {
        for (const limit of spec.limits) {
          for (const schedule of spec.schedules ?? [{}]) {
            const query: Query =
              limit === undefined
                ? { filters: shape.filters, window, direction }
                : { filters: shape.filters, window, direction, limit };
            await checkQuery(engine, reader, oracle, query, schedule, `${shape.name} / ${name}:`);
            queries++;
          }
        }
      }
    }
  }
  return queries;
}

/**
 * Pages through the window to its end, each page resuming past the last delivered ordinal: every page is the
 * oracle's page of the window left, and the pages together are the oracle's whole stream.
 */
export async function checkPaging(
  engine: Engine,
  reader: ChunkReader,
  oracle: OracleCache,
  query: Query & { readonly limit: number },
  schedule: Schedule = {},
  label = '',
): Promise<number> {
  const pages = await pageToEnd(engine, reader, query, schedule);
  const want = expectedStream(oracle.matches(query.filters), query.window, query.direction);
  const got = pages.flat();
  expectStream(oracle.corpus, got, want, `${label} paged ${describeQuery(query, schedule)}`);
  // Every page but the last is full (the walk cannot come back short while matches remain in one chunk).
  pages.slice(0, -1).forEach((page, i) => {
    expect(page.length, `${label} page ${i}`).toBe(query.limit);
  });
  return pages.length;
}

/**
 * The fetch tracer (upstream TestMatches_FetchesOnlyTrueCandidates). The ordinals fetched, in emission order (a
 * descending batch reversed), are exactly the answer's leading run, at least the page; each batch is non-empty and
 * ascending; the first holds at most firstBatch ordinals and later ones at most batchSize; and a consumer that stops
 * after a page fetched only the batches the page spans (every batch but the last was needed to fill it). Output
 * equality cannot see an over-wide candidate set, since the post-filter drops it; this can. The query must plan to
 * index terms (match-all streams fetchRange) and the plans must be exact (no term collisions), so candidates =
 * matches.
 */
export const checkFetches: QueryCheck = async (engine, reader, oracle, query, schedule = {}, label = '') => {
  const tracer = new TracingReader(reader);
  const got = await runQuery(engine, tracer, query, schedule);
  const what = `${label} ${describeQuery(query, schedule)}`;
  const answer = expectedStream(oracle.matches(query.filters), query.window, query.direction);
  const page = Math.min(query.limit ?? Number.POSITIVE_INFINITY, answer.length);
  expect(got.length, `${what}: page length`).toBe(page);
  expect(tracer.rangeWindows, `${what}: an index query never streams fetchRange`).toEqual([]);
  const batches = tracer.fetchBatches;
  const firstBatch = firstBatchOf(query.limit);
  const batchSize = schedule.batchSize ?? MATCH_BATCH_SIZE;
  const fetched: number[] = [];
  batches.forEach((batch, i) => {
    expect(batch.length, `${what}: batch ${i} is empty`).toBeGreaterThan(0);
    const unordered = batch.findIndex((o, k) => k > 0 && o <= batch[k - 1]!);
    expect(unordered, `${what}: batch ${i} is not strictly ascending`).toBe(-1);
    expect(batch.length, `${what}: batch ${i} of ${batch.length} ordinals`).toBeLessThanOrEqual(
      i === 0 ? firstBatch : Math.max(firstBatch, batchSize),
    );
    const inOrder = query.direction === 'asc' ? batch : [...batch].reverse();
    for (const ordinal of inOrder) fetched.push(ordinal);
  });
  expect(
    fetched.length,
    `${what}: fetched ${fetched.length} ordinals, the answer holds ${answer.length}`,
  ).toBeLessThanOrEqual(answer.length);
  expect(fetched, `${what}: the fetched ordinals are not the answer's leading run`).toEqual(
    answer.slice(0, fetched.length),
  );
  expect(fetched.length, `${what}: the page was served without fetching it`).toBeGreaterThanOrEqual(page);
  const beforeLast = fetched.length - (batches[batches.length - 1]?.length ?? 0);
  if (batches.length > 0) {
    expect(beforeLast, `${what}: fetched a batch the page did not need`).toBeLessThan(page);
  }
};
