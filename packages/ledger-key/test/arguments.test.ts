// Bad arguments at every public entry point. Each function, constructor and method below is called with its valid
// arguments (which must be accepted) and then with one argument at a time replaced by something its signature does
// not allow: null, undefined, wrong types (plain arrays, strings, other typed arrays where a Uint8Array belongs),
// negative / fractional / huge numbers, empty or oversized buffers, and for the writers model objects that are
// malformed (null-prototype objects, missing fields, mistyped fields, null extensions). Every such call must throw
// LedgerKeyError with one of the listed codes, never a TypeError, RangeError or wasm RuntimeError, and never return.
// Checked here:
// 1. every exported function and class of the package has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted;
// 3. each bad call throws LedgerKeyError (instanceof) with an expected code;
// 4. negative control: the checker rejects a leaked TypeError, a wrong code and a call that does not throw.
import { describeBadArguments, expectErrorCode, type EntryPoint as TestKitEntryPoint } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import * as namespace from '../src/index.js';
import {
  encodeBucketEntry,
  encodeHotArchiveBucketEntry,
  encodeLedgerEntry,
  encodeLedgerKey,
  encodeScAddress,
  encodeScVal,
  KeyedRecordArena,
  type LedgerEntry,
  LedgerKeyError,
  LedgerKeyErrorCode,
  OrderKey,
} from '../src/index.js';

/** The package's exports by name (a plain object, so entries can be looked up by a computed name). */
const api: Record<string, unknown> = { ...namespace };

const { INVALID_ARGUMENT, NOT_SOROBAN_KEY, TRAILING_BYTES, TRUNCATED } = LedgerKeyErrorCode;

/** Calls `call` and checks it throws LedgerKeyError with one of `codes`; anything else fails saying why. */
function expectLedgerKeyError(call: () => unknown, codes: readonly LedgerKeyErrorCode[], what: string): void {
  expectErrorCode(LedgerKeyError, call, codes, what);
}

// ---- values no signature here allows ----
const NOT_BYTES: readonly unknown[] = [
  null,
  undefined,
  'abc',
  5,
  [0, 0, 0, 0, 0, 0, 0, 7],
  new Float64Array(8),
  new Uint16Array(8),
  new Uint8ClampedArray(8),
  new ArrayBuffer(8),
  {},
  Object.create(null),
  Symbol('s'),
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
const BAD_OFFSET: readonly unknown[] = [null, -1, 1.5, Number.NaN, Infinity, '0', 0n, {}, Object.create(null), 2 ** 53];
const NOT_BOOLEAN: readonly unknown[] = [null, undefined, 0, 1, 'true', {}];
const NOT_ORDER_KEY: readonly unknown[] = [null, undefined, {}, Object.create(null), new Uint8Array(4), 'key', 5];

// ---- valid arguments ----
const id = (byte: number) => new Uint8Array(32).fill(byte);
const contract = { type: 'contract', contractId: id(7) } as const;
const keyModel = {
  type: 'contractData',
  contract,
  key: { type: 'symbol', value: 'Balance' },
  durability: 'persistent',
} as const;
const key = encodeLedgerKey(keyModel);
const accountKey = encodeLedgerKey({ type: 'account', accountId: id(1) });
const entryModel: LedgerEntry = { lastModifiedLedgerSeq: 5, data: { ...keyModel, val: { type: 'u32', value: 1 } } };
const entry = encodeLedgerEntry(entryModel);
const bucketEntry = encodeBucketEntry({ type: 'live', entry: entryModel });
const hotEntry = encodeHotArchiveBucketEntry({ type: 'archived', entry: entryModel });
const scVal = encodeScVal({ type: 'u32', value: 1 });
const scAddress = encodeScAddress(contract);
const withTrailing = (bytes: Uint8Array) => Uint8Array.from([...bytes, 0, 0, 0, 0]);
const huge = 'G'.repeat(16 << 20);

/** A copy of `base` with `path` (dot-separated) set to `value`. */
function withField(base: object, path: string, value: unknown): unknown {
  const [head, ...rest] = path.split('.');
  const source = base as Record<string, unknown>;
  return { ...source, [head!]: rest.length === 0 ? value : withField(source[head!] as object, rest.join('.'), value) };
}

/** [argument position, values to put there, codes allowed (INVALID_ARGUMENT when omitted)]. */
type EntryPoint = TestKitEntryPoint<LedgerKeyErrorCode>;

const fn = (name: string) => api[name] as (...args: unknown[]) => unknown;

/** A byte-reading function of one argument: wrong types, an empty buffer, trailing bytes. */
function reader(name: string, valid: Uint8Array, empty: readonly LedgerKeyErrorCode[] = [TRUNCATED]): EntryPoint {
  return {
    name,
    call: fn(name),
    valid: [valid],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(0), valid.subarray(0, valid.length - 1)], empty],
      [0, [withTrailing(valid)], [TRAILING_BYTES]],
    ],
  };
}

