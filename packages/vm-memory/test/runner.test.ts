// ContractRunner and the prepare step: the compile cache keyed by code hash, the memory rewrite (a module's own
// memory, a memory imported under another name or with other limits, no memory at all; LEB128 and padded section
// sizes are wasm-binary.property.test.ts's), modules that cannot be pooled, and release on every way an execution
// can end: return, trap, host exception, failed instantiation, missing export. References never leave an
// execution: contracts that could hand one out are refused at prepare (each way, test/contracts/escape-*.wat), a
// reference result at run, views of the memory are detached at the end; the interface reader handles GC type forms.
// Bad arguments to run are refused before a memory is leased.
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryPool, TEST_HOOKS } from '../src/pool.js';
import { ContractRunner, type ExecutionContext, type PreparedContract, type RunnerTestHooks } from '../src/runner.js';
import { inspectMemory, standardizeMemory } from '../src/wasm-binary.js';
import { readModuleInterface } from '../src/wasm-interface.js';
import { compileContract, ESCAPE_CONTRACTS, type EscapeContract } from './contracts.js';
import { expectVmError } from './expect-error.js';
import { moduleOf, name, sectionSizes } from './module-binaries.js';

const SHAPE = { initialPages: 4, maximumPages: 8 };
let workload: Uint8Array;
let ownMemory: Uint8Array;
let noMemory: Uint8Array;
let dataSegment: Uint8Array;
let referencesInside: Uint8Array;
const escapes = new Map<EscapeContract, Uint8Array>();

beforeAll(async () => {
  workload = await compileContract('workload');
  ownMemory = await compileContract('own-memory');
  noMemory = await compileContract('no-memory');
  dataSegment = await compileContract('data-segment');
  referencesInside = await compileContract('references-inside');
  for (const name of ESCAPE_CONTRACTS) escapes.set(name, await compileContract(name));
});

function setUp(options: { maxCachedModules?: number } = {}, hooks?: RunnerTestHooks) {
  const pool = new MemoryPool({ ...SHAPE, verify: 'always', maxIdle: 1 });
  return {
    pool,
    runner: new ContractRunner(pool, hooks === undefined ? options : { ...options, [TEST_HOOKS]: hooks }),
  };
}

const quietHost = (context: ExecutionContext) => ({
  env: {
    host_write(address: number, length: number, value: number) {
      context.bytes().fill(value, address, address + length);
    },
    host_fail(code: number) {
      throw new Error(`host failure ${code}`);
    },
  },
});

/** Whether the next tenant of the pool sees all zeros (via a fresh execution of the workload's scan). */
function nextTenantClean(runner: ContractRunner): boolean {
  return runner.run(workload, 'firstNonZero', [0, SHAPE.initialPages * 65536], quietHost) === -1;
}

