// The filter lists of the engine bench's rows, built from the synthetic chunk's vocabulary (synthetic-chunk.ts), and
// the checks that prove on the built chunk that each row's filters mean what its name says. Each filter list is what
// a request hands the engine: StorageFilters (v2 style: constrained fields, any topic count) or, for the v1 row,
// @strata/events compileV1Filters of v1 filters. Whole-chunk bitmaps answer the checks (roaring ANDs of the views).
import { assert } from '@strata/base';
import {
  ANY_TOPIC_COUNT,
  compileV1Filters,
  type StorageFilter,
  TERM_FIELD,
  termKey,
  topicCountTermKey,
  topicField,
  type V1Filter,
} from '@strata/events';
import roaring from 'roaring';
import type { Direction } from '../src/engine/types.js';
import { PAIR_VALUES, SLAB, SPARSE_CONTRACTS, type SyntheticChunk, TRIPLE_VALUES } from './synthetic-chunk.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** One bench row: its id, its request (filters, limit, walk order; the window is the whole chunk) and targets. */
export interface EngineRow {
  readonly id: string;
  readonly filters: readonly StorageFilter[];
  readonly limit: number;
  readonly direction: Direction;
  /** What the filters are, for the result's note. */
  readonly meaning: string;
  /** The goals: wall time per request (ms) and bytes allocated per request. */
  readonly targetMs?: number;
  readonly targetBytes?: number;
}

/** Filters per row in the seed's table. */
export const FILTERS_PER_ROW = 256;
/** The "≤ 4 MB", in bytes (10^6). */
const FOUR_MB = 4_000_000;

/** A clause over value fields: index 0 the contract, 1..4 topic positions 0..3 (undefined: any). */
function clause(fields: readonly (Uint8Array | undefined)[]): StorageFilter {
  const [contractId, ...topics] = fields;
  const filter: StorageFilter = { topics, topicCount: { ...ANY_TOPIC_COUNT } };
  if (contractId !== undefined) filter.contractId = contractId;
  return filter;
}

/** The 4 value fields of the triple family as functions of its digits (p, q): see synthetic-chunk.ts. */
const TRIPLE_DIGITS: readonly ((p: number, q: number) => number)[] = [
  (p) => p,
  (_, q) => q,
  (p, q) => (p + q) % TRIPLE_VALUES,
  (p, q) => (p + 2 * q) % TRIPLE_VALUES,
];

/** Field subsets of size n of 0..fields-1, in lexicographic order. */
function subsets(fields: number, n: number): number[][] {
  if (n === 0) return [[]];
  const out: number[][] = [];
  for (let first = 0; first < fields; first++) {
    for (const rest of subsets(fields, n - 1)) if (rest.every((f) => f > first)) out.push([first, ...rest]);
  }
  return out;
}

