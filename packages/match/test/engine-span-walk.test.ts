// The span walk (src/engine/span-walk.ts): a stage of sparse plans evaluated natively over spans of whole slabs,
// through the whole engine. Properties:
// 1. The choice: the real engine walks a stage by spans exactly when every plan's rarest term holds at most 1/16 of
//    the stage (rare-led shapes: onSpan, no onSlab), else slab by slab (chunk-sized terms: onSlab, no onSpan).
// 2. Differential with spans forced on every stage: every named shape of the shaped corpus × windows on, beside and
//    across slab boundaries × both directions × limits 1, 7 and none, at slab widths 2^16 and 2^10, and with the
//    span cap cut to 64 candidates so spans are cut before they are evaluated: the oracle's stream, payloads
//    byte-identical; and paging to the end through the window, each page resuming past the last ordinal.
// 3. The spans themselves (support/span-checks.ts): they tile each stage from its starting edge in walk order, cut
//    on slab boundaries; each reports exactly the index's candidates inside it; none of more than one slab exceeds
//    the cap; none is opened after the page filled, and a stage run out is walked to its far edge. On the shaped
//    corpus (slab widths 2^10 and 2^4, both caps) and on the skip corpus (rare terms hundreds of slabs apart, every
//    skip window and stage-1 width), spans forced and auto.
// 4. A consumer that wants one match from a stage whose first slab holds one evaluates one span of one slab.
// 5. Fetch tracer with spans forced: the ordinals fetched are exactly the true candidates' leading run in emission
//    order, in batches the page spans.
// The negative control (a span walk that leaves the first ordinal of every span out) is in
// engine-negative-controls.test.ts.
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
import { RARE_SLAB_SHIFT, rareCorpus, SKIP_SHAPES, SKIP_WINDOWS } from './support/rare-corpus.js';
import { type Engine, faultyEngine, type Query, realEngine, spanWalkEngine } from './support/run-engine.js';
import {
  INDEX_SHAPES,
  SCHEDULE_WINDOWS,
  SHAPED_CORPUS_SIZE,
  SHAPED_WINDOWS,
  SHAPES,
  SLAB,
  shapedCorpus,
  WHOLE_STREAM_WINDOWS,
} from './support/shaped-corpus.js';
import { checkSpansWalked, recordSpans } from './support/span-checks.js';

/** The cap the small-cap runs use: the shaped corpus's dense plans then cut spans to one or two slabs of 2^10. */
const SMALL_CAP = 64;
const spansCapped: Engine = faultyEngine({}, { stageWalk: 'spans', spanMaxValues: SMALL_CAP });
const autoCapped: Engine = faultyEngine({}, { spanMaxValues: SMALL_CAP });

const LIMITS = [1, 7, undefined] as const;

let shaped: Fixture;
let rare: Fixture;

beforeAll(() => {
  shaped = fixtureOf(shapedCorpus());
  rare = fixtureOf(rareCorpus());
});

describe('the choice between the walks', () => {
  it('rare-led stages walk by spans, chunk-sized ones slab by slab, never both', async () => {
    const whole = { start: 0, end: SHAPED_CORPUS_SIZE };
    for (const direction of DIRECTIONS) {
      for (const slabShift of [10, 16]) {
        // contract 2: 5 ids of 70,000; contract 2 ∧ topic0 beta: led by the same 5.
        for (const filters of [SHAPES.sparseOnly, SHAPES.mixedGroups]) {
          const record = await recordSpans(
            realEngine,
            shaped.reader,
            { filters, window: whole, direction },
            { slabShift },
          );
          expect(record.spans.length, `${direction} 2^${slabShift}`).toBeGreaterThan(0);
          expect(record.slabs).toBe(0);
        }
        // contract 0: every other id; contract 0 ∧ topic0 beta: both terms chunk-sized.
        for (const filters of [SHAPES.denseOnly, SHAPES.thinOverlap]) {
          const record = await recordSpans(
            realEngine,
            shaped.reader,
            { filters, window: whole, direction },
            { slabShift },
          );
          expect(record.slabs, `${direction} 2^${slabShift}`).toBeGreaterThan(0);
          expect(record.spans).toEqual([]);
        }
      }
    }
  });

  it('a plan is sparse against its stage: 1/16 of the stage, not of the chunk', async () => {
    // Contract 2 (5 ids of 70,000) inside the 8 ids around the slab boundary: one id, 1/8 of that stage, so the
    // stage walks slab by slab; over the whole corpus (the test above) it walks by spans.
    const window = { start: SLAB - 4, end: SLAB + 4 };
    const record = await recordSpans(
      realEngine,
      shaped.reader,
      { filters: SHAPES.sparseOnly, window, direction: 'asc' },
      { slabShift: 4 },
    );
    expect(record.ordinals).toEqual([SLAB - 1]);
    expect(record.spans).toEqual([]);
    expect(record.slabs).toBeGreaterThan(0);
  });
});

