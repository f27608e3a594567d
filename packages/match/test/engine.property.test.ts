// The engine against the oracle on random corpora (support/arbitraries.ts): runs of templates over the spec §6
// vocabulary with rare events on slab edges; filter sets in v1 (compileV1Filters), v2 and cursor-level
// StorageFilter shapes, up to 256 filters; windows from 0, mid-slab, on and beside slab boundaries; limits 1..1000;
// both directions. Properties:
// 1. Differential at slab width 2^10 (corpora of up to ~20 slabs, so stage 2 matters), 2^4 (the narrowest the
//    engine takes: ~190 slabs) and 2^16 (corpora of one to two production slabs, the seam at 65,536 inside): each
//    page is the oracle's, payloads byte-identical; half the queries also page through the window to its end, each
//    page resuming past the last delivered ordinal.
// 2. Batch-schedule invariance: stage-1 widths 1 and 8 × batch sizes 1, 7 and 512 change I/O, never the stream.
// 3. Fetch tracer: the ordinals fetched are exactly the true candidates' leading run in emission order, in batches a
//    page spans (index queries; the planner is exact on this vocabulary).
// 4. Lookups rewritten outside the window they asked for (ids invented, dropped, absent terms answered with
//    out-of-window ids; or clipped to the window) leave every stream unchanged.
// 5. Each walk on its own: the differential (2^10 and 2^4) and the fetch tracer with every stage walked by spans
//    (at the engine's cap and with the cap cut to 64 candidates, so spans are cut before they are evaluated), and
//    the differential with every stage walked slab by slab (the real engine chooses per stage, properties 1-4).
// Each property also counts informative queries (some match in the window, not all), so it cannot pass vacuously.
import { describe, expect, it } from 'vitest';
import {
  type RandomParams,
  type RandomStats,
  randomDifferential,
  randomFetches,
  randomLookupRewrites,
  randomScheduleInvariance,
} from './support/random-checks.js';
import { type Engine, faultyEngine, realEngine, slabWalkEngine, spanWalkEngine } from './support/run-engine.js';

type RandomCheck = typeof randomDifferential;

/** Corpora of up to 12 slabs of 2^10, four queries each, for the checks that multiply every query's runs. */
const SMALL: RandomParams = { slabShift: 10, minSize: 1, maxSize: 12_000, numRuns: 20, queries: 4 };

/** Spans forced with the cap cut to 64 candidates. */
const spansCapped: Engine = faultyEngine({}, { stageWalk: 'spans', spanMaxValues: 64 });

/**
 * Each random check with its corpus sizes and runs, against the real engine unless `engine` says otherwise (kept so
 * the file stays well under a minute on 2 cores).
 */
const PROPERTIES: readonly { name: string; check: RandomCheck; params: RandomParams; engine?: Engine }[] = [
  {
    name: 'differential against the oracle at slab width 2^10',
    check: randomDifferential,
    params: { slabShift: 10, minSize: 1, maxSize: 20_000, numRuns: 40, queries: 6 },
  },
  {
    // The narrowest width the engine takes: hundreds of slabs and many stage seams in a small corpus.
    name: 'differential against the oracle at slab width 2^4',
    check: randomDifferential,
    params: { slabShift: 4, minSize: 1, maxSize: 3_000, numRuns: 60, queries: 4 },
  },
  {
    name: 'differential against the oracle at slab width 2^16',
    check: randomDifferential,
    params: { slabShift: 16, minSize: 60_000, maxSize: 140_000, numRuns: 5, queries: 8 },
  },
  {
    name: 'batch-schedule invariance: stage-1 widths 1, 8 × batch sizes 1, 7, 512 at slab width 2^10',
    check: randomScheduleInvariance,
    params: SMALL,
  },
  {
    name: 'fetch tracer: exact true candidates in emission order at slab width 2^10',
    check: randomFetches,
    params: SMALL,
  },
  {
    name: 'lookups rewritten outside their window leave the stream unchanged at slab width 2^10',
    check: randomLookupRewrites,
    params: SMALL,
  },
  {
    name: 'spans forced: differential at slab width 2^10',
    check: randomDifferential,
    params: { slabShift: 10, minSize: 1, maxSize: 20_000, numRuns: 20, queries: 6 },
    engine: spanWalkEngine,
  },
  {
    name: 'spans forced, cap 64: differential at slab width 2^10',
    check: randomDifferential,
    params: { slabShift: 10, minSize: 1, maxSize: 20_000, numRuns: 15, queries: 6 },
    engine: spansCapped,
  },
  {
    name: 'spans forced: differential at slab width 2^4',
    check: randomDifferential,
    params: { slabShift: 4, minSize: 1, maxSize: 3_000, numRuns: 30, queries: 4 },
    engine: spanWalkEngine,
  },
  {
    name: 'spans forced: fetch tracer at slab width 2^10',
    check: randomFetches,
    params: SMALL,
    engine: spansCapped,
  },
  {
    name: 'slabs forced: differential at slab width 2^10',
    check: randomDifferential,
    params: { slabShift: 10, minSize: 1, maxSize: 20_000, numRuns: 20, queries: 6 },
    engine: slabWalkEngine,
  },
];

describe('the engine on random corpora', () => {
  for (const { name, check, params, engine = realEngine } of PROPERTIES) {
    it(name, async () => {
      const stats: RandomStats = { queries: 0, informative: 0, matched: 0 };
      await check(engine, params, stats);
      // Not vacuous: a good share of the queries had some match in the window and not every event matching.
      expect(stats.informative, 'informative queries').toBeGreaterThan(stats.queries / 12);
      expect(stats.matched).toBeGreaterThan(1_000);
    });
  }
});
