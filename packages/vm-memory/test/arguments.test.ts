// Bad input to every public function and constructor is a VmMemoryError, never a TypeError or RangeError from deep
// inside (issue 15: `new MemoryPool(null)` threw a TypeError). Checked two ways:
//  1. Named cases: null, undefined, wrong types, negative, fractional, huge and non-finite numbers for each argument
//     and option throw INVALID_ARGUMENT naming the field.
//  2. Property: any value at all (fast-check's `anything`, plus symbols, prototype-less objects and functions, whose
//     conversion to a string throws) either is accepted or throws a VmMemoryError.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { VmMemoryError } from '../src/errors.js';
import { decodePagemapEntry } from '../src/pagemap.js';
import { MemoryLease, MemoryPool } from '../src/pool.js';
import { ContractRunner, type PreparedContract } from '../src/runner.js';
import { inspectMemory, standardizeMemory } from '../src/wasm-binary.js';
import { compileContract } from './contracts.js';
import { expectVmError } from './expect-error.js';

const SHAPE = { initialPages: 2, maximumPages: 4, verify: 'off' } as const;
let noMemory: Uint8Array;
beforeAll(async () => {
  noMemory = await compileContract('no-memory');
});

/** Values no argument of this package accepts as a number, an options object or a choice. */
const NOT_A_COUNT = [null, Number.NaN, -1, 0.5, -Number.POSITIVE_INFINITY, '4', 4n, true, {}, [], Symbol('x')];
const NOT_AN_OBJECT = [null, 5, 'options', 5n, true, Symbol('x'), [], () => ({})];
const NOT_A_CHOICE = [null, 5, 'sometimes', '', {}, Symbol('x'), true];
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.constantFrom<unknown>(
    ...NOT_A_COUNT,
    ...NOT_AN_OBJECT,
    undefined,
    0,
    2 ** 31,
    2 ** 53,
    2 ** 64,
    Number.POSITIVE_INFINITY,
    Object.create(null),
    new ArrayBuffer(8),
  ),
);

