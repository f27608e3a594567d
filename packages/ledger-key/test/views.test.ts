// Zero-copy views: every accessor against values we wrote and against @stellar/stellar-base's decoding of real
// data (the 956 mainnet CONTRACT_DATA entries, and every LedgerEntry stellar-base can decode from the stellar-core
// LCM captures). Also: views are subarrays of the caller's bytes (no copies), reading at an offset inside a larger
// buffer, and accessors that do not fit the type throw INVALID_ARGUMENT.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, xdr } from '@stellar/stellar-base';
import { describeWithFixtures, errorOf, fixturePath, hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  type AssetView,
  compareEntryToKey,
  encodeBucketEntry,
  encodeHotArchiveBucketEntry,
  encodeLedgerEntry,
  encodeLedgerKey,
  encodeScAddress,
  encodeScVal,
  LedgerKeyError,
  ledgerKeyOfEntry,
  readBucketEntry,
  readHotArchiveBucketEntry,
  readLedgerEntry,
  readLedgerKey,
  readScAddress,
  readScVal,
  type ScValView,
  scValEnd,
  ttlKeyOf,
} from '../src/index.js';

const fill = (byte: number, length = 32): Uint8Array => new Uint8Array(length).fill(byte);
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

function expectInvalidArgument(run: () => unknown): void {
  expect(errorOf(LedgerKeyError, run).code).toBe('INVALID_ARGUMENT');
}

/** A view's bytes are a window on the caller's buffer, not a copy. */
function expectSameMemory(part: Uint8Array, whole: Uint8Array): void {
  expect(part.buffer).toBe(whole.buffer);
  expect(part.byteOffset).toBeGreaterThanOrEqual(whole.byteOffset);
  expect(part.byteOffset + part.length).toBeLessThanOrEqual(whole.byteOffset + whole.length);
}

/**
 * Walks an ScValView alongside stellar-base's decoding of the same bytes, checking every accessor's value. Returns
 * the number of nodes visited.
 */
function checkScVal(view: ScValView, value: xdr.ScVal): number {
  expect(view.type).toBe(value.switch().value);
  expect(hex(view.xdr)).toBe(value.toXDR('hex'));
  switch (view.type) {
    case 0:
      expect(view.bool()).toBe(value.b());
      return 1;
    case 2: {
      const error = value.error();
      const type = error.switch().value;
      expect(view.error()).toEqual({ type, code: type === 0 ? error.contractCode() : error.code().value });
      return 1;
    }
    case 3:
      expect(view.u32()).toBe(value.u32());
      return 1;
    case 4:
      expect(view.i32()).toBe(value.i32());
      return 1;
    case 5:
      expect(view.u64()).toBe(value.u64().toBigInt());
      return 1;
    case 6:
      expect(view.i64()).toBe(value.i64().toBigInt());
      return 1;
    case 7:
      expect(view.timepoint()).toBe(value.timepoint().toBigInt());
      return 1;
    case 8:
      expect(view.duration()).toBe(value.duration().toBigInt());
      return 1;
    case 9:
      expect(view.u128()).toBe((value.u128().hi().toBigInt() << 64n) | value.u128().lo().toBigInt());
      return 1;
    case 10:
      expect(view.i128()).toBe((value.i128().hi().toBigInt() << 64n) | value.i128().lo().toBigInt());
      return 1;
    case 11:
    case 12: {
      const parts = view.type === 11 ? value.u256() : value.i256();
      const expected =
        (parts.hiHi().toBigInt() << 192n) |
        (parts.hiLo().toBigInt() << 128n) |
        (parts.loHi().toBigInt() << 64n) |
        parts.loLo().toBigInt();
      expect(view.type === 11 ? view.u256() : view.i256()).toBe(expected);
      return 1;
    }
    case 13:
      expect(hex(view.bytes())).toBe(value.bytes().toString('hex'));
      return 1;
    case 14:
      expect(hex(view.string())).toBe(Buffer.from(value.str()).toString('hex'));
      return 1;
    case 15:
      expect(hex(view.symbol())).toBe(Buffer.from(value.sym()).toString('hex'));
      return 1;
    case 16: {
      const items = view.vec();
      const expected = value.vec();
      if (expected === null || expected === undefined) {
        expect(items).toBeNull();
        return 1;
      }
      expect(items).toHaveLength(expected.length);
      return 1 + items!.reduce((sum, item, i) => sum + checkScVal(item, expected[i]!), 0);
    }
    case 17:
      return 1 + checkMap(view.map(), value.map());
    case 18: {
      const address = view.address();
      expect(hex(address.xdr)).toBe(value.address().toXDR('hex'));
      expect(address.toStrkey()).toBe(Address.fromScAddress(value.address()).toString());
      return 1;
    }
    case 19: {
      const instance = view.instance();
      const executable = value.instance().executable();
      expect(instance.executableType).toBe(executable.switch().value);
      if (instance.wasmHash !== null) expect(hex(instance.wasmHash)).toBe(executable.wasmHash().toString('hex'));
      return 1 + checkMap(instance.storage, value.instance().storage());
    }
    case 21:
      expect(view.nonce()).toBe(value.nonceKey().nonce().toBigInt());
      return 1;
    default:
      return 1; // VOID, LEDGER_KEY_CONTRACT_INSTANCE: no payload
  }
}

