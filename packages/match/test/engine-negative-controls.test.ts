// Negative controls: the suite's checks, run against deliberately broken engines (matchEventsWith faults, and the
// real engine handed a post-filter that keeps everything), must fail; a check that passed against every broken
// engine would prove nothing. Each control must fail exactly the checks named for it and pass the others. Properties:
// 1. skipOneSlabTooFar (a jump across slabs lands one slab further on) fails every check: the differential ones
//    (shaped matrix at 2^16 and 2^10, whole streams, paging, random corpora), the fetch tracers and the slab pins.
// 2. fetchWholeCandidateSet (each stage's whole candidate set fetched in one batch, no slab walk) fails the fetch
//    tracer (shaped and random) and the slab pins, while every differential check passes: output equality cannot
//    see an over-wide fetch, which is why the tracer exists.
// 3. An engine whose post-filter keeps everything fails the false-positive check (colliding lookups) and only it:
//    on an exact index the post-filter removes nothing, so only collisions show it is applied.
// 4. The real engine passes every check here (the same functions the other engine test files run).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkFetches,
  checkMatrix,
  checkPaging,
  DIRECTIONS,
  type Fixture,
  fixtureOf,
} from './support/engine-checks.js';
import { randomDifferential, randomFetches } from './support/random-checks.js';
import { rareCorpus, SKIP_SHAPES } from './support/rare-corpus.js';
import { CollidingReader } from './support/readers.js';
import { type Engine, faultyEngine, realEngine } from './support/run-engine.js';
import {
  INDEX_SHAPES,
  NAMED_SHAPES,
  SHAPED_CORPUS_SIZE,
  SHAPED_WINDOWS,
  SLAB,
  shapedCorpus,
  WHOLE_STREAM_WINDOWS,
} from './support/shaped-corpus.js';
import { checkShapeSlabs } from './support/slab-checks.js';

let shaped: Fixture;
let rare: Fixture;

beforeAll(() => {
  shaped = fixtureOf(shapedCorpus());
  rare = fixtureOf(rareCorpus());
});

const noStats = () => ({ queries: 0, informative: 0, matched: 0 });

/**
 * The suite's checks by name, each a promise that rejects when the engine gives a wrong answer. The random ones run
 * with a fixed seed: a control must fail on every run, not on most.
 */
const CHECKS: Record<string, (engine: Engine) => Promise<unknown>> = {
  'shaped matrix 2^16': (engine) =>
    checkMatrix(engine, shaped.reader, shaped.oracle, {
      shapes: NAMED_SHAPES,
      windows: SHAPED_WINDOWS,
      limits: [1, 1000],
    }),
  'shaped matrix 2^10': (engine) =>
    checkMatrix(engine, shaped.reader, shaped.oracle, {
      shapes: NAMED_SHAPES,
      windows: SHAPED_WINDOWS,
      limits: [1, 1000],
      schedules: [{ slabShift: 10 }],
    }),
  'whole streams 2^10': (engine) =>
    checkMatrix(engine, shaped.reader, shaped.oracle, {
      shapes: NAMED_SHAPES,
      windows: WHOLE_STREAM_WINDOWS,
      limits: [undefined],
      schedules: [{ slabShift: 10 }],
    }),
  'paging to the end 2^10': async (engine) => {
    for (const shape of INDEX_SHAPES) {
      for (const direction of DIRECTIONS) {
        await checkPaging(
          engine,
          shaped.reader,
          shaped.oracle,
          { filters: shape.filters, window: { start: 0, end: SHAPED_CORPUS_SIZE }, direction, limit: 1000 },
          { slabShift: 10 },
          shape.name,
        );
      }
    }
  },
  'fetch tracer (shaped)': async (engine) => {
    for (const shape of INDEX_SHAPES) {
      for (const window of [
        { start: 0, end: SHAPED_CORPUS_SIZE },
        { start: SLAB - 3, end: SLAB + 3 },
      ]) {
        for (const direction of DIRECTIONS) {
          for (const limit of [1, 1000]) {
            await checkFetches(engine, shaped.reader, shaped.oracle, {
              filters: shape.filters,
              window,
              direction,
              limit,
            });
          }
        }
      }
    }
  },
  'slabs opened (skip corpus)': async (engine) => {
    for (const shape of SKIP_SHAPES) await checkShapeSlabs(engine, rare.reader, rare.oracle, shape.filters, [8]);
  },
  'false positives (shaped)': (engine) =>
    checkMatrix(engine, new CollidingReader(shaped.reader, 1), shaped.oracle, {
      shapes: INDEX_SHAPES,
      windows: [SHAPED_WINDOWS[0]!, SHAPED_WINDOWS[14]!],
      limits: [37],
    }),
  'random differential 2^10': (engine) =>
    randomDifferential(
      engine,
      { slabShift: 10, minSize: 1, maxSize: 20_000, numRuns: 8, queries: 6, endOnFailure: true, seed: 18 },
      noStats(),
    ),
  'random fetch tracer 2^10': (engine) =>
    randomFetches(
      engine,
      { slabShift: 10, minSize: 1, maxSize: 12_000, numRuns: 6, queries: 4, endOnFailure: true, seed: 18 },
      noStats(),
    ),
};

/** Runs every check against `engine`; the names of those that failed, with their first message line. */
async function tripped(engine: Engine): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  for (const [name, check] of Object.entries(CHECKS)) {
    try {
      await check(engine);
    } catch (error) {
      failures.set(name, String((error as Error).message).split('\n')[0]!);
    }
  }
  return failures;
}

/** The post-filter the engine is given, replaced by one that keeps every candidate. */
const withoutPostFilter: Engine = (reader, plan, _postFilter, window, options) =>
  realEngine(reader, plan, () => true, window, options);

/** Each broken engine and every check it must fail; it must pass the others. */
const CONTROLS: readonly { name: string; engine: Engine; trips: string[] }[] = [
  // Every check: a skipped slab loses matches (every stream check), and the walk it leaves is not the pinned one.
  { name: 'skipOneSlabTooFar', engine: faultyEngine({ skipOneSlabTooFar: true }), trips: Object.keys(CHECKS) },
  // Only the fetch tracers and the slab pins: the output is right, the work is not.
  {
    name: 'fetchWholeCandidateSet',
    engine: faultyEngine({ fetchWholeCandidateSet: true }),
    trips: ['fetch tracer (shaped)', 'slabs opened (skip corpus)', 'random fetch tracer 2^10'],
  },
  // Only the false positives: on an exact index the post-filter has nothing to remove.
  { name: 'post-filter skipped', engine: withoutPostFilter, trips: ['false positives (shaped)'] },
];

describe('negative controls', () => {
  it('the real engine passes every check', async () => {
    expect(await tripped(realEngine)).toEqual(new Map());
  });

  for (const control of CONTROLS) {
    it(`${control.name} fails exactly the checks that guard against it`, async () => {
      const failures = await tripped(control.engine);
      expect([...failures.keys()].sort(), [...failures].map(([k, v]) => `${k}: ${v}`).join('\n')).toEqual(
        [...control.trips].sort(),
      );
    });
  }
});
