// Bad arguments at every public entry point. Each function, constructor and method below is called with its valid
// arguments (which must be accepted) and then with one argument at a time replaced by something its signature does
// not allow: null, undefined, wrong types, negative / fractional / huge numbers, empty or oversized buffers and
// strings, objects with missing or mistyped fields. Every such call must throw EventsError with one of the listed
// codes, never a TypeError or RangeError from inside, and never return a value. Checked here:
// 1. every exported function and class of the package has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted;
// 3. each bad call throws EventsError (instanceof) with an expected code;
// 4. negative control: the checker rejects a leaked TypeError, a wrong code and a call that does not throw.
import { describeBadArguments, expectErrorCode, type EntryPoint as TestKitEntryPoint } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import * as namespace from '../src/index.js';
import {
  compileV1Filters,
  decodeCursorV2,
  EventsError,
  EventsErrorCode,
  encodeContractEvent,
  encodeCursorV2,
  encodeLedgerPayloads,
  encodePayload,
  formatEventId,
  LedgerOffsets,
  MAX_TOPIC_BASE64_LENGTH,
  PayloadView,
  type StorageFilter,
  termKey,
  validateGetEventsV1,
  viewPayload,
} from '../src/index.js';

/** The package's exports by name (a plain object, so tests can look entries up by a computed name). */
const api = { ...namespace };

const { BAD_EVENT_ID, BAD_XDR, INVALID_ARGUMENT, LENGTH_MISMATCH, MALFORMED_CURSOR, RPC_ERROR, TOO_LONG, TRUNCATED } =
  EventsErrorCode;

/** Calls `call` and checks it throws EventsError with one of `codes`; anything else fails with a message saying why. */
function expectEventsError(call: () => unknown, codes: readonly EventsErrorCode[], what: string): void {
  expectErrorCode(EventsError, call, codes, what);
}

// ---- values no signature here allows ----
const NOT_NUMBER: readonly unknown[] = [null, 'abc', '0', 5n, {}, [], Object.create(null), Symbol('s'), true];
const BAD_INTEGER: readonly unknown[] = [...NOT_NUMBER, undefined, -1, 1.5, Number.NaN, Infinity, 2 ** 53];
const NOT_BYTES: readonly unknown[] = [
  null,
  undefined,
  'abc',
  5,
  [1, 2, 3],
  new Float64Array(4),
  new Uint16Array(4),
  new ArrayBuffer(8),
  {},
  Object.create(null),
];
const NOT_STRING: readonly unknown[] = [
  null,
  undefined,
  5,
  5n,
  {},
  [],
  Object.create(null),
  Symbol('s'),
  new Uint8Array(1),
];
const NOT_OBJECT: readonly unknown[] = [null, undefined, 'abc', 5, 5n, Symbol('s'), [], true];
const NOT_ARRAY: readonly unknown[] = [null, undefined, 'abc', 5, {}, Object.create(null), new Uint8Array(2)];
const TOO_LONG_TEXT = '1'.repeat(16 << 20);

// ---- valid arguments ----
const T = 'AAAADwAAAAh0cmFuc2Zlcg=='; // Symbol("transfer")
const transfer = Uint8Array.from(Buffer.from(T, 'base64'));
const contractEvent = encodeContractEvent({
  contractId: new Uint8Array(32).fill(7),
  type: 1,
  topics: [transfer],
  value: transfer,
});
const payloadFields = {
  txHash: new Uint8Array(32),
  ledger: 100,
  txIndex: 1,
  opIndex: 0,
  ledgerClosedAt: 1_700_000_000,
  eventIndex: 0,
  contractEvent,
};
const payload = encodePayload(payloadFields);
const ledgerEvent = { txHash: new Uint8Array(32), tx: 1, op: 0, eventIndex: 0, xdr: contractEvent };
const position = { ledger: 100, tx: 1, op: 0, event: 0 };
const eventId = formatEventId(position);
const clause: StorageFilter = {
  contractId: new Uint8Array(32).fill(7),
  topics: [transfer],
  topicCount: { count: 1, exact: true },
};
const filters = [clause];
const cursorFields = { minLedger: 2, descending: false, filters, scannedLedger: 0 };
const cursorToken = encodeCursorV2(cursorFields);
const offsets = LedgerOffsets.fromCounts(2, [1, 2, 0]);
const view = viewPayload(payload);
const v1Request = validateGetEventsV1({ startLedger: 100, filters: [{ topics: [[T]] }] });
const range = { oldestLedger: 2, latestLedger: 50_000 };

