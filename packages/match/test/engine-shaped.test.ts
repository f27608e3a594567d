// The engine against the oracle on the shaped corpus of spec §6 (support/shaped-corpus.ts). Properties:
// 1. The fixture is what it claims (upstream TestMatches_ShapedFixtureIsWhatItClaims), checked with the oracle and
//    the reader alone: dense terms chunk-sized, the sparse contract on exactly its 5 ids across the 65,536 boundary
//    and in one array container, the thin overlap on exactly its 6 ids, the absent terms absent, the absent groups
//    empty, the partly-absent group exactly the second-topic ids, the deep AND and wide union non-trivial, ledgers of
//    a few hundred events whose offsets describe the corpus.
// 2. The shaped matrix: 19 shapes × 16 windows × {asc, desc} × limits {1, 1000}, at slab widths 2^16 (the
//    production width: the corpus is slab 0 and part of slab 1) and 2^10 (69 slabs, so stage 1 ends mid-corpus):
//    the stream is the oracle's, payloads byte-identical.
// 3. Whole streams (no limit) of every shape over 3 windows, both widths.
// 4. Paging to the end within the chunk, each page resuming past the last delivered ordinal: every page full but
//    the last, the pages together the oracle's whole stream.
// 5. Match-all shapes stream fetchRange and never call lookupTerms or fetchEvents: the ranges tile the window in walk
//    order (the first block sized by firstBatch, later ones by batchSize), and the output is the oracle's.
// 6. Lookups follow the stages (spec §4.3): one lookupTerms per stage, of the stage's window, with every distinct
//    term of the plan; stage 2 only when the consumer pulls past stage 1.
import { assert } from '@strata/base';
import { LedgerOffsets, type StorageFilter, TERM_FIELD, termKey, topicField } from '@strata/events';
import { beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../src/planner/query-plan.js';
import { CONTRACTS, SYMBOLS } from './support/corpus.js';
import { checkMatrix, checkPaging, DIRECTIONS, type Fixture, fixtureOf } from './support/engine-checks.js';
import { stagesOf } from './support/expected-slabs.js';
import { expectedStream } from './support/oracle.js';
import { TracingReader } from './support/readers.js';
import { expectStream, firstBatchOf, realEngine, runQuery } from './support/run-engine.js';
import {
  INDEX_SHAPES,
  MATCH_ALL_SHAPES,
  NAMED_SHAPES,
  RARE_CONTRACT_IDS,
  SECOND_TOPIC_STEP,
  SHAPED_CORPUS_SIZE,
  SHAPED_WINDOWS,
  SHAPES,
  SLAB,
  SYSTEM_STEP,
  shapedCorpus,
  THIN_IDS,
  WHOLE_STREAM_WINDOWS,
} from './support/shaped-corpus.js';

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(shapedCorpus());
});

const count = (filters: readonly StorageFilter[]) => fx.oracle.matches(filters).length;
const idsOf = (filters: readonly StorageFilter[]) => Array.from(fx.oracle.matches(filters));
const WHOLE = { start: 0, end: SHAPED_CORPUS_SIZE };

