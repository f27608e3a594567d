// Bounds-checked big-endian XDR primitives over a Uint8Array. Every reader of outside bytes goes through these
// checks before touching the bytes, so a length is checked against the buffer before anything loops over or
// allocates for it. Positions are plain numbers (absolute offsets into the caller's array): no cursor objects.
//
// Performance note: each hot reader is a few bytecodes with its failure in a separate cold function. TurboFan only
// inlines small functions, and an error message built in place (a template literal per check) made the readers too
// big to inline, which cost the comparator roughly a third of its speed.
import { describeValue, fail, invalidArgument, LedgerKeyErrorCode, notBytes } from './errors.js';

// ---- cold paths: build the LedgerKeyError only when throwing ----

function fieldName(field: string, part: string | undefined): string {
  return part === undefined ? field : field + part;
}

/** TRUNCATED: `n` bytes were needed at `p`. */
export function truncated(b: Uint8Array, p: number, n: number, field: string, part?: string): never {
  const left = Math.max(0, b.length - p);
  return fail(LedgerKeyErrorCode.TRUNCATED, p, fieldName(field, part), `need ${n} bytes, ${left} left`);
}

/** BAD_DISCRIMINANT for the int32 at `p`. */
export function badDiscriminant(b: Uint8Array, p: number, field: string, part?: string): never {
  return fail(LedgerKeyErrorCode.BAD_DISCRIMINANT, p, fieldName(field, part), `unknown value ${i32(b, p)}`);
}

/** BAD_BOOL for the word at `p`. */
export function badBool(b: Uint8Array, p: number, field: string): never {
  return fail(LedgerKeyErrorCode.BAD_BOOL, p, field, `expected 0 or 1, got ${u32(b, p)}`);
}

/** TRUNCATED: the element count at `p` announces more elements than the bytes after it could hold. */
export function countCannotFit(b: Uint8Array, p: number, minElementSize: number, field: string): never {
  const detail = `${u32(b, p)} elements of at least ${minElementSize} bytes cannot fit in ${b.length - p - 4} bytes`;
  return fail(LedgerKeyErrorCode.TRUNCATED, p, field, detail);
}

/** TOO_LONG: a length or element count at `p` above its XDR bound. */
export function tooLong(b: Uint8Array, p: number, max: number, field: string): never {
  return fail(LedgerKeyErrorCode.TOO_LONG, p, field, `${u32(b, p)} exceeds the XDR bound ${max}`);
}

/** TOO_DEEP: nesting beyond `max` levels at `p`. */
export function tooDeep(p: number, max: number, field: string): never {
  return fail(LedgerKeyErrorCode.TOO_DEEP, p, field, `nesting deeper than ${max} levels`);
}

/** BAD_PADDING at byte `p`. */
export function badPadding(p: number, field: string): never {
  return fail(LedgerKeyErrorCode.BAD_PADDING, p, field, 'non-zero XDR padding');
}

/** TRAILING_BYTES after a value ending at `end`. */
export function trailingBytes(b: Uint8Array, end: number, field: string): never {
  return fail(LedgerKeyErrorCode.TRAILING_BYTES, end, field, `${b.length - end} bytes after the value`);
}

// ---- hot readers ----

/** Throws TRUNCATED unless `n` bytes are available at `p`. The error names `field + part`. */
export function need(b: Uint8Array, p: number, n: number, field: string, part?: string): void {
  if (p + n > b.length) truncated(b, p, n, field, part);
}

