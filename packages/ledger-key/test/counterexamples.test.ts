// The spec's counterexamples (§2.5) where stellar-core's structural key order and the order of the raw XDR bytes
// disagree, one named test each, plus the other rules that are easy to get wrong (absent vs empty vec, muxed id
// before key, TEMPORARY before PERSISTENT, negative offer ids). Each test asserts the engine and the oracle give
// the structural order and, where the bytes disagree, that the bytes really do say the opposite: so a
// byte-compare implementation fails here.
import { xdr } from '@stellar/stellar-base';
import { describe, expect, it } from 'vitest';
import { compareBucketEntries, compareLedgerKeys } from '../src/index.js';
import { oracleCompareBucketEntries, oracleCompareLedgerKeys, signOf } from './oracle.js';

const account = xdr.PublicKey.publicKeyTypeEd25519(Buffer.alloc(32, 0x42));
const contract = xdr.ScAddress.scAddressTypeContract(Buffer.alloc(32, 0x07) as unknown as xdr.Hash);

const bytesOf = (value: { toXDR(format?: 'raw'): Buffer }): Uint8Array => new Uint8Array(value.toXDR());

function dataKey(name: string): Uint8Array {
  return bytesOf(xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId: account, dataName: name })));
}

function contractDataKey(
  key: xdr.ScVal,
  durability = xdr.ContractDataDurability.persistent(),
  address: xdr.ScAddress = contract,
): Uint8Array {
  return bytesOf(xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract: address, key, durability })));
}

function offerKey(offerId: bigint): Uint8Array {
  return bytesOf(xdr.LedgerKey.offer(new xdr.LedgerKeyOffer({ sellerId: account, offerId: new xdr.Int64(offerId) })));
}

const i128 = (hi: bigint, lo: bigint): xdr.ScVal =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: new xdr.Int64(hi), lo: new xdr.Uint64(lo) }));

/** `smaller` sorts first structurally, by the engine and by the oracle, in both argument orders. */
function expectStructurallyBefore(smaller: Uint8Array, larger: Uint8Array): void {
  expect(signOf(compareLedgerKeys(smaller, larger))).toBe(-1);
  expect(signOf(compareLedgerKeys(larger, smaller))).toBe(1);
  expect(oracleCompareLedgerKeys(smaller, larger)).toBe(-1);
  expect(oracleCompareLedgerKeys(larger, smaller)).toBe(1);
}

/** ...and the raw XDR bytes put them the other way round. */
function expectBytesDisagree(smaller: Uint8Array, larger: Uint8Array): void {
  expect(Buffer.compare(smaller, larger)).toBe(1);
}

describe('spec §2.5 counterexamples: structural order is not XDR byte order', () => {
  it('1. DATA names "ab" < "b" (bytes: length 1 < 2 puts "b" first)', () => {
    const ab = dataKey('ab');
    const b = dataKey('b');
    expectStructurallyBefore(ab, b);
    expectBytesDisagree(ab, b);
  });

  it('2. CONTRACT_DATA key I64(-1) < I64(1) (bytes: 0xFF.. sorts after 0x00..)', () => {
    const minusOne = contractDataKey(xdr.ScVal.scvI64(new xdr.Int64(-1n)));
    const one = contractDataKey(xdr.ScVal.scvI64(new xdr.Int64(1n)));
    expectStructurallyBefore(minusOne, one);
    expectBytesDisagree(minusOne, one);
  });

  it('3. Symbol "Allowance" < "Balance" (bytes: length 7 < 9 puts "Balance" first)', () => {
    const allowance = contractDataKey(xdr.ScVal.scvSymbol('Allowance'));
    const balance = contractDataKey(xdr.ScVal.scvSymbol('Balance'));
    expectStructurallyBefore(allowance, balance);
    expectBytesDisagree(allowance, balance);
  });

  it('4. Vec [Symbol "a", U32 1] < [Symbol "b"] (bytes: vector length 1 < 2 first)', () => {
    const twoElements = contractDataKey(xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('a'), xdr.ScVal.scvU32(1)]));
    const oneElement = contractDataKey(xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('b')]));
    expectStructurallyBefore(twoElements, oneElement);
    expectBytesDisagree(twoElements, oneElement);
  });

  it('5. I128 with hi -1 < hi 0 (bytes: 0xFF.. sorts after 0x00..)', () => {
    const negative = contractDataKey(i128(-1n, 0n));
    const zero = contractDataKey(i128(0n, 0n));
    expectStructurallyBefore(negative, zero);
    expectBytesDisagree(negative, zero);
    // The low limb is unsigned: hi 0 / lo 2^63 is above hi 0 / lo 1 (and is numerically 2^63).
    expectStructurallyBefore(contractDataKey(i128(0n, 1n)), contractDataKey(i128(0n, 2n ** 63n)));
  });

  it('6. METAENTRY (-1) sorts before LIVE, INIT and DEAD entries (bytes: 0xFFFFFFFF sorts last)', () => {
    const meta = bytesOf(
      xdr.BucketEntry.metaentry(new xdr.BucketMetadata({ ledgerVersion: 23, ext: new xdr.BucketMetadataExt(0) })),
    );
    const key = xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: Buffer.alloc(32, 0) }));
    const entry = new xdr.LedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: xdr.LedgerEntryData.ttl(new xdr.TtlEntry({ keyHash: Buffer.alloc(32, 0), liveUntilLedgerSeq: 9 })),
      ext: new xdr.LedgerEntryExt(0),
    });
    const others = [
      bytesOf(xdr.BucketEntry.liveentry(entry)),
      bytesOf(xdr.BucketEntry.initentry(entry)),
      bytesOf(xdr.BucketEntry.deadentry(key)),
    ];
    for (const other of others) {
      expect(signOf(compareBucketEntries(meta, other))).toBe(-1);
      expect(signOf(compareBucketEntries(other, meta))).toBe(1);
      expect(oracleCompareBucketEntries(meta, other)).toBe(-1);
      expectBytesDisagree(meta, other);
    }
    expect(compareBucketEntries(meta, meta)).toBe(0);
    // INIT, LIVE and DEAD of one key are equal: the entry kind is not part of the order.
    for (const a of others) for (const b of others) expect(compareBucketEntries(a, b)).toBe(0);
  });
});