describe('prepare: the memory becomes env.memory with the pool limits', () => {
  it('rewrites a module that defines its own memory; its data segment lands in the leased memory and is reset', () => {
    const { pool, runner } = setUp();
    expect(inspectMemory(ownMemory)).toEqual({ kind: 'defined', minimum: 2, maximum: 8 });
    const contract = runner.prepare(ownMemory);
    expect(contract.memoryRewritten).toBe(true);
    expect(runner.run(contract, 'size')).toBe(SHAPE.initialPages); // the pool's size, not the declared 2 pages
    expect(runner.run(contract, 'load', [16])).toBe('o'.charCodeAt(0)); // "own memory data" at 16
    runner.run(contract, 'store', [SHAPE.initialPages * 65536 - 1, 42]);
    expect(nextTenantClean(runner)).toBe(true);
    expect(pool.stats().verifyFailures).toBe(0);
    const rewritten = standardizeMemory(ownMemory, SHAPE);
    expect(inspectMemory(rewritten.bytes)).toEqual({
      kind: 'imported',
      module: 'env',
      name: 'memory',
      minimum: SHAPE.initialPages,
      maximum: SHAPE.maximumPages,
    });
  });

  it('leaves a compatible env.memory import alone and rewrites other imports of memory', () => {
    expect(standardizeMemory(workload, SHAPE).rewritten).toBe(false);
    // (import "js" "mem" (memory 1 2)): wrong name and a maximum below the pool's.
    const imported = moduleOf([[2, [1, ...name('js'), ...name('mem'), 0x02, 0x01, 1, 2]]]);
    const result = standardizeMemory(imported, SHAPE);
    expect(result.rewritten).toBe(true);
    expect(result.memory).toEqual({ kind: 'imported', module: 'js', name: 'mem', minimum: 1, maximum: 2 });
    expect(inspectMemory(result.bytes)).toMatchObject({ module: 'env', name: 'memory', minimum: 4, maximum: 8 });
    expect(() => new WebAssembly.Module(result.bytes)).not.toThrow();
  });

  it('gives a module without memory the import, and keeps its other imports and exports working', () => {
    const { runner } = setUp();
    expect(inspectMemory(noMemory)).toEqual({ kind: 'none' });
    const contract = runner.prepare(noMemory);
    expect(contract.memoryRewritten).toBe(true);
    expect(runner.run(contract, 'add', [2, 3])).toBe(5);
    // (memory 1) without a maximum accepts any pool memory; a maximum below the pool's does not (V8 rejects it).
    expect(standardizeMemory(workload, { initialPages: 16, maximumPages: 16 }).rewritten).toBe(false);
    const lowMaximum = moduleOf([[2, [1, ...name('env'), ...name('memory'), 0x02, 0x01, 1, 2]]]);
    expect(standardizeMemory(lowMaximum, SHAPE).rewritten).toBe(true);
  });

  it('keeps custom sections and section order (a new import section goes before the function section)', () => {
    const custom = [...name('note'), 1, 2, 3];
    const withCustom = moduleOf([
      [0, custom],
      [1, [1, 0x60, 0, 0]], // one type: [] -> []
      [0, custom],
      [3, [1, 0]], // one function of type 0
      [5, [1, 0x00, 1]], // (memory 1)
      [10, [1, 2, 0, 0x0b]], // its body: no locals, end
    ]);
    expect(() => new WebAssembly.Module(withCustom)).not.toThrow();
    const { bytes } = standardizeMemory(withCustom, SHAPE);
    expect(() => new WebAssembly.Module(bytes)).not.toThrow();
    expect(sectionSizes(bytes).map((section) => section.id)).toEqual([0, 1, 0, 2, 3, 10]);
  });

  it('rejects modules it cannot pool with BAD_MODULE', () => {
    const bad = (code: Uint8Array, pattern: RegExp) =>
      expect(expectVmError(() => standardizeMemory(code, SHAPE), 'BAD_MODULE').message).toMatch(pattern);
    bad(Uint8Array.from([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]), /magic or version/);
    bad(moduleOf([[5, [2, 0x00, 1, 0x00, 1]]]), /2 memories/);
    bad(
      moduleOf([
        [2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]],
        [5, [1, 0x00, 1]],
      ]),
      /2 memories/,
    );
    bad(moduleOf([[5, [1, 0x03, 1, 2]]]), /shared/);
    bad(moduleOf([[5, [1, 0x04, 1]]]), /64-bit/);
    bad(moduleOf([[5, [1, 0x00, 9]]]), /needs 9 initial pages/);
    bad(moduleOf([[5, [1, 0x00, 1, 0x00]]]), /memory section size/);
    bad(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 10, 1]), /runs past the end/);
    bad(moduleOf([[2, [1, ...name('env'), ...name('x'), 0x09]]]), /unknown import kind/);
  });
});

