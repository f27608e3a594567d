// The bad-argument suite (describeBadArguments, describeAnyArguments) on a tiny API of its own. Checked here:
// 1. the suite passes for an API that refuses every bad value with its error class, sync and async entry points,
//    an entry whose valid call is skipped, and a field that must be named;
// 2. expectErrorCode and expectRejectionCode fail on a leaked TypeError, a wrong code, a wrong field and a call that
//    returns (or resolves), and return the error otherwise;
// 3. badArgumentFailures lists every bad value not refused as expected, not just the first;
// 4. the property of describeAnyArguments fails for a call that leaks a TypeError, and holds for one that refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptedOrRefusedWith,
  badArgumentFailures,
  describeAnyArguments,
  describeBadArguments,
  type EntryPoint,
  expectErrorCode,
  expectRejectionCode,
} from '../src/index.js';

type DemoCode = 'INVALID_ARGUMENT' | 'TRUNCATED';

class DemoError extends Error {
  constructor(
    readonly code: DemoCode,
    readonly field: string | undefined,
  ) {
    super(`${code} field ${field}`);
  }
}

function countOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new DemoError('INVALID_ARGUMENT', 'n');
  return value;
}

const api = {
  DemoError,
  countOf,
  async readAsync(bytes: unknown): Promise<number> {
    if (!(bytes instanceof Uint8Array)) throw new DemoError('INVALID_ARGUMENT', 'bytes');
    if (bytes.length < 4) throw new DemoError('TRUNCATED', undefined);
    return bytes.length;
  },
  makeToken(secret: unknown): object {
    if (secret !== api) throw new DemoError('INVALID_ARGUMENT', 'secret');
    return {};
  },
};

const entries: readonly EntryPoint<DemoCode>[] = [
  { name: 'countOf', call: countOf, valid: [3], bad: [[0, [null, -1, 1.5, '3'], ['INVALID_ARGUMENT'], 'n']] },
  {
    name: 'readAsync (async)',
    call: (bytes) => api.readAsync(bytes),
    valid: [new Uint8Array(4)],
    bad: [
      [0, [null, 'abcd', [1, 2, 3, 4]]],
      [0, [new Uint8Array(3)], ['TRUNCATED']],
    ],
  },
  {
    name: 'makeToken',
    call: (secret) => api.makeToken(secret),
    valid: [undefined],
    bad: [[0, [null, {}]]],
    validCallSkipped: 'only the package holds the secret',
  },
];

describe('1. the suite on an API that refuses every bad value', () => {
  describeBadArguments({ errorClass: DemoError, api, entries, defaultCodes: ['INVALID_ARGUMENT'] });
  describeAnyArguments({
    errorClass: DemoError,
    values: fc.anything(),
    cases: [
      ['countOf(value)', (value) => countOf(value)],
      ['makeToken(value)', (value) => api.makeToken(value)],
    ],
    numRuns: 50,
  });
});

describe('2. the checkers', () => {
  const leaksTypeError = (value: unknown) => (value as Uint8Array).subarray(0, 1);

  it('expectErrorCode fails on a leaked TypeError, a wrong code or field, a call that returns', () => {
    expect(() => expectErrorCode(DemoError, () => leaksTypeError(null), ['INVALID_ARGUMENT'], 'leak')).toThrow(
      /^leak: .*TypeError/,
    );
    expect(() => expectErrorCode(DemoError, () => countOf(-1), ['TRUNCATED'], 'code')).toThrow(
      'code: code INVALID_ARGUMENT, expected one of TRUNCATED',
    );
    expect(() => expectErrorCode(DemoError, () => countOf(-1), ['INVALID_ARGUMENT'], 'field', 'm')).toThrow(
      /^field: field n, expected m/,
    );
    expect(() => expectErrorCode(DemoError, () => countOf(1), ['INVALID_ARGUMENT'], 'ok')).toThrow(
      /nothing was thrown/,
    );
    expect(expectErrorCode(DemoError, () => countOf(-1), ['INVALID_ARGUMENT'], 'x', 'n').field).toBe('n');
  });

  it('expectRejectionCode does the same for async calls (and sync throws)', async () => {
    await expect(
      expectRejectionCode(DemoError, async () => leaksTypeError(null), ['INVALID_ARGUMENT'], 'leak'),
    ).rejects.toThrow(/TypeError/);
    await expect(
      expectRejectionCode(DemoError, () => api.readAsync(new Uint8Array(1)), ['INVALID_ARGUMENT'], 'code'),
    ).rejects.toThrow(/code TRUNCATED/);
    await expect(
      expectRejectionCode(DemoError, () => api.readAsync(null), ['INVALID_ARGUMENT'], 'field', 'b'),
    ).rejects.toThrow(/field bytes, expected b/);
    await expect(
      expectRejectionCode(DemoError, () => api.readAsync(new Uint8Array(4)), ['TRUNCATED'], 'ok'),
    ).rejects.toThrow(/nothing was thrown/);
    expect((await expectRejectionCode(DemoError, () => countOf(null), ['INVALID_ARGUMENT'], 'sync')).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('3. badArgumentFailures', () => {
  it('lists every bad value that is not refused as expected', async () => {
    const leaky: EntryPoint<DemoCode> = {
      name: 'leaky',
      call: (value) => (value as { length: number }).length,
      valid: ['abc'],
      bad: [
        [0, [null, 5, undefined]],
        [0, [new Uint8Array(1)], ['TRUNCATED']],
      ],
    };
    const failures = await badArgumentFailures(DemoError, leaky, ['INVALID_ARGUMENT']);
    expect(failures).toHaveLength(4);
    expect(failures[0]).toMatch(/^argument 0, bad value #0: expected a DemoError, got TypeError/);
    expect(failures[1]).toMatch(/^argument 0, bad value #1: expected a DemoError, nothing was thrown/);
    expect(await badArgumentFailures(DemoError, entries[1]!, ['INVALID_ARGUMENT'])).toEqual([]);
  });
});

describe('4. acceptedOrRefusedWith', () => {
  it('fails for a call that leaks a TypeError, holds for one that refuses', () => {
    const leaky = (value: unknown) => (value as { n: number }).n;
    const result = fc.check(acceptedOrRefusedWith(DemoError, fc.constantFrom(null, 1), leaky), { seed: 1 });
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/TypeError/);
    expect(fc.check(acceptedOrRefusedWith(DemoError, fc.anything(), countOf), { numRuns: 100 }).failed).toBe(false);
  });
});
