// The bad-argument suite every package runs: each public entry point is called with valid arguments, then with each
// bad value in turn at one position, and must throw (or, for an async entry point, reject with) the package's error
// class with an expected code, and the expected field where one is named. Written once here; each package lists its
// entry points and its negative control. `describeAnyArguments` is the property-based variant: any value at all at
// one position is accepted or refused with the package's error class.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ErrorClass, errorOf, rejectionOf } from './errors.js';
import { propertyParams } from './property.js';

/** An error of a package's class: a StrataError has a `code` and a `field` (undefined when none applies). */
export type CodedError<Code extends string> = Error & { readonly code: Code; readonly field?: string | undefined };

/**
 * Bad values for one argument position, the codes each may be refused with (default: `defaultCodes`) and the
 * `field` the error must name (default: not checked).
 */
export type BadArguments<Code extends string> = readonly [number, readonly unknown[], (readonly Code[])?, string?];

/** One export (or `Class.method`) under test. */
export interface EntryPoint<Code extends string> {
  /** The export it covers comes first, up to a `.` or a space: `parseEventId`, `Mphf.index (one key)`. */
  name: string;
  /** May return a promise, which is awaited: a rejection counts as thrown. */
  call: (...args: unknown[]) => unknown;
  valid: readonly unknown[];
  bad: readonly BadArguments<Code>[];
  /**
   * Why the valid call is not made (it has effects later calls would see, or only the package can make one). By
   * default it is made first and must succeed, so that each failure below is the bad argument's.
   */
  validCallSkipped?: string;
}

/** `what: ...` unless `error` has one of `codes` (and names `field`, when given); returns `error`. */
function checkCode<E extends CodedError<string>>(
  error: E,
  codes: readonly E['code'][],
  what: string,
  field: string | undefined,
): E {
  if (!codes.includes(error.code)) {
    throw new Error(`${what}: code ${error.code}, expected one of ${codes.join(', ')} (${error.message})`);
  }
  if (field !== undefined && error.field !== field) {
    throw new Error(`${what}: field ${error.field ?? '(none)'}, expected ${field} (${error.message})`);
  }
  return error;
}

function prefixed(what: string, failure: unknown): Error {
  return new Error(`${what}: ${(failure as Error).message}`);
}

/**
 * Throws unless `call` throws an `errorClass` error whose code is one of `codes` (and whose `field` is `field`, when
 * given); the message starts with `what`. Returns the error.
 */
export function expectErrorCode<E extends CodedError<string>>(
  errorClass: ErrorClass<E>,
  call: () => unknown,
  codes: readonly E['code'][],
  what: string,
  field?: string,
): E {
  let error: E;
  try {
    error = errorOf(errorClass, call);
  } catch (failure) {
    throw prefixed(what, failure);
  }
  return checkCode(error, codes, what, field);
}

/** `expectErrorCode` for a call that may be async: a rejection of the promise it returns counts as thrown. */
export async function expectRejectionCode<E extends CodedError<string>>(
  errorClass: ErrorClass<E>,
  call: () => unknown,
  codes: readonly E['code'][],
  what: string,
  field?: string,
): Promise<E> {
  let error: E;
  try {
    error = await rejectionOf(errorClass, call);
  } catch (failure) {
    throw prefixed(what, failure);
  }
  return checkCode(error, codes, what, field);
}

/**
 * What is wrong with one entry: every bad value at each position is tried (awaiting the call), and each that is not
 * refused as expected is listed (an empty list: the entry passes). The suite's check, exported for negative controls.
 */
export async function badArgumentFailures<Code extends string>(
  errorClass: ErrorClass<CodedError<Code>>,
  entry: EntryPoint<Code>,
  defaultCodes: readonly Code[],
): Promise<string[]> {
  const failures: string[] = [];
  for (const [position, values, codes = defaultCodes, field] of entry.bad) {
    for (const [i, value] of values.entries()) {
      const args = [...entry.valid];
      args[position] = value;
      try {
        await expectRejectionCode(
          errorClass,
          () => entry.call(...args),
          codes,
          `argument ${position}, bad value #${i}`,
          field,
        );
      } catch (failure) {
        failures.push((failure as Error).message);
      }
    }
  }
  return failures;
}

/**
 * Registers the suite: (1) every exported function or class of `api` but `errorClass` has an entry (a new export
 * without one fails), then one test per entry making its valid call (unless skipped) and trying every bad value,
 * listing every failure, not just the first.
 */
export function describeBadArguments<Code extends string>(options: {
  errorClass: ErrorClass<CodedError<Code>>;
  api: Record<string, unknown>;
  entries: readonly EntryPoint<Code>[];
  defaultCodes: readonly Code[];
}): void {
  const { errorClass, api, entries, defaultCodes } = options;
  describe('bad arguments at every public entry point', () => {
    it('1. every exported function and class has an entry', () => {
      const covered = new Set(entries.map((entry) => entry.name.split(/[. ]/)[0]));
      const exported = Object.entries(api)
        .filter(([name, value]) => typeof value === 'function' && name !== errorClass.name)
        .map(([name]) => name);
      expect(exported.filter((name) => !covered.has(name))).toEqual([]);
    });

    for (const entry of entries) {
      it(`${entry.name}: valid arguments are accepted, bad ones are ${errorClass.name}`, async () => {
        if (entry.validCallSkipped === undefined) await entry.call(...entry.valid);
        expect(await badArgumentFailures(errorClass, entry, defaultCodes)).toEqual([]);
      });
    }
  });
}

/** One position of `describeAnyArguments`: a label, and the call with the value at that position. */
export type AnyArgumentCase = readonly [label: string, call: (value: unknown) => unknown];

/**
 * The property of `describeAnyArguments` for one case: whatever `values` generates, `call(value)` returns or throws
 * an `errorClass` error; anything else thrown (a leaked TypeError) fails the property with that error.
 */
export function acceptedOrRefusedWith(
  errorClass: ErrorClass<Error>,
  values: fc.Arbitrary<unknown>,
  call: (value: unknown) => unknown,
): fc.IPropertyWithHooks<[unknown]> {
  return fc.property(values, (value) => {
    try {
      call(value);
    } catch (error) {
      if (!(error instanceof errorClass)) throw error;
    }
  });
}

/**
 * Registers the property-based suite: one test per case, each checking `acceptedOrRefusedWith` over `numRuns`
 * values (propertyParams: a failure prints its seed and path for replay).
 */
export function describeAnyArguments(options: {
  errorClass: ErrorClass<Error>;
  values: fc.Arbitrary<unknown>;
  cases: readonly AnyArgumentCase[];
  numRuns: number;
}): void {
  const { errorClass, values, cases, numRuns } = options;
  describe(`any value is accepted or refused with a ${errorClass.name}`, () => {
    for (const [label, call] of cases) {
      it(label, () => {
        fc.assert(acceptedOrRefusedWith(errorClass, values, call), propertyParams({ numRuns }));
      });
    }
  });
}
