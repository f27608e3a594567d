// Malformed input: each error code is produced by the malformation it names, at the byte offset and field where the
// problem is, by every entry point (validate*, read*, compare*, ledgerKeyOfEntry, ttlKeyOf); hostile lengths and
// nesting fail fast with a LedgerKeyError (never a RangeError, a hang or a huge allocation).
import { errorOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  compareBucketEntries,
  compareEntryToKey,
  compareHotArchiveBucketEntries,
  compareLedgerEntries,
  compareLedgerKeys,
  encodeBucketEntry,
  encodeHotArchiveBucketEntry,
  encodeLedgerEntry,
  encodeLedgerKey,
  encodeScVal,
  LedgerKeyError,
  LedgerKeyErrorCode,
  ledgerKeyOfEntry,
  MAX_CLAIM_PREDICATE_DEPTH,
  MAX_SCVAL_DEPTH,
  readLedgerEntry,
  readLedgerKey,
  readScVal,
  ttlKeyOf,
  validateBucketEntry,
  validateHotArchiveBucketEntry,
  validateLedgerEntry,
  validateLedgerKey,
  validateScVal,
} from '../src/index.js';

const fill = (byte: number, length = 32): Uint8Array => new Uint8Array(length).fill(byte);

function expectError(run: () => unknown, code: LedgerKeyErrorCode, offset?: number, field?: string): LedgerKeyError {
  const error = errorOf(LedgerKeyError, run);
  expect(error.code, error.message).toBe(code);
  if (offset !== undefined) expect(error.offset, error.message).toBe(offset);
  if (field !== undefined) expect(error.field, error.message).toContain(field);
  return error;
}

/** A copy of `bytes` with the big-endian word at `offset` replaced. */
function patchWord(bytes: Uint8Array, offset: number, value: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  new DataView(out.buffer).setUint32(offset, value >>> 0);
  return out;
}

// CONTRACT_DATA key, contract address, SCV_SYMBOL "abc": type@0 addrType@4 id@8 scvType@40 len@44 'abc'@48 pad@51
// durability@52, 56 bytes.
const symbolKey = encodeLedgerKey({
  type: 'contractData',
  contract: { type: 'contract', contractId: fill(7) },
  key: { type: 'symbol', value: 'abc' },
  durability: 'persistent',
});
const vecKey = encodeLedgerKey({
  type: 'contractData',
  contract: { type: 'account', accountId: fill(1) },
  key: {
    type: 'vec',
    value: [
      { type: 'symbol', value: 'Balance' },
      { type: 'address', value: { type: 'contract', contractId: fill(2) } },
    ],
  },
  durability: 'temporary',
});
const accountKey = encodeLedgerKey({ type: 'account', accountId: fill(3) });

/** `levels` nested SCV_VECs of one element around an SCV_VOID; the void sits at nesting level `levels + 1`. */
function nestedVec(levels: number): Uint8Array {
  const out = new Uint8Array(levels * 12 + 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < levels; i++) {
    view.setUint32(i * 12, 16); // SCV_VEC
    view.setUint32(i * 12 + 4, 1); // present
    view.setUint32(i * 12 + 8, 1); // one element
  }
  view.setUint32(levels * 12, 1); // SCV_VOID
  return out;
}

/** A CONTRACT_DATA key whose SCVal is `scVal` (raw bytes). */
function keyWithScVal(scVal: Uint8Array): Uint8Array {
  const head = symbolKey.subarray(0, 40);
  const out = new Uint8Array(40 + scVal.length + 4);
  out.set(head, 0);
  out.set(scVal, 40);
  out.set([0, 0, 0, 1], 40 + scVal.length);
  return out;
}

describe('LedgerKeyError', () => {
  it('carries code, offset and field, and says them in the message', () => {
    const error = expectError(
      () => validateLedgerKey(patchWord(symbolKey, 0, 10)),
      'BAD_DISCRIMINANT',
      0,
      'LedgerKey.type',
    );
    expect(error.name).toBe('LedgerKeyError');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('BAD_DISCRIMINANT');
    expect(error.message).toContain('LedgerKey.type');
    expect(error.message).toContain('offset 0');
  });

  it('exposes stable codes', () => {
    expect(Object.values(LedgerKeyErrorCode).sort()).toEqual([
      'BAD_BOOL',
      'BAD_DISCRIMINANT',
      'BAD_PADDING',
      'INVALID_ARGUMENT',
      'NOT_SOROBAN_KEY',
      'TOO_DEEP',
      'TOO_LONG',
      'TRAILING_BYTES',
      'TRUNCATED',
    ]);
  });
});

