// fast-check arbitraries for the engine's differential property: random corpora over the spec §6 vocabulary (runs
// of templates, with rare events dropped on slab edges), random filter sets in the three shapes filters reach the
// engine in (v1 requests compiled by compileV1Filters, v2 filters, and cursor-level StorageFilters with topic
// counts; up to 256 filters), windows that start and end at 0, mid-slab, on slab boundaries and one off them, and
// page limits 1..1000.
import {
  type ContractEventType,
  compileV1Filters,
  type OrdinalWindow,
  type StorageFilter,
  type V1Filter,
  type V1TopicFilter,
} from '@strata/events';
import fc from 'fast-check';
import type { Direction } from '../../src/engine/types.js';
import { buildCorpus, CONTRACTS, type Corpus, type EventTemplate, SYMBOLS } from './corpus.js';

const contractIndexArb = fc.integer({ min: 0, max: CONTRACTS.length - 1 });
const symbolIndexArb = fc.integer({ min: 0, max: SYMBOLS.length - 1 });

/** Events of 0..6 topics (5 and 6 land in the overflow bucket), any of the 3 types, with or without a contract. */
export const templateArb: fc.Arbitrary<EventTemplate> = fc.record({
  contract: fc.option(contractIndexArb, { nil: undefined, freq: 5 }),
  type: fc.constantFrom<ContractEventType>(0, 1, 1, 2),
  topics: fc.array(symbolIndexArb, { maxLength: 6 }),
});

/**
 * A random corpus, compact (what fast-check prints for a counterexample): runs of templates repeated until `size`
 * ordinals, then rare templates (seen nowhere else) dropped on slab edges and at random ordinals. `corpusOf` builds it.
 */
export interface CorpusSpec {
  readonly size: number;
  readonly slab: number;
  readonly templates: readonly EventTemplate[];
  readonly runs: readonly { readonly template: number; readonly length: number }[];
  readonly rare: readonly { readonly template: EventTemplate; readonly slabIndex: number; readonly offset: number }[];
}

/** Corpora of `minSize..maxSize` ordinals; runs short, medium and slab-long; rare events on slab edges. */
export function corpusSpecArb(slabShift: number, minSize: number, maxSize: number): fc.Arbitrary<CorpusSpec> {
  const slab = 2 ** slabShift;
  const runArb = fc.record({
    template: fc.nat(),
    length: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 3 },
      { arbitrary: fc.integer({ min: 5, max: 300 }), weight: 3 },
      { arbitrary: fc.integer({ min: slab >> 2, max: 3 * slab }), weight: 1 },
    ),
  });
  const rareArb = fc.record({
    template: templateArb,
    slabIndex: fc.nat(),
    // The last id of a slab, its first, the one after, or anywhere in it.
    offset: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: 0, max: slab - 1 })),
  });
  return fc.record({
    size: fc.integer({ min: minSize, max: maxSize }),
    slab: fc.constant(slab),
    templates: fc.array(templateArb, { minLength: 1, maxLength: 10 }),
    runs: fc.array(runArb, { minLength: 1, maxLength: 40 }),
    rare: fc.array(rareArb, { maxLength: 6 }),
  });
}

/** The corpus a spec describes. */
export function corpusOf(spec: CorpusSpec): Corpus {
  const { size, slab, templates, runs, rare } = spec;
  const all = [...templates];
  const templateOf = new Uint16Array(size);
  let ordinal = 0;
  while (ordinal < size) {
    for (const run of runs) {
      const end = Math.min(size, ordinal + run.length);
      templateOf.fill(run.template % templates.length, ordinal, end);
      ordinal = end;
      if (ordinal === size) break;
    }
  }
  const slabs = Math.ceil(size / slab);
  for (const r of rare) {
    const at = (r.slabIndex % slabs) * slab + r.offset;
    if (at < 0 || at >= size) continue;
    templateOf[at] = all.length;
    all.push(r.template);
  }
  return buildCorpus(all, templateOf);
}

const topicOrWildcardArb = fc.option(
  symbolIndexArb.map((i) => SYMBOLS[i]!),
  { nil: undefined, freq: 2 },
);

/** Cursor-level clauses: any field, the diagnostic type and topic counts included (what planQuery accepts). */
export const storageFilterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(contractIndexArb, { nil: undefined, freq: 2 }),
    type: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined, freq: 2 }),
    topics: fc.array(topicOrWildcardArb, { maxLength: 4 }),
    count: fc.integer({ min: 0, max: 4 }),
    exact: fc.boolean(),
  })
  .map(({ contract, type, topics, count, exact }) => {
    const filter: StorageFilter = { topics, topicCount: { count, exact } };
    if (contract !== undefined) filter.contractId = CONTRACTS[contract]!;
    if (type !== undefined) filter.eventType = type;
    return filter;
  });

/** v2 filters: contract, type (system or contract) and topic0..3, at least one set; no topic count. */
export const v2FilterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(contractIndexArb, { nil: undefined, freq: 2 }),
    type: fc.option(fc.constantFrom(0, 1), { nil: undefined, freq: 3 }),
    topics: fc.array(topicOrWildcardArb, { maxLength: 4 }),
  })
  .filter(({ contract, type, topics }) => contract !== undefined || type !== undefined || topics.some((t) => t))
  .map(({ contract, type, topics }) => {
    const trimmed = [...topics];
    while (trimmed.length > 0 && trimmed[trimmed.length - 1] === undefined) trimmed.pop();
    const filter: StorageFilter = { topics: trimmed, topicCount: { count: 0, exact: false } };
    if (contract !== undefined) filter.contractId = CONTRACTS[contract]!;
    if (type !== undefined) filter.eventType = type;
    return filter;
  });

