// Driving the engine the way its consumers do: filters planned and compiled, a window, a direction and a page
// limit; the consumer pulls until its page is full, then stops (the generator's return()). The engine under test is
// a parameter, so every check runs against matchEvents and, in the negative controls, against matchEventsWith faults.
import {
  type ChunkReader,
  compilePostFilter,
  type OrdinalWindow,
  type PostFilter,
  type StorageFilter,
} from '@strata/events';
import { expect } from 'vitest';
import { type EngineFaults, matchEvents, matchEventsWith, type WalkSeams } from '../../src/engine/match-events.js';
import type { Direction, Match, MatchOptions, MatchTrace } from '../../src/engine/types.js';
import { planQuery, type QueryPlan } from '../../src/planner/query-plan.js';
import type { Corpus } from './corpus.js';

export type Engine = (
  reader: ChunkReader,
  plan: QueryPlan,
  postFilter: PostFilter,
  window: OrdinalWindow,
  options: MatchOptions,
) => AsyncGenerator<Match, void, undefined>;

export const realEngine: Engine = matchEvents;

/** The engine with deliberate defects (the negative controls), its stage walk chosen as `seams` say. */
export function faultyEngine(faults: EngineFaults, seams: WalkSeams = {}): Engine {
  return (reader, plan, postFilter, window, options) =>
    matchEventsWith(reader, plan, postFilter, window, options, faults, seams);
}

/** The real engine with every stage walked slab by slab (the slab stepper), whatever its plans. */
export const slabWalkEngine: Engine = faultyEngine({}, { stageWalk: 'slabs' });

/** The real engine with every stage walked by spans (the span walk), whatever its plans. */
export const spanWalkEngine: Engine = faultyEngine({}, { stageWalk: 'spans' });

/** The real engine, each walk, by name: what the differential suites run over. */
export const WALK_ENGINES: readonly { readonly walk: string; readonly engine: Engine }[] = [
  { walk: 'auto', engine: realEngine },
  { walk: 'slabs', engine: slabWalkEngine },
  { walk: 'spans', engine: spanWalkEngine },
];

/** The engine's schedule knobs (test seams): slab width, stage-1 slabs, fetch size after the first. */
export interface Schedule {
  readonly slabShift?: number;
  readonly stage1Slabs?: number;
  readonly batchSize?: number;
}

export interface Query {
  readonly filters: readonly StorageFilter[];
  readonly window: OrdinalWindow;
  readonly direction: Direction;
  /** The page: the consumer stops after this many matches; undefined drains the window. */
  readonly limit?: number;
}

/** firstBatch of a drain (no page): the engine caps it at MAX_FIRST_BATCH anyway. */
const DRAIN_FIRST_BATCH = 1_000;

/** The firstBatch a consumer of `limit` matches passes, as the pager does: room + 1 (a drain: DRAIN_FIRST_BATCH). */
export function firstBatchOf(limit: number | undefined): number {
  return limit === undefined ? DRAIN_FIRST_BATCH : limit + 1;
}

/** Runs one query as the pager does (firstBatch = room + 1) and collects what the consumer took. */
export async function runQuery(
  engine: Engine,
  reader: ChunkReader,
  query: Query,
  schedule: Schedule = {},
  trace?: MatchTrace,
): Promise<Match[]> {
  const plan = planQuery(query.filters);
  const postFilter = compilePostFilter(query.filters);
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  const options: MatchOptions = {
    direction: query.direction,
    firstBatch: firstBatchOf(query.limit),
    ...schedule,
    ...(trace === undefined ? {} : { trace }),
  };
  const out: Match[] = [];
  if (limit <= 0) return out;
  for await (const match of engine(reader, plan, postFilter, query.window, options)) {
    out.push(match);
    if (out.length >= limit) break;
  }
  return out;
}

/** A query in words, for assertion messages. */
export function describeQuery(query: Query, schedule: Schedule = {}): string {
  const { start, end } = query.window;
  const knobs = Object.entries(schedule)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `[${start}, ${end}) ${query.direction} limit ${query.limit ?? 'none'}${knobs === '' ? '' : ` ${knobs}`}`;
}

/**
 * Requires the engine's matches to be `expected` (ordinals in order) with each payload the corpus's own for that
 * ordinal, byte for byte.
 */
export function expectStream(corpus: Corpus, got: readonly Match[], expected: readonly number[], label: string): void {
  expect(
    got.map((m) => m.ordinal),
    label,
  ).toEqual(expected);
  for (const match of got) {
    const want = corpus.payloads[match.ordinal]!;
    if (!Buffer.from(match.payload).equals(Buffer.from(want))) {
      expect.fail(`${label}: the payload of ordinal ${match.ordinal} is not the corpus's`);
    }
  }
}

/** The window left after a page that ended on `last`: past it ascending, below it descending. */
export function resumeWindow(window: OrdinalWindow, direction: Direction, last: number): OrdinalWindow {
  return direction === 'asc' ? { start: last + 1, end: window.end } : { start: window.start, end: last };
}

/**
 * Pages through a window to its end within one chunk, as the pager re-enters it: each page resumes the walk past
 * the last delivered ordinal. After `maxPages` pages the rest is drained in one go. Returns the pages.
 */
export async function pageToEnd(
  engine: Engine,
  reader: ChunkReader,
  query: Query & { readonly limit: number },
  schedule: Schedule = {},
  maxPages = 40,
): Promise<Match[][]> {
  const pages: Match[][] = [];
  let window = query.window;
  for (;;) {
    const paged = pages.length < maxPages;
    const { filters, direction, limit } = query;
    const page = await runQuery(
      engine,
      reader,
      paged ? { filters, window, direction, limit } : { filters, window, direction },
      schedule,
    );
    pages.push(page);
    if (!paged || page.length < limit) return pages;
    window = resumeWindow(window, query.direction, page[page.length - 1]!.ordinal);
  }
}
