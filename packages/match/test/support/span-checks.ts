// The span walk's checks (src/engine/span-walk.ts), run through the whole engine: the spans a walk evaluates, per
// query, against what the index and the schedule say they must be. Plain functions over an Engine, so the negative
// controls can require them to fail. The expected candidates of a span come from whole-corpus lookups ANDed and ORed
// with roaring over the whole corpus, then clipped: no code of the span walk is involved.
import { assert } from '@strata/base';
import type { ChunkReader, OrdinalWindow, StorageFilter } from '@strata/events';
import roaring from 'roaring';
import { expect } from 'vitest';
import { MATCH_BATCH_SIZE, type MatchTrace, STAGE1_SLABS } from '../../src/engine/types.js';
import { planQuery } from '../../src/planner/query-plan.js';
import type { OracleCache } from './engine-checks.js';
import { pageWalk, stagesOf } from './expected-slabs.js';
import { expectedStream } from './oracle.js';
import { describeQuery, type Engine, firstBatchOf, type Query, runQuery, type Schedule } from './run-engine.js';

const { RoaringBitmap32 } = roaring;

/** One span as onSpan reports it: inclusive [lo, hi] and the candidates it gave. */
export interface WalkedSpan {
  readonly lo: number;
  readonly hi: number;
  readonly candidates: number;
}

/** What one walk showed: its spans, slabs opened (the slab walk's), stages looked up, and the stream. */
export interface SpanRecord {
  readonly spans: WalkedSpan[];
  readonly slabs: number;
  readonly lookups: OrdinalWindow[];
  readonly ordinals: number[];
}

export async function recordSpans(
  engine: Engine,
  reader: ChunkReader,
  query: Query,
  schedule: Schedule,
): Promise<SpanRecord> {
  const spans: WalkedSpan[] = [];
  const lookups: OrdinalWindow[] = [];
  let slabs = 0;
  const trace: MatchTrace = {
    onSpan: (lo, hi, candidates) => {
      spans.push({ lo, hi, candidates });
    },
    onSlab: () => {
      slabs++;
    },
    onLookup: (window) => {
      lookups.push({ start: window.start, end: window.end });
    },
  };
  const got = await runQuery(engine, reader, query, schedule, trace);
  return { spans, slabs, lookups, ordinals: got.map((m) => m.ordinal) };
}

/** The index's candidates for `filters` over the whole corpus: each plan's AND of whole-corpus bitmaps, ORed. */
export async function indexCandidates(
  reader: ChunkReader,
  filters: readonly StorageFilter[],
): Promise<roaring.RoaringBitmap32> {
  const plan = planQuery(filters);
  assert(plan.kind === 'plans', 'span checks need index queries');
  const bitmaps = await reader.lookupTerms(plan.terms, { start: 0, end: reader.eventCount() });
  const union = new RoaringBitmap32();
  for (const slots of plan.plans) {
    if (slots.some((slot) => bitmaps[slot] === undefined)) continue;
    const and = bitmaps[slots[0]!]!.clone();
    for (const slot of slots.slice(1)) and.andInPlace(bitmaps[slot]!);
    union.orInPlace(and);
  }
  return union;
}

/** Options of checkSpansWalked: the span cap the engine runs with (SPAN_MAX_VALUES or its seam). */
export interface SpanCheckOptions {
  readonly maxValues: number;
  /** Require every stage to have been walked by spans (an engine forced to spans); else stages may use slabs. */
  readonly allStages: boolean;
}

/**
 * One query's spans against the index and the schedule:
 * 1. the stream is the oracle's, and (plans exact) the stages looked up are those the consumer pulls into;
 * 2. in each stage walked by spans, the spans tile the stage from the edge the walk starts at, in walk order, with no
 *    gap or overlap, and every inner edge falls on a slab boundary;
 * 3. each span reports exactly the index's candidates inside it (none lost, none invented);
 * 4. a span of more than one slab holds at most `maxValues` candidates;
 * 5. when the plans are exact (candidates are matches, so the fetch schedule is known): in a stage where the page
 *    filled, no span is opened once the stage has handed out what the schedule gathers there (only the last span
 *    may hold candidates nobody asked for); in a stage the walk ran out, the spans reach its far edge.
 * Returns how many spans the walk evaluated.
 */