const v1TopicArb: fc.Arbitrary<V1TopicFilter> = fc
  .record({
    segments: fc.array(
      fc.oneof(
        fc.constant<'*'>('*'),
        symbolIndexArb.map((i) => SYMBOLS[i]!),
      ),
      { maxLength: 4 },
    ),
    trailingAny: fc.boolean(),
  })
  // A topic filter of no segments is only valid as ["**"].
  .map(({ segments, trailingAny }) => ({ segments, trailingAny: trailingAny || segments.length === 0 }));

/** v1 filters (up to 5, each of up to 2 types, 5 contracts and 5 topic filters: up to 250 clauses compiled). */
export const v1FiltersArb: fc.Arbitrary<V1Filter[]> = fc.array(
  fc.record({
    types: fc.subarray(['system', 'contract'] as const),
    contractIds: fc.array(
      contractIndexArb.map((i) => CONTRACTS[i]!),
      { maxLength: 5 },
    ),
    topics: fc.array(v1TopicArb, { maxLength: 5 }),
  }),
  { minLength: 1, maxLength: 5 },
);

export type FilterSetKind = 'v1' | 'v2' | 'storage';

export interface FilterSet {
  readonly kind: FilterSetKind;
  readonly filters: readonly StorageFilter[];
}

/** Lists of 1..8 filters mostly, 200..256 sometimes. */
function listOf(filter: fc.Arbitrary<StorageFilter>): fc.Arbitrary<StorageFilter[]> {
  return fc.oneof(
    { arbitrary: fc.array(filter, { minLength: 1, maxLength: 8 }), weight: 6 },
    { arbitrary: fc.array(filter, { minLength: 200, maxLength: 256 }), weight: 1 },
  );
}

export const filterSetArb: fc.Arbitrary<FilterSet> = fc.oneof(
  v1FiltersArb.map((filters): FilterSet => ({ kind: 'v1', filters: compileV1Filters(filters) })),
  listOf(v2FilterArb).map((filters): FilterSet => ({ kind: 'v2', filters })),
  listOf(storageFilterArb).map((filters): FilterSet => ({ kind: 'storage', filters })),
);

/** Where a window edge falls, resolved against a corpus size and slab width by `windowOf`. */
export type EdgePick =
  | { readonly at: 'zero' }
  | { readonly at: 'end' }
  | { readonly at: 'boundary'; readonly slab: number; readonly delta: -1 | 0 | 1 }
  | { readonly at: 'mid-slab'; readonly slab: number }
  | { readonly at: 'anywhere'; readonly fraction: number };

const boundaryPickArb = fc.record({
  at: fc.constant('boundary' as const),
  slab: fc.nat(),
  delta: fc.constantFrom(-1 as const, 0 as const, 1 as const),
});
const midSlabPickArb = fc.record({ at: fc.constant('mid-slab' as const), slab: fc.nat() });
const anywherePickArb = fc.record({
  at: fc.constant('anywhere' as const),
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
});
/** A window's first edge: 0, a slab boundary (or one off it), mid-slab, anywhere. */
export const startPickArb: fc.Arbitrary<EdgePick> = fc.oneof(
  fc.constant({ at: 'zero' as const }),
  boundaryPickArb,
  midSlabPickArb,
  anywherePickArb,
);
/** A window's second edge: the corpus end, a slab boundary (or one off it), mid-slab, anywhere. */
export const endPickArb: fc.Arbitrary<EdgePick> = fc.oneof(
  fc.constant({ at: 'end' as const }),
  boundaryPickArb,
  midSlabPickArb,
  anywherePickArb,
);

function edgeOf(pick: EdgePick, size: number, slab: number): number {
  const slabs = Math.max(1, Math.ceil(size / slab));
  let at: number;
  switch (pick.at) {
    case 'zero':
      return 0;
    case 'end':
      return size;
    case 'boundary':
      at = (pick.slab % slabs) * slab + pick.delta;
      break;
    case 'mid-slab':
      at = (pick.slab % slabs) * slab + (slab >> 1);
      break;
    case 'anywhere':
      at = Math.floor(pick.fraction * size);
      break;
  }
  return Math.max(0, Math.min(size, at));
}

/** The window two edge picks make in a corpus of `size` ordinals (the lower edge is the start; may be empty). */
export function windowOf(picks: readonly [EdgePick, EdgePick], size: number, slab: number): OrdinalWindow {
  const a = edgeOf(picks[0], size, slab);
  const b = edgeOf(picks[1], size, slab);
  return { start: Math.min(a, b), end: Math.max(a, b) };
}

export const limitArb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(1, 2, 7, 1000),
  fc.integer({ min: 1, max: 1000 }),
);

export interface RandomQuery {
  readonly filterSet: FilterSet;
  readonly edges: readonly [EdgePick, EdgePick];
  readonly direction: Direction;
  readonly limit: number;
  /** Also page through the window to its end. */
  readonly pageToEnd: boolean;
}

export const randomQueryArb: fc.Arbitrary<RandomQuery> = fc.record({
  filterSet: filterSetArb,
  edges: fc.tuple(startPickArb, endPickArb),
  direction: fc.constantFrom<Direction>('asc', 'desc'),
  limit: limitArb,
  pageToEnd: fc.boolean(),
});