describe('named bad arguments throw INVALID_ARGUMENT with the field', () => {
  it('new MemoryPool(null), and every other non-object', () => {
    for (const value of [...NOT_AN_OBJECT, undefined])
      expectVmError(() => new MemoryPool(value as never), 'INVALID_ARGUMENT', 'options');
  });

  it('the pool shape', () => {
    for (const bad of [...NOT_A_COUNT, undefined, 0, 65537, 2 ** 53, Number.POSITIVE_INFINITY]) {
      expectVmError(() => new MemoryPool({ ...SHAPE, initialPages: bad as never }), 'INVALID_ARGUMENT', 'initialPages');
      expectVmError(() => new MemoryPool({ ...SHAPE, maximumPages: bad as never }), 'INVALID_ARGUMENT', 'maximumPages');
    }
    expectVmError(() => new MemoryPool({ ...SHAPE, maximumPages: 1 }), 'INVALID_ARGUMENT', 'maximumPages');
  });

  it('count and choice options', () => {
    for (const field of ['maxIdle', 'maxTotal', 'keepResidentBytes', 'verifyEvery'])
      for (const bad of NOT_A_COUNT)
        expectVmError(() => new MemoryPool({ ...SHAPE, [field]: bad }), 'INVALID_ARGUMENT', field);
    for (const field of ['whenExhausted', 'verify', 'strategy'])
      for (const bad of NOT_A_CHOICE.filter((value) => field !== 'strategy' || typeof value !== 'object'))
        expectVmError(() => new MemoryPool({ ...SHAPE, [field]: bad }), 'INVALID_ARGUMENT', field);
  });

  it('a custom strategy of the wrong shape', () => {
    const reset = () => ({ path: 'zero-all', dirtyBytes: undefined, residentBytes: 0, scanMicros: 0 });
    const cases: [object, string][] = [
      [{}, 'strategy.name'],
      [{ name: 'mine', reuses: 'yes', reset }, 'strategy.reuses'],
      [{ name: 'mine', reuses: true }, 'strategy.reset'],
      [{ name: 'mine', reuses: true, reset, decommit: 5 }, 'strategy.decommit'],
      [{ name: 'mine', reuses: true, reset, allocate: 'new' }, 'strategy.allocate'],
    ];
    for (const [strategy, field] of cases)
      expectVmError(() => new MemoryPool({ ...SHAPE, strategy: strategy as never }), 'INVALID_ARGUMENT', field);
    expect(new MemoryPool({ ...SHAPE, strategy: { name: 'mine', reuses: true, reset } as never }).strategyName).toBe(
      'mine',
    );
  });

  it('dirty-pages options (a misspelt rule is not silently the weaker one)', () => {
    const dirty = (dirtyPages: unknown) => () => new MemoryPool({ ...SHAPE, dirtyPages: dirtyPages as never });
    for (const bad of NOT_AN_OBJECT) expectVmError(dirty(bad), 'INVALID_ARGUMENT', 'dirtyPages');
    expectVmError(dirty({ scanner: 'pagemap' }), 'INVALID_ARGUMENT', 'dirtyPages.scanner');
    expectVmError(dirty({ rule: 'Conservative' }), 'INVALID_ARGUMENT', 'dirtyPages.rule');
    expectVmError(dirty({ tuning: null }), 'INVALID_ARGUMENT', 'dirtyPages.tuning');
    const tuning = (field: string, values: unknown[]) => {
      for (const value of values)
        expectVmError(dirty({ tuning: { [field]: value } }), 'INVALID_ARGUMENT', `dirtyPages.tuning.${field}`);
    };
    tuning('hotFraction', [0, -0.5, 1.5, Number.NaN, '0.9', null]);
    tuning('sampleMinBytes', NOT_A_COUNT);
    tuning('samplePages', [0, 0.5, 4097, 2 ** 53, Number.POSITIVE_INFINITY, null]);
    tuning('wasteLimit', [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '2', null]);
  });

  it('pool methods: prewarm, trim, release; leases come only from acquire', () => {
    const pool = new MemoryPool(SHAPE);
    for (const bad of [...NOT_A_COUNT, undefined])
      expectVmError(() => pool.prewarm(bad as never), 'INVALID_ARGUMENT', 'count');
    for (const bad of NOT_AN_OBJECT) expectVmError(() => pool.trim(bad as never), 'INVALID_ARGUMENT', 'options');
    for (const bad of NOT_A_COUNT)
      expectVmError(() => pool.trim({ maxIdle: bad as never }), 'INVALID_ARGUMENT', 'maxIdle');
    expectVmError(() => pool.trim({ decommit: 'yes' as never }), 'INVALID_ARGUMENT', 'decommit');
    for (const bad of [null, undefined, 5, {}, Symbol('x')])
      expectVmError(() => pool.release(bad as never), 'INVALID_ARGUMENT', 'lease');
    expectVmError(() => pool.release(new MemoryPool(SHAPE).acquire()), 'INVALID_ARGUMENT', 'lease');
    expectVmError(
      () => new (MemoryLease as unknown as new (...args: unknown[]) => unknown)(pool, {}),
      'INVALID_ARGUMENT',
    );
  });

  it('the runner and the prepare step', () => {
    const pool = new MemoryPool(SHAPE);
    for (const bad of [...NOT_AN_OBJECT, undefined, {}])
      expectVmError(() => new ContractRunner(bad as never), 'INVALID_ARGUMENT', 'pool');
    for (const bad of NOT_AN_OBJECT)
      expectVmError(() => new ContractRunner(pool, bad as never), 'INVALID_ARGUMENT', 'options');
    for (const bad of [...NOT_A_COUNT, 0, Number.POSITIVE_INFINITY])
      expectVmError(
        () => new ContractRunner(pool, { maxCachedModules: bad as never }),
        'INVALID_ARGUMENT',
        'maxCachedModules',
      );
    const runner = new ContractRunner(pool);
    for (const bad of [null, undefined, 'code', [0, 97, 115, 109], noMemory.buffer])
      expectVmError(() => runner.prepare(bad as never), 'INVALID_ARGUMENT', 'code');
    for (const bad of [null, undefined, 'code', new ArrayBuffer(8)])
      expectVmError(() => inspectMemory(bad as never), 'INVALID_ARGUMENT', 'code');
    expectVmError(() => standardizeMemory(noMemory, null as never), 'INVALID_ARGUMENT', 'limits');
    expectVmError(
      () => standardizeMemory(noMemory, { initialPages: -1, maximumPages: 4 }),
      'INVALID_ARGUMENT',
      'initialPages',
    );
    expectVmError(
      () => standardizeMemory(noMemory, { initialPages: 2, maximumPages: 2 ** 40 }),
      'INVALID_ARGUMENT',
      'maximumPages',
    );
  });

  it('decodePagemapEntry wants one 64-bit entry as a bigint', () => {
    for (const bad of [5, null, undefined, '5', -1n, 1n << 64n])
      expectVmError(() => decodePagemapEntry(bad as never), 'INVALID_ARGUMENT', 'entry');
    expect(decodePagemapEntry((1n << 64n) - 1n).present).toBe(true);
  });
});

