// getEvents v1 validation: every rule of spec §1.1 (upstream protocol/get_events.go Valid) as a named test with
// the exact message and JSON-RPC code, in upstream's order (a request breaking two rules reports the earlier one);
// plus the scan window, the exclusive cursor and the response cursor of §1.2.
import { errorOf } from '@strata/test-kit';
import { describe, expect, it, vi } from 'vitest';
import {
  compileV1Filters,
  EventsError,
  MAX_TOPIC_BASE64_LENGTH,
  parseV1Cursor,
  V1_MAX_CURSOR_LENGTH,
  v1ResponseCursor,
  v1ScanWindow,
  validateGetEventsV1,
} from '../src/index.js';

const C = 'CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA';
const T = 'AAAADwAAAAh0cmFuc2Zlcg=='; // Symbol("transfer")
const CURSOR = '0000000021474840576-0000000000';

/** The code and message of the JSON-RPC error a refused request carries (fails the test otherwise). */
function rpcOf(params: unknown): { code: number; message: string } {
  const { rpc } = errorOf(EventsError, () => validateGetEventsV1(params));
  if (rpc === undefined) throw new Error('an RPC_ERROR without its JSON-RPC error');
  return { code: rpc.code, message: rpc.message };
}
const invalidParams = (message: string) => ({ code: -32602, message });

describe('getEvents v1 validation (in order)', () => {
  it('1. xdrFormat outside {"", base64, json}', () => {
    expect(rpcOf({ startLedger: 1, xdrFormat: 'xml' })).toEqual(
      invalidParams("got 'xml': expected base64, json for optional 'xdrFormat'"),
    );
    // Checked before everything else: also startLedger 0 here.
    expect(rpcOf({ startLedger: 0, xdrFormat: 'xml' }).message).toMatch(/^got 'xml'/);
  });
  it('2. cursor together with startLedger or endLedger', () => {
    expect(rpcOf({ startLedger: 1, pagination: { cursor: CURSOR } })).toEqual(
      invalidParams('ledger ranges and cursor cannot both be set'),
    );
    expect(rpcOf({ endLedger: 9, pagination: { cursor: CURSOR } })).toEqual(
      invalidParams('ledger ranges and cursor cannot both be set'),
    );
  });
  it('3. no cursor and startLedger 0', () => {
    expect(rpcOf({ filters: [] })).toEqual(invalidParams('startLedger must be positive'));
    expect(rpcOf({ startLedger: 0, pagination: { limit: 99999 } })).toEqual(
      invalidParams('startLedger must be positive'),
    );
  });
  it('4. limit above the maximum', () => {
    expect(rpcOf({ startLedger: 1, pagination: { limit: 10001 } })).toEqual(
      invalidParams('limit must not exceed 10000'),
    );
    expect(() => validateGetEventsV1({ startLedger: 1, pagination: { limit: 1001 } }, { maxLimit: 1000 })).toThrow(
      'limit must not exceed 1000',
    );
  });
  it('5. more than 5 filters', () => {
    expect(rpcOf({ startLedger: 1, filters: [{}, {}, {}, {}, {}, {}], pagination: { limit: 1 } })).toEqual(
      invalidParams('maximum 5 filters per request'),
    );
  });
  it('6. filter type other than system/contract (diagnostic included)', () => {
    const message = "filter 2 invalid: filter type invalid: if set, type must be either 'system' or 'contract'";
    expect(rpcOf({ startLedger: 1, filters: [{}, { type: 'diagnostic' }] })).toEqual(invalidParams(message));
    expect(rpcOf({ startLedger: 1, filters: [{}, { type: 'contract,foo' }] })).toEqual(invalidParams(message));
    expect(rpcOf({ startLedger: 1, filters: [{}, { type: 'contract,' }] })).toEqual(invalidParams(message));
  });
  it('7. more than 5 contract ids', () => {
    expect(rpcOf({ startLedger: 1, filters: [{ type: 'bogus', contractIds: [C, C, C, C, C, C] }] }).message).toMatch(
      /filter type invalid/,
    );
    expect(rpcOf({ startLedger: 1, filters: [{ contractIds: [C, C, C, C, C, 'x'] }] })).toEqual(
      invalidParams('filter 1 invalid: maximum 5 contract IDs per filter'),
    );
  });
  it('8. more than 5 topics', () => {
    expect(
      rpcOf({ startLedger: 1, filters: [{ contractIds: ['x'], topics: [[T], [T], [T], [T], [T], [T]] }] }),
    ).toEqual(invalidParams('filter 1 invalid: maximum 5 topics per filter'));
  });
  it('9. contract id not a C-strkey', () => {
    expect(
      rpcOf({
        startLedger: 1,
        filters: [{ contractIds: [C, 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF'] }],
      }),
    ).toEqual(invalidParams('filter 1 invalid: contract ID 2 invalid'));
  });
  it('10. topic with no segments', () => {
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [[T], []] }] })).toEqual(
      invalidParams('filter 1 invalid: topic 2 invalid: topic must have at least 1 segment'),
    );
  });
  it("11. '**' anywhere but last", () => {
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [['*', '**', T]] }] })).toEqual(
      invalidParams(
        "filter 1 invalid: topic 1 invalid: segment 2 invalid: wildcard '**' is only allowed as the last segment",
      ),
    );
  });
  it('12. more than 4 segments (a trailing ** not counted)', () => {
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [[T, T, T, T, T]] }] })).toEqual(
      invalidParams('filter 1 invalid: topic 1 invalid: topic cannot have more than 4 segments'),
    );
    expect(() => validateGetEventsV1({ startLedger: 1, filters: [{ topics: [[T, T, T, T, '**']] }] })).not.toThrow();
  });
  it('13. a segment that is neither a wildcard nor a base64 ScVal fails at decoding, before Valid()', () => {
    const r = rpcOf({ startLedger: 0, filters: [{ topics: [['not base64!']] }] });
    expect(r.code).toBe(-32602);
    expect(r.message).toMatch(/^invalid parameters: /);
    // A decodable base64 that is not exactly one ScVal is also a decoding error.
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [['AAAADwAAAAh0cmFuc2Zlcg==AAAA']] }] }).message).toMatch(
      /^invalid parameters: /,
    );
  });
  it('a malformed cursor fails at decoding', () => {
    expect(rpcOf({ pagination: { cursor: 'abc' } })).toEqual(invalidParams('invalid parameters: invalid event id abc'));
  });
  it('accepts the valid shapes and defaults the limit to 100', () => {
    const r = validateGetEventsV1({
      startLedger: 1,
      filters: [{ type: 'contract,system', contractIds: [C], topics: [[T, '*', '**'], ['**']] }],
    });
    expect(r.limit).toBe(100);
    expect(r.filters[0]!.types).toEqual(['contract', 'system']);
    expect(validateGetEventsV1({ pagination: { cursor: CURSOR, limit: 0 } }).limit).toBe(100);
    expect(validateGetEventsV1({ startLedger: 5, xdrFormat: 'json' }).xdrFormat).toBe('json');
  });
});

