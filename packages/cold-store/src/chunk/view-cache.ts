// A least-recently-used map from index.pack slots to the term bitmaps a ColdChunkReader made of them (frozen views of
// roaring items, plain frozen bitmaps of delta-list items), bounded by the bytes they are estimated to hold. Each is
// read-only (mutation throws) and stays valid as long as it is referenced, so one bitmap can answer every lookup of
// its term; the cache only saves making it again (the native view or the list's decode and bitmap, the record's size
// group, the JS wrapper the garbage collector must later finalize).

/** Counters of a view cache. */
export interface ViewCacheStats {
  /** Views held now, and the bytes they are estimated to hold (never above `maxBytes`). */
  readonly views: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
  /** Views dropped to stay within `maxBytes`. */
  readonly evictions: number;
}

/**
 * Used from the JS thread only; every method is synchronous. A value larger than the whole bound is not kept.
 * Map keeps insertion order, so a hit re-inserts its entry at the end and eviction takes the first one.
 */
export class ViewCache<V> {
  private readonly entries = new Map<number, { readonly value: V; readonly bytes: number }>();
  private held = 0;
  private hitCount = 0;
  private missCount = 0;
  private evictionCount = 0;

  constructor(readonly maxBytes: number) {}

  get(slot: number): V | undefined {
    const entry = this.entries.get(slot);
    if (entry === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    this.entries.delete(slot);
    this.entries.set(slot, entry);
    return entry.value;
  }

  /** Keeps `value` for `slot` (replacing any), counting `bytes` against the bound; evicts the least recently used. */
  set(slot: number, value: V, bytes: number): void {
    const previous = this.entries.get(slot);
    if (previous !== undefined) {
      this.entries.delete(slot);
      this.held -= previous.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(slot, { value, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
      this.evictionCount++;
    }
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  get stats(): ViewCacheStats {
    return {
      views: this.entries.size,
      bytes: this.held,
      maxBytes: this.maxBytes,
      hits: this.hitCount,
      misses: this.missCount,
      evictions: this.evictionCount,
    };
  }
}
