// SCVal, the `key` of a CONTRACT_DATA ledger key and the `val` of its entry: full validation (all 22 arms, nesting
// bounded by MAX_SCVAL_DEPTH) and the zero-copy ScValView.
import { assert } from '@strata/base';
import { invalidArgument } from './errors.js';
import { ScAddressView, skipScAddress } from './sc-address.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const {
  MAX_SC_ERROR_CODE,
  MAX_SC_ERROR_TYPE,
  MAX_SC_VAL_TYPE,
  MAX_SCVAL_DEPTH,
  SC_ERROR_TYPE,
  SC_VAL_TYPE,
  SC_VAL_TYPE_NAMES,
  XDR_LIMITS,
} = xdrConstants;
const {
  badDiscriminant,
  expectEnd,
  i32,
  i64Big,
  need,
  readArrayCount,
  readBool,
  readEnum,
  skipFixed,
  skipVarOpaque,
  startOffset,
  tooDeep,
  u32,
  u64Big,
} = xdrCursor;

/** SCError: SCE_CONTRACT -> uint32 contractCode; SCE_WASM_VM..SCE_AUTH -> SCErrorCode enum. */
function skipScError(b: Uint8Array, p: number): number {
  const type = readEnum(b, p, 0, MAX_SC_ERROR_TYPE, 'SCError.type');
  if (type === SC_ERROR_TYPE.CONTRACT) return skipFixed(b, p + 4, 4, 'SCError.contractCode');
  readEnum(b, p + 4, 0, MAX_SC_ERROR_CODE, 'SCError.code');
  return p + 8;
}

/**
 * `SCMap*` at `p` (presence flag, then count and entries), holding values at nesting level `depth + 1`. Shared by
 * SCV_MAP and SCContractInstance.storage.
 */
export function skipOptionalScMap(b: Uint8Array, p: number, depth: number, field: string): number {
  if (readBool(b, p, field) === 0) return p + 4;
  const count = readArrayCount(b, p + 4, XDR_LIMITS.UNBOUNDED, 8, field);
  let q = p + 8;
  for (let i = 0; i < count; i++) {
    q = skipScVal(b, q, depth + 1);
    q = skipScVal(b, q, depth + 1);
  }
  return q;
}

/** `count` consecutive SCVals at nesting level `depth`. */
export function skipScVals(b: Uint8Array, p: number, count: number, depth: number): number {
  let q = p;
  for (let i = 0; i < count; i++) q = skipScVal(b, q, depth);
  return q;
}

/**
 * Payload size of each SCVal arm that is plain fixed-size bytes needing no further checks (any bit pattern is a
 * valid value), or -1 for arms with discriminants, bools, lengths or children to validate. Indexed by SCValType.
 */
export const SCVAL_FIXED_PAYLOAD = Int8Array.of(
  -1, // BOOL: 0 or 1
  0, // VOID
  -1, // ERROR: two enums
  4, // U32
  4, // I32
  8, // U64
  8, // I64
  8, // TIMEPOINT
  8, // DURATION
  16, // U128
  16, // I128
  32, // U256
  32, // I256
  -1, // BYTES
  -1, // STRING
  -1, // SYMBOL
  -1, // VEC
  -1, // MAP
  -1, // ADDRESS
  -1, // CONTRACT_INSTANCE
  0, // LEDGER_KEY_CONTRACT_INSTANCE
  8, // LEDGER_KEY_NONCE
);

/**
 * Validates one SCVal at `p` at nesting level `depth` (the outermost value is level 1) and returns the offset after
 * it. Recursion depth is bounded by MAX_SCVAL_DEPTH, so hostile nesting is TOO_DEEP, never a stack overflow. This
 * runs on every comparison that differs early (the rest of both keys must still be validated), so the fixed-size
 * arms take one table lookup and one bounds check.
 */
