// The test oracle for stellar-core's key order: decodes XDR with @stellar/stellar-base (js-xdr) and compares the
// decoded values with a plain recursive comparator written from the xdrpp rules in the spec
// (../shared/spec/ledger-keys-and-buckets.md §2.2–2.4). It deliberately shares no code with src/: it never reads a
// byte of XDR itself (except the CONFIG_SETTING fallback below) and knows nothing of the engine's views or writers.
// Slow by design; only tests and the benchmark baseline use it.
import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-base';

/** Three-way result of every oracle comparison. */
export type Order = -1 | 0 | 1;

// ---------------------------------------------------------------------------------------------------------------
// Leaf rules (§2.2)
// ---------------------------------------------------------------------------------------------------------------

/** Signed or unsigned numeric order; both sides are already of the right signedness (number or bigint). */
function compareNumbers(a: number | bigint, b: number | bigint): Order {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** js-xdr's strings come back as Buffers when decoded but may be JS strings when built: compare them as bytes. */
function bytesOf(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/**
 * `opaque<>`, `string<>` and fixed `opaque[N]`: unsigned bytes lexicographically, and when one is a prefix of
 * the other the shorter sorts first. The length is never compared first (that is what makes XDR byte order
 * differ). For fixed opaque both lengths are equal, so this is plain memcmp.
 */
function compareBytes(a: Uint8Array, b: Uint8Array): Order {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return compareNumbers(a.length, b.length);
}

/** Variable-length arrays: element-wise with `compareElement`, shorter prefix first. */
function compareArrays<T>(a: readonly T[], b: readonly T[], compareElement: (x: T, y: T) => Order): Order {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    const order = compareElement(a[i] as T, b[i] as T);
    if (order !== 0) return order;
  }
  return compareNumbers(a.length, b.length);
}

/** Optional `T*`: absent before present; js-xdr decodes an absent pointer as undefined and we build it as null. */
function compareOptional<T>(
  a: T | null | undefined,
  b: T | null | undefined,
  comparePresent: (x: T, y: T) => Order,
): Order {
  const aPresent = a !== null && a !== undefined;
  const bPresent = b !== null && b !== undefined;
  if (!aPresent || !bPresent) return compareNumbers(aPresent ? 1 : 0, bPresent ? 1 : 0);
  return comparePresent(a, b);
}

/** stellar-base types `Hash` (ContractId, PoolId) as `Opaque[]`, a known workaround; js-xdr decodes it to a Buffer. */
function hashBytes(value: xdr.Hash | Buffer): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new Error('oracle: expected a Buffer for a Hash');
  return value;
}

/** Any js-xdr 64-bit integer (Int64 / Uint64 and the TimePoint / Duration aliases) as a bigint of its signedness. */
function big(value: { toBigInt(): bigint }): bigint {
  return value.toBigInt();
}

/** A union's discriminant: enums expose `.value` (a signed int32); plain-int discriminants are numbers. */
function discriminant(union: { switch(): { value: number } | number }): number {
  const which = union.switch();
  return typeof which === 'number' ? which : which.value;
}

// ---------------------------------------------------------------------------------------------------------------
// Shared Stellar types (§1.1, §2.3)
// ---------------------------------------------------------------------------------------------------------------

function comparePublicKeys(a: xdr.PublicKey, b: xdr.PublicKey): Order {
  return compareNumbers(discriminant(a), discriminant(b)) || compareBytes(a.ed25519(), b.ed25519());
}

function compareClaimableBalanceIds(a: xdr.ClaimableBalanceId, b: xdr.ClaimableBalanceId): Order {
  return compareNumbers(discriminant(a), discriminant(b)) || compareBytes(a.v0(), b.v0());
}

function compareTrustLineAssets(a: xdr.TrustLineAsset, b: xdr.TrustLineAsset): Order {
  const type = discriminant(a);
  const byType = compareNumbers(type, discriminant(b));
  if (byType !== 0) return byType;
  switch (a.switch().name) {
    case 'assetTypeNative':
      return 0;
    case 'assetTypeCreditAlphanum4':
      return (
        compareBytes(a.alphaNum4().assetCode(), b.alphaNum4().assetCode()) ||
        comparePublicKeys(a.alphaNum4().issuer(), b.alphaNum4().issuer())
      );
    case 'assetTypeCreditAlphanum12':
      return (
        compareBytes(a.alphaNum12().assetCode(), b.alphaNum12().assetCode()) ||
        comparePublicKeys(a.alphaNum12().issuer(), b.alphaNum12().issuer())
      );
    case 'assetTypePoolShare':
      return compareBytes(hashBytes(a.liquidityPoolId()), hashBytes(b.liquidityPoolId()));
    default:
      throw new Error(`oracle: unknown asset type ${type}`);
  }
}

