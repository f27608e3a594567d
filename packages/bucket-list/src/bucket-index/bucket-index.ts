// BucketIndex (stellar-core LiveBucketIndex / HotArchiveBucketIndex, spec §6.5): point and bulk lookups into one
// immutable bucket file, and the file offsets of each LedgerEntryType. Buckets under a size cutoff get an
// InMemoryIndex (the file in memory, binary search); larger ones a PageIndex (page table + 16-bit binary fuse
// filter, one pread per lookup) that is persisted as `bucket-<hash>.index` and reloaded on restart when it is intact,
// made with the same version and page size, and not contradicted by the bucket where it is checked (page-index.ts).

import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { assert } from '@strata/base';
import {
  invalidArgument,
  requireBucketFile,
  requireFunction,
  requireOptionalBoolean,
  requireOptionalFunction,
  requireOptions,
  requireString,
} from '../arguments.js';
import type { BucketFile } from '../bucket-file.js';
import { BucketError, ioError } from '../errors.js';
import { type BucketKind, type KindOps, kindOps, META, recordType } from '../kind.js';
import { RecordReader } from '../record-io.js';
import { FuseHashCollector } from './fuse-filter.js';
import { InMemoryIndex, scanRecords } from './in-memory-index.js';
import { decodeIndexFile, encodeIndexFile, readIndexFile, writeIndexFile } from './index-file.js';
import { PageIndex, type PageTable } from './page-index.js';
import { checkAscending, checkQueryKey } from './record-key.js';
import { TypeRangeTracker, typeRangeMap } from './type-ranges.js';
import type { BucketIndex, IndexOptions, TypeRange } from './types.js';

export { INDEX_VERSION } from './index-file.js';
export type { BucketIndex, IndexOptions, TypeRange } from './types.js';

/** stellar-core's default page: 2^BUCKETLIST_DB_INDEX_PAGE_SIZE_EXPONENT with the default exponent 14. */
export const DEFAULT_PAGE_SIZE = 1 << 14;
/** stellar-core's default BUCKETLIST_DB_INDEX_CUTOFF: 20 MB. */
export const DEFAULT_IN_MEMORY_CUTOFF = 20 * 1024 * 1024;
/** An in-memory index holds the whole file in one buffer; never above this, whatever the cutoff. */
const MAX_IN_MEMORY_BYTES = 2 ** 31 - 1;

interface ResolvedOptions {
  readonly pageSize: number;
  readonly inMemoryCutoff: number;
  readonly persist: boolean;
  readonly onIndexProblem: (problem: BucketError) => void;
}

/** Checks IndexOptions (`field` names them in errors) and fills in the defaults. Throws INVALID_ARGUMENT. */
export function resolveOptions(options: IndexOptions | undefined, field = 'options'): ResolvedOptions {
  requireOptions(options, field);
  options ??= {};
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (
    typeof pageSize !== 'number' ||
    !Number.isInteger(pageSize) ||
    pageSize < 16 ||
    pageSize > 2 ** 30 ||
    (pageSize & (pageSize - 1)) !== 0
  ) {
    invalidArgument(`${field}.pageSize`, 'a power of two in [16, 2^30]', pageSize);
  }
  const inMemoryCutoff = options.inMemoryCutoff ?? DEFAULT_IN_MEMORY_CUTOFF;
  if (typeof inMemoryCutoff !== 'number' || Number.isNaN(inMemoryCutoff) || inMemoryCutoff < 0) {
    invalidArgument(`${field}.inMemoryCutoff`, 'a number ≥ 0', inMemoryCutoff);
  }
  requireOptionalBoolean(options.persist, `${field}.persist`);
  requireOptionalFunction(options.onIndexProblem, `${field}.onIndexProblem`);
  return {
    pageSize,
    inMemoryCutoff: Math.min(inMemoryCutoff, MAX_IN_MEMORY_BYTES + 1),
    persist: options.persist ?? true,
    onIndexProblem: options.onIndexProblem ?? (() => {}),
  };
}

/** `bucket-<hash>.xdr` → `bucket-<hash>.index` (any other name gets `.index` appended). */
export function indexPathOf(bucketPath: string): string {
  requireString(bucketPath, 'bucketPath');
  return bucketPath.endsWith('.xdr') ? `${bucketPath.slice(0, -4)}.index` : `${bucketPath}.index`;
}

