// Bad arguments at every public entry point. Each function and method below is called with its valid arguments
// (which must be accepted) and then with one argument at a time replaced by something its signature does not allow:
// null, undefined, wrong types (a string, a plain array, a Float64Array where a Uint8Array belongs), negative /
// fractional / huge numbers and numeric strings, empty or damaged buffers, key sets and options of the wrong shape.
// Every such call must throw (or, for the async build, reject with) MphfError with one of the listed codes: never a
// TypeError, and never a slot for a key it cannot read. Checked here:
// 1. every exported function has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted;
// 3. each bad call throws MphfError (instanceof) with an expected code;
// 4. negative control: the checker rejects a leaked TypeError, a wrong code and a call that does not throw, and the
//    suite's check lists an async entry point's leaked TypeErrors.
// The suite is test-kit's describeBadArguments (async entry points are awaited: a rejection counts as thrown).
import {
  badArgumentFailures,
  describeBadArguments,
  expectRejectionCode,
  type EntryPoint as TestKitEntryPoint,
} from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import * as namespace from '../src/index.js';
import { buildMphf, type Mphf, MphfError, MphfErrorCode, openMphf } from '../src/index.js';
import { randomPackedKeys } from './key-sets.js';

/** The package's exports by name (a plain object, so entries can be looked up by a computed name). */
const api: Record<string, unknown> = { ...namespace };

const { BAD_MAGIC, CHECKSUM_MISMATCH, DUPLICATE_KEY, INVALID_ARGUMENT, TRUNCATED } = MphfErrorCode;

/** Awaits `call` and checks it throws or rejects with MphfError with one of `codes`; anything else fails, naming `what`. */
const expectMphfError = (call: () => unknown, codes: readonly MphfErrorCode[], what: string) =>
  expectRejectionCode(MphfError, call, codes, what);

// ---- values no signature here allows ----
const NOT_BYTES: readonly unknown[] = [
  null,
  undefined,
  'abc',
  'a'.repeat(16),
  5,
  Array.from({ length: 16 }, () => 7),
  new Float64Array(16),
  new Uint16Array(16),
  new Int8Array(16),
  new ArrayBuffer(16),
  {},
  Object.create(null),
  Symbol('s'),
];
const NOT_INTEGER: readonly unknown[] = [null, '0', '1', 1.5, -1, Number.NaN, Infinity, 0n, {}, Symbol('s'), true];

// ---- valid arguments ----
const packed = randomPackedKeys(1000, 77);
const keys = { bytes: packed, keyLength: 16 };
const mphf: Mphf = openMphf(buildMphf(keys, { fingerprintBits: 8 }));
const bytes = buildMphf(keys);
const key = packed.subarray(0, 16);
const damaged = Uint8Array.from(bytes);
damaged[damaged.length - 20]! ^= 1;

/** Key sets that are not one of the three documented forms, or not well formed. */
const NOT_KEYS: readonly unknown[] = [
  null,
  undefined,
  5,
  'abc',
  {},
  Object.create(null),
  [5],
  ['abc'],
  [null],
  [new Float64Array(2)],
  new Uint8Array(3), // an iterable of numbers, not of keys
  new Set([5]),
  { bytes: 'x'.repeat(32), keyLength: 16 },
  { bytes: Array.from(packed), keyLength: 16 },
  { bytes: packed, keyLength: '16' },
  { bytes: packed, keyLength: 0 },
  { bytes: packed, keyLength: 1.5 },
  { bytes: packed, keyLength: 3 },
  { bytes: packed, offsets: null },
  { bytes: packed, offsets: 'abc' },
  { bytes: packed, offsets: [] },
  { bytes: packed, offsets: [0, 1.5] },
  { bytes: packed, offsets: [0, '16'] },
  { bytes: packed, offsets: { length: -1 } },
  { bytes: packed, offsets: { length: 2 ** 60 } },
];

/** Options that are not an options object, or hold a value of the wrong type or range. */
const NOT_OPTIONS: readonly unknown[] = [
  null,
  5,
  'x',
  [],
  ...[-1, 1.5, '1', 2 ** 32, Object.create(null), Symbol('s')].map((seed) => ({ seed })),
  ...['3', Number.NaN, 0.5, 9].map((lambda) => ({ lambda })),
  ...['0.99', 0.4, 1.01].map((alpha) => ({ alpha })),
  ...[1.5, 100, 70_000, '32768'].map((partKeys) => ({ partKeys })),
  ...[12, '8', 1].map((fingerprintBits) => ({ fingerprintBits })),
  ...[0, 1.5, 1001].map((maxAttempts) => ({ maxAttempts })),
  { selfCheck: 'yes' },
];

