// fast-check arbitraries for XDR ledger keys, entries and bucket entries, built with @stellar/stellar-base's
// `xdr.*` constructors and encoded with `.toXDR()` (never with the engine's writers). They are biased toward
// collisions (small pools of accounts, contracts and hashes, small byte alphabets, shared prefixes, boundary
// integers) so that two random keys of one type often agree on their leading fields and the comparison has to
// reach deep fields: the SCVal inside a CONTRACT_DATA key, the last bytes of a data name, the sign of an int128.
import { xdr } from '@stellar/stellar-base';
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------------------------
// Integers: boundaries first, then anything in range
// ---------------------------------------------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const int64Arb: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(-1n, 0n, 1n, INT64_MIN, INT64_MAX, -2n, 2n),
  fc.bigInt({ min: -3n, max: 3n }),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
);

// 2^63 and above have the top bit set: a signed read of an unsigned field would put them first.
const uint64Arb: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(0n, 1n, 2n, 2n ** 63n - 1n, 2n ** 63n, UINT64_MAX),
  fc.bigInt({ min: 0n, max: 3n }),
  fc.bigInt({ min: 0n, max: UINT64_MAX }),
);

const int32Arb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, 0, 1, -(2 ** 31), 2 ** 31 - 1),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
);

const uint32Arb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
);

const int64 = (value: bigint): xdr.Int64 => new xdr.Int64(value);
const uint64 = (value: bigint): xdr.Uint64 => new xdr.Uint64(value);
/** stellar-base types `Hash` (ContractId, PoolId) as `Opaque[]`, a known workaround; at run time it is a Buffer. */
const asHash = (bytes: Buffer): xdr.Hash => bytes as unknown as xdr.Hash;

// ---------------------------------------------------------------------------------------------------------------
// Bytes: pools and small alphabets so that values collide and share prefixes
// ---------------------------------------------------------------------------------------------------------------

/** Bytes that straddle the interesting boundaries: 0, ASCII, the sign bit, 0xff. */
const smallByteArb = fc.constantFrom(0x00, 0x01, 0x61, 0x62, 0x7f, 0x80, 0xff);

function filled(length: number, byte: number, last?: number): Buffer {
  const bytes = Buffer.alloc(length, byte);
  if (last !== undefined) bytes[length - 1] = last;
  return bytes;
}

/** A few 32-byte values that differ only in their first or last byte. */
const HASH_POOL: readonly Buffer[] = [
  filled(32, 0x00),
  filled(32, 0x00, 0x01),
  filled(32, 0x11),
  filled(32, 0x11, 0xff),
  filled(32, 0x80),
  filled(32, 0xff),
];

/** 32 bytes (hash, account key, contract id, pool id): mostly from the pool, sometimes anything. */
export const bytes32Arb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HASH_POOL) },
  { weight: 1, arbitrary: fc.array(smallByteArb, { minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes)) },
);

/**
 * Variable-length bytes up to `maxLength`: usually short runs over a tiny alphabet (so one is often a prefix of
 * the other), sometimes exactly the maximum length, sometimes empty, sometimes random bytes.
 */
function varBytesArb(maxLength: number, alphabet: fc.Arbitrary<number> = smallByteArb): fc.Arbitrary<Buffer> {
  return fc
    .oneof(
      { weight: 5, arbitrary: fc.array(alphabet, { maxLength: Math.min(4, maxLength) }) },
      { weight: 1, arbitrary: fc.array(alphabet, { minLength: maxLength, maxLength }) },
      { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength }) },
    )
    .map((bytes) => Buffer.from(bytes));
}

/** Symbols: mostly the characters Soroban uses, a few bytes outside it (XDR does not restrict a symbol's bytes). */
const symbolCharArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Buffer.from('aAbB_09')) },
  { weight: 1, arbitrary: smallByteArb },
);
const REAL_SYMBOLS = ['Balance', 'Allowance', 'Admin', 'Metadata', 'Nonce', 'a', 'b'].map((s) => Buffer.from(s));
const symbolArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...REAL_SYMBOLS) },
  { weight: 3, arbitrary: varBytesArb(32, symbolCharArb) },
);

// ---------------------------------------------------------------------------------------------------------------
// Stellar types
// ---------------------------------------------------------------------------------------------------------------

export const accountIdArb: fc.Arbitrary<xdr.PublicKey> = bytes32Arb.map((key) =>
  xdr.PublicKey.publicKeyTypeEd25519(key),
);

const claimableBalanceIdArb = bytes32Arb.map((hash) => xdr.ClaimableBalanceId.claimableBalanceIdTypeV0(hash));

const assetCode4Arb = fc.oneof(
  fc.constantFrom(...['USD\0', 'USDC', 'EUR\0', 'A\0\0\0'].map((s) => Buffer.from(s, 'latin1'))),
  fc.array(smallByteArb, { minLength: 4, maxLength: 4 }).map((bytes) => Buffer.from(bytes)),
);
const assetCode12Arb = fc.oneof(
  fc.constantFrom(...['USDCLONG\0\0\0\0', 'yUSDC\0\0\0\0\0\0\0'].map((s) => Buffer.from(s, 'latin1'))),
  fc.array(smallByteArb, { minLength: 12, maxLength: 12 }).map((bytes) => Buffer.from(bytes)),
);

/** TrustLineAsset, all four arms (NATIVE is invalid on a real trustline but is valid XDR, so it is covered). */
const trustLineAssetArb: fc.Arbitrary<xdr.TrustLineAsset> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(xdr.TrustLineAsset.assetTypeNative()) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(assetCode4Arb, accountIdArb)
      .map(([assetCode, issuer]) =>
        xdr.TrustLineAsset.assetTypeCreditAlphanum4(new xdr.AlphaNum4({ assetCode, issuer })),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(assetCode12Arb, accountIdArb)
      .map(([assetCode, issuer]) =>
        xdr.TrustLineAsset.assetTypeCreditAlphanum12(new xdr.AlphaNum12({ assetCode, issuer })),
      ),
  },
  { weight: 2, arbitrary: bytes32Arb.map((poolId) => xdr.TrustLineAsset.assetTypePoolShare(asHash(poolId))) },
);

const assetArb: fc.Arbitrary<xdr.Asset> = fc.oneof(
  fc.constant(xdr.Asset.assetTypeNative()),
  fc
    .tuple(assetCode4Arb, accountIdArb)
    .map(([assetCode, issuer]) => xdr.Asset.assetTypeCreditAlphanum4(new xdr.AlphaNum4({ assetCode, issuer }))),
);