describe('TRUNCATED', () => {
  it('every strict prefix of a key or entry is TRUNCATED at an offset inside the prefix', () => {
    const entry = encodeLedgerEntry({
      lastModifiedLedgerSeq: 9,
      data: {
        type: 'account',
        accountId: fill(1),
        homeDomain: 'x.org',
        signers: [{ key: { type: 'ed25519', key: fill(2) }, weight: 1 }],
        v1: {
          liabilities: { buying: 1n, selling: 2n },
          v2: { numSponsored: 0, numSponsoring: 0, signerSponsoringIds: [null] },
        },
      },
      v1: { sponsoringId: fill(3) },
    });
    for (const [bytes, validate] of [
      [vecKey, validateLedgerKey],
      [symbolKey, validateLedgerKey],
      [entry, validateLedgerEntry],
    ] as const) {
      for (let length = 0; length < bytes.length; length++) {
        const error = expectError(() => validate(bytes.subarray(0, length)), 'TRUNCATED');
        expect(error.offset).toBeLessThanOrEqual(length);
        expect(error.field).toBeDefined();
      }
    }
  });

  it('a hostile element count or length fails before any loop or allocation', () => {
    // vec present, count 0xffffffff, then nothing: the count cannot fit in the remaining bytes.
    const hugeVec = keyWithScVal(Uint8Array.of(0, 0, 0, 16, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff));
    expectError(() => validateLedgerKey(hugeVec), 'TRUNCATED', 48, 'SCVal.vec');
    expectError(() => compareLedgerKeys(hugeVec, symbolKey), 'TRUNCATED', 48);
    const hugeBytes = keyWithScVal(Uint8Array.of(0, 0, 0, 13, 0xff, 0xff, 0xff, 0xf0));
    expectError(() => readLedgerKey(hugeBytes), 'TRUNCATED', 48, 'SCVal.bytes');
  });
});

describe('BAD_DISCRIMINANT', () => {
  it('names the union whose discriminant is unknown', () => {
    expectError(() => validateLedgerKey(patchWord(symbolKey, 0, -1)), 'BAD_DISCRIMINANT', 0, 'LedgerKey.type');
    expectError(() => validateLedgerKey(patchWord(symbolKey, 4, 5)), 'BAD_DISCRIMINANT', 4, 'contractData.contract');
    expectError(() => validateLedgerKey(patchWord(symbolKey, 40, 22)), 'BAD_DISCRIMINANT', 40, 'SCVal.type');
    expectError(() => validateLedgerKey(patchWord(symbolKey, 52, 2)), 'BAD_DISCRIMINANT', 52, 'durability');
    expectError(() => validateLedgerKey(patchWord(accountKey, 4, 1)), 'BAD_DISCRIMINANT', 4, 'accountID');
    const config = encodeLedgerKey({ type: 'configSetting', configSettingId: 20 });
    expectError(() => validateLedgerKey(patchWord(config, 4, 21)), 'BAD_DISCRIMINANT', 4, 'configSettingID');
    const error = encodeScVal({ type: 'error', errorType: 1, code: 9 });
    expectError(() => validateScVal(patchWord(error, 8, 10)), 'BAD_DISCRIMINANT', 8, 'SCError.code');
    expectError(() => validateScVal(patchWord(error, 4, 10)), 'BAD_DISCRIMINANT', 4, 'SCError.type');
    const instance = encodeScVal({ type: 'contractInstance', executable: { type: 'stellarAsset' }, storage: null });
    expectError(() => validateScVal(patchWord(instance, 4, 2)), 'BAD_DISCRIMINANT', 4, 'executable');
  });

  it('in entries and bucket entries', () => {
    const ttl = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 2 },
    });
    expectError(
      () => validateLedgerEntry(patchWord(ttl, ttl.length - 4, 2)),
      'BAD_DISCRIMINANT',
      ttl.length - 4,
      'LedgerEntry.ext',
    );
    const cd = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: {
        type: 'contractData',
        contract: { type: 'contract', contractId: fill(1) },
        key: { type: 'void' },
        durability: 'temporary',
        val: { type: 'void' },
      },
    });
    expectError(() => ledgerKeyOfEntry(patchWord(cd, 8, 1)), 'BAD_DISCRIMINANT', 8, 'ContractDataEntry.ext');
    const dead = encodeBucketEntry({ type: 'dead', key: accountKey });
    expectError(() => validateBucketEntry(patchWord(dead, 0, 3)), 'BAD_DISCRIMINANT', 0, 'BucketEntry.type');
    const meta = encodeBucketEntry({ type: 'meta', ledgerVersion: 23, bucketListType: 'live' });
    expectError(() => validateBucketEntry(patchWord(meta, 8, 2)), 'BAD_DISCRIMINANT', 8, 'BucketMetadata.ext');
    expectError(() => validateBucketEntry(patchWord(meta, 12, 2)), 'BAD_DISCRIMINANT', 12, 'bucketListType');
    const hot = encodeHotArchiveBucketEntry({ type: 'live', key: accountKey });
    expectError(
      () => validateHotArchiveBucketEntry(patchWord(hot, 0, 2)),
      'BAD_DISCRIMINANT',
      0,
      'HotArchiveBucketEntry.type',
    );
  });
});