/** [argument position, values to put there, codes allowed (INVALID_ARGUMENT when omitted)]. */
type EntryPoint = TestKitEntryPoint<MphfErrorCode>;

const fn = (name: string) => api[name] as (...args: unknown[]) => unknown;

/** `Mphf.index` / `Mphf.lookup`: key, then offset and length inside it. */
function query(method: 'index' | 'lookup'): EntryPoint {
  return {
    name: `Mphf.${method}`,
    call: (k, offset, length) => mphf[method](k as Uint8Array, offset as number, length as number),
    valid: [packed, 32, 16],
    bad: [
      [0, NOT_BYTES],
      [1, [...NOT_INTEGER, packed.length + 1, 2 ** 53]],
      [2, [...NOT_INTEGER, packed.length, '16']],
    ],
  };
}

const ENTRY_POINTS: readonly EntryPoint[] = [
  query('index'),
  query('lookup'),
  {
    name: 'Mphf.index (one key, default range)',
    call: (k) => mphf.index(k as Uint8Array),
    valid: [key],
    bad: [[0, NOT_BYTES]],
  },
  {
    name: 'buildMphf',
    call: fn('buildMphf'),
    valid: [keys, {}],
    bad: [
      [0, NOT_KEYS],
      [0, [[key, Uint8Array.from(key)]], [DUPLICATE_KEY]],
      [1, NOT_OPTIONS],
    ],
  },
  {
    name: 'buildMphfAsync',
    call: fn('buildMphfAsync'),
    valid: [keys, { threads: 2 }],
    bad: [
      [0, NOT_KEYS],
      [1, [...NOT_OPTIONS, { threads: 0 }, { threads: 1.5 }, { threads: '2' }, { threads: 65 }]],
    ],
  },
  {
    name: 'openMphf',
    call: fn('openMphf'),
    valid: [bytes],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(0), bytes.subarray(0, 8), bytes.subarray(0, bytes.length - 1)], [TRUNCATED]],
      [0, [new Uint8Array(bytes.length)], [BAD_MAGIC]],
      [0, [damaged], [CHECKSUM_MISMATCH]],
    ],
  },
  {
    name: 'checkBijection',
    call: fn('checkBijection'),
    valid: [mphf, keys],
    bad: [
      [
        0,
        [null, undefined, 5, 'x', {}, Object.create(null), { ...mphf, size: -1 }, { index: () => 0, lookup: () => 0 }],
      ],
      [1, NOT_KEYS],
    ],
  },
];

describeBadArguments({ errorClass: MphfError, api, entries: ENTRY_POINTS, defaultCodes: [INVALID_ARGUMENT] });

describe('the named cases and the bad-argument checker', () => {
  it("the issue's cases: 'abc', arrays, a Float64Array, offsets 1.5 and '0' get no slot", () => {
    for (const bad of ['abc', [1, 2, 3], new Float64Array(2)]) {
      expect(() => mphf.index(bad as unknown as Uint8Array)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
    for (const offset of [1.5, '0']) {
      expect(() => mphf.index(packed, offset as number, 16)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });

  it('4. negative control: the checker catches a leaked TypeError, a wrong code and a call that returns', async () => {
    const leaksTypeError = (value: unknown) => (value as Uint8Array).subarray(0, 1);
    await expect(expectMphfError(() => leaksTypeError(null), [INVALID_ARGUMENT], 'leak')).rejects.toThrow(/TypeError/);
    await expect(expectMphfError(() => openMphf(new Uint8Array(0)), [INVALID_ARGUMENT], 'code')).rejects.toThrow(
      /TRUNCATED/,
    );
    await expect(expectMphfError(() => mphf.index(key), [INVALID_ARGUMENT], 'ok')).rejects.toThrow(
      /nothing was thrown/,
    );
    // The suite's own check, on an async entry point that leaks a TypeError for one bad value.
    const leaky: EntryPoint = {
      name: 'leaky',
      call: async (value) => leaksTypeError(value),
      valid: [key],
      bad: [[0, [null, 5]]],
    };
    expect(await badArgumentFailures(MphfError, leaky, [INVALID_ARGUMENT])).toEqual([
      expect.stringMatching(/^argument 0, bad value #0: .*TypeError/),
      expect.stringMatching(/^argument 0, bad value #1: .*TypeError/),
    ]);
  });
});