describe('any value is accepted or refused with a VmMemoryError', () => {
  const onlyVmErrors = (call: (value: unknown) => unknown) =>
    fc.property(junk, (value) => {
      try {
        call(value);
      } catch (error) {
        if (!(error instanceof VmMemoryError)) throw error;
      }
    });
  const cases: [string, (value: unknown) => unknown][] = [
    ['new MemoryPool(value)', (value) => new MemoryPool(value as never)],
    ...['initialPages', 'maximumPages', 'maxIdle', 'maxTotal', 'whenExhausted', 'keepResidentBytes', 'verify'].map(
      (field): [string, (value: unknown) => unknown] => [
        `new MemoryPool({ ${field}: value })`,
        (value) => new MemoryPool({ ...SHAPE, [field]: value }),
      ],
    ),
    ['new MemoryPool({ strategy: value })', (value) => new MemoryPool({ ...SHAPE, strategy: value as never })],
    ['new MemoryPool({ dirtyPages: value })', (value) => new MemoryPool({ ...SHAPE, dirtyPages: value as never })],
    [
      'new MemoryPool({ dirtyPages: { tuning: value } })',
      (value) => new MemoryPool({ ...SHAPE, dirtyPages: { tuning: value as never } }),
    ],
    ['pool.prewarm(value)', (value) => new MemoryPool(SHAPE).prewarm(value as never)],
    ['pool.trim(value)', (value) => new MemoryPool(SHAPE).trim(value as never)],
    ['pool.release(value)', (value) => new MemoryPool(SHAPE).release(value as never)],
    ['new ContractRunner(value)', (value) => new ContractRunner(value as never)],
    ['new ContractRunner(pool, value)', (value) => new ContractRunner(new MemoryPool(SHAPE), value as never)],
    ['runner.prepare(value)', (value) => new ContractRunner(new MemoryPool(SHAPE)).prepare(value as never)],
    ['runner.run(value, ...)', (value) => new ContractRunner(new MemoryPool(SHAPE)).run(value as never, 'add', [1, 2])],
    ['runner.run(code, value)', (value) => new ContractRunner(new MemoryPool(SHAPE)).run(noMemory, value as never)],
    [
      'runner.run(code, name, value)',
      (value) => new ContractRunner(new MemoryPool(SHAPE)).run(noMemory, 'add', value as never),
    ],
    [
      'runner.run(code, name, args, value)',
      (value) => new ContractRunner(new MemoryPool(SHAPE)).run(noMemory, 'add', [1, 2], value as never),
    ],
    ['inspectMemory(value)', (value) => inspectMemory(value as never)],
    ['standardizeMemory(code, value)', (value) => standardizeMemory(noMemory, value as never)],
    ['decodePagemapEntry(value)', (value) => decodePagemapEntry(value as never)],
  ];
  for (const [label, call] of cases)
    it(label, () => {
      fc.assert(onlyVmErrors(call), propertyParams({ numRuns: 150 }));
    });

  it('a forged PreparedContract is refused', () => {
    const runner = new ContractRunner(new MemoryPool(SHAPE));
    const real = runner.prepare(noMemory);
    const forged: PreparedContract = { ...real };
    expectVmError(() => runner.run(forged, 'add', [1, 2]), 'INVALID_ARGUMENT', 'contract');
    expect(runner.run(real, 'add', [1, 2])).toBe(3);
  });
});
