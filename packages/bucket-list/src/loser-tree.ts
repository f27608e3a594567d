// The loser tree of the current-live-entries scan (stellar-core PR #5252, spec §7.1): a k-way merge over one cursor
// per bucket, newest first, that yields each key's newest version once, skipping tombstones. The snapshot
// (snapshot.ts) opens the cursors; the tree reads them in key order.
import { OrderKey } from '@strata/ledger-key';
import type { PageScanCheck } from './bucket-index/page-index.js';
import { entryError } from './errors.js';
import { DEAD_ENTRY } from './kind.js';
import type { RecordReader } from './record-io.js';

/** One input of the tree: a reader over one type's records in one bucket, and its index's scan check (if any). */
export interface LoserTreeCursor {
  readonly reader: RecordReader;
  readonly check: PageScanCheck | undefined;
}

/**
 * The loser tree over one cursor per slot (spec §7.1). Leaves t[n..2n) hold cursor indices (-1 when exhausted);
 * internal nodes t[1..n) the loser of the match played there; t[0] the winner. "a beats b": an exhausted cursor
 * never wins; otherwise the smaller key, and on equal keys the smaller index (the newer bucket).
 */
export class LoserTree {
  private readonly readers: RecordReader[] = [];
  /** Each cursor's check of its bucket's loaded index (undefined for indexes built from the bucket). */
  private readonly checks: (PageScanCheck | undefined)[] = [];
  private readonly tree: Int32Array;
  private readonly n: number;
  /** Each cursor's current key as an order key (memcmp order = key order), made once per record. */
  private readonly keys: OrderKey[] = [];
  /** The last key taken off the tree, to skip the older versions that follow it. */
  private readonly lastKey = new OrderKey();
  private hasLast = false;
  /** The last live record taken off the tree, copied before its cursor moved on; entries are views of it. */
  private last: Uint8Array = new Uint8Array(512);

  /**
   * `cursors`: one per bucket, newest first, each a reader over one type's range (positioned before its first
   * record) and the check of that bucket's loaded index, if any. The tree owns the readers: `close` closes them.
   */
  constructor(cursors: readonly LoserTreeCursor[]) {
    for (const cursor of cursors) {
      this.readers.push(cursor.reader);
      this.checks.push(cursor.check);
      this.keys.push(new OrderKey());
    }
    const n = this.readers.length;
    this.n = n;
    this.tree = new Int32Array(Math.max(2 * n, 1)).fill(-1);
    try {
      for (let j = 0; j < n; j++) this.tree[n + j] = this.advance(j) ? j : -1;
    } catch (error) {
      this.close();
      throw error;
    }
    if (n > 0) this.tree[0] = this.build(1);
  }

  /** The next live entry (a view valid until the next call), or undefined when every cursor is done. */
  next(): Uint8Array | undefined {
    const t = this.tree;
    for (;;) {
      const w = t[0]!;
      if (w < 0) return undefined;
      const key = this.keys[w]!;
      let result: Uint8Array | undefined;
      if (!this.hasLast || key.compare(this.lastKey) !== 0) {
        // The newest version of a new key (older versions of it follow and compare equal to lastKey).
        this.lastKey.setFrom(key);
        this.hasLast = true;
        const reader = this.readers[w]!;
        const buffer = reader.buffer;
        const start = reader.payloadStart;
        const end = reader.payloadEnd;
        if (buffer[start + 3] !== DEAD_ENTRY || buffer[start] !== 0) {
          // Copied before the cursor moves on (a refill may overwrite its read buffer).
          const length = end - start - 4;
          if (length > this.last.length) this.last = new Uint8Array(length * 2);
          this.last.set(buffer.subarray(start + 4, end));
          result = this.last.subarray(0, length);
        }
      }
      // Replace the winner by its cursor's next record and replay its path to the root.
      let candidate = this.advance(w) ? w : -1;
      t[this.n + w] = candidate;
      for (let i = (this.n + w) >> 1; i >= 1; i >>= 1) {
        const stored = t[i]!;
        if (this.beats(stored, candidate)) {
          t[i] = candidate;
          candidate = stored;
        }
      }
      t[0] = candidate;
      if (result !== undefined) return result;
    }
  }

  close(): void {
    for (const reader of this.readers) reader.close();
  }

  private build(node: number): number {
    if (node >= this.n) return this.tree[node]!;
    const left = this.build(2 * node);
    const right = this.build(2 * node + 1);
    if (this.beats(left, right)) {
      this.tree[node] = right;
      return left;
    }
    this.tree[node] = left;
    return right;
  }

  /** Moves cursor j to its next record and makes its order key; false when its type range is done. */
  private advance(j: number): boolean {
    const reader = this.readers[j]!;
    if (!reader.next()) return false;
    const buffer = reader.buffer;
    const start = reader.payloadStart;
    this.checks[j]?.record(buffer, start, reader.payloadEnd, reader.recordOffset);
    const tombstone =
      buffer[start] === 0 && buffer[start + 1] === 0 && buffer[start + 2] === 0 && buffer[start + 3] === DEAD_ENTRY;
    try {
      if (tombstone) this.keys[j]!.setFromKey(buffer, start + 4, reader.payloadEnd);
      else this.keys[j]!.setFromEntry(buffer, start + 4);
    } catch (error) {
      entryError(error, reader.path, reader.recordOffset + 8);
    }
    return true;
  }

  /** a beats b: an exhausted cursor never wins; else the smaller key; on equal keys the newer slot (smaller index). */
  private beats(a: number, b: number): boolean {
    if (a < 0) return false;
    if (b < 0) return true;
    const order = this.keys[a]!.compare(this.keys[b]!);
    return order < 0 || (order === 0 && a < b);
  }
}
