// The real pubnet getEvents traffic of ../shared/fixtures/pubnet-getevents (stellar-rpc PR #749, chunk 5999): the
// 700 requests, re-shaped for the engine bench, and the values they use, which the synthetic corpus makes dominant.
// The fixture lists each filter's four topic positions as four one-segment topic filters (under v1 arity they match
// only one-topic events); re-shaped, each request filter is one 4-segment v1 filter (contract ∧ topic0..3 ∧ exactly 4
// topics), compiled with @strata/events compileV1Filters. Requests with K > 5 filters are over v1's cap: they are
// validated 5 filters at a time (each group a valid v1 request) and their clauses concatenated, as the K-corpus of
// spec §7 queries them.
import { readFileSync } from 'node:fs';
import {
  compileV1Filters,
  decodeScValBase64,
  type StorageFilter,
  type V1Filter,
  validateGetEventsV1,
} from '@strata/events';
import { fixturePath, fixturesMissingReason } from '@strata/test-kit';

const DIR = 'pubnet-getevents';
const REQUESTS = [DIR, 'filter-15terms-5999-requests.jsonl'];
const FILTER_POOL = [DIR, 'filter-15terms-5999-v1.json'];

/** Why the pubnet rows cannot run, or undefined when the fixture files are there. */
export function pubnetMissingReason(): string | undefined {
  return fixturesMissingReason(REQUESTS, FILTER_POOL);
}

/** The distinct values of the fixture's filter pool, each list in order of first appearance. */
export interface PubnetVocabulary {
  /** 32-byte contract ids (the XLM SAC first). */
  readonly contracts: readonly Uint8Array[];
  /** ScVal XDR of each topic position's values: [0] the event names, [1] and [2] addresses, [3] asset strings. */
  readonly topics: readonly (readonly Uint8Array[])[];
}

interface PoolRecord {
  contractId: string;
  topic0: string;
  topic1: string;
  topic2: string;
  topic3: string;
}

/** A v1 request's one contract id decoded by the v1 validator (strkey → 32 bytes). */
function contractBytes(strkey: string, startLedger: number): Uint8Array {
  const request = validateGetEventsV1({ startLedger, filters: [{ contractIds: [strkey] }] });
  return request.filters[0]!.contractIds[0]!;
}

function distinctInOrder(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The 4 contracts and the 2 + 3 + 3 + 3 topic values of the fixture's 216-filter pool. */
export function loadPubnetVocabulary(): PubnetVocabulary {
  const pool = JSON.parse(readFileSync(fixturePath(...FILTER_POOL), 'utf8')) as {
    first_ledger: number;
    filters: PoolRecord[];
  };
  const records = pool.filters;
  const positions = [0, 1, 2, 3].map((p) =>
    distinctInOrder(records.map((r) => [r.topic0, r.topic1, r.topic2, r.topic3][p]!)).map(decodeScValBase64),
  );
  return {
    contracts: distinctInOrder(records.map((r) => r.contractId)).map((c) => contractBytes(c, pool.first_ledger)),
    topics: positions,
  };
}

/** One fixture request, re-shaped: its storage clauses (one per request filter) and its page limit. */
export interface PubnetRequest {
  /** JSON-RPC id in the fixture. */
  readonly id: number;
  /** K, the number of filters the request lists. */
  readonly k: number;
  readonly startLedger: number;
  /** Exclusive, as v1's endLedger. */
  readonly endLedger: number;
  readonly limit: number;
  readonly filters: readonly StorageFilter[];
}

interface RawRequest {
  id: number;
  params: {
    startLedger: number;
    endLedger: number;
    filters: { contractIds: string[]; topics: string[][] }[];
    pagination: { limit: number };
  };
}

/** Most filters one v1 request may hold (the validator refuses more). */
const V1_FILTERS_PER_REQUEST = 5;

/** The 700 requests, each filter re-shaped into one 4-segment v1 filter and compiled to storage clauses. */
export function loadPubnetRequests(): PubnetRequest[] {
  const lines = readFileSync(fixturePath(...REQUESTS), 'utf8')
    .trim()
    .split('\n');
  return lines.map((line) => {
    const { id, params } = JSON.parse(line) as RawRequest;
    const reshaped = params.filters.map((f) => ({ contractIds: f.contractIds, topics: [f.topics.map((t) => t[0]!)] }));
    const v1Filters: V1Filter[] = [];
    for (let at = 0; at < reshaped.length; at += V1_FILTERS_PER_REQUEST) {
      const group = validateGetEventsV1({
        startLedger: params.startLedger,
        endLedger: params.endLedger,
        filters: reshaped.slice(at, at + V1_FILTERS_PER_REQUEST),
        pagination: params.pagination,
      });
      v1Filters.push(...group.filters);
    }
    return {
      id,
      k: params.filters.length,
      startLedger: params.startLedger,
      endLedger: params.endLedger,
      limit: params.pagination.limit,
      filters: compileV1Filters(v1Filters),
    };
  });
}
