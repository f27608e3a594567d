// Real requests: the 700 pubnet getEvents requests and 216 filters of ../shared/fixtures/pubnet-getevents
// (stellar-rpc PR #749, chunk 5999). Every request validates or fails exactly as upstream's Valid() would (K > 5
// filters is "maximum 5 filters per request"), the valid ones compile, and the filters re-shaped as v2 filters
// (contractId + topic0..3, as the fixture README suggests) validate within the term budget.
import { readFileSync } from 'node:fs';
import { decodeContractStrkey } from '@strata/ledger-key';
import { describeWithFixtures, errorOf, fixturePath } from '@strata/test-kit';
import { expect, it } from 'vitest';
import {
  compilePostFilter,
  compileV1Filters,
  EventsError,
  encodeContractEvent,
  encodePayload,
  validateGetEventsV1,
  validateGetEventsV2,
} from '../src/index.js';
import { decodeScValBase64 } from '../src/request-v1.js';

const DIR = ['pubnet-getevents'];
const REQUESTS = [...DIR, 'filter-15terms-5999-requests.jsonl'];
const FILTERS = [...DIR, 'filter-15terms-5999-v1.json'];

describeWithFixtures('pubnet getEvents requests', [REQUESTS, FILTERS], () => {
  it('all 700 requests validate (or fail) as upstream would, and the valid ones compile', () => {
    const lines = readFileSync(fixturePath(...REQUESTS), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(700);
    const counts = { valid: 0, tooManyFilters: 0, clauses: 0, maxClauses: 0 };
    for (const line of lines) {
      const { params } = JSON.parse(line) as { params: { filters: unknown[] } };
      const k = params.filters.length;
      if (k > 5) {
        expect(errorOf(EventsError, () => validateGetEventsV1(params)).rpc).toEqual({
          code: -32602,
          message: 'maximum 5 filters per request',
        });
        counts.tooManyFilters++;
        continue;
      }
      const request = validateGetEventsV1(params);
      expect(request.limit).toBe(1000);
      const clauses = compileV1Filters(request.filters);
      // Each filter: one contract × four one-segment topic filters → 4 clauses, each "exactly 1 topic".
      expect(clauses).toHaveLength(4 * k);
      expect(clauses.every((c) => c.topicCount.exact && c.topicCount.count === 1 && c.contractId?.length === 32)).toBe(
        true,
      );
      counts.valid++;
      counts.clauses += clauses.length;
      counts.maxClauses = Math.max(counts.maxClauses, clauses.length);
    }
    console.warn(`pubnet-getevents: ${JSON.stringify(counts)}`);
    expect(counts).toEqual({ valid: 400, tooManyFilters: 300, clauses: 4 * (100 + 200 + 300 + 500), maxClauses: 20 });
  });

  it('the 216 filters re-shaped as v2 and as 4-segment v1 topics validate and match the event they name', () => {
    const { filters } = JSON.parse(readFileSync(fixturePath(...FILTERS), 'utf8')) as {
      filters: { contractId: string; topic0: string; topic1: string; topic2: string; topic3: string }[];
    };
    expect(filters).toHaveLength(216);
    const v2 = validateGetEventsV2({ minLedger: 59_990_002, maxLedger: 60_000_001, filters });
    // The fixture's notes: 15 unique terms in total, exactly the default budget.
    expect(v2.kind === 'query' && v2.termsUsed).toBe(15);
    for (const f of filters) {
      const topics = [f.topic0, f.topic1, f.topic2, f.topic3];
      const v1 = validateGetEventsV1({
        startLedger: 59_990_002,
        filters: [{ contractIds: [f.contractId], topics: [topics] }],
      });
      const post = compilePostFilter(compileV1Filters(v1.filters));
      const event = (topicBytes: Uint8Array[]) =>
        encodePayload({
          txHash: new Uint8Array(32),
          ledger: 59_990_002,
          txIndex: 1,
          opIndex: 0,
          ledgerClosedAt: 0,
          eventIndex: 0,
          contractEvent: encodeContractEvent({
            contractId: decodeContractStrkey(f.contractId),
            type: 1,
            topics: topicBytes,
            value: topicBytes[0]!,
          }),
        });
      const bytes = topics.map(decodeScValBase64);
      expect(post(event(bytes))).toBe(true);
      expect(post(event(bytes.slice(0, 3)))).toBe(false); // exact arity
      expect(post(event([...bytes, bytes[0]!]))).toBe(false);
    }
  });
});