describe('other rules of the order', () => {
  it('an absent vec sorts before an empty vec (absent is not empty)', () => {
    const absent = contractDataKey(xdr.ScVal.scvVec(null));
    const empty = contractDataKey(xdr.ScVal.scvVec([]));
    expectStructurallyBefore(absent, empty);
    expect(compareLedgerKeys(absent, empty)).not.toBe(0);
    // The same for maps.
    expectStructurallyBefore(contractDataKey(xdr.ScVal.scvMap(null)), contractDataKey(xdr.ScVal.scvMap([])));
  });

  it('a muxed account address compares its id before its ed25519 key', () => {
    const muxed = (id: bigint, keyByte: number): xdr.ScAddress =>
      xdr.ScAddress.scAddressTypeMuxedAccount(
        new xdr.MuxedEd25519Account({ id: new xdr.Uint64(id), ed25519: Buffer.alloc(32, keyByte) }),
      );
    const key = xdr.ScVal.scvSymbol('Balance');
    const persistent = xdr.ContractDataDurability.persistent();
    // Smaller id with a larger key still sorts first: the id decides.
    expectStructurallyBefore(
      contractDataKey(key, persistent, muxed(1n, 0xff)),
      contractDataKey(key, persistent, muxed(2n, 0x00)),
    );
    // The id is unsigned: 2^63 is above 1.
    expectStructurallyBefore(
      contractDataKey(key, persistent, muxed(1n, 0x00)),
      contractDataKey(key, persistent, muxed(2n ** 63n, 0x00)),
    );
    // Equal ids: the key decides.
    expectStructurallyBefore(
      contractDataKey(key, persistent, muxed(5n, 0x01)),
      contractDataKey(key, persistent, muxed(5n, 0x02)),
    );
    // Inside an SCVal address too.
    expectStructurallyBefore(
      contractDataKey(xdr.ScVal.scvAddress(muxed(1n, 0xff))),
      contractDataKey(xdr.ScVal.scvAddress(muxed(2n, 0x00))),
    );
  });

  it('TEMPORARY sorts before PERSISTENT and the two are adjacent', () => {
    const temporary = xdr.ContractDataDurability.temporary();
    const persistent = xdr.ContractDataDurability.persistent();
    const symbols = ['a', 'ab', 'b', 'Balance', 'Allowance'];
    const keys = symbols.flatMap((symbol) => [
      contractDataKey(xdr.ScVal.scvSymbol(symbol), persistent),
      contractDataKey(xdr.ScVal.scvSymbol(symbol), temporary),
    ]);
    const sorted = [...keys].sort(compareLedgerKeys);
    for (const symbol of symbols) {
      const tempKey = contractDataKey(xdr.ScVal.scvSymbol(symbol), temporary);
      const persistentKey = contractDataKey(xdr.ScVal.scvSymbol(symbol), persistent);
      expectStructurallyBefore(tempKey, persistentKey);
      const at = sorted.findIndex((key) => Buffer.compare(key, tempKey) === 0);
      expect(Buffer.compare(sorted[at + 1] as Uint8Array, persistentKey)).toBe(0);
    }
    expect(sorted.map((key) => Buffer.from(key).toString('hex'))).toEqual(
      [...keys].sort(oracleCompareLedgerKeys).map((key) => Buffer.from(key).toString('hex')),
    );
  });

  it('offer ids are signed: -1 < 1 and INT64_MIN is first', () => {
    expectStructurallyBefore(offerKey(-1n), offerKey(1n));
    expectBytesDisagree(offerKey(-1n), offerKey(1n));
    expectStructurallyBefore(offerKey(-(2n ** 63n)), offerKey(0n));
    expectStructurallyBefore(offerKey(2n ** 63n - 2n), offerKey(2n ** 63n - 1n));
  });
});
