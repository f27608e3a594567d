// The slab walk's skips, pinned slab by slab on the skip corpus (rare terms hundreds of empty 1,024-id slabs apart;
// support/rare-corpus.ts), and its allocations. The engine here walks every stage slab by slab (slabWalkEngine: the
// auto choice would walk these sparse plans by spans, pinned in engine-span-walk.test.ts). Properties:
// 1. The skip corpus is what it claims (rare ids, near misses, gaps of hundreds of slabs), by the oracle alone.
// 2. For every skip shape × window × direction × stage-1 width (1, 8, and one stage), a drained walk opens exactly
//    the slabs holding a candidate, each entered at its candidate (ascending from the first, descending up to the
//    last), with the candidate counts onSlab reports, and looks up each stage once; the stream is the oracle's. The
//    expectation is computed from the oracle and the spec's stage and batch rules (support/expected-slabs.ts), never
//    recorded from the engine; the stage seam changes nothing (the same list for every stage-1 width).
// 3. A consumer that stops after a page (1, 2, 3 matches, and pages with batch size 1) opens only the slabs holding
//    the candidates the fetch schedule gathers, and never looks up a stage it did not pull into.
// 4. A chunk-sized term opens every slab of its window (entered at its first candidate: the slab boundary's ids
//    belong to the other rare contract); rare terms that never meet open nothing.
// 5. Oracle gate on the skip (upstream TestMatches_RareTermsSpanSlabs): the rare-dominated shapes of the shaped
//    corpus at slab widths 2^4, 2^6, 2^10 and 2^13, windows between rare ids, drained and paged, for each walk (the
//    auto choice, slabs forced, spans forced).
// 6. Allocations: a plan empty on a slab allocates nothing there (onSlab's SlabAndAllocations: an empty slab adds no
//    bitmap and no array; a slab with candidates adds exactly its one result array; no bitmap beyond the evaluator's
//    two scratch bitmaps is ever created), shown on near misses alone and beside a non-empty plan.
import { assert } from '@strata/base';
import { beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../src/planner/query-plan.js';
import { checkMatrix, DIRECTIONS, type Fixture, fixtureOf } from './support/engine-checks.js';
import { candidateSlabs } from './support/expected-slabs.js';
import { expectedStream } from './support/oracle.js';
import {
  DENSE_SHAPE,
  DENSE_WINDOW,
  NEAR_MISS_BESIDE_RARE,
  NEAR_MISS_CONTRACT_IDS,
  NEAR_MISS_SHAPE,
  NEAR_MISS_TOPIC_IDS,
  NEAR_MISS_WINDOW,
  RARE_A_IDS,
  RARE_B_IDS,
  RARE_CORPUS_SIZE,
  RARE_SLAB,
  RARE_SLAB_SHIFT,
  RARE_SYSTEM_IDS,
  rareCorpus,
  SKIP_SHAPES,
} from './support/rare-corpus.js';
import { slabWalkEngine, WALK_ENGINES } from './support/run-engine.js';
import { SHAPED_CORPUS_SIZE, SHAPES, shapedCorpus } from './support/shaped-corpus.js';
import { checkShapeSlabs, checkSlabsOpened, recordWalk } from './support/slab-checks.js';

const ONE_STAGE = 2 ** 16;
const STAGE1_WIDTHS = [1, 8, ONE_STAGE];

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(rareCorpus());
});

const slabOf = (ordinal: number) => Math.floor(ordinal / RARE_SLAB);

