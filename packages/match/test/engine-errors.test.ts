// Reader failures through the engine. Properties:
// 1. A reader whose lookupTerms, fetchEvents or fetchRange rejects (at its first call, or after earlier calls
//    succeeded: stage 2's lookup, a later fetch batch) makes the walk reject with MatchError READER_FAILED, the
//    reader's own error as `cause` (the same object, whatever its class) and the reader's chunkId; the matches
//    yielded before the failure are the oracle's; the generator is finished afterwards.
// 2. An eventCount that throws is READER_FAILED too.
// 3. A window past the reader's eventCount is the caller's bug: MatchError INVALID_ARGUMENT, before any lookup.
// 4. Lazy: no reader call before the first pull; after return() the walk is finished and calls nothing more. A
//    trace hook that throws ends the walk with that error (MatchTrace's contract).
import { type ChunkReader, compilePostFilter, EventsError, EventsErrorCode } from '@strata/events';
import { rejectionOf } from '@strata/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchEvents } from '../src/engine/match-events.js';
import type { MatchTrace } from '../src/engine/types.js';
import { MatchError, MatchErrorCode } from '../src/errors.js';
import { planQuery } from '../src/planner/query-plan.js';
import { type Fixture, fixtureOf } from './support/engine-checks.js';
import { expectedStream } from './support/oracle.js';
import { FailingReader, type ReaderMethod, TracingReader } from './support/readers.js';
import { type Query, realEngine, runQuery, type Schedule } from './support/run-engine.js';
import { SHAPED_CORPUS_SIZE, SHAPES, shapedCorpus } from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

const WHOLE = { start: 0, end: SHAPED_CORPUS_SIZE };

interface FailureCase {
  readonly name: string;
  readonly method: ReaderMethod;
  /** Calls of `method` that succeed before it rejects. */
  readonly succeed: number;
  readonly query: Query;
  readonly schedule?: Schedule;
}

const CASES: readonly FailureCase[] = [
  {
    name: 'the first lookup',
    method: 'lookupTerms',
    succeed: 0,
    query: { filters: SHAPES.union, window: WHOLE, direction: 'asc' },
  },
  {
    name: "stage 2's lookup",
    method: 'lookupTerms',
    succeed: 1,
    query: { filters: SHAPES.union, window: WHOLE, direction: 'desc' },
    schedule: { slabShift: 10, stage1Slabs: 1 },
  },
  {
    name: 'the first fetch',
    method: 'fetchEvents',
    succeed: 0,
    query: { filters: SHAPES.denseOnly, window: WHOLE, direction: 'asc', limit: 10 },
  },
  {
    name: 'a later fetch batch',
    method: 'fetchEvents',
    succeed: 2,
    query: { filters: SHAPES.denseOnly, window: WHOLE, direction: 'desc' },
    schedule: { batchSize: 7 },
  },
  {
    name: 'the first range',
    method: 'fetchRange',
    succeed: 0,
    query: { filters: SHAPES.matchAllEmpty, window: WHOLE, direction: 'desc' },
  },
  {
    name: 'a later range block',
    method: 'fetchRange',
    succeed: 1,
    query: { filters: SHAPES.matchAllWildcard, window: WHOLE, direction: 'asc' },
  },
];

