// A 16-bit binary fuse filter (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", 2022;
// 3-wise, the layout of their reference binaryfusefilter.h), the filter stellar-core's DiskIndex keeps in front of
// its page reads. Keys are hashed with XXH3-64 under a seed stored with the filter; each construction attempt then
// remixes those hashes with a 64-bit Feistel permutation keyed by `mixSeed`, so a failed peeling can be retried with
// new positions without the keys (only their hashes are kept while a bucket is indexed). The permutation is a
// bijection, so distinct hashes stay distinct; equal hashes are the same filter member and are merged. No false
// negatives (the build checks every member before returning); false positives ≈ 2^-16.
import { xxh3 } from '@node-rs/xxhash';

/** Construction attempts before giving up (then there is no filter: every query answers "maybe"). */
export const FUSE_MAX_ATTEMPTS = 100;
/** Largest segment the reference implementation uses. */
export const FUSE_MAX_SEGMENT_LENGTH = 1 << 18;
/** Smallest segment (what the sizing formula gives for two keys). */
export const FUSE_MIN_SEGMENT_LENGTH = 4;

// XXH3 returns a bigint; writing it into a BigUint64Array and reading two 32-bit words avoids bigint arithmetic.
const hashScratch = new BigUint64Array(1);
const hashWords = new Uint32Array(hashScratch.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = LITTLE_ENDIAN ? 1 : 0;

/** murmur3's 32-bit finalizer: the round function of the Feistel mix and the round-key schedule. */
function fmix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The four Feistel round keys of a mix seed. */
function roundKeys(mixSeed: number): Uint32Array {
  const keys = new Uint32Array(4);
  for (let round = 0; round < 4; round++) keys[round] = fmix32((mixSeed + Math.imul(round + 1, 0x9e3779b9)) >>> 0);
  return keys;
}

/** Sizing of a filter for `size` distinct hashes (binary_fuse16_allocate, arity 3). */
export function fuseDimensions(size: number): { segmentLength: number; segmentCount: number } {
  let segmentLength = 2 ** Math.floor(Math.log(size) / Math.log(3.35) + 2.25);
  segmentLength = Math.min(Math.max(segmentLength, FUSE_MIN_SEGMENT_LENGTH), FUSE_MAX_SEGMENT_LENGTH);
  const sizeFactor = Math.max(1.125, 0.875 + (0.25 * Math.log(1_000_000)) / Math.log(size));
  const capacity = Math.round(size * sizeFactor);
  const initSegmentCount = Math.ceil(capacity / segmentLength) - 2;
  const segmentCount = Math.max(1, initSegmentCount);
  return { segmentLength, segmentCount };
}

/** A built filter. Immutable; safe to query from any code on the thread that owns it. */
export class BinaryFuse16 {
  /** Fingerprint slots: (segmentCount + 2) × segmentLength. */
  readonly arrayLength: number;
  private readonly segmentCountLength: number;
  private readonly segmentMask: number;
  private readonly keys: Uint32Array;

  /** Use `buildFuseFilter` or `BinaryFuse16.fromParts`; the constructor trusts its arguments. */
  private constructor(
    /** XXH3-64 seed of the key hashes. */
    readonly hashSeed: bigint,
    /** Feistel key of the attempt that succeeded. */
    readonly mixSeed: number,
    readonly segmentLength: number,
    readonly segmentCount: number,
    readonly fingerprints: Uint16Array,
  ) {
    this.arrayLength = (segmentCount + 2) * segmentLength;
    this.segmentCountLength = segmentCount * segmentLength;
    this.segmentMask = segmentLength - 1;
    this.keys = roundKeys(mixSeed);
  }

  /**
   * A filter from persisted parts, or a string saying why they cannot be one (the caller owns the error). Checks
   * the shape only: a wrong fingerprint gives wrong answers (false negatives), which the checksum catches when it is
   * damage and the page index's checks against its bucket catch when it is not (page-index.ts, `checkClaims`).
   */
  static fromParts(
    hashSeed: bigint,
    mixSeed: number,
    segmentLength: number,
    segmentCount: number,
    fingerprints: Uint16Array,
  ): BinaryFuse16 | string {
    const powerOfTwo = Number.isInteger(segmentLength) && (segmentLength & (segmentLength - 1)) === 0;
    if (!powerOfTwo || segmentLength < FUSE_MIN_SEGMENT_LENGTH || segmentLength > FUSE_MAX_SEGMENT_LENGTH) {
      return `segment length ${segmentLength}`;
    }
    if (!Number.isInteger(segmentCount) || segmentCount < 1 || segmentCount * segmentLength > 2 ** 31) {
      return `segment count ${segmentCount}`;
    }
    if (fingerprints.length !== (segmentCount + 2) * segmentLength) {
      return `${fingerprints.length} fingerprints for ${segmentCount} segments of ${segmentLength}`;
    }
    if (!Number.isInteger(mixSeed) || mixSeed < 0 || mixSeed > 0xffffffff) return `mix seed ${mixSeed}`;
    return new BinaryFuse16(hashSeed, mixSeed, segmentLength, segmentCount, fingerprints);
  }

  /** Internal: the constructor, for `buildFuseFilter`. */
  static create(
    hashSeed: bigint,
    mixSeed: number,
    segmentLength: number,
    segmentCount: number,
    fingerprints: Uint16Array,
  ): BinaryFuse16 {
    return new BinaryFuse16(hashSeed, mixSeed, segmentLength, segmentCount, fingerprints);
  }

  /** False: `key` is certainly not a member. True: it is, or a false positive (≈ 1 in 65 536). */
  mayContain(key: Uint8Array): boolean {
    hashScratch[0] = xxh3.xxh64(key, this.hashSeed);
    return this.mayContainHash(hashWords[HI]!, hashWords[LO]!);
  }

  /** The same for a key hash already split into its high and low 32-bit words. */
  mayContainHash(hashHi: number, hashLo: number): boolean {
    const k = this.keys;
    // The same Feistel mix as construction (see mixHashes).
    let hi = hashHi;
    let lo = hashLo;
    hi = (hi ^ fmix32((lo ^ k[0]!) >>> 0)) >>> 0;
    lo = (lo ^ fmix32((hi ^ k[1]!) >>> 0)) >>> 0;
    hi = (hi ^ fmix32((lo ^ k[2]!) >>> 0)) >>> 0;
    lo = (lo ^ fmix32((hi ^ k[3]!) >>> 0)) >>> 0;
    const h0 = slot0(hi, this.segmentCountLength);
    const f = this.fingerprints;
    const fingerprint = (hi ^ lo) & 0xffff;
    const h1 = (h0 + this.segmentLength) ^ (((lo >>> 18) | (hi << 14)) & this.segmentMask);
    const h2 = (h0 + 2 * this.segmentLength) ^ (lo & this.segmentMask);
    return (fingerprint ^ f[h0]! ^ f[h1]! ^ f[h2]!) === 0;
  }

  /** Bytes held (the fingerprints). */
  get memoryBytes(): number {
    return this.fingerprints.byteLength + 64;
  }
}

/** floor(hi × scl / 2^32) exactly in doubles (hi < 2^32, scl < 2^32): the reference's mulhi on the top word. */
function slot0(hi: number, segmentCountLength: number): number {
  const top = hi >>> 16;
  const bottom = hi & 0xffff;
  return Math.floor((top * segmentCountLength + Math.floor((bottom * segmentCountLength) / 65536)) / 65536);
}

/** The hash a filter with `hashSeed` gives `key`, as [high word, low word]; for tests and bulk queries. */
export function fuseKeyHash(key: Uint8Array, hashSeed: bigint): [number, number] {
  hashScratch[0] = xxh3.xxh64(key, hashSeed);
  return [hashWords[HI]!, hashWords[LO]!];
}

/**
 * Collects the XXH3 hashes of a filter's keys while a bucket is scanned: 8 bytes per key, nothing else kept.
 * Single-threaded; `build()` may be called once.
 */
export class FuseHashCollector {
  private hashes = new BigUint64Array(1024);
  private count = 0;

  constructor(readonly hashSeed: bigint) {}

  get size(): number {
    return this.count;
  }

  add(key: Uint8Array): void {
    if (this.count === this.hashes.length) {
      const grown = new BigUint64Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.count++] = xxh3.xxh64(key, this.hashSeed);
  }

  /** The filter of the keys added, or undefined for fewer than two distinct hashes or if every attempt failed. */
  build(): BinaryFuse16 | undefined {
    const hashes = this.hashes.subarray(0, this.count);
    this.hashes = new BigUint64Array(0);
    return buildFuseFilter(hashes, this.hashSeed);
  }
}

/**
 * Builds a filter over `hashes` (XXH3-64 of the keys under `hashSeed`; the array is sorted and de-duplicated in
 * place). Returns undefined when fewer than two distinct hashes remain, or when FUSE_MAX_ATTEMPTS peelings all fail
 * (the reference puts that below the odds of a cosmic ray; the caller then works without a filter). Terminates for
 * every input: each attempt is linear, the attempts are bounded.
 */
export function buildFuseFilter(hashes: BigUint64Array, hashSeed: bigint): BinaryFuse16 | undefined {
  hashes.sort();
  const words = new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length * 2);
  let size = 0;
  for (let i = 0; i < hashes.length; i++) {
    if (size > 0 && words[2 * i] === words[2 * (size - 1)] && words[2 * i + 1] === words[2 * (size - 1) + 1]) continue;
    words[2 * size] = words[2 * i]!;
    words[2 * size + 1] = words[2 * i + 1]!;
    size++;
  }
  if (size < 2) return undefined;
  const { segmentLength, segmentCount } = fuseDimensions(size);
  const arrayLength = (segmentCount + 2) * segmentLength;
  const segmentCountLength = segmentCount * segmentLength;
  const mask = segmentLength - 1;

  const mixedHi = new Uint32Array(size);
  const mixedLo = new Uint32Array(size);
  const slotCount = new Uint32Array(arrayLength); // keys still mapped to each slot (no 8-bit overflow to reason about)
  const slotXor = new Uint32Array(arrayLength); // XOR of the indexes of those keys: the key itself once count is 1
  const queue = new Uint32Array(arrayLength);
  const stack = new Uint32Array(size);
  const stackSlot = new Uint8Array(size); // which of the key's three slots it was peeled from
  const h = new Uint32Array(3);
  const positions = (key: number): void => {
    const hi = mixedHi[key]!;
    const lo = mixedLo[key]!;
    const h0 = slot0(hi, segmentCountLength);
    h[0] = h0;
    h[1] = (h0 + segmentLength) ^ (((lo >>> 18) | (hi << 14)) & mask);
    h[2] = (h0 + 2 * segmentLength) ^ (lo & mask);
  };

  let seedState = Number(hashSeed & 0xffffffffn) ^ 0x726b2b9d;
  for (let attempt = 0; attempt < FUSE_MAX_ATTEMPTS; attempt++) {
    seedState = (seedState + 0x9e3779b9) >>> 0;
    const mixSeed = fmix32(seedState);
    const k = roundKeys(mixSeed);
    for (let i = 0; i < size; i++) {
      let hi = words[2 * i + HI]!;
      let lo = words[2 * i + LO]!;
      hi = (hi ^ fmix32((lo ^ k[0]!) >>> 0)) >>> 0;
      lo = (lo ^ fmix32((hi ^ k[1]!) >>> 0)) >>> 0;
      hi = (hi ^ fmix32((lo ^ k[2]!) >>> 0)) >>> 0;
      lo = (lo ^ fmix32((hi ^ k[3]!) >>> 0)) >>> 0;
      mixedHi[i] = hi;
      mixedLo[i] = lo;
    }
    slotCount.fill(0);
    slotXor.fill(0);
    for (let i = 0; i < size; i++) {
      positions(i);
      for (let j = 0; j < 3; j++) {
        const slot = h[j]!;
        slotCount[slot]!++;
        slotXor[slot]! ^= i;
      }
    }
    // Peel: a slot with one key fixes that key's fingerprint last; remove the key from its other two slots.
    let queued = 0;
    for (let slot = 0; slot < arrayLength; slot++) if (slotCount[slot] === 1) queue[queued++] = slot;
    let peeled = 0;
    while (queued > 0) {
      const slot = queue[--queued]!;
      if (slotCount[slot] !== 1) continue;
      const key = slotXor[slot]!;
      positions(key);
      const found = h[0] === slot ? 0 : h[1] === slot ? 1 : 2;
      stack[peeled] = key;
      stackSlot[peeled] = found;
      peeled++;
      for (let j = 0; j < 3; j++) {
        const other = h[j]!;
        slotCount[other]!--;
        slotXor[other]! ^= key;
        if (j !== found && slotCount[other] === 1) queue[queued++] = other;
      }
    }
    if (peeled !== size) continue;

    const fingerprints = new Uint16Array(arrayLength);
    for (let s = size - 1; s >= 0; s--) {
      const key = stack[s]!;
      positions(key);
      const found = stackSlot[s]!;
      const fingerprint = (mixedHi[key]! ^ mixedLo[key]!) & 0xffff;
      fingerprints[h[found]!] = fingerprint ^ fingerprints[h[(found + 1) % 3]!]! ^ fingerprints[h[(found + 2) % 3]!]!;
    }
    const filter = BinaryFuse16.create(hashSeed, mixSeed, segmentLength, segmentCount, fingerprints);
    // The no-false-negative guarantee, checked rather than assumed: three array reads per key.
    let complete = true;
    for (let i = 0; i < size && complete; i++) {
      complete = filter.mayContainHash(words[2 * i + HI]!, words[2 * i + LO]!);
    }
    if (complete) return filter;
  }
  return undefined;
}
