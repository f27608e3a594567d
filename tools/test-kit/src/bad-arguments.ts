// The bad-argument suite every package runs: each public entry point is called with valid arguments, then with each
// bad value in turn at one position, and must throw the package's error class with an expected code. Written once
// here; each package lists its entry points and its negative control.
import { describe, expect, it } from 'vitest';
import { type ErrorClass, errorOf } from './errors.js';

/** Bad values for one argument position, and the codes each may be refused with (default: `defaultCodes`). */
export type BadArguments<Code extends string> = readonly [number, readonly unknown[], (readonly Code[])?];

/** One export (or `Class.method`) under test. */
export interface EntryPoint<Code extends string> {
  name: string;
  call: (...args: unknown[]) => unknown;
  valid: readonly unknown[];
  bad: readonly BadArguments<Code>[];
}

/** Throws unless `call` throws an `errorClass` error whose code is one of `codes`; the message starts with `what`. */
export function expectErrorCode<Code extends string>(
  errorClass: ErrorClass<Error & { readonly code: Code }>,
  call: () => unknown,
  codes: readonly Code[],
  what: string,
): void {
  let error: Error & { readonly code: Code };
  try {
    error = errorOf(errorClass, call);
  } catch (failure) {
    throw new Error(`${what}: ${(failure as Error).message}`);
  }
  if (!codes.includes(error.code)) throw new Error(`${what}: code ${error.code}, expected one of ${codes.join(', ')}`);
}

/**
 * Registers the suite: (1) every exported function or class of `api` but `errorClass` has an entry (a new export
 * without one fails), then one test per entry trying every bad value and listing every failure, not just the first.
 */
export function describeBadArguments<Code extends string>(options: {
  errorClass: ErrorClass<Error & { readonly code: Code }>;
  api: Record<string, unknown>;
  entries: readonly EntryPoint<Code>[];
  defaultCodes: readonly Code[];
}): void {
  const { errorClass, api, entries, defaultCodes } = options;
  describe('bad arguments at every public entry point', () => {
    it('1. every exported function and class has an entry', () => {
      const covered = new Set(entries.map((entry) => entry.name.split('.')[0]));
      const exported = Object.entries(api)
        .filter(([name, value]) => typeof value === 'function' && name !== errorClass.name)
        .map(([name]) => name);
      expect(exported.filter((name) => !covered.has(name))).toEqual([]);
    });

    for (const entry of entries) {
      it(`${entry.name}: valid arguments are accepted, bad ones are ${errorClass.name}`, () => {
        expect(() => entry.call(...entry.valid)).not.toThrow();
        const failures: string[] = [];
        for (const [position, values, codes = defaultCodes] of entry.bad) {
          values.forEach((value, i) => {
            const args = [...entry.valid];
            args[position] = value;
            try {
              expectErrorCode(errorClass, () => entry.call(...args), codes, `argument ${position}, bad value #${i}`);
            } catch (error) {
              failures.push((error as Error).message);
            }
          });
        }
        expect(failures).toEqual([]);
      });
    }
  });
}