describe('getEvents v1 compilation', () => {
  it('cross-multiplies types × contracts × topics with arity into topic counts', () => {
    const r = validateGetEventsV1({
      startLedger: 1,
      filters: [
        {
          type: 'contract,system',
          contractIds: [C],
          topics: [
            [T, '*'],
            [T, '**'],
          ],
        },
      ],
    });
    const clauses = compileV1Filters(r.filters);
    expect(clauses).toHaveLength(4);
    expect(clauses.map((c) => [c.eventType, c.topicCount.count, c.topicCount.exact, c.topics.length])).toEqual([
      [1, 2, true, 2],
      [1, 1, false, 1],
      [0, 2, true, 2],
      [0, 1, false, 1],
    ]);
  });
  it('an unconstrained filter (or ["**"] alone) makes the query match-all', () => {
    expect(
      compileV1Filters(validateGetEventsV1({ startLedger: 1, filters: [{ contractIds: [C] }, {}] }).filters),
    ).toEqual([]);
    expect(compileV1Filters(validateGetEventsV1({ startLedger: 1, filters: [{ topics: [['**']] }] }).filters)).toEqual(
      [],
    );
  });
});

describe('getEvents v1 window and cursors', () => {
  const range = { oldestLedger: 100, latestLedger: 50_000 };
  it('window = min(start + 10000, latest + 1, endLedger), exclusive', () => {
    expect(v1ScanWindow(validateGetEventsV1({ startLedger: 100 }), range).endLedgerExclusive).toBe(10_100);
    expect(v1ScanWindow(validateGetEventsV1({ startLedger: 100, endLedger: 150 }), range).endLedgerExclusive).toBe(150);
    expect(v1ScanWindow(validateGetEventsV1({ startLedger: 45_000 }), range).endLedgerExclusive).toBe(50_001);
  });
  it('start outside the retention window is -32600 with the range', () => {
    expect(() => v1ScanWindow(validateGetEventsV1({ startLedger: 99 }), range)).toThrow(
      'startLedger must be within the ledger range: 100 - 50000',
    );
    expect(
      errorOf(EventsError, () => v1ScanWindow(validateGetEventsV1({ startLedger: 50_001 }), range)).rpc?.code,
    ).toBe(-32600);
  });
  it('the cursor is exclusive: event + 1, wrapping at 2^32 without carry', () => {
    const w = v1ScanWindow(validateGetEventsV1({ pagination: { cursor: '0000000429496729600-0000000007' } }), range);
    expect(w.start).toEqual({ ledger: 100, tx: 0, op: 0, event: 8 });
    const end = v1ScanWindow(validateGetEventsV1({ pagination: { cursor: '0000000433791696895-4294967295' } }), range);
    expect(end.start).toEqual({ ledger: 100, tx: 0xfffff, op: 0xfff, event: 0 });
  });
  it('response cursor: last id on a full page, else the window-end sentinel', () => {
    expect(v1ResponseCursor(['a', 'b'], 2, 1001)).toBe('b');
    expect(v1ResponseCursor(['a'], 2, 1001)).toBe('0000004299262263295-4294967295');
    expect(v1ResponseCursor([], 100, 1001)).toBe('0000004299262263295-4294967295');
  });
  it('parseV1Cursor is lenient on width like strconv (upstream)', () => {
    expect(parseV1Cursor('4294967296-1')).toEqual({ ledger: 1, tx: 0, op: 0, event: 1 });
    expect(() => parseV1Cursor('1-4294967296')).toThrow('value out of range');
  });
});

