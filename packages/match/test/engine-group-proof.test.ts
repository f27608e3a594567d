// The group proof (src/bitmap/plan-group.ts) through the engine: a corpus of three production slabs whose dense
// terms come in families that never co-occur, broken by a few rare events, and filter lists of dense pairs, triples
// and v1 topic-count ranges that the stepper proves empty slab by slab as a group. Properties:
// 1. The fixture is what it claims: every term the filters name is dense (more than 4,096 ids in each 65,536), the
//    filters match nothing but the breakers' ids.
// 2. Differential against the oracle (the post-filter over every id) at slab widths 2^16 and 2^10 (slab ranges that
//    are part of a container), windows from 0, mid-slab and on slab edges, both directions, limits 1, 7 and none, each
//    filter list: the stream is the oracle's, payloads byte-identical.
// 3. The proof path is exercised both ways: the trace sees group proofs that proved the slab empty and proofs that
//    did not (the breakers' slabs), and a drained walk over a filter list opens no slab with candidates outside the
//    breakers' slabs.
// 4. Negative control: an engine whose group proof leaves its last plan out of the OR (groupProofDropsPlan) yet counts
//    it as proved loses the breakers that only that plan matches, and the differential check fails.
import type { StorageFilter } from '@strata/events';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchTrace } from '../src/engine/types.js';
import { buildCorpus, CONTRACT, CONTRACTS, type EventTemplate, SYMBOLS } from './support/corpus.js';
import { checkQuery, DIRECTIONS, type Fixture, fixtureOf } from './support/engine-checks.js';
import { expectedStream } from './support/oracle.js';
import { type Engine, faultyEngine, realEngine, runQuery, type Schedule } from './support/run-engine.js';

const SLAB = 65_536;
const EVENTS = 3 * SLAB - 1_000;
/** Family h (0..3): contract h, topics h, h, h+1 (3 topics), then h+2 (4) and h+3 (5) for a quarter each. */
const FAMILIES = 4;

/** The ids of the rare events that break the families (each a template of its own): one in slab 0, two in slab 2. */
const BREAKERS = [
  { ordinal: 40_000, template: { contract: 0, type: CONTRACT, topics: [1, 0, 1] } },
  { ordinal: 2 * SLAB + 5, template: { contract: 2, type: CONTRACT, topics: [3, 3, 4, 0] } },
  { ordinal: 2 * SLAB + 60_001, template: { contract: 1, type: CONTRACT, topics: [1, 3, 2, 3, 4] } },
] as const;

function groupCorpus() {
  const templates: EventTemplate[] = [];
  for (let h = 0; h < FAMILIES; h++) {
    const topics = [h, h, (h + 1) % 5, (h + 2) % 5, (h + 3) % 5];
    for (const count of [3, 3, 4, 5]) templates.push({ contract: h, type: CONTRACT, topics: topics.slice(0, count) });
  }
  const breakerTemplate = new Map<number, number>();
  for (const breaker of BREAKERS) {
    breakerTemplate.set(breaker.ordinal, templates.length);
    templates.push(breaker.template);
  }
  const templateOf = new Uint16Array(EVENTS);
  for (let ordinal = 0; ordinal < EVENTS; ordinal++) {
    // A hash of the id picks the family and the topic count, so every slab holds every family densely.
    const hash = Math.imul(ordinal ^ 0x9e37_79b9, 0x85eb_ca6b) >>> 0;
    templateOf[ordinal] = breakerTemplate.get(ordinal) ?? (hash >>> 28) & 15;
  }
  return buildCorpus(templates, templateOf, { distinctPayloads: false, eventsPerLedger: 500 });
}

const ANY = { count: 0, exact: false } as const;
const contract = (x: number) => CONTRACTS[x]!;
const topics = (...values: (number | undefined)[]) => values.map((v) => (v === undefined ? undefined : SYMBOLS[v]!));

/** contract x ∧ topic0 y, x ≠ y: never together in a family (breaker 0 is contract 0 ∧ topic0 1). */
const PAIRS: StorageFilter[] = [];
for (let x = 0; x < FAMILIES; x++) {
  for (let y = 0; y < FAMILIES; y++) {
    if (x !== y) PAIRS.push({ contractId: contract(x), topics: topics(y), topicCount: ANY });
    if (y !== (x + 1) % 5) PAIRS.push({ topics: topics(undefined, x, y), topicCount: ANY });
  }
}
/** contract x ∧ topic1 y ∧ topic2 z with z ≠ y + 1: each two may co-occur, the three only in breaker 1 (2, 3, 4). */
const TRIPLES: StorageFilter[] = [];
for (let x = 0; x < FAMILIES; x++) {
  for (let y = 0; y < FAMILIES; y++) {
    for (let z = 0; z < 5; z++) {
      if (z !== (y + 1) % 5 && (x === y || z === (x + 1) % 5)) {
        TRIPLES.push({ contractId: contract(x), topics: topics(undefined, y, z), topicCount: ANY });
      }
    }
  }
}
/**
 * v1 count ranges: contract x ∧ topic0 y (x ≠ y), at least 4 topics (buckets 4 and 5): breaker 1 (contract 2, topic0
 * 3, 4 topics) and breaker 2 (contract 1, topic0 1: not x ≠ y) — only breaker 1, in its bucket-4 plan.
 */
