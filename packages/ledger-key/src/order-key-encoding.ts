// Order keys: an encoding of a LedgerKey whose plain byte order (memcmp) is stellar-core's LedgerEntryIdCmp order,
// and whose byte equality is key equality. Made once per record, they let a k-way merge or a sort decide each
// comparison with a plain byte compare instead of a structural walk of two keys (spec §2.5 suggests exactly this).
//
// The encoding copies the key's XDR field by field, changing only what XDR bytes do not order structurally:
//   - signed integers (OFFER offerID, SCV_I32/I64/I128/I256 and the nonce) get their sign bit flipped, so two's
//     complement sorts as offset binary;
//   - variable-length bytes (DATA dataName, SCV_BYTES/STRING/SYMBOL) become their content with each 0x00 written as
//     0x00 0xFF, then the terminator 0x00 0x00: content order, a shorter prefix first, no length in front;
//   - vectors and maps (SCV_VEC/SCV_MAP) become 0x01 before each element (a map element is key then value) and 0x00
//     after the last: element order, a shorter prefix first.
// Everything else (discriminants — all non-negative in valid keys — fixed opaque, unsigned integers, bools and
// optional flags) is already byte-ordered and is copied. Every field's encoding is prefix-free, so the concatenation
// orders as the struct does field by field. The key is validated first (LedgerKeyError on malformed input).
import { describeValue, invalidArgument } from './errors.js';
import { entryKeyStart } from './ledger-entry.js';
import { readLedgerEntryType, skipKeyArm } from './ledger-key.js';
import { scAddressSize } from './sc-address.js';
import { SCVAL_FIXED_PAYLOAD } from './scval.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

const { LEDGER_ENTRY_TYPE, SC_VAL_TYPE } = xdrConstants;
const { checkBytes, checkOffset, expectEnd, padLength, u32 } = xdrCursor;
// Module-local bindings of imported functions: hot paths call them per field (see compare.ts on why).
const entryKeyStartOf = entryKeyStart;
const ledgerEntryTypeAt = readLedgerEntryType;
const skipKeyFields = skipKeyArm;
const scAddressBytes = scAddressSize;
const FIXED_PAYLOAD = SCVAL_FIXED_PAYLOAD;

/** Bytes after the type of each TrustLineAsset arm: NATIVE, ALPHANUM4, ALPHANUM12, POOL_SHARE. */
const TRUSTLINE_ASSET_ARM = [0, 40, 48, 32];

/** SCVal types whose fixed payload is a signed integer (sign bit flipped in the order key). */
const SIGNED_SCVAL = new Uint8Array(32);
for (const type of [
  SC_VAL_TYPE.I32,
  SC_VAL_TYPE.I64,
  SC_VAL_TYPE.I128,
  SC_VAL_TYPE.I256,
  SC_VAL_TYPE.LEDGER_KEY_NONCE,
]) {
  SIGNED_SCVAL[type] = 1;
}

/** Largest initial capacity an OrderKey takes (it grows past it when a key needs more). */
const MAX_INITIAL_CAPACITY = 1 << 20;

/** INVALID_ARGUMENT unless `other` is an OrderKey. */
function checkOrderKey(other: OrderKey): void {
  if (!(other instanceof OrderKey)) invalidArgument('other', `expected an OrderKey, got ${describeValue(other)}`);
}

/**
 * A reusable order-key buffer: `setFromKey` / `setFromEntry` overwrite it (growing only when a key needs more room),
 * `compare` orders two of them with a native memcmp. Not thread-safe; one per cursor. Bad arguments (a capacity
 * outside [0, 2^20], bytes that are not a Uint8Array, an offset outside them, another argument than an OrderKey) are
 * LedgerKeyError INVALID_ARGUMENT.
 */
export class OrderKey {
  bytes: Uint8Array;
  length = 0;
  /** The same memory as 32-bit words, to find the first difference four bytes at a time. */
  private words: Uint32Array;

  constructor(capacity = 256) {
    if (!Number.isSafeInteger(capacity) || capacity < 0 || capacity > MAX_INITIAL_CAPACITY) {
      invalidArgument('capacity', `capacity ${describeValue(capacity)} is not in [0, ${MAX_INITIAL_CAPACITY}]`);
    }
    const buffer = new ArrayBuffer(roundUp4(capacity));
    this.bytes = new Uint8Array(buffer);
    this.words = new Uint32Array(buffer);
  }