describe('a failing reader call rejects with READER_FAILED, its error as cause', () => {
  for (const c of CASES) {
    for (const error of [
      new Error(`disk gone in ${c.name}`),
      new EventsError(EventsErrorCode.TRUNCATED, 'short read'),
    ]) {
      it(`${c.name} (${error.constructor.name})`, async () => {
        const tracer = new TracingReader(fx.reader);
        const failing = new FailingReader(tracer, c.method, error, c.succeed);
        const thrown = await rejectionOf(MatchError, () => runQuery(realEngine, failing, c.query, c.schedule ?? {}));
        expect(thrown.code).toBe(MatchErrorCode.READER_FAILED);
        expect(thrown.cause).toBe(error);
        expect(thrown.chunkId).toBe(fx.reader.chunkId);
        // Not vacuous: the failing call is the one after `succeed` successful calls of it.
        expect(tracer.calls.filter((call) => call.kind === c.method)).toHaveLength(c.succeed);
      });
    }
  }

  it("the matches before a failure are the fx.oracle's, and the generator is finished after it", async () => {
    const error = new Error('third batch');
    const failing = new FailingReader(fx.reader, 'fetchEvents', error, 2);
    const filters = SHAPES.denseOnly;
    const walk = matchEvents(failing, planQuery(filters), compilePostFilter(filters), WHOLE, {
      direction: 'asc',
      firstBatch: 5,
      batchSize: 7,
    });
    const got: number[] = [];
    const thrown = await rejectionOf(MatchError, async () => {
      for await (const match of walk) got.push(match.ordinal);
    });
    expect(thrown.code).toBe(MatchErrorCode.READER_FAILED);
    expect(thrown.cause).toBe(error);
    expect(got).toEqual(expectedStream(fx.oracle.matches(filters), WHOLE, 'asc', 12));
    expect(await walk.next()).toEqual({ done: true, value: undefined });
  });
});

describe('eventCount and windows', () => {
  it('an eventCount that throws is READER_FAILED', async () => {
    const error = new Error('no count');
    const broken = new FailingReader(fx.reader, 'eventCount', error);
    const thrown = await rejectionOf(MatchError, () =>
      runQuery(realEngine, broken, { filters: SHAPES.union, window: WHOLE, direction: 'asc' }),
    );
    expect(thrown.code).toBe(MatchErrorCode.READER_FAILED);
    expect(thrown.cause).toBe(error);
  });

  it('a window past eventCount is INVALID_ARGUMENT, before any lookup', async () => {
    for (const filters of [SHAPES.union, SHAPES.matchAllEmpty]) {
      const tracer = new TracingReader(fx.reader);
      const thrown = await rejectionOf(MatchError, () =>
        runQuery(realEngine, tracer, { filters, window: { start: 0, end: SHAPED_CORPUS_SIZE + 1 }, direction: 'asc' }),
      );
      expect(thrown.code).toBe(MatchErrorCode.INVALID_ARGUMENT);
      expect(tracer.calls).toEqual([]);
    }
  });
});

describe('laziness, return() and hooks', () => {
  const walkOf = (r: ChunkReader, filters = SHAPES.denseOnly, trace: MatchTrace = {}) =>
    matchEvents(r, planQuery(filters), compilePostFilter(filters), WHOLE, { direction: 'desc', firstBatch: 3, trace });

  it('nothing is looked up or fetched before the first pull; return() ends the walk', async () => {
    for (const filters of [SHAPES.denseOnly, SHAPES.matchAllEmpty]) {
      const tracer = new TracingReader(fx.reader);
      const walk = walkOf(tracer, filters);
      expect(tracer.calls).toEqual([]);
      const first = await walk.next();
      expect(first.done).toBe(false);
      const calls = tracer.calls.length;
      expect(calls).toBeGreaterThan(0);
      expect(await walk.return()).toEqual({ done: true, value: undefined });
      expect(await walk.next()).toEqual({ done: true, value: undefined });
      expect(tracer.calls).toHaveLength(calls);
    }
  });

  it('a trace hook that throws ends the walk with its error', async () => {
    const error = new Error('hook');
    for (const trace of [
      {
        onSlab: () => {
          throw error;
        },
      },
      {
        onLookup: () => {
          throw error;
        },
      },
      {
        onFetch: () => {
          throw error;
        },
      },
    ] satisfies MatchTrace[]) {
      const walk = walkOf(fx.reader, SHAPES.denseOnly, trace);
      await expect(walk.next()).rejects.toBe(error);
    }
  });
});