export function skipScVal(b: Uint8Array, p: number, depth: number): number {
  if (depth > MAX_SCVAL_DEPTH) {
    tooDeep(p, MAX_SCVAL_DEPTH, 'SCVal');
  }
  need(b, p, 4, 'SCVal.type');
  const type = u32(b, p);
  if (type > MAX_SC_VAL_TYPE) badDiscriminant(b, p, 'SCVal.type');
  const q = p + 4;
  const fixed = SCVAL_FIXED_PAYLOAD[type]!;
  if (fixed >= 0) {
    need(b, q, fixed, 'SCVal');
    return q + fixed;
  }
  switch (type) {
    case SC_VAL_TYPE.SYMBOL:
      return skipVarOpaque(b, q, XDR_LIMITS.SYMBOL, 'SCVal.sym');
    case SC_VAL_TYPE.VEC: {
      if (readBool(b, q, 'SCVal.vec') === 0) return q + 4;
      const count = readArrayCount(b, q + 4, XDR_LIMITS.UNBOUNDED, 4, 'SCVal.vec');
      let next = q + 8;
      for (let i = 0; i < count; i++) next = skipScVal(b, next, depth + 1);
      return next;
    }
    case SC_VAL_TYPE.ADDRESS:
      return skipScAddress(b, q, 'SCVal.address');
    case SC_VAL_TYPE.BYTES:
      return skipVarOpaque(b, q, XDR_LIMITS.UNBOUNDED, 'SCVal.bytes');
    case SC_VAL_TYPE.STRING:
      return skipVarOpaque(b, q, XDR_LIMITS.UNBOUNDED, 'SCVal.str');
    case SC_VAL_TYPE.MAP:
      return skipOptionalScMap(b, q, depth, 'SCVal.map');
    case SC_VAL_TYPE.BOOL:
      readBool(b, q, 'SCVal.b');
      return q + 4;
    case SC_VAL_TYPE.ERROR:
      return skipScError(b, q);
    default: {
      // SC_VAL_TYPE.CONTRACT_INSTANCE: the only arm left.
      const executable = readEnum(b, q, 0, 1, 'SCContractInstance.executable.type');
      const storage = executable === 0 ? skipFixed(b, q + 4, 32, 'SCContractInstance.executable.wasm_hash') : q + 4;
      return skipOptionalScMap(b, storage, depth, 'SCContractInstance.storage');
    }
  }
}

/** SCError as read by ScValView.error(): `type` is SC_ERROR_TYPE, `code` the contract code or SCErrorCode. */
export interface ScErrorValue {
  type: number;
  code: number;
}

/** SCContractInstance as read by ScValView.instance(). `wasmHash` is null for a Stellar Asset Contract. */
export interface ScContractInstanceView {
  executableType: number;
  wasmHash: Uint8Array | null;
  storage: [ScValView, ScValView][] | null;
}

/**
 * Zero-copy reader over one validated SCVal. Scalar accessors decode in place; byte accessors return subarrays of
 * the caller's buffer; vec()/map() build arrays of child views (the only allocations). An accessor that does not
 * fit `type` throws INVALID_ARGUMENT. Views are immutable snapshots only as long as the caller does not mutate the
 * underlying bytes.
 */
export class ScValView {
  /** The exact XDR bytes of this value (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** SCValType number (SC_VAL_TYPE). */
  readonly type: number;

  /** Internal: `xdr` must hold exactly one validated SCVal. Use readScVal. */
  constructor(xdr: Uint8Array) {
    this.xdr = xdr;
    this.type = u32(xdr, 0);
  }

  /** XDR enum name, e.g. `SCV_SYMBOL`. */
  get typeName(): string {
    return SC_VAL_TYPE_NAMES[this.type]!;
  }

  bool(): boolean {
    this.expect(SC_VAL_TYPE.BOOL, 'bool');
    return u32(this.xdr, 4) === 1;
  }

  u32(): number {
    this.expect(SC_VAL_TYPE.U32, 'u32');
    return u32(this.xdr, 4);
  }

  i32(): number {
    this.expect(SC_VAL_TYPE.I32, 'i32');
    return i32(this.xdr, 4);
  }

  u64(): bigint {
    this.expect(SC_VAL_TYPE.U64, 'u64');
    return u64Big(this.xdr, 4);
  }

  i64(): bigint {
    this.expect(SC_VAL_TYPE.I64, 'i64');
    return i64Big(this.xdr, 4);
  }

  /** SCV_TIMEPOINT seconds (uint64). */
  timepoint(): bigint {
    this.expect(SC_VAL_TYPE.TIMEPOINT, 'timepoint');
    return u64Big(this.xdr, 4);
  }

  /** SCV_DURATION seconds (uint64). */
  duration(): bigint {
    this.expect(SC_VAL_TYPE.DURATION, 'duration');
    return u64Big(this.xdr, 4);
  }

  u128(): bigint {
    this.expect(SC_VAL_TYPE.U128, 'u128');
    return (u64Big(this.xdr, 4) << 64n) | u64Big(this.xdr, 12);
  }

  /** Int128Parts {int64 hi; uint64 lo} as one signed bigint. */
  i128(): bigint {
    this.expect(SC_VAL_TYPE.I128, 'i128');
    return (i64Big(this.xdr, 4) << 64n) | u64Big(this.xdr, 12);
  }

  u256(): bigint {
    this.expect(SC_VAL_TYPE.U256, 'u256');
    return this.limbs256(u64Big(this.xdr, 4));
  }

  /** Int256Parts {int64 hi_hi; uint64 hi_lo, lo_hi, lo_lo} as one signed bigint. */
  i256(): bigint {
    this.expect(SC_VAL_TYPE.I256, 'i256');
    return this.limbs256(i64Big(this.xdr, 4));
  }

  /** SCV_BYTES content (subarray). */
  bytes(): Uint8Array {
    this.expect(SC_VAL_TYPE.BYTES, 'bytes');
    return this.content();
  }

