// Bad input to every public function and constructor is a VmMemoryError, never a TypeError or RangeError from deep
// inside (issue 15: `new MemoryPool(null)` threw a TypeError). Named cases: null, undefined, wrong types, negative,
// fractional, huge and non-finite numbers for each argument and option throw INVALID_ARGUMENT naming the field.
// Checked here:
//  1. every exported function and class has cases below (a new export without them fails);
//  2. each argument and option of the constructors (MemoryPool, ContractRunner, MemoryLease, which only the pool
//     makes), the pool's and runner's methods, and the decoders (decodePagemapEntry, inspectMemory,
//     standardizeMemory) refuses its bad values with INVALID_ARGUMENT and the field;
//  3. a forged PreparedContract is refused;
//  4. negative control: the checker fails on a leaked TypeError, a wrong code or field, and a call that returns.
// arguments.property.test.ts feeds the same entry points any value at all.
import { beforeAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { decodePagemapEntry } from '../src/pagemap.js';
import { MemoryLease, MemoryPool } from '../src/pool.js';
import { ContractRunner, type PreparedContract } from '../src/runner.js';
import { inspectMemory, standardizeMemory } from '../src/wasm-binary.js';
import { NOT_A_CHOICE, NOT_A_COUNT, NOT_AN_OBJECT, SHAPE } from './bad-arguments.js';
import { compileContract } from './contracts.js';
import { expectVmError } from './expect-error.js';

let noMemory: Uint8Array;
beforeAll(async () => {
  noMemory = await compileContract('no-memory');
});

/** The exports the cases below cover, by name; every exported function and class must be here. */
const COVERED = [
  'MemoryPool',
  'MemoryLease',
  'ContractRunner',
  'decodePagemapEntry',
  'inspectMemory',
  'standardizeMemory',
];

describe('coverage (1)', () => {
  it('every exported function and class has cases here', () => {
    const callable = Object.entries(api)
      .filter(([name, value]) => typeof value === 'function' && name !== 'VmMemoryError')
      .map(([name]) => name);
    expect(callable.filter((name) => !COVERED.includes(name))).toEqual([]);
    expect(COVERED.filter((name) => !callable.includes(name))).toEqual([]);
  });
});

describe('named bad arguments throw INVALID_ARGUMENT with the field (2)', () => {
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
    const tuning = (field: string, values: readonly unknown[]) => {
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
    for (const bad of [null, undefined, 'code', new ArrayBuffer(8)]) {
      expectVmError(() => inspectMemory(bad as never), 'INVALID_ARGUMENT', 'code');
      expectVmError(() => standardizeMemory(bad as never, SHAPE), 'INVALID_ARGUMENT', 'code');
    }
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

  it('runner.run: the contract, the export name, one argument per parameter, the imports', () => {
    const pool = new MemoryPool(SHAPE);
    const runner = new ContractRunner(pool);
    for (const bad of [null, undefined, 'code', {}, [0, 97, 115, 109], noMemory.buffer])
      expectVmError(() => runner.run(bad as never, 'add', [1, 2]), 'INVALID_ARGUMENT', 'contract');
    for (const bad of [null, undefined, 7, 'nope', {}, Symbol('x')])
      expectVmError(() => runner.run(noMemory, bad as never, [1, 2]), 'INVALID_ARGUMENT', 'exportName');
    for (const bad of [null, 'ab', {}, [1], [1, 2, 3], new Int32Array(2)])
      expectVmError(() => runner.run(noMemory, 'add', bad as never), 'INVALID_ARGUMENT', 'args');
    expectVmError(() => runner.run(noMemory, 'add', [1, '2']), 'INVALID_ARGUMENT', 'args[1]');
    expectVmError(() => runner.run(noMemory, 'add', [1n, 2]), 'INVALID_ARGUMENT', 'args[0]');
    for (const bad of [null, 5, {}, 'imports', Symbol('x')])
      expectVmError(() => runner.run(noMemory, 'add', [1, 2], bad as never), 'INVALID_ARGUMENT', 'imports');
    expect(pool.stats().acquires).toBe(0); // every bad call was refused before a memory was leased
  });

  it('decodePagemapEntry wants one 64-bit entry as a bigint', () => {
    for (const bad of [5, null, undefined, '5', -1n, 1n << 64n])
      expectVmError(() => decodePagemapEntry(bad as never), 'INVALID_ARGUMENT', 'entry');
    expect(decodePagemapEntry((1n << 64n) - 1n).present).toBe(true);
  });
});

describe('contracts (3)', () => {
  it('a forged PreparedContract is refused', () => {
    const runner = new ContractRunner(new MemoryPool(SHAPE));
    const real = runner.prepare(noMemory);
    const forged: PreparedContract = { ...real };
    expectVmError(() => runner.run(forged, 'add', [1, 2]), 'INVALID_ARGUMENT', 'contract');
    expect(runner.run(real, 'add', [1, 2])).toBe(3);
  });
});

describe('negative control (4)', () => {
  it('the checker fails on a leaked TypeError, a wrong code, a wrong field and a call that returns', () => {
    const leaksTypeError = (options: unknown) => (options as { initialPages: number }).initialPages;
    expect(() => expectVmError(() => leaksTypeError(null), 'INVALID_ARGUMENT', 'options')).toThrow(/TypeError/);
    const closed = new MemoryPool(SHAPE);
    closed.close();
    expect(() => expectVmError(() => closed.acquire(), 'INVALID_ARGUMENT')).toThrow(/CLOSED/);
    expect(() => expectVmError(() => new MemoryPool(null as never), 'INVALID_ARGUMENT', 'initialPages')).toThrow(
      /options/,
    );
    expect(() => expectVmError(() => new MemoryPool(SHAPE), 'INVALID_ARGUMENT')).toThrow(/nothing was thrown/);
  });
});
