// The in-memory term index of one hot chunk (spec §3.4, with the #973 fix): term key → the ascending ordinals that
// hold the term. A term with at most `threshold` ordinals is a sorted run in one shared Uint32Array arena; past the
// threshold it is promoted to a roaring bitmap the writer mutates in place. Readers never see the writer's bitmap:
// the first lookup after a write freezes a clone (the term's snapshot), which every later lookup shares until the
// next write to that term. So a write costs one add, never a clone, and a read costs at most one clone per term per
// write burst.
//
// Layout, for memory (~1.9 M terms in a full pubnet chunk): keys are 4 uint32 words in one typed array, found
// through an open-addressing table of term ids; per term a start and a length (DENSE for bitmaps) and the last slab
// it was posted in. No object per sparse term.
import { assert } from '@strata/base';
import { type OrdinalWindow, type ReadonlyBitmap, TERM_KEY_BYTES } from '@strata/events';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;

/** log2 of a slab: 65,536 ordinals, one roaring container (the unit of sealing and of the match engine's walk). */
export const SLAB_SHIFT = 16;

/**
 * Sparse terms hold at most this many ordinals as a sorted array; the next one promotes the term to a roaring
 * bitmap. Chosen by measurement (README "Storage settings"): below it an array costs 4 bytes per ordinal and a
 * lookup copies it into a fresh bitmap; above it a bitmap is smaller and a lookup shares a snapshot.
 */
export const PROMOTION_THRESHOLD = 64;

/** lengths[] value of a dense (bitmap) term; its starts[] entry is then an index into `dense`. */
const DENSE = 0xffff_ffff;

/** A promoted term: the writer's private bitmap and the frozen snapshot readers share (undefined after a write). */
interface DenseTerm {
  readonly bitmap: roaring.RoaringBitmap32;
  snapshot: roaring.RoaringBitmap32 | undefined;
}

/** Counts for memory accounting and tests. */
export interface TermIndexStats {
  readonly terms: number;
  readonly denseTerms: number;
  readonly sparseOrdinals: number;
  /** Bytes of the typed arrays (keys, table, per-term arrays, arena), excluding bitmaps. */
  readonly arrayBytes: number;
}

function grown(array: Uint32Array<ArrayBuffer>, need: number): Uint32Array<ArrayBuffer> {
  if (need <= array.length) return array;
  let size = array.length;
  while (size < need) size *= 2;
  const next = new Uint32Array(size);
  next.set(array);
  return next;
}

/** Smallest power of two ≥ n (n ≥ 1), as the arena's size classes. */
function capacityOf(length: number): number {
  return length === 0 ? 0 : 2 ** Math.ceil(Math.log2(length));
}