function rowFilters(chunk: SyntheticChunk) {
  const c = chunk.corpus;
  // Value bytes per field, indexed [field][value]: P has contract + 4 topics, T contract + 3 topics.
  const pair = [c.pairContracts, ...c.pairTopics];
  const triple = [c.tripleContracts, ...c.tripleTopics];
  const tripleClause = (fields: readonly number[], values: readonly number[]) => {
    const set: (Uint8Array | undefined)[] = [undefined, undefined, undefined, undefined];
    fields.forEach((f, i) => {
      set[f] = triple[f]![values[i]!]!;
    });
    return set;
  };

  // Pairs (field a = x, field b = y), x ≠ y: never co-occur. Value pairs outer, field pairs inner, first 256.
  const pairs: StorageFilter[] = [];
  for (let x = 0; x < PAIR_VALUES; x++) {
    for (let y = 0; y < PAIR_VALUES; y++) {
      if (x === y) continue;
      for (const [a, b] of subsets(5, 2) as [number, number][]) {
        const fields: (Uint8Array | undefined)[] = [undefined, undefined, undefined, undefined, undefined];
        fields[a] = pair[a]![x];
        fields[b] = pair[b]![y];
        pairs.push(clause(fields));
      }
    }
  }

  // Triples of T fields whose values no (p, q) gives together (each two of them some (p, q) does).
  const triples: StorageFilter[] = [];
  for (let x = 0; x < TRIPLE_VALUES; x++) {
    for (let y = 0; y < TRIPLE_VALUES; y++) {
      for (let z = 0; z < TRIPLE_VALUES; z++) {
        for (const fields of subsets(4, 3)) {
          const values = [x, y, z];
          let together = false;
          for (let p = 0; p < TRIPLE_VALUES && !together; p++) {
            for (let q = 0; q < TRIPLE_VALUES && !together; q++) {
              together = fields.every((f, i) => TRIPLE_DIGITS[f]!(p, q) === values[i]);
            }
          }
          if (!together) triples.push(clause(tripleClause(fields, values)));
        }
      }
    }
  }

  // v1 filters over T values that do occur together, each with at least 4 topics ([..., '*', '**']): T events have
  // exactly 3, so every bucket plan (4 and 5) is empty. Subsets of 2, 3, 4 fields, then single fields.
  const v1: V1Filter[] = [];
  for (const size of [2, 3, 4, 1]) {
    for (const fields of subsets(4, size)) {
      const seen = new Set<string>();
      for (let p = 0; p < TRIPLE_VALUES; p++) {
        for (let q = 0; q < TRIPLE_VALUES; q++) {
          const values = fields.map((f) => TRIPLE_DIGITS[f]!(p, q));
          if (seen.has(values.join())) continue;
          seen.add(values.join());
          const [contract, ...topics] = tripleClause(fields, values);
          v1.push({
            types: [],
            contractIds: contract === undefined ? [] : [contract],
            topics: [{ segments: [...topics.map((t) => t ?? ('*' as const)), '*'], trailingAny: true }],
          });
        }
      }
    }
  }

  return {
    pairs: pairs.slice(0, FILTERS_PER_ROW),
    triples: triples.slice(0, FILTERS_PER_ROW),
    countRanges: compileV1Filters(v1.slice(0, FILTERS_PER_ROW)),
    sparse: c.sparseContracts.map((id) => clause([id])),
    // The "contract poll": the XLM SAC's transfers, 256 times over.
    identical: Array.from({ length: FILTERS_PER_ROW }, () => clause([c.pubnet.contracts[0], c.pubnet.topics[0]![0]])),
    firstSlab: [clause([c.tripleContracts[0], c.tripleTopics[0]![0]])],
  };
}

/** The rows of the seed's filter-list table and the limit-1-first-slab request, over `chunk`'s vocabulary. */
export function engineRows(chunk: SyntheticChunk): { table: EngineRow[]; firstSlab: EngineRow } {
  const f = rowFilters(chunk);
  const table: EngineRow[] = [
    {
      id: 'filters.identical-256',
      filters: f.identical,
      limit: 1,
      direction: 'asc',
      meaning: '256 copies of contract = XLM SAC ∧ topic0 = transfer (about 3.7 % of events)',
      targetMs: 0.05,
    },
    {
      id: 'filters.sparse-16-limit-1000',
      filters: f.sparse,
      limit: 1000,
      direction: 'asc',
      meaning: '16 filters, one sparse contract each (about 256 per slab, array containers); union 1/16 of events',
      targetMs: 1.0,
    },
    {
      id: 'filters.dense-pairs-disjoint',
      filters: f.pairs,
      limit: 1,
      direction: 'asc',
      meaning: '256 pairs of dense terms (bitset in every slab) of different fields that never co-occur; no match',
      targetMs: 16,
      targetBytes: FOUR_MB,
    },
    {
      id: 'filters.dense-triples-empty',
      filters: f.triples,
      limit: 1,
      direction: 'asc',
      meaning: '256 triples of dense terms, each two co-occurring, the three never; no match',
      targetMs: 16,
      targetBytes: FOUR_MB,
    },
    {
      id: 'filters.v1-count-ranges-empty',
      filters: f.countRanges,
      limit: 1,
      direction: 'asc',
      meaning:
        '256 v1 filters [..., *, **] (at least 4 topics: one plan per bucket 4 and 5) over dense co-occurring ' +
        'terms of 3-topic events; no match',
      targetMs: 16,
      targetBytes: FOUR_MB,
    },
  ];
  const firstSlab: EngineRow = {
    id: 'limit-1-first-slab',
    filters: f.firstSlab,
    limit: 1,
    direction: 'asc',
    meaning: 'contract = triple-0 ∧ topic0 = tri0_0 (about 1.6 % of events, the first in slab 0)',
  };
  return { table, firstSlab };
}

// --- the checks -------------------------------------------------------------------------------------------------

/** The whole-chunk bitmap of each constrained value field of `filter` (its topic count aside). */
function valueBitmaps(chunk: SyntheticChunk, filter: StorageFilter): RoaringBitmap32[] {
  const keys = [];
  if (filter.contractId !== undefined) keys.push(termKey(TERM_FIELD.CONTRACT_ID, filter.contractId));
  filter.topics.forEach((topic, p) => {
    if (topic !== undefined) keys.push(termKey(topicField(p), topic));
  });
  return keys.map((key) => {
    const term = chunk.termOf(key);
    const view = term === undefined ? undefined : chunk.views[term];
    assert(view !== undefined, 'every term a row names is in the chunk');
    return view;
  });
}

