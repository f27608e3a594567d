// Canonical XDR from the plain-object model (model.ts), for tests and the synthetic-network generator. Every input
// is checked (byte lengths, XDR bounds, integer ranges, nesting, known tags) and a bad one throws INVALID_ARGUMENT
// naming the field, so whatever these functions return passes this package's own validation.
import { skipConfigSettingBody } from './config-setting.js';
import { describeValue, invalidArgument, LedgerKeyError, LedgerKeyErrorCode } from './errors.js';
import { validateLedgerEntry } from './ledger-entry.js';
import { validateLedgerKey } from './ledger-key.js';
import type {
  Asset,
  AssetCode,
  BucketEntry,
  BucketMetadataInput,
  ClaimPredicate,
  HotArchiveBucketEntry,
  LedgerEntry,
  LedgerEntryData,
  LedgerKey,
  ScAddress,
  ScMapEntry,
  ScVal,
  SignerKey,
  TrustLineAsset,
  XdrString,
} from './model.js';
import {
  BUCKET_LIST_TYPE,
  MAX_CLAIM_PREDICATE_DEPTH,
  MAX_CONFIG_SETTING_ID,
  MAX_SC_ERROR_CODE,
  MAX_SC_ERROR_TYPE,
  MAX_SCVAL_DEPTH,
  SC_VAL_TYPE,
  XDR_LIMITS,
} from './xdr-constants.js';

const utf8 = new TextEncoder();
const U32_MAX = 0xffff_ffff;
const I32_MIN = -0x8000_0000;
const I32_MAX = 0x7fff_ffff;
const EMPTY = new Uint8Array(0);
/** [master weight 1, low 0, medium 0, high 0]: the thresholds of a freshly created account. */
const DEFAULT_THRESHOLDS = Uint8Array.of(1, 0, 0, 0);

/** Growable big-endian output buffer. Writes only values already checked by the callers below. */
class XdrWriter {
  #buf = new Uint8Array(128);
  #len = 0;

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let capacity = this.#buf.length * 2;
    while (capacity < this.#len + n) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  u32(value: number): void {
    this.#reserve(4);
    const b = this.#buf;
    const p = this.#len;
    b[p] = value >>> 24;
    b[p + 1] = value >>> 16;
    b[p + 2] = value >>> 8;
    b[p + 3] = value;
    this.#len = p + 4;
  }

  i32(value: number): void {
    this.u32(value >>> 0);
  }

  /** Any bigint in [-2^63, 2^64): written as its low 64 bits (two's complement for negatives). */
  u64(value: bigint): void {
    const bits = BigInt.asUintN(64, value);
    this.u32(Number(bits >> 32n));
    this.u32(Number(bits & 0xffff_ffffn));
  }

  fixed(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buf.set(bytes, this.#len);
    this.#len += bytes.length;
  }

  /** opaque<> / string<>: length, bytes, zero padding. */
  variable(bytes: Uint8Array): void {
    this.u32(bytes.length);
    this.fixed(bytes);
    const pad = (4 - (bytes.length & 3)) & 3;
    this.#reserve(pad);
    this.#buf.fill(0, this.#len, this.#len + pad);
    this.#len += pad;
  }

  finish(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}

// ---- input checks: each returns the checked value or throws INVALID_ARGUMENT naming the field ----

/** A JS number that is an exact uint32 (numbers, not bigints, because 32-bit fields fit a double exactly). */
function u32Of(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
    invalidArgument(field, `expected an integer in [0, 2^32), got ${describeValue(value)}`);
  }
  return value;
}

/** A JS number that is an exact int32. */
function i32Of(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < I32_MIN || value > I32_MAX) {
    invalidArgument(field, `expected an integer in [-2^31, 2^31), got ${describeValue(value)}`);
  }
  return value;
}

