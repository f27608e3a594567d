// The fetch tracer (upstream TestMatches_FetchesOnlyTrueCandidates) on the shaped corpus: output equality cannot see
// an over-wide candidate set, because the post-filter hides it, so a reader wrapper records every fetchEvents batch.
// Properties, for every index shape (match-all streams fetchRange instead; see engine-shaped.test.ts) × 5 windows ×
// {asc, desc} × {drain, page of 1, page of 1000} × 3 schedules (production; 2^10 slabs; 2^10 with a one-slab stage 1 and batches of 61):
// 1. The ordinals fetched, in emission order, are exactly the leading run of the query's true candidates (the
//    planner is exact on this vocabulary, so candidates = the oracle's matches), at least the page.
// 2. Every batch is non-empty and ascending; the first holds at most firstBatch (room + 1) ordinals, later ones at
//    most the batch size; a consumer that stops after a page fetched only the batches that page spans.
// 3. The engine's own onFetch hook reports the same batches the reader saw.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkFetches, DIRECTIONS, type Fixture, fixtureOf } from './support/engine-checks.js';
import { TracingReader } from './support/readers.js';
import { realEngine, runQuery, type Schedule } from './support/run-engine.js';
import { INDEX_SHAPES, SHAPED_CORPUS_SIZE, SHAPES, SLAB, shapedCorpus } from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

const WINDOWS = [
  { start: 0, end: SHAPED_CORPUS_SIZE },
  { start: SLAB, end: SHAPED_CORPUS_SIZE },
  { start: SLAB - 3, end: SLAB + 3 },
  { start: 33_333, end: SHAPED_CORPUS_SIZE },
  { start: 1_000, end: 40_000 },
];
const SCHEDULES: readonly Schedule[] = [{}, { slabShift: 10 }, { slabShift: 10, stage1Slabs: 1, batchSize: 61 }];

describe('the engine fetches exactly the true candidates, in emission order, and only the batches a page spans', () => {
  for (const shape of INDEX_SHAPES) {
    it(shape.name, async () => {
      for (const window of WINDOWS) {
        for (const direction of DIRECTIONS) {
          for (const limit of [undefined, 1, 1000]) {
            for (const schedule of SCHEDULES) {
              const query =
                limit === undefined
                  ? { filters: shape.filters, window, direction }
                  : { filters: shape.filters, window, direction, limit };
              await checkFetches(realEngine, fx.reader, fx.oracle, query, schedule, shape.name);
            }
          }
        }
      }
    });
  }
});

describe('onFetch', () => {
  it('reports the batches the reader saw', async () => {
    for (const direction of DIRECTIONS) {
      for (const filters of [SHAPES.denseOnly, SHAPES.union, SHAPES.mixedOrGroup]) {
        const tracer = new TracingReader(fx.reader);
        const reported: number[][] = [];
        await runQuery(
          realEngine,
          tracer,
          { filters, window: { start: 0, end: SHAPED_CORPUS_SIZE }, direction, limit: 2_000 },
          { slabShift: 10, batchSize: 300 },
          { onFetch: (ordinals) => reported.push(Array.from(ordinals)) },
        );
        expect(reported.length).toBeGreaterThan(0);
        expect(reported).toEqual(tracer.fetchBatches);
      }
    }
  });
});