describe('compile cache', () => {
  it('compiles each code hash once and evicts the least recently used', () => {
    const { runner } = setUp({ maxCachedModules: 2 });
    const first = runner.prepare(workload);
    expect(runner.prepare(Uint8Array.from(workload))).toBe(first); // same bytes, another array
    expect(first.codeHash).toMatch(/^[0-9a-f]{64}$/);
    const other = runner.prepare(noMemory);
    expect(other.codeHash).not.toBe(first.codeHash);
    runner.prepare(workload); // touch: noMemory is now the least recently used
    runner.prepare(ownMemory); // evicts noMemory
    expect(runner.prepare(workload)).toBe(first);
    expect(runner.prepare(noMemory)).not.toBe(other);
    expect(runner.stats()).toMatchObject({ compiles: 4, cacheHits: 3, cachedModules: 2, memoryRewrites: 3 });
  });
});

describe('executions', () => {
  it('run an export with host imports that read and write the leased memory', () => {
    const { pool, runner } = setUp();
    let seen = -1;
    const result = runner.run(workload, 'hostWrite', [100, 50, 7], (context) => ({
      env: {
        host_write(address: number, length: number, value: number) {
          context.bytes().fill(value, address, address + length);
          seen = context.bytes()[address + length - 1]!;
        },
        host_fail() {},
      },
    }));
    expect(result).toBeUndefined();
    expect(seen).toBe(7);
    expect(pool.stats().inUse).toBe(0);
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('a trap releases the lease, rethrows the RuntimeError and the next tenant is clean', () => {
    const { pool, runner } = setUp();
    expect(() => runner.run(workload, 'trapAfter', [SHAPE.initialPages, 0x77n], quietHost)).toThrow(
      WebAssembly.RuntimeError,
    );
    expect(pool.stats().inUse).toBe(0);
    expect(pool.stats().releases).toBe(1);
    expect(runner.stats().traps).toBe(1);
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('a host exception releases the lease and is rethrown unchanged', () => {
    const { pool, runner } = setUp();
    const thrown = new Error('storage backend down');
    let caught: unknown;
    try {
      runner.run(workload, 'hostFailAfter', [2, 0x66n], (context) => ({
        env: {
          host_write() {},
          host_fail() {
            context.bytes().fill(1, 0, 1000); // the host writes before failing
            throw thrown;
          },
        },
      }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBe(thrown);
    expect(pool.stats().inUse).toBe(0);
    expect(runner.stats().otherFailures).toBe(1);
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('a failed instantiation releases the lease too; a missing export is refused before leasing', () => {
    const { pool, runner } = setUp();
    expect(() => runner.run(workload, 'touch', [1, 4096, 1n])).toThrow(); // host imports missing: LinkError/TypeError
    expect(pool.stats().inUse).toBe(0);
    expect(() => runner.run(workload, 'nope', [], quietHost)).toThrow(/no exported function nope/);
    expect(pool.stats().inUse).toBe(0);
    expect(pool.stats()).toMatchObject({ acquires: 1, releases: 1 });
  });

  it('data segments written at instantiation are reset', () => {
    const { runner } = setUp();
    runner.run(dataSegment, 'noop');
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('the execution context is dead after the execution: a kept context throws LEASE_REVOKED', () => {
    const { runner } = setUp();
    let kept: ExecutionContext | undefined;
    runner.run(workload, 'size', [], (context) => {
      kept = context;
      return quietHost(context);
    });
    expect(() => kept?.memory).toThrow(/LEASE_REVOKED/);
    expect(() => kept?.bytes()).toThrow(/LEASE_REVOKED/);
  });

  it('host imports cannot replace env.memory', () => {
    const { runner } = setUp();
    const foreign = new WebAssembly.Memory({ initial: 4, maximum: 8 });
    new Uint8Array(foreign.buffer)[0] = 9;
    const size = runner.run(workload, 'firstNonZero', [0, 16], (context) => ({
      env: { ...quietHost(context).env, memory: foreign },
    }));
    expect(size).toBe(-1); // the pooled memory, not the foreign one
  });
});

/** What each escape contract is refused for: the import or export named in the error, and the words of the reason. */
const ESCAPE_REASONS: Record<EscapeContract, [field: string, reason: RegExp]> = {
  'escape-return-funcref': ['export "leak"', /returns funcref/],
  'escape-return-externref': ['export "leak"', /returns externref/],
  'escape-return-many': ['export "leak"', /returns funcref/],
  'escape-import-param': ['import "env" "register"', /takes funcref/],
  'escape-imported-table': ['import "env" "table"', /imported table of funcref/],
  'escape-imported-global': ['import "env" "slot"', /mutable global of funcref/],
  'escape-imported-tag': ['import "env" "tag"', /tag carries externref/],
};

/** Host imports for the escape contracts that hand nothing out (the runner must refuse before calling them). */
function untouchedHost(): {
  imports: (context: ExecutionContext) => { env: Record<string, unknown> };
  called: () => boolean;
} {
  let called = false;
  return {
    imports: () => {
      called = true;
      return { env: {} };
    },
    called: () => called,
  };
}

describe('references never leave an execution', () => {
  for (const name of ESCAPE_CONTRACTS) {
    it(`prepare refuses ${name} with REFERENCE_ESCAPE; run refuses it before leasing a memory`, () => {
      const { pool, runner } = setUp();
      const [field, reason] = ESCAPE_REASONS[name];
      const code = escapes.get(name)!;
      expect(expectVmError(() => runner.prepare(code), 'REFERENCE_ESCAPE', field).message).toMatch(reason);
      const host = untouchedHost();
      expectVmError(() => runner.run(code, 'leak', [], host.imports), 'REFERENCE_ESCAPE', field);
      expect(host.called()).toBe(false);
      expect(pool.stats().acquires).toBe(0);
      expect(runner.stats()).toMatchObject({ cachedModules: 0, executions: 0 });
    });
  }

  it('accepts references that stay inside: own tables, call_indirect, externref params, exported table and globals', () => {
    const { runner } = setUp();
    const handle = {};
    const imports = () => ({ env: { handle: () => handle, config: handle } });
    expect(runner.run(referencesInside, 'pick', [1], imports)).toBe(2);
    expect(runner.run(referencesInside, 'isNull', [null], imports)).toBe(1);
    expect(runner.run(referencesInside, 'isNull', [handle], imports)).toBe(0);
  });

  it('run refuses a reference result even when prepare let the contract through', () => {
    const { pool, runner } = setUp({}, { referenceChecks: 'results-only' });
    for (const name of ['escape-return-funcref', 'escape-return-many'] as const)
      expectVmError(() => runner.run(escapes.get(name)!, 'leak'), 'REFERENCE_ESCAPE', 'export "leak"');
    const memoryHandle = (context: ExecutionContext) => ({ env: { handle: () => context.memory } });
    expectVmError(
      () => runner.run(escapes.get('escape-return-externref')!, 'leak', [], memoryHandle),
      'REFERENCE_ESCAPE',
      'export "leak"',
    );
    expect(pool.stats()).toMatchObject({ acquires: 3, releases: 3, inUse: 0 });
    expect(runner.stats().otherFailures).toBe(3);
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('a contract prepared with the checks off does not run on another runner', () => {
    const { runner: unchecked } = setUp({}, { referenceChecks: 'off' });
    const contract = unchecked.prepare(escapes.get('escape-return-funcref')!);
    expect(typeof unchecked.run(contract, 'leak')).toBe('function'); // the breach the checks close
    const { pool, runner } = setUp();
    expectVmError(() => runner.run(contract, 'leak'), 'REFERENCE_ESCAPE', 'export "leak"');
    expect(pool.stats().acquires).toBe(0);
  });

  it('views of the memory a host function kept are detached when the execution ends', () => {
    const { runner } = setUp();
    let view: Uint8Array | undefined;
    let fromBuffer: Uint8Array | undefined;
    runner.run(workload, 'hostWrite', [0, 1, 1], (context) => ({
      env: {
        host_write() {
          view = context.bytes();
          fromBuffer = new Uint8Array(context.memory.buffer);
          view[10] = 1; // during the execution the views work
        },
        host_fail() {},
      },
    }));
    expect(view?.length).toBe(0);
    expect(fromBuffer?.length).toBe(0);
    view![10] = 0xa5; // out of range now: goes nowhere
    fromBuffer![20] = 0xa5;
    expect(nextTenantClean(runner)).toBe(true);
  });

  it('only contracts from prepare run, and they are frozen', () => {
    const { pool, runner } = setUp();
    const contract = runner.prepare(workload);
    expect(Object.isFrozen(contract)).toBe(true);
    const forged: PreparedContract = { codeHash: contract.codeHash, module: contract.module, memoryRewritten: false };
    expectVmError(() => runner.run(forged, 'size'), 'INVALID_ARGUMENT', 'contract');
    expectVmError(() => runner.run(null as never, 'size'), 'INVALID_ARGUMENT', 'contract');
    expect(pool.stats().acquires).toBe(0);
  });
});

describe('run checks its arguments before leasing a memory', () => {
  it('refuses a wrong export name, argument count or type, and imports that are not a function', () => {
    const { pool, runner } = setUp();
    const contract = runner.prepare(workload);
    expectVmError(() => runner.run(contract, 7 as never), 'INVALID_ARGUMENT', 'exportName');
    expectVmError(() => runner.run(contract, 'touch', [1, 4096]), 'INVALID_ARGUMENT', 'args');
    expectVmError(() => runner.run(contract, 'size', [1]), 'INVALID_ARGUMENT', 'args');
    expectVmError(() => runner.run(contract, 'touch', [1, 4096, 1]), 'INVALID_ARGUMENT', 'args[2]'); // i64: a bigint
    expectVmError(() => runner.run(contract, 'touch', [1n, 4096, 1n]), 'INVALID_ARGUMENT', 'args[0]'); // i32: a number
    expectVmError(() => runner.run(contract, 'grow', ['1']), 'INVALID_ARGUMENT', 'args[0]');
    expectVmError(() => runner.run(contract, 'size', null as never), 'INVALID_ARGUMENT', 'args');
    expectVmError(() => runner.run(contract, 'size', [], {} as never), 'INVALID_ARGUMENT', 'imports');
    expect(pool.stats().acquires).toBe(0);
  });
});

describe('the interface reader', () => {
  it('reads GC type forms (rec groups, subtypes, structs, arrays) and classifies typed references', () => {
    // types: rec { struct { mut i32 }, sub array i8 }, func () -> (ref null 0), sub final func (i31ref, (ref func))
    const types = [3, 0x4e, 2, 0x5f, 1, 0x7f, 1, 0x50, 0, 0x5e, 0x78, 0, 0x60, 0, 1, 0x63, 0, 0x4f, 0, 0x60];
    types.push(2, 0x6c, 0x64, 0x70, 0);
    const code = moduleOf([
      [1, types],
      [2, [1, ...name('env'), ...name('take'), 0x00, 3]], // import func of type 3
      [3, [1, 2]], // one function of type 2
      [7, [1, ...name('make'), 0x00, 1]], // export it (index 1: the import is 0)
    ]);
    const { functions, escapes: found } = readModuleInterface(code);
    expect(functions.get('make')).toEqual({ params: [], results: [{ reference: '(ref null 0)' }] });
    expect(found).toEqual([
      { field: 'import "env" "take"', detail: expect.stringMatching(/takes i31ref, \(ref func\)/) },
      { field: 'export "make"', detail: 'the export returns (ref null 0)' },
    ]);
  });

  it('is not fooled by reference types in places that cannot escape', () => {
    // An immutable funcref global import (host to guest) and a function import returning externref.
    const code = moduleOf([
      [1, [1, 0x60, 0, 1, 0x6f]],
      [2, [2, ...name('env'), ...name('f'), 0x00, 0, ...name('env'), ...name('g'), 0x03, 0x70, 0x00]],
    ]);
    expect(readModuleInterface(code).escapes).toEqual([]);
  });
});