/** SCAddress, all five arms; CONTRACT (what real CONTRACT_DATA keys use) is the most frequent. */
export const scAddressArb: fc.Arbitrary<xdr.ScAddress> = fc.oneof(
  { weight: 2, arbitrary: accountIdArb.map((id) => xdr.ScAddress.scAddressTypeAccount(id)) },
  { weight: 4, arbitrary: bytes32Arb.map((id) => xdr.ScAddress.scAddressTypeContract(asHash(id))) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(uint64Arb, bytes32Arb)
      .map(([id, ed25519]) =>
        xdr.ScAddress.scAddressTypeMuxedAccount(new xdr.MuxedEd25519Account({ id: uint64(id), ed25519 })),
      ),
  },
  { weight: 1, arbitrary: claimableBalanceIdArb.map((id) => xdr.ScAddress.scAddressTypeClaimableBalance(id)) },
  { weight: 1, arbitrary: bytes32Arb.map((id) => xdr.ScAddress.scAddressTypeLiquidityPool(asHash(id))) },
);

// ---------------------------------------------------------------------------------------------------------------
// SCVal: all 22 arms, containers nested to a bounded depth
// ---------------------------------------------------------------------------------------------------------------

interface EnumClass<T> {
  fromValue(value: number): T;
}

/** js-xdr enums have `fromValue`, which stellar-base's type declarations leave out. */
function enumOf<T>(enumClass: unknown, value: number): T {
  return (enumClass as EnumClass<T>).fromValue(value);
}

const scErrorArb: fc.Arbitrary<xdr.ScError> = fc.oneof(
  uint32Arb.map((code) => xdr.ScError.sceContract(code)),
  fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 9 }))
    .map(
      ([type, code]) =>
        new (xdr.ScError as unknown as new (type: xdr.ScErrorType, code: xdr.ScErrorCode) => xdr.ScError)(
          enumOf<xdr.ScErrorType>(xdr.ScErrorType, type),
          enumOf<xdr.ScErrorCode>(xdr.ScErrorCode, code),
        ),
    ),
);

/** One arbitrary per leaf SCVal arm, by stellar-base arm name (used again to make same-arm siblings). */
const leafScValArms: Record<string, fc.Arbitrary<xdr.ScVal>> = {
  scvBool: fc.boolean().map((b) => xdr.ScVal.scvBool(b)),
  scvVoid: fc.constant(xdr.ScVal.scvVoid()),
  scvError: scErrorArb.map((error) => xdr.ScVal.scvError(error)),
  scvU32: uint32Arb.map((n) => xdr.ScVal.scvU32(n)),
  scvI32: int32Arb.map((n) => xdr.ScVal.scvI32(n)),
  scvU64: uint64Arb.map((n) => xdr.ScVal.scvU64(uint64(n))),
  scvI64: int64Arb.map((n) => xdr.ScVal.scvI64(int64(n))),
  scvTimepoint: uint64Arb.map((n) => xdr.ScVal.scvTimepoint(uint64(n))),
  scvDuration: uint64Arb.map((n) => xdr.ScVal.scvDuration(uint64(n))),
  scvU128: fc
    .tuple(uint64Arb, uint64Arb)
    .map(([hi, lo]) => xdr.ScVal.scvU128(new xdr.UInt128Parts({ hi: uint64(hi), lo: uint64(lo) }))),
  scvI128: fc
    .tuple(int64Arb, uint64Arb)
    .map(([hi, lo]) => xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: int64(hi), lo: uint64(lo) }))),
  scvU256: fc
    .tuple(uint64Arb, uint64Arb, uint64Arb, uint64Arb)
    .map(([hiHi, hiLo, loHi, loLo]) =>
      xdr.ScVal.scvU256(
        new xdr.UInt256Parts({ hiHi: uint64(hiHi), hiLo: uint64(hiLo), loHi: uint64(loHi), loLo: uint64(loLo) }),
      ),
    ),
  scvI256: fc
    .tuple(int64Arb, uint64Arb, uint64Arb, uint64Arb)
    .map(([hiHi, hiLo, loHi, loLo]) =>
      xdr.ScVal.scvI256(
        new xdr.Int256Parts({ hiHi: int64(hiHi), hiLo: uint64(hiLo), loHi: uint64(loHi), loLo: uint64(loLo) }),
      ),
    ),
  scvBytes: varBytesArb(40).map((bytes) => xdr.ScVal.scvBytes(bytes)),
  scvString: varBytesArb(40).map((bytes) => xdr.ScVal.scvString(bytes)),
  scvSymbol: symbolArb.map((symbol) => xdr.ScVal.scvSymbol(symbol)),
  scvAddress: scAddressArb.map((address) => xdr.ScVal.scvAddress(address)),
  scvLedgerKeyContractInstance: fc.constant(xdr.ScVal.scvLedgerKeyContractInstance()),
  scvLedgerKeyNonce: int64Arb.map((nonce) => xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: int64(nonce) }))),
  // Childless containers are leaves too: absent (null) and present-but-empty must stay distinct.
  scvVec: fc.boolean().map((present) => xdr.ScVal.scvVec(present ? [] : null)),
  scvMap: fc.boolean().map((present) => xdr.ScVal.scvMap(present ? [] : null)),
};

const leafScValArb: fc.Arbitrary<xdr.ScVal> = fc.oneof(...Object.values(leafScValArms));

const executableArb: fc.Arbitrary<xdr.ContractExecutable> = fc.oneof(
  bytes32Arb.map((hash) => xdr.ContractExecutable.contractExecutableWasm(hash)),
  fc.constant(xdr.ContractExecutable.contractExecutableStellarAsset()),
);

const scValByDepth = new Map<number, fc.Arbitrary<xdr.ScVal>>();