/** First index in a[from, to) whose value is ≥ value. */
function lowerBound(a: Uint32Array, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Not thread-safe and not shared between threads: one writer (the owning store, or a worker reader catching up)
 * mutates it, and lookups run on the same thread between mutations. Lookups return frozen bitmaps that stay valid
 * and unchanged forever (they share no storage with the index).
 */
export class TermIndex {
  readonly threshold: number;
  private termCount = 0;
  /** 4 little-endian words per term id. */
  private keyWords = new Uint32Array(4 * 1024);
  /** Open addressing: term id + 1, 0 = empty. Kept at most half full. */
  private table = new Int32Array(2048);
  private starts = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);
  /** Last slab each term got an ordinal in (-1: none), to list the terms each unsealed slab touched. */
  private lastSlab = new Int32Array(1024).fill(-1);
  private arena = new Uint32Array(1 << 16);
  private arenaUsed = 0;
  /** Free arena segments by size class (log2 of the capacity). */
  private readonly free: number[][] = [];
  private readonly dense: DenseTerm[] = [];
  /** addEvents scratch: per dense term its slot among the call's touched terms (-1: none), and the postings. */
  private denseSlot = new Int32Array(1024).fill(-1);
  private pendingTerms = new Uint32Array(1024);
  private pendingOrdinals = new Uint32Array(1024);
  private grouped = new Uint32Array(1024);
  /** Term ids first posted in each slab not yet sealed, in first-posting order. */
  private readonly touched = new Map<number, number[]>();
  private sealedBelow = 0;

  constructor(threshold = PROMOTION_THRESHOLD) {
    assert(Number.isInteger(threshold) && threshold >= 1 && threshold <= 4096, 'promotion threshold in 1..4096');
    this.threshold = threshold;
  }

  get size(): number {
    return this.termCount;
  }

  /**
   * Adds the events `first`, `first + 1`, ... of one ingest call: event e's terms are the next `termCounts[e]` keys
   * of `keys` (16 bytes each, in order). Sparse terms take each ordinal as it comes; the ordinals of dense terms are
   * gathered and added with one addMany per term (one native call per term and call instead of one per posting).
   */
  addEvents(keys: Uint8Array, termCounts: Uint8Array, events: number, first: number): void {
    let postings = 0;
    for (let e = 0; e < events; e++) postings += termCounts[e]!;
    if (this.pendingTerms.length < postings) {
      this.pendingTerms = new Uint32Array(postings * 2);
      this.pendingOrdinals = new Uint32Array(postings * 2);
    }
    while (this.denseSlot.length < this.dense.length) this.growDenseSlots();
    const touched: number[] = [];
    const counts: number[] = [];
    let pending = 0;
    let k = 0;
    for (let e = 0; e < events; e++) {
      const ordinal = first + e;
      const n = termCounts[e]!;
      for (let t = 0; t < n; t++) {
        const id = this.intern(keys, (k + t) * TERM_KEY_BYTES);
        if (this.lengths[id] !== DENSE) {
          this.append(id, ordinal);
          continue;
        }
        this.noteSlab(id, ordinal);
        const d = this.starts[id]!;
        if (this.denseSlot.length <= d) this.growDenseSlots();
        let slot = this.denseSlot[d]!;
        if (slot < 0) {
          slot = touched.length;
          this.denseSlot[d] = slot;
          touched.push(d);
          counts.push(0);
        }
        counts[slot]!++;
        this.pendingTerms[pending] = slot;
        this.pendingOrdinals[pending++] = ordinal;
      }
      k += n;
    }
    if (pending === 0) return;
    // Counting sort of the pending postings by term (stable: each term's ordinals stay ascending).
    const starts = new Array<number>(touched.length);
    let at = 0;
    for (let slot = 0; slot < touched.length; slot++) {
      starts[slot] = at;
      at += counts[slot]!;
    }
    if (this.grouped.length < pending) this.grouped = new Uint32Array(this.pendingOrdinals.length);
    const fill = starts.slice();
    for (let p = 0; p < pending; p++) this.grouped[fill[this.pendingTerms[p]!]!++] = this.pendingOrdinals[p]!;
    for (let slot = 0; slot < touched.length; slot++) {
      const d = touched[slot]!;
      const term = this.dense[d]!;
      const from = starts[slot]!;
      const to = from + counts[slot]!;
      if (to - from === 1) term.bitmap.add(this.grouped[from]!);
      else term.bitmap.addMany(this.grouped.subarray(from, to));
      term.snapshot = undefined; // the next reader takes a new snapshot; the writer never clones
      this.denseSlot[d] = -1;
    }
  }

  /** Adds ascending `ordinals` (all above the term's current ones) to the term `key[at, at + 16)`. */
  addSorted(key: Uint8Array, at: number, ordinals: ArrayLike<number>): void {
    const id = this.intern(key, at);
    for (let i = 0; i < ordinals.length; i++) this.append(id, ordinals[i]!);
  }

  /**
   * ORs `bitmap` (ordinals all above the term's current ones, more than `threshold` of them; taken over by the index,
   * the caller must not use it afterwards) into the term `key[at, at + 16)`. For rebuilding sealed slabs.
   */
  addBitmap(key: Uint8Array, at: number, bitmap: roaring.RoaringBitmap32): void {
    const id = this.intern(key, at);
    const length = this.lengths[id]!;
    if (length === DENSE) {
      const term = this.dense[this.starts[id]!]!;
      term.bitmap.orInPlace(bitmap);
      term.snapshot = undefined;
      return;
    }
    assert(bitmap.size > this.threshold, 'a sealed bitmap holds more ordinals than the threshold');
    if (length > 0) bitmap.addMany(this.arena.subarray(this.starts[id]!, this.starts[id]! + length));
    this.releaseSegment(id);
    this.starts[id] = this.dense.length;
    this.lengths[id] = DENSE;
    this.dense.push({ bitmap, snapshot: undefined });
  }

  /**
   * The term's ordinals as a frozen bitmap exact inside `window`, or undefined when it has none there. Dense terms
   * answer with their shared snapshot (whole term), sparse ones with a fresh bitmap of the window's part.
   */
  lookup(key: Uint8Array, window: OrdinalWindow): ReadonlyBitmap | undefined {
    const id = this.find(key, 0);
    if (id < 0 || window.start >= window.end) return undefined;
    const length = this.lengths[id]!;
    if (length === DENSE) {
      const term = this.dense[this.starts[id]!]!;
      let snapshot = term.snapshot;
      if (snapshot === undefined) {
        snapshot = term.bitmap.clone().freeze();
        term.snapshot = snapshot;
      }
      return snapshot.rangeCardinality(window.start, window.end) === 0 ? undefined : snapshot;
    }
    const start = this.starts[id]!;
    const lo = lowerBound(this.arena, start, start + length, window.start);
    const hi = lowerBound(this.arena, lo, start + length, window.end);
    if (lo === hi) return undefined;
    return new RoaringBitmap32(this.arena.subarray(lo, hi)).freeze();
  }

  /** Term ids that got an ordinal in `slab` (a slab not yet sealed), each once. */
  termsOfSlab(slab: number): readonly number[] {
    return this.touched.get(slab) ?? [];
  }

  /** Copies term `id`'s key into out[at, at + 16). */
  keyInto(id: number, out: Uint8Array, at: number): void {
    for (let w = 0; w < 4; w++) {
      const word = this.keyWords[id * 4 + w]!;
      out[at + w * 4] = word & 0xff;
      out[at + w * 4 + 1] = (word >>> 8) & 0xff;
      out[at + w * 4 + 2] = (word >>> 16) & 0xff;
      out[at + w * 4 + 3] = word >>> 24;
    }
  }

  /** Term `id`'s ordinals in [lo, hi), ascending; the array may be a view into the index valid until its next write. */
  ordinalsIn(id: number, lo: number, hi: number): Uint32Array {
    const length = this.lengths[id]!;
    if (length === DENSE) {
      const bitmap = this.dense[this.starts[id]!]!.bitmap;
      const from = lo === 0 ? 0 : bitmap.rank(lo - 1);
      const count = bitmap.rank(hi - 1) - from;
      return count === 0 ? new Uint32Array(0) : bitmap.rangeUint32Array(from, count);
    }
    const start = this.starts[id]!;
    const a = lowerBound(this.arena, start, start + length, lo);
    return this.arena.subarray(a, lowerBound(this.arena, a, start + length, hi));
  }

  /** Slabs below `slabs` are sealed: their touched-term lists are dropped and no longer kept. */
  markSealed(slabs: number): void {
    for (const slab of [...this.touched.keys()]) if (slab < slabs) this.touched.delete(slab);
    this.sealedBelow = Math.max(this.sealedBelow, slabs);
  }

  /** Every term as hex key → ascending ordinals (tests compare indexes with it; O(postings)). */
  dump(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    const key = new Uint8Array(TERM_KEY_BYTES);
    for (let id = 0; id < this.termCount; id++) {
      this.keyInto(id, key, 0);
      out.set(Buffer.from(key).toString('hex'), Array.from(this.ordinalsIn(id, 0, 0x1_0000_0000)));
    }
    return out;
  }

  stats(): TermIndexStats {
    let sparseOrdinals = 0;
    for (let id = 0; id < this.termCount; id++) if (this.lengths[id] !== DENSE) sparseOrdinals += this.lengths[id]!;
    const arrayBytes =
      this.keyWords.byteLength +
      this.table.byteLength +
      this.starts.byteLength +
      this.lengths.byteLength +
      this.lastSlab.byteLength +
      this.arena.byteLength;
    return { terms: this.termCount, denseTerms: this.dense.length, sparseOrdinals, arrayBytes };
  }

  // ---- internals ----

  /** The probe's key words (set by slotOf, read by intern). */
  private readonly probeWords = new Uint32Array(4);

  /** The table slot holding the key key[at, at + 16), or the empty slot where it would go. */
  private slotOf(key: Uint8Array, at: number): number {
    const probe = this.probeWords;
    for (let w = 0; w < 4; w++) probe[w] = readWord(key, at + w * 4);
    const [w0, w1, w2, w3] = probe as unknown as [number, number, number, number];
    const mask = this.table.length - 1;
    const words = this.keyWords;
    for (let slot = w0 & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return slot;
      const k = (entry - 1) * 4;
      if (words[k] === w0 && words[k + 1] === w1 && words[k + 2] === w2 && words[k + 3] === w3) return slot;
    }
  }

  /** Term id of key[at, at + 16), or -1. */
  private find(key: Uint8Array, at: number): number {
    return this.table[this.slotOf(key, at)]! - 1;
  }

  /** Term id of key[at, at + 16), created (empty) when new. */
  private intern(key: Uint8Array, at: number): number {
    const slot = this.slotOf(key, at);
    const entry = this.table[slot]!;
    if (entry !== 0) return entry - 1;
    const id = this.termCount++;
    if (id >= this.starts.length) this.growTerms();
    this.keyWords = grown(this.keyWords, (id + 1) * 4);
    this.keyWords.set(this.probeWords, id * 4);
    this.table[slot] = id + 1;
    if (this.termCount * 2 > this.table.length) this.rehash();
    return id;
  }

  private growTerms(): void {
    const size = this.starts.length * 2;
    this.starts = grown(this.starts, size);
    this.lengths = grown(this.lengths, size);
    const lastSlab = new Int32Array(size).fill(-1);
    lastSlab.set(this.lastSlab);
    this.lastSlab = lastSlab;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.termCount; id++) {
      let slot = this.keyWords[id * 4]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }

  private growDenseSlots(): void {
    const slots = new Int32Array(this.denseSlot.length * 2).fill(-1);
    slots.set(this.denseSlot);
    this.denseSlot = slots;
  }

  /** Records that term `id` got an ordinal in the ordinal's slab (the slab's touched list, for sealing). */
  private noteSlab(id: number, ordinal: number): void {
    const slab = ordinal >>> SLAB_SHIFT;
    if (this.lastSlab[id] !== slab) {
      this.lastSlab[id] = slab;
      if (slab >= this.sealedBelow) {
        let list = this.touched.get(slab);
        if (list === undefined) {
          list = [];
          this.touched.set(slab, list);
        }
        list.push(id);
      }
    }
  }

  private append(id: number, ordinal: number): void {
    this.noteSlab(id, ordinal);
    const length = this.lengths[id]!;
    if (length === DENSE) {
      const term = this.dense[this.starts[id]!]!;
      term.bitmap.add(ordinal);
      term.snapshot = undefined; // the next reader takes a new snapshot; the writer never clones
      return;
    }
    const start = this.starts[id]!;
    assert(length === 0 || this.arena[start + length - 1]! < ordinal, 'ordinals of a term arrive ascending');
    if (length === this.threshold) {
      const bitmap = new RoaringBitmap32(this.arena.subarray(start, start + length));
      bitmap.add(ordinal);
      this.releaseSegment(id);
      this.starts[id] = this.dense.length;
      this.lengths[id] = DENSE;
      this.dense.push({ bitmap, snapshot: undefined });
      return;
    }
    const capacity = capacityOf(length);
    if (length === capacity) {
      const next = this.allocate(capacity === 0 ? 1 : capacity * 2);
      if (length > 0) this.arena.copyWithin(next, start, start + length);
      this.releaseSegment(id);
      this.starts[id] = next;
    }
    this.arena[this.starts[id]! + length] = ordinal;
    this.lengths[id] = length + 1;
  }

  private allocate(capacity: number): number {
    const free = this.free[Math.log2(capacity)];
    if (free !== undefined && free.length > 0) return free.pop()!;
    const at = this.arenaUsed;
    this.arenaUsed += capacity;
    this.arena = grown(this.arena, this.arenaUsed);
    return at;
  }

  /** Returns a sparse term's segment to its size class's free list (the term keeps its start until reassigned). */
  private releaseSegment(id: number): void {
    const capacity = capacityOf(this.lengths[id]!);
    if (capacity === 0) return;
    const cls = Math.log2(capacity);
    let list = this.free[cls];
    if (list === undefined) {
      list = [];
      this.free[cls] = list;
    }
    list.push(this.starts[id]!);
  }
}

/** The little-endian uint32 at key[at, at + 4). */
function readWord(key: Uint8Array, at: number): number {
  return (key[at]! | (key[at + 1]! << 8) | (key[at + 2]! << 16) | (key[at + 3]! << 24)) >>> 0;
}