describe('spans forced: the oracle on every shape', () => {
  it('every index shape × window × direction × limits 1, 7, none at slab widths 2^16, 2^10', async () => {
    const schedules = [{}, { slabShift: 10, stage1Slabs: 1, batchSize: 7 }];
    // Pages over every window; drains (each fetches and post-filters the whole window) over the whole-stream ones.
    const paged = await checkMatrix(spanWalkEngine, shaped.reader, shaped.oracle, {
      shapes: INDEX_SHAPES,
      windows: SHAPED_WINDOWS,
      limits: [1, 7],
      schedules,
    });
    const drained = await checkMatrix(spanWalkEngine, shaped.reader, shaped.oracle, {
      shapes: INDEX_SHAPES,
      windows: WHOLE_STREAM_WINDOWS,
      limits: [undefined],
      schedules,
    });
    expect(paged + drained).toBe(
      INDEX_SHAPES.length * 2 * 2 * (SHAPED_WINDOWS.length * 2 + WHOLE_STREAM_WINDOWS.length),
    );
  });

  it(`the same at slab width 2^10 with the cap cut to ${SMALL_CAP}: spans cut before they are evaluated`, async () => {
    for (const [windows, limits] of [
      [SHAPED_WINDOWS, [1, 7]],
      [WHOLE_STREAM_WINDOWS, [undefined]],
    ] as const) {
      await checkMatrix(spansCapped, shaped.reader, shaped.oracle, {
        shapes: INDEX_SHAPES,
        windows,
        limits,
        schedules: [{ slabShift: 10 }],
      });
    }
  });

  it('paging to the end through every index shape, both caps', async () => {
    for (const engine of [spanWalkEngine, spansCapped]) {
      for (const shape of INDEX_SHAPES) {
        for (const direction of DIRECTIONS) {
          await checkPaging(
            engine,
            shaped.reader,
            shaped.oracle,
            { filters: shape.filters, window: { start: 0, end: SHAPED_CORPUS_SIZE }, direction, limit: 7 },
            { slabShift: 10 },
            shape.name,
          );
        }
      }
    }
  });
});