  /** SCV_STRING content as raw bytes (subarray; XDR does not require UTF-8). */
  string(): Uint8Array {
    this.expect(SC_VAL_TYPE.STRING, 'string');
    return this.content();
  }

  /** SCV_SYMBOL content as raw bytes (subarray, at most 32 bytes). */
  symbol(): Uint8Array {
    this.expect(SC_VAL_TYPE.SYMBOL, 'symbol');
    return this.content();
  }

  /** SCV_VEC elements, or null when the optional vector is absent (absent is not the same as empty). */
  vec(): ScValView[] | null {
    this.expect(SC_VAL_TYPE.VEC, 'vec');
    if (u32(this.xdr, 4) === 0) return null;
    const count = u32(this.xdr, 8);
    const out: ScValView[] = [];
    let p = 12;
    for (let i = 0; i < count; i++) {
      const end = skipScVal(this.xdr, p, 1);
      out.push(new ScValView(this.xdr.subarray(p, end)));
      p = end;
    }
    return out;
  }

  /** SCV_MAP entries as [key, val] pairs, or null when the optional map is absent. */
  map(): [ScValView, ScValView][] | null {
    this.expect(SC_VAL_TYPE.MAP, 'map');
    return readMapEntries(this.xdr, 4);
  }

  address(): ScAddressView {
    this.expect(SC_VAL_TYPE.ADDRESS, 'address');
    return new ScAddressView(this.xdr.subarray(4));
  }

  error(): ScErrorValue {
    this.expect(SC_VAL_TYPE.ERROR, 'error');
    return { type: u32(this.xdr, 4), code: u32(this.xdr, 8) };
  }

  /** SCV_CONTRACT_INSTANCE: executable (CONTRACT_EXECUTABLE_TYPE, wasm hash) and optional storage map. */
  instance(): ScContractInstanceView {
    this.expect(SC_VAL_TYPE.CONTRACT_INSTANCE, 'instance');
    const executableType = u32(this.xdr, 4);
    const wasmHash = executableType === 0 ? this.xdr.subarray(8, 40) : null;
    return { executableType, wasmHash, storage: readMapEntries(this.xdr, executableType === 0 ? 40 : 8) };
  }

  /** SCV_LEDGER_KEY_NONCE: SCNonceKey.nonce (int64). */
  nonce(): bigint {
    this.expect(SC_VAL_TYPE.LEDGER_KEY_NONCE, 'nonce');
    return i64Big(this.xdr, 4);
  }

  private content(): Uint8Array {
    return this.xdr.subarray(8, 8 + u32(this.xdr, 4));
  }

  private limbs256(top: bigint): bigint {
    return (top << 192n) | (u64Big(this.xdr, 12) << 128n) | (u64Big(this.xdr, 20) << 64n) | u64Big(this.xdr, 28);
  }

  private expect(type: number, accessor: string): void {
    if (this.type !== type) invalidArgument(`ScVal.${accessor}`, `not available on ${this.typeName}`);
  }
}

/** Entries of a validated `SCMap*` at `p`, or null when absent. */
function readMapEntries(b: Uint8Array, p: number): [ScValView, ScValView][] | null {
  if (u32(b, p) === 0) return null;
  const count = u32(b, p + 4);
  const out: [ScValView, ScValView][] = [];
  let q = p + 8;
  for (let i = 0; i < count; i++) {
    const keyEnd = skipScVal(b, q, 1);
    const valEnd = skipScVal(b, keyEnd, 1);
    assert(valEnd <= b.length, 'map entry inside its validated parent');
    out.push([new ScValView(b.subarray(q, keyEnd)), new ScValView(b.subarray(keyEnd, valEnd))]);
    q = valEnd;
  }
  return out;
}

/**
 * Reads and validates an SCVal. Without `offset` the value must fill `bytes` (else TRAILING_BYTES); with `offset` it
 * is read from inside a larger buffer and `view.xdr.length` says how many bytes it took.
 */
export function readScVal(bytes: Uint8Array, offset?: number): ScValView {
  const start = startOffset(bytes, offset);
  const end = skipScVal(bytes, start, 1);
  if (offset === undefined) expectEnd(bytes, end, 'SCVal');
  return new ScValView(bytes.subarray(start, end));
}

/**
 * Validates the one SCVal that starts at `offset` (every arm, bounds, padding, bools, depth) and returns the offset
 * just after it. Allocates nothing: the walker for hot loops over values inside a larger buffer (topics of an event,
 * entries of a vec) that need bounds, not views. Throws LedgerKeyError like readScVal.
 */
export function scValEnd(bytes: Uint8Array, offset: number): number {
  return skipScVal(bytes, startOffset(bytes, offset), 1);
}

/** Validates that `bytes` hold exactly one SCVal (every arm, bounds, padding, bools, depth). */
export function validateScVal(bytes: Uint8Array): void {
  startOffset(bytes, undefined);
  expectEnd(bytes, skipScVal(bytes, 0, 1), 'SCVal');
}
