// The index of a large bucket (stellar-core's DiskIndex): for each page-aligned window of the file, the first and
// last key of the records that start in it and the offset of the first of them, plus a binary fuse filter over all
// keys. A lookup costs one binary search over the pages, one filter probe, and (if the filter says maybe) one pread
// of the page's records. Keys live in one concatenated buffer and offsets in typed arrays: no object per page.
//
// An index loaded from its file is a set of claims about the bucket, and a wrong claim gives stale answers without
// any error (a filter that says "absent" sends a lookup on to an older bucket). So the claims are checked against the
// bucket itself (which was verified by its SHA-256): when the file is loaded (`checkClaims`), on every page a lookup
// reads, and as scans pass over the records (`PageScanCheck`). What contradicts the bucket is reported and the index
// is rebuilt from the bucket; the query that found it is answered by the rebuilt index.

import { randomInt } from 'node:crypto';
import { closeSync } from 'node:fs';
import { compareLedgerKeys, LedgerKeyError, ledgerKeyOfEntry } from '@strata/ledger-key';
import { requireFunction } from '../arguments.js';
import { BucketError } from '../errors.js';
import { META } from '../kind.js';
import { readAt } from '../record-io.js';
import type { BinaryFuse16 } from './fuse-filter.js';
import {
  checkAscending,
  checkQueryKey,
  comparePrefixes,
  compareRecordToKey,
  int32At,
  KEY_RECORD,
  keyEntryType,
  keyPrefix,
  recordEntryType,
  recordHasKey,
  recordKeyPrefix,
  recordLengthAt,
} from './record-key.js';
import type { BucketIndex, TypeRange } from './types.js';

/** The page table: what the builder produces and the index file stores. */
export interface PageTable {
  readonly pageSize: number;
  readonly pageCount: number;
  /** File offset of the first record of each page, strictly ascending. */
  readonly pageOffsets: Float64Array;
  /** 2 × pageCount + 1 boundaries into keyBytes: page i's first key is [2i, 2i+1), its last key [2i+1, 2i+2). */
  readonly keyStarts: Uint32Array;
  readonly keyBytes: Uint8Array;
}

/** How the checks of a loaded index may be tuned; tests turn sampling up or off to aim at one check. */
export const indexChecks = {
  /** Pages read at random when an index file is loaded, besides the first, the last and those where types change. */
  samplePages: 4,
  /** Scans test one record in 2^filterSampleBits against the filter (0: every record). */
  filterSampleBits: 10,
};

/**
 * Which records a scan tests against the filter: those whose offset times this odd number has its top
 * `filterSampleBits` bits clear. Random per process, so a forged filter cannot know which of its keys are tested.
 */
const SAMPLE_MULTIPLIER = 2 * randomInt(2 ** 30) + 1;

/** How an index loaded from its file is replaced when its bucket contradicts it. */
export interface IndexHealing {
  /** Told first: a BAD_INDEX problem saying what the bucket contradicted. */
  report(problem: BucketError): void;
  /** An index built by scanning the bucket file (and persisted over the bad file); its parts are adopted. */
  rebuild(): PageIndex;
}

/** A claim of the index that the bucket contradicts: what, and the file offset where it shows. */
interface Contradiction {
  readonly detail: string;
  readonly offset: number;
}

/** Everything a page index answers from; replaced as a whole when the index is rebuilt. */
interface PageParts {
  readonly table: PageTable;
  readonly filter: BinaryFuse16 | undefined;
  readonly typeRanges: ReadonlyMap<number, TypeRange>;
  /** The type ranges as parallel arrays, ascending, for `typeAt`. */
  readonly types: Int32Array;
  readonly typeStarts: Float64Array;
  /** Key prefixes of each page's first and last key (6 words a page), so the page search rarely runs the comparator. */
  readonly pagePrefixes: Uint32Array;
}

function partsOf(
  table: PageTable,
  filter: BinaryFuse16 | undefined,
  typeRanges: ReadonlyMap<number, TypeRange>,
): PageParts {
  const pagePrefixes = new Uint32Array(6 * table.pageCount);
  for (let k = 0; k < 2 * table.pageCount; k++) {
    keyPrefix(table.keyBytes.subarray(table.keyStarts[k]!, table.keyStarts[k + 1]!), pagePrefixes, 3 * k);
  }
  const types = Int32Array.from(typeRanges.keys());
  const typeStarts = Float64Array.from(typeRanges.values(), (range) => range.start);
  return { table, filter, typeRanges, types, typeStarts, pagePrefixes };
}

