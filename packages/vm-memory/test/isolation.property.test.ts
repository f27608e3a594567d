// The isolation property: whatever earlier tenants did, the next tenant sees a memory exactly like a fresh one.
//
// Properties checked (test/isolation.ts drives the pool; every acquire is inspected):
//  1. Every lease starts with exactly `initial` pages: buffer.byteLength in JS and memory.size in wasm.
//  2. Every lease starts all zero: the tenant's own wasm scan finds no non-zero byte, and the SHA-256 of the whole
//     buffer equals a fresh memory's (a differential check that does not trust the pool).
//  3. (1) and (2) hold whatever the previous tenants did: guest stores, bulk fills, sparse touches, stores to the last
//     byte (also after growing), host writes into guest memory, active data segments, growth by 0, 1 or 2 pages from
//     wasm or JS, traps and host exceptions in the middle of an execution, executions through the ContractRunner.
//  3a. ...and whatever the caller kept of earlier executions through the runner and writes through after their
//     release: a guest function the export returned (alone or among several values), an externref handed back, a
//     guest function passed to an import, stored into an imported table or mutable global, an exception payload of
//     an imported tag, a view of the memory or the ExecutionContext a host function kept (test/contracts/escape-*).
//  4. ...and whatever happened to the pool in between: leases held across other executions, prewarm, trim with and
//     without decommit, exhaustion (throwing or handing out unpooled memories).
//  5. A memory is never leased twice at once, and a released lease's accessors throw LEASE_REVOKED.
//  6. Conservation: every memory created is idle, leased or retired exactly once, and nothing stays in use.
//  7. (1)-(6) hold for every strategy this machine can run, with random pool sizes and dirty-pages tuning (so the hot
//     path, the give-back path and the resident budget are all reached), and on the 64 MiB shape too.
//
// Negative controls (the checker must be able to fail): the same property FAILS for a reset that trusts a
// guest-reported extent, for a pool that keeps grown memories, and for a reset through a view captured before the
// execution (detached by memory.grow(0), so it silently resets nothing). With verify: 'always' the pool itself
// catches the stale-view reset and retires the memories instead. It FAILS for a runner that passes references
// through (the breach of issue 15, which `verifyFailures` never saw), for one that checks only results (the
// imports, tables, globals and tags of the escape contracts still leak), and for one that leaves kept views of the
// memory attached.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNative } from '../src/native.js';
import { MemoryPool, type MemoryPoolOptions, TEST_HOOKS, type TestHooks } from '../src/pool.js';
import { ContractRunner, type RunnerTestHooks } from '../src/runner.js';
import type { ResetOutcome, ResetStrategy, ResetTarget } from '../src/strategies.js';
import {
  type EscapeRoute,
  type GuestReport,
  loadContracts,
  type PoolOp,
  runSequence,
  sequenceArb,
} from './isolation.js';

const SHAPE = { initialPages: 4, maximumPages: 6 };
const native = loadNative().binding !== undefined;

interface Config {
  name: string;
  options: Partial<MemoryPoolOptions> & { [TEST_HOOKS]?: TestHooks };
}

/** As on a machine where the native helper did not build: no PAGEMAP_SCAN, no decommit. */
const withoutNative = { [TEST_HOOKS]: { probe: { native: null } } };

