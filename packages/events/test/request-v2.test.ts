// getEventsV2 validation: each rule of spec §1.5 as a named test with its code (-32602 always), reason and extra
// data fields. The message texts are this package's (the upstream eventsapi handler was not in the material read).
import { errorOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  EventsError,
  encodeCursorV2,
  MAX_TOPIC_BASE64_LENGTH,
  type StorageFilter,
  validateGetEventsV2,
} from '../src/index.js';

const C = 'CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA';
const T = 'AAAADwAAAAh0cmFuc2Zlcg==';
const range = { oldestLedger: 1000, latestLedger: 5000 };

/** The JSON-RPC error a refused request carries (fails the test when the request is accepted or throws otherwise). */
function rpcErrorOf(params: unknown, options = {}): { code: number; message: string; data: Record<string, unknown> } {
  const { rpc } = errorOf(EventsError, () => validateGetEventsV2(params, options));
  expect(rpc, 'an RPC_ERROR carries its JSON-RPC error').toBeDefined();
  return rpc as never;
}
const reason = (params: unknown, options = {}) => {
  const e = rpcErrorOf(params, options);
  expect(e.code).toBe(-32602);
  return e.data.reason;
};

describe('getEventsV2 validation', () => {
  it('unknown fields are rejected (top level and in filters, e.g. topic4)', () => {
    expect(reason({ minLedger: 2, startLedger: 2 })).toBe('invalid_params');
    expect(rpcErrorOf({ minLedger: 2, filters: [{ topic4: T }] }).message).toBe(
      'json: unknown field "topic4" in filter 1',
    );
  });
  it('a cursor combined with query fields is invalid_params', () => {
    for (const field of ['minLedger', 'maxLedger', 'order', 'filters', 'xdrInputFormat']) {
      expect(rpcErrorOf({ cursor: 'gec1_x', [field]: field === 'filters' ? [] : 'x' }).message).toBe(
        `cursor cannot be combined with ${field}`,
      );
    }
  });
  it('order must be asc or desc; asc requires minLedger', () => {
    expect(rpcErrorOf({ minLedger: 2, order: 'up' }).message).toBe("order must be 'asc' or 'desc'");
    expect(rpcErrorOf({}).message).toBe('minLedger is required for ascending queries');
    expect(validateGetEventsV2({ order: 'desc', maxLedger: 9 })).toMatchObject({
      minLedger: 2,
      maxLedger: 9,
      order: 'desc',
    });
  });
  it('minLedger > maxLedger is invalid; 1 is treated as 2', () => {
    expect(rpcErrorOf({ minLedger: 10, maxLedger: 9 }).message).toBe('minLedger 10 is above maxLedger 9');
    expect(validateGetEventsV2({ minLedger: 1 })).toMatchObject({ minLedger: 2 });
  });
  it('filters: empty list invalid, at most 256, each needs a field', () => {
    expect(rpcErrorOf({ minLedger: 2, filters: [] }).message).toBe(
      'filters must not be empty; omit it to match all events',
    );
    expect(rpcErrorOf({ minLedger: 2, filters: new Array(257).fill({ type: 'contract' }) }).message).toBe(
      'at most 256 filters per request',
    );
    expect(rpcErrorOf({ minLedger: 2, filters: [{ topic1: null }] }).message).toBe(
      'filter 1: at least one field must be set',
    );
  });
  it('contractId, type and topic values are checked', () => {
    expect(rpcErrorOf({ minLedger: 2, filters: [{ contractId: 'C123' }] }).message).toBe(
      'filter 1: contractId is not a valid contract strkey',
    );
    expect(rpcErrorOf({ minLedger: 2, filters: [{ type: 'diagnostic' }] }).message).toBe(
      "filter 1: type must be 'contract' or 'system'",
    );
    expect(rpcErrorOf({ minLedger: 2, filters: [{ topic2: '@@' }] }).message).toBe(
      'filter 1: topic2 is not a base64 XDR ScVal',
    );
  });
  it('term budget: 15 distinct terms, termsUsed and termBudget in data', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => ({
      topic0: Buffer.from([0, 0, 0, 3, 0, 0, 0, i]).toString('base64'),
    }));
    const e = rpcErrorOf({ minLedger: 2, filters: sixteen });
    expect(e.data).toEqual({ reason: 'invalid_params', termsUsed: 16, termBudget: 15 });
    // The same contract five times counts once; the same bytes at two positions count twice.
    expect(validateGetEventsV2({ minLedger: 2, filters: new Array(5).fill({ contractId: C }) }).termsUsed).toBe(1);
    expect(validateGetEventsV2({ minLedger: 2, filters: [{ topic0: T, topic1: T }] }).termsUsed).toBe(2);
    expect(
      rpcErrorOf({ minLedger: 2, filters: [{ contractId: C, type: 'contract' }] }, { termBudget: 1 }).data,
    ).toEqual({
      reason: 'invalid_params',
      termsUsed: 2,
      termBudget: 1,
    });
  });
  it('limit is 1..1000 (or the operator maximum); default 100', () => {
    expect(rpcErrorOf({ minLedger: 2, limit: 0 }).message).toBe('limit must be between 1 and 1000');
    expect(rpcErrorOf({ minLedger: 2, limit: 1001 }).message).toBe('limit must be between 1 and 1000');
    expect(rpcErrorOf({ minLedger: 2, limit: 600 }, { maxLimit: 500 }).message).toBe('limit must be between 1 and 500');
    expect(validateGetEventsV2({ minLedger: 2 }).limit).toBe(100);
  });
  it('xdrInputFormat json is not implemented; xdrFormat must be base64 or json', () => {
    expect(rpcErrorOf({ minLedger: 2, xdrInputFormat: 'json' }).message).toBe(
      "xdrInputFormat 'json' is not implemented yet",
    );
    expect(reason({ minLedger: 2, xdrFormat: 'xml' })).toBe('invalid_params');
  });
  it('ledger_out_of_range: asc start below the floor; desc min above latest without max', () => {
    expect(rpcErrorOf({ minLedger: 999 }, { ledgerRange: range }).data).toEqual({
      reason: 'ledger_out_of_range',
      missingLedger: 999,
      ...range,
    });
    expect(rpcErrorOf({ order: 'desc', minLedger: 5001 }, { ledgerRange: range }).data).toEqual({
      reason: 'ledger_out_of_range',
      missingLedger: 5001,
      ...range,
    });
    // desc without max is pinned to latest; a range wholly below genesis is not an error (empty COMPLETE page).
    expect(validateGetEventsV2({ order: 'desc' }, { ledgerRange: range })).toMatchObject({ maxLedger: 5000 });
    expect(() => validateGetEventsV2({ minLedger: 1, maxLedger: 1 }, { ledgerRange: range })).not.toThrow();
  });
  it('cursor_malformed: undecodable, unknown version, forged shapes; data carries the range', () => {
    expect(rpcErrorOf({ cursor: 'nope' }, { ledgerRange: range }).data).toEqual({
      reason: 'cursor_malformed',
      ...range,
    });
    expect(reason({ cursor: 'gec2_AAAA' })).toBe('cursor_malformed');
    const forged = (filters: StorageFilter[]) =>
      encodeCursorV2({ minLedger: 2, descending: false, filters, scannedLedger: 0 });
    expect(reason({ cursor: forged([{ topics: [], topicCount: { count: 0, exact: false } }]) })).toBe(
      'cursor_malformed',
    );
    expect(reason({ cursor: forged([{ eventType: 2, topics: [], topicCount: { count: 0, exact: false } }]) })).toBe(
      'cursor_malformed',
    );
    expect(reason({ cursor: forged([{ eventType: 1, topics: [], topicCount: { count: 1, exact: true } }]) })).toBe(
      'cursor_malformed',
    );
    expect(
      reason({ cursor: forged([{ topics: [Uint8Array.of(9, 9)], topicCount: { count: 0, exact: false } }]) }),
    ).toBe('cursor_malformed');
  });
  it('the term budget is re-checked on the cursor path', () => {
    const filters: StorageFilter[] = Array.from({ length: 16 }, (_, i) => ({
      topics: [Uint8Array.of(0, 0, 0, 3, 0, 0, 0, i)],
      topicCount: { count: 0, exact: false },
    }));
    const cursor = encodeCursorV2({ minLedger: 2, descending: false, filters, scannedLedger: 0 });
    expect(rpcErrorOf({ cursor }).data).toEqual({ reason: 'invalid_params', termsUsed: 16, termBudget: 15 });
  });
  it('a valid continuation decodes its cursor', () => {
    const cursor = encodeCursorV2({
      minLedger: 2000,
      descending: false,
      filters: [{ eventType: 1, topics: [], topicCount: { count: 0, exact: false } }],
      scannedLedger: 2500,
    });
    const r = validateGetEventsV2({ cursor, limit: 5 }, { ledgerRange: range });
    expect(r).toMatchObject({ kind: 'continuation', limit: 5, termsUsed: 1 });
    expect(
      rpcErrorOf(
        { cursor: encodeCursorV2({ minLedger: 2, descending: false, filters: [], scannedLedger: 0 }) },
        { ledgerRange: range },
      ).data.reason,
    ).toBe('ledger_out_of_range');
  });
});

describe('getEventsV2: bounds before work', () => {
  it('a topic over the base64 bound is refused before it is decoded (cause TOO_LONG)', () => {
    const error = errorOf(EventsError, () =>
      validateGetEventsV2({ minLedger: 2, filters: [{ topic0: 'A'.repeat(MAX_TOPIC_BASE64_LENGTH + 4) }] }),
    );
    expect(error.rpc?.message).toBe('filter 1: topic0 is not a base64 XDR ScVal');
    expect(error.cause).toMatchObject({ code: 'TOO_LONG' });
  });
  it('a non-string xdrFormat is refused, not a TypeError', () => {
    expect(rpcErrorOf({ minLedger: 2, xdrFormat: Object.create(null) }).message).toBe(
      "got 'an object': expected base64, json for optional 'xdrFormat'",
    );
  });
});
