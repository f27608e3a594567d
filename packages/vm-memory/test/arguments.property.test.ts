// Any value at all given to a public function, constructor or option of this package is either accepted or refused
// with a VmMemoryError, never a TypeError or RangeError from deep inside (arguments.test.ts names the cases).
// Properties:
//  1. for every argument position of MemoryPool (and its options, strategy and dirty-pages tuning), the pool's
//     prewarm, trim and release, ContractRunner, prepare, run, inspectMemory, standardizeMemory and
//     decodePagemapEntry, any value (fast-check's `anything`, plus symbols, prototype-less objects and functions,
//     whose conversion to a string throws, and the named bad values) is accepted or throws VmMemoryError
//     (test-kit's describeAnyArguments, 150 values a case);
//  2. negative control: the property fails for an entry point that leaks a TypeError.
import { type AnyArgumentCase, acceptedOrRefusedWith, describeAnyArguments } from '@strata/test-kit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { VmMemoryError } from '../src/errors.js';
import { decodePagemapEntry } from '../src/pagemap.js';
import { MemoryPool } from '../src/pool.js';
import { ContractRunner } from '../src/runner.js';
import { inspectMemory, standardizeMemory } from '../src/wasm-binary.js';
import { NOT_A_COUNT, NOT_AN_OBJECT, SHAPE } from './bad-values.js';
import { compileContract } from './contracts.js';

let noMemory: Uint8Array;
beforeAll(async () => {
  noMemory = await compileContract('no-memory');
});

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

/** Property 1, one case per argument position: `call(value)` returns or throws a VmMemoryError, whatever `value` is. */
const cases: readonly AnyArgumentCase[] = [
  ['new MemoryPool(value)', (value) => new MemoryPool(value as never)],
  ...['initialPages', 'maximumPages', 'maxIdle', 'maxTotal', 'whenExhausted', 'keepResidentBytes', 'verify'].map(
    (field): AnyArgumentCase => [
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
  ['standardizeMemory(value, limits)', (value) => standardizeMemory(value as never, SHAPE)],
  ['standardizeMemory(code, value)', (value) => standardizeMemory(noMemory, value as never)],
  ['decodePagemapEntry(value)', (value) => decodePagemapEntry(value as never)],
];

describeAnyArguments({ errorClass: VmMemoryError, values: junk, cases, numRuns: 150 });

describe('negative control (2)', () => {
  it('the property fails for an entry point that leaks a TypeError', () => {
    const leaky = (value: unknown) => (value as { initialPages: number }).initialPages; // TypeError for null
    // A fixed seed: the control must not flake.
    const result = fc.check(acceptedOrRefusedWith(VmMemoryError, junk, leaky), { numRuns: 150, seed: 16 });
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/TypeError/);
  });
});