function checkMap(entries: [ScValView, ScValView][] | null, expected: xdr.ScMapEntry[] | null | undefined): number {
  if (expected === null || expected === undefined) {
    expect(entries).toBeNull();
    return 0;
  }
  expect(entries).toHaveLength(expected.length);
  let nodes = 0;
  entries!.forEach(([key, val], i) => {
    nodes += checkScVal(key, expected[i]!.key()) + checkScVal(val, expected[i]!.val());
  });
  return nodes;
}

/** The LedgerKey of a decoded stellar-base LedgerEntry, built field by field with stellar-base. */
function stellarKeyOf(entry: xdr.LedgerEntry): xdr.LedgerKey {
  const data = entry.data();
  switch (data.switch().value) {
    case 0:
      return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: data.account().accountId() }));
    case 1:
      return xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId: data.trustLine().accountId(), asset: data.trustLine().asset() }),
      );
    case 2:
      return xdr.LedgerKey.offer(
        new xdr.LedgerKeyOffer({ sellerId: data.offer().sellerId(), offerId: data.offer().offerId() }),
      );
    case 3:
      return xdr.LedgerKey.data(
        new xdr.LedgerKeyData({ accountId: data.data().accountId(), dataName: data.data().dataName() }),
      );
    case 4:
      return xdr.LedgerKey.claimableBalance(
        new xdr.LedgerKeyClaimableBalance({ balanceId: data.claimableBalance().balanceId() }),
      );
    case 5:
      return xdr.LedgerKey.liquidityPool(
        new xdr.LedgerKeyLiquidityPool({ liquidityPoolId: data.liquidityPool().liquidityPoolId() }),
      );
    case 6: {
      const d = data.contractData();
      return xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({ contract: d.contract(), key: d.key(), durability: d.durability() }),
      );
    }
    case 7:
      return xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: data.contractCode().hash() }));
    case 8:
      return xdr.LedgerKey.configSetting(
        new xdr.LedgerKeyConfigSetting({ configSettingId: data.configSetting().switch() }),
      );
    default:
      return xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: data.ttl().keyHash() }));
  }
}

/** Checks a LedgerEntryView (and the derived key) against stellar-base's decoding of the same bytes. */
function checkEntry(bytes: Uint8Array): xdr.LedgerEntry {
  const decoded = xdr.LedgerEntry.fromXDR(Buffer.from(bytes));
  const view = readLedgerEntry(bytes);
  expect(view.byteLength).toBe(bytes.length);
  expect(view.type).toBe(decoded.data().switch().value);
  expect(view.lastModifiedLedgerSeq).toBe(decoded.lastModifiedLedgerSeq());
  expect(hex(view.dataBytes)).toBe(decoded.data().toXDR('hex'));
  const key = stellarKeyOf(decoded).toXDR('hex');
  expect(hex(view.key())).toBe(key);
  expect(hex(ledgerKeyOfEntry(bytes))).toBe(key);
  expect(compareEntryToKey(bytes, view.key())).toBe(0);
  const ext = decoded.ext();
  expect(view.extVersion).toBe(ext.switch());
  const sponsor = ext.switch() === 1 ? ext.v1().sponsoringId() : null;
  if (sponsor === null || sponsor === undefined) expect(view.sponsoringId).toBeUndefined();
  else expect(hex(view.sponsoringId!)).toBe(sponsor.ed25519().toString('hex'));
  switch (view.type) {
    case 6:
      checkScVal(view.val(), decoded.data().contractData().val());
      checkScVal(view.keyView().key(), decoded.data().contractData().key());
      break;
    case 7:
      expect(hex(view.code())).toBe(decoded.data().contractCode().code().toString('hex'));
      break;
    case 8:
      expect(hex(view.configSettingBody())).toBe(decoded.data().configSetting().toXDR('hex').slice(8));
      break;
    case 9:
      expect(view.liveUntilLedgerSeq).toBe(decoded.data().ttl().liveUntilLedgerSeq());
      break;
    default:
      break;
  }
  return decoded;
}

