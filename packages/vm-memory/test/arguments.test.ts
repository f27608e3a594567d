// Bad input to every public function and constructor is a VmMemoryError, never a TypeError or RangeError from deep
// inside (issue 15: `new MemoryPool(null)` threw a TypeError). Named cases: null, undefined, wrong types, negative,
// fractional, huge and non-finite numbers for each argument and option throw INVALID_ARGUMENT naming the field.
// The suite is test-kit's describeBadArguments; each entry's valid call is made first and must succeed. Checked here:
//  1. every exported function and class has an entry (a new export without one fails), and every entry is named
//     after an export;
//  2. each argument and option of the constructors (MemoryPool, ContractRunner, MemoryLease, which only the pool
//     makes), the pool's and runner's methods, and the decoders (decodePagemapEntry, inspectMemory,
//     standardizeMemory) refuses its bad values with INVALID_ARGUMENT and the field; a bad run is refused before a
//     memory is leased;
//  3. a forged PreparedContract is refused;
//  4. negative control: the checker fails on a leaked TypeError, a wrong code or field, and a call that returns; the
//     suite's check lists a leaked TypeError.
// arguments.property.test.ts feeds the same entry points any value at all.
import {
  type BadArguments,
  badArgumentFailures,
  describeBadArguments,
  type EntryPoint,
  expectErrorCode,
} from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { VmMemoryErrorCode } from '../src/errors.js';
import * as api from '../src/index.js';
import { decodePagemapEntry } from '../src/pagemap.js';
import { MemoryLease, MemoryPool } from '../src/pool.js';
import { ContractRunner, type PreparedContract } from '../src/runner.js';
import { inspectMemory, standardizeMemory } from '../src/wasm-binary.js';
import { NOT_A_CHOICE, NOT_A_COUNT, NOT_AN_OBJECT, SHAPE } from './bad-values.js';
import { compileContract } from './contracts.js';

const { VmMemoryError } = api;
const { INVALID_ARGUMENT } = VmMemoryErrorCode;

const noMemory = await compileContract('no-memory');

/** Values at `position` refused with INVALID_ARGUMENT naming `field`. */
const refused = (position: number, field: string, values: readonly unknown[]): BadArguments<VmMemoryErrorCode> => [
  position,
  values,
  [INVALID_ARGUMENT],
  field,
];

/** The pool shape with `field` set to each of `values`. */
const shapeWith = (field: string, values: readonly unknown[]) => values.map((value) => ({ ...SHAPE, [field]: value }));

const BAD_PAGES = [...NOT_A_COUNT, undefined, 0, 65537, 2 ** 53, Number.POSITIVE_INFINITY];
const NOT_CODE = [null, undefined, 'code', new ArrayBuffer(8)];
const reset = () => ({ path: 'zero-all', dirtyBytes: undefined, residentBytes: 0, scanMicros: 0 });

// One pool and runner per entry below that calls a method, so that an entry's calls (its valid one included) are
// the only ones its pool sees.
const methodsPool = new MemoryPool(SHAPE);
const leaseToRelease = methodsPool.acquire();
const runPool = new MemoryPool(SHAPE);
const runner = new ContractRunner(runPool);
const prepareRunner = new ContractRunner(new MemoryPool(SHAPE));

