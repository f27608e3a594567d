// The isolation checker shared by the property test, its negative controls and the pool tests: it drives a pool
// through a sequence of operations with real wasm tenants and reports every way the next tenant could tell that
// someone used the memory before it. It checks through the tenant's own eyes (a new Instance calling `size` and
// `firstNonZero`) and independently of the pool (a SHA-256 of the whole buffer against a fresh memory's), so a
// reset that trusts the wrong thing cannot also fool the check. Tenants run by the ContractRunner also try to hand
// a reference out of their execution (test/contracts/escape-*.wat, kept views and contexts); the caller then writes
// through whatever it got, after the release, as a careless or hostile host would.
import { createHash } from 'node:crypto';
import { errorOf } from '@strata/test-kit';
import fc from 'fast-check';
import { VmMemoryError } from '../src/errors.js';
import type { MemoryLease, MemoryPool } from '../src/pool.js';
import { ContractRunner, type ExecutionContext } from '../src/runner.js';
import { compileContract, ESCAPE_CONTRACTS, type EscapeContract, type WorkloadExports } from './contracts.js';
import type {} from './webassembly-references.js'; // WebAssembly.Table, Tag and Exception

/** One way a tenant writes into its memory. Addresses are fractions of the memory so they scale with any shape. */
export type Write =
  | { kind: 'guest-fill'; at: number; length: number; value: number }
  | { kind: 'guest-touch'; pages: number; stride: number }
  | { kind: 'guest-last' }
  | { kind: 'host-write'; at: number; length: number; value: number }
  | { kind: 'host-last' }
  | { kind: 'grow'; pages: number; by: 'guest' | 'host' }
  | { kind: 'data-segment' };

export type Ending = 'return' | 'trap' | 'host-exception';

export interface Execution {
  writes: Write[];
  ending: Ending;
}

/**
 * A way a tenant run by the runner tries to leave a reference behind: one of the escape contracts, or a host
 * function that keeps a view of the memory or the ExecutionContext. `at` places the caller's later write.
 */
export type EscapeRoute = EscapeContract | 'kept-view' | 'kept-context';

export type PoolOp =
  | { kind: 'execute'; execution: Execution }
  | { kind: 'escape'; route: EscapeRoute; at: number }
  | { kind: 'run'; call: 'touch' | 'hostWrite' | 'trapAfter' | 'hostFailAfter'; pages: number }
  | { kind: 'hold' }
  | { kind: 'release-held'; index: number }
  | { kind: 'prewarm'; count: number }
  | { kind: 'trim'; maxIdle: number; decommit: boolean };

/** Told, before each release, the extent the guest "declared" dirty: only the broken resetter of a negative control listens. */
export interface GuestReport {
  extentBytes: number;
}

interface Contracts {
  workload: WebAssembly.Module;
  dataSegment: WebAssembly.Module;
  workloadCode: Uint8Array;
  escapes: Map<EscapeContract, Uint8Array>;
}

let contracts: Contracts | undefined;

/** Compiles the contracts once (call in beforeAll). */
export async function loadContracts(): Promise<void> {
  const workloadCode = await compileContract('workload');
  const escapes = new Map<EscapeContract, Uint8Array>();
  for (const name of ESCAPE_CONTRACTS) escapes.set(name, await compileContract(name));
  contracts = {
    workloadCode,
    workload: new WebAssembly.Module(workloadCode),
    dataSegment: new WebAssembly.Module(await compileContract('data-segment')),
    escapes,
  };
}

function must(): Contracts {
  if (contracts === undefined) throw new Error('call loadContracts() first');
  return contracts;
}