/** Unsigned 32-bit big-endian read; the caller has checked bounds (reads past the end would yield 0, not throw). */
export function u32(b: Uint8Array, p: number): number {
  return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

/** Signed 32-bit big-endian read; the caller has checked bounds. */
export function i32(b: Uint8Array, p: number): number {
  return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
}

/**
 * The big-endian uint32 at `bytes[offset, offset + 4)`, for any package that reads XDR or other big-endian words.
 * `offset` must be an integer index into `bytes` with four bytes after it: fewer is TRUNCATED (at `offset`, field
 * `uint32`); bytes that are not a Uint8Array or an offset that is not a non-negative integer are INVALID_ARGUMENT.
 * Allocates nothing; this package's own hot loops use the unchecked `u32` after checking their bounds once.
 */
export function readU32(bytes: Uint8Array, offset: number): number {
  if (!(bytes instanceof Uint8Array)) notBytes(bytes, 'bytes');
  if (!Number.isSafeInteger(offset) || offset < 0) badReadOffset(offset);
  if (offset + 4 > bytes.length) truncated(bytes, offset, 4, 'uint32');
  return u32(bytes, offset);
}

function badReadOffset(offset: number): never {
  return invalidArgument('offset', `offset ${describeValue(offset)} is not a non-negative integer`);
}

/** Checked int32 (enums and union discriminants are int32 in XDR). */
export function readI32(b: Uint8Array, p: number, field: string): number {
  if (p + 4 > b.length) truncated(b, p, 4, field);
  return i32(b, p);
}

/** Checked enum / discriminant in [min, max]; anything else is BAD_DISCRIMINANT. Errors name `field + part`. */
export function readEnum(b: Uint8Array, p: number, min: number, max: number, field: string, part?: string): number {
  if (p + 4 > b.length) truncated(b, p, 4, field, part);
  const value = i32(b, p);
  if (value < min || value > max) badDiscriminant(b, p, field, part);
  return value;
}

/** Checked XDR bool or optional-pointer flag: the wire value must be exactly 0 or 1. */
export function readBool(b: Uint8Array, p: number, field: string): number {
  if (p + 4 > b.length) truncated(b, p, 4, field);
  const value = u32(b, p);
  if (value > 1) badBool(b, p, field);
  return value;
}

/** An `int v` extension union whose only arm is `case 0: void` (ExtensionPoint and friends). */
export function skipVoidExt(b: Uint8Array, p: number, field: string): number {
  readEnum(b, p, 0, 0, field);
  return p + 4;
}

/** Skips `n` fixed bytes (opaque[n] with n a multiple of 4, or a run of fixed-size scalars). */
export function skipFixed(b: Uint8Array, p: number, n: number, field: string): number {
  if (p + n > b.length) truncated(b, p, n, field);
  return p + n;
}

/** Bytes of zero padding after `len` bytes of variable-length data. */
export function padLength(len: number): number {
  return (4 - (len & 3)) & 3;
}

/**
 * Validates opaque<max> / string<max> at `p` (length prefix, bound, bytes, zero padding) and returns the offset
 * after it. The bound is checked before the bytes so an over-long value reports TOO_LONG, not TRUNCATED.
 */
export function skipVarOpaque(b: Uint8Array, p: number, max: number, field: string): number {
  if (p + 4 > b.length) truncated(b, p, 4, field);
  const len = u32(b, p);
  if (len > max) tooLong(b, p, max, field);
  const padStart = p + 4 + len;
  const next = padStart + ((4 - (len & 3)) & 3);
  if (next > b.length) truncated(b, p + 4, next - p - 4, field);
  for (let i = padStart; i < next; i++) {
    if (b[i] !== 0) badPadding(i, field);
  }
  return next;
}

/**
 * Reads the element count of a variable-length array with a bound and a minimum encoded element size, and checks
 * that many elements could fit in the remaining bytes, so a hostile count fails before any loop or allocation.
 */
export function readArrayCount(b: Uint8Array, p: number, max: number, minElementSize: number, field: string): number {
  if (p + 4 > b.length) truncated(b, p, 4, field);
  const count = u32(b, p);
  if (count > max) tooLong(b, p, max, field);
  if (count * minElementSize > b.length - p - 4) countCannotFit(b, p, minElementSize, field);
  return count;
}

/** Throws TRAILING_BYTES unless the value ending at `end` fills the buffer. */
export function expectEnd(b: Uint8Array, end: number, field: string): void {
  if (end !== b.length) trailingBytes(b, end, field);
}

/** Reads a 64-bit unsigned value as a bigint (views only; the comparator never builds bigints). */
export function u64Big(b: Uint8Array, p: number): bigint {
  return (BigInt(u32(b, p)) << 32n) | BigInt(u32(b, p + 4));
}

/** Reads a 64-bit two's-complement value as a bigint (views only). */
export function i64Big(b: Uint8Array, p: number): bigint {
  return (BigInt(i32(b, p)) << 32n) | BigInt(u32(b, p + 4));
}

/** The start offset a `read*(bytes, offset?)` factory uses; INVALID_ARGUMENT unless it is an index into `bytes`. */
export function startOffset(b: Uint8Array, offset: number | undefined): number {
  if (!(b instanceof Uint8Array)) notBytes(b, 'bytes');
  if (offset === undefined) return 0;
  checkOffset(b, offset, 'offset');
  return offset;
}

/** INVALID_ARGUMENT unless `offset` is an integer index into `b` (b.length included: an empty remainder). */
export function checkOffset(b: Uint8Array, offset: number, field: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > b.length) {
    invalidArgument(field, `offset ${describeValue(offset)} is not an index into ${b.length} bytes`);
  }
}

/** INVALID_ARGUMENT unless `value` is a Uint8Array (a Buffer is one; arrays and other typed arrays are not). */
export function checkBytes(value: Uint8Array, field: string): void {
  if (!(value instanceof Uint8Array)) notBytes(value, field);
}

/** INVALID_ARGUMENT unless `value` is a boolean (the is-entry flags of the in-place comparators). */
export function checkFlag(value: boolean, field: string): void {
  if (typeof value !== 'boolean') invalidArgument(field, `expected a boolean, got ${describeValue(value)}`);
}
