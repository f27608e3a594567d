// The storage filter model both API versions compile into (spec §4.1), its validation, the distinct-term count
// behind the v2 term budget, and the exact post-filter over payload views (spec §4.5) that removes index false
// positives (XXH3 collisions) and enforces topic counts the index plan may skip.

import { readScVal } from '@strata/ledger-key';
import { badArgument, checkArray, checkBytes, checkInteger, checkObject } from './arguments.js';
import { PayloadView } from './payload.js';
import { compileBytePostFilter } from './post-filter.js';
import { MAX_TOPIC_POSITIONS, TERM_FIELD, termKeyHex } from './terms.js';

/** Topic-count constraint: exact n, or at least n. `{count: 0, exact: false}` is the wildcard. */
export interface TopicCountConstraint {
  count: number;
  exact: boolean;
}

/**
 * One storage clause: the AND of its constrained fields. A query is the OR of its clauses; an empty list, or any
 * clause with no constraint, matches everything. Byte fields are compared exactly (canonical XDR).
 */
export interface StorageFilter {
  /** 32-byte contract hash; absent = any contract (including events without one). */
  contractId?: Uint8Array;
  /** Raw ScVal XDR per topic position 0..3; an absent/undefined entry is a wildcard for that position. */
  topics: readonly (Uint8Array | undefined)[];
  /** ContractEventType; absent = any type. A multi-type API filter becomes several clauses. */
  eventType?: number;
  topicCount: TopicCountConstraint;
}

export const ANY_TOPIC_COUNT: Readonly<TopicCountConstraint> = Object.freeze({ count: 0, exact: false });

/**
 * The shape of a caller's clause: field types and the topic-count range (INVALID_ARGUMENT naming `field`). The
 * topics' XDR is validateStorageFilters' business; this only makes sure nothing below reads a wrong type.
 */
function checkClause(f: StorageFilter, field: string): void {
  checkObject(f, field);
  if (f.contractId !== undefined) checkBytes(f.contractId, `${field}.contractId`);
  checkArray(f.topics, `${field}.topics`);
  if (f.topics.length > MAX_TOPIC_POSITIONS) {
    badArgument(`${field}.topics`, `${f.topics.length} topic positions (max ${MAX_TOPIC_POSITIONS})`);
  }
  f.topics.forEach((t, p) => {
    if (t !== undefined) checkBytes(t, `${field}.topics[${p}]`);
  });
  if (f.eventType !== undefined) checkInteger(f.eventType, 0, 2, `${field}.eventType`);
  checkObject(f.topicCount, `${field}.topicCount`);
  checkInteger(f.topicCount.count, 0, MAX_TOPIC_POSITIONS, `${field}.topicCount.count`);
  if (typeof f.topicCount.exact !== 'boolean') badArgument(`${field}.topicCount.exact`, 'expected a boolean');
}

/** A caller's clause list: an array of well-shaped clauses. */
export function checkClauses(filters: readonly StorageFilter[], field = 'filters'): void {
  checkArray(filters, field);
  filters.forEach((f, i) => {
    checkClause(f, `${field}[${i}]`);
  });
}

/** True when the clause constrains nothing. */
export function isUnconstrained(filter: StorageFilter): boolean {
  checkClause(filter, 'filter');
  return unconstrained(filter);
}

function unconstrained(filter: StorageFilter): boolean {
  return (
    filter.contractId === undefined &&
    filter.eventType === undefined &&
    !filter.topics.some((t) => t !== undefined) &&
    !filter.topicCount.exact &&
    filter.topicCount.count === 0
  );
}

/** True when `filters` select every event: empty, or some clause unconstrained. */
export function isMatchAll(filters: readonly StorageFilter[]): boolean {
  checkClauses(filters);
  return filters.length === 0 || filters.some(unconstrained);
}

/**
 * Upstream ValidateFilters: contract ids of 32 bytes, event types in the enum, topics that are exactly one ScVal,
 * topic counts 0..4, at most 4 topic positions. Throws INVALID_ARGUMENT naming the clause.
 */
