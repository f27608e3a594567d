// MemoryPool: WebAssembly memories of one shape, leased one execution at a time and reset between tenants. The pool
// owns the safety rules whatever the strategy: the buffer is re-read after the execution (never a view from before),
// a memory of the wrong size is retired, any reset error retires, verification failures retire; so the next tenant
// always gets exactly `initial` pages, all zero, and nobody else holds the lease.

import { assert, describeValue } from '@strata/base';
import {
  booleanOption,
  choiceOption,
  countOption,
  customStrategy,
  dirtyPagesOptions,
  optionsObject,
  poolShape,
} from './arguments.js';
import { invalidArgument, VmMemoryError } from './errors.js';
import {
  type BackendInfo,
  type DirtyPagesOptions,
  type ProbeOverrides,
  resolveStrategy,
  type SelfTestReport,
} from './probe.js';
import { Distribution, type DistributionSnapshot, RETIRE_REASONS, type RetireReason } from './stats.js';
import type { ResetPath, ResetStrategy, ResetTarget, StrategyName } from './strategies.js';
import { firstNonZero } from './zero-check.js';

export const WASM_PAGE_SIZE = 65536;

/** Options of a pool; only the shape is required. */
export interface MemoryPoolOptions {
  /** Pages every lease starts with (and is reset to). At least 1. */
  initialPages: number;
  /** The memories' declared maximum; a contract can grow up to it (the grown memory is then retired). */
  maximumPages: number;
  /** 'auto' (default), a built-in strategy, or your own (advanced; the pool's checks still apply). */
  strategy?: 'auto' | StrategyName | ResetStrategy;
  /** Idle memories kept for reuse (default 4). A release beyond it drops the memory. */
  maxIdle?: number;
  /** Memories the pool owns at once, leased plus idle (default 64). */
  maxTotal?: number;
  /** At `maxTotal`: 'throw' POOL_EXHAUSTED (default), or 'unpooled': hand out a new memory dropped at release. */
  whenExhausted?: 'throw' | 'unpooled';
  /**
   * Bound on the bytes idle memories keep resident (zeroed in place for fast reuse). Over it, the coldest idle
   * memories are decommitted (native helper) or dropped. Default: twice the initial size, at least 16 MiB.
   */
  keepResidentBytes?: number;
  /**
   * Check after a reset that every byte is zero and the size is right: 'always' (CI), 'sample' (default: every
   * `verifyEvery`-th reset), 'off'. A check reads the whole memory (about 20 ms for 64 MiB on the benchmark
   * machine; the pure-JS backend reads only the pages the pagemap shows present or swapped). A failure retires the
   * memory and counts `verifyFailures`.
   */
  verify?: 'always' | 'sample' | 'off';
  /** For verify 'sample' (default 1024). */
  verifyEvery?: number;
  /** Options of the dirty-pages strategy (also used by 'auto'). */
  dirtyPages?: DirtyPagesOptions;
}

/** A snapshot of a pool's counters and distributions. */
export interface PoolStats {
  initialPages: number;
  maximumPages: number;
  /** The strategy in use (after 'auto' chose). */
  strategy: string;
  requestedStrategy: string;
  backend: BackendInfo | undefined;
  selfTest: SelfTestReport | undefined;
  acquires: number;
  /** Acquires served by an idle memory. */
  reuses: number;
  /** Memories created for the pool (prewarm included). */
  freshAllocations: number;
  /** Memories created outside the pool when it was exhausted ('unpooled'). */
  unpooledAllocations: number;
  releases: number;
  retirements: Record<RetireReason, number>;
  resets: Record<ResetPath, number>;
  /** Idle memories decommitted to respect `keepResidentBytes` or by `trim()`. */
  idleDecommits: number;
  verifications: number;
  /** Should always be 0. */
  verifyFailures: number;
  idle: number;
  inUse: number;
  peakInUse: number;
  /** Estimated resident bytes held by idle memories. */
  idleResidentBytes: number;
  /** Bytes found dirty per reset (resets that looked). */
  dirtyBytes: DistributionSnapshot;
  /** Microseconds per reset (scan, zeroing, verification). */
  resetMicros: DistributionSnapshot;
  /** Microseconds per scan of the page tables. */
  scanMicros: DistributionSnapshot;
}

