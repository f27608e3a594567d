// Checks of callers' arguments at the public entry points. A value of the wrong type or out of range is an EventsError
// INVALID_ARGUMENT naming the argument, never a TypeError from deep inside a walk or a garbage answer (a plain array
// read as bytes, a fractional offset that writes nowhere). Each check is O(1), so they sit on the ingest and
// post-filter paths (deriveTermsInto, PayloadView) at no measurable cost; loops over bytes check nothing extra.
import { describeValue } from '@strata/base';
import { EventsError, EventsErrorCode } from './errors.js';

/** Throws INVALID_ARGUMENT about `field`. */
export function badArgument(field: string, detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** Caller values in messages: one description for every package (@strata/base). */
export { describeValue };

/** A Uint8Array (a Buffer is one); a plain array, a string or another typed array is refused. */
export function checkBytes(value: unknown, field: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) badArgument(field, `expected a Uint8Array, got ${describeValue(value)}`);
}

/** A non-null object that is not an array (the static type is kept: this checks what TypeScript cannot). */
export function checkObject<T>(value: T, field: string): asserts value is NonNullable<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    badArgument(field, `expected an object, got ${describeValue(value)}`);
  }
}

/** An array. */
export function checkArray(value: unknown, field: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) badArgument(field, `expected an array, got ${describeValue(value)}`);
}

/** A string. */
export function checkString(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string') badArgument(field, `expected a string, got ${describeValue(value)}`);
}

/** An integer in [min, max] (numbers only: '3' and 3.5 are refused). */
export function checkInteger(value: unknown, min: number, max: number, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    badArgument(field, `expected an integer in [${min}, ${max}], got ${describeValue(value)}`);
  }
}
