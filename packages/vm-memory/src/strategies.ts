// Reset strategies: how a released memory gets back to all zeros. They share one interface, `ResetStrategy`; the pool
// around them owns everything that makes reuse safe whatever the strategy does (the size check before, verification
// after, retiring on any error), so a strategy only has to zero what the last tenant left.
//
//   dirty-pages  find the pages holding data from the kernel's page tables (PAGEMAP_SCAN through the native helper,
//                or /proc/self/pagemap read from JS) and zero only those, in place; never trusts the guest
//   decommit     madvise(MADV_DONTNEED) the whole memory (native helper only): lowest RSS, every page re-faults
//   zero-all     fill(0) the whole memory: portable, keeps the whole memory resident
//   fresh        no reuse: every lease gets a new memory and the old one is left to the GC

import { assert } from '@strata/base';
import type { NativeBinding } from './native.js';
import {
  confirmAddress,
  createLocatedMemory,
  OS_PAGE_SIZE,
  type PagemapReader,
  type PagemapRule,
  PagemapScanner,
} from './pagemap.js';
import { RangeList } from './ranges.js';
import { isZeroRange } from './zero-check.js';

/** The built-in strategies by name. */
export type StrategyName = 'dirty-pages' | 'decommit' | 'zero-all' | 'fresh';

/** How one reset got the memory back to zero. */
export type ResetPath = 'dirty-scan' | 'zero-all' | 'decommit';

/** A memory to reset. `buffer` is `memory.buffer` read by the pool for this reset, of exactly the initial size. */
export interface ResetTarget {
  readonly memory: WebAssembly.Memory;
  /** Read after the execution ended, never earlier: reset through this buffer (or `memory.buffer`), no other view. */
  readonly buffer: ArrayBuffer;
  /** What `allocate` returned as `state` for this memory (per-memory bookkeeping of the strategy). */
  readonly state: unknown;
}

/** What a reset did. */
export interface ResetOutcome {
  path: ResetPath;
  /** Bytes found holding data (zeroed in place or decommitted); undefined when the strategy did not look. */
  dirtyBytes: number | undefined;
  /** Bytes of the memory left resident (zeroed in place), an estimate. */
  residentBytes: number;
  /** Microseconds spent finding dirty pages (0 without a scan). */
  scanMicros: number;
  /**
   * Set when the strategy asks the pool to drop the memory instead of keeping it (its resident set has to be
   * measured again and nothing can decommit it). The memory need not be zeroed then: it is never reused.
   */
  retire?: 'relearn';
}

/**
 * A way to reset memories. Called by one pool, on the thread that owns it, never re-entrantly. `reset` may throw:
 * the pool then retires the memory. A strategy must zero every byte any tenant could have written (guest stores,
 * data segments, host writes), using only `target.buffer`.
 */
export interface ResetStrategy {
  /** For stats and errors. */
  readonly name: string;
  /** False for `fresh`: the pool never resets or reuses a memory then. */
  readonly reuses: boolean;
  /** Creates a memory (the pure-JS backend needs to watch the creation to find the address). */
  allocate?(descriptor: WebAssembly.MemoryDescriptor): { memory: WebAssembly.Memory; state?: unknown };
  reset(target: ResetTarget): ResetOutcome;
  /** Drops the resident pages of an idle memory (budget, trim); the memory must read as zero afterwards. */
  decommit?: ((target: ResetTarget) => void) | undefined;
  /**
   * Ranges verification must read; undefined means all of it. The pure-JS backend returns the pages the pagemap
   * shows present or swapped, so verifying does not map the zero page over the whole memory (a page neither
   * present nor swapped reads as zero by construction).
   */
  verificationRanges?(target: ResetTarget): RangeList | undefined;
  /**
   * Called after verification read the whole memory, which maps the shared zero page over every untouched page: a
   * strategy whose scans pay per present page can drop those mappings again.
   */
  afterFullVerification?(target: ResetTarget): void;
}

