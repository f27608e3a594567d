// The skip checks (upstream TestSlabStepperSkipsCandidateFreeSlabs and TestSlabStagesOpenTheSameSlabs, run through
// the whole engine): the exact slabs a walk opens, per shape, window, direction, schedule and page, against the list
// computed from the oracle (expected-slabs.ts). Plain functions over an Engine, for the negative controls.
import type { ChunkReader, OrdinalWindow, StorageFilter } from '@strata/events';
import { expect } from 'vitest';
import type { SlabAndAllocations } from '../../src/bitmap/slab-and.js';
import { type Direction, MATCH_BATCH_SIZE, type MatchTrace } from '../../src/engine/types.js';
import { DIRECTIONS, type OracleCache } from './engine-checks.js';
import { candidateSlabs, type OpenedSlab, pageWalk, stagesOf } from './expected-slabs.js';
import { expectedStream } from './oracle.js';
import { RARE_SLAB_SHIFT, SKIP_WINDOWS } from './rare-corpus.js';
import { TracingReader } from './readers.js';
import { describeQuery, type Engine, firstBatchOf, type Query, runQuery, type Schedule } from './run-engine.js';

/** What one walk showed through its trace hooks and the reader. */
export interface WalkRecord {
  readonly slabs: OpenedSlab[];
  /** The evaluator's allocation counts after each slab (a copy per slab). */
  readonly allocations: SlabAndAllocations[];
  readonly lookups: OrdinalWindow[];
  readonly ordinals: number[];
}

/** Runs a query recording onSlab, onLookup and the reader's lookups. */
export async function recordWalk(
  engine: Engine,
  reader: ChunkReader,
  query: Query,
  schedule: Schedule,
): Promise<WalkRecord & { readonly readerLookups: OrdinalWindow[] }> {
  const slabs: OpenedSlab[] = [];
  const allocations: SlabAndAllocations[] = [];
  const lookups: OrdinalWindow[] = [];
  const trace: MatchTrace = {
    onSlab: (lo, hi, candidates, counts) => {
      slabs.push({ lo, hi, candidates });
      allocations.push({ ...counts });
    },
    onLookup: (window) => {
      lookups.push({ start: window.start, end: window.end });
    },
  };
  const tracer = new TracingReader(reader);
  const got = await runQuery(engine, tracer, query, schedule, trace);
  return { slabs, allocations, lookups, ordinals: got.map((m) => m.ordinal), readerLookups: tracer.lookupWindows };
}

export interface SlabCase {
  readonly filters: readonly StorageFilter[];
  readonly window: OrdinalWindow;
  readonly direction: Direction;
  readonly limit?: number;
  readonly slabShift: number;
  readonly stage1Slabs: number;
  readonly batchSize?: number;
}

/**
 * One walk's slabs, stages and stream against the expectation: the slabs holding a candidate of some plan among
 * the candidates the fetch schedule gathers (all of them for a drain), entered at the candidate; the stages the
 * consumer pulled into looked up once each; the stream the oracle's. Valid for shapes whose every plan's proved
 * bound is a candidate (see rare-corpus.ts SKIP_SHAPES).
 */
export async function checkSlabsOpened(engine: Engine, reader: ChunkReader, oracle: OracleCache, c: SlabCase) {
  const query: Query =
    c.limit === undefined
      ? { filters: c.filters, window: c.window, direction: c.direction }
      : { filters: c.filters, window: c.window, direction: c.direction, limit: c.limit };
  const schedule: Schedule = {
    slabShift: c.slabShift,
    stage1Slabs: c.stage1Slabs,
    ...(c.batchSize === undefined ? {} : { batchSize: c.batchSize }),
  };
  const what = describeQuery(query, schedule);
  const answer = expectedStream(oracle.matches(c.filters), c.window, c.direction);
  const stages = stagesOf(c.window, c.direction, c.slabShift, c.stage1Slabs);
  const walk = pageWalk(
    answer,
    stages,
    c.limit ?? Number.POSITIVE_INFINITY,
    firstBatchOf(c.limit),
    c.batchSize ?? MATCH_BATCH_SIZE,
  );
  const record = await recordWalk(engine, reader, query, schedule);
  expect(record.ordinals, `${what}: stream`).toEqual(answer.slice(0, c.limit ?? answer.length));
  expect(record.slabs, `${what}: slabs opened`).toEqual(
    candidateSlabs(walk.gathered, c.window, c.direction, c.slabShift),
  );
  expect(record.lookups, `${what}: onLookup windows`).toEqual(walk.stages);
  expect(record.readerLookups, `${what}: reader lookups`).toEqual(walk.stages);
}

/** A page a consumer takes (undefined: a drain), with the batch size after the first fetch. */
export interface SlabPage {
  readonly limit?: number;
  readonly batchSize?: number;
}

/** checkSlabsOpened for one shape over every skip window, both directions, the stage-1 widths and pages given. */
export async function checkShapeSlabs(
  engine: Engine,
  reader: ChunkReader,
  oracle: OracleCache,
  filters: readonly StorageFilter[],
  stage1Widths: readonly number[],
  pages: readonly SlabPage[] = [{}],
): Promise<void> {
  for (const { window } of SKIP_WINDOWS) {
    for (const direction of DIRECTIONS) {
      for (const stage1Slabs of stage1Widths) {
        for (const page of pages) {
          await checkSlabsOpened(engine, reader, oracle, {
            filters,
            window,
            direction,
            slabShift: RARE_SLAB_SHIFT,
            stage1Slabs,
            ...page,
          });
        }
      }
    }
  }
}