/** SCAddress: address type, then the arm (muxed accounts compare their uint64 id before the key, §1.2). */
function compareScAddresses(a: xdr.ScAddress, b: xdr.ScAddress): Order {
  const type = discriminant(a);
  const byType = compareNumbers(type, discriminant(b));
  if (byType !== 0) return byType;
  switch (a.switch().name) {
    case 'scAddressTypeAccount':
      return comparePublicKeys(a.accountId(), b.accountId());
    case 'scAddressTypeContract':
      return compareBytes(hashBytes(a.contractId()), hashBytes(b.contractId()));
    case 'scAddressTypeMuxedAccount':
      return (
        compareNumbers(big(a.muxedAccount().id()), big(b.muxedAccount().id())) ||
        compareBytes(a.muxedAccount().ed25519(), b.muxedAccount().ed25519())
      );
    case 'scAddressTypeClaimableBalance':
      return compareClaimableBalanceIds(a.claimableBalanceId(), b.claimableBalanceId());
    case 'scAddressTypeLiquidityPool':
      return compareBytes(hashBytes(a.liquidityPoolId()), hashBytes(b.liquidityPoolId()));
    default:
      throw new Error(`oracle: unknown SCAddress type ${type}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SCVal (§2.4)
// ---------------------------------------------------------------------------------------------------------------

function compareScErrors(a: xdr.ScError, b: xdr.ScError): Order {
  const type = discriminant(a);
  const byType = compareNumbers(type, discriminant(b));
  if (byType !== 0) return byType;
  // SCE_CONTRACT carries a uint32 contract code; every other error type carries the SCErrorCode enum.
  if (type === 0) return compareNumbers(a.contractCode(), b.contractCode());
  return compareNumbers(a.code().value, b.code().value);
}

function compareMapEntries(a: xdr.ScMapEntry, b: xdr.ScMapEntry): Order {
  return compareScVals(a.key(), b.key()) || compareScVals(a.val(), b.val());
}

function compareMaps(a: xdr.ScMapEntry[] | null | undefined, b: xdr.ScMapEntry[] | null | undefined): Order {
  return compareOptional(a, b, (x, y) => compareArrays(x, y, compareMapEntries));
}

function compareExecutables(a: xdr.ContractExecutable, b: xdr.ContractExecutable): Order {
  const type = discriminant(a);
  const byType = compareNumbers(type, discriminant(b));
  if (byType !== 0) return byType;
  return a.switch().name === 'contractExecutableWasm' ? compareBytes(a.wasmHash(), b.wasmHash()) : 0;
}

/** xdrpp's structural order of two SCVals: discriminant first, then the active arm. */
export function compareScVals(a: xdr.ScVal, b: xdr.ScVal): Order {
  const type = discriminant(a);
  const byType = compareNumbers(type, discriminant(b));
  if (byType !== 0) return byType;
  switch (a.switch().name) {
    case 'scvBool':
      return compareNumbers(a.b() ? 1 : 0, b.b() ? 1 : 0);
    case 'scvVoid':
    case 'scvLedgerKeyContractInstance':
      return 0;
    case 'scvError':
      return compareScErrors(a.error(), b.error());
    case 'scvU32':
      return compareNumbers(a.u32(), b.u32());
    case 'scvI32':
      return compareNumbers(a.i32(), b.i32());
    case 'scvU64':
      return compareNumbers(big(a.u64()), big(b.u64()));
    case 'scvI64':
      return compareNumbers(big(a.i64()), big(b.i64()));
    case 'scvTimepoint':
      return compareNumbers(big(a.timepoint()), big(b.timepoint()));
    case 'scvDuration':
      return compareNumbers(big(a.duration()), big(b.duration()));
    case 'scvU128':
      return (
        compareNumbers(big(a.u128().hi()), big(b.u128().hi())) || compareNumbers(big(a.u128().lo()), big(b.u128().lo()))
      );
    case 'scvI128':
      // hi is int64 (signed), lo uint64: together the numeric int128 order.
      return (
        compareNumbers(big(a.i128().hi()), big(b.i128().hi())) || compareNumbers(big(a.i128().lo()), big(b.i128().lo()))
      );
    case 'scvU256': {
      const x = a.u256();
      const y = b.u256();
      return (
        compareNumbers(big(x.hiHi()), big(y.hiHi())) ||
        compareNumbers(big(x.hiLo()), big(y.hiLo())) ||
        compareNumbers(big(x.loHi()), big(y.loHi())) ||
        compareNumbers(big(x.loLo()), big(y.loLo()))
      );
    }
    case 'scvI256': {
      const x = a.i256();
      const y = b.i256();
      return (
        compareNumbers(big(x.hiHi()), big(y.hiHi())) ||
        compareNumbers(big(x.hiLo()), big(y.hiLo())) ||
        compareNumbers(big(x.loHi()), big(y.loHi())) ||
        compareNumbers(big(x.loLo()), big(y.loLo()))
      );
    }
    case 'scvBytes':
      return compareBytes(a.bytes(), b.bytes());
    case 'scvString':
      return compareBytes(bytesOf(a.str()), bytesOf(b.str()));
    case 'scvSymbol':
      return compareBytes(bytesOf(a.sym()), bytesOf(b.sym()));
    case 'scvVec':
      return compareOptional(a.vec(), b.vec(), (x, y) => compareArrays(x, y, compareScVals));
    case 'scvMap':
      return compareMaps(a.map(), b.map());
    case 'scvAddress':
      return compareScAddresses(a.address(), b.address());
    case 'scvContractInstance':
      return (
        compareExecutables(a.instance().executable(), b.instance().executable()) ||
        compareMaps(a.instance().storage(), b.instance().storage())
      );
    case 'scvLedgerKeyNonce':
      return compareNumbers(big(a.nonceKey().nonce()), big(b.nonceKey().nonce()));
    default:
      throw new Error(`oracle: unknown SCVal type ${type}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// LedgerKey (§2.1, §2.3)
// ---------------------------------------------------------------------------------------------------------------

/**
 * A decoded key. CONFIG_SETTING keys are carried as their raw id: @stellar/stellar-base 15 knows ConfigSettingID
 * 0..20, but a newer XDR may add ids it cannot decode, and the order of a CONFIG_SETTING key is just that int32.
 * So when js-xdr refuses a key whose type is CONFIG_SETTING, the oracle reads the int32 after the type itself.
 */
export type OracleKey = { type: 'xdr'; key: xdr.LedgerKey } | { type: 'configSetting'; configSettingId: number };

const CONFIG_SETTING = 8;

/** Decodes one XDR LedgerKey with stellar-base (strict: throws on trailing bytes, bad padding, unknown enums). */
export function oracleDecodeKey(bytes: Uint8Array): OracleKey {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return oracleKeyOf(xdr.LedgerKey.fromXDR(buffer));
  } catch (error) {
    if (buffer.length === 8 && buffer.readInt32BE(0) === CONFIG_SETTING) {
      return { type: 'configSetting', configSettingId: buffer.readInt32BE(4) };
    }
    throw error;
  }
}

/** Wraps a decoded key, moving CONFIG_SETTING keys to their raw-id form. */
export function oracleKeyOf(key: xdr.LedgerKey): OracleKey {
  if (key.switch().value === CONFIG_SETTING) {
    return { type: 'configSetting', configSettingId: key.configSetting().configSettingId().value };
  }
  return { type: 'xdr', key };
}

function keyType(key: OracleKey): number {
  return key.type === 'configSetting' ? CONFIG_SETTING : key.key.switch().value;
}

/** stellar-core's LedgerEntryIdCmp on two decoded keys: type number, then the arm's fields in declaration order. */
export function compareOracleKeys(left: OracleKey, right: OracleKey): Order {
  const type = keyType(left);
  const byType = compareNumbers(type, keyType(right));
  if (byType !== 0) return byType;
  if (left.type === 'configSetting' || right.type === 'configSetting') {
    if (left.type !== 'configSetting' || right.type !== 'configSetting') throw new Error('oracle: mixed config keys');
    return compareNumbers(left.configSettingId, right.configSettingId);
  }
  const a = left.key;
  const b = right.key;
  switch (a.switch().name) {
    case 'account':
      return comparePublicKeys(a.account().accountId(), b.account().accountId());
    case 'trustline':
      return (
        comparePublicKeys(a.trustLine().accountId(), b.trustLine().accountId()) ||
        compareTrustLineAssets(a.trustLine().asset(), b.trustLine().asset())
      );
    case 'offer':
      return (
        comparePublicKeys(a.offer().sellerId(), b.offer().sellerId()) ||
        compareNumbers(big(a.offer().offerId()), big(b.offer().offerId()))
      );
    case 'data':
      return (
        comparePublicKeys(a.data().accountId(), b.data().accountId()) ||
        compareBytes(bytesOf(a.data().dataName()), bytesOf(b.data().dataName()))
      );
    case 'claimableBalance':
      return compareClaimableBalanceIds(a.claimableBalance().balanceId(), b.claimableBalance().balanceId());
    case 'liquidityPool':
      return compareBytes(
        hashBytes(a.liquidityPool().liquidityPoolId()),
        hashBytes(b.liquidityPool().liquidityPoolId()),
      );
    case 'contractData':
      return (
        compareScAddresses(a.contractData().contract(), b.contractData().contract()) ||
        compareScVals(a.contractData().key(), b.contractData().key()) ||
        compareNumbers(a.contractData().durability().value, b.contractData().durability().value)
      );
    case 'contractCode':
      return compareBytes(a.contractCode().hash(), b.contractCode().hash());
    case 'ttl':
      return compareBytes(a.ttl().keyHash(), b.ttl().keyHash());
    default:
      throw new Error(`oracle: unknown LedgerEntryType ${type}`);
  }
}

/** The oracle's LedgerEntryIdCmp on two XDR LedgerKeys. */
export function oracleCompareLedgerKeys(a: Uint8Array, b: Uint8Array): Order {
  return compareOracleKeys(oracleDecodeKey(a), oracleDecodeKey(b));
}

// ---------------------------------------------------------------------------------------------------------------
// Entries, bucket entries, TTL keys
// ---------------------------------------------------------------------------------------------------------------

/** The LedgerKey of a decoded entry, built field by field with stellar-base (stellar-core `LedgerEntryKey`). */
export function keyOfEntry(entry: xdr.LedgerEntry): xdr.LedgerKey {
  const data = entry.data();
  switch (data.switch().name) {
    case 'account':
      return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: data.account().accountId() }));
    case 'trustline':
      return xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId: data.trustLine().accountId(), asset: data.trustLine().asset() }),
      );
    case 'offer':
      return xdr.LedgerKey.offer(
        new xdr.LedgerKeyOffer({ sellerId: data.offer().sellerId(), offerId: data.offer().offerId() }),
      );
    case 'data':
      return xdr.LedgerKey.data(
        new xdr.LedgerKeyData({ accountId: data.data().accountId(), dataName: data.data().dataName() }),
      );
    case 'claimableBalance':
      return xdr.LedgerKey.claimableBalance(
        new xdr.LedgerKeyClaimableBalance({ balanceId: data.claimableBalance().balanceId() }),
      );
    case 'liquidityPool':
      return xdr.LedgerKey.liquidityPool(
        new xdr.LedgerKeyLiquidityPool({ liquidityPoolId: data.liquidityPool().liquidityPoolId() }),
      );
    case 'contractData':
      return xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: data.contractData().contract(),
          key: data.contractData().key(),
          durability: data.contractData().durability(),
        }),
      );
    case 'contractCode':
      return xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: data.contractCode().hash() }));
    case 'configSetting':
      // The key of a config-setting entry is the discriminant of its ConfigSettingEntry union.
      return xdr.LedgerKey.configSetting(
        new xdr.LedgerKeyConfigSetting({ configSettingId: data.configSetting().switch() }),
      );
    case 'ttl':
      return xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: data.ttl().keyHash() }));
    default:
      throw new Error(`oracle: unknown LedgerEntryType ${data.switch().value}`);
  }
}