const ENTRY_POINTS: readonly EntryPoint<VmMemoryErrorCode>[] = [
  {
    name: 'MemoryPool (options and shape)',
    call: (options) => new MemoryPool(options as never),
    valid: [SHAPE],
    bad: [
      refused(0, 'options', [...NOT_AN_OBJECT, undefined]),
      refused(0, 'initialPages', shapeWith('initialPages', BAD_PAGES)),
      refused(0, 'maximumPages', shapeWith('maximumPages', [...BAD_PAGES, 1])),
    ],
  },
  {
    name: 'MemoryPool (count and choice options)',
    call: (options) => new MemoryPool(options as never),
    valid: [SHAPE],
    bad: [
      ...['maxIdle', 'maxTotal', 'keepResidentBytes', 'verifyEvery'].map((field) =>
        refused(0, field, shapeWith(field, NOT_A_COUNT)),
      ),
      ...['whenExhausted', 'verify', 'strategy'].map((field) =>
        refused(
          0,
          field,
          shapeWith(
            field,
            NOT_A_CHOICE.filter((value) => field !== 'strategy' || typeof value !== 'object'),
          ),
        ),
      ),
    ],
  },
  {
    name: 'MemoryPool (a custom strategy of the wrong shape)',
    call: (options) => new MemoryPool(options as never),
    valid: [{ ...SHAPE, strategy: { name: 'mine', reuses: true, reset } }],
    bad: (
      [
        [{}, 'strategy.name'],
        [{ name: 'mine', reuses: 'yes', reset }, 'strategy.reuses'],
        [{ name: 'mine', reuses: true }, 'strategy.reset'],
        [{ name: 'mine', reuses: true, reset, decommit: 5 }, 'strategy.decommit'],
        [{ name: 'mine', reuses: true, reset, allocate: 'new' }, 'strategy.allocate'],
      ] as const
    ).map(([strategy, field]) => refused(0, field, shapeWith('strategy', [strategy]))),
  },
  {
    name: 'MemoryPool (dirty-pages options: a misspelt rule is not silently the weaker one)',
    call: (options) => new MemoryPool(options as never),
    valid: [SHAPE],
    bad: [
      refused(0, 'dirtyPages', shapeWith('dirtyPages', NOT_AN_OBJECT)),
      refused(0, 'dirtyPages.scanner', shapeWith('dirtyPages', [{ scanner: 'pagemap' }])),
      refused(0, 'dirtyPages.rule', shapeWith('dirtyPages', [{ rule: 'Conservative' }])),
      refused(0, 'dirtyPages.tuning', shapeWith('dirtyPages', [{ tuning: null }])),
      ...(
        [
          ['hotFraction', [0, -0.5, 1.5, Number.NaN, '0.9', null]],
          ['sampleMinBytes', NOT_A_COUNT],
          ['samplePages', [0, 0.5, 4097, 2 ** 53, Number.POSITIVE_INFINITY, null]],
          ['wasteLimit', [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '2', null]],
        ] as const
      ).map(([field, values]) =>
        refused(
          0,
          `dirtyPages.tuning.${field}`,
          shapeWith(
            'dirtyPages',
            values.map((value) => ({ tuning: { [field]: value } })),
          ),
        ),
      ),
    ],
  },
  {
    name: 'MemoryPool.prewarm',
    call: (count) => methodsPool.prewarm(count as never),
    valid: [1],
    bad: [refused(0, 'count', [...NOT_A_COUNT, undefined])],
  },
  {
    name: 'MemoryPool.trim',
    call: (options) => methodsPool.trim(options as never),
    valid: [{ maxIdle: 1 }],
    bad: [
      refused(0, 'options', NOT_AN_OBJECT),
      refused(
        0,
        'maxIdle',
        NOT_A_COUNT.map((maxIdle) => ({ maxIdle })),
      ),
      refused(0, 'decommit', [{ decommit: 'yes' }]),
    ],
  },
  {
    name: 'MemoryPool.release (leases come only from acquire)',
    call: (lease) => methodsPool.release(lease as never),
    valid: [leaseToRelease],
    bad: [refused(0, 'lease', [null, undefined, 5, {}, Symbol('x'), new MemoryPool(SHAPE).acquire()])],
  },
  {
    name: 'MemoryLease',
    call: (token, pool, slot) => new (MemoryLease as unknown as new (...args: unknown[]) => unknown)(token, pool, slot),
    valid: [undefined, methodsPool, {}],
    bad: [[0, [methodsPool]]],
    validCallSkipped: 'only the pool holds the token a lease is made with (pool.acquire())',
  },
  {
    name: 'ContractRunner',
    call: (pool, options) => new ContractRunner(pool as never, options as never),
    valid: [new MemoryPool(SHAPE), undefined],
    bad: [
      refused(0, 'pool', [...NOT_AN_OBJECT, undefined, {}]),
      refused(1, 'options', NOT_AN_OBJECT),
      refused(
        1,
        'maxCachedModules',
        [...NOT_A_COUNT, 0, Number.POSITIVE_INFINITY].map((maxCachedModules) => ({ maxCachedModules })),
      ),
    ],
  },
  {
    name: 'ContractRunner.prepare',
    call: (code) => prepareRunner.prepare(code as never),
    valid: [noMemory],
    bad: [refused(0, 'code', [null, undefined, 'code', [0, 97, 115, 109], noMemory.buffer])],
  },
  {
    name: 'ContractRunner.run (refused before a memory is leased)',
    call: (contract, exportName, args, imports) => {
      const leased = runPool.stats().acquires;
      try {
        return runner.run(contract as never, exportName as never, args as never, imports as never);
      } catch (error) {
        if (runPool.stats().acquires !== leased) throw new Error('a memory was leased before the run was refused');
        throw error;
      }
    },
    valid: [noMemory, 'add', [1, 2], undefined],
    bad: [
      refused(0, 'contract', [null, undefined, 'code', {}, [0, 97, 115, 109], noMemory.buffer]),
      refused(1, 'exportName', [null, undefined, 7, 'nope', {}, Symbol('x')]),
      refused(2, 'args', [null, 'ab', {}, [1], [1, 2, 3], new Int32Array(2)]),
      refused(2, 'args[1]', [[1, '2']]),
      refused(2, 'args[0]', [[1n, 2]]),
      refused(3, 'imports', [null, 5, {}, 'imports', Symbol('x')]),
    ],
  },
  {
    name: 'inspectMemory',
    call: (code) => inspectMemory(code as never),
    valid: [noMemory],
    bad: [refused(0, 'code', NOT_CODE)],
  },
  {
    name: 'standardizeMemory',
    call: (code, limits) => standardizeMemory(code as never, limits as never),
    valid: [noMemory, SHAPE],
    bad: [
      refused(0, 'code', NOT_CODE),
      refused(1, 'limits', [null]),
      refused(1, 'initialPages', [{ initialPages: -1, maximumPages: 4 }]),
      refused(1, 'maximumPages', [{ initialPages: 2, maximumPages: 2 ** 40 }]),
    ],
  },
  {
    name: 'decodePagemapEntry (one 64-bit entry as a bigint)',
    call: (entry) => decodePagemapEntry(entry as never),
    valid: [(1n << 64n) - 1n],
    bad: [refused(0, 'entry', [5, null, undefined, '5', -1n, 1n << 64n])],
  },
];

