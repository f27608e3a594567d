// Checks of what callers hand the package's public functions and constructors. Each throws BucketError
// INVALID_ARGUMENT with the `field` at fault, so that a null, a string where bytes belong or a fractional ledger is
// reported as such instead of surfacing as a TypeError from deep inside (or, worse, being taken as something else).
// They check shapes and ranges only; the contents of records and keys are validated where they are read.
import { describeValue } from '@strata/base';
import type { BucketFile } from './bucket-file.js';
import { BucketError } from './errors.js';
import type { BucketKind } from './kind.js';

const UINT32_MAX = 0xffff_ffff;
const HASH_HEX = /^[0-9a-f]{64}$/;

export function invalidArgument(field: string, expected: string, value: unknown): never {
  throw new BucketError('INVALID_ARGUMENT', `${field} must be ${expected}, got ${describeValue(value)}`, { field });
}

/** A plain object (not null, not an array). */
export function requireObject(value: unknown, field: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalidArgument(field, 'an object', value);
}

/** An options object, or undefined. */
export function requireOptions(value: unknown, field: string): asserts value is Record<string, unknown> | undefined {
  if (value !== undefined) requireObject(value, field);
}

export function requireBytes(value: unknown, field: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) invalidArgument(field, 'a Uint8Array', value);
}

/** An array of Uint8Arrays. */
export function requireBytesList(value: unknown, field: string): asserts value is readonly Uint8Array[] {
  if (!Array.isArray(value)) invalidArgument(field, 'an array of Uint8Arrays', value);
  for (let i = 0; i < value.length; i++) requireBytes(value[i], `${field}[${i}]`);
}

/** An integer in [min, max]. */
export function requireInteger(value: unknown, field: string, min: number, max: number): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalidArgument(field, `an integer in [${min}, ${max}]`, value);
  }
}

/** A uint32 (ledger numbers, protocol versions). */
export function requireUint32(value: unknown, field: string, min = 0): asserts value is number {
  requireInteger(value, field, min, UINT32_MAX);
}

export function requireBoolean(value: unknown, field: string): asserts value is boolean {
  if (typeof value !== 'boolean') invalidArgument(field, 'true or false', value);
}

export function requireOptionalBoolean(value: unknown, field: string): asserts value is boolean | undefined {
  if (value !== undefined) requireBoolean(value, field);
}

export function requireString(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value === '') invalidArgument(field, 'a non-empty string', value);
}

export function requireFunction(value: unknown, field: string): asserts value is (...args: never[]) => unknown {
  if (typeof value !== 'function') invalidArgument(field, 'a function', value);
}

export function requireOptionalFunction(value: unknown, field: string): void {
  if (value !== undefined) requireFunction(value, field);
}

export function requireKind(value: unknown, field: string): asserts value is BucketKind {
  if (value !== 'live' && value !== 'hot-archive') invalidArgument(field, "'live' or 'hot-archive'", value);
}

/** A bucket hash: 64 lowercase hex digits. */
export function requireHash(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || !HASH_HEX.test(value))
    invalidArgument(field, 'a hash of 64 lowercase hex digits', value);
}

/** A BucketFile descriptor: hash, path (undefined only for the empty bucket), kind, and non-negative counts. */
export function requireBucketFile(value: unknown, field: string): asserts value is BucketFile {
  requireObject(value, field);
  requireHash(value.hash, `${field}.hash`);
  if (value.path !== undefined) requireString(value.path, `${field}.path`);
  requireKind(value.kind, `${field}.kind`);
  requireUint32(value.protocolVersion, `${field}.protocolVersion`);
  requireInteger(value.size, `${field}.size`, 0, Number.MAX_SAFE_INTEGER);
  requireInteger(value.entries, `${field}.entries`, 0, Number.MAX_SAFE_INTEGER);
}

/** A LedgerEntryType argument (any int32: a type no bucket holds simply has no records). */
export function requireEntryType(value: unknown, field: string): asserts value is number {
  requireInteger(value, field, -(2 ** 31), 2 ** 31 - 1);
}
