// The pubnet-like getEvents mix the JSON-RPC bench and load test send: the 700 real requests of
// ../shared/fixtures/pubnet-getevents, re-shaped as @strata/match's pubnet-requests.ts re-shapes them for the engine
// bench (each fixture filter, which lists its four topic positions as four one-segment topic filters, becomes one
// 4-segment v1 filter: contract ∧ topic0..3), as JSON-RPC request bodies. A request with K > 5 filters is over v1's
// cap: it is sent as one POST holding a JSON-RPC batch of ⌈K/5⌉ getEvents calls of at most 5 filters each (each a
// valid v1 request, as the engine bench validates them 5 at a time); its latency is the whole POST's.
import { readFileSync } from 'node:fs';
import { fixturePath } from '@strata/test-kit';

import { loadPubnetRequests } from '../../../packages/match/bench/pubnet-requests.js';

export { pubnetMissingReason } from '../../../packages/match/bench/pubnet-requests.js';

/** Most filters one v1 getEvents request may hold. */
const V1_FILTERS_PER_REQUEST = 5;

/** A v1 getEvents filter as JSON. */
export interface V1FilterJson {
  readonly contractIds: string[];
  readonly topics: string[][];
}

/** One fixture request, re-shaped: its filters in groups of at most 5 (one getEvents call each). */
export interface MixRequest {
  /** The fixture's JSON-RPC id. */
  readonly id: number;
  /** Filters of the fixture request (K). */
  readonly k: number;
  readonly startLedger: number;
  /** Exclusive. */
  readonly endLedger: number;
  readonly limit: number;
  readonly groups: readonly (readonly V1FilterJson[])[];
}

/** The 700 real requests, re-shaped (fixture order): loadPubnetRequests' ledgers and limits, the fixture's filters. */
export function pubnetMixRequests(): MixRequest[] {
  const lines = readFileSync(fixturePath('pubnet-getevents', 'filter-15terms-5999-requests.jsonl'), 'utf8')
    .trim()
    .split('\n');
  return loadPubnetRequests().map((request, i) => {
    const line = JSON.parse(lines[i]!) as { id: number; params: { filters: V1FilterJson[] } };
    if (line.id !== request.id) throw new Error(`fixture line ${i + 1} is not request ${request.id}`);
    // Each fixture topic list [[t0], [t1], [t2], [t3]] becomes the one 4-segment filter [[t0, t1, t2, t3]].
    const filters = line.params.filters.map((f) => ({
      contractIds: f.contractIds,
      topics: [f.topics.map((t) => t[0]!)],
    }));
    const groups: V1FilterJson[][] = [];
    for (let at = 0; at < filters.length; at += V1_FILTERS_PER_REQUEST) {
      groups.push(filters.slice(at, at + V1_FILTERS_PER_REQUEST));
    }
    const { id, k, startLedger, endLedger, limit } = request;
    return { id, k, startLedger, endLedger, limit, groups };
  });
}

export interface BodyOptions {
  /** Default: the request's own. */
  readonly startLedger?: number;
  /** Exclusive; default the request's own; null: none (the scan runs to the latest ledger). */
  readonly endLedger?: number | null;
  /** Default: the request's own (1000 in the fixture). */
  readonly limit?: number;
}

/** The JSON-RPC body of one mix request: one getEvents call, or a batch of one per filter group. */
export function mixBody(request: MixRequest, options: BodyOptions = {}): string {
  const endLedger = options.endLedger === undefined ? request.endLedger : options.endLedger;
  const calls = request.groups.map((filters, i) => {
    const params: Record<string, unknown> = { startLedger: options.startLedger ?? request.startLedger };
    if (endLedger !== null) params.endLedger = endLedger;
    params.filters = filters;
    params.pagination = { limit: options.limit ?? request.limit };
    return { jsonrpc: '2.0', id: request.id * 100 + i, method: 'getEvents', params };
  });
  return JSON.stringify(calls.length === 1 ? calls[0] : calls);
}