/** What `trim` did. */
export interface TrimResult {
  retired: number;
  decommitted: number;
}

interface Slot {
  readonly memory: WebAssembly.Memory;
  readonly state: unknown;
  residentBytes: number;
  readonly unpooled: boolean;
}

/** Internal knobs for this package's own tests (negative controls, fallbacks). Not exported from the package. */
export const TEST_HOOKS: unique symbol = Symbol('@strata/vm-memory test hooks');
export interface TestHooks {
  /** Negative control only: keep memories whose size changed (the bug that leaks `memory.size`). */
  skipSizeCheck?: boolean;
  probe?: ProbeOverrides;
}

const leaseSlots = new WeakMap<MemoryLease, Slot>();
const leasePools = new WeakMap<MemoryLease, MemoryPool>();
/** Only the pool creates leases: a lease made with `new MemoryLease` would hand out whatever it was given. */
const LEASE_TOKEN: unique symbol = Symbol('@strata/vm-memory lease');

/**
 * Exclusive use of one memory until released. After release every accessor throws LEASE_REVOKED; views and
 * Instances created from the memory must not be kept past release either (the pool cannot revoke those).
 */
export class MemoryLease {
  /** @internal Leases come from `pool.acquire()`; anything else throws INVALID_ARGUMENT. */
  constructor(token: typeof LEASE_TOKEN, pool: MemoryPool, slot: Slot) {
    if (token !== LEASE_TOKEN) throw invalidArgument('MemoryLease', 'leases come from pool.acquire()');
    leaseSlots.set(this, slot);
    leasePools.set(this, pool);
  }

  /** The leased memory: `initial` pages, all zero at acquire. */
  get memory(): WebAssembly.Memory {
    const slot = leaseSlots.get(this);
    if (slot === undefined) throw new VmMemoryError('LEASE_REVOKED', 'the lease was released');
    return slot.memory;
  }

  /** False once released. */
  get active(): boolean {
    return leaseSlots.has(this);
  }

  /** A view of the memory's current buffer (take a new one after anything that may grow the memory). */
  bytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer);
  }

  /** Same as `pool.release(lease)`. */
  release(): void {
    const pool = leasePools.get(this);
    assert(pool !== undefined, 'every lease has a pool');
    pool.release(this);
  }
}

/**
 * A pool of memories of one shape. Synchronous, for the thread that created it (create one pool per worker); not
 * re-entrant from a strategy. Nothing is persisted: a pool lives as long as the process.
 */
export class MemoryPool {
  readonly initialPages: number;
  readonly maximumPages: number;
  /** `initialPages` in bytes. */
  readonly byteLength: number;
  private readonly strategy: ResetStrategy;
  private readonly requestedStrategy: string;
  private readonly backend: BackendInfo | undefined;
  private readonly selfTestReport: SelfTestReport | undefined;
  private readonly maxIdle: number;
  private readonly maxTotal: number;
  private readonly whenExhausted: 'throw' | 'unpooled';
  private readonly keepResidentBytes: number;
  private readonly verify: 'always' | 'sample' | 'off';
  private readonly verifyEvery: number;
  private readonly hooks: TestHooks;
  /** Idle memories, the most recently released last (LIFO: the warmest is reused first). */
  private readonly idle: Slot[] = [];
  private inUse = 0;
  private inUsePooled = 0;
  private peakInUse = 0;
  private closed = false;
  private resetCount = 0;
  private readonly counters = {
    acquires: 0,
    reuses: 0,
    freshAllocations: 0,
    unpooledAllocations: 0,
    releases: 0,
    idleDecommits: 0,
    verifications: 0,
    verifyFailures: 0,
  };
  private readonly retirements = Object.fromEntries(RETIRE_REASONS.map((reason) => [reason, 0])) as Record<
    RetireReason,
    number
  >;
  private readonly resets: Record<ResetPath, number> = { 'dirty-scan': 0, 'zero-all': 0, decommit: 0 };
  private readonly dirtyBytes = new Distribution();
  private readonly resetMicros = new Distribution();
  private readonly scanMicros = new Distribution();