/** A `read*(bytes, offset?)` factory: the reader cases plus bad offsets. */
function factory(name: string, valid: Uint8Array): EntryPoint {
  const base = reader(name, valid);
  return { ...base, bad: [...base.bad, [1, [...BAD_OFFSET, valid.length + 1]]] };
}

/** A comparator of two byte arguments. */
function comparator(name: string, a: Uint8Array, b: Uint8Array): EntryPoint {
  return {
    name,
    call: fn(name),
    valid: [a, b],
    bad: [
      [0, NOT_BYTES],
      [1, NOT_BYTES],
      [0, [new Uint8Array(0)], [TRUNCATED]],
      [1, [new Uint8Array(0)], [TRUNCATED]],
    ],
  };
}

// Writer inputs that are not the model: the same list for every writer, then each writer's own malformed objects.
const NOT_A_MODEL: readonly unknown[] = [
  null,
  undefined,
  5,
  'x',
  Symbol('s'),
  [],
  {},
  Object.create(null),
  { type: 'bogus' },
];
const account = { type: 'account', accountId: id(1) } as const;
const issuer = id(2);

const ENTRY_POINTS: readonly EntryPoint[] = [
  factory('readLedgerKey', key),
  factory('readLedgerEntry', entry),
  factory('readBucketEntry', bucketEntry),
  factory('readHotArchiveBucketEntry', hotEntry),
  factory('readScVal', scVal),
  factory('readScAddress', scAddress),
  reader('validateLedgerKey', key),
  reader('validateLedgerEntry', entry),
  reader('validateBucketEntry', bucketEntry),
  reader('validateHotArchiveBucketEntry', hotEntry),
  reader('validateScVal', scVal),
  reader('validateScAddress', scAddress),
  reader('ledgerKeyOfEntry', entry),
  reader('orderKeyOf', key),
  {
    ...reader('ttlKeyOf', key),
    bad: [...reader('ttlKeyOf', key).bad, [0, [accountKey], [NOT_SOROBAN_KEY]]],
  },
  {
    name: 'scValEnd',
    call: fn('scValEnd'),
    valid: [scVal, 0],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, scVal.length + 1]],
      [1, [scVal.length], [TRUNCATED]],
    ],
  },
  {
    name: 'ledgerEntryLayout',
    call: fn('ledgerEntryLayout'),
    valid: [entry, 0, new Int32Array(4)],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, undefined, entry.length + 1]],
      [2, [null, undefined, new Int32Array(3), new Uint32Array(4), [0, 0, 0, 0], new Float64Array(4)]],
      [0, [new Uint8Array(0)], [TRUNCATED]],
    ],
  },
  {
    name: 'readU32',
    call: fn('readU32'),
    valid: [key, key.length - 4],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, undefined]],
      [1, [key.length - 3, key.length, key.length + 1], [TRUNCATED]],
      [0, [new Uint8Array(3)], [TRUNCATED]],
    ],
  },
  comparator('compareLedgerKeys', key, accountKey),
  comparator('ledgerKeysEqual', key, accountKey),
  comparator('compareLedgerEntries', entry, entry),
  comparator('compareEntryToKey', entry, key),
  comparator('compareBucketEntries', bucketEntry, bucketEntry),
  comparator('compareBucketEntryKeys', bucketEntry, bucketEntry),
  comparator('compareHotArchiveBucketEntries', hotEntry, hotEntry),
  comparator('compareHotArchiveBucketEntryKeys', hotEntry, hotEntry),
  {
    name: 'compareKeyedRecordsAt',
    call: fn('compareKeyedRecordsAt'),
    valid: [entry, 0, true, key, 0, false],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, undefined, entry.length + 1]],
      [2, NOT_BOOLEAN],
      [3, NOT_BYTES],
      [4, [...BAD_OFFSET, undefined, key.length + 1]],
      [5, NOT_BOOLEAN],
    ],
  },
  {
    name: 'KeyedRecordArena',
    call: (byteLength) => new KeyedRecordArena(byteLength as number),
    valid: [64],
    bad: [[0, [...BAD_OFFSET, undefined, 0, 2 ** 31]]],
  },
  (() => {
    const arena = new KeyedRecordArena(65_536);
    arena.bytes.set(entry, 0);
    arena.bytes.set(key, 1024);
    arena.bytes.fill(0xff, 65_528); // not a record: reading one there runs off the end of the memory
    return {
      name: 'KeyedRecordArena.compareAt',
      call: (pa, aIsEntry, pb, bIsEntry) =>
        arena.compareAt(pa as number, aIsEntry as boolean, pb as number, bIsEntry as boolean),
      valid: [0, true, 1024, false],
      bad: [
        [0, [...BAD_OFFSET, undefined, 65_536, 2 ** 31]],
        [1, NOT_BOOLEAN],
        [2, [...BAD_OFFSET, undefined, 65_536, -70_000]],
        [3, NOT_BOOLEAN],
        [0, [65_532]],
      ],
    } satisfies EntryPoint;
  })(),
  {
    name: 'OrderKey',
    call: (capacity) => new OrderKey(capacity as number),
    valid: [16],
    bad: [[0, [...BAD_OFFSET, -5, 2 ** 21]]],
  },
  {
    name: 'OrderKey.setFromKey',
    call: (b, p, end) => new OrderKey().setFromKey(b as Uint8Array, p as number, end as number),
    valid: [key],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, key.length + 1]],
      [2, [...BAD_OFFSET, key.length + 1]],
      [0, [new Uint8Array(0)], [TRUNCATED]],
      [0, [withTrailing(key)], [TRAILING_BYTES]],
    ],
  },
  {
    name: 'OrderKey.setFromEntry',
    call: (b, p) => new OrderKey().setFromEntry(b as Uint8Array, p as number),
    valid: [entry, 0],
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_OFFSET, entry.length + 1]],
      [0, [new Uint8Array(0)], [TRUNCATED]],
    ],
  },
  {
    name: 'OrderKey.setFrom',
    call: (other) => new OrderKey().setFrom(other as OrderKey),
    valid: [new OrderKey().setFromKey(key)],
    bad: [[0, NOT_ORDER_KEY]],
  },
  {
    name: 'OrderKey.compare',
    call: (other) => new OrderKey().setFromKey(key).compare(other as OrderKey),
    valid: [new OrderKey().setFromKey(accountKey)],
    bad: [[0, NOT_ORDER_KEY]],
  },
  ...(['Account', 'Contract', 'LiquidityPool'] as const).flatMap((kind): EntryPoint[] => [
    {
      name: `encode${kind}Strkey`,
      call: fn(`encode${kind}Strkey`),
      valid: [id(3)],
      bad: [[0, [...NOT_BYTES, id(3).subarray(1), new Uint8Array(33)]]],
    },
    {
      name: `decode${kind}Strkey`,
      call: fn(`decode${kind}Strkey`),
      valid: [(api[`encode${kind}Strkey`] as (b: Uint8Array) => string)(id(3))],
      bad: [
        [0, [...NOT_STRING, '', 'G', huge, 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAAAGZFQ']],
      ],
    },
  ]),
  {
    name: 'encodeClaimableBalanceStrkey',
    call: fn('encodeClaimableBalanceStrkey'),
    valid: [id(3)],
    bad: [[0, [...NOT_BYTES, new Uint8Array(31)]]],
  },
  {
    name: 'decodeClaimableBalanceStrkey',
    call: fn('decodeClaimableBalanceStrkey'),
    valid: [namespace.encodeClaimableBalanceStrkey(id(3))],
    bad: [[0, [...NOT_STRING, '', huge, namespace.encodeAccountStrkey(id(3))]]],
  },
  {
    name: 'encodeMuxedStrkey',
    call: fn('encodeMuxedStrkey'),
    valid: [id(3), 5n],
    bad: [
      [0, [...NOT_BYTES, new Uint8Array(31)]],
      [1, [null, undefined, 5, '5', -1n, 2n ** 64n, {}]],
    ],
  },
  {
    name: 'decodeMuxedStrkey',
    call: fn('decodeMuxedStrkey'),
    valid: [namespace.encodeMuxedStrkey(id(3), 5n)],
    bad: [[0, [...NOT_STRING, '', huge, namespace.encodeAccountStrkey(id(3))]]],
  },
  {
    name: 'encodeScVal',
    call: fn('encodeScVal'),
    valid: [{ type: 'vec', value: [{ type: 'u32', value: 1 }] }],
    bad: [
      [0, NOT_A_MODEL],
      [
        0,
        [
          { type: Object.create(null) },
          { type: Symbol('u32') },
          { type: 'u32', value: Object.create(null) },
          { type: 'u32', value: '1' },
          { type: 'u32', value: -1 },
          { type: 'u32', value: 1.5 },
          { type: 'i32', value: 2 ** 31 },
          { type: 'i64', value: 1 },
          { type: 'i64', value: 2n ** 63n },
          { type: 'u256', value: -1n },
          { type: 'bool', value: 1 },
          { type: 'bytes', value: 'x' },
          { type: 'bytes', value: [1, 2] },
          { type: 'string', value: 5 },
          { type: 'symbol', value: 'x'.repeat(33) },
          { type: 'symbol', value: huge },
          { type: 'symbol' },
          { type: 'vec' },
          { type: 'vec', value: 'x' },
          { type: 'vec', value: [null] },
          { type: 'map' },
          { type: 'map', value: [[{ type: 'void' }]] },
          { type: 'map', value: [null] },
          { type: 'address', value: Object.create(null) },
          { type: 'contractInstance', executable: { type: 'wasm' }, storage: null },
          { type: 'contractInstance', executable: { type: 'stellarAsset' } },
          { type: 'contractInstance', executable: null, storage: null },
          { type: 'error', errorType: 99, code: 0 },
          { type: 'ledgerKeyNonce' },
        ],
      ],
    ],
  },
  {
    name: 'encodeScAddress',
    call: fn('encodeScAddress'),
    valid: [contract],
    bad: [
      [0, NOT_A_MODEL],
      [
        0,
        [
          { type: 'account' },
          { type: 'account', accountId: id(1).subarray(1) },
          { type: 'contract', contractId: 'x'.repeat(32) },
        ],
      ],
      [
        0,
        [
          { type: 'muxedAccount', id: 1, ed25519: id(1) },
          { type: 'muxedAccount', id: 1n },
          { type: 'claimableBalance' },
        ],
      ],
    ],
  },
  {
    name: 'encodeLedgerKey',
    call: fn('encodeLedgerKey'),
    valid: [keyModel],
    bad: [
      [0, NOT_A_MODEL],
      [
        0,
        [
          { type: 'account' },
          { type: 'trustline', accountId: id(1) },
          { type: 'trustline', accountId: id(1), asset: null },
          { type: 'trustline', accountId: id(1), asset: { type: 'alphanum4', code: 'TOOLONG', issuer } },
          { type: 'trustline', accountId: id(1), asset: { type: 'alphanum12', code: 'x'.repeat(1 << 20), issuer } },
          { type: 'offer', sellerId: id(1), offerId: 1 },
          { type: 'data', accountId: id(1), dataName: 'x'.repeat(65) },
          { type: 'data', accountId: id(1) },
          withField(keyModel, 'key', null),
          withField(keyModel, 'key', Object.create(null)),
          withField(keyModel, 'durability', 'forever'),
          withField(keyModel, 'contract', Object.create(null)),
          { type: 'configSetting', configSettingId: 99 },
          { type: 'configSetting', configSettingId: '1' },
          { type: 'ttl', keyHash: Array.from(id(1)) },
        ],
      ],
    ],
  },
  (() => {
    const accountData = { ...account, v1: { liabilities: { buying: 0n, selling: 0n } } };
    const at = (data: unknown) => ({ lastModifiedLedgerSeq: 1, data });
    return {
      name: 'encodeLedgerEntry',
      call: fn('encodeLedgerEntry'),
      valid: [entryModel],
      bad: [
        [0, NOT_A_MODEL],
        [
          0,
          [
            withField(entryModel, 'lastModifiedLedgerSeq', -1),
            withField(entryModel, 'lastModifiedLedgerSeq', Object.create(null)),
            withField(entryModel, 'data', null),
            withField(entryModel, 'data', Object.create(null)),
            withField(entryModel, 'v1', null),
            withField(entryModel, 'v1', { sponsoringId: 5 }),
            at({ ...account, v1: null }),
            at({ ...account, v1: { liabilities: null } }),
            at(withField(accountData, 'v1.v2', null)),
            at(
              withField(accountData, 'v1.v2', { numSponsored: 0, numSponsoring: 0, signerSponsoringIds: [], v3: null }),
            ),
            at({ ...account, signers: [null] }),
            at({ ...account, signers: 'x' }),
            at({ ...account, signers: [{ key: Object.create(null), weight: 1 }] }),
            at({ ...account, homeDomain: 'x'.repeat(33) }),
            at({ ...account, thresholds: [1, 0, 0, 0] }),
            at({ type: 'trustline', accountId: id(1), asset: { type: 'native' }, v1: null }),
            at({
              type: 'trustline',
              accountId: id(1),
              asset: { type: 'native' },
              v1: { liabilities: { buying: 0n, selling: 0n }, v2: null },
            }),
            at({ type: 'offer', sellerId: id(1), offerId: 1n, price: 5 }),
            at({ type: 'offer', sellerId: id(1), offerId: 1n, price: { n: '1', d: 1 } }),
            at({ type: 'claimableBalance', balanceId: id(1), claimants: [null] }),
            at({ type: 'claimableBalance', balanceId: id(1), claimants: [{ destination: id(1), predicate: null }] }),
            at({ type: 'claimableBalance', balanceId: id(1), v1: null }),
            at({ type: 'contractCode', hash: id(1), code: new Uint8Array(4), costInputs: null }),
            at({ type: 'contractCode', hash: id(1), code: 'x' }),
            at({ type: 'configSetting', configSettingId: 0, body: 'x' }),
            at({ type: 'configSetting', configSettingId: 0, body: new Uint8Array(8) }),
            at({ type: 'ttl', keyHash: id(1), liveUntilLedgerSeq: '5' }),
            at({ ...keyModel, val: undefined }),
          ],
        ],
      ],
    } satisfies EntryPoint;
  })(),
  ...(['encodeBucketEntry', 'encodeHotArchiveBucketEntry'] as const).map(
    (name): EntryPoint => ({
      name,
      call: fn(name),
      valid: [{ type: 'meta', ledgerVersion: 23 }],
      bad: [
        [0, NOT_A_MODEL],
        [
          0,
          [
            { type: 'meta' },
            { type: 'meta', ledgerVersion: -1 },
            { type: 'meta', ledgerVersion: 23, bucketListType: 'x' },
            { type: 'live' },
            { type: 'live', entry: null, key: null },
            { type: 'live', entry: Object.create(null), key: Object.create(null) },
            { type: name === 'encodeBucketEntry' ? 'dead' : 'live', key: new Uint8Array(3) },
            { type: name === 'encodeBucketEntry' ? 'init' : 'archived', entry: withTrailing(entry) },
          ],
        ],
      ],
    }),
  ),
];

describeBadArguments({ errorClass: LedgerKeyError, api, entries: ENTRY_POINTS, defaultCodes: [INVALID_ARGUMENT] });

describe('the bad-argument checker', () => {
  it('4. negative control: the checker catches a leaked TypeError, a wrong code and a call that returns', () => {
    const leaksTypeError = (bytes: unknown) => (bytes as Uint8Array).subarray(0, 1);
    expect(() => expectLedgerKeyError(() => leaksTypeError(null), [INVALID_ARGUMENT], 'leak')).toThrow(/TypeError/);
    expect(() =>
      expectLedgerKeyError(() => namespace.validateLedgerKey(new Uint8Array(0)), [INVALID_ARGUMENT], 'code'),
    ).toThrow(/TRUNCATED/);
    expect(() => expectLedgerKeyError(() => namespace.validateLedgerKey(key), [INVALID_ARGUMENT], 'ok')).toThrow(
      /nothing was thrown/,
    );
  });
});