export async function checkSpansWalked(
  engine: Engine,
  reader: ChunkReader,
  oracle: OracleCache,
  query: Query,
  schedule: Schedule,
  options: SpanCheckOptions,
  label = '',
): Promise<number> {
  const what = `${label} ${describeQuery(query, schedule)}`;
  const slab = 2 ** (schedule.slabShift ?? 16);
  const record = await recordSpans(engine, reader, query, schedule);
  const answer = expectedStream(oracle.matches(query.filters), query.window, query.direction);
  expect(record.ordinals, `${what}: stream`).toEqual(answer.slice(0, query.limit ?? answer.length));
  const candidates = await indexCandidates(reader, query.filters);
  const inWindow = (lo: number, hi: number) => candidates.rangeCardinality(lo, hi + 1);
  const descending = query.direction === 'desc';
  const exact =
    inWindow(query.window.start, query.window.end - 1) === answer.length &&
    answer.every((ordinal) => candidates.has(ordinal));
  const stages = stagesOf(
    query.window,
    query.direction,
    schedule.slabShift ?? 16,
    schedule.stage1Slabs ?? STAGE1_SLABS,
  );
  const walk = pageWalk(
    answer,
    stages,
    query.limit ?? Number.POSITIVE_INFINITY,
    firstBatchOf(query.limit),
    schedule.batchSize ?? MATCH_BATCH_SIZE,
  );
  // The stages looked up are those the consumer pulls into (spec §4.3), known when candidates are matches.
  if (exact) expect(record.lookups, `${what}: stages looked up`).toEqual(walk.stages);
  let seen = 0;
  for (const stage of record.lookups) {
    const spans = record.spans.filter((s) => s.lo >= stage.start && s.hi < stage.end);
    seen += spans.length;
    if (spans.length === 0) {
      if (options.allStages && inWindow(stage.start, stage.end - 1) > 0) {
        expect.fail(`${what}: stage [${stage.start}, ${stage.end}) holds candidates and was not walked by spans`);
      }
      continue;
    }
    let edge = descending ? stage.end - 1 : stage.start;
    spans.forEach((span, i) => {
      const where = `${what}: span ${i} [${span.lo}, ${span.hi}] of stage [${stage.start}, ${stage.end})`;
      expect(descending ? span.hi : span.lo, `${where} does not start where the last one ended`).toBe(edge);
      expect(span.lo, `${where} is empty`).toBeLessThanOrEqual(span.hi);
      const inner = descending ? span.lo : span.hi + 1;
      if (inner !== (descending ? stage.start : stage.end)) {
        expect(inner % slab, `${where} is not cut on a slab boundary`).toBe(0);
      }
      edge = descending ? span.lo - 1 : span.hi + 1;
      expect(span.candidates, `${where}: candidates`).toBe(inWindow(span.lo, span.hi));
      if (Math.floor(span.lo / slab) !== Math.floor(span.hi / slab)) {
        expect(span.candidates, `${where} exceeds the cap`).toBeLessThanOrEqual(options.maxValues);
      }
    });
    const entered = walk.stages.findIndex((s) => s.start === stage.start && s.end === stage.end);
    if (exact && walk.exhausted[entered] === false) {
      // The page filled in this stage: the last span was needed to fill it, and nothing after it was opened.
      const gathered = walk.gathered.filter((o) => o >= stage.start && o < stage.end).length;
      const beforeLast = spans.slice(0, -1).reduce((sum, s) => sum + s.candidates, 0);
      expect(beforeLast, `${what}: a span was opened after the stage had served its page`).toBeLessThan(gathered);
    } else if (exact) {
      // Run out: the spans reach the stage's far edge.
      expect(edge, `${what}: the walk stopped short of the stage's end`).toBe(descending ? stage.start - 1 : stage.end);
    }
  }
  expect(seen, `${what}: spans outside every stage looked up`).toBe(record.spans.length);
  return record.spans.length;
}
