// The shapes every bucket index shares (the in-memory and page indexes implement BucketIndex; bucket-index.ts opens
// them), in a file of their own so the implementations depend on these types and not on the module that builds them.
import type { BucketError } from '../errors.js';

export interface IndexOptions {
  /** Page window in bytes, a power of two from 16 to 2^30. Default 16384 (2^14). */
  pageSize?: number;
  /** Buckets smaller than this many bytes get the in-memory index. Default 20 MiB; 0 = always a page index. */
  inMemoryCutoff?: number;
  /** Write `bucket-<hash>.index` for page indexes. Default true. */
  persist?: boolean;
  /**
   * Told about problems that are handled, not thrown: an index file that was refused and rebuilt (BAD_INDEX, the
   * reason in `detail`), or one that could not be read or written (IO). Default: ignore.
   */
  onIndexProblem?: (problem: BucketError) => void;
}

/** File offsets [start, end) of the records of one LedgerEntryType. */
export interface TypeRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The index of one bucket. Its answers are the bucket's and do not change (a page index loaded from its file that
 * the bucket contradicts replaces its parts with a rebuilt index's, `typeRanges` included); single-threaded (lookups
 * share a read buffer), so each thread opens its own. Lookups read the bucket file, which must not change while the
 * index is open (bucket files never do: they are named by their hash).
 */
export interface BucketIndex {
  readonly kind: 'in-memory' | 'page';
  /** LedgerEntryType → range; the last type's range ends at the file size. */
  readonly typeRanges: ReadonlyMap<number, TypeRange>;
  /** The record payload (BucketEntry XDR, a fresh copy) whose key equals `key` (LedgerKey XDR), or undefined. */
  lookup(key: Uint8Array): Uint8Array | undefined;
  /** Bulk: for keys sorted ascending by compareLedgerKeys, calls found(i, payload) for each key present (forward scan, each page read once). */
  lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void;
  /** Approximate bytes of memory held. */
  readonly memoryBytes: number;
  /** Releases the file descriptor of a page index; lookups after close throw CLOSED. */
  close(): void;
}
