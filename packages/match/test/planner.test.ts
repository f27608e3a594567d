// The planner's rules on hand-written filters (spec §4.1–4.2, upstream match.go termPlans / planIndexTerms /
// ValidateFilters): value terms, topic-count buckets and the impliesTopicCount shortcut, one plan per bucket, term
// and plan deduplication across filters, match-all, the filter cap, refusals naming the field, describePlan.
import {
  CONTRACT_EVENT_TYPE,
  compileV1Filters,
  EventsError,
  eventTypeTermKey,
  isMatchAll,
  type StorageFilter,
  TERM_FIELD,
  type TermKey,
  termKey,
  termKeyHex,
  topicCountTermKey,
  topicField,
  V1_MAX_CONTRACT_IDS,
  V1_MAX_FILTERS,
  V1_MAX_TOPICS,
  V2_MAX_FILTERS,
} from '@strata/events';
import { expectErrorCode, hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { MatchError, MatchErrorCode } from '../src/errors.js';
import { describePlan, type IndexPlan, planQuery, type QueryPlan } from '../src/planner/query-plan.js';
import { MAX_QUERY_FILTERS } from '../src/planner/validate-filters.js';

/** ScVal XDR of a symbol: SCV_SYMBOL (15), the length, the bytes padded to 4. */
function symbolXdr(s: string): Uint8Array {
  const out = new Uint8Array(8 + Math.ceil(s.length / 4) * 4);
  new DataView(out.buffer).setUint32(0, 15);
  new DataView(out.buffer).setUint32(4, s.length);
  out.set(new TextEncoder().encode(s), 8);
  return out;
}

const A = symbolXdr('a');
const B = symbolXdr('b');
const C0 = new Uint8Array(32).fill(0xc0);
const C1 = new Uint8Array(32).fill(0xc1);
const A_HEX = hex(A);
const B_HEX = hex(B);

const CONTRACT = 'contract=c0c0c0c0c0c0c0c0…(32 bytes)';
const CONTRACT1 = 'contract=c1c1c1c1c1c1c1c1…(32 bytes)';

function filter(parts: Partial<StorageFilter>): StorageFilter {
  return { topics: [], topicCount: { count: 0, exact: false }, ...parts };
}

function indexPlan(plan: QueryPlan): IndexPlan {
  if (plan.kind !== 'plans') throw new Error(`expected index plans, got ${describePlan(plan)}`);
  return plan;
}

/** The plans as sets of term-key hex, for comparing with keys the @strata/events functions compute. */
function planKeys(plan: QueryPlan): string[][] {
  const p = indexPlan(plan);
  return p.plans.map((slots) => slots.map((s) => termKeyHex(p.terms[s]!)));
}

const hexOf = (key: TermKey): string => termKeyHex(key);
const topicKey = (i: number, value: Uint8Array): string => hexOf(termKey(topicField(i), value));
const countKey = (n: number): string => hexOf(topicCountTermKey(n));

describe('value terms', () => {
  it('1. contract, type and each constrained topic position, as @strata/events term keys', () => {
    const plan = planQuery([
      filter({ contractId: C0, eventType: CONTRACT_EVENT_TYPE.CONTRACT, topics: [A, undefined, B] }),
    ]);
    expect(planKeys(plan)).toEqual([
      [hexOf(termKey(TERM_FIELD.CONTRACT_ID, C0)), hexOf(eventTypeTermKey(1)), topicKey(0, A), topicKey(2, B)],
    ]);
    expect(describePlan(plan)).toBe(`(${CONTRACT} & type=contract & topic0=${A_HEX} & topic2=${B_HEX})`);
  });

  it('2. the same bytes at two positions are two terms', () => {
    const plan = indexPlan(planQuery([filter({ topics: [A, A] })]));
    expect(plan.terms.map(hexOf)).toEqual([topicKey(0, A), topicKey(1, A)]);
    expect(plan.plans).toEqual([[0, 1]]);
  });

  it('3. a hole in the topics array (sparse or undefined) is a wildcard', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = [, B] as (Uint8Array | undefined)[];
    expect(describePlan(planQuery([filter({ topics: sparse })]))).toBe(`(topic1=${B_HEX})`);
  });
});

