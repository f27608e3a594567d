// The skip corpus: at slab width 2^10, 512 slabs of a dense background with a few rare events hundreds of empty
// slabs apart (on slab edges, too), for the tests that pin the exact slabs a walk opens. Each rare term's ids:
// - A (contract 1, topics [alpha, beta]): slab 3 +5, slab 200 +0, slab 201 +1023, slab 460 +512;
// - B (contract 2, topics [alpha, gamma]): slab 100 +1023, slab 101 +0, slab 330 +7, slab 511 +1023 (the last id);
// - system events (contract 0, [alpha]): id 0 and slab 260 +300;
// - a near miss: contract 3 (topic0 delta) at +10 and +30 of slabs 3 and 50, and an event without contract with
//   topic0 epsilon at +20 between them: contract 3 ∧ topic0 epsilon is empty there, yet a walk that starts in one of
//   those slabs opens it (a proof round that stays in its starting slab ends there; see NEAR_MISS_WINDOW).
// Everything else is the background: contract 0, type contract, topics [alpha].
import type { OrdinalWindow, StorageFilter } from '@strata/events';
import { buildCorpus, CONTRACT, CONTRACTS, type Corpus, type EventTemplate, SYMBOLS, SYSTEM } from './corpus.js';

export const RARE_SLAB_SHIFT = 10;
export const RARE_SLAB = 1 << RARE_SLAB_SHIFT;
export const RARE_SLABS = 512;
export const RARE_CORPUS_SIZE = RARE_SLABS * RARE_SLAB;

const at = (slab: number, offset: number): number => slab * RARE_SLAB + offset;

export const RARE_A_IDS: readonly number[] = [at(3, 5), at(200, 0), at(201, 1023), at(460, 512)];
export const RARE_B_IDS: readonly number[] = [at(100, 1023), at(101, 0), at(330, 7), at(511, 1023)];
export const RARE_SYSTEM_IDS: readonly number[] = [0, at(260, 300)];
export const NEAR_MISS_CONTRACT_IDS: readonly number[] = [at(3, 10), at(3, 30), at(50, 10), at(50, 30)];
export const NEAR_MISS_TOPIC_IDS: readonly number[] = [at(3, 20), at(50, 20)];

const [ALPHA, BETA, GAMMA, DELTA, EPSILON] = [0, 1, 2, 3, 4];

const TEMPLATES: readonly EventTemplate[] = [
  { contract: 0, type: CONTRACT, topics: [ALPHA] },
  { contract: 1, type: CONTRACT, topics: [ALPHA, BETA] },
  { contract: 2, type: CONTRACT, topics: [ALPHA, GAMMA] },
  { contract: 0, type: SYSTEM, topics: [ALPHA] },
  { contract: 3, type: CONTRACT, topics: [DELTA] },
  { contract: undefined, type: CONTRACT, topics: [EPSILON] },
];

let rare: Corpus | undefined;

/** The skip corpus (built once per test file; one payload per template, shared by its ordinals). */
export function rareCorpus(): Corpus {
  if (rare === undefined) {
    const templateOf = new Uint16Array(RARE_CORPUS_SIZE);
    const place = (ids: readonly number[], template: number) => {
      for (const id of ids) templateOf[id] = template;
    };
    place(RARE_A_IDS, 1);
    place(RARE_B_IDS, 2);
    place(RARE_SYSTEM_IDS, 3);
    place(NEAR_MISS_CONTRACT_IDS, 4);
    place(NEAR_MISS_TOPIC_IDS, 5);
    rare = buildCorpus(TEMPLATES, templateOf, { eventsPerLedger: 256, distinctPayloads: false });
  }
  return rare;
}

const none = { count: 0, exact: false };

export interface SkipShape {
  readonly name: string;
  readonly filters: readonly StorageFilter[];
}

/**
 * Shapes whose every plan is "nested" here (its rarest term's ids carry its other terms), so a plan's proved bound
 * is always a candidate and the slabs a walk opens are exactly the slabs holding a candidate: the expectation the
 * skip tests compute from the oracle alone.
 */
