// The planner against the exact post-filter over random corpora. An event is selected by a plan when it carries
// every term of some plan (deriveTerms); match-all selects everything. Properties:
// 1. Plans are well formed: distinct terms, each plan a non-empty strictly ascending list of slots in range, no two
//    plans equal, every term in some plan; match-all exactly when @strata/events isMatchAll.
// 2. Exactness: the terms of the vocabulary being distinct (checked: no XXH3 collision among them), the selected
//    events are exactly those compilePostFilter accepts, for every filter shape, the shortcut's included. Superset
//    holds because each constrained field of a matching event is one of its terms, an exact count 0..4 has a bucket
//    of its own and buckets n..5 cover "at least n". Equality holds because a term present means the field matches
//    (no collisions), a bucket b in n..5 means min(topics, 5) = b >= n, and the shortcut's topic term at position
//    i >= count - 1 is derived only for events with more than i topics: it implies the count it skips.
// 3. Superset under collisions: evaluated on a lossy projection of the keys (first byte mod 7, standing in for XXH3
//    collisions) the plans select a superset of the post-filter's matches: collisions add candidates, never lose
//    them, which is why the post-filter is mandatory and why the planner's rules only have to be sound.
// 4. Negative controls: (a) skipping an at-least filter's buckets whenever it constrains any topic (the shortcut
//    without its i + 1 >= count condition) fails property 2 — it only ever selects more, so property 3 alone could
//    not catch it; (b) leaving out the overflow bucket fails property 3 (events of more than 4 topics are lost).
// 5. Any value at all as the filter list is planned or refused with a MatchError (never a TypeError or EventsError).
import {
  compilePostFilter,
  deriveTerms,
  encodeContractEvent,
  encodePayload,
  eventTypeTermKey,
  isMatchAll,
  MAX_TOPIC_POSITIONS,
  type StorageFilter,
  TERM_FIELD,
  type TermKey,
  TOPIC_COUNT_OVERFLOW_BUCKET,
  termKey,
  termKeyHex,
  topicCountTermKey,
  topicField,
} from '@strata/events';
import { acceptedOrRefusedWith, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MatchError } from '../src/errors.js';
import {
  type LabelledTerm,
  type PlannerRules,
  planQuery,
  planQueryWith,
  type QueryPlan,
  UPSTREAM_RULES,
} from '../src/planner/query-plan.js';

/** A small vocabulary so random filters hit random events often. Symbols are SCV_SYMBOL (15), length, padded bytes. */
const TOPICS: readonly Uint8Array[] = ['alpha', 'beta', 'gamma', 'delta'].map((s) => {
  const b = Buffer.alloc(8 + Math.ceil(s.length / 4) * 4);
  b.writeUInt32BE(15, 0);
  b.writeUInt32BE(s.length, 4);
  b.write(s, 8);
  return new Uint8Array(b);
});
const CONTRACTS: readonly Uint8Array[] = [0xc0, 0xc1, 0xc2].map((b) => new Uint8Array(32).fill(b));
const VALUE = TOPICS[0]!;

/** Every term the corpora and filters can name, to check that none of them collide. */
const VOCABULARY_TERMS: readonly TermKey[] = [
  ...CONTRACTS.map((c) => termKey(TERM_FIELD.CONTRACT_ID, c)),
  ...[0, 1, 2].map(eventTypeTermKey),
  ...Array.from({ length: TOPIC_COUNT_OVERFLOW_BUCKET + 1 }, (_, b) => topicCountTermKey(b)),
  ...TOPICS.flatMap((t) => Array.from({ length: MAX_TOPIC_POSITIONS }, (_, i) => termKey(topicField(i), t))),
];

const eventArb = fc.record({
  contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined }),
  type: fc.constantFrom(0 as const, 1 as const, 2 as const),
  // Up to 6 topics: 5 and 6 land in the overflow bucket.
  topics: fc.array(fc.constantFrom(...TOPICS), { maxLength: 6 }),
});

const corpusArb = fc.array(eventArb, { minLength: 1, maxLength: 40 }).map((events) =>
  events.map((e, i) =>
    encodePayload({
      txHash: new Uint8Array(32),
      ledger: 100,
      txIndex: 1,
      opIndex: 0,
      ledgerClosedAt: 1_700_000_000,
      eventIndex: i,
      contractEvent: encodeContractEvent({
        ...(e.contract === undefined ? {} : { contractId: e.contract }),
        type: e.type,
        topics: e.topics,
        value: VALUE,
      }),
    }),
  ),
);

const filterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined, freq: 2 }),
    type: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined, freq: 2 }),
    topics: fc.array(fc.option(fc.constantFrom(...TOPICS), { nil: undefined, freq: 2 }), { maxLength: 4 }),
    count: fc.integer({ min: 0, max: 4 }),
    exact: fc.boolean(),
  })
  .map(({ contract, type, topics, count, exact }) => {
    const f: StorageFilter = { topics, topicCount: { count, exact } };
    if (contract !== undefined) f.contractId = contract;
    if (type !== undefined) f.eventType = type;
    return f;
  });

const filtersArb = fc.array(filterArb, { maxLength: 6 });

type Planner = (filters: readonly StorageFilter[]) => QueryPlan;

/** Whether `plan` selects an event whose terms, under `project`, are `eventTerms`. */
function selects(plan: QueryPlan, eventTerms: ReadonlySet<string>, project: (key: TermKey) => string): boolean {
  if (plan.kind === 'match-all') return true;
  const present = plan.terms.map((key) => eventTerms.has(project(key)));
  return plan.plans.some((slots) => slots.every((s) => present[s]));
}

