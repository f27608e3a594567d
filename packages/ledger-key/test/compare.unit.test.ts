// Unit tests of the ordering rules, one group per row of the README's ordering table (stellar-core's
// LedgerEntryIdCmp, spec §2.3–2.4). Each test lists values in the order the rule demands and checks every pair both
// ways, so a rule implemented backwards, or as plain byte order, fails. The oracle comparison on random values is
// in compare.property.test.ts; these pin the individual rules with readable cases.
import { hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  compareBucketEntries,
  compareBucketEntryKeys,
  compareEntryToKey,
  compareHotArchiveBucketEntries,
  compareHotArchiveBucketEntryKeys,
  compareLedgerEntries,
  compareLedgerKeys,
  encodeBucketEntry,
  encodeHotArchiveBucketEntry,
  encodeLedgerEntry,
  encodeLedgerKey,
  type LedgerKey,
  LedgerKeyError,
  ledgerKeysEqual,
  type ScAddress,
  type ScVal,
} from '../src/index.js';

const fill = (byte: number, length = 32): Uint8Array => new Uint8Array(length).fill(byte);

/** Asserts `ascending` is strictly increasing under `compare`: every pair i < j is -1, j > i is 1, i = i is 0. */
function expectAscending(
  ascending: Uint8Array[],
  compare: (a: Uint8Array, b: Uint8Array) => number = compareLedgerKeys,
): void {
  for (let i = 0; i < ascending.length; i++) {
    expect(compare(ascending[i]!, ascending[i]!), `${i} vs itself`).toBe(0);
    for (let j = i + 1; j < ascending.length; j++) {
      expect(compare(ascending[i]!, ascending[j]!), `${i} < ${j}: ${hex(ascending[i]!)} vs ${hex(ascending[j]!)}`).toBe(
        -1,
      );
      expect(compare(ascending[j]!, ascending[i]!), `${j} > ${i}`).toBe(1);
    }
  }
}

const keys = (...values: LedgerKey[]): Uint8Array[] => values.map(encodeLedgerKey);
const contract: ScAddress = { type: 'contract', contractId: fill(7) };
/** CONTRACT_DATA keys of one contract, persistent, differing only in their SCVal key. */
const scKeys = (...values: ScVal[]): Uint8Array[] =>
  values.map((key) => encodeLedgerKey({ type: 'contractData', contract, key, durability: 'persistent' }));
const sym = (value: string): ScVal => ({ type: 'symbol', value });

describe('LedgerEntryType first', () => {
  it('orders ACCOUNT < TRUSTLINE < ... < TTL regardless of the fields', () => {
    expectAscending(
      keys(
        { type: 'account', accountId: fill(0xff) },
        { type: 'trustline', accountId: fill(0), asset: { type: 'poolShare', liquidityPoolId: fill(0) } },
        { type: 'offer', sellerId: fill(0), offerId: -1n },
        { type: 'data', accountId: fill(0), dataName: '' },
        { type: 'claimableBalance', balanceId: fill(0) },
        { type: 'liquidityPool', liquidityPoolId: fill(0) },
        { type: 'contractData', contract, key: { type: 'void' }, durability: 'temporary' },
        { type: 'contractCode', hash: fill(0) },
        { type: 'configSetting', configSettingId: 0 },
        { type: 'ttl', keyHash: fill(0) },
      ),
    );
  });
});

