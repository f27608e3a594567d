// Negative controls: the suite's checks, run against deliberately broken engines (matchEventsWith faults, and the
// real engine handed a post-filter that keeps everything), must fail; a check that passed against every broken
// engine would prove nothing. Each control runs with one stage walk (the auto choice, slabs forced or spans forced)
// and must fail exactly the checks named for it among those that apply to its walk (the slab pins to the slab walk,
// the span checks to the span walk), and pass the others. Properties:
// 1. skipOneSlabTooFar (a jump across slabs lands one slab further on; slabs forced) fails every check of the slab
//    walk: the differential ones (shaped matrix at 2^16 and 2^10, whole streams, paging, random corpora), the fetch
//    tracers and the slab pins.
// 2. fetchWholeCandidateSet (each stage's whole candidate set fetched in one batch, neither walk) fails the fetch
//    tracer (shaped and random) and the slab pins (slabs forced) or the span checks (spans forced), while every
//    differential check passes: output equality cannot see an over-wide fetch, which is why the tracer exists.
// 3. spanDropsEdgeOrdinal (the span walk leaves the first ordinal of each span in walk order out; spans forced)
//    fails every check of the span walk: a match on a span's edge (the window's first ordinal, a slab boundary) is
//    lost, which the differential checks, the fetch tracers and the span checks each see.
// 4. An engine whose post-filter keeps everything fails the false-positive check (colliding lookups) and only it:
//    on an exact index the post-filter removes nothing, so only collisions show it is applied.
// 5. The real engine passes every check here with each walk (the same functions the other engine test files run).
import { beforeAll, describe, expect, it } from 'vitest';
import { SPAN_MAX_VALUES } from '../src/engine/span-walk.js';
import {
  checkFetches,
  checkMatrix,
  checkPaging,
  DIRECTIONS,
  type Fixture,
  fixtureOf,
} from './support/engine-checks.js';
import { randomDifferential, randomFetches } from './support/random-checks.js';
import { RARE_SLAB_SHIFT, rareCorpus, SKIP_SHAPES, SKIP_WINDOWS } from './support/rare-corpus.js';
import { CollidingReader } from './support/readers.js';
import { type Engine, faultyEngine, realEngine, slabWalkEngine, spanWalkEngine } from './support/run-engine.js';
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
import { checkSpansWalked } from './support/span-checks.js';

let shaped: Fixture;
let rare: Fixture;

beforeAll(() => {
  shaped = fixtureOf(shapedCorpus());
  rare = fixtureOf(rareCorpus());
});

const noStats = () => ({ queries: 0, informative: 0, matched: 0 });

/** The span checks run against engines forced to spans, at the engine's own cap. */
const SPAN_CHECK = { maxValues: SPAN_MAX_VALUES, allStages: true } as const;

type Walk = 'auto' | 'slabs' | 'spans';

/** Checks that apply to one walk only: the slab pins to the slab stepper, the span checks to the span walk. */
const WALK_CHECKS: Record<string, Walk> = {
  'slabs opened (skip corpus)': 'slabs',
  'spans walked (shaped)': 'spans',
  'spans walked (skip corpus)': 'spans',
};

/** The checks that apply to an engine walking `walk`. */
function checksOf(walk: Walk): string[] {
  return Object.keys(CHECKS).filter((name) => WALK_CHECKS[name] === undefined || WALK_CHECKS[name] === walk);
}

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
  'spans walked (shaped)': async (engine) => {
    for (const shape of INDEX_SHAPES) {
      for (const window of [
        { start: 0, end: SHAPED_CORPUS_SIZE },
        { start: SLAB - 3, end: SLAB + 3 },
      ]) {
        for (const direction of DIRECTIONS) {
          for (const limit of [1, 7]) {
            const query = { filters: shape.filters, window, direction, limit };
            await checkSpansWalked(engine, shaped.reader, shaped.oracle, query, { slabShift: 10 }, SPAN_CHECK);
          }
        }
      }
    }
  },
  'spans walked (skip corpus)': async (engine) => {
    for (const shape of SKIP_SHAPES) {
      for (const { window } of SKIP_WINDOWS.slice(0, 2)) {
        for (const direction of DIRECTIONS) {
          const query = { filters: shape.filters, window, direction };
          await checkSpansWalked(engine, rare.reader, rare.oracle, query, { slabShift: RARE_SLAB_SHIFT }, SPAN_CHECK);
        }
      }
    }
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

/** Runs the checks that apply to `walk` against `engine`; the names of those that failed, with their first line. */
async function tripped(engine: Engine, walk: Walk): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  for (const name of checksOf(walk)) {
    try {
      await CHECKS[name]!(engine);
    } catch (error) {
      failures.set(name, String((error as Error).message).split('\n')[0]!);
    }
  }
  return failures;
}

/** The post-filter the engine is given, replaced by one that keeps every candidate. */
const withoutPostFilter: Engine = (reader, plan, _postFilter, window, options) =>
  realEngine(reader, plan, () => true, window, options);

const FETCH_TRACERS = ['fetch tracer (shaped)', 'random fetch tracer 2^10'];

/** Each broken engine, the walk it runs with, and every check it must fail; it must pass the others. */
const CONTROLS: readonly { name: string; walk: Walk; engine: Engine; trips: string[] }[] = [
  // Every check of the slab walk: a skipped slab loses matches (every stream check), and the walk it leaves is not
  // the pinned one.
  {
    name: 'skipOneSlabTooFar',
    walk: 'slabs',
    engine: faultyEngine({ skipOneSlabTooFar: true }, { stageWalk: 'slabs' }),
    trips: checksOf('slabs'),
  },
  // Only the fetch tracers and the walk's own pins: the output is right, the work is not.
  {
    name: 'fetchWholeCandidateSet',
    walk: 'slabs',
    engine: faultyEngine({ fetchWholeCandidateSet: true }, { stageWalk: 'slabs' }),
    trips: [...FETCH_TRACERS, 'slabs opened (skip corpus)'],
  },
  {
    name: 'fetchWholeCandidateSet',
    walk: 'spans',
    engine: faultyEngine({ fetchWholeCandidateSet: true }, { stageWalk: 'spans' }),
    trips: [...FETCH_TRACERS, 'spans walked (shaped)', 'spans walked (skip corpus)'],
  },
  // Every check of the span walk: an edge ordinal lost is a match lost, a fetch short and a span miscounted.
  {
    name: 'spanDropsEdgeOrdinal',
    walk: 'spans',
    engine: faultyEngine({ spanDropsEdgeOrdinal: true }, { stageWalk: 'spans' }),
    trips: checksOf('spans'),
  },
  // Only the false positives: on an exact index the post-filter has nothing to remove.
  { name: 'post-filter skipped', walk: 'auto', engine: withoutPostFilter, trips: ['false positives (shaped)'] },
];

describe('negative controls', () => {
  for (const [walk, engine] of [
    ['auto', realEngine],
    ['slabs', slabWalkEngine],
    ['spans', spanWalkEngine],
  ] as const) {
    it(`the real engine passes every check (${walk})`, async () => {
      expect(await tripped(engine, walk)).toEqual(new Map());
    });
  }

  for (const control of CONTROLS) {
    it(`${control.name} (${control.walk}) fails exactly the checks that guard against it`, async () => {
      const failures = await tripped(control.engine, control.walk);
      expect([...failures.keys()].sort(), [...failures].map(([k, v]) => `${k}: ${v}`).join('\n')).toEqual(
        [...control.trips].sort(),
      );
    });
  }
});