describe('BAD_BOOL, BAD_PADDING, TOO_LONG, TRAILING_BYTES', () => {
  it('BAD_BOOL for a bool or optional flag other than 0/1', () => {
    const bool = keyWithScVal(encodeScVal({ type: 'bool', value: true }));
    expectError(() => validateLedgerKey(patchWord(bool, 44, 2)), 'BAD_BOOL', 44, 'SCVal.b');
    expectError(() => validateLedgerKey(patchWord(vecKey, 48, 2)), 'BAD_BOOL', 48, 'SCVal.vec');
    const account = encodeLedgerEntry({ lastModifiedLedgerSeq: 1, data: { type: 'account', accountId: fill(1) } });
    // lastModified(4) type(4) accountID(36) balance(8) seqNum(8) numSubEntries(4) -> inflationDest flag at 64
    expectError(() => validateLedgerEntry(patchWord(account, 64, 2)), 'BAD_BOOL', 64, 'inflationDest');
  });

  it('BAD_PADDING at the first non-zero padding byte', () => {
    const bad = Uint8Array.from(symbolKey);
    bad[51] = 1;
    expectError(() => validateLedgerKey(bad), 'BAD_PADDING', 51, 'SCVal.sym');
    expectError(() => compareLedgerKeys(symbolKey, bad), 'BAD_PADDING', 51);
  });

  it('TOO_LONG for strings and arrays over their XDR bound', () => {
    expectError(() => validateLedgerKey(patchWord(symbolKey, 44, 33)), 'TOO_LONG', 44, 'SCVal.sym');
    const data = encodeLedgerKey({ type: 'data', accountId: fill(1), dataName: 'n' });
    expectError(() => validateLedgerKey(patchWord(data, 40, 65)), 'TOO_LONG', 40, 'dataName');
    const balance = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: {
        type: 'claimableBalance',
        balanceId: fill(1),
        claimants: [{ destination: fill(2), predicate: { type: 'unconditional' } }],
      },
    });
    // lastModified(4) type(4) balanceID(36) -> claimants count at 44
    expectError(() => validateLedgerEntry(patchWord(balance, 44, 11)), 'TOO_LONG', 44, 'claimants');
  });

  it('TRAILING_BYTES after a complete value, at the offset where it ended', () => {
    const longer = new Uint8Array(symbolKey.length + 4);
    longer.set(symbolKey);
    expectError(() => validateLedgerKey(longer), 'TRAILING_BYTES', symbolKey.length);
    expectError(() => readLedgerKey(longer), 'TRAILING_BYTES', symbolKey.length);
    expectError(() => compareLedgerKeys(symbolKey, longer), 'TRAILING_BYTES', symbolKey.length);
    expectError(() => compareLedgerKeys(longer, accountKey), 'TRAILING_BYTES', symbolKey.length);
    expectError(() => ttlKeyOf(longer), 'TRAILING_BYTES');
    expect(readLedgerKey(longer, 0).byteLength).toBe(symbolKey.length); // with an offset, the rest is the caller's
  });
});