/** Tuning of the dirty-pages strategy; the defaults are what the benchmarks were run with. */
export interface DirtyPagesTuning {
  /**
   * A memory whose dirty set reached this fraction of it is "hot": later resets skip the scan and zero it whole
   * (cheaper than scanning a fully resident memory), until sampling shows the resident set has gone stale.
   */
  hotFraction: number;
  /** Resident sets of at least this many bytes are sampled to see how much of them the last tenant really wrote. */
  sampleMinBytes: number;
  /** Pages read per sample. */
  samplePages: number;
  /**
   * When to give a stale resident set back (decommit it, or retire the memory without the native helper): once the
   * resident bytes zeroed for nothing add up to this many resident sets. Unset (the default), it is a ski-rental
   * bound from this machine's measured costs: (decommit + re-fault of the part still in use) ÷ memset, per page.
   */
  wasteLimit?: number;
}

export const DEFAULT_DIRTY_PAGES_TUNING: DirtyPagesTuning = {
  hotFraction: 0.95,
  sampleMinBytes: 2 << 20,
  samplePages: 16,
};

/** Costs per 4 KiB page on this machine, in microseconds (see `measurePageCosts`). */
export interface PageCosts {
  /** Zeroing a resident page in place. */
  memset: number;
  /** First touch of a page that is not present (the kernel zero-fills it). */
  fault: number;
  /** madvise(MADV_DONTNEED) of a resident page; 0 without the native helper. */
  decommit: number;
}

let pageCosts: PageCosts | undefined;

/**
 * Measures `PageCosts` once per thread on an 8 MiB memory (about 5 ms; the best of two rounds, so one preempted
 * round does not skew it). They decide when a stale resident set is worth giving back: on the spec's machine
 * memset is ~25x cheaper than a re-fault, on others ~7x, which moves the break-even by that much.
 */
export function measurePageCosts(native: NativeBinding | undefined): PageCosts {
  if (pageCosts !== undefined) return pageCosts;
  const pages = 2048;
  const memory = new WebAssembly.Memory({ initial: (pages * OS_PAGE_SIZE) / 65536 });
  const bytes = new Uint8Array(memory.buffer);
  let fault = Number.POSITIVE_INFINITY;
  let memset = Number.POSITIVE_INFINITY;
  let decommit = native === undefined ? 0 : Number.POSITIVE_INFINITY;
  const rounds = native === undefined ? 1 : 2; // without madvise the pages cannot be made absent again
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    for (let page = 0; page < pages; page++) bytes[page * OS_PAGE_SIZE] = 1;
    fault = Math.min(fault, performance.now() - started);
    for (let repeat = 0; repeat < 2; repeat++) {
      started = performance.now();
      bytes.fill(0);
      memset = Math.min(memset, performance.now() - started);
    }
    if (native !== undefined) {
      started = performance.now();
      native.decommit(memory.buffer, bytes.byteLength, 0, bytes.byteLength);
      decommit = Math.min(decommit, performance.now() - started);
    }
  }
  const perPage = (millis: number) => Math.max((millis * 1000) / pages, 0.001);
  pageCosts = {
    memset: perPage(memset),
    fault: perPage(fault),
    decommit: native === undefined ? 0 : perPage(decommit),
  };
  return pageCosts;
}

/**
 * Resets over which a resident page the coming tenants will not use is assumed to be zeroed again if kept: the rent
 * charged per reset. 1 would be textbook ski rental (at most twice the best cost); the pool lives for thousands of
 * resets, so a predicted-unused page is charged for a few of them and given back sooner.
 */
const RENT_HORIZON = 3;

/** How many recent tenants' written bytes predict the next tenant's (odd: a true median). */
const RECENT_USES = 15;

/** Dropping a memory and creating, locating and confirming a new one (pure-JS backend), roughly, in µs. */
const REPLACE_MEMORY_MICROS = 1000;

/** Where a dirty-pages strategy gets its page lists. */
export type ScannerKind = 'pagemap-scan' | 'pagemap-read';

interface DirtyState {
  /** Base address (pagemap-read only); undefined when it could not be confirmed. */
  address: number | undefined;
  hot: boolean;
  /**
   * Zeroing paid for resident pages nobody needed: µs of memset with measured costs, or resident sets with a fixed
   * `wasteLimit`.
   */
  waste: number;
}

/** Zeroes [0, length) of the memory. */
export class ZeroAllStrategy implements ResetStrategy {
  readonly name = 'zero-all';
  readonly reuses = true;
  readonly decommit: ((target: ResetTarget) => void) | undefined;

  constructor(
    private readonly byteLength: number,
    native: NativeBinding | undefined,
  ) {
    this.decommit = native === undefined ? undefined : (target) => decommitWhole(native, target, byteLength);
  }