/** `base` with `key` set to `value` (a missing or mistyped field). */
function withField(base: object, key: string, value: unknown): Record<string, unknown> {
  return { ...base, [key]: value };
}

/** [argument position, values to put there, codes allowed (INVALID_ARGUMENT when omitted)]. */
type EntryPoint = TestKitEntryPoint<EventsErrorCode>;

const fn = (f: unknown) => f as (...args: unknown[]) => unknown;

const ENTRY_POINTS: readonly EntryPoint[] = [
  { name: 'bucketOfChunk', call: fn(api.bucketOfChunk), valid: [0], bad: [[0, BAD_INTEGER]] },
  { name: 'chunkFirstLedger', call: fn(api.chunkFirstLedger), valid: [0], bad: [[0, BAD_INTEGER]] },
  { name: 'chunkLastLedger', call: fn(api.chunkLastLedger), valid: [0], bad: [[0, [...BAD_INTEGER, 2 ** 32]]] },
  { name: 'chunkIdOfLedger', call: fn(api.chunkIdOfLedger), valid: [2], bad: [[0, [...BAD_INTEGER, 0, 1, 2 ** 32]]] },
  {
    name: 'coldFilePath',
    call: fn(api.coldFilePath),
    valid: [0, 'events.pack'],
    bad: [
      [0, BAD_INTEGER],
      [1, [...NOT_STRING, 'events.zip', '']],
    ],
  },
  {
    name: 'decodeCursorV2',
    call: fn(decodeCursorV2),
    valid: [cursorToken],
    bad: [
      [0, NOT_STRING],
      [0, ['', 'gec1_', `gec1_${'A'.repeat(1 << 20)}`, TOO_LONG_TEXT], [MALFORMED_CURSOR]],
    ],
  },
  {
    name: 'encodeCursorV2',
    call: fn(encodeCursorV2),
    valid: [cursorFields],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null), {}]],
      [0, BAD_INTEGER.map((v) => withField(cursorFields, 'minLedger', v))],
      [0, NOT_ARRAY.map((v) => withField(cursorFields, 'filters', v))],
      [0, [withField(cursorFields, 'filters', new Array(257).fill(clause))]],
      [0, [withField(cursorFields, 'descending', 'yes')]],
      [
        0,
        [
          withField(cursorFields, 'position', { ...position, ledgerOrdinal: 'x' }),
          withField(cursorFields, 'position', 5),
        ],
      ],
    ],
  },
  {
    name: 'compareEventIds',
    call: fn(api.compareEventIds),
    valid: [eventId, eventId],
    bad: [
      [0, NOT_STRING],
      [1, NOT_STRING],
    ],
  },
  {
    name: 'comparePositions',
    call: fn(api.comparePositions),
    valid: [position, position],
    bad: [
      [
        0,
        [...NOT_OBJECT, Object.create(null), { ...position, ledger: 1.5 }, { ...position, event: '0' }],
        [INVALID_ARGUMENT, BAD_EVENT_ID],
      ],
      [1, [...NOT_OBJECT, { ...position, tx: -1 }, { ...position, op: 4096 }], [INVALID_ARGUMENT, BAD_EVENT_ID]],
    ],
  },
  {
    name: 'formatEventId',
    call: fn(formatEventId),
    valid: [position],
    bad: [
      [
        0,
        [...NOT_OBJECT, Object.create(null), { ...position, ledger: 2 ** 31 }, { ...position, event: 2 ** 32 }],
        [INVALID_ARGUMENT, BAD_EVENT_ID],
      ],
    ],
  },
  {
    name: 'LedgerToidFormatter',
    call: (...args: unknown[]) => new (api.LedgerToidFormatter as unknown as new (...a: unknown[]) => unknown)(...args),
    valid: [5],
    bad: [[0, [...BAD_INTEGER, 2 ** 32], [BAD_EVENT_ID]]],
  },
  {
    name: 'parseEventId',
    call: fn(api.parseEventId),
    valid: [eventId],
    bad: [
      [0, NOT_STRING],
      [
        0,
        ['', 'abc', `${eventId}0`, '9999999999999999999-0000000000', eventId.replace('-', '+'), TOO_LONG_TEXT],
        [BAD_EVENT_ID],
      ],
    ],
  },
  {
    name: 'parseToid',
    call: fn(api.parseToid),
    valid: [5n],
    bad: [
      [0, [null, undefined, 'abc', '5', {}, [], Object.create(null), Symbol('s'), 5, -1n, 2n ** 63n], [BAD_EVENT_ID]],
    ],
  },
  {
    name: 'toid',
    call: fn(api.toid),
    valid: [2, 0, 0],
    bad: [
      [0, BAD_INTEGER, [BAD_EVENT_ID]],
      [1, [...BAD_INTEGER, 2 ** 20], [BAD_EVENT_ID]],
      [2, [...BAD_INTEGER, 4096], [BAD_EVENT_ID]],
    ],
  },
  ...(['compilePostFilter', 'countDistinctTerms', 'isMatchAll', 'validateStorageFilters'] as const).map(
    (name): EntryPoint => ({
      name,
      call: fn(api[name]),
      valid: [filters],
      bad: [
        [0, NOT_ARRAY],
        [
          0,
          [
            [null],
            [5],
            [Object.create(null)],
            [{ ...clause, topics: 'x' }],
            [{ ...clause, contractId: 'x'.repeat(32) }],
          ],
        ],
        [
          0,
          [
            [{ ...clause, topicCount: null }],
            [{ ...clause, topicCount: { count: 9, exact: true } }],
            [{ ...clause, eventType: 1.5 }],
          ],
        ],
        [
          0,
          [
            [{ ...clause, topics: [1, 2] }],
            [{ ...clause, topics: [transfer, transfer, transfer, transfer, transfer] }],
          ],
        ],
      ],
    }),
  ),
  {
    name: 'isUnconstrained',
    call: fn(api.isUnconstrained),
    valid: [clause],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null), { ...clause, topics: null }, { ...clause, topicCount: { count: 0 } }]],
    ],
  },
  {
    name: 'matchesAnyFilter',
    call: fn(api.matchesAnyFilter),
    valid: [filters, payload],
    bad: [
      [0, NOT_ARRAY],
      [1, NOT_BYTES],
      [1, [new Uint8Array(0)], [TRUNCATED]],
    ],
  },
  {
    name: 'LedgerOffsets.fromCounts',
    call: (start, counts) => LedgerOffsets.fromCounts(start as number, counts as number[]),
    valid: [2, [1, 2]],
    bad: [
      [0, [...BAD_INTEGER, 0, 1]],
      [1, [null, undefined, 5, 'abc', { length: 1.5 }, { length: -1 }, [1, -1], [1.5], ['1'], [5n]]],
      [1, [new Array(10_001).fill(0), { length: 2 ** 40 }]],
    ],
  },
  {
    name: 'LedgerOffsets.decode',
    call: (bytes) => LedgerOffsets.decode(bytes as Uint8Array),
    valid: [offsets.encode()],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(0), Uint8Array.of(1, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff)], [TRUNCATED]],
      [0, [Uint8Array.from([...offsets.encode(), 0])], [LENGTH_MISMATCH]],
    ],
  },
  ...(['countOf', 'firstOrdinal'] as const).map(
    (method): EntryPoint => ({
      name: `LedgerOffsets.${method}`,
      call: (ledger) => offsets[method](ledger as number),
      valid: [3],
      bad: [[0, [...BAD_INTEGER, 1, 5, 2 ** 32]]],
    }),
  ),
  {
    name: 'LedgerOffsets.windowForLedgers',
    call: (from, to) => offsets.windowForLedgers(from as number, to as number),
    valid: [2, 4],
    bad: [
      [0, [...BAD_INTEGER, 5]],
      [1, [...BAD_INTEGER, 5, 1]],
    ],
  },
  {
    name: 'LedgerOffsets.ledgerOfOrdinal',
    call: (ordinal) => offsets.ledgerOfOrdinal(ordinal as number),
    valid: [0],
    bad: [[0, [...BAD_INTEGER, 3]]],
  },
  {
    name: 'LedgerOffsets.prefix',
    call: (count) => offsets.prefix(count as number),
    valid: [1],
    bad: [[0, [...BAD_INTEGER, 4]]],
  },
  ...(['decodePayload', 'viewPayload', 'deriveTerms'] as const).map(
    (name): EntryPoint => ({
      name,
      call: fn(api[name]),
      valid: [payload],
      bad: [
        [0, NOT_BYTES],
        [0, [new Uint8Array(0), payload.subarray(0, 60)], [TRUNCATED]],
        [0, [Uint8Array.from([...payload, 0])], [LENGTH_MISMATCH]],
      ],
    }),
  ),
  {
    name: 'PayloadView',
    call: (bytes) => new PayloadView(bytes as Uint8Array),
    valid: [payload],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(0)], [TRUNCATED]],
    ],
  },
  {
    name: 'PayloadView.topic',
    call: (i) => view.topic(i as number),
    valid: [0],
    bad: [[0, [...NOT_NUMBER, undefined, 1.5, Number.NaN, Infinity]]],
  },
  {
    name: 'encodeContractEvent',
    call: fn(encodeContractEvent),
    valid: [{ type: 1, topics: [transfer], value: transfer }],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null)]],
      [
        0,
        [
          { type: 3, topics: [], value: transfer },
          { type: '1', topics: [], value: transfer },
        ],
      ],
      [
        0,
        [
          { type: 1, topics: 'x', value: transfer },
          { type: 1, topics: [[1]], value: transfer },
        ],
      ],
      [
        0,
        [
          { type: 1, topics: [], value: 'x' },
          { type: 1, topics: [], value: transfer, contractId: 'x'.repeat(32) },
        ],
      ],
      [0, [{ type: 1, topics: [new Uint8Array(3)], value: transfer }], [BAD_XDR]],
    ],
  },
  {
    name: 'encodePayload',
    call: fn(encodePayload),
    valid: [payloadFields],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null)]],
      [0, NOT_BYTES.map((v) => withField(payloadFields, 'txHash', v))],
      [0, ['x'.repeat(32)].map((v) => withField(payloadFields, 'txHash', v))],
      [0, [...BAD_INTEGER, 2 ** 32].map((v) => withField(payloadFields, 'ledger', v))],
      [0, NOT_BYTES.map((v) => withField(payloadFields, 'contractEvent', v))],
      [0, [withField(payloadFields, 'ledgerClosedAt', 2 ** 60)]],
    ],
  },
  {
    name: 'encodeLedgerPayloads',
    call: fn(encodeLedgerPayloads),
    valid: [100, 1_700_000_000, [ledgerEvent]],
    bad: [
      [0, [...BAD_INTEGER, 2 ** 32]],
      [1, [2 ** 60, 1.5, '1']],
      [2, [...NOT_ARRAY, [null], [withField(ledgerEvent, 'txHash', new Uint8Array(31))]]],
      [2, [[withField(ledgerEvent, 'tx', -1)], [withField(ledgerEvent, 'xdr', 'x')]]],
      [2, [[ledgerEvent, withField(ledgerEvent, 'xdr', new Uint8Array(3))]], [BAD_XDR]],
    ],
  },
  {
    name: 'compileV1Filters',
    call: fn(compileV1Filters),
    valid: [v1Request.filters],
    bad: [
      [0, NOT_ARRAY],
      [
        0,
        [
          [null],
          [{}],
          [{ types: ['diagnostic'], contractIds: [], topics: [] }],
          [{ types: [], contractIds: ['C'], topics: [] }],
        ],
      ],
      [0, [[{ types: [], contractIds: [], topics: [{ segments: [5], trailingAny: false }] }]]],
    ],
  },
  {
    name: 'decodeScValBase64',
    call: fn(api.decodeScValBase64),
    valid: [T],
    bad: [
      [0, NOT_STRING],
      [0, ['not base64!', 'AAAA', `${T}AAAA`], [BAD_XDR]],
      [0, ['A'.repeat(MAX_TOPIC_BASE64_LENGTH + 4), TOO_LONG_TEXT], [TOO_LONG]],
    ],
  },
  {
    name: 'isWindowEndCursor',
    call: fn(api.isWindowEndCursor),
    valid: [position],
    bad: [[0, [...NOT_OBJECT, Object.create(null)], [INVALID_ARGUMENT, BAD_EVENT_ID]]],
  },
  {
    name: 'parseV1Cursor',
    call: fn(api.parseV1Cursor),
    valid: [eventId],
    bad: [
      [0, NOT_STRING],
      [0, ['', 'abc', '-1-0', '1-', '1-4294967296', '99999999999999999999-0', '-5-5', '1.5-0'], [BAD_EVENT_ID]],
      [0, [TOO_LONG_TEXT, `${'0'.repeat(30)}-0`], [TOO_LONG]],
    ],
  },
  {
    name: 'v1ResponseCursor',
    call: fn(api.v1ResponseCursor),
    valid: [[], 10, 1001],
    bad: [
      [0, NOT_ARRAY],
      [1, BAD_INTEGER],
      [2, [...BAD_INTEGER, 0, 2 ** 31 + 1]],
    ],
  },
  {
    name: 'v1ScanWindow',
    call: fn(api.v1ScanWindow),
    valid: [v1Request, range],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null), { ...v1Request, startLedger: '100' }, { ...v1Request, cursor: 5 }]],
      [0, [{ ...v1Request, cursor: { ...position, event: -1 } }], [BAD_EVENT_ID]],
      [1, [...NOT_OBJECT, Object.create(null), { oldestLedger: 2 }, { oldestLedger: 2, latestLedger: 1.5 }]],
    ],
  },
  { name: 'v1WindowEndCursor', call: fn(api.v1WindowEndCursor), valid: [1001], bad: [[0, [...BAD_INTEGER, 0]]] },
  {
    name: 'validateGetEventsV1',
    call: fn(validateGetEventsV1),
    valid: [{ startLedger: 100 }, {}],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null), { pagination: { cursor: TOO_LONG_TEXT } }], [RPC_ERROR]],
      [0, [{ startLedger: 1, filters: [{ topics: [[TOO_LONG_TEXT]] }] }, { startLedger: -1 }], [RPC_ERROR]],
      [1, [null, 5, 'abc', { maxLimit: 'x' }, { maxLimit: 1.5 }, { defaultLimit: 0 }]],
    ],
  },
  {
    name: 'validateGetEventsV2',
    call: fn(api.validateGetEventsV2),
    valid: [{ minLedger: 100 }, {}],
    bad: [
      [0, [...NOT_OBJECT, Object.create(null), { minLedger: 2, xdrFormat: Object.create(null) }], [RPC_ERROR]],
      [0, [{ cursor: TOO_LONG_TEXT }, { minLedger: 2, filters: [{ topic0: TOO_LONG_TEXT }] }], [RPC_ERROR]],
      [1, [null, 5, 'abc', { maxLimit: 'x' }, { maxFilters: -1 }, { ledgerRange: 5 }, { ledgerRange: {} }]],
    ],
  },
  ...(['deriveTermsInto', 'deriveTermsIntoChecked'] as const).map(
    (name): EntryPoint => ({
      name,
      call: fn(api[name]),
      valid: [payload, new Uint8Array(112), 0],
      bad: [
        [0, NOT_BYTES],
        [0, [new Uint8Array(0)], [TRUNCATED]],
        [1, [...NOT_BYTES, new Uint8Array(111)]],
        [2, [...NOT_NUMBER, -1, 1.5, Number.NaN, 1, 2 ** 53]],
      ],
    }),
  ),
  { name: 'eventTypeTermKey', call: fn(api.eventTypeTermKey), valid: [1], bad: [[0, [...BAD_INTEGER, 2 ** 32]]] },
  {
    name: 'termKey',
    call: fn(termKey),
    valid: [0, transfer],
    bad: [
      [0, [...BAD_INTEGER, 7]],
      [1, NOT_BYTES],
    ],
  },
  { name: 'termKeyHex', call: fn(api.termKeyHex), valid: [termKey(0, transfer)], bad: [[0, NOT_BYTES]] },
  ...(['topicCountAtLeastTermKeys', 'topicCountBucket', 'topicCountTermKey'] as const).map(
    (name): EntryPoint => ({ name, call: fn(api[name]), valid: [1], bad: [[0, BAD_INTEGER]] }),
  ),
  { name: 'topicField', call: fn(api.topicField), valid: [0], bad: [[0, [...BAD_INTEGER, 4]]] },
];

describeBadArguments({ errorClass: EventsError, api, entries: ENTRY_POINTS, defaultCodes: [INVALID_ARGUMENT] });

describe('the bad-argument checker', () => {
  it('4. negative control: the checker catches a leaked TypeError, a wrong code and a call that returns', () => {
    const leaksTypeError = (bytes: unknown) => (bytes as Uint8Array).subarray(0, 1);
    expect(() => expectEventsError(() => leaksTypeError(null), [INVALID_ARGUMENT], 'leak')).toThrow(/TypeError/);
    expect(() => expectEventsError(() => api.parseEventId('abc'), [INVALID_ARGUMENT], 'code')).toThrow(/BAD_EVENT_ID/);
    expect(() => expectEventsError(() => api.topicCountBucket(1), [INVALID_ARGUMENT], 'ok')).toThrow(
      /nothing was thrown/,
    );
  });
});
