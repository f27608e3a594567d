// The planner (spec §4.2; upstream stores/event/match.go termPlans and planIndexTerms, PR #968): storage filters
// become one list of distinct index terms, looked up in one batch per window stage, and an OR of ANDs over it (the
// "plans"), or match-all. Plans only pick candidates: the exact post-filter (@strata/events compilePostFilter) still
// runs every original filter on what they pick. Pure and synchronous; a plan is immutable and may be shared.
import {
  eventTypeTermKey,
  type StorageFilter,
  TERM_FIELD,
  type TermKey,
  TOPIC_COUNT_OVERFLOW_BUCKET,
  type TopicCountConstraint,
  termKey,
  termKeyHex,
  topicCountAtLeastTermKeys,
  topicCountTermKey,
  topicField,
} from '@strata/events';
import { MatchError, MatchErrorCode } from '../errors.js';
import { validateFilters } from './validate-filters.js';

/** Every event in the window matches: the engine streams the window without index work. */
export interface MatchAllPlan {
  readonly kind: 'match-all';
}

/**
 * Candidates are the events carrying every term of at least one plan. `terms` holds each distinct term once, in
 * order of first appearance (filter order, then contract, type, topics 0..3, topic-count bucket), for one batched
 * lookup; each plan is a non-empty, strictly ascending list of slots into `terms`; no two plans are equal and every
 * term is in some plan. `labels`, when present, names each term for describePlan (field and value); planQuery sets
 * it, a hand-built plan may leave it out.
 */
export interface IndexPlan {
  readonly kind: 'plans';
  readonly terms: readonly TermKey[];
  readonly plans: readonly (readonly number[])[];
  readonly labels?: readonly string[];
}

export type QueryPlan = MatchAllPlan | IndexPlan;

const MATCH_ALL: MatchAllPlan = Object.freeze({ kind: 'match-all' });

/** One term of a filter, with the label describePlan shows for it. */
export interface LabelledTerm {
  readonly key: TermKey;
  readonly label: string;
}

/**
 * A value term whose label is made only if describePlan asks (a label is a hex string of the value: making one per
 * term cost a tenth of planning a real pubnet request of 15 filters).
 */
class ValueTerm implements LabelledTerm {
  readonly key: TermKey;
  private readonly prefix: string;
  private readonly value: Uint8Array | undefined;
  constructor(key: TermKey, prefix: string, value?: Uint8Array) {
    this.key = key;
    this.prefix = prefix;
    this.value = value;
  }
  get label(): string {
    return this.value === undefined ? this.prefix : `${this.prefix}${valueHex(this.value)}`;
  }
}

/**
 * A Map key for a 16-byte term key: its bytes as eight UTF-16 code units (a hex string through Buffer cost a quarter of
 * planning a real pubnet request). Equal keys give equal strings and different keys different ones.
 */
function slotKey(key: TermKey): string {
  return String.fromCharCode(
    (key[0]! << 8) | key[1]!,
    (key[2]! << 8) | key[3]!,
    (key[4]! << 8) | key[5]!,
    (key[6]! << 8) | key[7]!,
    (key[8]! << 8) | key[9]!,
    (key[10]! << 8) | key[11]!,
    (key[12]! << 8) | key[13]!,
    (key[14]! << 8) | key[15]!,
  );
}

/** The two rules a negative control may break (planQueryWith); planQuery uses UPSTREAM_RULES. */
export interface PlannerRules {
  /** True when the filter's topic positions already imply its topic count, so its buckets are left out. */
  impliesTopicCount(filter: StorageFilter): boolean;
  /** The buckets whose union holds exactly the events satisfying the constraint; [] for the wildcard. */
  topicCountTerms(constraint: TopicCountConstraint): readonly LabelledTerm[];
}

const EVENT_TYPE_NAMES = ['system', 'contract', 'diagnostic'];
const TOPIC_LABELS = ['topic0=', 'topic1=', 'topic2=', 'topic3='];

/** Short hex of a term's value: whole up to 16 bytes, else its first 8 bytes and its length. */
function valueHex(value: Uint8Array): string {
  const hex = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  return value.length <= 16 ? hex : `${hex.slice(0, 16)}…(${value.length} bytes)`;
}