export class PageIndex implements BucketIndex {
  readonly kind = 'page';
  private fd: number;
  private parts: PageParts;
  private healing: IndexHealing | undefined;
  /** Incremented when the parts are replaced, so that scan checks made for the old parts stop. */
  private generation = 0;
  private page: Uint8Array;
  private pageLength = 0;
  private loadedPage = -1;
  private recordStarts = new Uint32Array(256);
  private recordPrefixes = new Uint32Array(3 * 256); // key prefixes of the loaded page's records (record-key.ts)
  private recordCount = 0;
  private readonly queryPrefix = new Uint32Array(3);

  /**
   * Takes ownership of `fd` (an open descriptor of the bucket file at `path`, `fileSize` bytes), closed by close().
   * `healing` is given for an index loaded from its file: a page read that contradicts it then reports and rebuilds
   * instead of failing. An index built from the bucket has none: a contradiction means the bucket file changed under
   * it, and is thrown (BAD_INDEX).
   */
  constructor(
    fd: number,
    readonly path: string,
    readonly fileSize: number,
    table: PageTable,
    filter: BinaryFuse16 | undefined,
    typeRanges: ReadonlyMap<number, TypeRange>,
    healing?: IndexHealing,
  ) {
    this.fd = fd;
    this.parts = partsOf(table, filter, typeRanges);
    this.healing = healing;
    this.page = new Uint8Array(table.pageSize * 2);
  }

  get table(): PageTable {
    return this.parts.table;
  }

  get filter(): BinaryFuse16 | undefined {
    return this.parts.filter;
  }

  get typeRanges(): ReadonlyMap<number, TypeRange> {
    return this.parts.typeRanges;
  }

  get memoryBytes(): number {
    const { table: t, filter, pagePrefixes, typeRanges } = this.parts;
    return (
      t.keyBytes.byteLength +
      t.keyStarts.byteLength +
      t.pageOffsets.byteLength +
      pagePrefixes.byteLength +
      (filter?.memoryBytes ?? 0) +
      this.page.byteLength +
      this.recordStarts.byteLength +
      this.recordPrefixes.byteLength +
      64 * (typeRanges.size + 1)
    );
  }

  lookup(key: Uint8Array): Uint8Array | undefined {
    checkQueryKey(key);
    keyPrefix(key, this.queryPrefix, 0);
    for (;;) {
      const p = this.candidatePage(key, 0);
      if (p < 0 || !this.mayHold(p, key)) return undefined;
      if (!this.loadPage(p)) continue; // the bucket contradicted the index, now rebuilt: search again
      const r = this.recordLowerBound(key, 0);
      return r < this.recordCount && this.compareRecord(r, key) === 0 ? this.recordCopy(r) : undefined;
    }
  }

  lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void {
    checkAscending(keys);
    requireFunction(found, 'found');
    let fromPage = 0;
    let fromRecord = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      keyPrefix(key, this.queryPrefix, 0);
      const p = this.candidatePage(key, fromPage);
      if (p < 0) return; // every remaining key sorts after the last page
      if (p !== fromPage) fromRecord = 0;
      fromPage = p;
      if (!this.mayHold(p, key)) continue;
      if (this.loadedPage !== p) {
        if (!this.loadPage(p)) {
          // Rebuilt: this key and the rest are searched again from the first page (earlier answers were each
          // read from a page that matched the bucket).
          fromPage = 0;
          fromRecord = 0;
          i--;
          continue;
        }
        fromRecord = 0;
      }
      const r = this.recordLowerBound(key, fromRecord);
      fromRecord = r;
      if (r < this.recordCount && this.compareRecord(r, key) === 0) found(i, this.recordCopy(r));
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.loadedPage = -1; // so that every later lookup that needs a page throws CLOSED, not only uncached ones
  }