describe('per-type key fields', () => {
  it('ACCOUNT: the 32 key bytes, unsigned (0x7f.. < 0x80..)', () => {
    expectAscending(keys({ type: 'account', accountId: fill(0x7f) }, { type: 'account', accountId: fill(0x80) }));
  });

  it('TRUSTLINE: account, then asset type (4 < 12 < pool share), then code, then issuer', () => {
    const a4 = (code: string, issuer: number): LedgerKey => ({
      type: 'trustline',
      accountId: fill(1),
      asset: { type: 'alphanum4', code, issuer: fill(issuer) },
    });
    expectAscending(
      keys(
        a4('AAA', 9),
        a4('USD', 1),
        a4('USD', 2),
        a4('USDC', 0),
        { type: 'trustline', accountId: fill(1), asset: { type: 'alphanum12', code: 'AAAAA', issuer: fill(0) } },
        { type: 'trustline', accountId: fill(1), asset: { type: 'poolShare', liquidityPoolId: fill(0) } },
        { type: 'trustline', accountId: fill(2), asset: { type: 'alphanum4', code: 'A', issuer: fill(0) } },
      ),
    );
  });

  it('OFFER: seller, then offerID as a signed int64', () => {
    const offer = (offerId: bigint, seller = 1): LedgerKey => ({ type: 'offer', sellerId: fill(seller), offerId });
    expectAscending(
      keys(
        offer(-(2n ** 63n)),
        offer(-1n),
        offer(0n),
        offer(1n),
        offer(2n ** 32n),
        offer(2n ** 63n - 1n),
        offer(-5n, 2),
      ),
    );
  });

  it('DATA: account, then dataName by content (unsigned, shorter prefix first), not by length', () => {
    const data = (dataName: string | Uint8Array): LedgerKey => ({ type: 'data', accountId: fill(1), dataName });
    expectAscending(keys(data(''), data('a'), data('ab'), data('abc'), data('b'), data(Uint8Array.of(0x80))));
  });

  it('CLAIMABLE_BALANCE, LIQUIDITY_POOL, CONTRACT_CODE, TTL: 32-byte hash, unsigned', () => {
    expectAscending(
      keys({ type: 'claimableBalance', balanceId: fill(1) }, { type: 'claimableBalance', balanceId: fill(0xf0) }),
    );
    expectAscending(
      keys({ type: 'liquidityPool', liquidityPoolId: fill(1) }, { type: 'liquidityPool', liquidityPoolId: fill(0xf0) }),
    );
    const hash = Uint8Array.from(fill(0));
    hash[31] = 1;
    expectAscending(
      keys(
        { type: 'contractCode', hash: fill(0) },
        { type: 'contractCode', hash },
        { type: 'contractCode', hash: fill(0xff) },
      ),
    );
    expectAscending(keys({ type: 'ttl', keyHash: fill(0) }, { type: 'ttl', keyHash: fill(0x80) }));
  });

  it('CONFIG_SETTING: ConfigSettingID numerically', () => {
    expectAscending(
      keys(...[0, 1, 2, 9, 10, 16, 17, 20].map((id) => ({ type: 'configSetting', configSettingId: id }) as const)),
    );
  });

  it('CONTRACT_DATA: contract first, then key, then durability (TEMPORARY < PERSISTENT)', () => {
    const cd = (contractByte: number, key: ScVal, durability: 'temporary' | 'persistent'): LedgerKey => ({
      type: 'contractData',
      contract: { type: 'contract', contractId: fill(contractByte) },
      key,
      durability,
    });
    expectAscending(
      keys(
        cd(1, sym('z'), 'persistent'),
        cd(2, sym('a'), 'persistent'),
        cd(2, sym('b'), 'temporary'),
        cd(2, sym('b'), 'persistent'),
      ),
    );
  });

  it('SCAddress: type (ACCOUNT < CONTRACT < MUXED < CLAIMABLE_BALANCE < POOL), then the arm; MUXED by id first', () => {
    const at = (address: ScAddress): Uint8Array =>
      encodeLedgerKey({ type: 'contractData', contract: address, key: { type: 'void' }, durability: 'persistent' });
    expectAscending([
      at({ type: 'account', accountId: fill(0xff) }),
      at({ type: 'contract', contractId: fill(0) }),
      at({ type: 'contract', contractId: fill(1) }),
      at({ type: 'muxedAccount', id: 1n, ed25519: fill(0xff) }),
      at({ type: 'muxedAccount', id: 2n, ed25519: fill(0) }),
      at({ type: 'muxedAccount', id: 2n ** 63n, ed25519: fill(0) }), // uint64: no sign
      at({ type: 'claimableBalance', balanceId: fill(0) }),
      at({ type: 'liquidityPool', liquidityPoolId: fill(0) }),
    ]);
  });
});