describe('the shaped fixture is what it claims', () => {
  it('holds 19 shapes and 16 windows', () => {
    expect(NAMED_SHAPES).toHaveLength(19);
    expect(SHAPED_WINDOWS).toHaveLength(16);
    expect(MATCH_ALL_SHAPES).toHaveLength(3);
  });

  it('dense, sparse, thin and absent terms select what they are named for', () => {
    expect(count(SHAPES.denseOnly)).toBeGreaterThan(30_000);
    expect(idsOf(SHAPES.sparseOnly)).toEqual([...RARE_CONTRACT_IDS]);
    expect(RARE_CONTRACT_IDS.some((id) => id < SLAB) && RARE_CONTRACT_IDS.some((id) => id >= SLAB)).toBe(true);
    expect(RARE_CONTRACT_IDS).toContain(SLAB - 1);
    expect(idsOf(SHAPES.thinOverlap)).toEqual([...THIN_IDS]);
    expect(THIN_IDS.length).toBeGreaterThan(1);
    expect(THIN_IDS.length).toBeLessThan(10);
    expect(THIN_IDS).toEqual(expect.arrayContaining([SLAB - 2, SLAB, SLAB + 2]));
    for (const empty of [
      SHAPES.absentTerm,
      SHAPES.absentGroupTrailing,
      SHAPES.absentGroupLeading,
      SHAPES.whollyAbsentGroup,
    ]) {
      expect(count(empty)).toBe(0);
    }
    expect(idsOf(SHAPES.absentPlusPresent)).toEqual([...RARE_CONTRACT_IDS]);
    const secondTopic = Array.from(
      { length: Math.ceil(SHAPED_CORPUS_SIZE / SECOND_TOPIC_STEP) },
      (_, i) => i * SECOND_TOPIC_STEP,
    );
    expect(idsOf(SHAPES.partlyAbsentGroup)).toEqual(secondTopic);
    expect(idsOf(SHAPES.exactTopicCount)).toEqual(secondTopic);
    expect(secondTopic.length).toBe(37);
    expect(count(SHAPES.deepAnd)).toBeGreaterThan(10);
    expect(count(SHAPES.wideUnion)).toBeGreaterThan(30_000);
    expect(count(SHAPES.mixedOrGroup)).toBe(SHAPED_CORPUS_SIZE);
    expect(count(SHAPES.mixedGroups)).toBeGreaterThan(0);
    const systemIds = Array.from({ length: SHAPED_CORPUS_SIZE / SYSTEM_STEP }, (_, i) => i * SYSTEM_STEP);
    expect(idsOf([{ eventType: 0, topics: [], topicCount: { count: 0, exact: false } }])).toEqual(systemIds);
    const union = new Set([...RARE_CONTRACT_IDS, ...systemIds, ...THIN_IDS]);
    expect(idsOf(SHAPES.union)).toEqual([...union].sort((a, b) => a - b));
    for (const shape of MATCH_ALL_SHAPES) expect(count(shape.filters), shape.name).toBe(SHAPED_CORPUS_SIZE);
  });

  it('the reader indexes the dense terms chunk-sized, the sparse one small, the absent ones not at all', async () => {
    const [contract0, beta0, contract2, contract3, epsilon0, diagnostic] = await fx.reader.lookupTerms(
      [
        termKey(TERM_FIELD.CONTRACT_ID, CONTRACTS[0]!),
        termKey(topicField(0), SYMBOLS[1]!),
        termKey(TERM_FIELD.CONTRACT_ID, CONTRACTS[2]!),
        termKey(TERM_FIELD.CONTRACT_ID, CONTRACTS[3]!),
        termKey(topicField(0), SYMBOLS[4]!),
        termKey(TERM_FIELD.EVENT_TYPE, Uint8Array.of(0, 0, 0, 2)),
      ],
      WHOLE,
    );
    expect(contract0!.size).toBeGreaterThan(SHAPED_CORPUS_SIZE / 3);
    expect(beta0!.size).toBeGreaterThan(SHAPED_CORPUS_SIZE / 3);
    // Below an array container's 4,096 values: the sparse term stays sparse in every slab.
    expect(contract2!.size).toBe(RARE_CONTRACT_IDS.length);
    expect([contract3, epsilon0, diagnostic]).toEqual([undefined, undefined, undefined]);
  });

  it('ledgers of a few hundred events in one chunk, and offsets that describe them', () => {
    const counts = fx.corpus.input.ledgers.map((l) => l.length);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(SHAPED_CORPUS_SIZE);
    expect(Math.max(...counts)).toBe(300);
    expect(counts).toContain(0);
    const offsets = LedgerOffsets.fromCounts(fx.corpus.input.startLedger, counts);
    expect(fx.reader.ledgerOffsets().eventCount).toBe(offsets.eventCount);
    expect(fx.reader.eventCount()).toBe(SHAPED_CORPUS_SIZE);
  });

  it('every ordinal has a payload of its own', () => {
    const distinct = new Set(fx.corpus.payloads.map((p) => Buffer.from(p).toString('base64')));
    expect(distinct.size).toBe(SHAPED_CORPUS_SIZE);
  });
});

describe('the shaped matrix', () => {
  for (const slabShift of [16, 10]) {
    for (const shape of NAMED_SHAPES) {
      it(`${shape.name} at slab width 2^${slabShift}: 16 windows × asc/desc × limits 1, 1000`, async () => {
        await checkMatrix(realEngine, fx.reader, fx.oracle, {
          shapes: [shape],
          windows: SHAPED_WINDOWS,
          limits: [1, 1000],
          schedules: [{ slabShift }],
        });
      });
    }
  }
});

describe('whole streams', () => {
  for (const slabShift of [16, 10]) {
    it(`every shape drained over 3 windows at slab width 2^${slabShift}`, async () => {
      await checkMatrix(realEngine, fx.reader, fx.oracle, {
        shapes: NAMED_SHAPES,
        windows: WHOLE_STREAM_WINDOWS,
        limits: [undefined],
        schedules: [{ slabShift }],
      });
    });
  }
});

