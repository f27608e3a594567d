// Checks of writer inputs (the plain-object model may come from untyped JavaScript): each returns the checked value
// or throws LedgerKeyError INVALID_ARGUMENT naming the field, so a writer never emits bytes its readers refuse.
import { describeValue, invalidArgument, LedgerKeyError, LedgerKeyErrorCode } from '../errors.js';
import type { XdrString } from '../model.js';

const utf8 = new TextEncoder();
export const U32_MAX = 0xffff_ffff;
const I32_MIN = -0x8000_0000;
const I32_MAX = 0x7fff_ffff;

/** A JS number that is an exact uint32 (numbers, not bigints, because 32-bit fields fit a double exactly). */
export function u32Of(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
    invalidArgument(field, `expected an integer in [0, 2^32), got ${describeValue(value)}`);
  }
  return value;
}

/** A JS number that is an exact int32. */
export function i32Of(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < I32_MIN || value > I32_MAX) {
    invalidArgument(field, `expected an integer in [-2^31, 2^31), got ${describeValue(value)}`);
  }
  return value;
}

/** A bigint in [0, 2^bits) (unsigned) or [-2^(bits-1), 2^(bits-1)) (signed). */
export function bigOf(value: unknown, bits: number, signed: boolean, field: string): bigint {
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
export function bytesOf(value: unknown, length: number, field: string): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== length) {
    invalidArgument(field, `expected a Uint8Array of ${length} bytes`);
  }
  return value;
}

/** A string (UTF-8 encoded) or bytes, at most `max` bytes long. */
export function varBytesOf(value: XdrString | undefined, max: number, field: string): Uint8Array {
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
export function arrayOf<T>(value: readonly T[] | undefined, max: number, field: string): readonly T[] {
  if (value === undefined) return [];
  return requiredArrayOf(value, max, field);
}

/** A variable-length XDR array that must be given (a vec or map value, an SCContractInstance's storage). */
export function requiredArrayOf<T>(value: readonly T[], max: number, field: string): readonly T[] {
  if (!Array.isArray(value)) invalidArgument(field, `expected an array, got ${describeValue(value)}`);
  if (value.length > max) invalidArgument(field, `${value.length} elements exceed the XDR bound ${max}`);
  return value;
}

/** The `type` tag of a model object, for error messages about unknown tags (inputs may come from untyped JS). */
export function tagOf(value: unknown): string {
  return describeValue(typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : value);
}

/** A nested model object (an extension, a signer, a claimant, cost inputs): anything else is INVALID_ARGUMENT. */
export function objectOf<T>(value: T, field: string): NonNullable<T> {
  if (typeof value !== 'object' || value === null) {
    invalidArgument(field, `expected an object, got ${describeValue(value)}`);
  }
  return value;
}

/** Re-validates caller-supplied XDR bytes, turning a format error into INVALID_ARGUMENT (with the original cause). */
export function checkedXdr(bytes: Uint8Array, validate: (bytes: Uint8Array) => void, field: string): Uint8Array {
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