/** An SCVal whose containers nest at most `depth` levels (depth 0: leaves and empty/absent containers only). */
export function scValArb(depth = 2): fc.Arbitrary<xdr.ScVal> {
  const known = scValByDepth.get(depth);
  if (known !== undefined) return known;
  let arbitrary: fc.Arbitrary<xdr.ScVal>;
  if (depth <= 0) {
    arbitrary = leafScValArb;
  } else {
    const child = scValArb(depth - 1);
    const entries = fc.array(
      fc.tuple(child, child).map(([key, val]) => new xdr.ScMapEntry({ key, val })),
      { maxLength: 3 },
    );
    const optionalEntries = fc.option(entries, { nil: null, freq: 4 });
    arbitrary = fc.oneof(
      { weight: 6, arbitrary: leafScValArb },
      {
        weight: 2,
        arbitrary: fc
          .option(fc.array(child, { maxLength: 3 }), { nil: null, freq: 4 })
          .map((vec) => xdr.ScVal.scvVec(vec)),
      },
      { weight: 1, arbitrary: optionalEntries.map((map) => xdr.ScVal.scvMap(map)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(executableArb, optionalEntries)
          .map(([executable, storage]) =>
            xdr.ScVal.scvContractInstance(new xdr.ScContractInstance({ executable, storage })),
          ),
      },
    );
  }
  scValByDepth.set(depth, arbitrary);
  return arbitrary;
}

const durabilityArb = fc.constantFrom(xdr.ContractDataDurability.temporary(), xdr.ContractDataDurability.persistent());

/** The 22 SCVal arms by stellar-base name, each with an arbitrary of that arm only (containers hold depth-1 values). */
export const SCVAL_ARM_NAMES: readonly string[] = [
  'scvBool',
  'scvVoid',
  'scvError',
  'scvU32',
  'scvI32',
  'scvU64',
  'scvI64',
  'scvTimepoint',
  'scvDuration',
  'scvU128',
  'scvI128',
  'scvU256',
  'scvI256',
  'scvBytes',
  'scvString',
  'scvSymbol',
  'scvVec',
  'scvMap',
  'scvAddress',
  'scvContractInstance',
  'scvLedgerKeyContractInstance',
  'scvLedgerKeyNonce',
];

export function scValOfArmArb(name: string): fc.Arbitrary<xdr.ScVal> {
  const child = scValArb(1);
  const entries = fc.array(
    fc.tuple(child, child).map(([key, val]) => new xdr.ScMapEntry({ key, val })),
    { maxLength: 3 },
  );
  switch (name) {
    case 'scvVec':
      return fc.option(fc.array(child, { maxLength: 3 }), { nil: null, freq: 4 }).map((vec) => xdr.ScVal.scvVec(vec));
    case 'scvMap':
      return fc.option(entries, { nil: null, freq: 4 }).map((map) => xdr.ScVal.scvMap(map));
    case 'scvContractInstance':
      return fc
        .tuple(executableArb, fc.option(entries, { nil: null, freq: 4 }))
        .map(([executable, storage]) =>
          xdr.ScVal.scvContractInstance(new xdr.ScContractInstance({ executable, storage })),
        );
    default: {
      const leaf = leafScValArms[name];
      if (leaf === undefined) throw new Error(`no arbitrary for SCVal arm ${name}`);
      return leaf;
    }
  }
}

/** CONTRACT_DATA keys (one contract, one durability) around an SCVal of arm `name` and a sibling of it. */
export function scValArmKeyPairArb(name: string): fc.Arbitrary<[Uint8Array, Uint8Array]> {
  return fc
    .tuple(scAddressArb, scValOfArmArb(name), durabilityArb)
    .chain(([contract, val, durability]) =>
      siblingScValArb(val).map((sibling): [Uint8Array, Uint8Array] => [
        toBytes(xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key: val, durability }))),
        toBytes(xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key: sibling, durability }))),
      ]),
    );
}

/** A CONTRACT_DATA key's SCVal: real-looking shapes (`Vec[Symbol, Address]`, instance key) plus anything. */
const contractDataKeyValArb: fc.Arbitrary<xdr.ScVal> = fc.oneof(
  { weight: 3, arbitrary: scValArb(2) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(symbolArb, scAddressArb)
      .map(([symbol, address]) => xdr.ScVal.scvVec([xdr.ScVal.scvSymbol(symbol), xdr.ScVal.scvAddress(address)])),
  },
  { weight: 1, arbitrary: fc.constant(xdr.ScVal.scvLedgerKeyContractInstance()) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(symbolArb, scValArb(0)), { minLength: 1, maxLength: 2 })
      .map((entries) =>
        xdr.ScVal.scvMap(entries.map(([symbol, val]) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(symbol), val }))),
      ),
  },
);

// ---------------------------------------------------------------------------------------------------------------
// LedgerKey, every type
// ---------------------------------------------------------------------------------------------------------------

/** Every LedgerEntryType value (ACCOUNT 0 … TTL 9). */
export const LEDGER_ENTRY_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

/** Highest ConfigSettingID in the spec (20 = CONFIG_SETTING_FREEZE_BYPASS_TXS_DELTA). */
export const MAX_CONFIG_SETTING_ID = 20;

const dataNameArb = fc.oneof(
  { weight: 4, arbitrary: varBytesArb(64, fc.constantFrom(0x61, 0x62, 0x00, 0x7f, 0x80, 0xff)) },
  { weight: 1, arbitrary: fc.constantFrom(...['ab', 'b', 'a', 'abc', 'config'].map((s) => Buffer.from(s))) },
);

const keyArbByType: Record<number, fc.Arbitrary<xdr.LedgerKey>> = {
  0: accountIdArb.map((accountId) => xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId }))),
  1: fc
    .tuple(accountIdArb, trustLineAssetArb)
    .map(([accountId, asset]) => xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId, asset }))),
  2: fc
    .tuple(accountIdArb, int64Arb)
    .map(([sellerId, offerId]) => xdr.LedgerKey.offer(new xdr.LedgerKeyOffer({ sellerId, offerId: int64(offerId) }))),
  3: fc
    .tuple(accountIdArb, dataNameArb)
    .map(([accountId, dataName]) => xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId, dataName }))),
  4: claimableBalanceIdArb.map((balanceId) =>
    xdr.LedgerKey.claimableBalance(new xdr.LedgerKeyClaimableBalance({ balanceId })),
  ),
  5: bytes32Arb.map((liquidityPoolId) =>
    xdr.LedgerKey.liquidityPool(new xdr.LedgerKeyLiquidityPool({ liquidityPoolId: asHash(liquidityPoolId) })),
  ),
  6: fc
    .tuple(scAddressArb, contractDataKeyValArb, durabilityArb)
    .map(([contract, key, durability]) =>
      xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key, durability })),
    ),
  7: bytes32Arb.map((hash) => xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash }))),
  8: fc
    .integer({ min: 0, max: MAX_CONFIG_SETTING_ID })
    .map((id) =>
      xdr.LedgerKey.configSetting(
        new xdr.LedgerKeyConfigSetting({ configSettingId: enumOf<xdr.ConfigSettingId>(xdr.ConfigSettingId, id) }),
      ),
    ),
  9: bytes32Arb.map((keyHash) => xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash }))),
};

/** A decoded-form LedgerKey of one type. */
export function ledgerKeyObjectOfTypeArb(type: number): fc.Arbitrary<xdr.LedgerKey> {
  const arbitrary = keyArbByType[type];
  if (arbitrary === undefined) throw new Error(`no arbitrary for LedgerEntryType ${type}`);
  return arbitrary;
}

/** A decoded-form LedgerKey of any type; CONTRACT_DATA, the hard case, is drawn most often. */
export const ledgerKeyObjectArb: fc.Arbitrary<xdr.LedgerKey> = fc.oneof(
  ...LEDGER_ENTRY_TYPES.map((type) => ({
    weight: type === 6 ? 6 : type === 3 ? 2 : 1,
    arbitrary: keyArbByType[type] as fc.Arbitrary<xdr.LedgerKey>,
  })),
);

export const toBytes = (value: { toXDR(format?: 'raw'): Buffer }): Uint8Array => new Uint8Array(value.toXDR());

/** XDR bytes of a LedgerKey of any type. */
export const ledgerKeyArb: fc.Arbitrary<Uint8Array> = ledgerKeyObjectArb.map(toBytes);

/** XDR bytes of a LedgerKey of the given type. */
export function ledgerKeyOfTypeArb(type: number): fc.Arbitrary<Uint8Array> {
  return ledgerKeyObjectOfTypeArb(type).map(toBytes);
}