describe('paging to the end within the chunk', () => {
  const windows = [WHOLE, { start: 33_333, end: SHAPED_CORPUS_SIZE }, { start: SLAB - 3, end: SLAB + 3 }];
  for (const shape of NAMED_SHAPES) {
    it(shape.name, async () => {
      const total = count(shape.filters);
      for (const window of windows) {
        for (const direction of DIRECTIONS) {
          // Small pages only where they reach the end in a few dozen pages (the rest drains after 40).
          for (const limit of total <= 200 ? [1, 7, 1000] : [7, 1000]) {
            await checkPaging(realEngine, fx.reader, fx.oracle, { filters: shape.filters, window, direction, limit });
            await checkPaging(
              realEngine,
              fx.reader,
              fx.oracle,
              { filters: shape.filters, window, direction, limit },
              { slabShift: 10, stage1Slabs: 1 },
            );
          }
        }
      }
    });
  }
});

describe('match-all streams fetchRange and never touches the index', () => {
  for (const shape of MATCH_ALL_SHAPES) {
    it(shape.name, async () => {
      expect(planQuery(shape.filters).kind).toBe('match-all');
      for (const { window } of SHAPED_WINDOWS) {
        for (const direction of DIRECTIONS) {
          for (const [limit, batchSize] of [
            [1, 512],
            [1000, 512],
            [undefined, 512],
            [3, 7],
          ] as const) {
            const tracer = new TracingReader(fx.reader);
            const query =
              limit === undefined
                ? { filters: shape.filters, window, direction }
                : { filters: shape.filters, window, direction, limit };
            const got = await runQuery(realEngine, tracer, query, { batchSize });
            expectStream(
              fx.corpus,
              got,
              expectedStream(fx.oracle.matches(shape.filters), window, direction, limit),
              shape.name,
            );
            expect(tracer.calls.filter((c) => c.kind !== 'fetchRange')).toEqual([]);
            // The blocks tile the window from the walk's starting edge: the first firstBatch wide, then batchSize.
            const firstBatch = firstBatchOf(limit);
            let edge = direction === 'asc' ? window.start : window.end;
            tracer.rangeWindows.forEach((block, i) => {
              const size = i === 0 ? firstBatch : batchSize;
              const expected =
                direction === 'asc'
                  ? { start: edge, end: Math.min(edge + size, window.end) }
                  : { start: Math.max(edge - size, window.start), end: edge };
              expect(block, `${shape.name} block ${i}`).toEqual(expected);
              edge = direction === 'asc' ? block.end : block.start;
            });
            if (limit === undefined || got.length < limit) {
              expect(edge, 'a drain streams the whole window').toBe(direction === 'asc' ? window.end : window.start);
            }
            if (window.start === window.end) expect(tracer.calls).toEqual([]);
          }
        }
      }
    });
  }
});

describe('one lookup per stage', () => {
  it('a drain looks up each stage once with every distinct term; a page inside stage 1 never looks up stage 2', async () => {
    const windows = [
      WHOLE,
      { start: 33_333, end: SHAPED_CORPUS_SIZE },
      { start: SLAB - 3, end: SLAB + 3 },
      { start: 1_000, end: 30_000 },
    ];
    let twoStages = 0;
    for (const shape of INDEX_SHAPES) {
      const plan = planQuery(shape.filters);
      assert(plan.kind === 'plans', 'index shapes plan to terms');
      for (const window of windows) {
        for (const direction of DIRECTIONS) {
          for (const [slabShift, stage1Slabs] of [
            [16, 8],
            [16, 1],
            [10, 8],
            [10, 1],
          ] as const) {
            const stages = stagesOf(window, direction, slabShift, stage1Slabs);
            const tracer = new TracingReader(fx.reader);
            const lookups: { start: number; end: number; terms: number }[] = [];
            await runQuery(
              realEngine,
              tracer,
              { filters: shape.filters, window, direction },
              { slabShift, stage1Slabs },
              {
                onLookup: (w, n) => lookups.push({ start: w.start, end: w.end, terms: n }),
              },
            );
            expect(tracer.lookupWindows, `${shape.name} ${direction} 2^${slabShift}/${stage1Slabs}`).toEqual(stages);
            expect(lookups).toEqual(stages.map((s) => ({ ...s, terms: plan.terms.length })));
            for (const call of tracer.calls) if (call.kind === 'lookupTerms') expect(call.keys).toBe(plan.terms.length);
            if (stages.length === 2) twoStages++;
          }
        }
      }
    }
    expect(twoStages).toBeGreaterThan(100);
    // A page that stage 1 fills: the dense term's first 10 matches lie in stage 1, so stage 2 is never looked up.
    for (const direction of DIRECTIONS) {
      const tracer = new TracingReader(fx.reader);
      const got = await runQuery(
        realEngine,
        tracer,
        { filters: SHAPES.denseOnly, window: WHOLE, direction, limit: 10 },
        { slabShift: 10, stage1Slabs: 1 },
      );
      expect(got).toHaveLength(10);
      expect(tracer.lookupWindows).toEqual(stagesOf(WHOLE, direction, 10, 1).slice(0, 1));
    }
  });
});
