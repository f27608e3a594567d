// The post-filter against naive matchers over events decoded by @stellar/stellar-base. Properties:
// 1. compilePostFilter(filters)(payload) = the naive OR-of-ANDs over the storage model for random clauses
//    (types, contracts, topic positions, exact and at-least counts, wildcards).
// 2. For random v1 filters (types × contracts × topic filters with '*' and trailing '**'), the compiled clauses
//    through the post-filter = the SDK's EventFilter.Matches semantics evaluated directly on the v1 filter.
// 3. Negative control: a post-filter that ignores topic counts is caught by property 1's oracle.
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePostFilter,
  compileV1Filters,
  PAYLOAD_HEADER_LENGTH,
  type StorageFilter,
  type V1Filter,
} from '../src/index.js';
import { CONTRACTS, type OracleEvent, oracleDecode, payloadArb, storageFilterArb, topicArb } from './arbitraries.js';

function naiveStorageMatch(filters: readonly StorageFilter[], ev: OracleEvent): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (f) =>
      (f.eventType === undefined || f.eventType === ev.type) &&
      (f.contractId === undefined || (ev.contractId !== undefined && hex(f.contractId) === hex(ev.contractId))) &&
      (f.topicCount.exact ? ev.topics.length === f.topicCount.count : ev.topics.length >= f.topicCount.count) &&
      f.topics.every((t, i) => t === undefined || (ev.topics[i] !== undefined && hex(t) === hex(ev.topics[i]))),
  );
}

const v1FilterArb: fc.Arbitrary<V1Filter> = fc
  .record({
    types: fc.subarray(['system', 'contract'] as const),
    contractIds: fc.subarray([...CONTRACTS], { maxLength: 3 }),
    topics: fc.array(
      fc.record({
        segments: fc.array(fc.oneof(fc.constant('*' as const), topicArb), { minLength: 0, maxLength: 4 }),
        trailingAny: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  })
  .filter((f) => f.topics.every((t) => t.segments.length > 0 || t.trailingAny));

/** protocol/get_events.go EventFilter.Matches, transcribed over the oracle's decoded event. */
function naiveV1Match(filters: readonly V1Filter[], ev: OracleEvent): boolean {
  if (filters.length === 0) return true;
  const typeName = ev.type === 0 ? 'system' : ev.type === 1 ? 'contract' : 'diagnostic';
  return filters.some(
    (f) =>
      (f.types.length === 0 || (f.types as string[]).includes(typeName)) &&
      (f.contractIds.length === 0 ||
        (ev.contractId !== undefined && f.contractIds.some((c) => hex(c) === hex(ev.contractId!)))) &&
      (f.topics.length === 0 ||
        f.topics.some((t) => {
          if (t.trailingAny ? ev.topics.length < t.segments.length : ev.topics.length !== t.segments.length)
            return false;
          return t.segments.every((s, i) => s === '*' || (ev.topics[i] !== undefined && hex(s) === hex(ev.topics[i])));
        })),
  );
}

const eventsArb = fc.array(payloadArb, { minLength: 1, maxLength: 30 });

describe('post-filter', () => {
  it('1. storage clauses = naive matcher', () => {
    fc.assert(
      fc.property(fc.array(storageFilterArb, { maxLength: 5 }), eventsArb, (filters, events) => {
        const match = compilePostFilter(filters);
        for (const { bytes } of events) {
          expect(match(bytes)).toBe(naiveStorageMatch(filters, oracleDecode(bytes.subarray(PAYLOAD_HEADER_LENGTH))));
        }
      }),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('2. v1 filters compiled = SDK semantics (arity, *, **)', () => {
    fc.assert(
      fc.property(fc.array(v1FilterArb, { maxLength: 5 }), eventsArb, (filters, events) => {
        const match = compilePostFilter(compileV1Filters(filters));
        for (const { bytes } of events) {
          expect(match(bytes)).toBe(naiveV1Match(filters, oracleDecode(bytes.subarray(PAYLOAD_HEADER_LENGTH))));
        }
      }),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('3. negative control: ignoring topic counts is caught', () => {
    const result = fc.check(
      fc.property(fc.array(storageFilterArb, { minLength: 1, maxLength: 3 }), eventsArb, (filters, events) => {
        const broken = compilePostFilter(filters.map((f) => ({ ...f, topicCount: { count: 0, exact: false } })));
        return events.every(
          ({ bytes }) =>
            broken(bytes) === naiveStorageMatch(filters, oracleDecode(bytes.subarray(PAYLOAD_HEADER_LENGTH))),
        );
      }),
      propertyParams({ numRuns: 300 }),
    );
    expect(result.failed).toBe(true);
  });
});