describe('the spans a walk evaluates', () => {
  const runs = [
    { name: 'spans forced', engine: spanWalkEngine, maxValues: SPAN_MAX_VALUES, allStages: true },
    { name: `spans forced, cap ${SMALL_CAP}`, engine: spansCapped, maxValues: SMALL_CAP, allStages: true },
    { name: `auto, cap ${SMALL_CAP}`, engine: autoCapped, maxValues: SMALL_CAP, allStages: false },
  ];
  // Limits 1 and 7 over every window; drains over the whole-stream windows.
  const shapedQueries = (filters: Query['filters']): Query[] => [
    ...shapedWindows.flatMap(({ window }) =>
      DIRECTIONS.flatMap((direction) => [1, 7].map((limit) => ({ filters, window, direction, limit }))),
    ),
    ...WHOLE_STREAM_WINDOWS.flatMap(({ window }) => DIRECTIONS.map((direction) => ({ filters, window, direction }))),
  ];
  const shapedWindows = [...SCHEDULE_WINDOWS, ...SHAPED_WINDOWS.filter((w) => w.name.includes('boundary'))];

  for (const run of runs) {
    it(`${run.name}: shaped corpus, index shapes × windows × directions × limits`, async () => {
      let spans = 0;
      for (const shape of INDEX_SHAPES) {
        for (const query of shapedQueries(shape.filters)) {
          spans += await checkSpansWalked(
            run.engine,
            shaped.reader,
            shaped.oracle,
            query,
            { slabShift: 10 },
            run,
            shape.name,
          );
        }
      }
      expect(spans, 'spans evaluated').toBeGreaterThan(300);
    });

    it(`${run.name}: skip corpus, shapes × windows × directions × stage-1 widths × limits`, async () => {
      let spans = 0;
      for (const shape of SKIP_SHAPES) {
        for (const { window } of SKIP_WINDOWS) {
          for (const direction of DIRECTIONS) {
            for (const stage1Slabs of [1, 8, 2 ** 16]) {
              for (const limit of LIMITS) {
                const query = { filters: shape.filters, window, direction, ...(limit === undefined ? {} : { limit }) };
                const schedule = { slabShift: RARE_SLAB_SHIFT, stage1Slabs };
                spans += await checkSpansWalked(run.engine, rare.reader, rare.oracle, query, schedule, run, shape.name);
              }
            }
          }
        }
      }
      expect(spans, 'spans evaluated').toBeGreaterThan(300);
    });
  }

  it('one match wanted, two (with its look-ahead) in the first slab: one span of one slab', async () => {
    // Contract 2 (5 ids) or type system (every 2,000th id): the first and the last slab of 2^16 hold two or more.
    const filters = [SHAPES.sparseOnly[0]!, SHAPES.union[1]!];
    for (const direction of DIRECTIONS) {
      const record = await recordSpans(
        realEngine,
        shaped.reader,
        { filters, window: { start: 0, end: SHAPED_CORPUS_SIZE }, direction, limit: 1 },
        {},
      );
      expect(record.ordinals).toEqual([direction === 'asc' ? 0 : SHAPED_CORPUS_SIZE - 1]);
      expect(record.spans).toHaveLength(1);
      // Slab 0: type system at 0, 2,000, ..., 64,000 and contract 2 at 1, 12,345 and 65,535; slab 1: 66,000 (both),
      // 68,000 and 69,999.
      expect(record.spans[0]).toEqual(
        direction === 'asc'
          ? { lo: 0, hi: SLAB - 1, candidates: 36 }
          : { lo: SLAB, hi: SHAPED_CORPUS_SIZE - 1, candidates: 3 },
      );
    }
  });
});

describe('spans forced: the fetch tracer', () => {
  it('fetches exactly the true candidates in emission order, in batches the page spans', async () => {
    for (const { engine, schedules } of [
      { engine: spanWalkEngine, schedules: [{ slabShift: 10 }, { slabShift: 10, stage1Slabs: 1, batchSize: 7 }] },
      { engine: spansCapped, schedules: [{ slabShift: 10, stage1Slabs: 1, batchSize: 7 }] },
    ]) {
      for (const shape of INDEX_SHAPES) {
        // Pages of 1 and 7 everywhere; drains (the whole window fetched) over the narrower windows.
        for (const [window, limits] of [
          [{ start: 0, end: SHAPED_CORPUS_SIZE }, [1, 7]],
          [{ start: SLAB - 3, end: SLAB + 3 }, LIMITS],
          [{ start: 60_000, end: SHAPED_CORPUS_SIZE }, LIMITS],
        ] as const) {
          for (const direction of DIRECTIONS) {
            for (const limit of limits) {
              for (const schedule of schedules) {
                const query = { filters: shape.filters, window, direction, ...(limit === undefined ? {} : { limit }) };
                await checkFetches(engine, shaped.reader, shaped.oracle, query, schedule, shape.name);
              }
            }
          }
        }
      }
    }
  });
});