/** A bigint in [0, 2^bits) (unsigned) or [-2^(bits-1), 2^(bits-1)) (signed). */
function bigOf(value: unknown, bits: number, signed: boolean, field: string): bigint {
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (typeof value !== 'bigint' || value < min || value > max) {
    invalidArgument(
      field,
      `expected a ${signed ? 'signed' : 'unsigned'} ${bits}-bit bigint, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** Fixed-size opaque (keys, hashes): exactly `length` bytes, never padded or truncated silently. */
function bytesOf(value: unknown, length: number, field: string): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== length) {
    invalidArgument(field, `expected a Uint8Array of ${length} bytes`);
  }
  return value;
}

/** A string (UTF-8 encoded) or bytes, at most `max` bytes long. */
function varBytesOf(value: XdrString | undefined, max: number, field: string): Uint8Array {
  // UTF-8 takes at least one byte per UTF-16 unit, so a string longer than `max` is refused before it is encoded.
  if (typeof value === 'string' && value.length > max) {
    invalidArgument(field, `${value.length} characters exceed the XDR bound of ${max} bytes`);
  }
  const bytes = typeof value === 'string' ? utf8.encode(value) : value;
  if (!(bytes instanceof Uint8Array)) invalidArgument(field, 'expected a string or a Uint8Array');
  if (bytes.length > max) invalidArgument(field, `${bytes.length} bytes exceed the XDR bound ${max}`);
  return bytes;
}

/** A variable-length XDR array within its bound; `undefined` (an omitted optional field) is the empty array. */
function arrayOf<T>(value: readonly T[] | undefined, max: number, field: string): readonly T[] {
  if (value === undefined) return [];
  return requiredArrayOf(value, max, field);
}

/** A variable-length XDR array that must be given (a vec or map value, an SCContractInstance's storage). */
function requiredArrayOf<T>(value: readonly T[], max: number, field: string): readonly T[] {
  if (!Array.isArray(value)) invalidArgument(field, `expected an array, got ${describeValue(value)}`);
  if (value.length > max) invalidArgument(field, `${value.length} elements exceed the XDR bound ${max}`);
  return value;
}

/** The `type` tag of a model object, for error messages about unknown tags (inputs may come from untyped JS). */
function tagOf(value: unknown): string {
  return describeValue(typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : value);
}

/** A nested model object (an extension, a signer, a claimant, cost inputs): anything else is INVALID_ARGUMENT. */
function objectOf<T>(value: T, field: string): NonNullable<T> {
  if (typeof value !== 'object' || value === null) {
    invalidArgument(field, `expected an object, got ${describeValue(value)}`);
  }
  return value;
}

// ---- shared pieces ----

/**
 * AccountID / PublicKey. Only PUBLIC_KEY_TYPE_ED25519 exists, so the model carries just the 32 key bytes and the
 * discriminant is implied.
 */
function writeAccountId(w: XdrWriter, key: Uint8Array, field: string): void {
  w.u32(0); // PUBLIC_KEY_TYPE_ED25519
  w.fixed(bytesOf(key, 32, field));
}

/** `AccountID*` (inflation destination, sponsors): null or undefined is the absent pointer. */
function writeOptionalAccountId(w: XdrWriter, key: Uint8Array | null | undefined, field: string): void {
  if (key === null || key === undefined) {
    w.u32(0);
    return;
  }
  w.u32(1);
  writeAccountId(w, key, field);
}

/** The characters stellar-core accepts in an asset code given as text. */
const ASSET_CODE_TEXT = /^[A-Za-z0-9]+$/;

/** An asset code: text of 1..4 / 5..12 ASCII alphanumerics, zero-padded; or exactly 4 / 12 raw bytes. */
function assetCodeOf(code: AssetCode, size: 4 | 12, field: string): Uint8Array {
  if (code instanceof Uint8Array) return bytesOf(code, size, field);
  const minLength = size === 4 ? 1 : 5;
  if (typeof code !== 'string' || code.length < minLength || code.length > size || !ASSET_CODE_TEXT.test(code)) {
    invalidArgument(field, `expected ${minLength}..${size} ASCII letters or digits`);
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < code.length; i++) out[i] = code.charCodeAt(i);
  return out;
}

/** Asset, or TrustLineAsset when `allowPoolShare` (the only difference is the POOL_SHARE arm). */
function writeAsset(w: XdrWriter, asset: Asset | TrustLineAsset, allowPoolShare: boolean, field: string): void {
  switch (asset?.type) {
    case 'native':
      w.u32(0);
      return;
    case 'alphanum4':
      w.u32(1);
      w.fixed(assetCodeOf(asset.code, 4, `${field}.code`));
      writeAccountId(w, asset.issuer, `${field}.issuer`);
      return;
    case 'alphanum12':
      w.u32(2);
      w.fixed(assetCodeOf(asset.code, 12, `${field}.code`));
      writeAccountId(w, asset.issuer, `${field}.issuer`);
      return;
    case 'poolShare':
      if (!allowPoolShare) break;
      w.u32(3);
      w.fixed(bytesOf(asset.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    default:
      break;
  }
  invalidArgument(field, `unknown or disallowed asset type ${tagOf(asset)}`);
}

/** SCAddress: the arm's fields in XDR declaration order (MUXED_ACCOUNT writes its id before the key). */
function writeScAddress(w: XdrWriter, address: ScAddress, field: string): void {
  switch (address?.type) {
    case 'account':
      w.u32(0);
      writeAccountId(w, address.accountId, `${field}.accountId`);
      return;
    case 'contract':
      w.u32(1);
      w.fixed(bytesOf(address.contractId, 32, `${field}.contractId`));
      return;
    case 'muxedAccount':
      w.u32(2);
      w.u64(bigOf(address.id, 64, false, `${field}.id`)); // id first, as in MuxedEd25519Account
      w.fixed(bytesOf(address.ed25519, 32, `${field}.ed25519`));
      return;
    case 'claimableBalance':
      w.u32(3);
      w.u32(0); // CLAIMABLE_BALANCE_ID_TYPE_V0
      w.fixed(bytesOf(address.balanceId, 32, `${field}.balanceId`));
      return;
    case 'liquidityPool':
      w.u32(4);
      w.fixed(bytesOf(address.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    default:
      invalidArgument(field, `unknown SCAddress type ${tagOf(address)}`);
  }
}

/** `SCMap*` whose entries sit one nesting level below `depth`; null is the absent map, [] the empty one. */
function writeScMap(w: XdrWriter, entries: readonly ScMapEntry[] | null, depth: number, field: string): void {
  if (entries === null) {
    w.u32(0);
    return;
  }
  const list = requiredArrayOf(entries, U32_MAX, field);
  w.u32(1);
  w.u32(list.length);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!Array.isArray(entry) || entry.length !== 2) invalidArgument(`${field}[${i}]`, 'expected a [key, val] pair');
    writeScVal(w, entry[0]!, depth + 1, `${field}[${i}][0]`);
    writeScVal(w, entry[1]!, depth + 1, `${field}[${i}][1]`);
  }
}

/** Writes a two's-complement / unsigned integer of `bits` (128 or 256) as big-endian 64-bit limbs. */
function writeWide(w: XdrWriter, value: bigint, bits: number): void {
  for (let shift = bits - 64; shift >= 0; shift -= 64) w.u64(BigInt.asUintN(64, value >> BigInt(shift)));
}

/**
 * One SCVal at nesting level `depth`. The depth bound is the reader's (MAX_SCVAL_DEPTH), so everything written here
 * can be read back, and a cyclic input object fails instead of recursing forever.
 */
function writeScVal(w: XdrWriter, value: ScVal, depth: number, field: string): void {
  if (depth > MAX_SCVAL_DEPTH) invalidArgument(field, `SCVal nesting deeper than MAX_SCVAL_DEPTH (${MAX_SCVAL_DEPTH})`);
  switch (value?.type) {
    case 'bool':
      if (typeof value.value !== 'boolean') invalidArgument(field, 'expected a boolean');
      w.u32(SC_VAL_TYPE.BOOL);
      w.u32(value.value ? 1 : 0);
      return;
    case 'void':
      w.u32(SC_VAL_TYPE.VOID);
      return;
    case 'error': {
      const errorType = u32Of(value.errorType, `${field}.errorType`);
      if (errorType > MAX_SC_ERROR_TYPE) invalidArgument(`${field}.errorType`, `unknown SCErrorType ${errorType}`);
      const code = u32Of(value.code, `${field}.code`);
      if (errorType !== 0 && code > MAX_SC_ERROR_CODE) invalidArgument(`${field}.code`, `unknown SCErrorCode ${code}`);
      w.u32(SC_VAL_TYPE.ERROR);
      w.u32(errorType);
      w.u32(code);
      return;
    }
    case 'u32':
      w.u32(SC_VAL_TYPE.U32);
      w.u32(u32Of(value.value, field));
      return;
    case 'i32':
      w.u32(SC_VAL_TYPE.I32);
      w.i32(i32Of(value.value, field));
      return;
    case 'u64':
    case 'timepoint':
    case 'duration':
      w.u32(SC_VAL_TYPE[value.type === 'u64' ? 'U64' : value.type === 'timepoint' ? 'TIMEPOINT' : 'DURATION']);
      w.u64(bigOf(value.value, 64, false, field));
      return;
    case 'i64':
      w.u32(SC_VAL_TYPE.I64);
      w.u64(bigOf(value.value, 64, true, field));
      return;
    case 'u128':
      w.u32(SC_VAL_TYPE.U128);
      writeWide(w, bigOf(value.value, 128, false, field), 128);
      return;
    case 'i128':
      w.u32(SC_VAL_TYPE.I128);
      writeWide(w, bigOf(value.value, 128, true, field), 128);
      return;
    case 'u256':
      w.u32(SC_VAL_TYPE.U256);
      writeWide(w, bigOf(value.value, 256, false, field), 256);
      return;
    case 'i256':
      w.u32(SC_VAL_TYPE.I256);
      writeWide(w, bigOf(value.value, 256, true, field), 256);
      return;
    case 'bytes':
      if (!(value.value instanceof Uint8Array)) invalidArgument(field, 'expected a Uint8Array');
      w.u32(SC_VAL_TYPE.BYTES);
      w.variable(value.value);
      return;
    case 'string':
      w.u32(SC_VAL_TYPE.STRING);
      w.variable(varBytesOf(value.value, XDR_LIMITS.UNBOUNDED, field));
      return;
    case 'symbol':
      w.u32(SC_VAL_TYPE.SYMBOL);
      w.variable(varBytesOf(value.value, XDR_LIMITS.SYMBOL, field));
      return;
    case 'vec': {
      w.u32(SC_VAL_TYPE.VEC);
      if (value.value === null) {
        w.u32(0);
        return;
      }
      const items = requiredArrayOf(value.value, U32_MAX, field);
      w.u32(1);
      w.u32(items.length);
      for (let i = 0; i < items.length; i++) writeScVal(w, items[i]!, depth + 1, `${field}[${i}]`);
      return;
    }
    case 'map':
      w.u32(SC_VAL_TYPE.MAP);
      writeScMap(w, value.value, depth, field);
      return;
    case 'address':
      w.u32(SC_VAL_TYPE.ADDRESS);
      writeScAddress(w, value.value, `${field}.address`);
      return;
    case 'contractInstance': {
      w.u32(SC_VAL_TYPE.CONTRACT_INSTANCE);
      const executable = value.executable;
      if (executable?.type === 'wasm') {
        w.u32(0);
        w.fixed(bytesOf(executable.wasmHash, 32, `${field}.executable.wasmHash`));
      } else if (executable?.type === 'stellarAsset') {
        w.u32(1);
      } else {
        invalidArgument(`${field}.executable`, `unknown ContractExecutable type ${tagOf(executable)}`);
      }
      writeScMap(w, value.storage, depth, `${field}.storage`);
      return;
    }
    case 'ledgerKeyContractInstance':
      w.u32(SC_VAL_TYPE.LEDGER_KEY_CONTRACT_INSTANCE);
      return;
    case 'ledgerKeyNonce':
      w.u32(SC_VAL_TYPE.LEDGER_KEY_NONCE);
      w.u64(bigOf(value.nonce, 64, true, `${field}.nonce`));
      return;
    default:
      invalidArgument(field, `unknown SCVal type ${tagOf(value)}`);
  }
}

/** ContractDataDurability from its model name. */
function durabilityOf(durability: unknown, field: string): number {
  if (durability === 'temporary') return 0;
  if (durability === 'persistent') return 1;
  return invalidArgument(field, `expected 'temporary' or 'persistent', got ${describeValue(durability)}`);
}

/** A ConfigSettingID the current XDR defines (0..20). */
function configSettingIdOf(id: unknown, field: string): number {
  const value = i32Of(id, field);
  if (value < 0 || value > MAX_CONFIG_SETTING_ID) invalidArgument(field, `unknown ConfigSettingID ${value}`);
  return value;
}

/** LedgerKey: the type, then the arm's key fields (the same fields, in the same order, that open each entry). */
function writeLedgerKey(w: XdrWriter, key: LedgerKey, field: string): void {
  switch (key?.type) {
    case 'account':
      w.u32(0);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      return;
    case 'trustline':
      w.u32(1);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      writeAsset(w, key.asset, true, `${field}.asset`);
      return;
    case 'offer':
      w.u32(2);
      writeAccountId(w, key.sellerId, `${field}.sellerId`);
      w.u64(bigOf(key.offerId, 64, true, `${field}.offerId`));
      return;
    case 'data':
      w.u32(3);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      w.variable(varBytesOf(key.dataName, XDR_LIMITS.DATA_NAME, `${field}.dataName`));
      return;
    case 'claimableBalance':
      w.u32(4);
      w.u32(0);
      w.fixed(bytesOf(key.balanceId, 32, `${field}.balanceId`));
      return;
    case 'liquidityPool':
      w.u32(5);
      w.fixed(bytesOf(key.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    case 'contractData':
      w.u32(6);
      writeScAddress(w, key.contract, `${field}.contract`);
      writeScVal(w, key.key, 1, `${field}.key`);
      w.u32(durabilityOf(key.durability, `${field}.durability`));
      return;
    case 'contractCode':
      w.u32(7);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'configSetting':
      w.u32(8);
      w.u32(configSettingIdOf(key.configSettingId, `${field}.configSettingId`));
      return;
    case 'ttl':
      w.u32(9);
      w.fixed(bytesOf(key.keyHash, 32, `${field}.keyHash`));
      return;
    default:
      invalidArgument(field, `unknown LedgerKey type ${tagOf(key)}`);
  }
}

/** SignerKey of an account signer: three 32-byte arms and the signed-payload arm with its opaque<64> payload. */
function writeSignerKey(w: XdrWriter, key: SignerKey, field: string): void {
  switch (key?.type) {
    case 'ed25519':
      w.u32(0);
      w.fixed(bytesOf(key.key, 32, `${field}.key`));
      return;
    case 'preAuthTx':
      w.u32(1);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'hashX':
      w.u32(2);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'ed25519SignedPayload':
      w.u32(3);
      w.fixed(bytesOf(key.ed25519, 32, `${field}.ed25519`));
      w.variable(varBytesOf(key.payload, XDR_LIMITS.SIGNED_PAYLOAD, `${field}.payload`));
      return;
    default:
      invalidArgument(field, `unknown SignerKey type ${tagOf(key)}`);
  }
}

/** ClaimPredicate at nesting level `depth`, bounded like the reader (MAX_CLAIM_PREDICATE_DEPTH). */
function writeClaimPredicate(w: XdrWriter, predicate: ClaimPredicate, depth: number, field: string): void {
  if (depth > MAX_CLAIM_PREDICATE_DEPTH) invalidArgument(field, `nesting deeper than ${MAX_CLAIM_PREDICATE_DEPTH}`);
  switch (predicate?.type) {
    case 'unconditional':
      w.u32(0);
      return;
    case 'and':
    case 'or': {
      const children = arrayOf(predicate.predicates, XDR_LIMITS.PREDICATES, `${field}.predicates`);
      w.u32(predicate.type === 'and' ? 1 : 2);
      w.u32(children.length);
      for (let i = 0; i < children.length; i++) {
        writeClaimPredicate(w, children[i]!, depth + 1, `${field}.predicates[${i}]`);
      }
      return;
    }
    case 'not':
      w.u32(3);
      if (predicate.predicate === null) {
        w.u32(0);
      } else {
        w.u32(1);
        writeClaimPredicate(w, predicate.predicate, depth + 1, `${field}.predicate`);
      }
      return;
    case 'beforeAbsoluteTime':
      w.u32(4);
      w.u64(bigOf(predicate.time, 64, true, `${field}.time`));
      return;
    case 'beforeRelativeTime':
      w.u32(5);
      w.u64(bigOf(predicate.seconds, 64, true, `${field}.seconds`));
      return;
    default:
      invalidArgument(field, `unknown ClaimPredicate type ${tagOf(predicate)}`);
  }
}

/** Liabilities {int64 buying; int64 selling} of the account and trust-line ext v1. */
function writeLiabilities(w: XdrWriter, liabilities: { buying: bigint; selling: bigint }, field: string): void {
  objectOf(liabilities, field);
  w.u64(bigOf(liabilities.buying, 64, true, `${field}.buying`));
  w.u64(bigOf(liabilities.selling, 64, true, `${field}.selling`));
}

/** Re-validates caller-supplied XDR bytes, turning a format error into INVALID_ARGUMENT (with the original cause). */
function checkedXdr(bytes: Uint8Array, validate: (bytes: Uint8Array) => void, field: string): Uint8Array {
  try {
    validate(bytes);
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    throw new LedgerKeyError(LedgerKeyErrorCode.INVALID_ARGUMENT, `not a valid XDR value: ${error.message}`, {
      field,
      cause: error,
    });
  }
  return bytes;
}

/**
 * LedgerEntry.data. Each arm writes its key fields first (as writeLedgerKey does) and then the rest in XDR order;
 * omitted optional fields take the values a freshly created entry has (zero balances, no signers, native assets,
 * master weight 1, ext v0), so a generator can build a valid entry from a key alone.
 */
function writeEntryData(w: XdrWriter, data: LedgerEntryData, field: string): void {
  switch (data?.type) {
    case 'account': {
      w.u32(0);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      w.u64(bigOf(data.balance ?? 0n, 64, true, `${field}.balance`));
      w.u64(bigOf(data.seqNum ?? 0n, 64, true, `${field}.seqNum`));
      w.u32(u32Of(data.numSubEntries ?? 0, `${field}.numSubEntries`));
      writeOptionalAccountId(w, data.inflationDest, `${field}.inflationDest`);
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      w.variable(varBytesOf(data.homeDomain ?? EMPTY, XDR_LIMITS.HOME_DOMAIN, `${field}.homeDomain`));
      w.fixed(bytesOf(data.thresholds ?? DEFAULT_THRESHOLDS, 4, `${field}.thresholds`));
      const signers = arrayOf(data.signers, XDR_LIMITS.SIGNERS, `${field}.signers`);
      w.u32(signers.length);
      for (let i = 0; i < signers.length; i++) {
        const signer = objectOf(signers[i], `${field}.signers[${i}]`);
        writeSignerKey(w, signer.key, `${field}.signers[${i}].key`);
        w.u32(u32Of(signer.weight, `${field}.signers[${i}].weight`));
      }
      if (data.v1 === undefined) {
        w.u32(0);
        return;
      }
      const v1 = objectOf(data.v1, `${field}.v1`);
      w.u32(1);
      writeLiabilities(w, v1.liabilities, `${field}.v1.liabilities`);
      if (v1.v2 === undefined) {
        w.u32(0);
        return;
      }
      const v2 = objectOf(v1.v2, `${field}.v1.v2`);
      w.u32(2);
      w.u32(u32Of(v2.numSponsored, `${field}.v1.v2.numSponsored`));
      w.u32(u32Of(v2.numSponsoring, `${field}.v1.v2.numSponsoring`));
      const sponsors = arrayOf(v2.signerSponsoringIds, XDR_LIMITS.SIGNERS, `${field}.v1.v2.signerSponsoringIds`);
      w.u32(sponsors.length);
      for (let i = 0; i < sponsors.length; i++) {
        writeOptionalAccountId(w, sponsors[i], `${field}.v1.v2.signerSponsoringIds[${i}]`);
      }
      if (v2.v3 === undefined) {
        w.u32(0);
        return;
      }
      const v3 = objectOf(v2.v3, `${field}.v1.v2.v3`);
      w.u32(3);
      w.u32(0); // AccountEntryExtensionV3.ext
      w.u32(u32Of(v3.seqLedger, `${field}.v1.v2.v3.seqLedger`));
      w.u64(bigOf(v3.seqTime, 64, false, `${field}.v1.v2.v3.seqTime`));
      return;
    }
    case 'trustline': {
      w.u32(1);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      writeAsset(w, data.asset, true, `${field}.asset`);
      w.u64(bigOf(data.balance ?? 0n, 64, true, `${field}.balance`));
      w.u64(bigOf(data.limit ?? 0n, 64, true, `${field}.limit`));
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      if (data.v1 === undefined) {
        w.u32(0);
        return;
      }
      const v1 = objectOf(data.v1, `${field}.v1`);
      w.u32(1);
      writeLiabilities(w, v1.liabilities, `${field}.v1.liabilities`);
      if (v1.v2 === undefined) {
        w.u32(0);
        return;
      }
      const v2 = objectOf(v1.v2, `${field}.v1.v2`);
      w.u32(2);
      w.i32(i32Of(v2.liquidityPoolUseCount, `${field}.v1.v2.liquidityPoolUseCount`));
      w.u32(0); // TrustLineEntryExtensionV2.ext
      return;
    }
    case 'offer': {
      w.u32(2);
      writeAccountId(w, data.sellerId, `${field}.sellerId`);
      w.u64(bigOf(data.offerId, 64, true, `${field}.offerId`));
      writeAsset(w, data.selling ?? { type: 'native' }, false, `${field}.selling`);
      writeAsset(w, data.buying ?? { type: 'native' }, false, `${field}.buying`);
      w.u64(bigOf(data.amount ?? 0n, 64, true, `${field}.amount`));
      const price = objectOf(data.price ?? { n: 1, d: 1 }, `${field}.price`);
      w.i32(i32Of(price.n, `${field}.price.n`));
      w.i32(i32Of(price.d, `${field}.price.d`));
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      w.u32(0); // ext
      return;
    }
    case 'data':
      w.u32(3);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      w.variable(varBytesOf(data.dataName, XDR_LIMITS.DATA_NAME, `${field}.dataName`));
      w.variable(varBytesOf(data.dataValue ?? EMPTY, XDR_LIMITS.DATA_VALUE, `${field}.dataValue`));
      w.u32(0); // ext
      return;
    case 'claimableBalance': {
      w.u32(4);
      w.u32(0); // CLAIMABLE_BALANCE_ID_TYPE_V0
      w.fixed(bytesOf(data.balanceId, 32, `${field}.balanceId`));
      const claimants = arrayOf(data.claimants, XDR_LIMITS.CLAIMANTS, `${field}.claimants`);
      w.u32(claimants.length);
      for (let i = 0; i < claimants.length; i++) {
        const claimant = objectOf(claimants[i], `${field}.claimants[${i}]`);
        w.u32(0); // CLAIMANT_TYPE_V0
        writeAccountId(w, claimant.destination, `${field}.claimants[${i}].destination`);
        writeClaimPredicate(w, claimant.predicate, 1, `${field}.claimants[${i}].predicate`);
      }
      writeAsset(w, data.asset ?? { type: 'native' }, false, `${field}.asset`);
      w.u64(bigOf(data.amount ?? 0n, 64, true, `${field}.amount`));
      if (data.v1 === undefined) {
        w.u32(0);
        return;
      }
      const v1 = objectOf(data.v1, `${field}.v1`);
      w.u32(1);
      w.u32(0); // ClaimableBalanceEntryExtensionV1.ext
      w.u32(u32Of(v1.flags, `${field}.v1.flags`));
      return;
    }
    case 'liquidityPool':
      w.u32(5);
      w.fixed(bytesOf(data.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      w.u32(0); // LIQUIDITY_POOL_CONSTANT_PRODUCT
      writeAsset(w, data.assetA ?? { type: 'native' }, false, `${field}.assetA`);
      writeAsset(w, data.assetB ?? { type: 'native' }, false, `${field}.assetB`);
      w.i32(i32Of(data.fee ?? 30, `${field}.fee`));
      w.u64(bigOf(data.reserveA ?? 0n, 64, true, `${field}.reserveA`));
      w.u64(bigOf(data.reserveB ?? 0n, 64, true, `${field}.reserveB`));
      w.u64(bigOf(data.totalPoolShares ?? 0n, 64, true, `${field}.totalPoolShares`));
      w.u64(bigOf(data.poolSharesTrustLineCount ?? 0n, 64, true, `${field}.poolSharesTrustLineCount`));
      return;
    case 'contractData':
      w.u32(6);
      w.u32(0); // ExtensionPoint
      writeScAddress(w, data.contract, `${field}.contract`);
      writeScVal(w, data.key, 1, `${field}.key`);
      w.u32(durabilityOf(data.durability, `${field}.durability`));
      writeScVal(w, data.val, 1, `${field}.val`);
      return;
    case 'contractCode': {
      w.u32(7);
      if (data.costInputs === undefined) {
        w.u32(0);
      } else {
        const inputs = objectOf(data.costInputs, `${field}.costInputs`);
        w.u32(1);
        w.u32(0); // v1.ext
        w.u32(0); // ContractCodeCostInputs.ext
        const counts = [
          inputs.nInstructions,
          inputs.nFunctions,
          inputs.nGlobals,
          inputs.nTableEntries,
          inputs.nTypes,
          inputs.nDataSegments,
          inputs.nElemSegments,
          inputs.nImports,
          inputs.nExports,
          inputs.nDataSegmentBytes,
        ];
        for (const count of counts) w.u32(u32Of(count, `${field}.costInputs`));
      }
      w.fixed(bytesOf(data.hash, 32, `${field}.hash`));
      if (!(data.code instanceof Uint8Array)) invalidArgument(`${field}.code`, 'expected a Uint8Array');
      w.variable(data.code);
      return;
    }
    case 'configSetting': {
      const id = configSettingIdOf(data.configSettingId, `${field}.configSettingId`);
      const body = data.body;
      if (!(body instanceof Uint8Array)) invalidArgument(`${field}.body`, 'expected the arm as XDR bytes');
      checkedXdr(
        body,
        (bytes) => {
          const end = skipConfigSettingBody(bytes, 0, id);
          if (end !== bytes.length) invalidArgument(`${field}.body`, `${bytes.length - end} bytes after the arm`);
        },
        `${field}.body`,
      );
      w.u32(8);
      w.u32(id);
      w.fixed(body);
      return;
    }
    case 'ttl':
      w.u32(9);
      w.fixed(bytesOf(data.keyHash, 32, `${field}.keyHash`));
      w.u32(u32Of(data.liveUntilLedgerSeq, `${field}.liveUntilLedgerSeq`));
      return;
    default:
      invalidArgument(field, `unknown LedgerEntry data type ${tagOf(data)}`);
  }
}

/** LedgerEntry: lastModifiedLedgerSeq, data, then ext (v1 only when a sponsorship extension is given). */
function writeLedgerEntry(w: XdrWriter, entry: LedgerEntry, field: string): void {
  if (typeof entry !== 'object' || entry === null) invalidArgument(field, 'expected a LedgerEntry object');
  w.u32(u32Of(entry.lastModifiedLedgerSeq, `${field}.lastModifiedLedgerSeq`));
  writeEntryData(w, entry.data, `${field}.data`);
  if (entry.v1 === undefined) {
    w.u32(0);
    return;
  }
  const v1 = objectOf(entry.v1, `${field}.v1`);
  w.u32(1);
  writeOptionalAccountId(w, v1.sponsoringId, `${field}.v1.sponsoringId`);
  w.u32(0); // LedgerEntryExtensionV1.ext
}

/** The METAENTRY discriminant (-1 in both bucket kinds) and BucketMetadata (ext v1 when a list type is given). */
function writeBucketMetadata(w: XdrWriter, meta: BucketMetadataInput, field: string): void {
  w.i32(-1); // METAENTRY / HOT_ARCHIVE_METAENTRY
  w.u32(u32Of(meta.ledgerVersion, `${field}.ledgerVersion`));
  if (meta.bucketListType === undefined) {
    w.u32(0);
    return;
  }
  if (meta.bucketListType !== 'live' && meta.bucketListType !== 'hotArchive') {
    invalidArgument(`${field}.bucketListType`, `expected 'live' or 'hotArchive'`);
  }
  w.u32(1);
  w.u32(meta.bucketListType === 'live' ? BUCKET_LIST_TYPE.LIVE : BUCKET_LIST_TYPE.HOT_ARCHIVE);
}

/** A LedgerEntry given as a model object, or as XDR that is validated and copied verbatim. */
function writeEntryOrBytes(w: XdrWriter, entry: LedgerEntry | Uint8Array, field: string): void {
  if (entry instanceof Uint8Array) w.fixed(checkedXdr(entry, validateLedgerEntry, field));
  else writeLedgerEntry(w, entry, field);
}

/** A LedgerKey given as a model object, or as XDR that is validated and copied verbatim. */
function writeKeyOrBytes(w: XdrWriter, key: LedgerKey | Uint8Array, field: string): void {
  if (key instanceof Uint8Array) w.fixed(checkedXdr(key, validateLedgerKey, field));
  else writeLedgerKey(w, key, field);
}

/** Runs one top-level writer into a fresh buffer and returns exactly the bytes written. */
function encodeWith<T>(value: T, write: (w: XdrWriter, value: T, field: string) => void, field: string): Uint8Array {
  const w = new XdrWriter();
  write(w, value, field);
  return w.finish();
}

/** Canonical XDR of an SCVal (nesting limited to MAX_SCVAL_DEPTH). */
export function encodeScVal(value: ScVal): Uint8Array {
  return encodeWith(value, (w, v, f) => writeScVal(w, v, 1, f), 'ScVal');
}

/** Canonical XDR of an SCAddress. */
export function encodeScAddress(address: ScAddress): Uint8Array {
  return encodeWith(address, writeScAddress, 'ScAddress');
}

/** Canonical XDR of a LedgerKey. */
export function encodeLedgerKey(key: LedgerKey): Uint8Array {
  return encodeWith(key, writeLedgerKey, 'LedgerKey');
}

/** Canonical XDR of a LedgerEntry (all ten data arms; CONFIG_SETTING takes its arm body as bytes). */
export function encodeLedgerEntry(entry: LedgerEntry): Uint8Array {
  return encodeWith(entry, writeLedgerEntry, 'LedgerEntry');
}

/** Canonical XDR of a live-bucket BucketEntry (meta / live / init / dead). */
export function encodeBucketEntry(entry: BucketEntry): Uint8Array {
  return encodeWith(
    entry,
    (w, e, field) => {
      switch (e?.type) {
        case 'meta':
          writeBucketMetadata(w, e, field);
          return;
        case 'live':
        case 'init':
          w.i32(e.type === 'live' ? 0 : 2);
          writeEntryOrBytes(w, e.entry, `${field}.entry`);
          return;
        case 'dead':
          w.i32(1);
          writeKeyOrBytes(w, e.key, `${field}.key`);
          return;
        default:
          invalidArgument(field, `unknown BucketEntry type ${tagOf(e)}`);
      }
    },
    'BucketEntry',
  );
}

/** Canonical XDR of a HotArchiveBucketEntry (meta / archived / live). */
export function encodeHotArchiveBucketEntry(entry: HotArchiveBucketEntry): Uint8Array {
  return encodeWith(
    entry,
    (w, e, field) => {
      switch (e?.type) {
        case 'meta':
          writeBucketMetadata(w, e, field);
          return;
        case 'archived':
          w.i32(0);
          writeEntryOrBytes(w, e.entry, `${field}.entry`);
          return;
        case 'live':
          w.i32(1);
          writeKeyOrBytes(w, e.key, `${field}.key`);
          return;
        default:
          invalidArgument(field, `unknown HotArchiveBucketEntry type ${tagOf(e)}`);
      }
    },
    'HotArchiveBucketEntry',
  );
}