describe('getEvents v1: bounds before work', () => {
  const huge = '1'.repeat(16 << 20); // 16 MiB of digits: BigInt() of it took 4.5 s before the length check
  const causeOf = (params: unknown): EventsError => {
    const { cause } = errorOf(EventsError, () => validateGetEventsV1(params));
    expect(cause).toBeInstanceOf(EventsError);
    return cause as EventsError;
  };

  it('a 16 MiB cursor is TOO_LONG, and BigInt never sees it', () => {
    const cursor = `${huge}-0`; // well-formed but for its width: the old parse ran BigInt over all 16 Mi digits
    const bigInt = vi.spyOn(globalThis, 'BigInt');
    try {
      expect(rpcOf({ pagination: { cursor } })).toEqual(
        invalidParams('invalid parameters: invalid event id: 16777218 characters, more than the 30 of %019d-%010d'),
      );
      expect(causeOf({ pagination: { cursor } })).toMatchObject({ code: 'TOO_LONG', field: 'cursor' });
      expect(() => parseV1Cursor(cursor)).toThrow(expect.objectContaining({ code: 'TOO_LONG' }));
      const longArguments = bigInt.mock.calls.filter(([arg]) => typeof arg === 'string' && arg.length > 30);
      expect(longArguments).toHaveLength(0);
    } finally {
      bigInt.mockRestore();
    }
  });

  it('the cursor bound is the width of an id: 30 characters pass, 31 do not', () => {
    expect(V1_MAX_CURSOR_LENGTH).toBe(30);
    expect(parseV1Cursor(`${'0'.repeat(18)}5-${'0'.repeat(9)}7`)).toEqual({ ledger: 0, tx: 0, op: 5, event: 7 });
    expect(() => parseV1Cursor(`${'0'.repeat(19)}5-${'0'.repeat(9)}7`)).toThrow(/TOO_LONG/);
  });

  it('malformed cursors are EventsError BAD_EVENT_ID with upstream text as detail', () => {
    for (const cursor of ['abc', '1-', '-1-0', '1-4294967296', '99999999999999999999-0', '1.5-0', '+-0']) {
      expect(() => parseV1Cursor(cursor)).toThrow(
        expect.objectContaining({ name: 'EventsError', code: 'BAD_EVENT_ID' }),
      );
    }
    expect(causeOf({ pagination: { cursor: '1-x' } }).detail).toBe(
      'invalid event id 1-x: strconv.ParseUint: parsing "x": invalid syntax',
    );
  });

  it('a segment over the base64 bound is refused before it is decoded (TOO_LONG)', () => {
    const segment = 'A'.repeat(MAX_TOPIC_BASE64_LENGTH + 4);
    expect(causeOf({ startLedger: 1, filters: [{ topics: [[segment]] }] })).toMatchObject({ code: 'TOO_LONG' });
  });

  it('lists over their caps are refused without decoding what is in them', () => {
    // A 16 MiB segment inside is never looked at: the cap refuses first, with upstream's message.
    const bad = { topics: [[huge]] };
    expect(rpcOf({ startLedger: 1, filters: [{}, {}, {}, {}, {}, bad] })).toEqual(
      invalidParams('maximum 5 filters per request'),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [[T], [T], [T], [T], [T], [huge]] }] })).toEqual(
      invalidParams('filter 1 invalid: maximum 5 topics per filter'),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [[T, T, T, T, T, huge]] }] })).toEqual(
      invalidParams('filter 1 invalid: topic 1 invalid: topic cannot have more than 4 segments'),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ topics: [['*', '**', T, T, T, huge]] }] })).toEqual(
      invalidParams(
        "filter 1 invalid: topic 1 invalid: segment 2 invalid: wildcard '**' is only allowed as the last segment",
      ),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ contractIds: [C, C, C, C, C, 42] }] })).toEqual(
      invalidParams('filter 1 invalid: maximum 5 contract IDs per filter'),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ type: 'contract,'.repeat(8) }] })).toEqual(
      invalidParams('filter 1 invalid: filter type invalid: longer than 64 characters'),
    );
  });

  it("an over-cap list still reports Valid()'s earlier rules first", () => {
    expect(rpcOf({ startLedger: 0, filters: [{}, {}, {}, {}, {}, {}] })).toEqual(
      invalidParams('startLedger must be positive'),
    );
    expect(rpcOf({ startLedger: 1, filters: [{ type: 'bogus', topics: [[T], [T], [T], [T], [T], [T]] }] })).toEqual(
      invalidParams("filter 1 invalid: filter type invalid: if set, type must be either 'system' or 'contract'"),
    );
  });
});