describeWithFixtures('views over the 956 real mainnet CONTRACT_DATA entries', [['mainnet-contract-data.json']], () => {
  const fixture = JSON.parse(readFileSync(fixturePath('mainnet-contract-data.json'), 'utf8')) as {
    correctEntries: string[];
    corruptedEntries: string[];
  };
  const all = [...fixture.correctEntries, ...fixture.corruptedEntries].map(
    (base64) => new Uint8Array(Buffer.from(base64, 'base64')),
  );

  it('reads all 956, every accessor agreeing with stellar-base', () => {
    expect(all).toHaveLength(956);
    let nodes = 0;
    for (const bytes of all) {
      const decoded = checkEntry(bytes);
      const keyView = readLedgerEntry(bytes).keyView();
      const contractData = decoded.data().contractData();
      expect(keyView.typeName).toBe('CONTRACT_DATA');
      expect(keyView.durability()).toBe(contractData.durability().value);
      expect(hex(keyView.contract().xdr)).toBe(contractData.contract().toXDR('hex'));
      expect(keyView.contract().toStrkey()).toBe(Address.fromScAddress(contractData.contract()).toString());
      nodes += checkScVal(keyView.key(), contractData.key());
      nodes += checkScVal(readLedgerEntry(bytes).val(), contractData.val());
    }
    expect(nodes).toBeGreaterThan(956 * 2);
  });

  it('derives the TTL key stellar-core would (SHA-256 of the key XDR)', () => {
    for (const bytes of all.slice(0, 50)) {
      const key = ledgerKeyOfEntry(bytes);
      const ttl = readLedgerKey(ttlKeyOf(key));
      expect(ttl.typeName).toBe('TTL');
      expect(hex(ttl.keyHash())).toBe(createHash('sha256').update(key).digest('hex'));
    }
  });

  it('returns subarrays of the caller’s buffer', () => {
    const bytes = all[0]!;
    const view = readLedgerEntry(bytes);
    expectSameMemory(view.xdr, bytes);
    expectSameMemory(view.dataBytes, bytes);
    expectSameMemory(view.val().xdr, bytes);
  });
});

/** Every LedgerEntry stellar-base can decode in the stellar-core LCM captures, keyed by its XDR (deduplicated). */
function harvestLcmEntries(): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > 64) return;
    if (node instanceof xdr.LedgerEntry) {
      const bytes = node.toXDR();
      entries.set(bytes.toString('base64'), new Uint8Array(bytes));
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    const record = node as { _attributes?: Record<string, unknown>; _value?: unknown };
    if (record._attributes !== undefined)
      for (const value of Object.values(record._attributes)) visit(value, depth + 1);
    if ('_value' in record) visit(record._value, depth + 1);
  };
  const root = fixturePath('stellar-core-lcm');
  for (const group of readdirSync(root)) {
    for (const file of readdirSync(join(root, group)).filter((name) => name.endsWith('.xdr'))) {
      const stream = readFileSync(join(root, group, file));
      for (let p = 0; p + 4 <= stream.length; ) {
        const length = stream.readUInt32BE(p) & 0x7fff_ffff;
        const record = stream.subarray(p + 4, p + 4 + length);
        p += 4 + length;
        try {
          visit(xdr.LedgerCloseMeta.fromXDR(record), 0);
        } catch {
          // About 224 ledgers use XDR newer than stellar-base 15 (fixtures README); they cannot be oracle-checked.
        }
      }
    }
  }
  return entries;
}