describe('SCVal, arm by arm', () => {
  it('orders by SCValType first', () => {
    expectAscending(
      scKeys(
        { type: 'bool', value: true },
        { type: 'void' },
        { type: 'error', errorType: 0, code: 0 },
        { type: 'u32', value: 0 },
        { type: 'i32', value: -1 },
        { type: 'u64', value: 0n },
        { type: 'i64', value: -1n },
        { type: 'timepoint', value: 0n },
        { type: 'duration', value: 0n },
        { type: 'u128', value: 0n },
        { type: 'i128', value: -1n },
        { type: 'u256', value: 0n },
        { type: 'i256', value: -1n },
        { type: 'bytes', value: fill(0xff, 40) },
        { type: 'string', value: '' },
        sym(''),
        { type: 'vec', value: null },
        { type: 'map', value: null },
        { type: 'address', value: contract },
        { type: 'contractInstance', executable: { type: 'stellarAsset' }, storage: null },
        { type: 'ledgerKeyContractInstance' },
        { type: 'ledgerKeyNonce', nonce: -1n },
      ),
    );
  });

  it('BOOL false < true; VOID and LEDGER_KEY_CONTRACT_INSTANCE are single values', () => {
    expectAscending(scKeys({ type: 'bool', value: false }, { type: 'bool', value: true }));
    expect(compareLedgerKeys(scKeys({ type: 'void' })[0]!, scKeys({ type: 'void' })[0]!)).toBe(0);
  });

  it('ERROR: error type, then contract code / error code', () => {
    expectAscending(
      scKeys(
        { type: 'error', errorType: 0, code: 1 },
        { type: 'error', errorType: 0, code: 0xffff_ffff },
        { type: 'error', errorType: 1, code: 0 },
        { type: 'error', errorType: 1, code: 9 },
        { type: 'error', errorType: 9, code: 0 },
      ),
    );
  });

  it('unsigned integers (U32, U64, TIMEPOINT, DURATION, U128, U256) numerically', () => {
    expectAscending(
      scKeys({ type: 'u32', value: 1 }, { type: 'u32', value: 2 ** 31 }, { type: 'u32', value: 2 ** 32 - 1 }),
    );
    expectAscending(
      scKeys({ type: 'u64', value: 1n }, { type: 'u64', value: 2n ** 63n }, { type: 'u64', value: 2n ** 64n - 1n }),
    );
    expectAscending(scKeys({ type: 'timepoint', value: 5n }, { type: 'timepoint', value: 2n ** 63n }));
    expectAscending(scKeys({ type: 'duration', value: 5n }, { type: 'duration', value: 2n ** 63n }));
    expectAscending(
      scKeys(
        { type: 'u128', value: 2n ** 64n - 1n },
        { type: 'u128', value: 2n ** 64n },
        { type: 'u128', value: 2n ** 128n - 1n },
      ),
    );
    expectAscending(
      scKeys(
        { type: 'u256', value: 2n ** 192n - 1n },
        { type: 'u256', value: 2n ** 192n },
        { type: 'u256', value: 2n ** 255n },
      ),
    );
  });

  it('signed integers (I32, I64, I128, I256, NONCE) numerically: negative before positive', () => {
    expectAscending(
      scKeys(
        { type: 'i32', value: -(2 ** 31) },
        { type: 'i32', value: -1 },
        { type: 'i32', value: 0 },
        { type: 'i32', value: 1 },
      ),
    );
    expectAscending(
      scKeys(
        { type: 'i64', value: -(2n ** 63n) },
        { type: 'i64', value: -1n },
        { type: 'i64', value: 1n },
        { type: 'i64', value: 2n ** 63n - 1n },
      ),
    );
    expectAscending(
      scKeys(
        { type: 'i128', value: -(2n ** 127n) },
        { type: 'i128', value: -(2n ** 64n) },
        { type: 'i128', value: -1n },
        { type: 'i128', value: 0n },
        { type: 'i128', value: 2n ** 64n - 1n },
        { type: 'i128', value: 2n ** 64n },
      ),
    );
    expectAscending(
      scKeys({ type: 'i256', value: -(2n ** 255n) }, { type: 'i256', value: -1n }, { type: 'i256', value: 2n ** 192n }),
    );
    expectAscending(scKeys({ type: 'ledgerKeyNonce', nonce: -2n }, { type: 'ledgerKeyNonce', nonce: 3n }));
  });

  it('BYTES, STRING, SYMBOL: content unsigned, shorter prefix first (spec §2.5 case 3: "Allowance" < "Balance")', () => {
    expectAscending(scKeys(sym(''), sym('Allowance'), sym('Balance'), sym('BalanceOf'), sym('b')));
    expectAscending(
      scKeys({ type: 'string', value: 'a' }, { type: 'string', value: 'a\0' }, { type: 'string', value: 'aa' }),
    );
    expectAscending(
      scKeys(
        { type: 'bytes', value: Uint8Array.of() },
        { type: 'bytes', value: Uint8Array.of(0) },
        { type: 'bytes', value: Uint8Array.of(0, 0, 0, 0, 0) },
        { type: 'bytes', value: Uint8Array.of(1) },
        { type: 'bytes', value: Uint8Array.of(0xff) },
      ),
    );
  });

  it('VEC: absent < present, then element-wise, then shorter first (spec §2.5 case 4)', () => {
    const u32 = (value: number): ScVal => ({ type: 'u32', value });
    expectAscending(
      scKeys(
        { type: 'vec', value: null },
        { type: 'vec', value: [] },
        { type: 'vec', value: [sym('a')] },
        { type: 'vec', value: [sym('a'), u32(1)] },
        { type: 'vec', value: [sym('a'), u32(2)] },
        { type: 'vec', value: [sym('b')] },
        { type: 'vec', value: [{ type: 'vec', value: [sym('a')] }] },
      ),
    );
  });

  it('MAP: absent < present, then entries by key then value, then shorter first', () => {
    const entry = (key: string, value: number): [ScVal, ScVal] => [sym(key), { type: 'u32', value }];
    expectAscending(
      scKeys(
        { type: 'map', value: null },
        { type: 'map', value: [] },
        { type: 'map', value: [entry('a', 1)] },
        { type: 'map', value: [entry('a', 1), entry('b', 0)] },
        { type: 'map', value: [entry('a', 2)] },
        { type: 'map', value: [entry('b', 0)] },
      ),
    );
  });

  it('ADDRESS: as SCAddress', () => {
    expectAscending(
      scKeys(
        { type: 'address', value: { type: 'account', accountId: fill(9) } },
        { type: 'address', value: { type: 'contract', contractId: fill(1) } },
        { type: 'address', value: { type: 'muxedAccount', id: 0n, ed25519: fill(0xff) } },
      ),
    );
  });

  it('CONTRACT_INSTANCE: executable (WASM by hash < STELLAR_ASSET), then storage (absent < present)', () => {
    expectAscending(
      scKeys(
        { type: 'contractInstance', executable: { type: 'wasm', wasmHash: fill(1) }, storage: [[sym('z'), sym('z')]] },
        { type: 'contractInstance', executable: { type: 'wasm', wasmHash: fill(2) }, storage: null },
        { type: 'contractInstance', executable: { type: 'wasm', wasmHash: fill(2) }, storage: [] },
        {
          type: 'contractInstance',
          executable: { type: 'wasm', wasmHash: fill(2) },
          storage: [[sym('a'), { type: 'void' }]],
        },
        { type: 'contractInstance', executable: { type: 'stellarAsset' }, storage: null },
      ),
    );
  });
});

