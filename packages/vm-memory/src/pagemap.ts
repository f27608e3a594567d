// The pure-JS backend: read a WebAssembly memory's page-table entries from /proc/self/pagemap (8 bytes per 4 KiB page,
// Documentation/admin-guide/mm/pagemap.rst) and find its base address without native code, by diffing
// /proc/self/maps around `new WebAssembly.Memory` and confirming the candidate through the pagemap itself.
// Works unprivileged on Linux >= 4.2: the flag bits read here are not privilege-gated (only the PFN bits are).

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { describeValue } from '@strata/base';
import { invalidArgument, VmMemoryError } from './errors.js';
import type { RangeList } from './ranges.js';

/** The OS page size this reader assumes. A kernel with larger pages fails the address confirmation (fail closed). */
export const OS_PAGE_SIZE = 4096;

/**
 * Bit positions in a pagemap entry. The reader works on the entry's high 32-bit word, where bit N of the entry is
 * bit N - 32. (wasmer's dirty_map.rs tested `1 << (55 - 1)`, bit 54, for soft-dirty: these are tested one by one.)
 */
export const PAGEMAP_BIT = {
  /** 63: the page is present in RAM. */
  present: 63,
  /** 62: the page is swapped out (or a migration entry): it holds data the kernel will bring back. */
  swapped: 62,
  /** 61: file page or shared anonymous. */
  fileOrShared: 61,
  /** 56: mapped exactly once (not the shared zero page, not shared after fork or by KSM). */
  exclusive: 56,
  /** 55: soft-dirty (not used for the decision: another process-wide write to clear_refs would reset it). */
  softDirty: 55,
} as const;

/**
 * Which pages the reader resets. `conservative` (the default): every present or swapped page is a candidate; a
 * present page that is not exclusively mapped (the shared zero page after a read, or a page shared after `fork()`
 * or merged by KSM) has its contents checked and is zeroed if it holds anything. `exclusive`: present pages that are
 * not exclusively mapped are skipped — faster after guests read much untouched memory, but wrong if the process
 * forks or KSM merges pages, so only for deployments that rule both out.
 */
export type PagemapRule = 'conservative' | 'exclusive';

/** What one entry says about its page. */
export const PageVerdict = {
  /** Neither present nor swapped: the kernel supplies zeros on the next access. */
  CLEAN: 0,
  /** Holds data this process wrote (or swapped-out data): must be zeroed. */
  DIRTY: 1,
  /** Present but shared: zero page, or shared after fork/KSM. Check the contents. */
  CHECK: 2,
} as const;
export type PageVerdict = (typeof PageVerdict)[keyof typeof PageVerdict];

const HIGH_PRESENT = 1 << (PAGEMAP_BIT.present - 32); // 1 << 31: negative as an int32, compare with >>> 0
const HIGH_SWAPPED = 1 << (PAGEMAP_BIT.swapped - 32);
const HIGH_EXCLUSIVE = 1 << (PAGEMAP_BIT.exclusive - 32);

/** The verdict for a page from the high 32 bits of its pagemap entry. */
export function pageVerdict(high: number, rule: PagemapRule): PageVerdict {
  if ((high & HIGH_SWAPPED) !== 0) return PageVerdict.DIRTY;
  if ((high & HIGH_PRESENT) === 0) return PageVerdict.CLEAN;
  if ((high & HIGH_EXCLUSIVE) !== 0) return PageVerdict.DIRTY;
  return rule === 'conservative' ? PageVerdict.CHECK : PageVerdict.CLEAN;
}

/** The flag bits of a whole 64-bit entry (for tests and diagnostics). */
export function decodePagemapEntry(entry: bigint): {
  present: boolean;
  swapped: boolean;
  fileOrShared: boolean;
  exclusive: boolean;
  softDirty: boolean;
} {
  if (typeof entry !== 'bigint' || entry < 0n || entry >= 1n << 64n)
    throw invalidArgument('entry', `must be a bigint in 0..2^64 - 1 (one pagemap entry), got ${describeValue(entry)}`);
  const bit = (n: number) => ((entry >> BigInt(n)) & 1n) === 1n;
  return {
    present: bit(PAGEMAP_BIT.present),
    swapped: bit(PAGEMAP_BIT.swapped),
    fileOrShared: bit(PAGEMAP_BIT.fileOrShared),
    exclusive: bit(PAGEMAP_BIT.exclusive),
    softDirty: bit(PAGEMAP_BIT.softDirty),
  };
}

/** Reads pagemap entries. One open file per reader; synchronous, for the thread that created it. */
export class PagemapReader {
  private fd: number;

