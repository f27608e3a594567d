// The baseline every engine row is measured against in the same run: the whole-chunk query of the base branch
// before PR #968 (spec §4.6 "Base Query"; stores/event/query.go, read at upstream's bench-automation/campaign-workflow
// branch), over the same ChunkReader. One lookup of the deduplicated terms over the whole chunk; per filter, the AND
// of its terms' whole-chunk bitmaps, smallest first (a filter with a topic-count range is one AND per bucket, ORed:
// planQuery of that filter alone); the OR across filters; clipped to the window; the first `limit` ids in walk order
// selected; fetched; post-filtered. Like the base branch it selects before it post-filters, so a page may come back
// short (never in the bench corpus, where the index is exact).
import { assert } from '@strata/base';
import {
  type ChunkReader,
  compilePostFilter,
  type OrdinalWindow,
  type PostFilter,
  type StorageFilter,
  type TermKey,
  termKeyHex,
} from '@strata/events';
import roaring from 'roaring';
import type { Direction } from '../src/engine/types.js';
import { type IndexPlan, planQuery } from '../src/planner/query-plan.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A request both sides run: the filters, planned and compiled once (planning is not part of either timing). */
export interface PreparedQuery {
  readonly filters: readonly StorageFilter[];
  readonly plan: IndexPlan;
  readonly postFilter: PostFilter;
  /** Per filter, its plans as slots into plan.terms (the whole-chunk baseline's ANDs). */
  readonly filterPlans: readonly (readonly (readonly number[])[])[];
}

/** Plans `filters` for both sides. The bench rows never use match-all filters (the baseline has no such path). */
export function prepareQuery(filters: readonly StorageFilter[]): PreparedQuery {
  const plan = planQuery(filters);
  assert(plan.kind === 'plans', 'bench filters are index plans');
  const slotOf = new Map<string, number>(plan.terms.map((key: TermKey, slot) => [termKeyHex(key), slot]));
  const filterPlans = filters.map((filter) => {
    const own = planQuery([filter]);
    assert(own.kind === 'plans', 'every bench filter constrains something');
    return own.plans.map((slots) => slots.map((slot) => slotOf.get(termKeyHex(own.terms[slot]!))!));
  });
  return { filters, plan, postFilter: compilePostFilter(filters), filterPlans };
}

/** What one page of a request produced: how many matches and their ordinals' XOR (so the work is observable). */
export interface PageSummary {
  count: number;
  checksum: number;
}

/** The ordinals of a page, for the cross-check of the two sides (not used while timing). */
export type OrdinalSink = (ordinal: number) => void;

/**
 * The base branch's per-filter intersect: one term is borrowed as it is (the union only reads it); more are sorted
 * smallest first and ANDed left to right into a fresh bitmap (roaring.FastAnd).
 */
function intersect(bitmaps: RoaringBitmap32[]): RoaringBitmap32 {
  if (bitmaps.length === 1) return bitmaps[0]!;
  const sorted = [...bitmaps].sort((a, b) => a.size - b.size);
  const result = RoaringBitmap32.and(sorted[0]!, sorted[1]!);
  for (let i = 2; i < sorted.length; i++) result.andInPlace(sorted[i]!);
  return result;
}

/** One page of a request over one reader: what both sides of a row are asked. */
export interface PageRequest {
  readonly reader: ChunkReader;
  readonly query: PreparedQuery;
  readonly window: OrdinalWindow;
  readonly direction: Direction;
  readonly limit: number;
}

/** One page through the whole-chunk baseline (see the file comment). */
export async function wholeChunkPage(request: PageRequest, sink?: OrdinalSink): Promise<PageSummary> {
  const { reader, query, window, direction, limit } = request;
  const chunk = { start: 0, end: reader.eventCount() };
  const bitmaps = await reader.lookupTerms(query.plan.terms, chunk);
  const perFilter: RoaringBitmap32[] = [];
  for (const plans of query.filterPlans) {
    for (const slots of plans) {
      const terms = slots.map((slot) => bitmaps[slot]);
      if (terms.some((term) => term === undefined)) continue; // an absent term empties the AND
      perFilter.push(intersect(terms as RoaringBitmap32[]));
    }
  }
  const union = RoaringBitmap32.orMany(perFilter);
  if (window.start > 0) union.removeRange(0, window.start);
  if (window.end < chunk.end) union.removeRange(window.end, chunk.end);
  const size = union.size;
  const take = Math.min(limit, size);
  // rangeUint32Array takes an index and a count: the first `take` ids, or the last `take` for a descending page.
  const ids = union.rangeUint32Array(direction === 'asc' ? 0 : size - take, take);
  const payloads = await reader.fetchEvents(ids);
  let count = 0;
  let checksum = 0;
  for (let k = 0; k < ids.length; k++) {
    const i = direction === 'asc' ? k : ids.length - 1 - k;
    if (!query.postFilter(payloads[i]!)) continue;
    count++;
    checksum ^= ids[i]!;
    sink?.(ids[i]!);
  }
  return { count, checksum };
}