export const SKIP_SHAPES: readonly SkipShape[] = [
  { name: 'rare alone', filters: [{ contractId: CONTRACTS[1]!, topics: [], topicCount: none }] },
  {
    name: 'rare and chunk-sized',
    filters: [{ contractId: CONTRACTS[1]!, topics: [SYMBOLS[ALPHA]!], topicCount: none }],
  },
  {
    name: 'rare and rare on the same ids',
    filters: [{ contractId: CONTRACTS[1]!, topics: [undefined, SYMBOLS[BETA]!], topicCount: none }],
  },
  {
    name: 'rare or rare',
    filters: [
      { contractId: CONTRACTS[1]!, topics: [], topicCount: none },
      { contractId: CONTRACTS[2]!, topics: [], topicCount: none },
    ],
  },
  {
    name: 'rare or rare type',
    filters: [
      { contractId: CONTRACTS[1]!, topics: [], topicCount: none },
      { eventType: SYSTEM, topics: [], topicCount: none },
    ],
  },
  {
    name: 'deep and',
    filters: [
      {
        contractId: CONTRACTS[1]!,
        eventType: CONTRACT,
        topics: [SYMBOLS[ALPHA]!, SYMBOLS[BETA]!],
        topicCount: { count: 2, exact: true },
      },
    ],
  },
  { name: 'exact count 2', filters: [{ topics: [], topicCount: { count: 2, exact: true } }] },
  {
    name: 'at least 2 (one present bucket of four)',
    filters: [{ topics: [], topicCount: { count: 2, exact: false } }],
  },
  {
    // Two rare terms that never meet, in slabs hundreds apart: every proof round crosses slabs, so nothing opens.
    name: 'rare and rare never meeting',
    filters: [{ contractId: CONTRACTS[1]!, topics: [undefined, SYMBOLS[GAMMA]!], topicCount: none }],
  },
  {
    name: 'absent bucket',
    filters: [{ contractId: CONTRACTS[1]!, topics: [], topicCount: { count: 4, exact: true } }],
  },
];

/** A chunk-sized term: only over the small window (every slab in it opens). */
export const DENSE_SHAPE: SkipShape = {
  name: 'chunk-sized',
  filters: [{ contractId: CONTRACTS[0]!, topics: [], topicCount: none }],
};
export const DENSE_WINDOW: OrdinalWindow = { start: at(100, 1014), end: at(104, 10) };

/** The near miss (see the header): empty everywhere; opens slab 3 or 50 when a walk starts there. */
export const NEAR_MISS_SHAPE: SkipShape = {
  name: 'near miss',
  filters: [{ contractId: CONTRACTS[3]!, topics: [SYMBOLS[EPSILON]!], topicCount: none }],
};
/** The near miss beside rare A: slab 3 evaluates an empty plan beside a non-empty one. */
export const NEAR_MISS_BESIDE_RARE: SkipShape = {
  name: 'near miss or rare',
  filters: [...NEAR_MISS_SHAPE.filters, { contractId: CONTRACTS[1]!, topics: [], topicCount: none }],
};

/** From slab 3's base to slab 50's end: ascending starts in slab 3, descending in slab 50. */
export const NEAR_MISS_WINDOW: OrdinalWindow = { start: at(3, 0), end: at(51, 0) };

export interface SkipWindow {
  readonly name: string;
  readonly window: OrdinalWindow;
}

export const SKIP_WINDOWS: readonly SkipWindow[] = [
  { name: 'whole corpus', window: { start: 0, end: RARE_CORPUS_SIZE } },
  { name: 'mid-slab edges between rare ids', window: { start: at(3, 6), end: at(460, 100) } },
  { name: 'starting on a rare id at a slab base', window: { start: at(200, 0), end: RARE_CORPUS_SIZE } },
  { name: 'ending on a slab boundary after a rare id', window: { start: 0, end: at(202, 0) } },
  { name: 'ending on a rare id', window: { start: 0, end: at(330, 7) } },
  { name: 'ending just past a rare id', window: { start: at(101, 1), end: at(330, 8) } },
  { name: 'two slabs around a boundary', window: { start: at(100, 1000), end: at(101, 5) } },
];
