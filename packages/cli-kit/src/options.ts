// Option values every tool parses the same way, and the errors a tool raises for a bad option after parsing.
// Numbers are strict: decimal digits only and bounded, so a value a lax parser would read as something else
// (`1e3`, `0x10`, ` 7`) or one too large to work with is refused before any work starts.
import type { ErrorContext, StrataError } from '@strata/base';
import { InvalidArgumentError } from 'commander';
import { checkInteger } from './arguments.js';
import { invalidArgument } from './errors.js';

/** The largest ledger sequence (LedgerHeader.ledgerSeq is a uint32). */
export const MAX_LEDGER_SEQUENCE = 0xffff_ffff;

/**
 * A commander option parser for a whole number in [min, max] (0 ≤ min ≤ max ≤ 2^53 - 1): decimal digits only, so
 * `1e3`, `0x10`, `-1`, `2.5`, `` and ` 7` are refused rather than read as something else. A refused value is
 * commander's InvalidArgumentError "must be a whole number from MIN to MAX", which commander reports as a usage
 * error naming the option.
 */
export function integerOption(min: number, max: number): (text: string) => number {
  checkInteger(min, 'min', 0);
  checkInteger(max, 'max', min);
  return (text: string): number => {
    const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max)) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

/**
 * A package's error class as a usage error is built with it: `new ErrorClass('INVALID_ARGUMENT', detail, context)`.
 * Every Strata package's error class has this constructor.
 */
export type InvalidArgumentErrorClass<E extends StrataError> = new (
  code: 'INVALID_ARGUMENT',
  detail: string,
  context: ErrorContext,
) => E;

/** A bad option or argument found by a command after parsing: `field` names the option, `file` the path at fault. */
export type UsageError<E extends StrataError> = (field: string, detail: string, file?: string) => E;

/**
 * The `usageError(field, detail, file?)` of a tool whose failures are `ErrorClass`: an INVALID_ARGUMENT with the
 * option as its `field`, so that `describeError` (and so `run`) prints its detail alone, which should name the
 * option (`--out ./x is a file, not a folder`).
 */
export function usageErrorFactory<E extends StrataError>(ErrorClass: InvalidArgumentErrorClass<E>): UsageError<E> {
  if (typeof ErrorClass !== 'function') {
    throw invalidArgument('ErrorClass', 'must be an error class (a StrataError subclass)');
  }
  return (field, detail, file) =>
    new ErrorClass('INVALID_ARGUMENT', detail, file === undefined ? { field } : { field, file });
}