/** Two keys of one (random) type: the comparison must get past the type and usually deeper. */
export const sameTypeKeyPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = fc
  .constantFrom(...LEDGER_ENTRY_TYPES)
  .chain((type) => fc.tuple(ledgerKeyOfTypeArb(type), ledgerKeyOfTypeArb(type)));

/** Two CONTRACT_DATA keys sharing the contract address, so they differ (if at all) in the SCVal or durability. */
export const sharedContractKeyPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = fc
  .tuple(scAddressArb, contractDataKeyValArb, contractDataKeyValArb, durabilityArb, durabilityArb)
  .map(([contract, keyA, keyB, durabilityA, durabilityB]) => [
    toBytes(
      xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key: keyA, durability: durabilityA })),
    ),
    toBytes(
      xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key: keyB, durability: durabilityB })),
    ),
  ]);

/**
 * The same bytes placed at a random offset inside a larger buffer filled with junk: an engine that reads
 * `bytes.buffer` without `byteOffset`, or past `byteLength`, gives itself away.
 */
export function embeddedArb(bytes: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 255 }))
    .map(([before, after, junk]) => {
      const host = new Uint8Array(before + bytes.length + after).fill(junk);
      host.set(bytes, before);
      return host.subarray(before, before + bytes.length);
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Siblings: a second key that shares most of the first one's structure, so the comparison runs deep
// ---------------------------------------------------------------------------------------------------------------

/** Bytes close to `bytes`: equal, one byte longer, a proper prefix, one byte changed, or without the first byte. */
function siblingBytesArb(
  bytes: Buffer,
  maxLength: number,
  alphabet: fc.Arbitrary<number> = smallByteArb,
): fc.Arbitrary<Buffer> {
  const options: fc.Arbitrary<Buffer>[] = [fc.constant(bytes)];
  if (bytes.length < maxLength) options.push(alphabet.map((byte) => Buffer.concat([bytes, Buffer.from([byte])])));
  if (bytes.length > 0) {
    options.push(fc.integer({ min: 0, max: bytes.length - 1 }).map((length) => bytes.subarray(0, length)));
    options.push(
      fc.tuple(fc.integer({ min: 0, max: bytes.length - 1 }), alphabet).map(([index, byte]) => {
        const changed = Buffer.from(bytes);
        changed[index] = byte === changed[index] ? byte ^ 0x01 : byte;
        return changed;
      }),
    );
    options.push(fc.constant(bytes.subarray(1)));
    // Cut at some index and put a different byte there: lengths differ and the content decides.
    options.push(
      fc
        .tuple(fc.integer({ min: 0, max: bytes.length - 1 }), alphabet)
        .map(([index, byte]) => Buffer.concat([bytes.subarray(0, index), Buffer.from([byte])])),
    );
  }
  return fc.oneof(...options);
}

/** 32 bytes close to `bytes`: equal, or one byte (usually the last) changed. */
function siblingBytes32Arb(bytes: Buffer): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(bytes) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.oneof(fc.constant(31), fc.integer({ min: 0, max: 31 })), smallByteArb)
        .map(([index, byte]) => {
          const changed = Buffer.from(bytes);
          changed[index] = byte === changed[index] ? byte ^ 0x01 : byte;
          return changed;
        }),
    },
  );
}

const siblingAccountIdArb = (accountId: xdr.PublicKey): fc.Arbitrary<xdr.PublicKey> =>
  siblingBytes32Arb(accountId.ed25519()).map((key) => xdr.PublicKey.publicKeyTypeEd25519(key));

function siblingUint64Arb(value: bigint): fc.Arbitrary<bigint> {
  // value ^ 2^63 moves across the sign bit: a signed read orders the pair the wrong way round.
  return fc.oneof(
    fc.constant(value),
    fc.constant(value === UINT64_MAX ? 0n : value + 1n),
    fc.constant(value ^ (1n << 63n)),
    uint64Arb,
  );
}

function siblingInt64Arb(value: bigint): fc.Arbitrary<bigint> {
  const candidates = [value, -value, value + 1n, value - 1n].filter((n) => n >= INT64_MIN && n <= INT64_MAX);
  return fc.oneof(fc.constantFrom(...candidates), int64Arb);
}

function siblingScAddressArb(address: xdr.ScAddress): fc.Arbitrary<xdr.ScAddress> {
  const hash = (value: xdr.Hash): Buffer => value as unknown as Buffer;
  let sameArm: fc.Arbitrary<xdr.ScAddress>;
  switch (address.switch().name) {
    case 'scAddressTypeAccount':
      sameArm = siblingAccountIdArb(address.accountId()).map((id) => xdr.ScAddress.scAddressTypeAccount(id));
      break;
    case 'scAddressTypeContract':
      sameArm = siblingBytes32Arb(hash(address.contractId())).map((id) =>
        xdr.ScAddress.scAddressTypeContract(asHash(id)),
      );
      break;
    case 'scAddressTypeMuxedAccount': {
      const muxed = address.muxedAccount();
      // Either the id or the key changes: the id is compared first, so "bigger id, smaller key" must lose.
      sameArm = fc
        .tuple(siblingUint64Arb(muxed.id().toBigInt()), siblingBytes32Arb(muxed.ed25519()))
        .map(([id, ed25519]) =>
          xdr.ScAddress.scAddressTypeMuxedAccount(new xdr.MuxedEd25519Account({ id: uint64(id), ed25519 })),
        );
      break;
    }
    case 'scAddressTypeClaimableBalance':
      sameArm = siblingBytes32Arb(address.claimableBalanceId().v0()).map((id) =>
        xdr.ScAddress.scAddressTypeClaimableBalance(xdr.ClaimableBalanceId.claimableBalanceIdTypeV0(id)),
      );
      break;
    default:
      sameArm = siblingBytes32Arb(hash(address.liquidityPoolId())).map((id) =>
        xdr.ScAddress.scAddressTypeLiquidityPool(asHash(id)),
      );
  }
  return fc.oneof({ weight: 4, arbitrary: sameArm }, { weight: 1, arbitrary: scAddressArb });
}

/** Same-length-or-one-off variations of a list: replace one element by a sibling, append, drop the last or first. */
function siblingListArb<T>(
  list: readonly T[],
  newElement: fc.Arbitrary<T>,
  siblingElement: (element: T) => fc.Arbitrary<T>,
): fc.Arbitrary<T[]> {
  const options: fc.Arbitrary<T[]>[] = [newElement.map((element) => [...list, element])];
  if (list.length > 0) {
    options.push(fc.constant(list.slice(0, -1)), fc.constant(list.slice(1)));
    options.push(
      fc
        .integer({ min: 0, max: list.length - 1 })
        .chain((index) =>
          siblingElement(list[index] as T).map((element) => list.map((old, i) => (i === index ? element : old))),
        ),
    );
  }
  return fc.oneof(...options);
}

