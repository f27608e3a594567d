// Pilot search for one part (PtrHash's construction): buckets go in decreasing size; each takes the first pilot
// 0..255 whose slots are all free (and distinct); when there is none, the bucket takes the pilot whose collisions
// are cheapest (sum of the squared sizes of the buckets it hits) and evicts those buckets, which go back on a
// max-heap by size. A ring of the 16 most recently placed buckets may not be evicted, which breaks short cycles.
// The search is bounded; a part that needs more evictions than the bound fails the attempt, and the builder
// retries with another seed.
//
// Speed notes (this loop is most of the build): state is flat typed arrays sized once and reused for every part —
// a byte per slot for "taken" (the only thing the first-fit loop reads) and the owning bucket per slot (read only
// when evicting). Buckets of 1–4 keys, which take most of the pilot trials, have unrolled loops that test all their
// slots with one branch per pilot, so the CPU mispredicts once per bucket rather than once per pilot. Every choice
// is a function of the part's hashes and the seed, never of input order or timing.
import { slotOf, slotScaleOf } from './hash.js';

export const PlaceStatus = {
  OK: 0,
  /** The eviction bound was exceeded: retry with another seed. */
  EVICTION_LIMIT: 1,
  /** A bucket holds two keys with the same slot hash (same part, bucket and h3): no pilot separates them. */
  INDISTINGUISHABLE: 2,
  /** More keys than slots in this part (a guard: the builder gives every part at least as many slots as keys). */
  OVERFULL: 3,
} as const;
export type PlaceStatus = (typeof PlaceStatus)[keyof typeof PlaceStatus];

/** Slot hashes grouped by bucket: bucket g (global, part·B + b) is `slotHashes[bucketStarts[g], bucketStarts[g+1])`. */
export interface BucketedHashes {
  readonly slotHashes: Int32Array;
  readonly bucketStarts: Uint32Array;
}

const RECENT = 16;
const PILOTS = 256;

export class PartPlacer {
  private readonly taken: Uint8Array;
  private readonly owner: Int32Array;
  private readonly order: Uint32Array;
  private readonly heap: Float64Array;
  private readonly scratch: Int32Array;
  private readonly sizeCounts: Uint32Array;
  private readonly recent = new Int32Array(RECENT);
  private heapSize = 0;
  private rng = 1;
  /** Slots of the part being placed, times 2^-32: the factor `slotOf` scales a mixed hash by. */
  private slotScale = 0;
  /** Evictions made by the last `place` call (a statistic for tuning). */
  evictions = 0;
  /** After INDISTINGUISHABLE: the global bucket and the slot hash that two of its keys share. */
  clashBucket = -1;
  clashHash = 0;

  constructor(
    private readonly data: BucketedHashes,
    private readonly pilotHash: Int32Array,
    private readonly bucketsPerPart: number,
    /** Slots of the largest part: the size of the reused arrays. */
    maxPartSlots: number,
    maxBucketSize: number,
    /** Evictions allowed per part before the attempt is abandoned. */
    private readonly evictionLimit: number,
  ) {
    this.taken = new Uint8Array(maxPartSlots);
    this.owner = new Int32Array(maxPartSlots);
    this.order = new Uint32Array(bucketsPerPart);
    this.heap = new Float64Array(bucketsPerPart);
    this.scratch = new Int32Array(Math.max(4, maxBucketSize));
    this.sizeCounts = new Uint32Array(maxBucketSize + 2);
  }