describeWithFixtures('views over every LedgerEntry in the stellar-core LCM captures', [['stellar-core-lcm']], () => {
  it('validates and reads each one as stellar-base does, keys included', () => {
    const entries = harvestLcmEntries();
    const types = new Set<number>();
    const configIds = new Set<number>();
    for (const bytes of entries.values()) {
      const decoded = checkEntry(bytes);
      types.add(decoded.data().switch().value);
      if (decoded.data().switch().value === 8) configIds.add(decoded.data().configSetting().switch().value);
    }
    // The captures hold thousands of entries: accounts with ext v1..v3, trust lines, offers, pools, a claimable
    // balance, contract data/code, TTLs and config settings including the protocol-23+ ids.
    expect(entries.size).toBeGreaterThan(5000);
    expect([...types].sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
    expect(configIds.has(16) && configIds.has(17) && configIds.has(19)).toBe(true);
  }, 120_000);
});

describe('LedgerKeyView', () => {
  const usdc = { type: 'alphanum4', code: 'USDC', issuer: fill(2) } as const;

  it('reads every key type', () => {
    const account = readLedgerKey(encodeLedgerKey({ type: 'account', accountId: fill(1) }));
    expect([account.type, account.typeName, hex(account.accountId())]).toEqual([0, 'ACCOUNT', hex(fill(1))]);

    const trustline = readLedgerKey(encodeLedgerKey({ type: 'trustline', accountId: fill(1), asset: usdc }));
    const asset: AssetView = trustline.asset();
    expect([asset.typeName, asset.codeString(), hex(asset.code()), hex(asset.issuer())]).toEqual([
      'ASSET_TYPE_CREDIT_ALPHANUM4',
      'USDC',
      hex(Buffer.from('USDC')),
      hex(fill(2)),
    ]);
    const long = readLedgerKey(
      encodeLedgerKey({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'alphanum12', code: 'ABCDE', issuer: fill(3) },
      }),
    ).asset();
    expect([long.codeString(), long.code().length, hex(long.issuer())]).toEqual(['ABCDE', 12, hex(fill(3))]);
    const pool = readLedgerKey(
      encodeLedgerKey({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'poolShare', liquidityPoolId: fill(4) },
      }),
    ).asset();
    expect([pool.typeName, hex(pool.liquidityPoolId())]).toEqual(['ASSET_TYPE_POOL_SHARE', hex(fill(4))]);
    expectInvalidArgument(() => pool.issuer());

    const offer = readLedgerKey(encodeLedgerKey({ type: 'offer', sellerId: fill(5), offerId: -42n }));
    expect([offer.offerId(), hex(offer.sellerId()), hex(offer.accountId())]).toEqual([
      -42n,
      hex(fill(5)),
      hex(fill(5)),
    ]);

    const data = readLedgerKey(encodeLedgerKey({ type: 'data', accountId: fill(1), dataName: 'abc' }));
    expect(text(data.dataName())).toBe('abc');

    expect(hex(readLedgerKey(encodeLedgerKey({ type: 'claimableBalance', balanceId: fill(6) })).balanceId())).toBe(
      hex(fill(6)),
    );
    expect(
      hex(readLedgerKey(encodeLedgerKey({ type: 'liquidityPool', liquidityPoolId: fill(7) })).liquidityPoolId()),
    ).toBe(hex(fill(7)));
    expect(hex(readLedgerKey(encodeLedgerKey({ type: 'contractCode', hash: fill(8) })).codeHash())).toBe(hex(fill(8)));
    expect(readLedgerKey(encodeLedgerKey({ type: 'configSetting', configSettingId: 20 })).configSettingId()).toBe(20);
    expect(hex(readLedgerKey(encodeLedgerKey({ type: 'ttl', keyHash: fill(9) })).keyHash())).toBe(hex(fill(9)));

    const contractData = readLedgerKey(
      encodeLedgerKey({
        type: 'contractData',
        contract: { type: 'muxedAccount', id: 7n, ed25519: fill(10) },
        key: { type: 'symbol', value: 'Admin' },
        durability: 'temporary',
      }),
    );
    expect(contractData.contract().muxedAccount()).toEqual({ id: 7n, ed25519: fill(10) });
    expect(text(contractData.key().symbol())).toBe('Admin');
    expect(contractData.durability()).toBe(0);
  });

  it('throws INVALID_ARGUMENT for accessors of another type', () => {
    const ttl = readLedgerKey(encodeLedgerKey({ type: 'ttl', keyHash: fill(9) }));
    for (const accessor of [
      () => ttl.accountId(),
      () => ttl.asset(),
      () => ttl.offerId(),
      () => ttl.dataName(),
      () => ttl.balanceId(),
      () => ttl.liquidityPoolId(),
      () => ttl.contract(),
      () => ttl.key(),
      () => ttl.durability(),
      () => ttl.codeHash(),
      () => ttl.configSettingId(),
      () => ttl.sellerId(),
    ]) {
      expectInvalidArgument(accessor);
    }
    expectInvalidArgument(() => readLedgerKey(encodeLedgerKey({ type: 'account', accountId: fill(1) })).keyHash());
  });

  it('reads a key inside a larger buffer at an offset, zero-copy, and reports how far it reached', () => {
    const key = encodeLedgerKey({ type: 'data', accountId: fill(1), dataName: 'xyz' });
    const buffer = new Uint8Array(3 + key.length + 5);
    buffer.set(key, 3);
    const view = readLedgerKey(buffer, 3);
    expect(view.byteLength).toBe(key.length);
    expect(hex(view.bytes)).toBe(hex(key));
    expectSameMemory(view.dataName(), buffer);
    // Without an offset the key must fill the buffer.
    expect(() => readLedgerKey(buffer)).toThrow(LedgerKeyError);
    expectInvalidArgument(() => readLedgerKey(buffer, buffer.length + 1));
    expectInvalidArgument(() => readLedgerKey(buffer, 1.5));
  });
});