const COUNT_RANGES: StorageFilter[] = [];
for (let x = 0; x < FAMILIES; x++) {
  for (let y = 0; y < FAMILIES; y++) {
    if (x !== y)
      COUNT_RANGES.push({ contractId: contract(x), topics: topics(y), topicCount: { count: 4, exact: false } });
  }
}
/** PAIRS with the one plan breaker 0 matches (contract 0 ∧ topic0 1) moved last: the plan the fault leaves out. */
const BREAKER_LAST = [
  ...PAIRS.filter((f) => !(f.contractId === contract(0) && f.topics[0] === SYMBOLS[1])),
  { contractId: contract(0), topics: topics(1), topicCount: ANY },
];
const LISTS: Record<string, readonly StorageFilter[]> = {
  pairs: PAIRS,
  'pairs, breaker 0 last': BREAKER_LAST,
  triples: TRIPLES,
  'count ranges': COUNT_RANGES,
  'all three': [...PAIRS, ...TRIPLES, ...COUNT_RANGES],
};

const WINDOWS = [
  { start: 0, end: EVENTS },
  { start: 12_345, end: 2 * SLAB + 50_000 },
  { start: SLAB, end: 2 * SLAB },
  { start: 39_000, end: 2 * SLAB + 6 },
];
const SCHEDULES: readonly Schedule[] = [{}, { slabShift: 10 }, { slabShift: 10, stage1Slabs: 1 }];

let fx: Fixture;

beforeAll(() => {
  fx = fixtureOf(groupCorpus());
});

/** Runs every list × window × direction × limit × schedule through `engine` against the oracle. */
async function differential(engine: Engine): Promise<void> {
  for (const [name, filters] of Object.entries(LISTS)) {
    for (const window of WINDOWS) {
      for (const direction of DIRECTIONS) {
        for (const limit of [1, 7, undefined]) {
          for (const schedule of SCHEDULES) {
            const query = limit === undefined ? { filters, window, direction } : { filters, window, direction, limit };
            await checkQuery(engine, fx.reader, fx.oracle, query, schedule, name);
          }
        }
      }
    }
  }
}

describe('the group proof through the engine', () => {
  it('the fixture is what it claims: dense terms, matches only at the breakers', () => {
    const reader = fx.reader;
    expect(reader.eventCount()).toBe(EVENTS);
    const breakerIds = new Set<number>(BREAKERS.map((b) => b.ordinal));
    for (const [name, filters] of Object.entries(LISTS)) {
      const matches = Array.from(fx.oracle.matches(filters));
      expect(matches.length, name).toBeGreaterThan(0);
      for (const id of matches) expect(breakerIds.has(id), `${name} matches ${id}`).toBe(true);
    }
    // Each family's terms hold a quarter of every slab (the last one is short by 1,000): bitset containers.
    const perSlab = (templateIds: (t: EventTemplate) => boolean, slab: number) => {
      let n = 0;
      for (let o = slab * SLAB; o < Math.min((slab + 1) * SLAB, EVENTS); o++) {
        if (templateIds(fx.corpus.templates[fx.corpus.templateOf[o]!]!)) n++;
      }
      return n;
    };
    for (let slab = 0; slab < 3; slab++) {
      for (let h = 0; h < FAMILIES; h++) {
        expect(perSlab((t) => t.contract === h, slab)).toBeGreaterThan(4096 * 3);
        expect(perSlab((t) => t.topics.length === 4, slab)).toBeGreaterThan(4096 * 3);
        expect(perSlab((t) => t.topics.length === 5, slab)).toBeGreaterThan(4096 * 3);
      }
    }
  });

  it('is the oracle on every list, window, direction, limit and slab width', async () => {
    await differential(realEngine);
  }, 120_000);

  it('proves slabs empty, and leaves the breakers’ slabs to the plans one by one', async () => {
    for (const [name, filters] of Object.entries(LISTS)) {
      const proofs = { empty: 0, notEmpty: 0, emptyOnBreaker: 0 };
      const candidateSlabs = new Set<number>();
      const trace: MatchTrace = {
        onGroupProof(lo, hi, plans, empty) {
          expect(plans, name).toBeGreaterThanOrEqual(4);
          if (empty) proofs.empty++;
          else proofs.notEmpty++;
          if (
            empty &&
            BREAKERS.some((b) => b.ordinal >= lo && b.ordinal <= hi && fx.oracle.matches(filters).includes(b.ordinal))
          ) {
            proofs.emptyOnBreaker++;
          }
        },
        onSlab(lo, _hi, candidates) {
          if (candidates > 0) candidateSlabs.add(Math.floor(lo / SLAB));
        },
      };
      for (const direction of DIRECTIONS) {
        const got = await runQuery(
          realEngine,
          fx.reader,
          { filters, window: { start: 0, end: EVENTS }, direction },
          {},
          trace,
        );
        expect(
          got.map((m) => m.ordinal),
          name,
        ).toEqual(expectedStream(fx.oracle.matches(filters), { start: 0, end: EVENTS }, direction));
      }
      expect(proofs.empty, `${name}: slabs proved empty`).toBeGreaterThan(0);
      expect(proofs.notEmpty, `${name}: slabs left to the plans`).toBeGreaterThan(0);
      expect(proofs.emptyOnBreaker, `${name}: a slab holding a match proved empty`).toBe(0);
      // Slab 1 holds no breaker: nothing there comes out of the plans.
      expect(candidateSlabs.has(1), name).toBe(false);
    }
  });

  it('negative control: a proof that leaves out its last plan loses matches, and the differential fails', async () => {
    const failure = await differential(faultyEngine({ groupProofDropsPlan: true })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).toMatch(/^AssertionError: pairs, breaker 0 last/);
  }, 120_000);
});