  /** The order key of the XDR LedgerKey at `b[p..end)` (the key must end exactly at `end`, default b.length). */
  setFromKey(b: Uint8Array, p = 0, end?: number): this {
    checkBytes(b, 'b');
    checkOffset(b, p, 'p');
    if (end === undefined) end = b.length;
    else if (!(Number.isSafeInteger(end) && end >= p && end <= b.length)) {
      invalidArgument('end', `end ${describeValue(end)} is not in [${p}, ${b.length}]`);
    }
    const type = ledgerEntryTypeAt(b, p, 'LedgerKey.type');
    const keyEnd = skipKeyFields(b, p + 4, type);
    if (keyEnd !== end) expectEnd(b.subarray(0, end), keyEnd, 'LedgerKey');
    this.start(keyEnd - p);
    this.copy(b, p, 4);
    this.keyArm(type, b, p + 4);
    return this;
  }

  /** The order key of the key of the XDR LedgerEntry at `b[p..)` (only its key fields are read and validated). */
  setFromEntry(b: Uint8Array, p = 0): this {
    checkBytes(b, 'b');
    checkOffset(b, p, 'p');
    const keyStart = entryKeyStartOf(b, p);
    const type = u32(b, p + 4);
    const keyEnd = skipKeyFields(b, keyStart, type);
    this.start(4 + keyEnd - keyStart);
    this.copy(b, p + 4, 4);
    this.keyArm(type, b, keyStart);
    return this;
  }

  /**
   * Empties the key and makes room for the encoding of `xdrLength` bytes of validated key XDR, which is at most
   * twice that (an escaped 0x00 doubles; a terminator or sequence marker replaces at least a 4-byte length or count),
   * so the field writers need no capacity checks of their own.
   */
  private start(xdrLength: number): void {
    this.length = 0;
    this.reserve(2 * xdrLength + 8);
  }

  /** Copies another order key into this one. */
  setFrom(other: OrderKey): this {
    checkOrderKey(other);
    this.length = 0;
    this.reserve(other.length);
    const words = (other.length + 3) >>> 2;
    const from = other.words;
    const to = this.words;
    for (let i = 0; i < words; i++) to[i] = from[i]!;
    this.length = other.length;
    return this;
  }

