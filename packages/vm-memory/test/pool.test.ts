// MemoryPool behaviour: options, LIFO reuse, maxIdle, maxTotal (throw or unpooled), prewarm, trim, close, leases,
// every retirement reason, reset paths and stats, the resident budget, and how 'auto' chooses and falls back.
import { beforeAll, describe, expect, it } from 'vitest';
import type { VmMemoryErrorCode } from '../src/errors.js';
import { loadNative, type NativeBinding } from '../src/native.js';
import { PagemapReader, PagemapScanner } from '../src/pagemap.js';
import { MemoryPool, type MemoryPoolOptions, TEST_HOOKS, type TestHooks } from '../src/pool.js';
import { selfTest } from '../src/probe.js';
import type { ResetOutcome, ResetStrategy, ResetTarget } from '../src/strategies.js';
import { compileContract, type WorkloadExports } from './contracts.js';
import { expectVmError } from './expect-error.js';

const SHAPE = { initialPages: 4, maximumPages: 8 };
const BYTES = SHAPE.initialPages * 65536;
const native = loadNative().binding;
const withoutNative: TestHooks = { probe: { native: null } };
let workload: WebAssembly.Module;

beforeAll(async () => {
  workload = new WebAssembly.Module(await compileContract('workload'));
});

function pool(options: Partial<MemoryPoolOptions> & { [TEST_HOOKS]?: TestHooks } = {}): MemoryPool {
  return new MemoryPool({ ...SHAPE, verify: 'always', ...options });
}

function tenant(memory: WebAssembly.Memory): WorkloadExports {
  return new WebAssembly.Instance(workload, { env: { memory, host_write() {}, host_fail() {} } })
    .exports as unknown as WorkloadExports;
}

const expectCode = (body: () => unknown, code: VmMemoryErrorCode) => void expectVmError(body, code);

function isZero(memory: WebAssembly.Memory): boolean {
  return new Uint8Array(memory.buffer).every((byte) => byte === 0);
}

/** Zeroes nothing and counts: for tests of what the pool does around a strategy. */
class CountingStrategy implements ResetStrategy {
  readonly name = 'counting';
  readonly reuses = true;
  resets = 0;
  constructor(
    private readonly behaviour: (target: ResetTarget) => void = (target) => new Uint8Array(target.buffer).fill(0),
  ) {}
  reset(target: ResetTarget): ResetOutcome {
    this.resets++;
    this.behaviour(target);
    return { path: 'zero-all', dirtyBytes: undefined, residentBytes: target.buffer.byteLength, scanMicros: 0 };
  }
}

describe('options', () => {
  it('rejects bad shapes and options with INVALID_ARGUMENT', () => {
    expectCode(() => new MemoryPool({ initialPages: 0, maximumPages: 1 }), 'INVALID_ARGUMENT');
    expectCode(() => new MemoryPool({ initialPages: 2, maximumPages: 1 }), 'INVALID_ARGUMENT');
    expectCode(() => new MemoryPool({ initialPages: 1, maximumPages: 65537 }), 'INVALID_ARGUMENT');
    expectCode(() => pool({ maxIdle: -1 }), 'INVALID_ARGUMENT');
    expectCode(() => pool({ maxTotal: 0 }), 'INVALID_ARGUMENT');
    expectCode(() => pool({ verify: 'sometimes' as never }), 'INVALID_ARGUMENT');
    expectCode(() => pool({ strategy: 'memset' as never }), 'INVALID_ARGUMENT');
    expectCode(() => pool({ whenExhausted: 'wait' as never }), 'INVALID_ARGUMENT');
  });
});

describe('leases', () => {
  it('give exactly initial pages, all zero, and are revoked by release', () => {
    const p = pool();
    const lease = p.acquire();
    expect(lease.active).toBe(true);
    expect(lease.memory.buffer.byteLength).toBe(BYTES);
    expect(tenant(lease.memory).size()).toBe(SHAPE.initialPages);
    expect(isZero(lease.memory)).toBe(true);
    lease.bytes().fill(1);
    lease.release();
    expect(lease.active).toBe(false);
    expectCode(() => lease.memory, 'LEASE_REVOKED');
    expectCode(() => lease.bytes(), 'LEASE_REVOKED');
    expectCode(() => p.release(lease), 'LEASE_REVOKED');
    expectCode(() => pool().release(p.acquire()), 'INVALID_ARGUMENT');
  });

  it('are exclusive: concurrent leases never share a memory', () => {
    const p = pool({ maxIdle: 4 });
    const leases = [p.acquire(), p.acquire(), p.acquire()];
    expect(new Set(leases.map((lease) => lease.memory)).size).toBe(3);
    for (const lease of leases) lease.release();
    const again = [p.acquire(), p.acquire(), p.acquire()];
    expect(new Set(again.map((lease) => lease.memory)).size).toBe(3);
  });
});

