// The index of a large bucket (stellar-core's DiskIndex): for each page-aligned window of the file, the first and
// last key of the records that start in it and the offset of the first of them, plus a binary fuse filter over all
// keys. A lookup costs one binary search over the pages, one filter probe, and (if the filter says maybe) one pread
// of the page's records. Keys live in one concatenated buffer and offsets in typed arrays: no object per page.

import { closeSync } from 'node:fs';
import { compareLedgerKeys } from '@strata/ledger-key';
import { BucketError } from '../errors.js';
import { readAt } from '../record-io.js';
import type { BucketIndex, TypeRange } from './bucket-index.js';
import type { BinaryFuse16 } from './fuse-filter.js';
import {
  checkAscending,
  checkQueryKey,
  comparePrefixes,
  compareRecordToKey,
  keyPrefix,
  recordKeyPrefix,
  recordLengthAt,
} from './record-key.js';

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

export class PageIndex implements BucketIndex {
  readonly kind = 'page';
  private fd: number;
  private page: Uint8Array;
  private pageLength = 0;
  private loadedPage = -1;
  private recordStarts = new Uint32Array(256);
  private recordPrefixes = new Uint32Array(3 * 256); // key prefixes of the loaded page's records (record-key.ts)
  private recordCount = 0;
  private readonly queryPrefix = new Uint32Array(3);
  /** Key prefixes of each page's first and last key (6 words a page), so the page search rarely runs the comparator. */
  private readonly pagePrefixes: Uint32Array;

  /**
   * Takes ownership of `fd` (an open descriptor of the bucket file at `path`, `fileSize` bytes), closed by close().
   */
  constructor(
    fd: number,
    readonly path: string,
    readonly fileSize: number,
    readonly table: PageTable,
    readonly filter: BinaryFuse16 | undefined,
    readonly typeRanges: ReadonlyMap<number, TypeRange>,
  ) {
    this.fd = fd;
    this.page = new Uint8Array(table.pageSize * 2);
    this.pagePrefixes = new Uint32Array(6 * table.pageCount);
    for (let k = 0; k < 2 * table.pageCount; k++) {
      keyPrefix(table.keyBytes.subarray(table.keyStarts[k]!, table.keyStarts[k + 1]!), this.pagePrefixes, 3 * k);
    }
  }

  get memoryBytes(): number {
    const t = this.table;
    return (
      t.keyBytes.byteLength +
      t.keyStarts.byteLength +
      t.pageOffsets.byteLength +
      this.pagePrefixes.byteLength +
      (this.filter?.memoryBytes ?? 0) +
      this.page.byteLength +
      this.recordStarts.byteLength +
      this.recordPrefixes.byteLength +
      64 * (this.typeRanges.size + 1)
    );
  }

  lookup(key: Uint8Array): Uint8Array | undefined {
    checkQueryKey(key);
    keyPrefix(key, this.queryPrefix, 0);
    const p = this.candidatePage(key, 0);
    if (p < 0 || !this.mayHold(p, key)) return undefined;
    this.loadPage(p);
    const r = this.recordLowerBound(key, 0);
    return r < this.recordCount && this.compareRecord(r, key) === 0 ? this.recordCopy(r) : undefined;
  }

  lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void {
    checkAscending(keys);
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
        this.loadPage(p);
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

  private firstKey(p: number): Uint8Array {
    const s = this.table.keyStarts;
    return this.table.keyBytes.subarray(s[2 * p]!, s[2 * p + 1]!);
  }

  private lastKey(p: number): Uint8Array {
    const s = this.table.keyStarts;
    return this.table.keyBytes.subarray(s[2 * p + 1]!, s[2 * p + 2]!);
  }

  /** The first page at or after `from` whose last key ≥ key (whose prefix is in queryPrefix), or -1. */
  private candidatePage(key: Uint8Array, from: number): number {
    const q = this.queryPrefix;
    let lo = from;
    let hi = this.table.pageCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = comparePrefixes(this.pagePrefixes, 6 * mid + 3, q, 0) || compareLedgerKeys(this.lastKey(mid), key);
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.table.pageCount ? lo : -1;
  }

  /** Key within page p's key range and admitted by the filter. */
  private mayHold(p: number, key: Uint8Array): boolean {
    const order =
      comparePrefixes(this.queryPrefix, 0, this.pagePrefixes, 6 * p) || compareLedgerKeys(key, this.firstKey(p));
    if (order < 0) return false;
    return this.filter === undefined || this.filter.mayContain(key);
  }

  /** Reads the records of page p (they start in its window; the last may run past it) and finds their starts. */
  private loadPage(p: number): void {
    if (this.loadedPage === p) return;
    if (this.fd < 0) throw new BucketError('CLOSED', 'bucket index used after close', { file: this.path });
    const offsets = this.table.pageOffsets;
    const start = offsets[p]!;
    const end = p + 1 < this.table.pageCount ? offsets[p + 1]! : this.fileSize;
    const length = end - start;
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
      // Offsets come from a scan of this very file, or from an index file whose checksum, bucket hash and page
      // structure were checked: only a forged index reaches this.
      if (recordLength < 0) {
        throw new BucketError('BAD_INDEX', `page ${p} does not start or end at a record boundary`, {
          file: this.path,
          offset: start + at,
        });
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