const exactKey = (key: TermKey): string => termKeyHex(key);
const lossyKey = (key: TermKey): string => String(key[0]! % 7);

/**
 * For each event of the corpus: [selected by the plans, accepted by the post-filter]. Derived terms are projected
 * with `project`, as the plan's keys are.
 */
function evaluate(
  planner: Planner,
  filters: readonly StorageFilter[],
  corpus: readonly Uint8Array[],
  project: (key: TermKey) => string,
): [boolean, boolean][] {
  const plan = planner(filters);
  const postFilter = compilePostFilter(filters);
  return corpus.map((payload) => [
    selects(plan, new Set(deriveTerms(payload).map(project)), project),
    postFilter(payload),
  ]);
}

/** Runs with a non-trivial answer (some event selected, some not), to show the properties are not vacuous. */
let informativeRuns = 0;

function exactnessProperty(planner: Planner) {
  return fc.property(corpusArb, filtersArb, (corpus, filters) => {
    const outcomes = evaluate(planner, filters, corpus, exactKey);
    if (outcomes.some(([, m]) => m) && outcomes.some(([, m]) => !m)) informativeRuns++;
    outcomes.forEach(([selected, matched], i) => {
      if (selected !== matched) throw new Error(`event ${i}: selected ${selected}, post-filter ${matched}`);
    });
  });
}

function supersetProperty(planner: Planner) {
  return fc.property(corpusArb, filtersArb, (corpus, filters) => {
    evaluate(planner, filters, corpus, lossyKey).forEach(([selected, matched], i) => {
      if (matched && !selected) throw new Error(`event ${i} matches but no plan selects it`);
    });
  });
}

// A broken planner is caught within about 60 runs on average (at most ~300 seen over 40 seeds); fc.check stops at the
// first failure, so 1000 runs cost nothing when the control works. Not scaled by STRATA_FC_RUNS: fewer runs could
// let a control pass by luck. The seed still replays.
const controlParams = { ...propertyParams(), numRuns: 1000 };

describe('planner against the post-filter', () => {
  it('1. plans are well formed; match-all exactly when isMatchAll', () => {
    fc.assert(
      fc.property(filtersArb, (filters) => {
        const plan = planQuery(filters);
        expect(plan.kind === 'match-all').toBe(isMatchAll(filters));
        if (plan.kind === 'match-all') return;
        expect(new Set(plan.terms.map(termKeyHex)).size).toBe(plan.terms.length);
        const used = new Set<number>();
        for (const slots of plan.plans) {
          expect(slots.length).toBeGreaterThan(0);
          slots.forEach((s, j) => {
            expect(Number.isInteger(s) && s >= 0 && s < plan.terms.length).toBe(true);
            if (j > 0) expect(s).toBeGreaterThan(slots[j - 1]!);
            used.add(s);
          });
        }
        expect(new Set(plan.plans.map((slots) => slots.join(','))).size).toBe(plan.plans.length);
        expect(used.size).toBe(plan.terms.length);
      }),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('2. selected = post-filter matches (collision-free vocabulary)', () => {
    expect(new Set(VOCABULARY_TERMS.map(termKeyHex)).size).toBe(VOCABULARY_TERMS.length);
    informativeRuns = 0;
    fc.assert(exactnessProperty(planQuery), propertyParams({ numRuns: 200 }));
    expect(informativeRuns).toBeGreaterThan(0);
  });

  it('3. selected ⊇ post-filter matches when keys collide', () => {
    fc.assert(supersetProperty(planQuery), propertyParams({ numRuns: 200 }));
  });

  it('4a. negative control: the shortcut without its condition fails property 2 (and passes property 3)', () => {
    const rules: PlannerRules = {
      impliesTopicCount: (f) => !f.topicCount.exact && f.topics.some((t) => t !== undefined),
      topicCountTerms: UPSTREAM_RULES.topicCountTerms,
    };
    const planner: Planner = (filters) => planQueryWith(filters, rules);
    expect(fc.check(exactnessProperty(planner), controlParams).failed).toBe(true);
    fc.assert(supersetProperty(planner), propertyParams({ numRuns: 100 }));
  });

  it('4b. negative control: at-least without the overflow bucket fails property 3', () => {
    const rules: PlannerRules = {
      impliesTopicCount: UPSTREAM_RULES.impliesTopicCount,
      topicCountTerms: (c) =>
        UPSTREAM_RULES.topicCountTerms(c).filter(
          (t: LabelledTerm) =>
            c.exact || termKeyHex(t.key) !== termKeyHex(topicCountTermKey(TOPIC_COUNT_OVERFLOW_BUCKET)),
        ),
    };
    const planner: Planner = (filters) => planQueryWith(filters, rules);
    expect(fc.check(supersetProperty(planner), controlParams).failed).toBe(true);
  });

  it('5. any value as the filter list is planned or refused with a MatchError', () => {
    const nearlyFilters = fc.array(
      fc.oneof(
        filterArb,
        fc.record({ topics: fc.anything(), topicCount: fc.anything() }),
        fc.record({
          contractId: fc.anything(),
          eventType: fc.anything(),
          topics: fc.array(fc.anything()),
          topicCount: fc.constant({ count: 1, exact: false }),
        }),
        fc.anything(),
      ),
      { maxLength: 4 },
    );
    fc.assert(
      acceptedOrRefusedWith(MatchError, fc.oneof(fc.anything(), nearlyFilters), (value) =>
        planQuery(value as StorageFilter[]),
      ),
      propertyParams({ numRuns: 500 }),
    );
  });
});