describe('idle stack', () => {
  it('is LIFO: the most recently released memory is reused first', () => {
    const p = pool({ maxIdle: 4, strategy: 'zero-all' });
    const a = p.acquire();
    const b = p.acquire();
    const memoryA = a.memory;
    const memoryB = b.memory;
    a.release();
    b.release();
    expect(p.acquire().memory).toBe(memoryB);
    expect(p.acquire().memory).toBe(memoryA);
  });

  it('keeps at most maxIdle memories; the rest are retired idle-full', () => {
    const p = pool({ maxIdle: 1, strategy: 'zero-all' });
    const leases = [p.acquire(), p.acquire(), p.acquire()];
    for (const lease of leases) lease.release();
    const stats = p.stats();
    expect(stats.idle).toBe(1);
    expect(stats.retirements['idle-full']).toBe(2);
  });

  it('prewarm adds untouched memories under the warm ones, bounded by maxIdle and maxTotal', () => {
    const p = pool({ maxIdle: 3, maxTotal: 4, strategy: 'zero-all' });
    const warm = p.acquire();
    const warmMemory = warm.memory;
    warm.release();
    expect(p.prewarm(10)).toBe(2); // maxIdle 3, one already idle
    expect(p.stats().idle).toBe(3);
    expect(p.acquire().memory).toBe(warmMemory);
    const held = [p.acquire(), p.acquire(), p.acquire()];
    expect(p.prewarm(3)).toBe(0); // maxTotal 4 reached
    for (const lease of held) expect(isZero(lease.memory)).toBe(true);
    expectCode(() => p.prewarm(-1), 'INVALID_ARGUMENT');
  });
});

describe('maxTotal', () => {
  it("'throw': POOL_EXHAUSTED once maxTotal memories are leased or idle", () => {
    const p = pool({ maxTotal: 2, whenExhausted: 'throw' });
    const a = p.acquire();
    p.acquire();
    expectCode(() => p.acquire(), 'POOL_EXHAUSTED');
    a.release();
    expect(p.acquire().active).toBe(true);
  });

  it("'unpooled': hands out a new memory that is dropped at release", () => {
    const p = pool({ maxTotal: 1, whenExhausted: 'unpooled', maxIdle: 2 });
    const a = p.acquire();
    const b = p.acquire();
    expect(b.memory).not.toBe(a.memory);
    b.bytes().fill(9);
    b.release();
    a.release();
    const stats = p.stats();
    expect(stats.unpooledAllocations).toBe(1);
    expect(stats.retirements['no-reuse']).toBe(1);
    expect(stats.idle).toBe(1);
    expect(isZero(p.acquire().memory)).toBe(true);
  });
});