describe('the skip corpus is what it claims', () => {
  it('rare ids sit where the header says, hundreds of empty slabs apart', () => {
    const [rareAlone, , , rareOrRare, rareOrType] = SKIP_SHAPES;
    expect(Array.from(fx.oracle.matches(rareAlone!.filters))).toEqual([...RARE_A_IDS]);
    expect(Array.from(fx.oracle.matches(rareOrRare!.filters))).toEqual(
      [...RARE_A_IDS, ...RARE_B_IDS].sort((a, b) => a - b),
    );
    expect(Array.from(fx.oracle.matches(rareOrType!.filters))).toEqual(
      [...RARE_A_IDS, ...RARE_SYSTEM_IDS].sort((a, b) => a - b),
    );
    const gaps = RARE_A_IDS.slice(1).map((id, i) => slabOf(id) - slabOf(RARE_A_IDS[i]!));
    expect(gaps.filter((g) => g > 150)).toHaveLength(2);
    // On slab edges: a slab base, a slab's last id, the corpus's last id.
    expect(RARE_A_IDS.some((id) => id % RARE_SLAB === 0)).toBe(true);
    expect(RARE_A_IDS.some((id) => id % RARE_SLAB === RARE_SLAB - 1)).toBe(true);
    expect(RARE_B_IDS).toContain(RARE_CORPUS_SIZE - 1);
    expect(fx.corpus.eventCount).toBe(RARE_CORPUS_SIZE);
    expect(fx.reader.eventCount()).toBe(RARE_CORPUS_SIZE);
  });

  it("every skip shape is nested (its matches are its plans' rarest terms' ids) or selects nothing", async () => {
    const whole = { start: 0, end: RARE_CORPUS_SIZE };
    for (const shape of SKIP_SHAPES) {
      const matches = Array.from(fx.oracle.matches(shape.filters));
      if (shape.name.includes('never') || shape.name.includes('absent')) {
        expect(matches, shape.name).toEqual([]);
        continue;
      }
      const plan = planQuery(shape.filters);
      assert(plan.kind === 'plans', 'skip shapes use the index');
      const bitmaps = await fx.reader.lookupTerms(plan.terms, whole);
      const rarestIds = new Set<number>();
      for (const slots of plan.plans) {
        const present = slots.map((slot) => bitmaps[slot]);
        if (present.some((b) => b === undefined)) continue;
        const rarest = present.reduce((a, b) => (b!.size < a!.size ? b : a))!;
        for (const id of rarest) rarestIds.add(id);
      }
      expect(
        [...rarestIds].sort((a, b) => a - b),
        shape.name,
      ).toEqual(matches);
    }
  });

  it('the near miss: its two terms share slabs 3 and 50 and never an id', () => {
    expect(NEAR_MISS_CONTRACT_IDS.map(slabOf)).toEqual([3, 3, 50, 50]);
    expect(NEAR_MISS_TOPIC_IDS.map(slabOf)).toEqual([3, 50]);
    expect(Array.from(fx.oracle.matches(NEAR_MISS_SHAPE.filters))).toEqual([]);
    expect(Array.from(fx.oracle.matches(NEAR_MISS_BESIDE_RARE.filters))).toEqual([...RARE_A_IDS]);
  });
});

describe('a drained walk opens exactly the slabs holding a candidate', () => {
  for (const shape of SKIP_SHAPES) {
    it(shape.name, () => checkShapeSlabs(slabWalkEngine, fx.reader, fx.oracle, shape.filters, STAGE1_WIDTHS));
  }

  it('the pinned lists are not vacuous: rare alone, whole corpus', () => {
    const answer = expectedStream(
      fx.oracle.matches(SKIP_SHAPES[0]!.filters),
      { start: 0, end: RARE_CORPUS_SIZE },
      'asc',
    );
    expect(candidateSlabs(answer, { start: 0, end: RARE_CORPUS_SIZE }, 'asc', RARE_SLAB_SHIFT)).toEqual([
      { lo: RARE_A_IDS[0], hi: 4 * RARE_SLAB - 1, candidates: 1 },
      { lo: RARE_A_IDS[1], hi: 201 * RARE_SLAB - 1, candidates: 1 },
      { lo: RARE_A_IDS[2], hi: 202 * RARE_SLAB - 1, candidates: 1 },
      { lo: RARE_A_IDS[3], hi: 461 * RARE_SLAB - 1, candidates: 1 },
    ]);
  });
});

describe('a consumer that stops after a page opens only the slabs its fetches need', () => {
  for (const shape of SKIP_SHAPES.filter((s) => !s.name.includes('never') && !s.name.includes('absent'))) {
    it(shape.name, () =>
      checkShapeSlabs(slabWalkEngine, fx.reader, fx.oracle, shape.filters, STAGE1_WIDTHS, [
        { limit: 1 },
        { limit: 2 },
        { limit: 3 },
        { limit: 1, batchSize: 1 },
        { limit: 2, batchSize: 1 },
      ]),
    );
  }
});