describe('ScValView and ScAddressView', () => {
  it('reads all five address arms and their strkeys', () => {
    const account = readScAddress(encodeScAddress({ type: 'account', accountId: fill(1) }));
    expect([account.typeName, hex(account.accountId())]).toEqual(['SC_ADDRESS_TYPE_ACCOUNT', hex(fill(1))]);
    expect(account.toStrkey()).toBe(Address.account(Buffer.from(fill(1))).toString());
    const contract = readScAddress(encodeScAddress({ type: 'contract', contractId: fill(2) }));
    expect(contract.toStrkey()).toBe(Address.contract(Buffer.from(fill(2))).toString());
    const muxed = readScAddress(encodeScAddress({ type: 'muxedAccount', id: 2n ** 64n - 1n, ed25519: fill(3) }));
    expect(muxed.muxedAccount()).toEqual({ id: 2n ** 64n - 1n, ed25519: fill(3) });
    const balance = readScAddress(encodeScAddress({ type: 'claimableBalance', balanceId: fill(4) }));
    expect(hex(balance.claimableBalanceId())).toBe(hex(fill(4)));
    const pool = readScAddress(encodeScAddress({ type: 'liquidityPool', liquidityPoolId: fill(5) }));
    expect(hex(pool.liquidityPoolId())).toBe(hex(fill(5)));
    for (const address of [muxed, balance, pool]) {
      const decoded = xdr.ScAddress.fromXDR(Buffer.from(address.xdr));
      expect(address.toStrkey()).toBe(Address.fromScAddress(decoded).toString());
    }
    expectInvalidArgument(() => pool.accountId());
    expectInvalidArgument(() => account.contractId());
  });

  it('reads every SCVal arm as stellar-base decodes it', () => {
    const values = [
      encodeScVal({ type: 'bool', value: true }),
      encodeScVal({ type: 'void' }),
      encodeScVal({ type: 'error', errorType: 0, code: 7 }),
      encodeScVal({ type: 'error', errorType: 3, code: 9 }),
      encodeScVal({ type: 'u32', value: 4_000_000_000 }),
      encodeScVal({ type: 'i32', value: -4 }),
      encodeScVal({ type: 'u64', value: 2n ** 64n - 1n }),
      encodeScVal({ type: 'i64', value: -(2n ** 63n) }),
      encodeScVal({ type: 'timepoint', value: 5n }),
      encodeScVal({ type: 'duration', value: 6n }),
      encodeScVal({ type: 'u128', value: 2n ** 128n - 1n }),
      encodeScVal({ type: 'i128', value: -(2n ** 127n) }),
      encodeScVal({ type: 'u256', value: 2n ** 255n + 3n }),
      encodeScVal({ type: 'i256', value: -(2n ** 200n) }),
      encodeScVal({ type: 'bytes', value: Uint8Array.of(9, 8, 7) }),
      encodeScVal({ type: 'string', value: 'hello' }),
      encodeScVal({ type: 'symbol', value: 'sym' }),
      encodeScVal({ type: 'vec', value: null }),
      encodeScVal({
        type: 'vec',
        value: [
          { type: 'vec', value: [] },
          { type: 'u32', value: 1 },
        ],
      }),
      encodeScVal({ type: 'map', value: null }),
      encodeScVal({
        type: 'map',
        value: [
          [
            { type: 'symbol', value: 'a' },
            { type: 'i64', value: -1n },
          ],
        ],
      }),
      encodeScVal({ type: 'address', value: { type: 'contract', contractId: fill(1) } }),
      encodeScVal({ type: 'contractInstance', executable: { type: 'wasm', wasmHash: fill(2) }, storage: null }),
      encodeScVal({
        type: 'contractInstance',
        executable: { type: 'stellarAsset' },
        storage: [[{ type: 'ledgerKeyContractInstance' }, { type: 'ledgerKeyNonce', nonce: 3n }]],
      }),
      encodeScVal({ type: 'ledgerKeyContractInstance' }),
      encodeScVal({ type: 'ledgerKeyNonce', nonce: -9n }),
    ];
    const seen = new Set<number>();
    for (const bytes of values) {
      const view = readScVal(bytes);
      seen.add(view.type);
      checkScVal(view, xdr.ScVal.fromXDR(Buffer.from(bytes)));
    }
    expect(seen.size).toBe(22);
    const i128 = readScVal(encodeScVal({ type: 'i128', value: -(2n ** 127n) }));
    expect(i128.i128()).toBe(-(2n ** 127n));
    expect(readScVal(encodeScVal({ type: 'vec', value: [] })).vec()).toEqual([]);
  });

  it('returns child views over the parent’s bytes and rejects other-arm accessors', () => {
    const bytes = encodeScVal({ type: 'vec', value: [{ type: 'bytes', value: Uint8Array.of(1, 2) }] });
    const [child] = readScVal(bytes).vec()!;
    expectSameMemory(child!.xdr, bytes);
    expectSameMemory(child!.bytes(), bytes);
    expectInvalidArgument(() => child!.string());
    expectInvalidArgument(() => child!.u32());
    expectInvalidArgument(() => readScVal(bytes).map());
  });
});