function siblingMapArb(
  map: readonly xdr.ScMapEntry[] | null | undefined,
  depth: number,
): fc.Arbitrary<xdr.ScMapEntry[] | null> {
  if (map === null || map === undefined) return fc.constant([]);
  const child = scValArb(Math.max(0, depth - 1));
  return fc.oneof(
    fc.constant(null),
    siblingListArb(
      map,
      fc.tuple(child, child).map(([key, val]) => new xdr.ScMapEntry({ key, val })),
      (entry) =>
        fc.oneof(
          siblingScValArb(entry.key(), depth - 1).map((key) => new xdr.ScMapEntry({ key, val: entry.val() })),
          siblingScValArb(entry.val(), depth - 1).map((val) => new xdr.ScMapEntry({ key: entry.key(), val })),
        ),
    ),
  );
}

/**
 * A 128/256-bit integer SCVal equal to `value` in every 64-bit limb but one, which gets another value: the limb
 * that decides is then often a low, unsigned one (where a signed read would be wrong) below an equal high limb.
 */
function siblingWideIntArb(value: xdr.ScVal): fc.Arbitrary<xdr.ScVal> {
  const name = value.switch().name;
  let limbs: bigint[];
  if (name === 'scvU128') limbs = [value.u128().hi().toBigInt(), value.u128().lo().toBigInt()];
  else if (name === 'scvI128') limbs = [value.i128().hi().toBigInt(), value.i128().lo().toBigInt()];
  else if (name === 'scvU256') {
    const parts = value.u256();
    limbs = [parts.hiHi(), parts.hiLo(), parts.loHi(), parts.loLo()].map((limb) => limb.toBigInt());
  } else {
    const parts = value.i256();
    limbs = [parts.hiHi(), parts.hiLo(), parts.loHi(), parts.loLo()].map((limb) => limb.toBigInt());
  }
  const signedTop = name === 'scvI128' || name === 'scvI256';
  return fc.integer({ min: 0, max: limbs.length - 1 }).chain((which) =>
    (which === 0 && signedTop ? siblingInt64Arb(limbs[0] as bigint) : siblingUint64Arb(limbs[which] as bigint)).map(
      (limb) => {
        const next = limbs.map((old, i) => (i === which ? limb : old));
        const [a, b, c, d] = next as [bigint, bigint, bigint, bigint];
        switch (name) {
          case 'scvU128':
            return xdr.ScVal.scvU128(new xdr.UInt128Parts({ hi: uint64(a), lo: uint64(b) }));
          case 'scvI128':
            return xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: int64(a), lo: uint64(b) }));
          case 'scvU256':
            return xdr.ScVal.scvU256(
              new xdr.UInt256Parts({ hiHi: uint64(a), hiLo: uint64(b), loHi: uint64(c), loLo: uint64(d) }),
            );
          default:
            return xdr.ScVal.scvI256(
              new xdr.Int256Parts({ hiHi: int64(a), hiLo: uint64(b), loHi: uint64(c), loLo: uint64(d) }),
            );
        }
      },
    ),
  );
}

/** An SCVal close to `value`: equal, same arm with a nearby payload, a container one element off, or unrelated. */
export function siblingScValArb(value: xdr.ScVal, depth = 2): fc.Arbitrary<xdr.ScVal> {
  const name = value.switch().name;
  let near: fc.Arbitrary<xdr.ScVal>;
  switch (name) {
    case 'scvBytes':
      near = siblingBytesArb(value.bytes(), 40).map((bytes) => xdr.ScVal.scvBytes(bytes));
      break;
    case 'scvString':
      near = siblingBytesArb(Buffer.from(value.str()), 40).map((bytes) => xdr.ScVal.scvString(bytes));
      break;
    case 'scvSymbol':
      near = siblingBytesArb(Buffer.from(value.sym()), 32, symbolCharArb).map((bytes) => xdr.ScVal.scvSymbol(bytes));
      break;
    case 'scvI64':
      near = siblingInt64Arb(value.i64().toBigInt()).map((n) => xdr.ScVal.scvI64(int64(n)));
      break;
    case 'scvU128':
    case 'scvI128':
    case 'scvU256':
    case 'scvI256':
      near = siblingWideIntArb(value);
      break;
    case 'scvError': {
      const error = value.error();
      // Same error type, another code: the payload decides.
      near =
        error.switch().value === 0
          ? siblingUint64Arb(BigInt(error.contractCode()))
              .map((code) => Number(code & 0xffffffffn))
              .map((code) => xdr.ScVal.scvError(xdr.ScError.sceContract(code)))
          : fc
              .integer({ min: 0, max: 9 })
              .map((code) =>
                xdr.ScVal.scvError(
                  new (xdr.ScError as unknown as new (type: xdr.ScErrorType, code: xdr.ScErrorCode) => xdr.ScError)(
                    error.switch(),
                    enumOf<xdr.ScErrorCode>(xdr.ScErrorCode, code),
                  ),
                ),
              );
      break;
    }
    case 'scvVec': {
      const vec = value.vec();
      if (vec === null || vec === undefined) {
        near = fc.constant(xdr.ScVal.scvVec([]));
      } else {
        near = fc.oneof(
          fc.constant(xdr.ScVal.scvVec(null)),
          siblingListArb(vec, scValArb(Math.max(0, depth - 1)), (element) => siblingScValArb(element, depth - 1)).map(
            (elements) => xdr.ScVal.scvVec(elements),
          ),
        );
      }
      break;
    }
    case 'scvMap':
      near = siblingMapArb(value.map(), depth).map((map) => xdr.ScVal.scvMap(map));
      break;
    case 'scvAddress':
      near = siblingScAddressArb(value.address()).map((address) => xdr.ScVal.scvAddress(address));
      break;
    case 'scvContractInstance': {
      const instance = value.instance();
      near = fc.oneof(
        executableArb.map((executable) =>
          xdr.ScVal.scvContractInstance(
            new xdr.ScContractInstance({ executable, storage: instance.storage() ?? null }),
          ),
        ),
        siblingMapArb(instance.storage(), depth).map((storage) =>
          xdr.ScVal.scvContractInstance(new xdr.ScContractInstance({ executable: instance.executable(), storage })),
        ),
      );
      break;
    }
    default:
      near = leafScValArms[name] ?? leafScValArb;
  }
  if (depth <= 0) return fc.oneof({ weight: 3, arbitrary: near }, { weight: 1, arbitrary: fc.constant(value) });
  return fc.oneof(
    { weight: 8, arbitrary: near },
    { weight: 1, arbitrary: fc.constant(value) },
    { weight: 1, arbitrary: scValArb(1) },
  );
}