describe('retirement (fail closed)', () => {
  it('a memory grown by the guest is retired, never reused', () => {
    const p = pool();
    const lease = p.acquire();
    const grown = lease.memory;
    tenant(grown).grow(1);
    lease.release();
    expect(p.stats().retirements.grew).toBe(1);
    expect(p.acquire().memory).not.toBe(grown);
  });

  it('a memory grown by 0 pages (buffer detached, size unchanged) is reset through its new buffer and kept', () => {
    const p = pool({ strategy: 'auto' });
    const lease = p.acquire();
    const memory = lease.memory;
    const stale = lease.bytes();
    stale.fill(3, 0, 10);
    tenant(memory).grow(0);
    expect(stale.byteLength).toBe(0);
    new Uint8Array(memory.buffer).fill(4, BYTES - 10);
    lease.release();
    const next = p.acquire();
    expect(next.memory).toBe(memory);
    expect(isZero(next.memory)).toBe(true);
    expect(p.stats().verifyFailures).toBe(0);
  });

  it('a reset that throws retires the memory (reset-error)', () => {
    const p = pool({
      strategy: new CountingStrategy(() => {
        throw new Error('madvise failed');
      }),
    });
    const lease = p.acquire();
    const memory = lease.memory;
    lease.release();
    expect(p.stats().retirements['reset-error']).toBe(1);
    expect(p.acquire().memory).not.toBe(memory);
  });

  it('a reset that grows the memory retires it (size-mismatch)', () => {
    const p = pool({ strategy: new CountingStrategy((target) => target.memory.grow(1)) });
    p.acquire().release();
    expect(p.stats().retirements['size-mismatch']).toBe(1);
    expect(p.stats().idle).toBe(0);
  });

  it('a reset that misses data fails verification and retires the memory (verify-failed)', () => {
    const p = pool({ strategy: new CountingStrategy(() => {}), verify: 'always' });
    const lease = p.acquire();
    lease.bytes()[12345] = 1;
    lease.release();
    const stats = p.stats();
    expect([stats.verifications, stats.verifyFailures, stats.retirements['verify-failed'], stats.idle]).toEqual([
      1, 1, 1, 0,
    ]);
  });

  it("verify 'sample' checks every verifyEvery-th reset, 'off' none", () => {
    const sampled = pool({ strategy: 'zero-all', verify: 'sample', verifyEvery: 3 });
    for (let index = 0; index < 7; index++) sampled.acquire().release();
    expect(sampled.stats().verifications).toBe(2);
    const off = pool({ strategy: 'zero-all', verify: 'off' });
    for (let index = 0; index < 7; index++) off.acquire().release();
    expect(off.stats().verifications).toBe(0);
  });

  it('the fresh strategy never reuses (no-reuse)', () => {
    const p = pool({ strategy: 'fresh' });
    const first = p.acquire();
    const memory = first.memory;
    first.release();
    expect(p.acquire().memory).not.toBe(memory);
    expect(p.stats().retirements['no-reuse']).toBe(1);
    expect(p.stats().strategy).toBe('fresh');
  });

  it('close drops idle memories and every later release; acquire and prewarm throw CLOSED', () => {
    const p = pool({ strategy: 'zero-all' });
    const held = p.acquire();
    p.acquire().release();
    p.close();
    held.release();
    expect(p.stats().retirements.closed).toBe(2);
    expect(p.stats().idle).toBe(0);
    expectCode(() => p.acquire(), 'CLOSED');
    expectCode(() => p.prewarm(1), 'CLOSED');
  });
});

