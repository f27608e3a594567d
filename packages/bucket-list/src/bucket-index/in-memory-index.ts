// The index of a small bucket (stellar-core's InMemoryIndex): the whole file held in one buffer plus the offset of
// every non-META record, searched by binary search with the ledger-key comparators. Where core keeps a hash set of
// decoded entries, this keeps the file bytes and 4 bytes per record; no object per entry.
import { requireFunction } from '../arguments.js';
import { BucketError } from '../errors.js';
import { META } from '../kind.js';
import {
  checkAscending,
  checkQueryKey,
  comparePrefixes,
  compareRecordToKey,
  int32At,
  keyPrefix,
  recordKeyPrefix,
  recordLengthAt,
} from './record-key.js';
import { TypeRangeTracker } from './type-ranges.js';
import type { BucketIndex, TypeRange } from './types.js';

export class InMemoryIndex implements BucketIndex {
  readonly kind = 'in-memory';
  /** Three key-prefix words per record (record-key.ts): most binary-search steps never run the full comparator. */
  private readonly prefixes: Uint32Array;
  private readonly queryPrefix = new Uint32Array(3);

  /**
   * @param bytes the whole bucket file
   * @param recordOffsets the mark offset of each non-META record, ascending (validated by `scanRecords`)
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly recordOffsets: Uint32Array,
    readonly typeRanges: ReadonlyMap<number, TypeRange>,
  ) {
    this.prefixes = new Uint32Array(3 * recordOffsets.length);
    for (let i = 0; i < recordOffsets.length; i++) {
      const at = recordOffsets[i]!;
      const length = int32At(bytes, at) & 0x7fffffff;
      recordKeyPrefix(bytes, at + 4, at + 4 + length, this.prefixes, 3 * i);
    }
  }

  get memoryBytes(): number {
    const arrays = this.bytes.byteLength + this.recordOffsets.byteLength + this.prefixes.byteLength;
    return arrays + 64 * (this.typeRanges.size + 1);
  }

  lookup(key: Uint8Array): Uint8Array | undefined {
    checkQueryKey(key);
    const i = this.lowerBound(key, 0);
    return i >= 0 && this.matches(i, key) ? this.payloadCopy(i) : undefined;
  }

  lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void {
    checkAscending(keys);
    requireFunction(found, 'found');
    let from = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const at = this.lowerBound(key, from);
      if (at < 0) return; // every remaining key sorts after the last record
      from = at;
      if (this.matches(at, key)) found(i, this.payloadCopy(at));
    }
  }

  close(): void {}

  /** Index of the first record ≥ key at or after `from`, or -1 if there is none. */
  private lowerBound(key: Uint8Array, from: number): number {
    keyPrefix(key, this.queryPrefix, 0);
    let lo = from;
    let hi = this.recordOffsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = comparePrefixes(this.prefixes, 3 * mid, this.queryPrefix, 0) || this.compareAt(mid, key);
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.recordOffsets.length ? lo : -1;
  }

  private matches(i: number, key: Uint8Array): boolean {
    return this.compareAt(i, key) === 0;
  }

  private compareAt(i: number, key: Uint8Array): number {
    const at = this.recordOffsets[i]!;
    const length = int32At(this.bytes, at) & 0x7fffffff;
    return compareRecordToKey(this.bytes, at + 4, at + 4 + length, key);
  }

  private payloadCopy(i: number): Uint8Array {
    const at = this.recordOffsets[i]!;
    const length = int32At(this.bytes, at) & 0x7fffffff;
    return this.bytes.slice(at + 4, at + 4 + length);
  }
}

/**
 * Walks the record marks of a whole bucket file held in `bytes`: the offsets of the non-META records and their type
 * ranges. Throws BAD_RECORD_MARK / TRUNCATED when the bytes are not a record stream (a verified bucket always is).
 */
export function scanRecords(bytes: Uint8Array, file: string): { offsets: Uint32Array; typeRanges: TypeRangeTracker } {
  const end = bytes.length;
  let offsets = new Uint32Array(Math.max(16, Math.min(end >>> 5, 1 << 20)));
  let count = 0;
  const typeRanges = new TypeRangeTracker();
  for (let at = 0; at < end; ) {
    const length = recordLengthAt(bytes, at, end);
    if (length < 0) {
      const truncated = at + 4 > end || at + 4 + (int32At(bytes, at) & 0x7fffffff) > end;
      throw new BucketError(truncated ? 'TRUNCATED' : 'BAD_RECORD_MARK', 'not a record stream', { file, offset: at });
    }
    if (!(at === 0 && int32At(bytes, 4) === META)) {
      if (count === offsets.length) {
        const grown = new Uint32Array(offsets.length * 2);
        grown.set(offsets);
        offsets = grown;
      }
      offsets[count++] = at;
      typeRanges.add(bytes, at + 4, at + 4 + length, at);
    }
    at += 4 + length;
  }
  return { offsets: offsets.slice(0, count), typeRanges };
}