describe('topic-count buckets', () => {
  it('4. v1 ["a", "**"]: at least 1 is implied by topic0, so no buckets (the shortcut)', () => {
    const clauses = compileV1Filters([{ types: [], contractIds: [], topics: [{ segments: [A], trailingAny: true }] }]);
    expect(clauses).toEqual([{ topics: [A], topicCount: { count: 1, exact: false } }]);
    expect(describePlan(planQuery(clauses))).toBe(`(topic0=${A_HEX})`);
  });

  it('5. v1 ["*", "b", "**"]: topic1 implies at least 2', () => {
    const clauses = compileV1Filters([
      { types: [], contractIds: [], topics: [{ segments: ['*', B], trailingAny: true }] },
    ]);
    expect(describePlan(planQuery(clauses))).toBe(`(topic1=${B_HEX})`);
  });

  it('6. v1 ["a", "*", "**"]: at least 2 is not implied by topic0, so one plan per bucket 2..5', () => {
    const clauses = compileV1Filters([
      { types: [], contractIds: [], topics: [{ segments: [A, '*'], trailingAny: true }] },
    ]);
    const plan = planQuery(clauses);
    expect(planKeys(plan)).toEqual([2, 3, 4, 5].map((b) => [topicKey(0, A), countKey(b)]));
    expect(describePlan(plan)).toBe([2, 3, 4, '5+'].map((b) => `(topic0=${A_HEX} & count=${b})`).join(' | '));
  });

  it('7. at least 4 from topic0 and topic3: topic3 implies it', () => {
    expect(
      describePlan(
        planQuery([filter({ topics: [A, undefined, undefined, B], topicCount: { count: 4, exact: false } })]),
      ),
    ).toBe(`(topic0=${A_HEX} & topic3=${B_HEX})`);
  });

  it('8. at least n with no topics: buckets n..5, the overflow bucket included', () => {
    expect(planKeys(planQuery([filter({ topicCount: { count: 1, exact: false } })]))).toEqual(
      [1, 2, 3, 4, 5].map((b) => [countKey(b)]),
    );
    expect(describePlan(planQuery([filter({ eventType: 0, topicCount: { count: 4, exact: false } })]))).toBe(
      '(type=system & count=4) | (type=system & count=5+)',
    );
  });

  it('9. exact counts are one bucket and never implied by a topic, the count 0 included', () => {
    // v1 ["a"]: exactly 1, even though topic0 implies at least 1.
    const clauses = compileV1Filters([{ types: [], contractIds: [], topics: [{ segments: [A], trailingAny: false }] }]);
    expect(planKeys(planQuery(clauses))).toEqual([[topicKey(0, A), countKey(1)]]);
    expect(describePlan(planQuery([filter({ topics: [A, B], topicCount: { count: 2, exact: true } })]))).toBe(
      `(topic0=${A_HEX} & topic1=${B_HEX} & count=2)`,
    );
    // "exactly 0 topics" constrains the count alone: one plan of one bucket, not match-all.
    expect(describePlan(planQuery([filter({ topicCount: { count: 0, exact: true } })]))).toBe('(count=0)');
    expect(describePlan(planQuery([filter({ topicCount: { count: 4, exact: true } })]))).toBe('(count=4)');
  });

  it('10. the wildcard count {0, at least} adds no bucket', () => {
    expect(describePlan(planQuery([filter({ contractId: C0 })]))).toBe(`(${CONTRACT})`);
  });
});