describe('entries, bucket entries and equality', () => {
  const key = (byte: number): LedgerKey => ({
    type: 'contractData',
    contract,
    key: { type: 'bytes', value: fill(byte, 3) },
    durability: 'persistent',
  });
  const entry = (byte: number, val: ScVal, lastModifiedLedgerSeq = 1): Uint8Array => {
    const k = key(byte) as Extract<LedgerKey, { type: 'contractData' }>;
    return encodeLedgerEntry({ lastModifiedLedgerSeq, data: { ...k, val } });
  };

  it('orders entries by key only (value, lastModified and ext are ignored)', () => {
    expect(compareLedgerEntries(entry(1, { type: 'u32', value: 9 }, 100), entry(1, { type: 'void' }, 1))).toBe(0);
    expect(compareLedgerEntries(entry(1, { type: 'u32', value: 9 }), entry(2, { type: 'void' }))).toBe(-1);
    expect(compareEntryToKey(entry(2, { type: 'void' }), encodeLedgerKey(key(1)))).toBe(1);
    expect(compareEntryToKey(entry(2, { type: 'void' }), encodeLedgerKey(key(2)))).toBe(0);
    // An entry whose fields precede the key (CONTRACT_CODE ext v1) still compares by its key.
    const code = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: {
        type: 'contractCode',
        hash: fill(5),
        code: Uint8Array.of(1),
        costInputs: {
          nInstructions: 9,
          nFunctions: 9,
          nGlobals: 9,
          nTableEntries: 9,
          nTypes: 9,
          nDataSegments: 9,
          nElemSegments: 9,
          nImports: 9,
          nExports: 9,
          nDataSegmentBytes: 9,
        },
      },
    });
    expect(compareEntryToKey(code, encodeLedgerKey({ type: 'contractCode', hash: fill(5) }))).toBe(0);
    expect(compareEntryToKey(code, encodeLedgerKey({ type: 'contractCode', hash: fill(6) }))).toBe(-1);
  });

  it('bucket entries: METAENTRY first, INIT/LIVE/DEAD of one key equal, otherwise by key', () => {
    const meta = encodeBucketEntry({ type: 'meta', ledgerVersion: 23 });
    const live1 = encodeBucketEntry({ type: 'live', entry: entry(1, { type: 'void' }) });
    const init1 = encodeBucketEntry({ type: 'init', entry: entry(1, { type: 'u32', value: 1 }) });
    const dead1 = encodeBucketEntry({ type: 'dead', key: key(1) });
    const dead2 = encodeBucketEntry({ type: 'dead', key: key(2) });
    const init3 = encodeBucketEntry({ type: 'init', entry: entry(3, { type: 'void' }) });
    expectAscending([meta, live1, dead2, init3], compareBucketEntries);
    expect(compareBucketEntries(live1, init1)).toBe(0);
    expect(compareBucketEntries(dead1, init1)).toBe(0);
    expect(
      compareBucketEntries(meta, encodeBucketEntry({ type: 'meta', ledgerVersion: 11, bucketListType: 'live' })),
    ).toBe(0);
  });

  it('compareBucketEntryKeys: the same order reading only the keys (a corrupt body after the key goes unread)', () => {
    const live1 = encodeBucketEntry({ type: 'live', entry: entry(1, { type: 'void' }) });
    const dead1 = encodeBucketEntry({ type: 'dead', key: key(1) });
    const init3 = encodeBucketEntry({ type: 'init', entry: entry(3, { type: 'u32', value: 7 }) });
    expectAscending([live1, init3], compareBucketEntryKeys);
    expect(compareBucketEntryKeys(live1, dead1)).toBe(0);
    // Truncating the value leaves the key intact: the checked comparator rejects it, the key-only one does not.
    const cut = init3.subarray(0, init3.length - 8);
    expect(() => compareBucketEntries(live1, cut)).toThrow(LedgerKeyError);
    expect(compareBucketEntryKeys(live1, cut)).toBe(-1);
    // Keys themselves are still checked.
    expect(() => compareBucketEntryKeys(live1, dead1.subarray(0, 12))).toThrow(LedgerKeyError);
    const hotArchived = encodeHotArchiveBucketEntry({ type: 'archived', entry: entry(1, { type: 'void' }) });
    const hotLive = encodeHotArchiveBucketEntry({ type: 'live', key: key(1) });
    expect(compareHotArchiveBucketEntryKeys(hotArchived, hotLive)).toBe(0);
  });

  it('hot-archive entries: METAENTRY first, ARCHIVED and LIVE of one key equal', () => {
    const meta = encodeHotArchiveBucketEntry({ type: 'meta', ledgerVersion: 23 });
    const archived1 = encodeHotArchiveBucketEntry({ type: 'archived', entry: entry(1, { type: 'void' }) });
    const live1 = encodeHotArchiveBucketEntry({ type: 'live', key: key(1) });
    const live2 = encodeHotArchiveBucketEntry({ type: 'live', key: key(2) });
    expectAscending([meta, archived1, live2], compareHotArchiveBucketEntries);
    expect(compareHotArchiveBucketEntries(archived1, live1)).toBe(0);
  });

  it('ledgerKeysEqual is structural equality, which is byte equality for valid XDR', () => {
    const [a, b] = scKeys(sym('x'), sym('y'));
    expect(ledgerKeysEqual(a!, Uint8Array.from(a!))).toBe(true);
    expect(ledgerKeysEqual(a!, b!)).toBe(false);
  });

  it('reads keys that are subarrays at odd byte offsets', () => {
    const [a, b] = scKeys({ type: 'i64', value: -1n }, { type: 'i64', value: 1n });
    const buffer = new Uint8Array(1 + a!.length + b!.length);
    buffer.set(a!, 1);
    buffer.set(b!, 1 + a!.length);
    const left = buffer.subarray(1, 1 + a!.length);
    const right = buffer.subarray(1 + a!.length);
    expect(compareLedgerKeys(left, right)).toBe(-1);
    expect(compareLedgerKeys(right, left)).toBe(1);
  });

  it('a sort with compareLedgerKeys differs from a sort of the raw bytes (negative control)', () => {
    const list = scKeys(sym('Balance'), sym('Allowance'), { type: 'i64', value: 1n }, { type: 'i64', value: -1n });
    const structural = [...list].sort(compareLedgerKeys).map(hex);
    const bytewise = [...list].sort((x, y) => Buffer.compare(x, y)).map(hex);
    expect(structural).not.toEqual(bytewise);
  });
});
