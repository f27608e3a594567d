// Choosing a reset strategy: what this machine offers (native helper, PAGEMAP_SCAN, a readable pagemap, a memory
// address that can be confirmed), and a self-test of each candidate on a memory of the pool's own shape before it is
// trusted: canaries written where a careless reset misses them (first byte, an odd offset, the middle, the last
// page, the last byte), the reset run, and every canary page checked. `auto` takes the first candidate that passes.

import { release as kernelRelease } from 'node:os';
import { VmMemoryError } from './errors.js';
import { loadNative, type NativeBinding } from './native.js';
import { PagemapReader, type PagemapRule } from './pagemap.js';
import {
  DEFAULT_DIRTY_PAGES_TUNING,
  DecommitStrategy,
  DirtyPagesStrategy,
  type DirtyPagesTuning,
  FreshStrategy,
  type ResetStrategy,
  type ScannerKind,
  type StrategyName,
  ZeroAllStrategy,
} from './strategies.js';
import { isZeroRange } from './zero-check.js';

/** What the machine offers, as found at pool creation. */
export interface BackendInfo {
  /** How dirty pages are found by the strategy in use ('none' when it does not scan). */
  scanner: ScannerKind | 'none';
  /** Whether idle memories can be decommitted (madvise through the native helper). */
  decommit: boolean;
  native: { loaded: boolean; error?: string };
  pagemap: { readable: boolean; error?: string };
  /** `os.release()`: PAGEMAP_SCAN needs Linux >= 6.7. */
  kernel: string;
}

/** One candidate tried by the self-test. */
export interface SelfTestAttempt {
  strategy: string;
  scanner?: ScannerKind;
  passed: boolean;
  error?: string;
  micros: number;
}

export interface SelfTestReport {
  /** Whether the strategy in use passed (true for `fresh`, which has nothing to test). */
  passed: boolean;
  attempts: SelfTestAttempt[];
}

/** What the dirty-pages strategy may use. */
export interface DirtyPagesOptions {
  /** 'auto' (default): PAGEMAP_SCAN through the native helper if it works, else the pure-JS pagemap reader. */
  scanner?: 'auto' | ScannerKind;
  /** The pure-JS reader's rule (default 'conservative'). */
  rule?: PagemapRule;
  tuning?: Partial<DirtyPagesTuning>;
}

/** Replaces what the probe finds, for tests of the fallbacks. Internal. */
export interface ProbeOverrides {
  /** null: behave as if the native helper did not load. */
  native?: NativeBinding | null;
  pagemapPath?: string;
}

export interface ResolvedStrategy {
  strategy: ResetStrategy;
  backend: BackendInfo;
  selfTest: SelfTestReport;
  /** A memory the self-test used and reset, ready to be pooled (not for `fresh`). */
  testedMemory?: { memory: WebAssembly.Memory; state: unknown };
}

/** Memories up to this size are zeroed whole when nothing better works; bigger ones are not reused then. */
export const ZERO_ALL_FALLBACK_MAX_BYTES = 2 << 20;

/**
 * Builds the strategy a pool asked for and self-tests it. `auto`: dirty-pages with PAGEMAP_SCAN, then dirty-pages
 * with the pure-JS reader, then zero-all (memories up to 2 MiB) or fresh. A named strategy that cannot run or fails
 * its self-test throws UNAVAILABLE.
 */