describeBadArguments({
  errorClass: VmMemoryError,
  api: { ...api },
  entries: ENTRY_POINTS,
  defaultCodes: [INVALID_ARGUMENT],
});

describe('entries and valid calls (1, 2)', () => {
  it('every entry is named after an export', () => {
    const named = ENTRY_POINTS.map((entry) => entry.name.split(/[. ]/)[0]!);
    expect(named.filter((name) => typeof (api as Record<string, unknown>)[name] !== 'function')).toEqual([]);
  });

  it('the valid calls do what they say', () => {
    expect(new MemoryPool({ ...SHAPE, strategy: { name: 'mine', reuses: true, reset } as never }).strategyName).toBe(
      'mine',
    );
    expect(decodePagemapEntry((1n << 64n) - 1n).present).toBe(true);
  });
});

describe('contracts (3)', () => {
  it('a forged PreparedContract is refused', () => {
    const contractRunner = new ContractRunner(new MemoryPool(SHAPE));
    const real = contractRunner.prepare(noMemory);
    const forged: PreparedContract = { ...real };
    expectErrorCode(
      VmMemoryError,
      () => contractRunner.run(forged, 'add', [1, 2]),
      [INVALID_ARGUMENT],
      'forged',
      'contract',
    );
    expect(contractRunner.run(real, 'add', [1, 2])).toBe(3);
  });
});

describe('negative control (4)', () => {
  const leaksTypeError = (options: unknown) => (options as { initialPages: number }).initialPages;

  it('the checker fails on a leaked TypeError, a wrong code, a wrong field and a call that returns', () => {
    const check = (call: () => unknown, field?: string) =>
      expectErrorCode(VmMemoryError, call, [INVALID_ARGUMENT], 'control', field);
    expect(() => check(() => leaksTypeError(null), 'options')).toThrow(/TypeError/);
    const closed = new MemoryPool(SHAPE);
    closed.close();
    expect(() => check(() => closed.acquire())).toThrow(/CLOSED/);
    expect(() => check(() => new MemoryPool(null as never), 'initialPages')).toThrow(/options/);
    expect(() => check(() => new MemoryPool(SHAPE))).toThrow(/nothing was thrown/);
  });

  it("the suite's check lists a leaked TypeError", async () => {
    const leaky: EntryPoint<VmMemoryErrorCode> = {
      name: 'leaky',
      call: leaksTypeError,
      valid: [SHAPE],
      bad: [[0, [null]]],
    };
    expect(await badArgumentFailures(VmMemoryError, leaky, [INVALID_ARGUMENT])).toEqual([
      expect.stringMatching(/^argument 0, bad value #0: .*TypeError/),
    ]);
  });
});