  /** Probes the machine and self-tests the strategy (a few hundred microseconds; see `stats().selfTest`). */
  constructor(options: MemoryPoolOptions & { [TEST_HOOKS]?: TestHooks }) {
    // Every option is checked before anything is allocated (callers from plain JS pass anything).
    const given = optionsObject(options, 'options', false);
    const { initialPages, maximumPages } = poolShape(given.initialPages, given.maximumPages);
    this.initialPages = initialPages;
    this.maximumPages = maximumPages;
    this.byteLength = initialPages * WASM_PAGE_SIZE;
    this.maxIdle = countOption(given.maxIdle, 4, 'maxIdle', 0);
    this.maxTotal = countOption(given.maxTotal, 64, 'maxTotal', 1);
    this.whenExhausted = choiceOption(given.whenExhausted, ['throw', 'unpooled'] as const, 'throw', 'whenExhausted');
    this.keepResidentBytes = countOption(
      given.keepResidentBytes,
      Math.max(2 * this.byteLength, 16 << 20),
      'keepResidentBytes',
      0,
    );
    this.verify = choiceOption(given.verify, ['always', 'sample', 'off'] as const, 'sample', 'verify');
    this.verifyEvery = countOption(given.verifyEvery, 1024, 'verifyEvery', 1);
    this.hooks = options[TEST_HOOKS] ?? {};
    const dirtyPages = dirtyPagesOptions(given.dirtyPages);

    const requested = given.strategy;
    if (typeof requested === 'object' && requested !== null) {
      this.strategy = customStrategy(requested);
      this.requestedStrategy = this.strategy.name;
      this.backend = undefined;
      this.selfTestReport = undefined;
      return;
    }
    const named = choiceOption(
      requested,
      ['auto', 'dirty-pages', 'decommit', 'zero-all', 'fresh'] as const,
      'auto',
      'strategy',
    );
    const resolved = resolveStrategy(named, this.descriptor(), dirtyPages, this.hooks.probe);
    this.strategy = resolved.strategy;
    this.requestedStrategy = named;
    this.backend = resolved.backend;
    this.selfTestReport = resolved.selfTest;
    if (resolved.testedMemory !== undefined && this.maxIdle > 0) {
      this.counters.freshAllocations++;
      this.idle.push({ ...resolved.testedMemory, residentBytes: 0, unpooled: false });
    }
  }

  /** The strategy in use ('auto' resolved). */
  get strategyName(): string {
    return this.strategy.name;
  }

  /**
   * An exclusive lease on a memory of `initialPages` pages, all zero: the most recently released idle memory, else a
   * new one. At `maxTotal` it throws POOL_EXHAUSTED or hands out an unpooled memory (`whenExhausted`).
   */
  acquire(): MemoryLease {
    if (this.closed) throw new VmMemoryError('CLOSED', 'the pool is closed');
    let slot = this.idle.pop();
    if (slot !== undefined) {
      this.counters.reuses++;
    } else if (this.idle.length + this.inUsePooled >= this.maxTotal) {
      if (this.whenExhausted === 'throw')
        throw new VmMemoryError('POOL_EXHAUSTED', `${this.maxTotal} memories are leased (maxTotal)`);
      slot = { memory: new WebAssembly.Memory(this.descriptor()), state: undefined, residentBytes: 0, unpooled: true };
      this.counters.unpooledAllocations++;
    } else {
      slot = this.allocate();
    }
    // A memory cannot shrink and a pooled one was size-checked at release, so this holds; checked anyway (cheap).
    assert(
      slot.memory.buffer.byteLength === this.byteLength || this.hooks.skipSizeCheck === true,
      'an idle memory has the initial size',
    );
    this.counters.acquires++;
    this.inUse++;
    if (!slot.unpooled) this.inUsePooled++;
    this.peakInUse = Math.max(this.peakInUse, this.inUse);
    return new MemoryLease(LEASE_TOKEN, this, slot);
  }