const SECRET = 0xa5;

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('guest-fill' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      length: fc.integer({ min: 1, max: 70_000 }),
      value: fc.integer({ min: 1, max: 255 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('guest-touch' as const),
      pages: fc.integer({ min: 1, max: 8 }),
      stride: fc.constantFrom(8, 4096, 65536, 4 << 20),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'guest-last' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('host-write' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      length: fc.integer({ min: 1, max: 300 }),
      value: fc.integer({ min: 1, max: 255 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'host-last' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('grow' as const),
      pages: fc.constantFrom(0, 0, 1, 2),
      by: fc.constantFrom('guest' as const, 'host' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'data-segment' as const }) },
);

export const executionArb: fc.Arbitrary<Execution> = fc.record({
  writes: fc.array(writeArb, { minLength: 0, maxLength: 6 }),
  ending: fc.constantFrom<Ending>('return', 'return', 'trap', 'host-exception'),
});

export const poolOpArb: fc.Arbitrary<PoolOp> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('execute' as const), execution: executionArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('run' as const),
      call: fc.constantFrom('touch' as const, 'hostWrite' as const, 'trapAfter' as const, 'hostFailAfter' as const),
      pages: fc.integer({ min: 1, max: 8 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('escape' as const),
      route: fc.constantFrom<EscapeRoute>(...ESCAPE_CONTRACTS, 'kept-view', 'kept-context'),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'hold' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release-held' as const), index: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prewarm' as const), count: fc.integer({ min: 0, max: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('trim' as const),
      maxIdle: fc.integer({ min: 0, max: 2 }),
      decommit: fc.boolean(),
    }),
  },
);

export const sequenceArb = fc.array(poolOpArb, { minLength: 1, maxLength: 14 });

const freshHashes = new Map<number, string>();

function sha256(buffer: ArrayBuffer): string {
  return createHash('sha256').update(new Uint8Array(buffer)).digest('hex');
}

/** The hash a fresh memory of `pages` pages has (all zeros). */
function freshHash(pages: number): string {
  let hash = freshHashes.get(pages);
  if (hash === undefined) {
    hash = sha256(new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer);
    freshHashes.set(pages, hash);
  }
  return hash;
}

/**
 * What the next tenant sees: `initial` pages (JS and wasm), no non-zero byte (wasm scan), and a buffer whose hash is
 * a fresh memory's (differential). Returns the violations.
 */
export function inspectNewTenant(pool: MemoryPool, lease: MemoryLease, label: string): string[] {
  const violations: string[] = [];
  const memory = lease.memory;
  const expected = pool.byteLength;
  if (memory.buffer.byteLength !== expected)
    violations.push(`${label}: buffer has ${memory.buffer.byteLength} bytes, expected ${expected}`);
  const tenant = new WebAssembly.Instance(must().workload, { env: { memory, host_write() {}, host_fail() {} } })
    .exports as unknown as WorkloadExports;
  const size = tenant.size();
  if (size !== pool.initialPages) violations.push(`${label}: memory.size ${size} != ${pool.initialPages}`);
  const leaked = tenant.firstNonZero(0, size * 65536);
  if (leaked !== -1) violations.push(`${label}: previous data at ${leaked}`);
  if (memory.buffer.byteLength === expected && sha256(memory.buffer) !== freshHash(pool.initialPages))
    violations.push(`${label}: contents differ from a fresh memory`);
  return violations;
}

function hostImports(context: { bytes(): Uint8Array }) {
  return {
    host_write(address: number, length: number, value: number) {
      const bytes = context.bytes();
      bytes.fill(value, address, Math.min(bytes.length, address + length));
    },
    host_fail(code: number) {
      throw new Error(`host function failed with ${code}`);
    },
  };
}

/** Runs one tenant's execution on a lease; returns the extent a guest would "report" (its own stores only). */
function execute(lease: MemoryLease, execution: Execution): number {
  const { workload, dataSegment } = must();
  const memory = lease.memory;
  const env = { memory, ...hostImports(lease) };
  const tenant = new WebAssembly.Instance(workload, { env }).exports as unknown as WorkloadExports;
  let reported = 0;
  const pages = () => memory.buffer.byteLength / 65536;
  for (const write of execution.writes) {
    const size = memory.buffer.byteLength;
    switch (write.kind) {
      case 'guest-fill': {
        const at = Math.floor(write.at * size);
        const length = Math.min(write.length, size - at);
        tenant.fill(at, length, write.value);
        reported = Math.max(reported, at + length);
        break;
      }
      case 'guest-touch': {
        const touched = Math.min(write.pages, pages());
        tenant.touch(touched, write.stride, 0xa5a5_a5a5n);
        reported = Math.max(reported, touched * 65536);
        break;
      }
      case 'guest-last':
        tenant.storeLast(SECRET);
        break;
      case 'host-write': {
        const at = Math.floor(write.at * size);
        tenant.hostWrite(at, Math.min(write.length, size - at), write.value);
        break;
      }
      case 'host-last':
        lease.bytes()[size - 1] = SECRET;
        break;
      case 'grow':
        if (write.by === 'guest') tenant.grow(write.pages);
        else {
          try {
            memory.grow(write.pages);
          } catch (error) {
            if (!(error instanceof RangeError)) throw error; // beyond the maximum
          }
        }
        break;
      case 'data-segment':
        new WebAssembly.Instance(dataSegment, { env: { memory } });
        break;
    }
  }
  if (execution.ending === 'trap') {
    errorOf(WebAssembly.RuntimeError, () => tenant.trapAfter(1, 0x5a5an));
    reported = Math.max(reported, 65536);
  } else if (execution.ending === 'host-exception') {
    const error = errorOf(Error, () => tenant.hostFailAfter(1, 0x5a5an));
    if (!error.message.includes('host function failed')) throw error;
    reported = Math.max(reported, 65536);
  }
  return reported;
}

/** A write the caller can still do after an execution, through something it kept. */
type KeptWrite = (address: number) => void;

/**
 * Runs one escape route through `runner` with a host that keeps everything it is handed (a returned value, a
 * function passed to an import, the table, global or exception payload it gave the guest, a view, the context) and
 * adds to `kept` the writes that what it kept allows. Throws what the runner throws (REFERENCE_ESCAPE when it
 * refuses the contract).
 */
function attemptEscape(runner: ContractRunner, route: EscapeRoute, kept: KeptWrite[]): void {
  const keep = (value: unknown): void => {
    if (typeof value === 'function') {
      const guestFunction = value as (address: number, value: number) => void;
      kept.push((address) => guestFunction(address, SECRET));
    } else if (value instanceof WebAssembly.Memory) {
      kept.push((address) => {
        new Uint8Array(value.buffer)[address] = SECRET;
      });
    } else if (Array.isArray(value)) {
      for (const item of value) keep(item);
    }
  };
  if (route === 'kept-view' || route === 'kept-context') {
    runner.run(must().workloadCode, 'hostWrite', [0, 1, 1], (context) => ({
      env: {
        host_write() {
          if (route === 'kept-view') {
            const view = context.bytes();
            kept.push((address) => {
              view[address] = SECRET; // a detached view has length 0: the write goes nowhere
            });
          } else {
            kept.push((address) => {
              try {
                context.bytes()[address] = SECRET;
              } catch (error) {
                if (!(error instanceof VmMemoryError) || error.code !== 'LEASE_REVOKED') throw error;
              }
            });
          }
        },
        host_fail() {},
      },
    }));
    return;
  }
  const tag = new WebAssembly.Tag({ parameters: ['externref'] });
  const table = new WebAssembly.Table({ element: 'anyfunc', initial: 1 });
  const slot = new WebAssembly.Global({ value: 'anyfunc', mutable: true }, null);
  // One host for every escape contract (instantiation ignores what a module does not import).
  const imports = (context: ExecutionContext) => ({
    env: { handle: () => context.memory, register: keep, tag, table, slot },
  });
  try {
    keep(runner.run(must().escapes.get(route)!, 'leak', [], imports));
  } catch (error) {
    if (!(error instanceof WebAssembly.Exception)) throw error;
    keep(error.getArg(tag, 0));
  } finally {
    keep(table.get(0));
    keep(slot.value);
  }
}

/**
 * Drives `pool` through `ops` and returns every violation of the isolation properties: each acquired memory is
 * `initial` pages and all zero, no memory is leased twice at once, released leases are revoked, and stats add up.
 */
export function runSequence(
  pool: MemoryPool,
  ops: readonly PoolOp[],
  options: { report?: GuestReport; runner?: (pool: MemoryPool) => ContractRunner } = {},
): string[] {
  const { report } = options;
  const violations: string[] = [];
  const held: MemoryLease[] = [];
  const leasedMemories = new Set<unknown>();
  const runner = options.runner?.(pool) ?? new ContractRunner(pool);
  /** What the caller kept of earlier executions (nothing, unless the runner let a reference escape). */
  const kept: KeptWrite[] = [];
  const acquire = (label: string): MemoryLease | undefined => {
    let lease: MemoryLease;
    try {
      lease = pool.acquire();
    } catch (error) {
      if (error instanceof VmMemoryError && error.code === 'POOL_EXHAUSTED') return undefined;
      throw error;
    }
    if (leasedMemories.has(lease.memory)) violations.push(`${label}: memory leased twice at once`);
    leasedMemories.add(lease.memory);
    violations.push(...inspectNewTenant(pool, lease, label));
    return lease;
  };
  const release = (lease: MemoryLease, reported: number) => {
    leasedMemories.delete(lease.memory);
    if (report !== undefined) report.extentBytes = reported;
    pool.release(lease);
    try {
      void lease.memory;
      violations.push('a released lease still gives its memory');
    } catch (error) {
      if (!(error instanceof VmMemoryError) || error.code !== 'LEASE_REVOKED') throw error;
    }
  };

  ops.forEach((op, step) => {
    const label = `step ${step} (${op.kind})`;
    switch (op.kind) {
      case 'execute': {
        const lease = acquire(label);
        if (lease === undefined) return;
        let reported = 0;
        try {
          reported = execute(lease, op.execution);
        } finally {
          release(lease, reported);
        }
        break;
      }
      case 'run': {
        // Through the runner: the lease is taken and released inside; the next acquire checks what it left.
        const { workloadCode } = must();
        const pages = Math.min(op.pages, pool.initialPages);
        if (report !== undefined) report.extentBytes = op.call === 'hostWrite' ? 0 : pages * 65536;
        try {
          const imports = (context: ExecutionContext) => ({ env: hostImports(context) });
          if (op.call === 'touch') runner.run(workloadCode, 'touch', [pages, 4096, 0x77n], imports);
          else if (op.call === 'hostWrite') runner.run(workloadCode, 'hostWrite', [pages * 4096 + 3, 200, 9], imports);
          else runner.run(workloadCode, op.call, [pages, 0x77n], imports);
          if (op.call === 'trapAfter' || op.call === 'hostFailAfter') violations.push(`${label}: ${op.call} returned`);
        } catch (error) {
          if (error instanceof VmMemoryError && error.code === 'POOL_EXHAUSTED') return;
          const expected =
            (op.call === 'trapAfter' && error instanceof WebAssembly.RuntimeError) ||
            (op.call === 'hostFailAfter' && error instanceof Error && error.message.includes('host function failed'));
          if (!expected) throw error;
        }
        break;
      }
      case 'escape': {
        if (report !== undefined) report.extentBytes = 0; // the guest itself stores nothing
        try {
          attemptEscape(runner, op.route, kept);
        } catch (error) {
          const refused =
            error instanceof VmMemoryError && (error.code === 'REFERENCE_ESCAPE' || error.code === 'POOL_EXHAUSTED');
          if (!refused) throw error;
        }
        // After the release: whatever the caller kept writes into a memory the pool will hand to the next tenant.
        for (const write of kept) write(Math.floor(op.at * pool.byteLength));
        break;
      }
      case 'hold': {
        const lease = acquire(label);
        if (lease !== undefined) {
          // A held tenant writes too, so that releasing it later has something to reset.
          lease.bytes().fill(SECRET, 0, 100);
          held.push(lease);
        }
        break;
      }
      case 'release-held': {
        const lease = held.splice(op.index % Math.max(1, held.length), 1)[0];
        if (lease !== undefined) release(lease, 100);
        break;
      }
      case 'prewarm':
        pool.prewarm(op.count);
        break;
      case 'trim':
        pool.trim({ maxIdle: op.maxIdle, decommit: op.decommit });
        break;
    }
  });
  for (const lease of held.splice(0)) release(lease, 100);
  for (const write of kept) write(pool.byteLength - 1); // once more, now that every memory is idle

  // Every memory handed out after everything: drain the idle stack (and one new one) through the tenant check.
  const drained: MemoryLease[] = [];
  for (let index = 0; index <= pool.stats().idle; index++) {
    const lease = acquire(`final acquire ${index}`);
    if (lease === undefined) break;
    drained.push(lease);
  }
  for (const lease of drained) release(lease, 0);

  // Conservation: every memory ever created is idle, leased or retired, exactly once.
  const stats = pool.stats();
  const retired = Object.values(stats.retirements).reduce((sum, count) => sum + count, 0);
  if (stats.freshAllocations + stats.unpooledAllocations !== stats.idle + stats.inUse + retired)
    violations.push(
      `created ${stats.freshAllocations}+${stats.unpooledAllocations} != idle ${stats.idle} + in use ${stats.inUse} + retired ${retired}`,
    );
  if (stats.inUse !== 0) violations.push(`inUse ${stats.inUse} after every lease was released`);
  return violations;
}