function siblingTrustLineAssetArb(asset: xdr.TrustLineAsset): fc.Arbitrary<xdr.TrustLineAsset> {
  let near: fc.Arbitrary<xdr.TrustLineAsset> = trustLineAssetArb;
  switch (asset.switch().name) {
    case 'assetTypeCreditAlphanum4': {
      const { assetCode, issuer } = { assetCode: asset.alphaNum4().assetCode(), issuer: asset.alphaNum4().issuer() };
      near = fc
        .tuple(
          fc.oneof(fc.constant(assetCode), assetCode4Arb),
          fc.oneof(fc.constant(issuer), siblingAccountIdArb(issuer)),
        )
        .map(([code, by]) =>
          xdr.TrustLineAsset.assetTypeCreditAlphanum4(new xdr.AlphaNum4({ assetCode: code, issuer: by })),
        );
      break;
    }
    case 'assetTypeCreditAlphanum12': {
      const { assetCode, issuer } = { assetCode: asset.alphaNum12().assetCode(), issuer: asset.alphaNum12().issuer() };
      near = fc
        .tuple(
          fc.oneof(fc.constant(assetCode), assetCode12Arb),
          fc.oneof(fc.constant(issuer), siblingAccountIdArb(issuer)),
        )
        .map(([code, by]) =>
          xdr.TrustLineAsset.assetTypeCreditAlphanum12(new xdr.AlphaNum12({ assetCode: code, issuer: by })),
        );
      break;
    }
    case 'assetTypePoolShare':
      near = siblingBytes32Arb(asset.liquidityPoolId() as unknown as Buffer).map((id) =>
        xdr.TrustLineAsset.assetTypePoolShare(asHash(id)),
      );
      break;
    default:
  }
  return fc.oneof({ weight: 3, arbitrary: near }, { weight: 1, arbitrary: trustLineAssetArb });
}

/** A key of the same type as `key` that shares most of its fields (sometimes all of them). */
export function siblingKeyArb(key: xdr.LedgerKey): fc.Arbitrary<xdr.LedgerKey> {
  switch (key.switch().name) {
    case 'account':
      return siblingAccountIdArb(key.account().accountId()).map((accountId) =>
        xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId })),
      );
    case 'trustline': {
      const { accountId, asset } = { accountId: key.trustLine().accountId(), asset: key.trustLine().asset() };
      return fc.oneof(
        siblingTrustLineAssetArb(asset).map((other) =>
          xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId, asset: other })),
        ),
        siblingAccountIdArb(accountId).map((other) =>
          xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: other, asset })),
        ),
      );
    }
    case 'offer': {
      const sellerId = key.offer().sellerId();
      return siblingInt64Arb(key.offer().offerId().toBigInt()).map((offerId) =>
        xdr.LedgerKey.offer(new xdr.LedgerKeyOffer({ sellerId, offerId: int64(offerId) })),
      );
    }
    case 'data': {
      const accountId = key.data().accountId();
      return siblingBytesArb(Buffer.from(key.data().dataName()), 64).map((dataName) =>
        xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId, dataName })),
      );
    }
    case 'claimableBalance':
      return siblingBytes32Arb(key.claimableBalance().balanceId().v0()).map((hash) =>
        xdr.LedgerKey.claimableBalance(
          new xdr.LedgerKeyClaimableBalance({ balanceId: xdr.ClaimableBalanceId.claimableBalanceIdTypeV0(hash) }),
        ),
      );
    case 'liquidityPool':
      return siblingBytes32Arb(key.liquidityPool().liquidityPoolId() as unknown as Buffer).map((id) =>
        xdr.LedgerKey.liquidityPool(new xdr.LedgerKeyLiquidityPool({ liquidityPoolId: asHash(id) })),
      );
    case 'contractData': {
      const data = key.contractData();
      const make = (contract: xdr.ScAddress, val: xdr.ScVal, durability: xdr.ContractDataDurability): xdr.LedgerKey =>
        xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({ contract, key: val, durability }));
      return fc.oneof(
        {
          weight: 5,
          arbitrary: siblingScValArb(data.key()).map((val) => make(data.contract(), val, data.durability())),
        },
        { weight: 1, arbitrary: durabilityArb.map((durability) => make(data.contract(), data.key(), durability)) },
        {
          weight: 1,
          arbitrary: siblingScAddressArb(data.contract()).map((contract) =>
            make(contract, data.key(), data.durability()),
          ),
        },
      );
    }
    case 'contractCode':
      return siblingBytes32Arb(key.contractCode().hash()).map((hash) =>
        xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash })),
      );
    case 'configSetting': {
      const id = key.configSetting().configSettingId().value;
      return fc
        .oneof(
          fc.constantFrom(id, Math.max(0, id - 1), Math.min(MAX_CONFIG_SETTING_ID, id + 1)),
          fc.integer({ min: 0, max: MAX_CONFIG_SETTING_ID }),
        )
        .map((other) =>
          xdr.LedgerKey.configSetting(
            new xdr.LedgerKeyConfigSetting({
              configSettingId: enumOf<xdr.ConfigSettingId>(xdr.ConfigSettingId, other),
            }),
          ),
        );
    }
    default:
      return siblingBytes32Arb(key.ttl().keyHash()).map((keyHash) =>
        xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash })),
      );
  }
}

/** A key and a sibling of it, as XDR: the pairs where byte order and structural order part ways most often. */
export const nearKeyPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = ledgerKeyObjectArb.chain((key) =>
  siblingKeyArb(key).map((sibling): [Uint8Array, Uint8Array] => [toBytes(key), toBytes(sibling)]),
);

// ---------------------------------------------------------------------------------------------------------------
// LedgerEntry for a given key
// ---------------------------------------------------------------------------------------------------------------

/** ConfigSettingIDs whose ConfigSettingEntry arm is simple enough to build here. */
export const BUILDABLE_CONFIG_SETTING_IDS = [0, 8, 9, 12, 13] as const;

function configSettingEntryArb(id: number): fc.Arbitrary<xdr.ConfigSettingEntry> | undefined {
  switch (id) {
    case 0:
      return uint32Arb.map((n) => xdr.ConfigSettingEntry.configSettingContractMaxSizeBytes(n));
    case 8:
      return uint32Arb.map((n) => xdr.ConfigSettingEntry.configSettingContractDataKeySizeBytes(n));
    case 9:
      return uint32Arb.map((n) => xdr.ConfigSettingEntry.configSettingContractDataEntrySizeBytes(n));
    case 12:
      return fc
        .array(uint64Arb, { maxLength: 4 })
        .map((window) => xdr.ConfigSettingEntry.configSettingLiveSorobanStateSizeWindow(window.map(uint64)));
    case 13:
      return fc
        .tuple(uint32Arb, fc.boolean(), uint64Arb)
        .map(([bucketListLevel, isCurrBucket, offset]) =>
          xdr.ConfigSettingEntry.configSettingEvictionIterator(
            new xdr.EvictionIterator({ bucketListLevel, isCurrBucket, bucketFileOffset: uint64(offset) }),
          ),
        );
    default:
      return undefined;
  }
}