  reset(target: ResetTarget): ResetOutcome {
    new Uint8Array(target.buffer).fill(0);
    return { path: 'zero-all', dirtyBytes: undefined, residentBytes: this.byteLength, scanMicros: 0 };
  }
}

/** madvise(MADV_DONTNEED) over the whole memory on every reset. */
export class DecommitStrategy implements ResetStrategy {
  readonly name = 'decommit';
  readonly reuses = true;

  constructor(
    private readonly byteLength: number,
    private readonly native: NativeBinding,
  ) {}

  reset(target: ResetTarget): ResetOutcome {
    decommitWhole(this.native, target, this.byteLength);
    return { path: 'decommit', dirtyBytes: undefined, residentBytes: 0, scanMicros: 0 };
  }

  decommit(target: ResetTarget): void {
    decommitWhole(this.native, target, this.byteLength);
  }
}

/** Never reuses: the pool hands out a new memory per lease. */
export class FreshStrategy implements ResetStrategy {
  readonly name = 'fresh';
  readonly reuses = false;

  reset(): ResetOutcome {
    // The pool drops a memory of a strategy that does not reuse instead of resetting it.
    assert(false, 'the fresh strategy is never asked to reset');
  }
}

/**
 * Zeroes only the pages the kernel's page tables show holding data. Per reset: scan (or, for a hot memory, skip the
 * scan and zero the whole memory), zero the dirty runs in place (they stay resident, so the next tenant takes no
 * page faults there), and sample big resident sets so that pages no tenant writes any more are eventually given back
 * (decommitted, or the memory retired when there is no native helper).
 */
export class DirtyPagesStrategy implements ResetStrategy {
  readonly name = 'dirty-pages';
  readonly reuses = true;
  readonly decommit: ((target: ResetTarget) => void) | undefined;
  private readonly dirty = new RangeList(512);
  private readonly check = new RangeList(64);
  private readonly pagemap: PagemapScanner | undefined;
  private readonly costs: PageCosts;
  /** The memory whose dirty runs `dirty` holds (the last scan-path reset). */
  private lastReset: WebAssembly.Memory | undefined;
  /** Bytes recent tenants wrote (see `typicalUse`). */
  private readonly recentUse = new Float64Array(RECENT_USES);
  private recentCount = 0;
  private random = 0x9e3779b9;

  constructor(
    private readonly byteLength: number,
    readonly scanner: ScannerKind,
    private readonly native: NativeBinding | undefined,
    reader: PagemapReader | undefined,
    rule: PagemapRule,
    private readonly tuning: DirtyPagesTuning = DEFAULT_DIRTY_PAGES_TUNING,
  ) {
    // resolveStrategy builds each scanner only with what it needs.
    assert(scanner !== 'pagemap-scan' || native !== undefined, 'pagemap-scan needs the native helper');
    if (scanner === 'pagemap-read') {
      assert(reader !== undefined, 'pagemap-read needs a pagemap reader');
      this.pagemap = new PagemapScanner(reader, byteLength, rule);
    }
    this.decommit =
      native === undefined
        ? undefined
        : (target) => {
            decommitWhole(native, target, byteLength);
            const state = target.state as DirtyState;
            state.hot = false;
            state.waste = 0;
          };
    this.costs = tuning.wasteLimit === undefined ? measurePageCosts(native) : { memset: 1, fault: 0, decommit: 0 };
  }

  allocate(descriptor: WebAssembly.MemoryDescriptor): { memory: WebAssembly.Memory; state: DirtyState } {
    if (this.pagemap === undefined) {
      return { memory: new WebAssembly.Memory(descriptor), state: { address: undefined, hot: false, waste: 0 } };
    }
    if (this.native !== undefined) {
      // The helper knows the address; confirming it costs two pagemap reads and proves the reader reads this memory.
      const memory = new WebAssembly.Memory(descriptor);
      const address = this.native.address(memory.buffer);
      const confirmed = confirmAddress(memory, address, this.pagemap);
      return { memory, state: { address: confirmed ? address : undefined, hot: false, waste: 0 } };
    }
    const { memory, address } = createLocatedMemory(descriptor, this.pagemap);
    return { memory, state: { address, hot: false, waste: 0 } };
  }