describe('TOO_DEEP', () => {
  it(`accepts SCVal nesting up to MAX_SCVAL_DEPTH (${MAX_SCVAL_DEPTH}) and rejects one level more`, () => {
    validateScVal(nestedVec(MAX_SCVAL_DEPTH - 1));
    validateLedgerKey(keyWithScVal(nestedVec(MAX_SCVAL_DEPTH - 1)));
    expectError(() => validateScVal(nestedVec(MAX_SCVAL_DEPTH)), 'TOO_DEEP', MAX_SCVAL_DEPTH * 12, 'SCVal');
    const deepKey = keyWithScVal(nestedVec(MAX_SCVAL_DEPTH));
    expectError(() => compareLedgerKeys(deepKey, deepKey), 'TOO_DEEP', 40 + MAX_SCVAL_DEPTH * 12);
    expectError(() => compareLedgerKeys(accountKey, deepKey), 'TOO_DEEP');
  });

  it('hostile nesting (100,000 levels) is TOO_DEEP from every entry point, never a RangeError', () => {
    const scVal = nestedVec(100_000);
    const key = keyWithScVal(scVal);
    expectError(() => validateScVal(scVal), 'TOO_DEEP');
    expectError(() => readScVal(scVal), 'TOO_DEEP');
    expectError(() => validateLedgerKey(key), 'TOO_DEEP');
    expectError(() => compareLedgerKeys(key, key), 'TOO_DEEP');
    expectError(() => ttlKeyOf(key), 'TOO_DEEP');
  });

  it(`bounds ClaimPredicate nesting at MAX_CLAIM_PREDICATE_DEPTH (${MAX_CLAIM_PREDICATE_DEPTH})`, () => {
    const balance = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: {
        type: 'claimableBalance',
        balanceId: fill(1),
        claimants: [{ destination: fill(2), predicate: { type: 'unconditional' } }],
      },
    });
    // Replace the predicate (at 4 + 4 + 36 + 4 + 4 + 36 = 88) by a chain of NOT predicates.
    const chain = (levels: number): Uint8Array => {
      const out = new Uint8Array(levels * 8 + 4);
      const view = new DataView(out.buffer);
      for (let i = 0; i < levels; i++) {
        view.setUint32(i * 8, 3); // NOT
        view.setUint32(i * 8 + 4, 1); // present
      }
      return out; // the innermost is UNCONDITIONAL (0)
    };
    const withChain = (levels: number): Uint8Array => {
      const body = chain(levels);
      const out = new Uint8Array(balance.length - 4 + body.length);
      out.set(balance.subarray(0, 88), 0);
      out.set(body, 88);
      out.set(balance.subarray(92), 88 + body.length);
      return out;
    };
    validateLedgerEntry(withChain(MAX_CLAIM_PREDICATE_DEPTH - 1));
    expectError(
      () => validateLedgerEntry(withChain(MAX_CLAIM_PREDICATE_DEPTH)),
      'TOO_DEEP',
      88 + MAX_CLAIM_PREDICATE_DEPTH * 8,
      'ClaimPredicate',
    );
    expectError(() => validateLedgerEntry(withChain(100_000)), 'TOO_DEEP');
  });
});

describe('every entry point validates both sides', () => {
  const good = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 2 },
  });
  const badEntry = patchWord(good, good.length - 4, 7); // LedgerEntry.ext.v = 7
  const goodKey = encodeLedgerKey({ type: 'ttl', keyHash: fill(1) });
  const badKey = patchWord(vecKey, vecKey.length - 4, 9); // durability 9, after a different type than goodKey

  it('compareLedgerKeys / ledgerKeysEqual-style calls throw whichever side is malformed, even when types differ', () => {
    expectError(() => compareLedgerKeys(goodKey, badKey), 'BAD_DISCRIMINANT', vecKey.length - 4);
    expectError(() => compareLedgerKeys(badKey, goodKey), 'BAD_DISCRIMINANT', vecKey.length - 4);
    expectError(() => compareLedgerKeys(new Uint8Array(0), goodKey), 'TRUNCATED', 0);
  });

  it('entry comparators validate the whole entry, not just its key fields', () => {
    expectError(() => compareLedgerEntries(good, badEntry), 'BAD_DISCRIMINANT');
    expectError(() => compareLedgerEntries(badEntry, good), 'BAD_DISCRIMINANT');
    expectError(() => compareEntryToKey(badEntry, goodKey), 'BAD_DISCRIMINANT');
    expectError(() => compareEntryToKey(good, badKey), 'BAD_DISCRIMINANT');
    expectError(() => ledgerKeyOfEntry(badEntry), 'BAD_DISCRIMINANT');
    expectError(() => readLedgerEntry(badEntry), 'BAD_DISCRIMINANT');
  });

  it('bucket comparators validate both records, metadata included', () => {
    const meta = encodeBucketEntry({ type: 'meta', ledgerVersion: 23 });
    const live = encodeBucketEntry({ type: 'live', entry: good });
    const badLive = Uint8Array.from([...live.subarray(0, 4), ...badEntry]);
    expectError(() => compareBucketEntries(meta, badLive), 'BAD_DISCRIMINANT');
    expectError(() => compareBucketEntries(live, badLive), 'BAD_DISCRIMINANT');
    expectError(() => compareBucketEntries(patchWord(meta, 8, 5), live), 'BAD_DISCRIMINANT');
    const hotMeta = encodeHotArchiveBucketEntry({ type: 'meta', ledgerVersion: 23 });
    expectError(
      () => compareHotArchiveBucketEntries(hotMeta, Uint8Array.from([0, 0, 0, 0, ...badEntry])),
      'BAD_DISCRIMINANT',
    );
  });

  it('NOT_SOROBAN_KEY from ttlKeyOf for non-Soroban keys, after validating them', () => {
    expectError(() => ttlKeyOf(accountKey), 'NOT_SOROBAN_KEY', 0, 'LedgerKey.type');
    expectError(() => ttlKeyOf(goodKey), 'NOT_SOROBAN_KEY');
    expectError(() => ttlKeyOf(badKey), 'BAD_DISCRIMINANT');
  });
});