  /**
   * Revokes the lease, resets the memory and keeps it for the next tenant, or retires it (grown, wrong size, reset
   * error, failed verification, over budget, idle stack full). Throws only for a lease that is not this pool's or
   * was already released; a failed reset is never thrown, it is counted in `stats().retirements`.
   */
  release(lease: MemoryLease): void {
    if (leasePools.get(lease) !== this)
      throw invalidArgument('lease', `must be a lease of this pool, got ${describeLease(lease)}`);
    const slot = leaseSlots.get(lease);
    if (slot === undefined) throw new VmMemoryError('LEASE_REVOKED', 'the lease was already released');
    leaseSlots.delete(lease);
    this.counters.releases++;
    this.inUse--;
    if (!slot.unpooled) this.inUsePooled--;

    const retired = this.recycle(slot);
    if (retired !== undefined) this.retire(retired);
  }

  /** Resets `slot` and pushes it on the idle stack, or says why it must be retired instead. */
  private recycle(slot: Slot): RetireReason | undefined {
    if (slot.unpooled || !this.strategy.reuses) return 'no-reuse';
    if (this.closed) return 'closed';
    // The buffer as it is now: a view taken before or during the execution may be detached (memory.grow, even by 0).
    const buffer = slot.memory.buffer;
    if (buffer.byteLength !== this.byteLength && this.hooks.skipSizeCheck !== true)
      return buffer.byteLength > this.byteLength ? 'grew' : 'size-mismatch';
    if (this.idle.length >= this.maxIdle) return 'idle-full';

    const target: ResetTarget = { memory: slot.memory, buffer, state: slot.state };
    const started = performance.now();
    try {
      const outcome = this.strategy.reset(target);
      if (outcome.retire !== undefined) return outcome.retire;
      if (slot.memory.buffer !== buffer) return 'size-mismatch'; // the reset must not grow it
      this.resets[outcome.path]++;
      if (outcome.dirtyBytes !== undefined) this.dirtyBytes.add(outcome.dirtyBytes);
      if (outcome.scanMicros > 0) this.scanMicros.add(outcome.scanMicros);
      slot.residentBytes = outcome.residentBytes;
    } catch {
      return 'reset-error';
    }
    this.resetCount++;
    if (this.verify === 'always' || (this.verify === 'sample' && this.resetCount % this.verifyEvery === 0)) {
      this.counters.verifications++;
      if (!this.verifyZero(target)) {
        this.counters.verifyFailures++;
        return 'verify-failed';
      }
    }
    this.resetMicros.add((performance.now() - started) * 1000);
    if (!this.keepWithinBudget(slot)) return 'over-budget';
    this.idle.push(slot);
    return undefined;
  }

  /**
   * Allocates idle memories until `count` are idle (bounded by `maxIdle` and `maxTotal`). New memories cost address
   * space only (V8 reserves 10 GiB each; no RSS until touched). Returns how many were added.
   */
  prewarm(count: number): number {
    if (this.closed) throw new VmMemoryError('CLOSED', 'the pool is closed');
    if (count === undefined) throw invalidArgument('count', 'must be an integer >= 0, got undefined');
    const wanted = countOption(count, 0, 'count', 0);
    let added = 0;
    while (this.idle.length < Math.min(wanted, this.maxIdle) && this.idle.length + this.inUsePooled < this.maxTotal) {
      // Cold memories go under the warm ones: LIFO reuse keeps preferring memories whose pages are resident.
      this.idle.unshift(this.allocate());
      added++;
    }
    return added;
  }

  /**
   * Gives memory back after a burst (Wasmtime PR #14419's release_idle_pool_memory): drops the coldest idle memories
   * beyond `maxIdle` (default 0), then, with `decommit` (default true), decommits the rest, or drops those with
   * resident pages when the strategy cannot decommit.
   */
  trim(options: { maxIdle?: number; decommit?: boolean } = {}): TrimResult {
    const given = optionsObject(options, 'options', true);
    const keep = countOption(given.maxIdle, 0, 'maxIdle', 0);
    const decommit = booleanOption(given.decommit, true, 'decommit');
    const result: TrimResult = { retired: 0, decommitted: 0 };
    while (this.idle.length > keep) {
      this.idle.shift();
      this.retire('trimmed');
      result.retired++;
    }
    if (decommit) {
      for (let index = this.idle.length - 1; index >= 0; index--) {
        const slot = this.idle[index]!;
        if (slot.residentBytes === 0) continue;
        if (this.decommitIdle(slot)) {
          result.decommitted++;
        } else {
          this.idle.splice(index, 1);
          this.retire('trimmed');
          result.retired++;
        }
      }
    }
    return result;
  }