  /**
   * Checks the claims of an index just loaded from its file against the bucket, before any is used; returns the first
   * that does not hold, or undefined. In memory: the filter admits every page key, and each page's first and last
   * keys have the types the type ranges give their offsets. Read from the bucket: the first page starts at the first
   * record after META; the pages where each type starts and ends, the last page and `samplePages` random ones hold
   * exactly the records the table says (boundaries, first and last keys), each of the type its range says and
   * admitted by the filter. Types ascend in a bucket, so a range whose first and last records are of its type holds
   * only that type: the type ranges are proved whole. The rest of the page table is proved page by page as pages
   * are read; a filter that rejects a key nothing reads cannot be caught without reading (scans test a sample).
   */
  checkClaims(): string | undefined {
    const { table, filter, typeStarts } = this.parts;
    const pageCount = table.pageCount;
    if (pageCount === 0) return undefined;
    for (let k = 0; k < 2 * pageCount; k++) {
      const which = `page ${k >> 1}'s ${k % 2 === 0 ? 'first' : 'last'} key`;
      if (filter !== undefined && !filter.mayContain(this.tableKey(k))) return `the filter rejects ${which}`;
    }
    for (let p = 0; p < pageCount; p++) {
      if (keyEntryType(this.firstKey(p)) !== this.typeAt(table.pageOffsets[p]!)) {
        return `page ${p}'s first key is not of the type its type range says`;
      }
      if (keyEntryType(this.lastKey(p)) !== this.typeAt(this.pageEnd(p) - 1)) {
        return `page ${p}'s last key is not of the type its type range says`;
      }
    }
    const head = new Uint8Array(8);
    const got = readAt(this.fd, this.path, head, 8, 0);
    const firstRecord = got === 8 && int32At(head, 4) === META ? 4 + (int32At(head, 0) & 0x7fffffff) : 0;
    if (table.pageOffsets[0] !== firstRecord)
      return `the first page starts at ${table.pageOffsets[0]}, not ${firstRecord}`;
    const pages = new Set([0, pageCount - 1]);
    for (let i = 1; i < typeStarts.length; i++) {
      pages.add(this.pageOf(typeStarts[i]!));
      pages.add(this.pageOf(typeStarts[i]! - 1));
    }
    for (let i = 0; i < indexChecks.samplePages; i++) pages.add(randomInt(pageCount));
    for (const p of [...pages].sort((a, b) => a - b)) {
      const problem = this.readPage(p) ?? this.pageKeysProblem(p) ?? this.pageRecordsProblem();
      if (problem !== undefined) return problem.detail;
    }
    return undefined;
  }

  /**
   * A check of this index's claims for a scan that reads the bucket's records in file order from the record at
   * `start` (see PageScanCheck); undefined when there is nothing to check (an index built from the bucket itself).
   */
  scanCheck(start: number): PageScanCheck | undefined {
    if (this.healing === undefined || this.parts.table.pageCount === 0) return undefined;
    return new PageScanCheck(this, start);
  }

  // --- internals shared with PageScanCheck ---

  /** Incremented at each rebuild. */
  get partsGeneration(): number {
    return this.generation;
  }