/** The LedgerEntryData of an entry whose key is `key`, other fields random; undefined if this file can't build it. */
function entryDataForKeyArb(key: xdr.LedgerKey): fc.Arbitrary<xdr.LedgerEntryData> | undefined {
  switch (key.switch().name) {
    case 'account': {
      const accountId = key.account().accountId();
      return fc
        .record({
          balance: int64Arb,
          seqNum: int64Arb,
          numSubEntries: uint32Arb,
          inflationDest: fc.option(accountIdArb, { nil: null }),
          flags: uint32Arb,
          homeDomain: varBytesArb(32),
          thresholds: fc.uint8Array({ minLength: 4, maxLength: 4 }),
        })
        .map((fields) =>
          xdr.LedgerEntryData.account(
            new xdr.AccountEntry({
              accountId,
              balance: int64(fields.balance),
              seqNum: int64(fields.seqNum),
              numSubEntries: fields.numSubEntries,
              inflationDest: fields.inflationDest,
              flags: fields.flags,
              homeDomain: fields.homeDomain,
              thresholds: Buffer.from(fields.thresholds),
              signers: [],
              ext: new xdr.AccountEntryExt(0),
            }),
          ),
        );
    }
    case 'trustline': {
      const { accountId, asset } = { accountId: key.trustLine().accountId(), asset: key.trustLine().asset() };
      return fc.tuple(int64Arb, int64Arb, uint32Arb).map(([balance, limit, flags]) =>
        xdr.LedgerEntryData.trustline(
          new xdr.TrustLineEntry({
            accountId,
            asset,
            balance: int64(balance),
            limit: int64(limit),
            flags,
            ext: new xdr.TrustLineEntryExt(0),
          }),
        ),
      );
    }
    case 'offer': {
      const { sellerId, offerId } = { sellerId: key.offer().sellerId(), offerId: key.offer().offerId() };
      return fc
        .tuple(assetArb, assetArb, int64Arb, int32Arb, int32Arb, uint32Arb)
        .map(([selling, buying, amount, n, d, flags]) =>
          xdr.LedgerEntryData.offer(
            new xdr.OfferEntry({
              sellerId,
              offerId,
              selling,
              buying,
              amount: int64(amount),
              price: new xdr.Price({ n, d }),
              flags,
              ext: new xdr.OfferEntryExt(0),
            }),
          ),
        );
    }
    case 'data': {
      const { accountId, dataName } = { accountId: key.data().accountId(), dataName: key.data().dataName() };
      return varBytesArb(64).map((dataValue) =>
        xdr.LedgerEntryData.data(new xdr.DataEntry({ accountId, dataName, dataValue, ext: new xdr.DataEntryExt(0) })),
      );
    }
    case 'claimableBalance': {
      const balanceId = key.claimableBalance().balanceId();
      return fc.tuple(accountIdArb, assetArb, int64Arb).map(([destination, asset, amount]) =>
        xdr.LedgerEntryData.claimableBalance(
          new xdr.ClaimableBalanceEntry({
            balanceId,
            claimants: [
              xdr.Claimant.claimantTypeV0(
                new xdr.ClaimantV0({ destination, predicate: xdr.ClaimPredicate.claimPredicateUnconditional() }),
              ),
            ],
            asset,
            amount: int64(amount),
            ext: new xdr.ClaimableBalanceEntryExt(0),
          }),
        ),
      );
    }
    case 'liquidityPool': {
      const liquidityPoolId = key.liquidityPool().liquidityPoolId();
      return fc
        .tuple(assetArb, assetArb, int32Arb, int64Arb, int64Arb, int64Arb, int64Arb)
        .map(([assetA, assetB, fee, reserveA, reserveB, totalPoolShares, poolSharesTrustLineCount]) =>
          xdr.LedgerEntryData.liquidityPool(
            new xdr.LiquidityPoolEntry({
              liquidityPoolId,
              body: xdr.LiquidityPoolEntryBody.liquidityPoolConstantProduct(
                new xdr.LiquidityPoolEntryConstantProduct({
                  params: new xdr.LiquidityPoolConstantProductParameters({ assetA, assetB, fee }),
                  reserveA: int64(reserveA),
                  reserveB: int64(reserveB),
                  totalPoolShares: int64(totalPoolShares),
                  poolSharesTrustLineCount: int64(poolSharesTrustLineCount),
                }),
              ),
            }),
          ),
        );
    }
    case 'contractData': {
      const {
        contract,
        key: keyVal,
        durability,
      } = {
        contract: key.contractData().contract(),
        key: key.contractData().key(),
        durability: key.contractData().durability(),
      };
      return scValArb(1).map((val) =>
        xdr.LedgerEntryData.contractData(
          new xdr.ContractDataEntry({ ext: new xdr.ExtensionPoint(0), contract, key: keyVal, durability, val }),
        ),
      );
    }
    case 'contractCode': {
      const hash = key.contractCode().hash();
      // ext v0, or v1 with cost inputs (52 bytes between the type and the hash that a key reader must skip).
      const extArb = fc.oneof(
        fc.constant(new xdr.ContractCodeEntryExt(0)),
        fc.array(fc.nat({ max: 0xffffffff }), { minLength: 10, maxLength: 10 }).map(
          (n) =>
            new xdr.ContractCodeEntryExt(
              1,
              new xdr.ContractCodeEntryV1({
                ext: new xdr.ExtensionPoint(0),
                costInputs: new xdr.ContractCodeCostInputs({
                  ext: new xdr.ExtensionPoint(0),
                  nInstructions: n[0]!,
                  nFunctions: n[1]!,
                  nGlobals: n[2]!,
                  nTableEntries: n[3]!,
                  nTypes: n[4]!,
                  nDataSegments: n[5]!,
                  nElemSegments: n[6]!,
                  nImports: n[7]!,
                  nExports: n[8]!,
                  nDataSegmentBytes: n[9]!,
                }),
              }),
            ),
        ),
      );
      return fc
        .tuple(varBytesArb(64), extArb)
        .map(([code, ext]) => xdr.LedgerEntryData.contractCode(new xdr.ContractCodeEntry({ ext, hash, code })));
    }
    case 'configSetting':
      return configSettingEntryArb(key.configSetting().configSettingId().value)?.map((setting) =>
        xdr.LedgerEntryData.configSetting(setting),
      );
    case 'ttl': {
      const keyHash = key.ttl().keyHash();
      return uint32Arb.map((liveUntilLedgerSeq) =>
        xdr.LedgerEntryData.ttl(new xdr.TtlEntry({ keyHash, liveUntilLedgerSeq })),
      );
    }
    default:
      return undefined;
  }
}

const entryExtArb: fc.Arbitrary<xdr.LedgerEntryExt> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(new xdr.LedgerEntryExt(0)) },
  {
    weight: 1,
    arbitrary: fc
      .option(accountIdArb, { nil: undefined })
      .map(
        (sponsoringId) =>
          new xdr.LedgerEntryExt(
            1,
            new xdr.LedgerEntryExtensionV1({ sponsoringId, ext: new xdr.LedgerEntryExtensionV1Ext(0) }),
          ),
      ),
  },
);