  reset(target: ResetTarget): ResetOutcome {
    const state = target.state as DirtyState;
    const length = this.byteLength;
    const bytes = new Uint8Array(target.buffer);
    this.lastReset = undefined;

    if (state.hot) {
      // Nearly everything was resident last time and still is (it was zeroed in place): a scan would report it all.
      const written = this.sampleWritten(target.buffer, undefined);
      if (this.shouldGiveBack(state, length, written)) return this.giveBack(target, state, length, 0);
      bytes.fill(0);
      return { path: 'zero-all', dirtyBytes: length, residentBytes: length, scanMicros: 0 };
    }

    const started = performance.now();
    const scanned = this.scan(target, state);
    const scanMicros = (performance.now() - started) * 1000;
    if (!scanned) {
      // The pure-JS backend could not confirm this memory's address: zero all of it (safe, slower).
      bytes.fill(0);
      return { path: 'zero-all', dirtyBytes: undefined, residentBytes: length, scanMicros };
    }

    const dirty = this.dirty;
    let dirtyBytes = dirty.bytes;
    // Present but shared pages (pure-JS conservative rule): zero only those holding data.
    const check = this.check;
    for (let index = 0; index < check.count; index++) {
      for (let page = check.start(index); page < check.end(index); page += OS_PAGE_SIZE) {
        if (!isZeroRange(target.buffer, page, page + OS_PAGE_SIZE)) {
          bytes.fill(0, page, page + OS_PAGE_SIZE);
          dirtyBytes += OS_PAGE_SIZE;
        }
      }
    }

    if (dirtyBytes >= this.tuning.sampleMinBytes) {
      const written = this.sampleWritten(target.buffer, dirty);
      if (this.shouldGiveBack(state, dirtyBytes, written)) return this.giveBack(target, state, dirtyBytes, scanMicros);
    } else {
      this.recordUse(dirtyBytes);
      state.waste = 0;
    }

    for (let index = 0; index < dirty.count; index++) bytes.fill(0, dirty.start(index), dirty.end(index));
    state.hot = dirtyBytes >= this.tuning.hotFraction * length;
    this.lastReset = target.memory;
    return { path: 'dirty-scan', dirtyBytes, residentBytes: dirtyBytes, scanMicros };
  }

  verificationRanges(target: ResetTarget): RangeList | undefined {
    const state = target.state as DirtyState;
    if (this.pagemap === undefined || state.address === undefined) return undefined;
    const ranges = new RangeList(64);
    for (const page of this.pagemap.presentPages(state.address))
      ranges.push(page * OS_PAGE_SIZE, (page + 1) * OS_PAGE_SIZE);
    return ranges;
  }

  /**
   * Verification mapped the zero page over the pages this reset did not zero; with PAGEMAP_SCAN those mappings do
   * not count as dirty but still cost the scan a page-table entry each, so decommit the gaps between the dirty runs
   * (all zero: verification just read them). After a hot reset there are no gaps.
   */
  afterFullVerification(target: ResetTarget): void {
    const state = target.state as DirtyState;
    if (this.native === undefined || state.hot || this.lastReset !== target.memory) return;
    const dirty = this.dirty;
    let gapStart = 0;
    for (let index = 0; index <= dirty.count; index++) {
      const gapEnd = index < dirty.count ? dirty.start(index) : this.byteLength;
      if (gapEnd > gapStart) this.native.decommit(target.buffer, this.byteLength, gapStart, gapEnd - gapStart);
      if (index < dirty.count) gapStart = dirty.end(index);
    }
  }

  /** Fills `this.dirty` (and `this.check` for the pure-JS reader); false when this memory cannot be scanned. */
  private scan(target: ResetTarget, state: DirtyState): boolean {
    const dirty = this.dirty;
    dirty.clear();
    this.check.clear();
    if (this.pagemap !== undefined) {
      if (state.address === undefined) return false;
      this.pagemap.scan(state.address, dirty, this.check);
      return true;
    }
    const native = this.native!; // the constructor guarantees one of the two
    let count = native.scanDirty(target.buffer, this.byteLength, dirty.data);
    if (count * 2 > dirty.data.length) {
      dirty.grow(count + 64);
      count = native.scanDirty(target.buffer, this.byteLength, dirty.data);
      // Nothing touches the memory between the two scans, so the second finds no more regions than the first.
      assert(count * 2 <= dirty.data.length, () => `PAGEMAP_SCAN regions keep growing (${count})`);
    }
    dirty.count = count;
    let bytes = 0;
    for (let index = 0; index < count; index++) bytes += dirty.end(index) - dirty.start(index);
    dirty.bytes = bytes;
    return true;
  }