  /**
   * Places every bucket of `part`, whose slots are `[slotStart, slotStart + slots)` of the function, writing pilots
   * to `pilots[part·B + b]` and marking taken slots in `slotTaken[slotStart + s]`. Returns a PlaceStatus.
   */
  place(
    part: number,
    slotStart: number,
    slots: number,
    pilots: Uint8Array,
    slotTaken: Uint8Array,
    seed: number,
  ): PlaceStatus {
    const { bucketStarts } = this.data;
    const B = this.bucketsPerPart;
    const S = slots;
    this.slotScale = slotScaleOf(S);
    const base = part * B;
    if (bucketStarts[base + B]! - bucketStarts[base]! > S) return PlaceStatus.OVERFULL;
    this.taken.fill(0, 0, S);
    this.owner.fill(-1, 0, S);
    this.evictions = 0;
    this.rng = (seed ^ Math.imul(part + 1, 0x9e3779b9)) | 1;
    this.sortBySize(base);

    const order = this.order;
    for (let i = 0; i < B; i++) {
      const bucket = order[i]!;
      const size = bucketStarts[base + bucket + 1]! - bucketStarts[base + bucket]!;
      if (size === 0) break; // sizes descend: the rest are empty and keep pilot 0
      if (this.placeFree(base, bucket, pilots)) continue;
      const status = this.placeEvicting(base, bucket, pilots);
      if (status !== PlaceStatus.OK) return status;
    }

    slotTaken.set(this.taken.subarray(0, S), slotStart);
    return PlaceStatus.OK;
  }

  /** Counting sort of the part's buckets by size, largest first; equal sizes keep bucket order. */
  private sortBySize(base: number): void {
    const { bucketStarts } = this.data;
    const counts = this.sizeCounts;
    const maxSize = counts.length - 2;
    counts.fill(0);
    const B = this.bucketsPerPart;
    for (let b = 0; b < B; b++) counts[maxSize - (bucketStarts[base + b + 1]! - bucketStarts[base + b]!)]!++;
    let position = 0;
    for (let k = 0; k <= maxSize; k++) {
      const count = counts[k]!;
      counts[k] = position;
      position += count;
    }
    for (let b = 0; b < B; b++) {
      const key = maxSize - (bucketStarts[base + b + 1]! - bucketStarts[base + b]!);
      this.order[counts[key]!++] = b;
    }
  }

  /** Claims `slot` for `bucket`. */
  private claim(slot: number, bucket: number): void {
    this.taken[slot] = 1;
    this.owner[slot] = bucket;
  }

  /** First pilot whose slots are all free and distinct; claims them. False when all 256 pilots collide. */
  private placeFree(base: number, bucket: number, pilots: Uint8Array): boolean {
    const { slotHashes, bucketStarts } = this.data;
    const start = bucketStarts[base + bucket]!;
    const size = bucketStarts[base + bucket + 1]! - start;
    const taken = this.taken;
    const pilotHash = this.pilotHash;
    const S = this.slotScale;

    if (size === 1) {
      const h = slotHashes[start]!;
      for (let pilot = 0; pilot < PILOTS; pilot++) {
        const s = slotOf(h, pilotHash[pilot]!, S);
        if (taken[s] === 0) {
          this.claim(s, bucket);
          pilots[base + bucket] = pilot;
          return true;
        }
      }
      return false;
    }
    if (size === 2) {
      const h0 = slotHashes[start]!;
      const h1 = slotHashes[start + 1]!;
      for (let pilot = 0; pilot < PILOTS; pilot++) {
        const hp = pilotHash[pilot]!;
        const s0 = slotOf(h0, hp, S);
        const s1 = slotOf(h1, hp, S);
        if ((taken[s0]! | taken[s1]!) === 0 && s0 !== s1) {
          this.claim(s0, bucket);
          this.claim(s1, bucket);
          pilots[base + bucket] = pilot;
          return true;
        }
      }
      return false;
    }
    if (size === 3) {
      const h0 = slotHashes[start]!;
      const h1 = slotHashes[start + 1]!;
      const h2 = slotHashes[start + 2]!;
      for (let pilot = 0; pilot < PILOTS; pilot++) {
        const hp = pilotHash[pilot]!;
        const s0 = slotOf(h0, hp, S);
        const s1 = slotOf(h1, hp, S);
        const s2 = slotOf(h2, hp, S);
        if ((taken[s0]! | taken[s1]! | taken[s2]!) === 0 && s0 !== s1 && s0 !== s2 && s1 !== s2) {
          this.claim(s0, bucket);
          this.claim(s1, bucket);
          this.claim(s2, bucket);
          pilots[base + bucket] = pilot;
          return true;
        }
      }
      return false;
    }
    return this.placeFreeLarge(base, bucket, start, size, pilots);
  }