describe('across filters', () => {
  it('11. a term shared by filters is one slot (one batched lookup)', () => {
    const plan = indexPlan(
      planQuery([filter({ contractId: C0, topics: [A] }), filter({ contractId: C0, topics: [B] })]),
    );
    expect(plan.terms.map(hexOf)).toEqual([hexOf(termKey(TERM_FIELD.CONTRACT_ID, C0)), topicKey(0, A), topicKey(0, B)]);
    expect(plan.plans).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });

  it('12. slots within a plan ascend even when the filter names a term later than its first appearance', () => {
    const plan = indexPlan(planQuery([filter({ topics: [A] }), filter({ contractId: C0, topics: [A] })]));
    // terms: topic0=a (slot 0), contract (slot 1); the second plan is contract ∧ topic0 = [1, 0] in field order.
    expect(plan.plans).toEqual([[0], [0, 1]]);
  });

  it('13. identical filters give one plan; 256 of them too', () => {
    const one = filter({ contractId: C0, topics: [A], topicCount: { count: 2, exact: false } });
    const plan = indexPlan(planQuery(Array.from({ length: MAX_QUERY_FILTERS }, () => ({ ...one }))));
    expect(plan.terms).toHaveLength(2 + 4);
    expect(plan.plans).toHaveLength(4);
  });

  it('14. plans equal as term sets from different filters are dropped; the bucket plans of at-least overlap', () => {
    // topic0=a at least 1 (shortcut: [topic0=a]) and topic0=a with no count: the same plan.
    expect(
      indexPlan(planQuery([filter({ topics: [A], topicCount: { count: 1, exact: false } }), filter({ topics: [A] })]))
        .plans,
    ).toEqual([[0]]);
    // at least 3 and exactly 4: buckets 3, 4, 5 and 4 again, which is dropped.
    expect(
      describePlan(
        planQuery([
          filter({ topicCount: { count: 3, exact: false } }),
          filter({ topicCount: { count: 4, exact: true } }),
        ]),
      ),
    ).toBe('(count=3) | (count=4) | (count=5+)');
  });

  it('15. a plan whose terms include another plan is kept (no absorption, as upstream)', () => {
    expect(describePlan(planQuery([filter({ contractId: C0 }), filter({ contractId: C0, topics: [A] })]))).toBe(
      `(${CONTRACT}) | (${CONTRACT} & topic0=${A_HEX})`,
    );
  });

  it('16. each v1 type × contract × topic filter is its own clause and plan', () => {
    const clauses = compileV1Filters([
      {
        types: ['system', 'contract'],
        contractIds: [C0, C1],
        topics: [{ segments: [A], trailingAny: true }],
      },
    ]);
    // Terms are described in slot order, which is first appearance: contract0, system, topic0, contract1, contract.
    expect(describePlan(planQuery(clauses))).toBe(
      [
        `(${CONTRACT} & type=system & topic0=${A_HEX})`,
        `(type=system & topic0=${A_HEX} & ${CONTRACT1})`,
        `(${CONTRACT} & topic0=${A_HEX} & type=contract)`,
        `(topic0=${A_HEX} & ${CONTRACT1} & type=contract)`,
      ].join(' | '),
    );
    expect(indexPlan(planQuery(clauses)).plans).toEqual([
      [0, 1, 2],
      [1, 2, 3],
      [0, 2, 4],
      [2, 3, 4],
    ]);
  });

  it("17. the largest v1 request (250 clauses) fits the filter cap, which is v2's", () => {
    expect(V1_MAX_FILTERS * 2 * V1_MAX_CONTRACT_IDS * V1_MAX_TOPICS).toBeLessThanOrEqual(MAX_QUERY_FILTERS);
    expect(MAX_QUERY_FILTERS).toBe(V2_MAX_FILTERS);
  });

  it('18. 256 distinct filters plan; 257 are refused by their count', () => {
    const many = Array.from({ length: MAX_QUERY_FILTERS + 1 }, (_, i) =>
      filter({ topics: [symbolXdr(`s${i}`)], topicCount: { count: 2, exact: true } }),
    );
    const plan = indexPlan(planQuery(many.slice(0, MAX_QUERY_FILTERS)));
    expect(plan.terms).toHaveLength(MAX_QUERY_FILTERS + 1); // each topic, and bucket 2 once
    expect(plan.plans).toHaveLength(MAX_QUERY_FILTERS);
    expect(plan.plans.every((slots) => slots.includes(1))).toBe(true);
    const error = expectErrorCode(
      MatchError,
      () => planQuery(many),
      [MatchErrorCode.INVALID_ARGUMENT],
      '257',
      'filters',
    );
    expect(error.detail).toMatch(/257 filters, more than the 256/);
  });
});

describe('match-all', () => {
  const constrained = filter({ contractId: C0 });
  const cases: [string, StorageFilter[]][] = [
    ['no filters', []],
    ['one unconstrained filter', [filter({})]],
    ['an unconstrained filter beside a constrained one', [constrained, filter({})]],
    ['a filter of wildcard topics', [filter({ topics: [undefined, undefined] })]],
    ['v1 ["**"]', compileV1Filters([{ types: [], contractIds: [], topics: [{ segments: [], trailingAny: true }] }])],
  ];
  for (const [name, filters] of cases) {
    it(`19. ${name}`, () => {
      expect(isMatchAll(filters)).toBe(true);
      expect(planQuery(filters)).toEqual({ kind: 'match-all' });
      expect(describePlan(planQuery(filters))).toBe('match-all');
    });
  }

  it('20. every filter is validated, those after an unconstrained one too', () => {
    expectErrorCode(
      MatchError,
      () => planQuery([filter({}), filter({ eventType: 3 })]),
      [MatchErrorCode.INVALID_ARGUMENT],
      'after match-all',
      'filters[1].eventType',
    );
  });
});