  /**
   * -1, 0 or 1: the order of the two keys (LedgerEntryIdCmp). Whole words are compared for equality (word order is
   * not byte order on little-endian hosts), then the first differing word byte by byte. Order keys share long
   * prefixes (the contract, the key's shape), where this beats a native memcmp call's fixed cost.
   */
  compare(other: OrderKey): number {
    checkOrderKey(other);
    const a = this.bytes;
    const b = other.bytes;
    const n = Math.min(this.length, other.length);
    const aw = this.words;
    const bw = other.words;
    const whole = n >>> 2;
    let i = 0;
    while (i < whole && aw[i] === bw[i]) i++;
    for (let p = i << 2; p < n; p++) {
      const x = a[p]!;
      const y = b[p]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
  }

  /** A copy of the encoded bytes. */
  toBytes(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const buffer = new ArrayBuffer(roundUp4(Math.max(this.bytes.length * 2, this.length + n)));
    const grown = new Uint8Array(buffer);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.words = new Uint32Array(buffer);
  }

  /**
   * n bytes of b from p. A plain loop: fields are a few dozen bytes, where it is as fast as a native copy (measured),
   * and a native copy would need a view object per field; encoding a record allocates nothing.
   */
  private copy(b: Uint8Array, p: number, n: number): void {
    const out = this.bytes;
    const at = this.length;
    for (let i = 0; i < n; i++) out[at + i] = b[p + i]!;
    this.length = at + n;
  }

  private byte(value: number): void {
    this.bytes[this.length++] = value;
  }

  /** n bytes of a two's-complement integer, big-endian, with the sign bit flipped. */
  private signed(b: Uint8Array, p: number, n: number): void {
    this.copy(b, p, n);
    this.bytes[this.length - n]! ^= 0x80;
  }

  /** opaque<> / string<> at p: escaped content and terminator. Returns the offset after the XDR value. */
  private varBytes(b: Uint8Array, p: number): number {
    const len = u32(b, p);
    const start = p + 4;
    const out = this.bytes;
    let at = this.length;
    for (let i = 0; i < len; i++) {
      const value = b[start + i]!;
      out[at++] = value;
      if (value === 0) out[at++] = 0xff;
    }
    out[at++] = 0;
    out[at++] = 0;
    this.length = at;
    return start + len + padLength(len);
  }

  private keyArm(type: number, b: Uint8Array, p: number): void {
    switch (type) {
      case LEDGER_ENTRY_TYPE.ACCOUNT:
        this.copy(b, p, 36);
        return;
      case LEDGER_ENTRY_TYPE.TRUSTLINE: {
        // accountID, then TrustLineAsset: type, then a fixed arm (native: none; 4-byte code + issuer; 12-byte code +
        // issuer; pool id).
        const assetType = u32(b, p + 36);
        this.copy(b, p, 40 + (TRUSTLINE_ASSET_ARM[assetType] ?? 0));
        return;
      }
      case LEDGER_ENTRY_TYPE.OFFER:
        this.copy(b, p, 36);
        this.signed(b, p + 36, 8);
        return;
      case LEDGER_ENTRY_TYPE.DATA:
        this.copy(b, p, 36);
        this.varBytes(b, p + 36);
        return;
      case LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE:
        this.copy(b, p, 36);
        return;
      case LEDGER_ENTRY_TYPE.CONTRACT_DATA: {
        const afterContract = this.scAddress(b, p);
        const afterKey = this.scVal(b, afterContract);
        this.copy(b, afterKey, 4); // durability
        return;
      }
      case LEDGER_ENTRY_TYPE.CONFIG_SETTING:
        this.copy(b, p, 4);
        return;
      default:
        // LIQUIDITY_POOL, CONTRACT_CODE, TTL: a 32-byte hash.
        this.copy(b, p, 32);
    }
  }

  /** SCAddress: every arm is fixed-size after its type, and ordered as bytes. */
  private scAddress(b: Uint8Array, p: number): number {
    const size = scAddressBytes(u32(b, p));
    this.copy(b, p, size);
    return p + size;
  }

  private scVal(b: Uint8Array, p: number): number {
    const type = u32(b, p);
    this.copy(b, p, 4);
    const q = p + 4;
    const fixed = FIXED_PAYLOAD[type]!;
    if (fixed >= 0) {
      if (SIGNED_SCVAL[type] === 1) this.signed(b, q, fixed);
      else this.copy(b, q, fixed);
      return q + fixed;
    }
    switch (type) {
      case SC_VAL_TYPE.BOOL:
        this.copy(b, q, 4);
        return q + 4;
      case SC_VAL_TYPE.ERROR:
        this.copy(b, q, 8); // SCErrorType, then the contract code (uint32) or SCErrorCode: both non-negative
        return q + 8;
      case SC_VAL_TYPE.BYTES:
      case SC_VAL_TYPE.STRING:
      case SC_VAL_TYPE.SYMBOL:
        return this.varBytes(b, q);
      case SC_VAL_TYPE.VEC:
        return this.sequence(b, q, false);
      case SC_VAL_TYPE.MAP:
        return this.sequence(b, q, true);
      case SC_VAL_TYPE.ADDRESS:
        return this.scAddress(b, q);
      default: {
        // CONTRACT_INSTANCE: executable (type, then the wasm hash for WASM), then the optional storage map.
        const executable = u32(b, q);
        const size = executable === 0 ? 36 : 4;
        this.copy(b, q, size);
        return this.sequence(b, q + size, true);
      }
    }
  }

  /** Optional vec or map: the presence flag, then 0x01 + element per element and 0x00 at the end. */
  private sequence(b: Uint8Array, p: number, map: boolean): number {
    this.copy(b, p, 4); // optional flag: absent (0) < present (1)
    if (u32(b, p) === 0) return p + 4;
    const count = u32(b, p + 4);
    let next = p + 8;
    for (let i = 0; i < count; i++) {
      this.byte(1);
      next = this.scVal(b, next);
      if (map) next = this.scVal(b, next);
    }
    this.byte(0);
    return next;
  }
}

function roundUp4(n: number): number {
  return (n + 3) & ~3;
}

/** The order key of an XDR LedgerKey, as a new array (convenience; hot paths reuse an OrderKey). */
export function orderKeyOf(key: Uint8Array): Uint8Array {
  return new OrderKey().setFromKey(key).toBytes();
}