/** A LedgerEntry whose key is `key`, or undefined for config settings whose entry this file does not build. */
export function ledgerEntryForKeyArb(key: xdr.LedgerKey): fc.Arbitrary<xdr.LedgerEntry> | undefined {
  const data = entryDataForKeyArb(key);
  if (data === undefined) return undefined;
  return fc
    .tuple(uint32Arb, data, entryExtArb)
    .map(
      ([lastModifiedLedgerSeq, entryData, ext]) => new xdr.LedgerEntry({ lastModifiedLedgerSeq, data: entryData, ext }),
    );
}

/** Keys whose entries can be built: every type; config settings only with the buildable ids. */
const entryKeyArb: fc.Arbitrary<xdr.LedgerKey> = fc.oneof(
  ...LEDGER_ENTRY_TYPES.filter((type) => type !== 8).map((type) => keyArbByType[type] as fc.Arbitrary<xdr.LedgerKey>),
  fc
    .constantFrom(...BUILDABLE_CONFIG_SETTING_IDS)
    .map((id) =>
      xdr.LedgerKey.configSetting(
        new xdr.LedgerKeyConfigSetting({ configSettingId: enumOf<xdr.ConfigSettingId>(xdr.ConfigSettingId, id) }),
      ),
    ),
);

/** A decoded-form LedgerEntry of any type. */
export const ledgerEntryObjectArb: fc.Arbitrary<xdr.LedgerEntry> = entryKeyArb.chain(
  (key) => ledgerEntryForKeyArb(key) as fc.Arbitrary<xdr.LedgerEntry>,
);

/** XDR bytes of a LedgerEntry of any type. */
export const ledgerEntryArb: fc.Arbitrary<Uint8Array> = ledgerEntryObjectArb.map(toBytes);

// ---------------------------------------------------------------------------------------------------------------
// Bucket entries
// ---------------------------------------------------------------------------------------------------------------

const bucketMetadataArb: fc.Arbitrary<xdr.BucketMetadata> = fc
  .tuple(uint32Arb, fc.constantFrom<0 | 1 | 2>(0, 1, 2))
  .map(
    ([ledgerVersion, ext]) =>
      new xdr.BucketMetadata({
        ledgerVersion,
        ext:
          ext === 0
            ? new xdr.BucketMetadataExt(0)
            : new xdr.BucketMetadataExt(1, ext === 1 ? xdr.BucketListType.live() : xdr.BucketListType.hotArchive()),
      }),
  );

/** A live-bucket BucketEntry for `key`: META (ignores the key), LIVE, INIT or DEAD. */
export function bucketEntryForKeyArb(key: xdr.LedgerKey): fc.Arbitrary<Uint8Array> {
  const entry = ledgerEntryForKeyArb(key);
  const arms: fc.Arbitrary<xdr.BucketEntry>[] = [
    bucketMetadataArb.map((meta) => xdr.BucketEntry.metaentry(meta)),
    fc.constant(xdr.BucketEntry.deadentry(key)),
  ];
  if (entry !== undefined) {
    arms.push(
      entry.map((e) => xdr.BucketEntry.liveentry(e)),
      entry.map((e) => xdr.BucketEntry.initentry(e)),
    );
  }
  return fc.oneof(...arms).map(toBytes);
}

/** A hot-archive bucket entry for `key`: META, ARCHIVED (full entry) or LIVE (key only). */
export function hotArchiveBucketEntryForKeyArb(key: xdr.LedgerKey): fc.Arbitrary<Uint8Array> {
  const entry = ledgerEntryForKeyArb(key);
  const arms: fc.Arbitrary<xdr.HotArchiveBucketEntry>[] = [
    bucketMetadataArb.map((meta) => xdr.HotArchiveBucketEntry.hotArchiveMetaentry(meta)),
    fc.constant(xdr.HotArchiveBucketEntry.hotArchiveLive(key)),
  ];
  if (entry !== undefined) arms.push(entry.map((e) => xdr.HotArchiveBucketEntry.hotArchiveArchived(e)));
  return fc.oneof(...arms).map(toBytes);
}

/** Two bucket entries that, half the time, share their key (so INIT/LIVE/DEAD of one key meet). */
export const bucketEntryPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = fc
  .tuple(ledgerKeyObjectArb, ledgerKeyObjectArb, fc.boolean())
  .chain(([keyA, keyB, sameKey]) => fc.tuple(bucketEntryForKeyArb(keyA), bucketEntryForKeyArb(sameKey ? keyA : keyB)));

/** The same for hot-archive bucket entries. */
export const hotArchiveBucketEntryPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = fc
  .tuple(ledgerKeyObjectArb, ledgerKeyObjectArb, fc.boolean())
  .chain(([keyA, keyB, sameKey]) =>
    fc.tuple(hotArchiveBucketEntryForKeyArb(keyA), hotArchiveBucketEntryForKeyArb(sameKey ? keyA : keyB)),
  );

/** Any live-bucket entry (for the fuzz corpus). */
export const bucketEntryArb: fc.Arbitrary<Uint8Array> = ledgerKeyObjectArb.chain(bucketEntryForKeyArb);

/** Keys whose entries this file can build (config settings only with BUILDABLE_CONFIG_SETTING_IDS). */
function isEntryBuildable(key: xdr.LedgerKey): boolean {
  if (key.switch().name !== 'configSetting') return true;
  const id = key.configSetting().configSettingId().value;
  return (BUILDABLE_CONFIG_SETTING_IDS as readonly number[]).includes(id);
}

/** Two entries whose keys are siblings (see siblingKeyArb), as XDR, with their keys as decoded objects. */
export const nearEntryPairArb: fc.Arbitrary<[Uint8Array, Uint8Array]> = entryKeyArb.chain((key) =>
  siblingKeyArb(key)
    .filter(isEntryBuildable)
    .chain((sibling) =>
      fc.tuple(
        (ledgerEntryForKeyArb(key) as fc.Arbitrary<xdr.LedgerEntry>).map(toBytes),
        (ledgerEntryForKeyArb(sibling) as fc.Arbitrary<xdr.LedgerEntry>).map(toBytes),
      ),
    ),
);

/** A cluster of keys around one base key: the base and several siblings of it (and siblings of those). */
export const keyClusterArb: fc.Arbitrary<Uint8Array[]> = ledgerKeyObjectArb.chain((base) =>
  fc
    .array(siblingKeyArb(base), { maxLength: 8 })
    .chain((siblings) =>
      fc
        .tuple(...siblings.map((sibling) => fc.oneof(fc.constant(sibling), siblingKeyArb(sibling))))
        .map((cousins) => [base, ...siblings, ...cousins].map(toBytes)),
    ),
);

/** Any hot-archive bucket entry (for the fuzz corpus). */
export const hotArchiveBucketEntryArb: fc.Arbitrary<Uint8Array> =
  ledgerKeyObjectArb.chain(hotArchiveBucketEntryForKeyArb);