describe('refusals: MatchError INVALID_ARGUMENT naming the filter and the field', () => {
  const ok = filter({ contractId: C0 });
  const cases: [string, unknown, string][] = [
    ['not an array', 'filters', 'filters'],
    ['a filter that is not an object', [ok, null], 'filters[1]'],
    ['a contract id of 31 bytes', [ok, filter({ contractId: new Uint8Array(31) })], 'filters[1].contractId'],
    [
      'an empty contract id (upstream: wildcard; here undefined is)',
      [filter({ contractId: new Uint8Array(0) })],
      'filters[0].contractId',
    ],
    ['a contract id that is not bytes', [filter({ contractId: 'c0' as never })], 'filters[0].contractId'],
    [
      'a topic with trailing bytes',
      [ok, ok, filter({ topics: [A, new Uint8Array([...B, 0])] })],
      'filters[2].topics[1]',
    ],
    [
      'a topic that is not an ScVal',
      [filter({ topics: [undefined, undefined, new Uint8Array(3)] })],
      'filters[0].topics[2]',
    ],
    ['five topic positions', [filter({ topics: [A, A, A, A, A] })], 'filters[0].topics'],
    ['an event type outside the enum', [filter({ eventType: 3 })], 'filters[0].eventType'],
    ['a negative topic count', [filter({ topicCount: { count: -1, exact: false } })], 'filters[0].topicCount.count'],
    ['a topic count above 4', [filter({ topicCount: { count: 5, exact: true } })], 'filters[0].topicCount.count'],
    ['a fractional topic count', [filter({ topicCount: { count: 1.5, exact: false } })], 'filters[0].topicCount.count'],
    [
      'exact that is not a boolean',
      [filter({ topicCount: { count: 1, exact: 1 as never } })],
      'filters[0].topicCount.exact',
    ],
  ];
  for (const [name, filters, field] of cases) {
    it(`21. ${name}`, () => {
      const error = expectErrorCode(
        MatchError,
        () => planQuery(filters as StorageFilter[]),
        [MatchErrorCode.INVALID_ARGUMENT],
        name,
        field,
      );
      if (field !== 'filters') expect(error.cause).toBeInstanceOf(EventsError);
    });
  }
});

describe('describePlan', () => {
  it('22. a hand-built plan without labels shows key prefixes', () => {
    const key = topicCountTermKey(2);
    expect(describePlan({ kind: 'plans', terms: [key], plans: [[0]] })).toBe(`(#${termKeyHex(key).slice(0, 8)})`);
  });

  it('23. refuses what is not a plan', () => {
    const key = topicCountTermKey(2);
    const cases: [unknown, string][] = [
      [null, 'plan'],
      [{ kind: 'everything' }, 'plan.kind'],
      [{ kind: 'plans', terms: ['x'], plans: [] }, 'plan.terms'],
      [{ kind: 'plans', terms: [key], plans: {} }, 'plan.plans'],
      [{ kind: 'plans', terms: [key], plans: [[1]] }, 'plan.plans[0]'],
      [{ kind: 'plans', terms: [key], plans: [[0]], labels: [] }, 'plan.labels'],
    ];
    for (const [plan, field] of cases) {
      expectErrorCode(
        MatchError,
        () => describePlan(plan as QueryPlan),
        [MatchErrorCode.INVALID_ARGUMENT],
        field,
        field,
      );
    }
  });

  it('24. plans are frozen', () => {
    const plan = indexPlan(planQuery([filter({ topics: [A], topicCount: { count: 2, exact: false } })]));
    expect(Object.isFrozen(plan) && Object.isFrozen(plan.terms) && Object.isFrozen(plan.plans[0])).toBe(true);
  });

  it('25. labels are made on first read, once, one per term in slot order; equal keys share a slot', () => {
    const plan = indexPlan(
      planQuery([
        filter({ contractId: C0, topics: [A, undefined, B] }),
        // Equal values in fresh arrays: the same keys, so the same slots (the planner dedupes by key, not identity).
        filter({ contractId: Uint8Array.from(C0), topics: [Uint8Array.from(A)], eventType: 1 }),
      ]),
    );
    const labels = plan.labels;
    expect(labels).toEqual([CONTRACT, `topic0=${A_HEX}`, `topic2=${B_HEX}`, 'type=contract']);
    expect(plan.labels).toBe(labels);
    expect(Object.isFrozen(labels)).toBe(true);
    expect(plan.plans).toEqual([
      [0, 1, 2],
      [0, 1, 3],
    ]);
  });
});