export function validateStorageFilters(filters: readonly StorageFilter[]): void {
  checkClauses(filters);
  filters.forEach((f, i) => {
    const bad = (detail: string): never => badArgument(`filters[${i}]`, detail);
    if (f.contractId !== undefined && f.contractId.length !== 32) bad(`contract id of ${f.contractId.length} bytes`);
    f.topics.forEach((t, p) => {
      if (t === undefined) return;
      try {
        readScVal(t);
      } catch (error) {
        bad(`topic ${p} is not exactly one ScVal: ${(error as Error).message}`);
      }
    });
  });
}

/**
 * Distinct value terms of a query (upstream CountDistinctTerms, the v2 budget): contract, type and each set topic
 * position count; the same contract in five clauses counts once; the same bytes at two positions count twice;
 * topic-count buckets do not count.
 */
export function countDistinctTerms(filters: readonly StorageFilter[]): number {
  checkClauses(filters);
  const seen = new Set<string>();
  for (const f of filters) {
    if (f.contractId !== undefined) seen.add(`${TERM_FIELD.CONTRACT_ID}:${termKeyHex(f.contractId)}`);
    if (f.eventType !== undefined) seen.add(`${TERM_FIELD.EVENT_TYPE}:${f.eventType}`);
    f.topics.forEach((t, p) => {
      if (t !== undefined) seen.add(`${TERM_FIELD.TOPIC0 + p}:${termKeyHex(t)}`);
    });
  }
  return seen.size;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A compiled post-filter: true when the payload matches any clause. */
export type PostFilter = (payload: Uint8Array | PayloadView) => boolean;

/**
 * Compiles `filters` into the exact matcher (post-filter.ts): the clauses' contract ids and topic values compared as
 * bytes in place at their payload offsets, each distinct value at most once per event, nothing allocated per event.
 * Cheapest field first: type, contract, topic count (fixed offsets), then topics, walked only as far as a clause
 * needs. A payload whose header or fixed XDR prefix is malformed throws the EventsError PayloadView throws.
 */
export function compilePostFilter(filters: readonly StorageFilter[]): PostFilter {
  if (isMatchAll(filters)) return () => true;
  // The reference is compiled only if a payload the compiled matcher does not accept ever arrives.
  let reference: PostFilter | undefined;
  return compileBytePostFilter(filters, (payload) => {
    reference ??= compileReferencePostFilter(filters);
    return reference(payload);
  });
}

/**
 * The reference matcher compilePostFilter must agree with (tests compare the two; the compiled one hands it the
 * payloads it does not accept, so malformed bytes fail the same way). Per event, over a PayloadView, fields are
 * resolved cheapest first and at most once: the type and contract (fixed offsets), the topic count (fixed offset),
 * then the topics by one walk up to the highest position any clause constrains, done only if some clause gets that
 * far. Not exported from the package.
 */
export function compileReferencePostFilter(filters: readonly StorageFilter[]): PostFilter {
  if (isMatchAll(filters)) return () => true;
  const clauses = filters.map((f) => ({
    eventType: f.eventType,
    contractId: f.contractId,
    count: f.topicCount,
    // Constrained positions only, so the per-event loop skips wildcards without looking.
    topics: f.topics.flatMap((t, p) => (t === undefined ? [] : [{ p, bytes: t }])),
  }));
  return (payload) => {
    const view = payload instanceof PayloadView ? payload : new PayloadView(payload);
    const type = view.type;
    const contract = view.contractId;
    const n = view.topicCount;
    let topics: (Uint8Array | undefined)[] | undefined;
    for (const c of clauses) {
      if (c.eventType !== undefined && c.eventType !== type) continue;
      if (c.contractId !== undefined && (contract === undefined || !bytesEqual(c.contractId, contract))) continue;
      if (c.count.exact ? n !== c.count.count : n < c.count.count) continue;
      let ok = true;
      for (const { p, bytes } of c.topics) {
        if (p >= n) {
          ok = false;
          break;
        }
        // The view caches its walk, so each topic is located once per event however many clauses read it.
        topics ??= [];
        if (topics[p] === undefined) topics[p] = view.topic(p);
        const t = topics[p];
        if (t === undefined || !bytesEqual(t, bytes)) {
          ok = false;
          break;
        }
      }
      if (ok) return true;
    }
    return false;
  };
}

/** One-shot form of compilePostFilter. */
export function matchesAnyFilter(filters: readonly StorageFilter[], payload: Uint8Array | PayloadView): boolean {
  return compilePostFilter(filters)(payload);
}