function decodeEntry(bytes: Uint8Array): xdr.LedgerEntry {
  return xdr.LedgerEntry.fromXDR(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** The canonical XDR LedgerKey of an XDR LedgerEntry: decode, build the key with stellar-base, encode. */
export function oracleLedgerKeyOfEntry(entryBytes: Uint8Array): Uint8Array {
  return new Uint8Array(keyOfEntry(decodeEntry(entryBytes)).toXDR());
}

/** The oracle's order of an XDR LedgerEntry against an XDR LedgerKey (by the entry's key). */
export function oracleCompareEntryToKey(entryBytes: Uint8Array, keyBytes: Uint8Array): Order {
  return compareOracleKeys(oracleKeyOf(keyOfEntry(decodeEntry(entryBytes))), oracleDecodeKey(keyBytes));
}

/** The oracle's order of two XDR LedgerEntries (by their keys). */
export function oracleCompareLedgerEntries(a: Uint8Array, b: Uint8Array): Order {
  return compareOracleKeys(oracleKeyOf(keyOfEntry(decodeEntry(a))), oracleKeyOf(keyOfEntry(decodeEntry(b))));
}

const META_ENTRY = -1;

/**
 * BucketEntryIdCmp (§2.1): METAENTRY (-1) sorts before everything and two METAs are equal; otherwise the keys
 * (LIVE/INIT: the entry's key, DEAD: the key itself), so INIT/LIVE/DEAD of one key compare equal.
 */
export function oracleCompareBucketEntries(aBytes: Uint8Array, bBytes: Uint8Array): Order {
  const a = xdr.BucketEntry.fromXDR(Buffer.from(aBytes));
  const b = xdr.BucketEntry.fromXDR(Buffer.from(bBytes));
  const aType = a.switch().value;
  const bType = b.switch().value;
  if (aType === META_ENTRY || bType === META_ENTRY)
    return compareNumbers(aType === META_ENTRY ? 0 : 1, bType === META_ENTRY ? 0 : 1);
  const keyOf = (entry: xdr.BucketEntry): xdr.LedgerKey =>
    entry.switch().name === 'deadentry' ? entry.deadEntry() : keyOfEntry(entry.liveEntry());
  return compareOracleKeys(oracleKeyOf(keyOf(a)), oracleKeyOf(keyOf(b)));
}

/** The same for hot-archive buckets: META first; ARCHIVED contributes its entry's key, LIVE its key. */
export function oracleCompareHotArchiveBucketEntries(aBytes: Uint8Array, bBytes: Uint8Array): Order {
  const a = xdr.HotArchiveBucketEntry.fromXDR(Buffer.from(aBytes));
  const b = xdr.HotArchiveBucketEntry.fromXDR(Buffer.from(bBytes));
  const aType = a.switch().value;
  const bType = b.switch().value;
  if (aType === META_ENTRY || bType === META_ENTRY)
    return compareNumbers(aType === META_ENTRY ? 0 : 1, bType === META_ENTRY ? 0 : 1);
  const keyOf = (entry: xdr.HotArchiveBucketEntry): xdr.LedgerKey =>
    entry.switch().name === 'hotArchiveLive' ? entry.key() : keyOfEntry(entry.archivedEntry());
  return compareOracleKeys(oracleKeyOf(keyOf(a)), oracleKeyOf(keyOf(b)));
}

/**
 * The TTL key of a CONTRACT_DATA / CONTRACT_CODE key (§1.4): SHA-256 over the key's full XDR (re-encoded by
 * stellar-base, so canonical), wrapped in a TTL LedgerKey. Undefined for every other key type, where
 * stellar-core's `getTTLKey` asserts.
 */
export function oracleTtlKey(keyBytes: Uint8Array): Uint8Array | undefined {
  const decoded = oracleDecodeKey(keyBytes);
  if (decoded.type !== 'xdr') return undefined;
  const name = decoded.key.switch().name;
  if (name !== 'contractData' && name !== 'contractCode') return undefined;
  const keyHash = createHash('sha256').update(decoded.key.toXDR()).digest();
  return new Uint8Array(xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash })).toXDR());
}

/** Canonical re-encoding of a key through stellar-base (throws where stellar-base cannot decode it). */
export function oracleCanonicalKey(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(xdr.LedgerKey.fromXDR(Buffer.from(bytes)).toXDR());
}

/** Sign of a number as an Order, for comparing the engine's result (any number) to the oracle's. */
export function signOf(value: number): Order {
  return value < 0 ? -1 : value > 0 ? 1 : 0;
}
