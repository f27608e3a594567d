// The ChunkReader lookup contract taken literally (upstream TestMatches_IgnoresIDsOutsideTheLookupWindow): a
// lookup's bitmaps are exact inside the window it asked for and anything outside. Every shaped shape runs with each
// lookup's bitmaps rewritten outside that window (support/readers.ts LookupRewritingReader): ids invented just past
// each edge and at random up to four slabs past the corpus (past eventCount, as a hot index may publish them), runs
// of real ids dropped on each side, absent terms answered with bitmaps of out-of-window ids only; or every term
// clipped to the window. Properties:
// 1. Pages of 1 and 37 over 4 windows, both directions, schedules {2^10 slabs, stage 1 = 8} and {2^16, stage 1 = 1}
//    (both put a stage seam inside the corpus, so rewritten regions land inside the consumer's window): the
//    stream is the oracle's.
// 2. Whole streams through the same rewriting.
// 3. The rewriter is not a no-op: it changes the bitmaps outside the window and never inside.
import { beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../src/planner/query-plan.js';
import { checkMatrix, type Fixture, fixtureOf } from './support/engine-checks.js';
import { type LookupRewrite, LookupRewritingReader } from './support/readers.js';
import { realEngine, type Schedule } from './support/run-engine.js';
import {
  NAMED_SHAPES,
  SCHEDULE_WINDOWS,
  SHAPED_CORPUS_SIZE,
  SHAPES,
  SLAB,
  shapedCorpus,
} from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

const REWRITES: readonly LookupRewrite[] = ['outside', 'clip'];
const SCHEDULES: readonly Schedule[] = [
  { slabShift: 10, stage1Slabs: 8 },
  { slabShift: 16, stage1Slabs: 1 },
];
const SPAN = SHAPED_CORPUS_SIZE + 4 * SLAB;
describe('lookups rewritten outside their window leave the stream unchanged', () => {
  for (const shape of NAMED_SHAPES) {
    it(shape.name, async () => {
      for (const rewrite of REWRITES) {
        for (const seed of [1, 2]) {
          const rewriting = new LookupRewritingReader(fx.reader, rewrite, seed, SPAN);
          await checkMatrix(realEngine, rewriting, fx.oracle, {
            shapes: [shape],
            windows: SCHEDULE_WINDOWS,
            limits: [1, 37],
            schedules: SCHEDULES,
          });
        }
      }
    });
  }

  it('whole streams', async () => {
    for (const rewrite of REWRITES) {
      const rewriting = new LookupRewritingReader(fx.reader, rewrite, 7, SPAN);
      await checkMatrix(realEngine, rewriting, fx.oracle, {
        shapes: NAMED_SHAPES,
        windows: [SCHEDULE_WINDOWS[0]!, SCHEDULE_WINDOWS[2]!],
        limits: [undefined],
        schedules: [{ slabShift: 10, stage1Slabs: 8 }],
      });
    }
  });
});

describe('the rewriter', () => {
  it('changes bitmaps outside the window, never inside', async () => {
    const plan = planQuery([...SHAPES.wideUnion, ...SHAPES.deepAnd]);
    if (plan.kind !== 'plans') throw new Error('an index plan');
    const window = { start: 20_000, end: 60_000 };
    const exact = await fx.reader.lookupTerms(plan.terms, window);
    let changedOutside = 0;
    let absentAnswered = 0;
    for (const rewrite of REWRITES) {
      for (const seed of [1, 2, 3]) {
        const rewritten = await new LookupRewritingReader(fx.reader, rewrite, seed, SPAN).lookupTerms(
          plan.terms,
          window,
        );
        rewritten.forEach((bitmap, i) => {
          const inside = (b: typeof bitmap) =>
            b === undefined ? [] : [...b].filter((o) => o >= window.start && o < window.end);
          expect(inside(bitmap)).toEqual(inside(exact[i]));
          if (bitmap !== undefined) expect(bitmap.isFrozen).toBe(true);
          const outside = (b: typeof bitmap) => (b === undefined ? 0 : b.size - inside(b).length);
          if (outside(bitmap) !== outside(exact[i])) changedOutside++;
          if (exact[i] === undefined && bitmap !== undefined) absentAnswered++;
          if (rewrite === 'clip') expect(outside(bitmap)).toBe(0);
        });
      }
    }
    expect(changedOutside).toBeGreaterThan(10);
    expect(absentAnswered).toBeGreaterThan(0);
  });
});