  /** placeFree for buckets of 4 or more keys: slots tested four at a time, one branch per group. */
  private placeFreeLarge(base: number, bucket: number, start: number, size: number, pilots: Uint8Array): boolean {
    const { slotHashes } = this.data;
    const taken = this.taken;
    const pilotHash = this.pilotHash;
    const scratch = this.scratch;
    const S = this.slotScale;
    const end = start + size;
    const groupsEnd = start + (size & ~3);
    for (let pilot = 0; pilot < PILOTS; pilot++) {
      const hp = pilotHash[pilot]!;
      let bad = 0;
      let j = start;
      for (; j < groupsEnd; j += 4) {
        const s0 = slotOf(slotHashes[j]!, hp, S);
        const s1 = slotOf(slotHashes[j + 1]!, hp, S);
        const s2 = slotOf(slotHashes[j + 2]!, hp, S);
        const s3 = slotOf(slotHashes[j + 3]!, hp, S);
        const k = j - start;
        scratch[k] = s0;
        scratch[k + 1] = s1;
        scratch[k + 2] = s2;
        scratch[k + 3] = s3;
        bad = taken[s0]! | taken[s1]! | taken[s2]! | taken[s3]!;
        if (bad !== 0) break;
      }
      if (bad !== 0) continue;
      for (; j < end; j++) {
        const s = slotOf(slotHashes[j]!, hp, S);
        scratch[j - start] = s;
        bad |= taken[s]!;
      }
      if (bad !== 0) continue;
      // Every slot is free; claim them one by one, which also finds two keys of the bucket on one slot.
      let k = 0;
      for (; k < size; k++) {
        const s = scratch[k]!;
        if (taken[s] !== 0) break;
        taken[s] = 1;
      }
      if (k < size) {
        for (let u = 0; u < k; u++) taken[scratch[u]!] = 0;
        continue;
      }
      for (let u = 0; u < size; u++) this.owner[scratch[u]!] = bucket;
      pilots[base + bucket] = pilot;
      return true;
    }
    return false;
  }

  private nextRandom(): number {
    // xorshift32: deterministic per (seed, part), only picks where the eviction pilot scan starts.
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x;
    return x >>> 0;
  }

  private sizeOf(base: number, bucket: number): number {
    const { bucketStarts } = this.data;
    return bucketStarts[base + bucket + 1]! - bucketStarts[base + bucket]!;
  }

  /** Cuckoo-style placement of `first` with evictions, until no evicted bucket is left. */
  private placeEvicting(base: number, first: number, pilots: Uint8Array): PlaceStatus {
    const { slotHashes, bucketStarts } = this.data;
    const owner = this.owner;
    const pilotHash = this.pilotHash;
    const S = this.slotScale;
    const recent = this.recent;
    recent.fill(-1);
    recent[0] = first;
    let recentIndex = 0;
    this.heapSize = 0;
    this.push(this.sizeOf(base, first), first);
    let freeTried = true; // the caller already tried `first` without evictions

    while (this.heapSize > 0) {
      const bucket = this.pop();
      if (!freeTried && this.placeFree(base, bucket, pilots)) continue;
      freeTried = false;
      const start = bucketStarts[base + bucket]!;
      const end = bucketStarts[base + bucket + 1]!;
      const size = end - start;

      let bestScore = Number.POSITIVE_INFINITY;
      let bestPilot = -1;
      const firstPilot = this.nextRandom() & 255;
      for (let delta = 0; delta < PILOTS; delta++) {
        const pilot = (firstPilot + delta) & 255;
        const hp = pilotHash[pilot]!;
        let score = 0;
        let rejected = false;
        for (let j = start; j < end; j++) {
          const other = owner[slotOf(slotHashes[j]!, hp, S)]!;
          if (other < 0) continue;
          if (isRecent(recent, other)) {
            rejected = true;
            break;
          }
          const otherSize = this.sizeOf(base, other);
          score += otherSize * otherSize;
          if (score >= bestScore) {
            rejected = true;
            break;
          }
        }
        if (rejected || this.collidesWithin(start, end, hp)) continue;
        bestScore = score;
        bestPilot = pilot;
        // Good enough: evicting no more than the bucket's own weight (PtrHash's early exit).
        if (score <= size * size) break;
      }

      if (bestPilot < 0) {
        if (this.findClash(base, bucket)) return PlaceStatus.INDISTINGUISHABLE;
        return PlaceStatus.EVICTION_LIMIT; // every pilot hits a recently placed bucket: give up on this seed
      }

      const hp = pilotHash[bestPilot]!;
      for (let j = start; j < end; j++) {
        const other = owner[slotOf(slotHashes[j]!, hp, S)]!;
        if (other >= 0) {
          this.evict(base, other, pilots);
          if (++this.evictions > this.evictionLimit) return PlaceStatus.EVICTION_LIMIT;
        }
      }
      for (let j = start; j < end; j++) this.claim(slotOf(slotHashes[j]!, hp, S), bucket);
      pilots[base + bucket] = bestPilot;
      recentIndex = (recentIndex + 1) % RECENT;
      recent[recentIndex] = bucket;
    }
    return PlaceStatus.OK;
  }

