// Type ranges (stellar-core BucketIndex::getRangeForType): for each LedgerEntryType present in a bucket, the file
// offsets [first record of the type, first record of the next type), the last type ending at the file size. Records
// are sorted by key and a key sorts by its type first, so each type is one contiguous run.

import { recordEntryType } from './record-key.js';
import type { TypeRange } from './types.js';

export class TypeRangeTracker {
  readonly types: number[] = [];
  readonly starts: number[] = [];

  /** Notes the record whose payload is bytes[start, end) and whose mark is at file offset `offset`. */
  add(bytes: Uint8Array, start: number, end: number, offset: number): void {
    this.addType(recordEntryType(bytes, start, end), offset);
  }

  addType(type: number, offset: number): void {
    const last = this.types.length - 1;
    if (last >= 0 && this.types[last] === type) return;
    this.types.push(type);
    this.starts.push(offset);
  }

  /** The ranges, the last one ending at `fileSize`. */
  finish(fileSize: number): Map<number, TypeRange> {
    return typeRangeMap(this.types, this.starts, fileSize);
  }
}

/** A frozen-entry map from parallel arrays of types and start offsets (each range ends where the next starts). */
export function typeRangeMap(
  types: readonly number[],
  starts: readonly number[],
  fileSize: number,
): Map<number, TypeRange> {
  const ranges = new Map<number, TypeRange>();
  for (let i = 0; i < types.length; i++) {
    // A type seen twice means unsorted records; keep its first run (a verified bucket never has this).
    if (ranges.has(types[i]!)) continue;
    ranges.set(types[i]!, Object.freeze({ start: starts[i]!, end: i + 1 < starts.length ? starts[i + 1]! : fileSize }));
  }
  return ranges;
}
