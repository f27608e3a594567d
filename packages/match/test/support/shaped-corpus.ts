// The shaped corpus of spec §6 (upstream slab_match_test.go newShapedFixture): 70,000 ordinals, all of slab 0 and
// part of slab 1 at the production width, built by rule so each named query shape holds by construction:
// - contracts 0 and 1 split the corpus by parity (two dense terms);
// - contract 2 sits on 5 ids, including both sides of the 65,536 boundary (sparse, in one array container);
// - topic 0 is beta on odd ids and on 6 even "thin-overlap" ids (alpha elsewhere), so contract 0 ∧ topic0 = beta
//   meets on exactly those 6;
// - a second topic (gamma) on every 1,892nd id (from 0);
// - type system every 2,000 ids (contract elsewhere);
// - contracts[3], topic epsilon (and delta, and the diagnostic type) are in the vocabulary but never used.
// The 19 named shapes are StorageFilter lists (the model both API versions compile into).
import type { OrdinalWindow, StorageFilter } from '@strata/events';
import { buildCorpus, CONTRACT, CONTRACTS, type Corpus, type EventTemplate, SYMBOLS, SYSTEM } from './corpus.js';

export const SHAPED_CORPUS_SIZE = 70_000;
export const SLAB = 1 << 16;

/** Even ids where contract 0 meets topic0 = beta: spread, and on both sides of the slab boundary. */
export const THIN_IDS: readonly number[] = [4, 30_000, 65_534, 65_536, 65_538, SHAPED_CORPUS_SIZE - 2];
/** The ids of the sparse contract 2. */
export const RARE_CONTRACT_IDS: readonly number[] = [1, 12_345, 65_535, 66_000, SHAPED_CORPUS_SIZE - 1];
/** Every id carrying a second topic: 0, 1892, 3784, ... (upstream's n/37 + 1 step). */
export const SECOND_TOPIC_STEP = Math.floor(SHAPED_CORPUS_SIZE / 37) + 1;
export const SYSTEM_STEP = 2_000;

const ALPHA = 0;
const BETA = 1;
const GAMMA = 2;
const EPSILON = 4;

/** The template of each id, by the rules above (a few dozen distinct templates). */
function shapedTemplates(): { templates: EventTemplate[]; templateOf: Uint16Array } {
  const templates: EventTemplate[] = [];
  const byKey = new Map<string, number>();
  const templateOf = new Uint16Array(SHAPED_CORPUS_SIZE);
  const thin = new Set(THIN_IDS);
  const rare = new Set(RARE_CONTRACT_IDS);
  for (let id = 0; id < SHAPED_CORPUS_SIZE; id++) {
    const contract = rare.has(id) ? 2 : id % 2;
    const topic0 = id % 2 === 1 || thin.has(id) ? BETA : ALPHA;
    const topics = id % SECOND_TOPIC_STEP === 0 ? [topic0, GAMMA] : [topic0];
    const type = id % SYSTEM_STEP === 0 ? SYSTEM : CONTRACT;
    const key = `${contract}/${topics.join(',')}/${type}`;
    let index = byKey.get(key);
    if (index === undefined) {
      index = templates.length;
      byKey.set(key, index);
      templates.push({ contract, type, topics });
    }
    templateOf[id] = index;
  }
  return { templates, templateOf };
}

let shaped: Corpus | undefined;

/** The shaped corpus (built once per test file). */
export function shapedCorpus(): Corpus {
  if (shaped === undefined) {
    const { templates, templateOf } = shapedTemplates();
    shaped = buildCorpus(templates, templateOf);
  }
  return shaped;
}

const contract = (i: number): StorageFilter => ({
  contractId: CONTRACTS[i]!,
  topics: [],
  topicCount: { count: 0, exact: false },
});
const topicAt = (position: number, symbol: number): (Uint8Array | undefined)[] => {
  const topics: (Uint8Array | undefined)[] = new Array(position + 1).fill(undefined);
  topics[position] = SYMBOLS[symbol]!;
  return topics;
};
const contractAndTopic0 = (c: number, symbol: number): StorageFilter => ({
  ...contract(c),
  topics: topicAt(0, symbol),
});
const ofType = (eventType: number): StorageFilter => ({
  eventType,
  topics: [],
  topicCount: { count: 0, exact: false },
});
const atLeast = (count: number): StorageFilter => ({ topics: [], topicCount: { count, exact: false } });
const exactly = (count: number): StorageFilter => ({ topics: [], topicCount: { count, exact: true } });
const wildcard = (): StorageFilter => ({ topics: [], topicCount: { count: 0, exact: false } });

export interface NamedShape {
  readonly name: string;
  readonly filters: readonly StorageFilter[];
}