describe('chunk-sized and never-meeting terms', () => {
  it('a chunk-sized term opens every slab of its window, entered at its first candidate', async () => {
    for (const direction of DIRECTIONS) {
      for (const stage1Slabs of STAGE1_WIDTHS) {
        await checkSlabsOpened(slabWalkEngine, fx.reader, fx.oracle, {
          filters: DENSE_SHAPE.filters,
          window: DENSE_WINDOW,
          direction,
          slabShift: RARE_SLAB_SHIFT,
          stage1Slabs,
        });
      }
    }
    const record = await recordWalk(
      slabWalkEngine,
      fx.reader,
      { filters: DENSE_SHAPE.filters, window: DENSE_WINDOW, direction: 'asc' },
      { slabShift: RARE_SLAB_SHIFT },
    );
    // Slabs 100..104 of the window; slab 101 entered past its base, whose id is rare contract 2's.
    expect(record.slabs.map((s) => s.lo)).toEqual([
      DENSE_WINDOW.start,
      101 * RARE_SLAB + 1,
      102 * RARE_SLAB,
      103 * RARE_SLAB,
      104 * RARE_SLAB,
    ]);
  });
});

describe('oracle gate on the skip: rare-dominated shapes at narrow slab widths', () => {
  it('shaped corpus, sparse-led shapes, slab widths 2^4 to 2^13', async () => {
    const shaped = fixtureOf(shapedCorpus());
    const shapes = [
      { name: 'rare alone', filters: SHAPES.sparseOnly },
      { name: 'rare and chunk-sized', filters: SHAPES.mixedGroups },
      { name: 'rare or chunk-sized', filters: SHAPES.union },
      { name: 'thin overlap', filters: SHAPES.thinOverlap },
      { name: 'sparse bucket', filters: SHAPES.partlyAbsentGroup },
    ];
    const windows = [
      { name: 'whole', window: { start: 0, end: SHAPED_CORPUS_SIZE } },
      { name: 'from between rare ids', window: { start: 20_000, end: SHAPED_CORPUS_SIZE } },
      { name: 'to between rare ids', window: { start: 0, end: 60_000 } },
      { name: 'between rare ids', window: { start: 20_000, end: 60_000 } },
    ];
    for (const { engine } of WALK_ENGINES) {
      for (const slabShift of [4, 6, 10, 13]) {
        await checkMatrix(engine, shaped.reader, shaped.oracle, {
          shapes,
          windows,
          limits: [undefined, 1, 3],
          schedules: [{ slabShift }],
        });
      }
    }
  });
});

describe('a plan empty on a slab allocates nothing there', () => {
  it('near misses alone: the slabs proved into hold nothing and allocate nothing', async () => {
    for (const direction of DIRECTIONS) {
      for (const stage1Slabs of [1, ONE_STAGE]) {
        const record = await recordWalk(
          slabWalkEngine,
          fx.reader,
          { filters: NEAR_MISS_SHAPE.filters, window: NEAR_MISS_WINDOW, direction },
          { slabShift: RARE_SLAB_SHIFT, stage1Slabs },
        );
        expect(record.ordinals).toEqual([]);
        // Not vacuous: the walk opened near-miss slabs (their terms both have values there) and found them empty.
        expect(record.slabs.length, direction).toBeGreaterThan(0);
        for (const slab of record.slabs) {
          expect([3, 50]).toContain(slabOf(slab.lo));
          expect(slab.candidates).toBe(0);
        }
        // The evaluator's construction (two scratch bitmaps, one filter buffer) and nothing more.
        for (const counts of record.allocations) expect(counts).toEqual({ bitmaps: 2, arrays: 1 });
      }
    }
  });

  it('beside a non-empty plan: the slab adds exactly its one result array', async () => {
    for (const direction of DIRECTIONS) {
      const record = await recordWalk(
        slabWalkEngine,
        fx.reader,
        { filters: NEAR_MISS_BESIDE_RARE.filters, window: NEAR_MISS_WINDOW, direction },
        { slabShift: RARE_SLAB_SHIFT, stage1Slabs: ONE_STAGE },
      );
      expect(record.ordinals).toEqual([RARE_A_IDS[0]]);
      let arrays = 1;
      record.slabs.forEach((slab, i) => {
        // Ascending, slab 3 evaluates both plans (both bounds lie in it): the near miss adds nothing, rare A its one
        // result array. Descending, slab 50 is the near miss's alone.
        expect([3, 50]).toContain(slabOf(slab.lo));
        if (slab.candidates > 0) arrays++;
        expect(record.allocations[i], `slab ${slabOf(slab.lo)}`).toEqual({ bitmaps: 2, arrays });
      });
      expect(record.slabs.find((s) => slabOf(s.lo) === 3)?.candidates).toBe(1);
    }
  });
});
