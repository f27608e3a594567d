// The generator's only source of randomness: a seeded sfc32 stream and a Zipf sampler over it. Nothing here reads
// the clock or Math.random, so the same seed gives the same network byte for byte on every machine and Node version.
import { createHash } from 'node:crypto';

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG, 32-bit): 128 bits of state, passes PractRand, and runs in a
 * handful of 32-bit integer operations, which matters when a ledger draws thousands of numbers. Not cryptographic.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeds from any string or number through SHA-256, so nearby seeds ("1", "2") still give unrelated streams. */
  constructor(seed: string | number) {
    const digest = createHash('sha256')
      .update(`strata-gen:${String(seed)}`)
      .digest();
    this.a = digest.readUInt32BE(0);
    this.b = digest.readUInt32BE(4);
    this.c = digest.readUInt32BE(8);
    this.d = digest.readUInt32BE(12);
    // The reference implementation discards the first outputs so a weak seed state mixes before use.
    for (let i = 0; i < 16; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4_294_967_296;
  }

  /** Uniform integer in [0, bound). */
  below(bound: number): number {
    return Math.floor(this.next() * bound);
  }

  /** Integer in [min, max] inclusive. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** `length` pseudo-random bytes (ids, keys, code blobs). */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 4) {
      const word = this.nextU32();
      out[i] = word >>> 24;
      if (i + 1 < length) out[i + 1] = (word >>> 16) & 0xff;
      if (i + 2 < length) out[i + 2] = (word >>> 8) & 0xff;
      if (i + 3 < length) out[i + 3] = word & 0xff;
    }
    return out;
  }
}

/**
 * Samples ranks 0..n-1 with P(k) ∝ 1 / (k + 1)^exponent: a few heavy hitters and a long tail, the shape of contract
 * and account activity on pubnet. The cumulative table is built once; a draw finds the first rank whose cumulative
 * share exceeds a uniform target, starting from a guide table (Chen & Asau) instead of a binary search: the generator
 * draws a few ranks per transaction, and the search's dozen unpredictable branches were ~2 % of generation.
 */
export class ZipfSampler {
  private readonly cumulative: Float64Array;
  /**
   * `guide[g]` is the first rank whose cumulative share is at least g / guideSize (guideSize a power of two, so the
   * scaling by it is exact): every rank before it is below any target in [g / guideSize, (g + 1) / guideSize), so a
   * draw starts there and steps forward, about one rank on average. The rank found is the one a binary search finds.
   */
  private readonly guide: Int32Array;
  private readonly guideSize: number;

  constructor(
    readonly size: number,
    exponent: number,
  ) {
    this.cumulative = new Float64Array(size);
    let total = 0;
    for (let k = 0; k < size; k++) {
      total += 1 / (k + 1) ** exponent;
      this.cumulative[k] = total;
    }
    for (let k = 0; k < size; k++) this.cumulative[k] = (this.cumulative[k] as number) / total;
    let guideSize = 1;
    while (guideSize < size) guideSize *= 2;
    this.guideSize = guideSize;
    this.guide = new Int32Array(guideSize);
    for (let g = 0, k = 0; g < guideSize; g++) {
      while (k < size - 1 && (this.cumulative[k] as number) * guideSize < g) k++;
      this.guide[g] = k;
    }
  }

  /** A rank in [0, limit) (limit ≤ size): the distribution restricted to the first `limit` ranks. */
  sample(prng: Prng, limit = this.size): number {
    const cumulative = this.cumulative;
    const top = cumulative[limit - 1] as number;
    // target < top (next() < 1 by at least 2^-32, far more than a rounding), so the first rank above it is < limit.
    const target = prng.next() * top;
    let k = this.guide[Math.floor(target * this.guideSize)] as number;
    while ((cumulative[k] as number) <= target) k++;
    return k;
  }
}