function bucketLabel(bucket: number): string {
  return bucket === TOPIC_COUNT_OVERFLOW_BUCKET ? `count=${bucket}+` : `count=${bucket}`;
}

/**
 * upstream impliesTopicCount: an at-least constraint is implied when some constrained topic position i has
 * i + 1 >= count, since a topic term at position i is only indexed for events that have that position. This keeps
 * the common v1 `["a", "**"]` shape from fanning out over chunk-sized bucket bitmaps; the post-filter enforces the
 * count anyway. An exact count is never implied (the index cannot say "no further topics" from a topic term).
 */
export function impliesTopicCount(filter: StorageFilter): boolean {
  if (filter.topicCount.exact) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    if (filter.topics[i] !== undefined && i + 1 >= filter.topicCount.count) return true;
  }
  return false;
}

/**
 * upstream TopicCountFilter.termKeys: exact n is bucket n; at least n is buckets n..5, the overflow bucket 5 (more
 * than 4 topics) closing the union; the wildcard {0, at least} is none. Counts are 0..4 (validated), so every exact
 * count has a bucket of its own and the union never holds an event the constraint refuses.
 */
function topicCountTerms(constraint: TopicCountConstraint): LabelledTerm[] {
  const { count, exact } = constraint;
  if (exact) return [{ key: topicCountTermKey(count), label: bucketLabel(count) }];
  if (count === 0) return [];
  return topicCountAtLeastTermKeys(count).map((key, j) => ({ key, label: bucketLabel(count + j) }));
}

/** The rules upstream plans by. */
export const UPSTREAM_RULES: PlannerRules = Object.freeze({ impliesTopicCount, topicCountTerms });

/** upstream valueTermKeys: contract, type, then each constrained topic position (the terms the v2 budget counts). */
function valueTerms(filter: StorageFilter): LabelledTerm[] {
  const terms: LabelledTerm[] = [];
  if (filter.contractId !== undefined) {
    terms.push(new ValueTerm(termKey(TERM_FIELD.CONTRACT_ID, filter.contractId), 'contract=', filter.contractId));
  }
  if (filter.eventType !== undefined) {
    terms.push(new ValueTerm(eventTypeTermKey(filter.eventType), `type=${EVENT_TYPE_NAMES[filter.eventType]}`));
  }
  for (let i = 0; i < filter.topics.length; i++) {
    const topic = filter.topics[i];
    if (topic !== undefined) terms.push(new ValueTerm(termKey(topicField(i), topic), TOPIC_LABELS[i]!, topic));
  }
  return terms;
}

/**
 * planQuery with other rules: the seam the negative controls use to show the property tests catch a planner that
 * skips buckets it may not skip or leaves out the overflow bucket. Not exported from the package.
 */
export function planQueryWith(filters: readonly StorageFilter[], rules: PlannerRules): QueryPlan {
  validateFilters(filters);
  if (filters.length === 0) return MATCH_ALL;
  const slotOfKey = new Map<string, number>();
  const terms: TermKey[] = [];
  const labelled: LabelledTerm[] = [];
  const slotOf = (term: LabelledTerm): number => {
    const key = slotKey(term.key);
    let slot = slotOfKey.get(key);
    if (slot === undefined) {
      slot = terms.length;
      slotOfKey.set(key, slot);
      terms.push(term.key);
      labelled.push(term);
    }
    return slot;
  };
  const planIds = new Set<string>();
  const plans: (readonly number[])[] = [];
  for (const filter of filters) {
    const values = valueTerms(filter);
    const buckets = rules.impliesTopicCount(filter) ? [] : rules.topicCountTerms(filter.topicCount);
    // A ∧ (b ∨ c) = (A ∧ b) ∨ (A ∧ c): one plan per bucket, the "v1 topic-count ranges".
    const conjunctions = buckets.length === 0 ? [values] : buckets.map((bucket) => [...values, bucket]);
    for (const conjunction of conjunctions) {
      // A plan of no terms constrains nothing, and the OR of it with anything is everything.
      if (conjunction.length === 0) return MATCH_ALL;
      // Ascending slots make equal term sets equal lists (upstream keeps field order, which is as canonical: a
      // plan holds at most one term per field). Two keys can only share a slot through an XXH3 collision.
      const plan = [...new Set(conjunction.map(slotOf))].sort((a, b) => a - b);
      const id = plan.join(',');
      // Only identical plans are dropped, as upstream does; see planQuery on absorption.
      if (planIds.has(id)) continue;
      planIds.add(id);
      plans.push(Object.freeze(plan));
    }
  }
  // Labels are made on first read (describePlan), once; the plan stays immutable.
  let labels: readonly string[] | undefined;
  const plan = {
    kind: 'plans' as const,
    terms: Object.freeze(terms),
    plans: Object.freeze(plans),
    get labels(): readonly string[] {
      labels ??= Object.freeze(labelled.map((term) => term.label));
      return labels;
    },
  };
  return Object.freeze(plan);
}

