// Batch-schedule invariance on the shaped corpus (upstream TestMatches_StageScheduleIsInvisible): the stage-1 width
// and the fetch size after the first are test seams that may change I/O counts, never the stream. Properties:
// 1. Every shape × 4 windows × {asc, desc} × limits {1, 1000} × stage-1 widths {1, 8} × batch sizes {1, 7, 512},
//    at slab widths 2^10 (69 slabs: every stage-1 width leaves a stage 2) and 2^16: the stream is the oracle's.
// 2. Whole streams under stage-1 widths 4 and one stage (2^16 slabs) at 2^10.
// 3. firstBatch does not change the stream either (1, 2, 10,000 and past MAX_FIRST_BATCH), only the first fetch.
import { compilePostFilter } from '@strata/events';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchEvents } from '../src/engine/match-events.js';
import { MAX_FIRST_BATCH } from '../src/engine/types.js';
import { planQuery } from '../src/planner/query-plan.js';
import { checkMatrix, DIRECTIONS, type Fixture, fixtureOf } from './support/engine-checks.js';
import { expectedStream } from './support/oracle.js';
import { TracingReader } from './support/readers.js';
import { expectStream, realEngine, type Schedule } from './support/run-engine.js';
import { NAMED_SHAPES, SCHEDULE_WINDOWS, SHAPED_CORPUS_SIZE, SHAPES, shapedCorpus } from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

function schedules(slabShift: number): Schedule[] {
  return [1, 8].flatMap((stage1Slabs) => [1, 7, 512].map((batchSize) => ({ slabShift, stage1Slabs, batchSize })));
}

describe('the batch schedule changes I/O, never the stream', () => {
  for (const slabShift of [10, 16]) {
    for (const shape of NAMED_SHAPES) {
      it(`${shape.name} at slab width 2^${slabShift}`, async () => {
        await checkMatrix(realEngine, fx.reader, fx.oracle, {
          shapes: [shape],
          windows: SCHEDULE_WINDOWS,
          limits: [1, 1000],
          schedules: schedules(slabShift),
        });
      });
    }
  }

  it('whole streams under stage-1 widths 4 and one stage', async () => {
    await checkMatrix(realEngine, fx.reader, fx.oracle, {
      shapes: NAMED_SHAPES,
      windows: [SCHEDULE_WINDOWS[0]!, SCHEDULE_WINDOWS[2]!],
      limits: [undefined],
      schedules: [
        { slabShift: 10, stage1Slabs: 4 },
        { slabShift: 10, stage1Slabs: 2 ** 16 },
      ],
    });
  });
});

describe('firstBatch', () => {
  it('changes the first fetch, not the stream', async () => {
    const window = { start: 0, end: SHAPED_CORPUS_SIZE };
    for (const filters of [SHAPES.denseOnly, SHAPES.union, SHAPES.matchAllEmpty]) {
      for (const direction of DIRECTIONS) {
        const want = expectedStream(fx.oracle.matches(filters), window, direction, 3_000);
        for (const firstBatch of [1, 2, 10_000, MAX_FIRST_BATCH + 1, 2 ** 40]) {
          const tracer = new TracingReader(fx.reader);
          const got = [];
          for await (const match of matchEvents(tracer, planQuery(filters), compilePostFilter(filters), window, {
            direction,
            firstBatch,
          })) {
            got.push(match);
            if (got.length === 3_000) break;
          }
          expectStream(fx.corpus, got, want, `firstBatch ${firstBatch}`);
          const first =
            tracer.calls[0]?.kind === 'fetchRange'
              ? tracer.rangeWindows[0]!.end - tracer.rangeWindows[0]!.start
              : tracer.fetchBatches[0]!.length;
          expect(first, `firstBatch ${firstBatch}`).toBeLessThanOrEqual(Math.min(firstBatch, MAX_FIRST_BATCH));
        }
      }
    }
  });
});