  /**
   * Ski rental over a resident set of `residentBytes`, of which this tenant wrote the share `written` (sampled).
   * Keeping the set costs a memset of it per reset, wasted on the share the coming tenants will not use: predicted
   * as the median of what the last tenants wrote (a median, so one big tenant among small ones does not make the
   * pool keep 64 MiB resident for the small ones). Giving it back costs a decommit (or replacing the memory) plus
   * re-faulting the share that will be used. Give back once the waste charged (RENT_HORIZON resets' worth per reset)
   * reaches that price; a prediction that
   * most of the set will be used clears the account. Either way the memory is zeroed safely: this only picks the
   * cheaper way.
   */
  private shouldGiveBack(state: DirtyState, residentBytes: number, written: number): boolean {
    this.recordUse(written * residentBytes);
    if (this.tuning.wasteLimit !== undefined) {
      state.waste += 1 - written;
      return state.waste >= this.tuning.wasteLimit;
    }
    const { memset, fault, decommit } = this.costs;
    const pages = residentBytes / OS_PAGE_SIZE;
    const reusedPages = Math.min(residentBytes, this.typicalUse()) / OS_PAGE_SIZE;
    if (reusedPages >= pages / 2) state.waste = 0;
    state.waste += memset * (pages - reusedPages) * RENT_HORIZON;
    const giveBack = (this.native === undefined ? REPLACE_MEMORY_MICROS : decommit * pages) + fault * reusedPages;
    return state.waste >= giveBack;
  }

  /** Remembers how many bytes a tenant wrote (ring of the last `RECENT_USES`). */
  private recordUse(bytes: number): void {
    this.recentUse[this.recentCount % RECENT_USES] = bytes;
    this.recentCount++;
  }

  /** The median of the recent uses (0 before any). */
  private typicalUse(): number {
    const count = Math.min(this.recentCount, RECENT_USES);
    if (count === 0) return 0;
    return this.recentUse.slice(0, count).sort()[count >> 1]!;
  }

  /**
   * The resident set has been zeroed for nothing long enough: decommit the memory (zeros on next touch, nothing
   * resident), or without the helper ask the pool to retire it.
   */
  private giveBack(target: ResetTarget, state: DirtyState, dirtyBytes: number, scanMicros: number): ResetOutcome {
    state.hot = false;
    state.waste = 0;
    if (this.native === undefined)
      return { path: 'zero-all', dirtyBytes, residentBytes: 0, scanMicros, retire: 'relearn' };
    decommitWhole(this.native, target, this.byteLength);
    return { path: 'decommit', dirtyBytes, residentBytes: 0, scanMicros };
  }

  /**
   * The fraction of sampled resident pages that hold data (were written by the last tenant): `samplePages` pages
   * drawn uniformly from the dirty runs, or from the whole memory when `ranges` is undefined. Only a heuristic for
   * when to give pages back; it never decides what gets zeroed.
   */
  private sampleWritten(buffer: ArrayBuffer, ranges: RangeList | undefined): number {
    const total = ranges === undefined ? this.byteLength : ranges.bytes;
    const pages = total / OS_PAGE_SIZE;
    const samples = this.tuning.samplePages;
    let written = 0;
    for (let sample = 0; sample < samples; sample++) {
      let offset = Math.floor(this.nextRandom() * pages) * OS_PAGE_SIZE;
      if (ranges !== undefined) {
        // Map the offset within the dirty bytes to an address: walk the runs.
        for (let index = 0; index < ranges.count; index++) {
          const size = ranges.end(index) - ranges.start(index);
          if (offset < size) {
            offset += ranges.start(index);
            break;
          }
          offset -= size;
        }
      }
      if (!isZeroRange(buffer, offset, offset + OS_PAGE_SIZE)) written++;
    }
    return written / samples;
  }

  /** xorshift32 in [0, 1): sampling needs spread, not secrecy. */
  private nextRandom(): number {
    let x = this.random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.random = x >>> 0;
    return this.random / 2 ** 32;
  }
}

function decommitWhole(native: NativeBinding, target: ResetTarget, byteLength: number): void {
  native.decommit(target.buffer, byteLength, 0, byteLength);
}