const configs: Config[] = [
  { name: 'auto', options: { strategy: 'auto' } },
  ...(native
    ? [
        {
          name: 'dirty-pages (PAGEMAP_SCAN)',
          options: { strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-scan' } },
        },
        { name: 'decommit', options: { strategy: 'decommit' } },
      ]
    : []),
  {
    name: 'dirty-pages (pagemap read, conservative)',
    options: { strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-read', rule: 'conservative' } },
  },
  {
    name: 'dirty-pages (pagemap read, exclusive)',
    options: { strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-read', rule: 'exclusive' } },
  },
  {
    name: 'auto without the native helper (pure-JS reader; stale memories retired, not decommitted)',
    options: { strategy: 'auto', ...withoutNative },
  },
  { name: 'zero-all', options: { strategy: 'zero-all' } },
  { name: 'zero-all without the native helper', options: { strategy: 'zero-all', ...withoutNative } },
  { name: 'fresh', options: { strategy: 'fresh' } },
] as Config[];

const poolSettingsArb = fc.record({
  maxIdle: fc.integer({ min: 0, max: 3 }),
  maxTotal: fc.integer({ min: 1, max: 4 }),
  whenExhausted: fc.constantFrom('throw' as const, 'unpooled' as const),
  // Small budgets force idle decommits or over-budget drops.
  keepResidentBytes: fc.constantFrom(undefined, 0, 64 << 10, 1 << 20),
  // Small sampling thresholds reach the give-back path on these small memories.
  sampleMinBytes: fc.constantFrom(undefined, 16 << 10),
  wasteLimit: fc.constantFrom(undefined, 1, 2),
});

type PoolSettings = typeof poolSettingsArb extends fc.Arbitrary<infer T> ? T : never;

function makePool(config: Config, settings: PoolSettings): MemoryPool {
  const options: MemoryPoolOptions & { [TEST_HOOKS]?: TestHooks } = {
    ...SHAPE,
    ...config.options,
    maxIdle: settings.maxIdle,
    maxTotal: settings.maxTotal,
    whenExhausted: settings.whenExhausted,
    verify: 'off',
  };
  if (settings.keepResidentBytes !== undefined) options.keepResidentBytes = settings.keepResidentBytes;
  const tuning: Record<string, number> = {};
  if (settings.sampleMinBytes !== undefined) tuning.sampleMinBytes = settings.sampleMinBytes;
  if (settings.wasteLimit !== undefined) tuning.wasteLimit = settings.wasteLimit;
  options.dirtyPages = { ...config.options.dirtyPages, tuning };
  return new MemoryPool(options);
}

interface Harness {
  pool: MemoryPool;
  report?: GuestReport;
  runner?: (pool: MemoryPool) => ContractRunner;
}

/** The property, over any pool (and runner) factory: no violation for any sequence. */
function isolationProperty(make: (settings: PoolSettings) => Harness) {
  return fc.property(poolSettingsArb, sequenceArb, (settings, ops: PoolOp[]) => {
    const { pool, ...options } = make(settings);
    const violations = runSequence(pool, ops, options);
    if (violations.length > 0) throw new Error(violations.slice(0, 5).join('\n'));
    if (pool.stats().verifyFailures !== 0) throw new Error('verification failed');
  });
}

beforeAll(loadContracts);

describe('isolation: the next tenant sees a fresh memory', () => {
  for (const config of configs) {
    it(config.name, () => {
      fc.assert(
        isolationProperty((settings) => ({ pool: makePool(config, settings) })),
        propertyParams({ numRuns: 60 }),
      );
    });
  }

  it('auto on the 64 MiB shape (nearcore limits: 1024 initial, 2048 maximum pages)', () => {
    const bigWrites = fc.array(
      fc.record({ pages: fc.constantFrom(1, 16, 256, 1024), stride: fc.constantFrom(4096, 4 << 20) }),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(bigWrites, (runs) => {
        const pool = new MemoryPool({ initialPages: 1024, maximumPages: 2048, verify: 'off', maxIdle: 1 });
        const ops: PoolOp[] = runs.map((run) => ({
          kind: 'execute',
          execution: {
            writes: [{ kind: 'guest-touch', pages: run.pages, stride: run.stride }, { kind: 'host-last' }],
            ending: 'return',
          },
        }));
        const violations = runSequence(pool, ops);
        if (violations.length > 0) throw new Error(violations.join('\n'));
      }),
      propertyParams({ numRuns: 6 }),
    );
  });
});

/** Zeroes what the guest says it wrote: misses host writes, the last byte, data segments. */
class GuestExtentStrategy implements ResetStrategy {
  readonly name = 'guest-extent (broken)';
  readonly reuses = true;
  constructor(private readonly report: GuestReport) {}
  reset(target: ResetTarget): ResetOutcome {
    new Uint8Array(target.buffer).fill(0, 0, Math.min(this.report.extentBytes, target.buffer.byteLength));
    return { path: 'zero-all', dirtyBytes: this.report.extentBytes, residentBytes: 0, scanMicros: 0 };
  }
}

/** Resets through a view taken when the memory was created; after any grow (even by 0) it resets nothing. */
class StaleViewStrategy implements ResetStrategy {
  readonly name = 'stale-view (broken)';
  readonly reuses = true;
  allocate(descriptor: WebAssembly.MemoryDescriptor) {
    const memory = new WebAssembly.Memory(descriptor);
    return { memory, state: new Uint8Array(memory.buffer) };
  }
  reset(target: ResetTarget): ResetOutcome {
    const view = target.state as Uint8Array;
    // Like madvise on a stale Buffer: a detached view has length 0, so this silently does nothing.
    if (view.byteLength > 0) view.fill(0);
    return { path: 'zero-all', dirtyBytes: undefined, residentBytes: 0, scanMicros: 0 };
  }
}

function brokenFails(make: (settings: PoolSettings) => Harness): fc.RunDetails<[PoolSettings, PoolOp[]]> {
  return fc.check(isolationProperty(make), propertyParams({ numRuns: 200 }));
}

describe('negative controls: the checker catches broken resets', () => {
  it('a reset that trusts the guest-reported extent leaks', () => {
    const result = brokenFails((settings) => {
      const report: GuestReport = { extentBytes: 0 };
      const pool = new MemoryPool({
        ...SHAPE,
        strategy: new GuestExtentStrategy(report),
        maxIdle: Math.max(1, settings.maxIdle),
        verify: 'off',
      });
      return { pool, report };
    });
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/previous data|differ/);
  });

  it('a pool that keeps grown memories leaks memory.size', () => {
    const result = brokenFails((settings) => ({
      pool: new MemoryPool({
        ...SHAPE,
        strategy: 'zero-all',
        maxIdle: Math.max(1, settings.maxIdle),
        verify: 'off',
        [TEST_HOOKS]: { skipSizeCheck: true },
      }),
    }));
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/memory\.size|bytes, expected/);
  });

  it('a reset through a view captured before the execution leaks', () => {
    const result = brokenFails((settings) => ({
      pool: new MemoryPool({
        ...SHAPE,
        strategy: new StaleViewStrategy(),
        maxIdle: Math.max(1, settings.maxIdle),
        verify: 'off',
      }),
    }));
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/previous data|differ/);
  });

  it("verify: 'always' catches the stale-view reset: memories are retired, no tenant sees data", () => {
    let verifyFailures = 0;
    fc.assert(
      fc.property(sequenceArb, (ops) => {
        const pool = new MemoryPool({ ...SHAPE, strategy: new StaleViewStrategy(), maxIdle: 2, verify: 'always' });
        const violations = runSequence(pool, ops);
        if (violations.length > 0) throw new Error(violations.join('\n'));
        verifyFailures += pool.stats().verifyFailures;
        expect(pool.stats().retirements['verify-failed']).toBe(pool.stats().verifyFailures);
      }),
      propertyParams({ numRuns: 100 }),
    );
    expect(verifyFailures).toBeGreaterThan(0);
  });
});