  /** Drops every idle memory; acquire and prewarm throw CLOSED afterwards, and released memories are dropped. */
  close(): void {
    this.closed = true;
    while (this.idle.pop() !== undefined) this.retire('closed');
  }

  stats(): PoolStats {
    let idleResidentBytes = 0;
    for (const slot of this.idle) idleResidentBytes += slot.residentBytes;
    return {
      initialPages: this.initialPages,
      maximumPages: this.maximumPages,
      strategy: this.strategy.name,
      requestedStrategy: this.requestedStrategy,
      backend: this.backend,
      selfTest: this.selfTestReport,
      ...this.counters,
      retirements: { ...this.retirements },
      resets: { ...this.resets },
      idle: this.idle.length,
      inUse: this.inUse,
      peakInUse: this.peakInUse,
      idleResidentBytes,
      dirtyBytes: this.dirtyBytes.snapshot(),
      resetMicros: this.resetMicros.snapshot(),
      scanMicros: this.scanMicros.snapshot(),
    };
  }

  private descriptor(): WebAssembly.MemoryDescriptor & { maximum: number } {
    return { initial: this.initialPages, maximum: this.maximumPages };
  }

  private allocate(): Slot {
    const created = this.strategy.allocate?.(this.descriptor()) ?? {
      memory: new WebAssembly.Memory(this.descriptor()),
    };
    this.counters.freshAllocations++;
    return { memory: created.memory, state: created.state, residentBytes: 0, unpooled: false };
  }

  private retire(reason: RetireReason): void {
    this.retirements[reason]++;
  }

  /** Full check: same buffer, right size, and every byte zero (in the strategy's verification ranges, if it has). */
  private verifyZero(target: ResetTarget): boolean {
    const buffer = target.memory.buffer;
    if (buffer !== target.buffer || buffer.byteLength !== this.byteLength) return false;
    try {
      const ranges = this.strategy.verificationRanges?.(target);
      if (ranges === undefined) {
        if (firstNonZero(buffer) >= 0) return false;
        this.strategy.afterFullVerification?.(target);
        return true;
      }
      for (let index = 0; index < ranges.count; index++)
        if (firstNonZero(buffer, ranges.start(index), ranges.end(index)) >= 0) return false;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Before `slot` joins the idle stack: while idle resident bytes would exceed the budget, decommit (or drop) the
   * coldest idle memories first, then `slot` itself. False when `slot` cannot be kept.
   */
  private keepWithinBudget(slot: Slot): boolean {
    let resident = slot.residentBytes;
    for (const idle of this.idle) resident += idle.residentBytes;
    let index = 0;
    while (resident > this.keepResidentBytes && index < this.idle.length) {
      const victim = this.idle[index]!;
      const freed = victim.residentBytes;
      if (freed === 0) {
        index++;
        continue;
      }
      if (this.decommitIdle(victim)) {
        index++;
      } else {
        this.idle.splice(index, 1);
        this.retire('over-budget');
      }
      resident -= freed;
    }
    if (resident > this.keepResidentBytes && slot.residentBytes > 0) return this.decommitIdle(slot);
    return true;
  }

  /** Decommits an idle memory; false when the strategy cannot (or it failed: the caller then drops the memory). */
  private decommitIdle(slot: Slot): boolean {
    const decommit = this.strategy.decommit;
    if (decommit === undefined) return false;
    const buffer = slot.memory.buffer;
    if (buffer.byteLength !== this.byteLength) return false;
    try {
      decommit.call(this.strategy, { memory: slot.memory, buffer, state: slot.state });
    } catch {
      return false;
    }
    slot.residentBytes = 0;
    this.counters.idleDecommits++;
    return true;
  }
}

function describeLease(lease: unknown): string {
  return lease instanceof MemoryLease ? "another pool's lease" : describeValue(lease);
}