function andAll(bitmaps: readonly RoaringBitmap32[]): RoaringBitmap32 {
  const result = bitmaps[0]!.clone();
  for (let i = 1; i < bitmaps.length; i++) result.andInPlace(bitmaps[i]!);
  return result;
}

/** True when `bitmap` has a bitset container in every slab of the chunk (more than 4,096 values in each). */
function denseEverywhere(bitmap: RoaringBitmap32, slabs: number): boolean {
  return bitmap.statistics().bitsetContainers === slabs;
}

/**
 * Proves each row's name on `chunk` (whole-chunk ANDs; the post-filter's topic count is checked through the bucket
 * terms): dense pairs never co-occur, each dense; triples pairwise overlap and are jointly empty; the v1 filters match
 * nothing with their topic count and something without it; sparse terms are array containers, their union fills a
 * limit-1000 page in slab 0; the identical and first-slab filters match in slab 0. Throws AssertionError otherwise.
 */
export function checkRows(chunk: SyntheticChunk, rows: ReturnType<typeof engineRows>): void {
  const slabs = Math.ceil(chunk.eventCount() / SLAB);
  const byId = new Map(rows.table.map((row) => [row.id, row]));
  const row = (id: string) => byId.get(id)!;
  const describe = (filter: StorageFilter) => JSON.stringify(filter, (_, v) => (v instanceof Uint8Array ? '…' : v));
  for (const id of ['filters.dense-pairs-disjoint', 'filters.dense-triples-empty', 'filters.v1-count-ranges-empty']) {
    assert(row(id).filters.length === FILTERS_PER_ROW, `${id} has ${FILTERS_PER_ROW} filters`);
  }
  for (const filter of row('filters.dense-pairs-disjoint').filters) {
    const bitmaps = valueBitmaps(chunk, filter);
    assert(bitmaps.length === 2 && bitmaps.every((b) => denseEverywhere(b, slabs)), 'a pair of dense terms');
    assert(bitmaps[0]!.andCardinality(bitmaps[1]!) === 0, () => `pair co-occurs: ${describe(filter)}`);
  }
  for (const filter of row('filters.dense-triples-empty').filters) {
    const [a, b, c] = valueBitmaps(chunk, filter) as [RoaringBitmap32, RoaringBitmap32, RoaringBitmap32];
    assert(
      [a, b, c].every((t) => denseEverywhere(t, slabs)),
      'a triple of dense terms',
    );
    assert(a.intersects(b) && b.intersects(c) && a.intersects(c), 'each two terms of a triple co-occur');
    assert(RoaringBitmap32.and(a, b).andCardinality(c) === 0, () => `triple co-occurs: ${describe(filter)}`);
  }
  const atLeast4 = [4, 5].map((bucket) => chunk.views[chunk.termOf(topicCountTermKey(bucket))!]!);
  for (const filter of row('filters.v1-count-ranges-empty').filters) {
    assert(filter.topicCount.count === 4 && !filter.topicCount.exact, 'v1 [..., *, **]: at least 4 topics');
    const values = andAll(valueBitmaps(chunk, filter));
    assert(!values.isEmpty, 'the filter matches without its topic count');
    for (const bucket of atLeast4) assert(!values.intersects(bucket), () => `count range matches: ${describe(filter)}`);
  }
  const sparse = row('filters.sparse-16-limit-1000').filters;
  assert(sparse.length === SPARSE_CONTRACTS, 'sixteen sparse filters');
  const sparseUnion = RoaringBitmap32.orMany(sparse.map((filter) => valueBitmaps(chunk, filter)[0]!));
  for (const filter of sparse) {
    const stats = valueBitmaps(chunk, filter)[0]!.statistics();
    assert(stats.arrayContainers === slabs && stats.bitsetContainers === 0, 'a sparse term is array containers');
  }
  assert(sparseUnion.rangeCardinality(0, SLAB) >= 1001, 'the sparse union fills a 1000-event page in slab 0');
  for (const filters of [row('filters.identical-256').filters, rows.firstSlab.filters]) {
    const first = andAll(valueBitmaps(chunk, filters[0]!)).minimum();
    assert(first < SLAB, 'matches in its first slab');
  }
}
