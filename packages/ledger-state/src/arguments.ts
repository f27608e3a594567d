// Checks of what callers pass to the public functions and constructors. Each failure is a LedgerStateError
// INVALID_ARGUMENT whose `field` names the argument or option (`dir`, `options.merger`, `genesis.entries[3]`) and
// whose message says what arrived (@strata/base describeValue, which never runs the value's own code). Entry points
// run these before they read, write or allocate anything by their arguments.
import { describeValue } from '@strata/base';
import { LedgerStateError, LedgerStateErrorCode } from './errors.js';

export function invalidArgument(field: string, expected: string, value: unknown): LedgerStateError {
  return new LedgerStateError(
    LedgerStateErrorCode.INVALID_ARGUMENT,
    `${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

/** An options object as a record whose members are read as `unknown` (absent and `optional`: `{}`). */
export function optionsRecord(value: unknown, field: string, optional: boolean): Record<string, unknown> {
  if (value === undefined && optional) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(field, optional ? 'an options object or undefined' : 'an object', value);
  }
  return value as Record<string, unknown>;
}

export function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(field, `an integer in [${min}, ${max}]`, value);
  }
  return value;
}

export function booleanOr(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(field, 'true or false', value);
  return value;
}

export function bytesOf(value: unknown, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw invalidArgument(field, 'a Uint8Array', value);
  return value;
}

/** A non-empty string: a file or folder path, a network passphrase. */
export function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(field, 'a non-empty string', value);
  return value;
}

/** An optional string option (`undefined` when absent). */
export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : nonEmptyString(value, field);
}

/** An optional callback option. */
export function optionalFunction(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'function') throw invalidArgument(field, 'a function', value);
}

/** One of `allowed` (absent: `undefined`). */
export function optionalOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    throw invalidArgument(field, `one of ${allowed.map((name) => JSON.stringify(name)).join(', ')}`, value);
  }
  return value as T;
}