/** The index of the empty bucket (no file): nothing to find. */
class EmptyIndex implements BucketIndex {
  readonly kind = 'in-memory';
  readonly typeRanges: ReadonlyMap<number, TypeRange> = new Map();
  readonly memoryBytes = 0;
  lookup(key: Uint8Array): undefined {
    checkQueryKey(key);
    return undefined;
  }
  lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void {
    checkAscending(keys);
    requireFunction(found, 'found');
  }
  close(): void {}
}

/**
 * Builds an index in the same pass that writes or verifies a bucket: `add(payload, recordOffset)` for each non-META
 * record in file order, then `finish(bucket)` once the file is complete (it reads the file for an in-memory index,
 * opens it for a page index, and persists a page index). When the final size is not known up front (`size` absent),
 * both kinds are collected until the records pass the in-memory cutoff. Single-threaded; use once.
 */
export class BucketIndexBuilder {
  private readonly options: ResolvedOptions;
  private readonly ops: KindOps;
  private readonly typeRanges = new TypeRangeTracker();
  private entries = 0;
  private lastOffset = -1;
  // In-memory candidate: mark offsets of the records (dropped once the file is known to be too large).
  private recordOffsets: Uint32Array | undefined;
  // Page candidate (absent when the file is known to be small).
  private readonly pages: PageTableBuilder | undefined;

  constructor(
    readonly bucket: { path: string; kind: BucketKind; size?: number },
    options: IndexOptions = {},
  ) {
    this.options = resolveOptions(options);
    this.ops = kindOps(bucket.kind);
    const size = bucket.size;
    const small = size !== undefined && size < this.options.inMemoryCutoff;
    const large = size !== undefined && !small;
    this.recordOffsets = large ? undefined : new Uint32Array(1024);
    this.pages = small ? undefined : new PageTableBuilder(this.options.pageSize);
  }

  add(payload: Uint8Array, offset: number): void {
    if (offset <= this.lastOffset) {
      throw new BucketError('INVALID_ARGUMENT', `record offsets must ascend (${offset} after ${this.lastOffset})`, {
        file: this.bucket.path,
        offset,
      });
    }
    this.lastOffset = offset;
    this.entries++;
    this.typeRanges.add(payload, 0, payload.length, offset);
    if (this.recordOffsets !== undefined) {
      if (this.pages !== undefined && offset + 4 + payload.length >= this.options.inMemoryCutoff) {
        this.recordOffsets = undefined; // the file is at least this long: it will get a page index
      } else {
        if (this.entries > this.recordOffsets.length) {
          const grown = new Uint32Array(this.recordOffsets.length * 2);
          grown.set(this.recordOffsets);
          this.recordOffsets = grown;
        }
        this.recordOffsets[this.entries - 1] = offset;
      }
    }
    this.pages?.add(this.ops.keyOf(payload), offset);
  }

  /** The index of the finished bucket `bucket` (the file the records were added from). */
  finish(bucket: BucketFile): BucketIndex {
    const path = bucket.path;
    if (path === undefined) return new EmptyIndex();
    if (bucket.kind !== this.bucket.kind || bucket.entries !== this.entries) {
      throw new BucketError(
        'INVALID_ARGUMENT',
        `index built from ${this.entries} ${this.bucket.kind} records finished with a ${bucket.kind} bucket of ${bucket.entries}`,
        { file: path },
      );
    }
    const ranges = this.typeRanges.finish(bucket.size);
    if (this.recordOffsets !== undefined && bucket.size < this.options.inMemoryCutoff) {
      const bytes = readWholeBucket(bucket);
      return new InMemoryIndex(bytes, this.recordOffsets.slice(0, this.entries), ranges);
    }
    // Known small up front but finished large (the size hint was wrong): index it again from the file.
    if (this.pages === undefined) return buildPageIndexFromFile(bucket, this.options);
    const table = this.pages.finish();
    const filter = this.pages.filterHashes.build();
    const fd = openBucket(bucket);
    const index = new PageIndex(fd, path, bucket.size, table, filter, ranges);
    if (this.options.persist) {
      const contents = {
        hash: bucket.hash,
        kind: bucket.kind,
        fileSize: bucket.size,
        entries: this.entries,
        types: this.typeRanges.types,
        typeStarts: this.typeRanges.starts,
        table,
        filter,
      };
      try {
        writeIndexFile(indexPathOf(path), encodeIndexFile(contents));
      } catch (error) {
        if (!(error instanceof BucketError)) throw error;
        this.options.onIndexProblem(error); // the index works without its file; the next open rebuilds it
      }
    }
    return index;
  }
}

