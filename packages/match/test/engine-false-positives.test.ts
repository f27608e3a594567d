// The post-filter is mandatory (spec §4.5): term keys are XXH3-128 hashes and a cold index checks 4-byte
// fingerprints, so a lookup may name ids that do not carry the term. On this suite's vocabulary the planner is
// exact, so nothing else here would notice an engine that skipped the post-filter; these readers add the false
// positives a collision would (support/readers.ts CollidingReader: invented ids inside the window on present terms,
// and absent terms answered present). Properties:
// 1. Every shaped index shape (match-all never looks anything up) × 4 windows × {asc, desc} × limits {1, 37} ×
//    schedules {2^16, 2^10 with a one-slab stage 1} × two seeds, and drains: the stream is the oracle's.
// 2. Not vacuous: the engine fetched ordinals the post-filter then dropped.
// 3. The same on random corpora at slab width 2^10.
// (The negative control, an engine whose post-filter accepts everything, is in engine-negative-controls.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import { checkMatrix, type Fixture, fixtureOf } from './support/engine-checks.js';
import { randomFalsePositives } from './support/random-checks.js';
import { CollidingReader, TracingReader } from './support/readers.js';
import { realEngine, runQuery } from './support/run-engine.js';
import { INDEX_SHAPES, SCHEDULE_WINDOWS, SHAPED_CORPUS_SIZE, SHAPES, shapedCorpus } from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

describe('false positives from the index never reach the stream', () => {
  for (const shape of INDEX_SHAPES) {
    it(shape.name, async () => {
      for (const seed of [1, 2]) {
        await checkMatrix(realEngine, new CollidingReader(fx.reader, seed), fx.oracle, {
          shapes: [shape],
          windows: SCHEDULE_WINDOWS,
          limits: [1, 37],
          schedules: [{}, { slabShift: 10, stage1Slabs: 1 }],
        });
      }
      await checkMatrix(realEngine, new CollidingReader(fx.reader, 3), fx.oracle, {
        shapes: [shape],
        windows: SCHEDULE_WINDOWS,
        limits: [undefined],
      });
    });
  }

  it('the engine did fetch false positives and dropped them', async () => {
    for (const filters of [SHAPES.sparseOnly, SHAPES.absentTerm, SHAPES.thinOverlap]) {
      const tracer = new TracingReader(new CollidingReader(fx.reader, 3));
      const got = await runQuery(realEngine, tracer, {
        filters,
        window: { start: 0, end: SHAPED_CORPUS_SIZE },
        direction: 'asc',
      });
      const fetched = tracer.fetchBatches.flat().length;
      expect(fetched).toBeGreaterThan(got.length);
    }
  });

  it('random corpora at slab width 2^10', async () => {
    const stats = { queries: 0, informative: 0, matched: 0 };
    await randomFalsePositives(
      realEngine,
      { slabShift: 10, minSize: 1, maxSize: 12_000, numRuns: 20, queries: 4 },
      stats,
    );
    expect(stats.informative).toBeGreaterThan(stats.queries / 12);
  });
});