/** Filter lists by name; the 19 shapes of spec §6, in upstream's order. */
export const SHAPES = {
  denseOnly: [contract(0)],
  sparseOnly: [contract(2)],
  /** A sparse group AND a dense one inside one filter. */
  mixedGroups: [contractAndTopic0(2, BETA)],
  /** One group ORing a dense bucket (one topic) with a sparse one (two) and three absent ones. */
  mixedOrGroup: [atLeast(1)],
  /** Two chunk-sized terms meeting on THIN_IDS. */
  thinOverlap: [contractAndTopic0(0, BETA)],
  absentTerm: [contract(3)],
  absentPlusPresent: [contract(3), contract(2)],
  /** A chunk-sized first group and an absent second one. */
  absentGroupTrailing: [contractAndTopic0(0, EPSILON)],
  absentGroupLeading: [contractAndTopic0(3, ALPHA)],
  /** "At least two": the sparse bucket 2 ORed with absent buckets 3..5. */
  partlyAbsentGroup: [atLeast(2)],
  whollyAbsentGroup: [atLeast(3)],
  union: [contract(2), ofType(SYSTEM), contractAndTopic0(0, BETA)],
  /** Every constrainable field: five terms deep, meeting on the second-topic ids of contract 0. */
  deepAnd: [
    {
      contractId: CONTRACTS[0]!,
      eventType: CONTRACT,
      topics: [SYMBOLS[ALPHA]!, SYMBOLS[GAMMA]!],
      topicCount: { count: 2, exact: true },
    },
  ],
  /** Eight filters mixing dense, sparse, absent and multi-group ones. */
  wideUnion: [
    contractAndTopic0(0, BETA),
    contract(1),
    contract(2),
    contract(3),
    ofType(SYSTEM),
    { topics: topicAt(0, ALPHA), topicCount: { count: 0, exact: false } },
    { topics: topicAt(1, GAMMA), topicCount: { count: 0, exact: false } },
    exactly(2),
  ],
  matchAllEmpty: [],
  matchAllWildcard: [wildcard()],
  matchAllBesideConstrained: [ofType(SYSTEM), wildcard()],
  exactTopicCount: [exactly(2)],
  termAndCountRange: [{ ...contract(0), topicCount: { count: 1, exact: false } }],
} satisfies Record<string, readonly StorageFilter[]>;

export const NAMED_SHAPES: readonly NamedShape[] = Object.entries(SHAPES).map(([name, filters]) => ({
  name,
  filters,
}));

/** The shapes that plan to index terms (match-all ones stream fetchRange instead). */
export const INDEX_SHAPES: readonly NamedShape[] = NAMED_SHAPES.filter((s) => !s.name.startsWith('matchAll'));
export const MATCH_ALL_SHAPES: readonly NamedShape[] = NAMED_SHAPES.filter((s) => s.name.startsWith('matchAll'));

export interface NamedWindow {
  readonly name: string;
  readonly window: OrdinalWindow;
}

const w = (name: string, start: number, end: number): NamedWindow => ({ name, window: { start, end } });

/** The 16 windows of upstream's TestMatches_ShapedMatrix. */
export const SHAPED_WINDOWS: readonly NamedWindow[] = [
  w('whole corpus', 0, SHAPED_CORPUS_SIZE),
  w('empty at zero', 0, 0),
  w('empty mid slab', 12_345, 12_345),
  w('empty at boundary', SLAB, SLAB),
  w('first slab exactly', 0, SLAB),
  w('second slab only', SLAB, SHAPED_CORPUS_SIZE),
  w('cursor mid slab', 33_333, SHAPED_CORPUS_SIZE),
  w('cursor one below boundary', SLAB - 1, SHAPED_CORPUS_SIZE),
  w('cursor on boundary', SLAB, SHAPED_CORPUS_SIZE),
  w('cursor one above boundary', SLAB + 1, SHAPED_CORPUS_SIZE),
  w('end one below boundary', 0, SLAB - 1),
  w('end on boundary', 0, SLAB),
  w('end one above boundary', 0, SLAB + 1),
  w('single id at boundary', SLAB, SLAB + 1),
  w('straddles boundary', SLAB - 3, SLAB + 3),
  w('tail', SHAPED_CORPUS_SIZE - 5, SHAPED_CORPUS_SIZE),
];

/** The windows whole streams run over (upstream TestMatches_WholeStreams). */
export const WHOLE_STREAM_WINDOWS: readonly NamedWindow[] = [
  w('whole corpus', 0, SHAPED_CORPUS_SIZE),
  w('second slab only', SLAB, SHAPED_CORPUS_SIZE),
  w('straddles boundary', SLAB - 3, SLAB + 3),
];

/**
 * The 4 windows upstream's schedule and lookup-window matrices run over: whole, between the rare ids, straddling the
 * slab boundary, from mid-slab.
 */
export const SCHEDULE_WINDOWS: readonly NamedWindow[] = [
  w('whole corpus', 0, SHAPED_CORPUS_SIZE),
  w('between rare ids', 20_000, 60_000),
  w('straddles boundary', SLAB - 3, SLAB + 3),
  w('cursor mid slab', 33_333, SHAPED_CORPUS_SIZE),
];
