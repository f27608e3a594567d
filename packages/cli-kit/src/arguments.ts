// Checks of what a tool passes to cli-kit, run before anything is built: a bad value (null, a number where a string
// belongs, a stream without `write`) is a CliKitError INVALID_ARGUMENT naming its field, never a TypeError from
// inside commander, pino or cli-progress. Internal: not exported from the package.
import { describeValue } from '@strata/base';
import { invalidArgument } from './errors.js';

/** A string, non-empty unless `emptyAllowed`. */
export function checkString(value: unknown, field: string, emptyAllowed = false): string {
  if (typeof value !== 'string' || (value === '' && !emptyAllowed)) {
    throw invalidArgument(field, `must be a ${emptyAllowed ? '' : 'non-empty '}string, got ${describeValue(value)}`);
  }
  return value;
}

/** An object (not null, not an array). */
export function checkObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(field, `must be an object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Something with a `write` method: a Writable, process.stdout, a PassThrough. */
export function checkWritable(value: unknown, field: string): NodeJS.WritableStream {
  if (typeof value !== 'object' || value === null || typeof (value as { write?: unknown }).write !== 'function') {
    throw invalidArgument(field, `must be a writable stream, got ${describeValue(value)}`);
  }
  return value as NodeJS.WritableStream;
}

/** A boolean; undefined stays undefined. */
export function checkOptionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') {
    throw invalidArgument(field, `must be a boolean, got ${describeValue(value)}`);
  }
  return value;
}

/** A whole number in [min, max] (a safe integer). */
export function checkInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidArgument(field, `must be a whole number from ${min} to ${max}, got ${describeValue(value)}`);
  }
  return value;
}