  /** Opens the pagemap; throws a VmMemoryError (UNAVAILABLE) when it cannot be opened or read. */
  constructor(readonly path = '/proc/self/pagemap') {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw new VmMemoryError('UNAVAILABLE', `cannot open ${path}`, { cause: error });
    }
  }

  /** Fills `into` with the entries of `pages` pages from `address` (8 bytes each, little-endian). */
  read(address: number, pages: number, into: Uint8Array): void {
    const want = pages * 8;
    if (into.byteLength < want) throw new VmMemoryError('INVALID_ARGUMENT', 'entry buffer too small');
    let done = 0;
    while (done < want) {
      const position = (address / OS_PAGE_SIZE) * 8 + done;
      const got = readSync(this.fd, into, done, want - done, position);
      if (got <= 0) throw new VmMemoryError('UNAVAILABLE', `short read of ${this.path} at ${position}`);
      done += got;
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * Entries for one memory: the reader, the memory's base address and a buffer sized for its initial pages. `scan`
 * sorts the pages into runs of DIRTY pages and runs of CHECK pages.
 */
export class PagemapScanner {
  readonly pages: number;
  private readonly entries: Uint8Array;
  private readonly words: Uint32Array;

  constructor(
    private readonly reader: PagemapReader,
    readonly byteLength: number,
    readonly rule: PagemapRule,
  ) {
    this.pages = byteLength / OS_PAGE_SIZE;
    this.entries = new Uint8Array(this.pages * 8);
    this.words = new Uint32Array(this.entries.buffer);
  }

  /** Appends the byte ranges of DIRTY and CHECK pages of the memory at `address` to the two lists. */
  scan(address: number, dirty: RangeList, check: RangeList): void {
    this.reader.read(address, this.pages, this.entries);
    const words = this.words;
    const rule = this.rule;
    for (let page = 0; page < this.pages; page++) {
      const high = words[2 * page + 1]!; // little-endian: the high word of entry `page`
      if (high === 0) continue; // the common case: never touched
      const verdict = pageVerdict(high, rule);
      if (verdict === PageVerdict.DIRTY) dirty.push(page * OS_PAGE_SIZE, (page + 1) * OS_PAGE_SIZE);
      else if (verdict === PageVerdict.CHECK) check.push(page * OS_PAGE_SIZE, (page + 1) * OS_PAGE_SIZE);
    }
  }

  /** The verdicts of every page (for the address confirmation and tests). */
  verdicts(address: number): PageVerdict[] {
    this.reader.read(address, this.pages, this.entries);
    const result: PageVerdict[] = [];
    for (let page = 0; page < this.pages; page++) result.push(pageVerdict(this.words[2 * page + 1]!, this.rule));
    return result;
  }

  /** Whether each page is present (bit 63), ignoring the rule. */
  presentPages(address: number): number[] {
    this.reader.read(address, this.pages, this.entries);
    const present: number[] = [];
    for (let page = 0; page < this.pages; page++)
      if ((this.words[2 * page + 1]! & HIGH_PRESENT) !== 0 || (this.words[2 * page + 1]! & HIGH_SWAPPED) !== 0)
        present.push(page);
    return present;
  }
}

/** Start addresses of the private read-write mappings of exactly `length` bytes in /proc/self/maps. */
export function privateMappingsOfLength(length: number, mapsPath = '/proc/self/maps'): Set<number> {
  const text = readFileSync(mapsPath, 'latin1');
  const starts = new Set<number>();
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // "7f94b07b0000-7f94b47b0000 rw-p 00000000 00:00 0" — address range, then permissions.
    const dash = text.indexOf('-', lineStart);
    const space = text.indexOf(' ', dash);
    if (dash > 0 && dash < lineEnd && space > 0 && text.startsWith('rw-p', space + 1)) {
      const start = Number.parseInt(text.slice(lineStart, dash), 16);
      const end = Number.parseInt(text.slice(dash + 1, space), 16);
      if (end - start === length) starts.add(start);
    }
    lineStart = lineEnd + 1;
  }
  return starts;
}

/**
 * Creates a memory and finds its base address without native code: the read-write mappings of the memory's exact
 * size that appeared across `new WebAssembly.Memory` are candidates, and a candidate is confirmed when its pagemap
 * shows no page present, then exactly the three pages this function writes (first, sixth, last), which are then
 * zeroed again. `address` is undefined when no candidate confirms; the memory is still usable (and all zero), but
 * the pagemap backend cannot reset it.
 */
export function createLocatedMemory(
  descriptor: WebAssembly.MemoryDescriptor,
  scanner: PagemapScanner,
  mapsPath = '/proc/self/maps',
): { memory: WebAssembly.Memory; address: number | undefined } {
  const length = descriptor.initial * 65536;
  const before = privateMappingsOfLength(length, mapsPath);
  const memory = new WebAssembly.Memory(descriptor);
  const candidates = [...privateMappingsOfLength(length, mapsPath)].filter((start) => !before.has(start));
  for (const candidate of candidates) {
    if (confirmAddress(memory, candidate, scanner)) return { memory, address: candidate };
  }
  return { memory, address: undefined };
}

/** Touches three known pages of an untouched memory and checks that the pagemap at `address` shows exactly them. */
export function confirmAddress(memory: WebAssembly.Memory, address: number, scanner: PagemapScanner): boolean {
  const bytes = new Uint8Array(memory.buffer);
  if (bytes.byteLength !== scanner.byteLength) return false;
  try {
    if (scanner.presentPages(address).length !== 0) return false;
    const probes = [0, 5, scanner.pages - 1];
    for (const page of probes) bytes[page * OS_PAGE_SIZE] = 1;
    const present = scanner.presentPages(address);
    for (const page of probes) bytes[page * OS_PAGE_SIZE] = 0;
    return present.length === probes.length && probes.every((page, index) => present[index] === page);
  } catch {
    return false;
  }
}