/** A pool that reuses memories, with a runner built with `hooks`. */
function runnerHarness(maxIdle: number, hooks: RunnerTestHooks): Harness {
  return {
    pool: new MemoryPool({ ...SHAPE, strategy: 'zero-all', maxIdle: Math.max(1, maxIdle), verify: 'always' }),
    runner: (pool) => new ContractRunner(pool, { [TEST_HOOKS]: hooks }),
  };
}

/** The escape routes in a (shrunk) counterexample. */
function escapeRoutes(result: fc.RunDetails<[PoolSettings, PoolOp[]]>): EscapeRoute[] {
  const ops = result.counterexample?.[1] ?? [];
  return ops.flatMap((op) => (op.kind === 'escape' ? [op.route] : []));
}

describe('negative controls: the checker catches references that outlive their execution', () => {
  it('a runner that passes references through leaks (issue 15), and verification never sees it', () => {
    const result = brokenFails((settings) => runnerHarness(settings.maxIdle, { referenceChecks: 'off' }));
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/previous data|differ/);
    expect(escapeRoutes(result).length).toBeGreaterThan(0);
  });

  it('issue 15 as reported: a returned funcref writes after the reset, and verifyFailures stays 0', () => {
    const leak: PoolOp[] = [{ kind: 'escape', route: 'escape-return-funcref', at: 0.5 }];
    const broken = runnerHarness(1, { referenceChecks: 'off' });
    expect(runSequence(broken.pool, leak, broken)).toContain(
      `final acquire 0: previous data at ${SHAPE.initialPages * 32768}`,
    );
    expect(broken.pool.stats()).toMatchObject({ verifyFailures: 0 });
    const fixed = runnerHarness(1, {});
    expect(runSequence(fixed.pool, leak, fixed)).toEqual([]);
  });

  it('a runner that checks only results leaks through imports, tables, globals and tags', () => {
    const result = brokenFails((settings) => runnerHarness(settings.maxIdle, { referenceChecks: 'results-only' }));
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/previous data|differ/);
    // Only these leak when results are checked: a counterexample has one (shrinking may leave refused ones too).
    const throughImports = [
      'escape-import-param',
      'escape-imported-table',
      'escape-imported-global',
      'escape-imported-tag',
    ];
    expect(escapeRoutes(result).some((route) => throughImports.includes(route))).toBe(true);
  });

  it('a runner that leaves kept views attached leaks through them', () => {
    const result = brokenFails((settings) => runnerHarness(settings.maxIdle, { keepViews: true }));
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/previous data|differ/);
    expect(escapeRoutes(result)).toContain('kept-view');
  });
});