  /** Frees every slot of a placed bucket and queues it again. */
  private evict(base: number, bucket: number, pilots: Uint8Array): void {
    const { slotHashes, bucketStarts } = this.data;
    const hp = this.pilotHash[pilots[base + bucket]!]!;
    const S = this.slotScale;
    const start = bucketStarts[base + bucket]!;
    const end = bucketStarts[base + bucket + 1]!;
    for (let j = start; j < end; j++) {
      const s = slotOf(slotHashes[j]!, hp, S);
      this.owner[s] = -1;
      this.taken[s] = 0;
    }
    this.push(end - start, bucket);
  }

  /** True when two keys of the bucket get the same slot under this pilot hash. */
  private collidesWithin(start: number, end: number, hp: number): boolean {
    const size = end - start;
    if (size < 2) return false;
    const { slotHashes } = this.data;
    const scratch = this.scratch;
    for (let j = start; j < end; j++) scratch[j - start] = slotOf(slotHashes[j]!, hp, this.slotScale);
    if (size <= 16) {
      for (let a = 1; a < size; a++) {
        const s = scratch[a]!;
        for (let b = 0; b < a; b++) if (scratch[b] === s) return true;
      }
      return false;
    }
    const sorted = scratch.subarray(0, size).sort();
    for (let a = 1; a < size; a++) if (sorted[a] === sorted[a - 1]) return true;
    return false;
  }

  /** Looks for two keys of the bucket with the same slot hash; records them for the builder. */
  private findClash(base: number, bucket: number): boolean {
    const { slotHashes, bucketStarts } = this.data;
    const start = bucketStarts[base + bucket]!;
    const end = bucketStarts[base + bucket + 1]!;
    const sorted = slotHashes.slice(start, end).sort();
    for (let a = 1; a < sorted.length; a++) {
      if (sorted[a] === sorted[a - 1]) {
        this.clashBucket = base + bucket;
        this.clashHash = sorted[a]!;
        return true;
      }
    }
    return false;
  }

  // Max-heap of buckets keyed by size·2³² + bucket: larger buckets first, ties by higher bucket number.
  private push(size: number, bucket: number): void {
    const heap = this.heap;
    let i = this.heapSize++;
    const key = size * 4294967296 + bucket;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! >= key) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = key;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap[--this.heapSize]!;
    const count = this.heapSize;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= count) break;
      if (child + 1 < count && heap[child + 1]! > heap[child]!) child++;
      if (heap[child]! <= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top % 4294967296;
  }
}

function isRecent(recent: Int32Array, bucket: number): boolean {
  for (let i = 0; i < RECENT; i++) if (recent[i] === bucket) return true;
  return false;
}