export function resolveStrategy(
  requested: 'auto' | StrategyName,
  descriptor: WebAssembly.MemoryDescriptor & { maximum: number },
  dirtyPages: DirtyPagesOptions,
  overrides: ProbeOverrides = {},
): ResolvedStrategy {
  const byteLength = descriptor.initial * 65536;
  const nativeLoad = loadNative();
  const native = overrides.native === undefined ? nativeLoad.binding : (overrides.native ?? undefined);
  const nativeError =
    overrides.native === null ? 'disabled' : overrides.native === undefined ? nativeLoad.error : undefined;
  let reader: PagemapReader | undefined;
  let pagemapError: string | undefined;
  if (process.platform === 'linux') {
    try {
      reader = new PagemapReader(overrides.pagemapPath);
    } catch (error) {
      pagemapError = describe(error);
    }
  } else {
    pagemapError = `platform ${process.platform}`;
  }
  const backend = (scanner: ScannerKind | 'none', decommit: boolean): BackendInfo => ({
    scanner,
    decommit,
    native: native === undefined ? { loaded: false, error: nativeError ?? 'not loaded' } : { loaded: true },
    pagemap: reader === undefined ? { readable: false, error: pagemapError ?? 'not opened' } : { readable: true },
    kernel: kernelRelease(),
  });
  const attempts: SelfTestAttempt[] = [];
  const tuning = { ...DEFAULT_DIRTY_PAGES_TUNING, ...dirtyPages.tuning };

  const tryCandidate = (strategy: ResetStrategy, scanner?: ScannerKind): ResolvedStrategy | undefined => {
    const started = performance.now();
    const attempt: SelfTestAttempt = { strategy: strategy.name, passed: false, micros: 0 };
    if (scanner !== undefined) attempt.scanner = scanner;
    attempts.push(attempt);
    try {
      const testedMemory = selfTest(strategy, descriptor, byteLength);
      attempt.passed = true;
      attempt.micros = (performance.now() - started) * 1000;
      return {
        strategy,
        backend: backend(scanner ?? 'none', strategy.decommit !== undefined),
        selfTest: { passed: true, attempts },
        testedMemory,
      };
    } catch (error) {
      attempt.error = describe(error);
      attempt.micros = (performance.now() - started) * 1000;
      return undefined;
    }
  };
  const unavailable = (name: string, detail: string): never => {
    reader?.close();
    throw new VmMemoryError('UNAVAILABLE', detail, {
      strategy: name,
      cause: { native: nativeError, pagemap: pagemapError, attempts },
    });
  };

  if (requested === 'fresh') {
    reader?.close();
    return { strategy: new FreshStrategy(), backend: backend('none', false), selfTest: { passed: true, attempts } };
  }
  if (requested === 'zero-all') {
    reader?.close();
    return tryCandidate(new ZeroAllStrategy(byteLength, native)) ?? unavailable('zero-all', 'self-test failed');
  }
  if (requested === 'decommit') {
    reader?.close();
    if (native === undefined) return unavailable('decommit', `needs the native helper (${nativeError})`);
    return tryCandidate(new DecommitStrategy(byteLength, native)) ?? unavailable('decommit', 'self-test failed');
  }

  // dirty-pages, or auto.
  const scannerChoice = dirtyPages.scanner ?? 'auto';
  const rule = dirtyPages.rule ?? 'conservative';
  let chosen: ResolvedStrategy | undefined;
  if (native !== undefined && (scannerChoice === 'auto' || scannerChoice === 'pagemap-scan')) {
    chosen = tryCandidate(
      new DirtyPagesStrategy(byteLength, 'pagemap-scan', native, undefined, rule, tuning),
      'pagemap-scan',
    );
  }
  if (chosen === undefined && reader !== undefined && (scannerChoice === 'auto' || scannerChoice === 'pagemap-read')) {
    chosen = tryCandidate(
      new DirtyPagesStrategy(byteLength, 'pagemap-read', native, reader, rule, tuning),
      'pagemap-read',
    );
  }
  if (chosen?.backend.scanner !== 'pagemap-read') reader?.close();
  if (chosen !== undefined) return chosen;
  if (requested === 'dirty-pages') return unavailable('dirty-pages', 'no page-table backend passed its self-test');

  // auto without page tables: zero-all for small memories, fresh for big ones (the nearcore #10851 lesson).
  if (byteLength <= ZERO_ALL_FALLBACK_MAX_BYTES) {
    const zeroAll = tryCandidate(new ZeroAllStrategy(byteLength, native));
    if (zeroAll !== undefined) return zeroAll;
  }
  return { strategy: new FreshStrategy(), backend: backend('none', false), selfTest: { passed: true, attempts } };
}

/** Canary offsets for a memory of `byteLength` bytes: places a reset that trusts an extent or a view would miss. */
export function canaryOffsets(byteLength: number): number[] {
  const offsets = [0, 5 * 4096 + 123, Math.floor(byteLength / 2) + 4097, byteLength - 4096, byteLength - 1];
  return [...new Set(offsets.filter((offset) => offset >= 0 && offset < byteLength))].sort((a, b) => a - b);
}

/**
 * Writes canaries into a new memory, resets it with `strategy`, and checks every canary page and the size; then, if
 * the strategy can decommit, the same again through decommit. Returns the memory (all zero) or throws: UNAVAILABLE
 * naming the strategy when a check fails, or whatever the strategy threw.
 */
export function selfTest(
  strategy: ResetStrategy,
  descriptor: WebAssembly.MemoryDescriptor,
  byteLength: number,
): { memory: WebAssembly.Memory; state: unknown } {
  const created = strategy.allocate?.(descriptor) ?? { memory: new WebAssembly.Memory(descriptor) };
  const memory = created.memory;
  const state = created.state;
  const failed = (detail: string) => new VmMemoryError('UNAVAILABLE', detail, { strategy: strategy.name });
  const round = (label: string, reset: (buffer: ArrayBuffer) => void) => {
    const before = memory.buffer;
    const bytes = new Uint8Array(before);
    for (const offset of canaryOffsets(byteLength)) bytes[offset] = 0xa5;
    reset(memory.buffer);
    const after = memory.buffer;
    if (after !== before || after.byteLength !== byteLength) throw failed(`${label}: the memory changed size`);
    for (const offset of canaryOffsets(byteLength)) {
      const page = offset - (offset % 4096);
      if (!isZeroRange(after, page, page + 4096)) throw failed(`${label}: canary at ${offset} survived`);
    }
  };
  round('reset', (buffer) => {
    const outcome = strategy.reset({ memory, buffer, state });
    if (outcome.retire !== undefined) throw failed('reset asked to retire a fresh memory');
    if (strategy instanceof DirtyPagesStrategy && outcome.path !== 'dirty-scan')
      throw failed(`the page tables of the memory could not be read (reset path ${outcome.path})`);
    if (outcome.dirtyBytes !== undefined && outcome.dirtyBytes < canaryPages(byteLength) * 4096)
      throw failed(`reset found ${outcome.dirtyBytes} dirty bytes, fewer than the canary pages`);
  });
  if (strategy.decommit !== undefined) {
    const decommit = strategy.decommit.bind(strategy);
    round('decommit', (buffer) => decommit({ memory, buffer, state }));
  }
  return { memory, state };
}

function canaryPages(byteLength: number): number {
  return new Set(canaryOffsets(byteLength).map((offset) => Math.floor(offset / 4096))).size;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