/** Accumulates the page table: one entry per page window that some record starts in. */
class PageTableBuilder {
  readonly filterHashes: FuseHashCollector;
  private pageOffsets = new Float64Array(256);
  private keyStarts = new Uint32Array(513);
  private keyBytes = new Uint8Array(16384);
  private keyBytesLength = 0;
  private keysAppended = 0;
  private pageCount = 0;
  private pageUpperBound = 0;
  // The newest key, copied: it becomes the page's last key when the next page starts.
  private lastKey = new Uint8Array(256);
  private lastKeyLength = -1;

  constructor(private readonly pageSize: number) {
    // A random seed per index, as stellar-core's: hash collisions cannot be aimed at from outside.
    this.filterHashes = new FuseHashCollector(randomBytes(8).readBigUInt64LE(0));
  }

  add(key: Uint8Array, offset: number): void {
    this.filterHashes.add(key);
    if (offset >= this.pageUpperBound) {
      if (this.lastKeyLength >= 0) this.appendKey(this.lastKey.subarray(0, this.lastKeyLength));
      if (this.pageCount === this.pageOffsets.length) {
        const grownOffsets = new Float64Array(this.pageCount * 2);
        grownOffsets.set(this.pageOffsets);
        this.pageOffsets = grownOffsets;
        const grownStarts = new Uint32Array(this.pageCount * 4 + 1);
        grownStarts.set(this.keyStarts);
        this.keyStarts = grownStarts;
      }
      this.pageOffsets[this.pageCount++] = offset;
      this.appendKey(key);
      this.pageUpperBound = Math.floor(offset / this.pageSize) * this.pageSize + this.pageSize;
    }
    if (key.length > this.lastKey.length) this.lastKey = new Uint8Array(key.length * 2);
    this.lastKey.set(key);
    this.lastKeyLength = key.length;
  }

  finish(): PageTable {
    if (this.lastKeyLength >= 0) this.appendKey(this.lastKey.subarray(0, this.lastKeyLength));
    return {
      pageSize: this.pageSize,
      pageCount: this.pageCount,
      pageOffsets: this.pageOffsets.slice(0, this.pageCount),
      keyStarts: this.keyStarts.slice(0, 2 * this.pageCount + 1),
      keyBytes: this.keyBytes.slice(0, this.keyBytesLength),
    };
  }

  /** Appends a key and records where the following one starts (keyStarts[0] = 0 is there from the start). */
  private appendKey(key: Uint8Array): void {
    const end = this.keyBytesLength + key.length;
    if (end > 0xffffffff) throw new BucketError('INVALID_ARGUMENT', 'page keys exceed 4 GiB; use a larger page size');
    if (end > this.keyBytes.length) {
      const grown = new Uint8Array(Math.max(end, this.keyBytes.length * 2));
      grown.set(this.keyBytes.subarray(0, this.keyBytesLength));
      this.keyBytes = grown;
    }
    this.keyBytes.set(key, this.keyBytesLength);
    this.keyBytesLength = end;
    this.keyStarts[++this.keysAppended] = end;
  }
}

function openBucket(bucket: BucketFile): number {
  const path = bucket.path!;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw ioError(error, path, 'open bucket');
  }
  const size = fstatSync(fd).size;
  if (size !== bucket.size) {
    closeSync(fd);
    throw new BucketError('TRUNCATED', `bucket file of ${size} bytes, its descriptor says ${bucket.size}`, {
      file: path,
    });
  }
  return fd;
}