describe('dirty-pages resets', () => {
  const scanners = [
    ...(native === undefined
      ? []
      : [{ name: 'PAGEMAP_SCAN', options: { scanner: 'pagemap-scan' as const }, hooks: {} }]),
    { name: 'pure-JS reader', options: { scanner: 'pagemap-read' as const }, hooks: withoutNative },
  ];
  for (const scanner of scanners) {
    it(`${scanner.name}: zeroes the written pages only and reports them`, () => {
      const p = pool({ strategy: 'dirty-pages', dirtyPages: scanner.options, [TEST_HOOKS]: scanner.hooks });
      expect(p.stats().backend?.scanner).toBe(scanner.options.scanner);
      const lease = p.acquire();
      const bytes = lease.bytes();
      bytes[0] = 1;
      bytes[3 * 4096 + 5] = 2;
      bytes[BYTES - 1] = 3;
      lease.release();
      const stats = p.stats();
      expect(stats.resets['dirty-scan']).toBe(1);
      // The self-test and the address confirmation leave zeroed pages resident: those count as dirty too.
      expect(stats.dirtyBytes.max).toBeGreaterThanOrEqual(3 * 4096);
      expect(stats.dirtyBytes.max).toBeLessThanOrEqual(16 * 4096);
      expect(stats.scanMicros.count).toBe(1);
      expect(stats.idleResidentBytes).toBe(stats.dirtyBytes.max);
      expect(isZero(p.acquire().memory)).toBe(true);
    });

    it(`${scanner.name}: a memory dirtied nearly whole is zeroed whole while hot, then given back when stale`, () => {
      const p = pool({
        strategy: 'dirty-pages',
        dirtyPages: { ...scanner.options, tuning: { sampleMinBytes: 64 << 10, wasteLimit: 1 } },
        maxIdle: 1,
        [TEST_HOOKS]: scanner.hooks,
      });
      const run = (write: (memory: WebAssembly.Memory) => void) => {
        const lease = p.acquire();
        write(lease.memory);
        lease.release();
      };
      run((memory) => tenant(memory).touch(SHAPE.initialPages, 4096, 1n)); // every page: the memory becomes hot
      expect(p.stats().resets['dirty-scan']).toBe(1);
      run((memory) => tenant(memory).touch(SHAPE.initialPages, 4096, 2n)); // hot: zeroed whole, no scan
      expect(p.stats().resets['zero-all']).toBe(1);
      expect(p.stats().scanMicros.count).toBe(1);
      run(() => {}); // writes nothing: every resident page was zeroed for nothing, the memory is given back
      const stats = p.stats();
      if (native !== undefined && scanner.hooks === scanners[0]?.hooks) {
        expect(stats.resets.decommit).toBe(1);
        expect(stats.idleResidentBytes).toBe(0);
      } else {
        expect(stats.retirements.relearn).toBe(1);
        expect(stats.idle).toBe(0);
      }
      expect(isZero(p.acquire().memory)).toBe(true);
    });
  }

  it.skipIf(native === undefined || process.platform !== 'linux')(
    'verification does not leave the zero page mapped over the memory (it would slow every later scan)',
    () => {
      const p = pool({ strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-scan' }, verify: 'always' });
      const lease = p.acquire();
      const memory = lease.memory;
      lease.bytes()[7 * 4096] = 1;
      lease.release();
      const reader = new PagemapReader();
      try {
        const scanner = new PagemapScanner(reader, BYTES, 'conservative');
        const present = scanner.presentPages(native!.address(memory.buffer));
        // The verification read all 64 pages; only the dirty ones (and the self-test's zeroed canaries) stay mapped.
        expect(present).toContain(7);
        expect(present.length).toBeLessThan(12);
      } finally {
        reader.close();
      }
      expect(p.stats().verifications).toBe(1);
    },
  );

  it('the pure-JS reader zeroes a present-but-shared page only when it holds data', () => {
    const p = pool({ strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-read' }, [TEST_HOOKS]: withoutNative });
    const lease = p.acquire();
    const sum = lease.bytes().reduce((total, byte) => total + byte, 0); // reads map the zero page everywhere
    expect(sum).toBe(0);
    lease.release();
    expect(isZero(p.acquire().memory)).toBe(true);
    expect(p.stats().verifyFailures).toBe(0);
  });
});

describe('resident budget', () => {
  it.skipIf(native === undefined)('decommits the coldest idle memories to stay within keepResidentBytes', () => {
    const p = pool({ strategy: 'zero-all', maxIdle: 3, keepResidentBytes: BYTES });
    const leases = [p.acquire(), p.acquire(), p.acquire()];
    for (const lease of leases) lease.release();
    const stats = p.stats();
    expect(stats.idle).toBe(3);
    expect(stats.idleResidentBytes).toBeLessThanOrEqual(BYTES);
    expect(stats.idleDecommits).toBe(2);
  });

  it('without the native helper, drops what it cannot decommit (over-budget)', () => {
    const p = pool({ strategy: 'zero-all', maxIdle: 3, keepResidentBytes: BYTES, [TEST_HOOKS]: withoutNative });
    const leases = [p.acquire(), p.acquire(), p.acquire()];
    for (const lease of leases) lease.release();
    const stats = p.stats();
    expect(stats.retirements['over-budget']).toBe(2);
    expect(stats.idleResidentBytes).toBeLessThanOrEqual(BYTES);
  });

  it('trim drops the coldest idle memories beyond maxIdle and decommits (or drops) the rest', () => {
    const p = pool({ strategy: 'zero-all', maxIdle: 4 });
    const leases = [p.acquire(), p.acquire(), p.acquire()];
    for (const lease of leases) lease.release();
    expect(p.trim({ maxIdle: 1 })).toEqual(
      native === undefined ? { retired: 3, decommitted: 0 } : { retired: 2, decommitted: 1 },
    );
    expect(p.stats().idleResidentBytes).toBe(0);
    expect(p.stats().retirements.trimmed).toBe(native === undefined ? 3 : 2);
    const kept = pool({ strategy: 'zero-all', maxIdle: 4, [TEST_HOOKS]: withoutNative });
    kept.acquire().release();
    expect(kept.trim({ maxIdle: 4, decommit: false })).toEqual({ retired: 0, decommitted: 0 });
    expect(kept.stats().idle).toBe(1);
  });
});

describe('stats', () => {
  it('counts acquires, reuses, allocations, releases and reset paths', () => {
    const p = pool({ strategy: 'zero-all', maxIdle: 2 });
    const a = p.acquire(); // the self-tested memory
    const b = p.acquire(); // a new one
    a.release();
    b.release();
    p.acquire().release(); // reuse
    const stats = p.stats();
    expect(stats).toMatchObject({
      initialPages: 4,
      maximumPages: 8,
      strategy: 'zero-all',
      requestedStrategy: 'zero-all',
      acquires: 3,
      reuses: 2,
      freshAllocations: 2,
      releases: 3,
      idle: 2,
      inUse: 0,
      peakInUse: 2,
      resets: { 'zero-all': 3, 'dirty-scan': 0, decommit: 0 },
      verifications: 3,
      verifyFailures: 0,
    });
    expect(stats.resetMicros.count).toBe(3);
    expect(stats.resetMicros.p50).toBeGreaterThan(0);
    expect(stats.selfTest?.passed).toBe(true);
    expect(stats.backend?.kernel).toBeTypeOf('string');
  });
});

describe("'auto' and the self-test", () => {
  it('picks dirty-pages when the page tables can be read', () => {
    const p = pool();
    if (process.platform !== 'linux') return;
    expect(p.stats().strategy).toBe('dirty-pages');
    expect(p.stats().backend?.scanner).toBe(native === undefined ? 'pagemap-read' : 'pagemap-scan');
  });

  it('falls back to the pure-JS reader when PAGEMAP_SCAN misses the canaries', () => {
    if (native === undefined || process.platform !== 'linux') return;
    // A helper whose scan finds nothing (as if the kernel lacked PAGEMAP_SCAN's categories): its self-test fails.
    const blind: NativeBinding = {
      scanDirty: () => 0,
      decommit: native.decommit,
      address: native.address,
      pageSize: 4096,
      version: native.version,
    };
    const p = pool({ [TEST_HOOKS]: { probe: { native: blind } } });
    const stats = p.stats();
    expect(stats.backend?.scanner).toBe('pagemap-read');
    expect(stats.selfTest?.attempts.map((attempt) => [attempt.scanner, attempt.passed])).toEqual([
      ['pagemap-scan', false],
      ['pagemap-read', true],
    ]);
    expect(stats.selfTest?.attempts[0]?.error).toMatch(/fewer than the canary pages|survived/);
  });

  it('without page tables: zero-all for small memories, fresh for big ones; named strategies throw UNAVAILABLE', () => {
    const nothing: TestHooks = { probe: { native: null, pagemapPath: '/nonexistent/pagemap' } };
    expect(pool({ [TEST_HOOKS]: nothing }).stats().strategy).toBe('zero-all');
    const big = new MemoryPool({ initialPages: 1024, maximumPages: 2048, [TEST_HOOKS]: nothing });
    expect(big.stats().strategy).toBe('fresh');
    expect(big.stats().backend?.pagemap.readable).toBe(false);
    expectCode(() => pool({ strategy: 'dirty-pages', [TEST_HOOKS]: nothing }), 'UNAVAILABLE');
    expectCode(() => pool({ strategy: 'decommit', [TEST_HOOKS]: nothing }), 'UNAVAILABLE');
  });

  it('a requested strategy whose self-test fails throws UNAVAILABLE', () => {
    if (native === undefined) return;
    const broken: NativeBinding = { ...bindingCopy(native), decommit: () => {} };
    expectCode(() => pool({ strategy: 'decommit', [TEST_HOOKS]: { probe: { native: broken } } }), 'UNAVAILABLE');
  });

  it('a strategy that misses a canary fails its self-test with UNAVAILABLE naming it (on any machine)', () => {
    const lazy: ResetStrategy = {
      name: 'lazy',
      reuses: true,
      reset: () => ({ path: 'zero-all', dirtyBytes: undefined, residentBytes: 0, scanMicros: 0 }), // zeroes nothing
    };
    const error = expectVmError(() => selfTest(lazy, { initial: 1, maximum: 1 }, 65536), 'UNAVAILABLE');
    expect(error.strategy).toBe('lazy');
    expect(error.message).toBe('UNAVAILABLE strategy lazy: reset: canary at 0 survived');
  });
});

function bindingCopy(binding: NativeBinding): NativeBinding {
  return {
    scanDirty: binding.scanDirty,
    decommit: binding.decommit,
    address: binding.address,
    pageSize: binding.pageSize,
    version: binding.version,
  };
}
