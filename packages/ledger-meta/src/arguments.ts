// Checks of what callers pass to the public functions. Each failure is a LedgerMetaError INVALID_ARGUMENT whose
// `field` names the argument or option (`from`, `eventsPerLedger`, `lcm`), so a caller or a CLI can say which one was
// wrong; a function checks its arguments before it reads a file or allocates by them.
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';

/** The largest ledger sequence (LedgerHeader.ledgerSeq is a uint32). */
export const MAX_LEDGER_SEQUENCE = 0xffff_ffff;

/** A short rendering of a bad value for the message (never the whole of a large array or string). */
function shown(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value === 'object' ? `a ${value.constructor?.name ?? 'null-prototype'} object` : typeof value;
}

export function invalidArgument(field: string, expected: string, value: unknown): LedgerMetaError {
  return new LedgerMetaError(
    LedgerMetaErrorCode.INVALID_ARGUMENT,
    `${field} must be ${expected}, got ${shown(value)}`,
    {
      field,
    },
  );
}

/** `value` as an integer in [min, max]. */
export function checkInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(field, `an integer in [${min}, ${max}]`, value);
  }
  return value;
}

/** An optional integer option: `fallback` when absent. */
export function optionalInteger(value: unknown, field: string, min: number, max: number, fallback: number): number {
  return value === undefined ? fallback : checkInteger(value, field, min, max);
}

/** A ledger sequence (uint32). */
export function checkLedgerSequence(value: unknown, field: string): number {
  return checkInteger(value, field, 0, MAX_LEDGER_SEQUENCE);
}

export function checkBytes(value: unknown, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw invalidArgument(field, 'a Uint8Array', value);
  return value;
}

/** A file or folder path (the readers and writers take strings only). */
export function checkPath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(field, 'a non-empty path string', value);
  return value;
}

export function checkString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidArgument(field, 'a string', value);
  return value;
}

export function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(field, 'true or false', value);
  return value;
}

/** An options object (absent: `{}`). Returned as a record so each option is read as `unknown` and checked. */
export function checkOptions(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(field, 'an options object', value);
  }
  return value as Record<string, unknown>;
}

/** Whether `value` can be iterated with `for...of` (and, with `async`, `for await`). */
export function checkIterable(value: unknown, field: string, async: boolean): void {
  const iterable =
    typeof value === 'object' &&
    value !== null &&
    (typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function' ||
      (async && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'));
  if (!iterable) throw invalidArgument(field, async ? 'an iterable or async iterable' : 'an iterable', value);
}

/**
 * The `from` / `to` options of a ledger reader: each absent or a ledger sequence, and `from` ≤ `to` when both are
 * given (an inverted range is a mistake, not an empty read).
 */
export function checkLedgerRange(options: Record<string, unknown>): { from?: number; to?: number } {
  const range: { from?: number; to?: number } = {};
  if (options.from !== undefined) range.from = checkLedgerSequence(options.from, 'from');
  if (options.to !== undefined) range.to = checkLedgerSequence(options.to, 'to');
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.INVALID_ARGUMENT,
      `from (${range.from}) is after to (${range.to}): the range is empty`,
      { field: 'from' },
    );
  }
  return range;
}