function readWholeBucket(bucket: BucketFile): Uint8Array {
  const path = bucket.path!;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw ioError(error, path, 'read bucket');
  }
  if (bytes.length !== bucket.size) {
    throw new BucketError('TRUNCATED', `bucket file of ${bytes.length} bytes, its descriptor says ${bucket.size}`, {
      file: path,
    });
  }
  return bytes;
}

/** Scans the bucket file and builds (and persists, if enabled) its page index. */
function buildPageIndexFromFile(bucket: BucketFile, options: ResolvedOptions): PageIndex {
  const path = bucket.path!;
  const builder = new BucketIndexBuilder(
    { path, kind: bucket.kind, size: bucket.size },
    { ...options, inMemoryCutoff: 0 },
  );
  const reader = new RecordReader(path);
  try {
    for (let first = true; reader.next(); first = false) {
      const payload = reader.payload;
      if (first && payload.length >= 4 && recordType(payload) === META) continue;
      builder.add(payload, reader.recordOffset);
    }
  } finally {
    reader.close();
  }
  const index = builder.finish(bucket);
  assert(index instanceof PageIndex, 'a builder with a zero cutoff makes a page index');
  return index;
}

/** Loads `bucket-<hash>.index` if it is usable for this bucket and configuration; reports why not otherwise. */
function loadPageIndex(bucket: BucketFile, options: ResolvedOptions): BucketIndex | undefined {
  const path = bucket.path!;
  const indexPath = indexPathOf(path);
  let bytes: Uint8Array | string | undefined;
  try {
    // A sound index is well under 3 bytes per bucket byte (two keys per page, 2.25 filter bytes per record).
    bytes = readIndexFile(indexPath, 3 * bucket.size + (1 << 20));
  } catch (error) {
    if (!(error instanceof BucketError)) throw error;
    options.onIndexProblem(error);
    return undefined;
  }
  if (bytes === undefined) return undefined;
  const contents =
    typeof bytes === 'string'
      ? bytes
      : decodeIndexFile(bytes, {
          hash: bucket.hash,
          kind: bucket.kind,
          fileSize: bucket.size,
          entries: bucket.entries,
          pageSize: options.pageSize,
        });
  if (typeof contents === 'string') {
    options.onIndexProblem(new BucketError('BAD_INDEX', `${contents}; rebuilding`, { file: indexPath }));
    return undefined;
  }
  const index = new PageIndex(
    openBucket(bucket),
    path,
    bucket.size,
    contents.table,
    contents.filter,
    typeRangeMap(contents.types, contents.typeStarts, bucket.size),
    {
      report: options.onIndexProblem,
      rebuild: () => buildPageIndexFromFile(bucket, options),
    },
  );
  let refused: string | undefined;
  try {
    refused = index.checkClaims();
  } catch (error) {
    index.close();
    throw error;
  }
  if (refused === undefined) return index;
  index.close();
  options.onIndexProblem(
    new BucketError('BAD_INDEX', `${refused}: the bucket contradicts its index; rebuilding`, { file: indexPath }),
  );
  return undefined;
}

/**
 * Opens the index of a verified bucket: an in-memory index for a file under the cutoff; otherwise the persisted
 * `bucket-<hash>.index` if present, valid for this bucket, version and page size, and not contradicted by the
 * bucket where it is checked (FORMAT.md, "Checks on load"), else one built by scanning the file (and persisted). The
 * empty bucket (no path) gets an empty index. A bad index file is never an error: it is reported to `onIndexProblem`
 * and rebuilt, also when a later page read or scan finds the bucket contradicting it. A missing or unreadable bucket
 * file is an error (MISSING_BUCKET, IO).
 */
export function openBucketIndex(bucket: BucketFile, options: IndexOptions = {}): BucketIndex {
  requireBucketFile(bucket, 'bucket');
  const resolved = resolveOptions(options);
  if (bucket.path === undefined) return new EmptyIndex();
  if (bucket.size < resolved.inMemoryCutoff) {
    const bytes = readWholeBucket(bucket);
    const { offsets, typeRanges } = scanRecords(bytes, bucket.path);
    return new InMemoryIndex(bytes, offsets, typeRanges.finish(bucket.size));
  }
  return loadPageIndex(bucket, resolved) ?? buildPageIndexFromFile(bucket, resolved);
}