  /** The first page whose first record is at or after `offset` (pageCount when none is). */
  pageAtOrAfter(offset: number): number {
    const offsets = this.parts.table.pageOffsets;
    let lo = 0;
    let hi = this.parts.table.pageCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** File offset where page p's records end: the next page's first record, or the end of the file. */
  pageEnd(p: number): number {
    const table = this.parts.table;
    return p + 1 < table.pageCount ? table.pageOffsets[p + 1]! : this.fileSize;
  }

  firstKey(p: number): Uint8Array {
    return this.tableKey(2 * p);
  }

  lastKey(p: number): Uint8Array {
    return this.tableKey(2 * p + 1);
  }

  /** The filter's answer for a key (true when there is no filter). */
  filterAdmits(key: Uint8Array): boolean {
    return this.parts.filter === undefined || this.parts.filter.mayContain(key);
  }

  /**
   * The bucket contradicts this index: an index loaded from its file reports it, adopts a rebuilt index's parts and
   * returns; one built from the bucket throws BAD_INDEX (the bucket file changed under it).
   */
  contradicted(problem: Contradiction): void {
    const where = { file: this.path, offset: problem.offset };
    const healing = this.healing;
    if (healing === undefined) throw new BucketError('BAD_INDEX', problem.detail, where);
    this.healing = undefined;
    healing.report(
      new BucketError('BAD_INDEX', `${problem.detail}: the bucket contradicts its index; rebuilding`, where),
    );
    const rebuilt = healing.rebuild();
    this.parts = rebuilt.parts;
    rebuilt.close(); // its descriptor: this index keeps its own
    this.loadedPage = -1;
    this.generation++;
  }

  // --- internals ---

  private tableKey(k: number): Uint8Array {
    const { keyBytes, keyStarts } = this.parts.table;
    return keyBytes.subarray(keyStarts[k]!, keyStarts[k + 1]!);
  }

  /** The LedgerEntryType whose range holds file offset `offset` (-1 before the first range). */
  private typeAt(offset: number): number {
    const { types, typeStarts } = this.parts;
    let type = -1;
    for (let i = 0; i < typeStarts.length && typeStarts[i]! <= offset; i++) type = types[i]!;
    return type;
  }

  /** The page whose records hold file offset `offset` (the last page starting at or before it). */
  private pageOf(offset: number): number {
    const next = this.pageAtOrAfter(offset + 1);
    return Math.max(0, next - 1);
  }

  /** The first page at or after `from` whose last key ≥ key (whose prefix is in queryPrefix), or -1. */
  private candidatePage(key: Uint8Array, from: number): number {
    const q = this.queryPrefix;
    const { table, pagePrefixes } = this.parts;
    let lo = from;
    let hi = table.pageCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = comparePrefixes(pagePrefixes, 6 * mid + 3, q, 0) || compareLedgerKeys(this.lastKey(mid), key);
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < table.pageCount ? lo : -1;
  }

  /** Key within page p's key range and admitted by the filter. */
  private mayHold(p: number, key: Uint8Array): boolean {
    const order =
      comparePrefixes(this.queryPrefix, 0, this.parts.pagePrefixes, 6 * p) || compareLedgerKeys(key, this.firstKey(p));
    if (order < 0) return false;
    return this.filterAdmits(key);
  }

  /**
   * Makes page p the loaded page and checks it against the table (record boundaries, first and last keys). False
   * when the bucket contradicted the index, which was then rebuilt: the caller searches again.
   */
  private loadPage(p: number): boolean {
    if (this.loadedPage === p) return true;
    const problem = this.readPage(p) ?? this.pageKeysProblem(p);
    if (problem === undefined) return true;
    this.loadedPage = -1;
    this.contradicted(problem);
    return false;
  }

  /** Reads the records of page p (they start in its window; the last may run past it) and finds their starts. */
  private readPage(p: number): Contradiction | undefined {
    if (this.fd < 0) throw new BucketError('CLOSED', 'bucket index used after close', { file: this.path });
    const start = this.parts.table.pageOffsets[p]!;
    const length = this.pageEnd(p) - start;
    if (length > this.page.length) this.page = new Uint8Array(Math.max(length, this.page.length * 2));
    this.loadedPage = -1;
    const got = readAt(this.fd, this.path, this.page, length, start);
    if (got !== length) {
      throw new BucketError('TRUNCATED', `bucket file shorter than its index says (page ${p})`, {
        file: this.path,
        offset: start + got,
      });
    }
    let count = 0;
    for (let at = 0; at < length; ) {
      const recordLength = recordLengthAt(this.page, at, length);
      if (recordLength < 0) {
        return { detail: `page ${p} does not start or end at a record boundary`, offset: start + at };
      }
      if (count === this.recordStarts.length) {
        const grown = new Uint32Array(count * 2);
        grown.set(this.recordStarts);
        this.recordStarts = grown;
        const grownPrefixes = new Uint32Array(count * 6);
        grownPrefixes.set(this.recordPrefixes);
        this.recordPrefixes = grownPrefixes;
      }
      recordKeyPrefix(this.page, at + 4, at + 4 + recordLength, this.recordPrefixes, 3 * count);
      this.recordStarts[count++] = at;
      at += 4 + recordLength;
    }
    this.pageLength = length;
    this.recordCount = count;
    this.loadedPage = p;
    return undefined;
  }

  /** The loaded page p's first and last records against the table's first and last keys. */
  private pageKeysProblem(p: number): Contradiction | undefined {
    const start = this.parts.table.pageOffsets[p]!;
    const last = this.recordCount - 1;
    if (!recordHasKey(this.page, this.recordStarts[0]! + 4, this.recordEnd(0), this.firstKey(p))) {
      return { detail: `page ${p}'s first record is not the table's first key`, offset: start };
    }
    if (!recordHasKey(this.page, this.recordStarts[last]! + 4, this.recordEnd(last), this.lastKey(p))) {
      return {
        detail: `page ${p}'s last record is not the table's last key`,
        offset: start + this.recordStarts[last]!,
      };
    }
    return undefined;
  }

  /** Every record of the loaded page: of the type its type range says, no range starting inside it, in the filter. */
  private pageRecordsProblem(): Contradiction | undefined {
    const { typeStarts } = this.parts;
    const pageStart = this.parts.table.pageOffsets[this.loadedPage]!;
    for (let r = 0; r < this.recordCount; r++) {
      const start = this.recordStarts[r]! + 4;
      const end = this.recordEnd(r);
      const offset = pageStart + start - 4;
      if (recordEntryType(this.page, start, end) !== this.typeAt(offset)) {
        return { detail: 'a record is not of the type its type range says', offset };
      }
      for (const typeStart of typeStarts) {
        if (typeStart > offset && typeStart < pageStart + end) {
          return { detail: `a type range starts inside the record at ${offset}`, offset: typeStart };
        }
      }
      let key: Uint8Array;
      try {
        key =
          int32At(this.page, start) === KEY_RECORD
            ? this.page.subarray(start + 4, end)
            : ledgerKeyOfEntry(this.page.subarray(start + 4, end));
      } catch (error) {
        if (!(error instanceof LedgerKeyError)) throw error;
        return { detail: `the page's records do not decode (${error.message})`, offset };
      }
      if (!this.filterAdmits(key)) return { detail: 'the filter rejects a key of the bucket', offset };
    }
    return undefined;
  }

  /** The first record of the loaded page at or after `from` that is ≥ key (whose prefix is in queryPrefix). */
  private recordLowerBound(key: Uint8Array, from: number): number {
    let lo = from;
    let hi = this.recordCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = comparePrefixes(this.recordPrefixes, 3 * mid, this.queryPrefix, 0) || this.compareRecord(mid, key);
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private recordEnd(r: number): number {
    return r + 1 < this.recordCount ? this.recordStarts[r + 1]! : this.pageLength;
  }

  private compareRecord(r: number, key: Uint8Array): number {
    return compareRecordToKey(this.page, this.recordStarts[r]! + 4, this.recordEnd(r), key);
  }

  private recordCopy(r: number): Uint8Array {
    return this.page.slice(this.recordStarts[r]! + 4, this.recordEnd(r));
  }
}

/**
 * Checks a loaded page index's claims while a scan reads the bucket's records in file order (the loser-tree scan,
 * raw type scans): a record that starts a page window must be where the table says a page starts and have the
 * table's first key; the record that ends a page must have its last key; a sample of records (one in
 * 2^filterSampleBits, chosen at random per process) must be admitted by the filter. A contradiction is passed to
 * the index, which reports it and rebuilds; the scan reads the file and is not affected. Checks stop once the index
 * has been rebuilt. One per cursor; integer compares per record, a byte compare of two keys per page.
 */
export class PageScanCheck {
  private readonly generation: number;
  private readonly offsets: Float64Array;
  private readonly sampleShiftBits: number;
  /** The first page not yet entered (its first record is at or after the next record's offset). */
  private nextPage: number;
  /** Where the next page starts (+∞ after the last), where the current page's records end, and its window's end. */
  private nextStart = 0;
  private currentEnd = 0;
  private windowEnd = 0;

  constructor(
    private readonly index: PageIndex,
    start: number,
  ) {
    this.generation = index.partsGeneration;
    this.offsets = index.table.pageOffsets;
    this.sampleShiftBits = 32 - indexChecks.filterSampleBits;
    this.nextPage = index.pageAtOrAfter(start);
    this.entered(this.nextPage - 1);
  }

  /** The multiplier of the sample (see SAMPLE_MULTIPLIER), for a scan loop that tests offsets itself. */
  static readonly sampleMultiplier: number = SAMPLE_MULTIPLIER;

  /**
   * The fast path of `record`, for a scan loop that decides itself which records to show it (the WebAssembly loser
   * tree): a record needs `record` when the index still stands (`active`) and it starts at or after `quietBefore`,
   * ends at or after `quietEndBefore`, or is sampled — `sampleShift` ≥ 32 samples every record, otherwise one at
   * offset o is sampled when (o * sampleMultiplier) >>> sampleShift is 0 (o taken modulo 2^32). The limits move
   * only when `record` runs.
   */
  get active(): boolean {
    return this.index.partsGeneration === this.generation;
  }

  get quietBefore(): number {
    return Math.min(this.nextStart, this.windowEnd);
  }

  get quietEndBefore(): number {
    return this.currentEnd;
  }

  get sampleShift(): number {
    return this.sampleShiftBits;
  }

  /** The record at file offset `offset`, its payload `buffer[payloadStart, payloadEnd)`. */
  record(buffer: Uint8Array, payloadStart: number, payloadEnd: number, offset: number): void {
    // Most records start no page, end none and are not sampled: a few compares, small enough to inline.
    if (
      offset < this.nextStart &&
      offset < this.windowEnd &&
      offset + 4 + (payloadEnd - payloadStart) < this.currentEnd &&
      this.sampleShiftBits < 32 &&
      Math.imul(offset | 0, SAMPLE_MULTIPLIER) >>> this.sampleShiftBits !== 0
    ) {
      return;
    }
    this.check(buffer, payloadStart, payloadEnd, offset);
  }

  private check(buffer: Uint8Array, payloadStart: number, payloadEnd: number, offset: number): void {
    if (this.index.partsGeneration !== this.generation) return; // rebuilt: these claims are gone
    const problem = this.problem(buffer, payloadStart, payloadEnd, offset);
    if (problem !== undefined) this.index.contradicted(problem);
  }

  /** What the record contradicts: the page table where it starts or ends a page, or the filter if sampled. */
  private problem(
    buffer: Uint8Array,
    payloadStart: number,
    payloadEnd: number,
    offset: number,
  ): Contradiction | undefined {
    if (offset >= this.nextStart) {
      const page = this.nextPage;
      if (offset > this.nextStart) return { detail: `page ${page} does not start at a record`, offset: this.nextStart };
      if (!recordHasKey(buffer, payloadStart, payloadEnd, this.index.firstKey(page))) {
        return { detail: `page ${page}'s first record is not the table's first key`, offset };
      }
      this.nextPage = page + 1;
      this.entered(page);
    } else if (offset >= this.windowEnd) {
      return { detail: 'a record starts a page window where the table has no page', offset };
    }
    const recordEnd = offset + 4 + (payloadEnd - payloadStart);
    if (recordEnd >= this.currentEnd) {
      const page = this.nextPage - 1;
      if (recordEnd > this.currentEnd) return { detail: `page ${page + 1} starts inside a record`, offset };
      if (!recordHasKey(buffer, payloadStart, payloadEnd, this.index.lastKey(page))) {
        return { detail: `page ${page}'s last record is not the table's last key`, offset };
      }
    }
    if (this.sampleShiftBits === 32 || Math.imul(offset | 0, SAMPLE_MULTIPLIER) >>> this.sampleShiftBits === 0) {
      return this.filterProblem(buffer, payloadStart, payloadEnd, offset);
    }
    return undefined;
  }

  /** Page `page` (-1: none yet) is the one the next records belong to. */
  private entered(page: number): void {
    const pageCount = this.offsets.length;
    const next = page + 1;
    this.nextStart = next < pageCount ? this.offsets[next]! : Number.POSITIVE_INFINITY;
    this.currentEnd = page < 0 ? -1 : this.index.pageEnd(page);
    const pageSize = this.index.table.pageSize;
    const first = page < 0 ? 0 : this.offsets[page]!;
    this.windowEnd = page < 0 ? Number.POSITIVE_INFINITY : first - (first % pageSize) + pageSize;
  }

  /** The filter must admit the record's key. */
  private filterProblem(
    buffer: Uint8Array,
    payloadStart: number,
    payloadEnd: number,
    offset: number,
  ): Contradiction | undefined {
    let key: Uint8Array;
    try {
      key =
        int32At(buffer, payloadStart) === KEY_RECORD
          ? buffer.subarray(payloadStart + 4, payloadEnd)
          : ledgerKeyOfEntry(buffer.subarray(payloadStart + 4, payloadEnd));
    } catch (error) {
      if (!(error instanceof LedgerKeyError)) throw error;
      return { detail: `a record does not decode (${error.message})`, offset };
    }
    return this.index.filterAdmits(key) ? undefined : { detail: 'the filter rejects a key of the bucket', offset };
  }
}