describe('LedgerEntryView and bucket entry views', () => {
  it('reads TTL, contract code, config setting and sponsorship fields', () => {
    const ttl = readLedgerEntry(
      encodeLedgerEntry({
        lastModifiedLedgerSeq: 77,
        data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 500 },
        v1: { sponsoringId: fill(2) },
      }),
    );
    expect([ttl.typeName, ttl.lastModifiedLedgerSeq, ttl.liveUntilLedgerSeq, ttl.extVersion]).toEqual([
      'TTL',
      77,
      500,
      1,
    ]);
    expect(hex(ttl.sponsoringId!)).toBe(hex(fill(2)));
    expect(hex(ttl.keyView().keyHash())).toBe(hex(fill(1)));
    expectInvalidArgument(() => ttl.val());
    expectInvalidArgument(() => ttl.code());

    const code = readLedgerEntry(
      encodeLedgerEntry({
        lastModifiedLedgerSeq: 1,
        data: {
          type: 'contractCode',
          hash: fill(3),
          code: Uint8Array.of(0, 97, 115, 109, 1),
          costInputs: {
            nInstructions: 1,
            nFunctions: 1,
            nGlobals: 1,
            nTableEntries: 1,
            nTypes: 1,
            nDataSegments: 1,
            nElemSegments: 1,
            nImports: 1,
            nExports: 1,
            nDataSegmentBytes: 1,
          },
        },
      }),
    );
    expect(hex(code.code())).toBe('0061736d01');
    expect(hex(code.keyView().codeHash())).toBe(hex(fill(3)));
    expect(code.sponsoringId).toBeUndefined();
    expectInvalidArgument(() => code.liveUntilLedgerSeq);

    const config = readLedgerEntry(
      encodeLedgerEntry({
        lastModifiedLedgerSeq: 1,
        data: { type: 'configSetting', configSettingId: 8, body: Uint8Array.of(0, 0, 0, 250) },
      }),
    );
    expect(config.keyView().configSettingId()).toBe(8);
    expect(hex(config.configSettingBody())).toBe('000000fa');
  });

  it('reads live-bucket entries of every kind and metadata v0/v1', () => {
    const entry = encodeLedgerEntry({ lastModifiedLedgerSeq: 3, data: { type: 'account', accountId: fill(1) } });
    const key = encodeLedgerKey({ type: 'account', accountId: fill(1) });
    const meta0 = readBucketEntry(encodeBucketEntry({ type: 'meta', ledgerVersion: 22 }));
    expect([meta0.kind, meta0.type, meta0.metadata]).toEqual(['meta', -1, { ledgerVersion: 22 }]);
    const meta1 = readBucketEntry(encodeBucketEntry({ type: 'meta', ledgerVersion: 23, bucketListType: 'live' }));
    expect(meta1.metadata).toEqual({ ledgerVersion: 23, bucketListType: 0 });
    expectInvalidArgument(() => meta1.entry());
    expectInvalidArgument(() => meta1.keyBytes());

    const live = readBucketEntry(encodeBucketEntry({ type: 'live', entry }));
    const init = readBucketEntry(encodeBucketEntry({ type: 'init', entry }));
    const dead = readBucketEntry(encodeBucketEntry({ type: 'dead', key }));
    expect([live.kind, init.kind, dead.kind]).toEqual(['live', 'init', 'dead']);
    expect(hex(live.entry().xdr)).toBe(hex(entry));
    expect(hex(init.keyBytes())).toBe(hex(key));
    expect(hex(dead.key().accountId())).toBe(hex(fill(1)));
    expectSameMemory(dead.keyBytes(), dead.xdr);
    expectInvalidArgument(() => live.key());
    expectInvalidArgument(() => dead.entry());
    expectInvalidArgument(() => live.metadata);
  });

  it('reads hot-archive entries of every kind', () => {
    const entry = encodeLedgerEntry({
      lastModifiedLedgerSeq: 3,
      data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 4 },
    });
    const key = encodeLedgerKey({ type: 'ttl', keyHash: fill(1) });
    const meta = readHotArchiveBucketEntry(
      encodeHotArchiveBucketEntry({ type: 'meta', ledgerVersion: 23, bucketListType: 'hotArchive' }),
    );
    expect([meta.kind, meta.metadata]).toEqual(['meta', { ledgerVersion: 23, bucketListType: 1 }]);
    const archived = readHotArchiveBucketEntry(encodeHotArchiveBucketEntry({ type: 'archived', entry }));
    expect([archived.kind, archived.entry().liveUntilLedgerSeq]).toEqual(['archived', 4]);
    const live = readHotArchiveBucketEntry(encodeHotArchiveBucketEntry({ type: 'live', key }));
    expect([live.kind, hex(live.key().keyHash())]).toEqual(['live', hex(fill(1))]);
    expectInvalidArgument(() => live.entry());
  });

  it('walks a stream of bucket entries using byteLength', () => {
    const records = [
      encodeBucketEntry({ type: 'meta', ledgerVersion: 23 }),
      encodeBucketEntry({ type: 'dead', key: encodeLedgerKey({ type: 'contractCode', hash: fill(1) }) }),
      encodeBucketEntry({
        type: 'live',
        entry: { lastModifiedLedgerSeq: 1, data: { type: 'data', accountId: fill(2), dataName: 'n' } },
      }),
    ];
    const stream = Uint8Array.from(records.flatMap((record) => [...record]));
    const kinds: string[] = [];
    for (let offset = 0; offset < stream.length; ) {
      const view = readBucketEntry(stream, offset);
      kinds.push(view.kind);
      offset += view.byteLength;
    }
    expect(kinds).toEqual(['meta', 'dead', 'live']);
  });
});

describe('scValEnd', () => {
  it('validates one SCVal inside a buffer and returns where it ends, like readScVal', () => {
    const symbol = encodeScVal({ type: 'symbol', value: 'transfer' });
    const amount = encodeScVal({ type: 'i128', value: -5n });
    const both = new Uint8Array([...symbol, ...amount]);
    expect(scValEnd(both, 0)).toBe(symbol.length);
    expect(scValEnd(both, symbol.length)).toBe(both.length);
    expect(scValEnd(both, 0)).toBe(readScVal(both, 0).xdr.length);
    // Truncated: the same LedgerKeyError readScVal throws.
    expect(() => scValEnd(both.subarray(0, both.length - 1), symbol.length)).toThrow(LedgerKeyError);
    expect(() => scValEnd(both, both.length + 1)).toThrow(LedgerKeyError);
  });
});