/**
 * Plans `filters` (spec §4.2). Per filter: its value terms (contract, type, each constrained topic position) and its
 * topic-count buckets (exact n: [n]; at least n: n..5; wildcard: none; none either when impliesTopicCount); no
 * buckets gives one plan, the value terms; else one plan per bucket, the value terms and that bucket. A plan of no
 * terms (an unconstrained filter), or no filters at all, makes the query match-all (@strata/events isMatchAll).
 * Across filters terms are deduplicated into `terms` and identical plans dropped. A plan whose terms include another
 * plan's (contract C ∧ topic0 a beside contract C alone) is kept, as upstream keeps it. Absorbing it would be sound
 * (its candidates are a subset of the other's, so the union is the same set) and cheaper (its ANDs per slab, and the
 * lookup of any term only it names), but the lookups would then differ from upstream's. Throws MatchError
 * INVALID_ARGUMENT for what validateFilters refuses.
 */
export function planQuery(filters: readonly StorageFilter[]): QueryPlan {
  return planQueryWith(filters, UPSTREAM_RULES);
}

function badPlan(field: string, detail: string): never {
  throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, detail, { field });
}

/**
 * A plan's shape, as describePlan and the engine need it: terms of bytes, plans of slots in range, labels one per
 * term. Throws MatchError INVALID_ARGUMENT naming the bad field.
 */
export function checkPlanShape(plan: QueryPlan): void {
  if (typeof plan !== 'object' || plan === null) badPlan('plan', 'expected a QueryPlan object');
  if (plan.kind === 'match-all') return;
  if (plan.kind !== 'plans') badPlan('plan.kind', "expected 'match-all' or 'plans'");
  if (!Array.isArray(plan.terms) || !plan.terms.every((t) => t instanceof Uint8Array)) {
    badPlan('plan.terms', 'expected an array of term keys');
  }
  if (!Array.isArray(plan.plans)) badPlan('plan.plans', 'expected an array of slot lists');
  plan.plans.forEach((slots, p) => {
    const ok = Array.isArray(slots) && slots.every((s) => Number.isInteger(s) && s >= 0 && s < plan.terms.length);
    if (!ok) badPlan(`plan.plans[${p}]`, `expected slots in [0, ${plan.terms.length})`);
  });
  const { labels } = plan;
  if (labels !== undefined && (!Array.isArray(labels) || labels.length !== plan.terms.length)) {
    badPlan('plan.labels', `expected ${plan.terms.length} labels`);
  }
}

/**
 * A one-line form for logs and tests: `match-all`, or the OR of the plans, each the AND of its terms by label
 * (`(contract=c0… & topic0=0000000f… & count=2) | (…)`); a term without a label shows its key's first 8 hex digits
 * (`#3fa2b1c4`). Throws MatchError INVALID_ARGUMENT for something that is not a QueryPlan.
 */
export function describePlan(plan: QueryPlan): string {
  checkPlanShape(plan);
  if (plan.kind === 'match-all') return 'match-all';
  const name = (slot: number): string => plan.labels?.[slot] ?? `#${termKeyHex(plan.terms[slot]!).slice(0, 8)}`;
  return plan.plans.map((slots) => `(${slots.map(name).join(' & ')})`).join(' | ');
}
