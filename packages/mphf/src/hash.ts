// Key hashing and the position functions (part, bucket, slot) that the builder and the query path share. Everything
// is 32-bit integer arithmetic (Math.imul, >>> 0) or IEEE double arithmetic whose order is fixed here, so a function
// built on one machine answers identically everywhere; FORMAT.md restates these definitions for other languages.
//
// Byte reads use `!`: every index is inside [offset, offset + length), which the callers check once per key.

/** True when an Int32Array reads little-endian words (every platform Node ships for, but checked). */
export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

/** 2^-32: multiplying by it is exact, so `x * range * TWO_NEG_32` is the double form of fastrange. */
export const TWO_NEG_32 = 2 ** -32;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** MurmurHash3's 32-bit finalizer: a bijection on 32-bit words with full avalanche. */
export function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Reads `count` (1–4) bytes at `start` as a little-endian word. */
function partialWord(bytes: Uint8Array, start: number, count: number): number {
  let word = 0;
  for (let j = 0; j < count; j++) word |= bytes[start + j]! << (8 * j);
  return word;
}

/**
 * MurmurHash3 x86_128 of `bytes[offset, offset + length)` with a 32-bit seed, bit for bit (SMHasher's verification
 * value 0xB3ECE62A is checked in the tests). Writes the four output words h1..h4 to `out` as signed 32-bit values
 * (an Int32Array keeps them in V8's integer representation); allocates nothing.
 */
export function hash128(bytes: Uint8Array, offset: number, length: number, seed: number, out: Int32Array): void {
  let h1 = seed | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const blocksEnd = offset + length - (length & 15);
  let i = offset;
  for (; i < blocksEnd; i += 16) {
    let k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    let k2 = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    let k3 = bytes[i + 8]! | (bytes[i + 9]! << 8) | (bytes[i + 10]! << 16) | (bytes[i + 11]! << 24);
    let k4 = bytes[i + 12]! | (bytes[i + 13]! << 8) | (bytes[i + 14]! << 16) | (bytes[i + 15]! << 24);

    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = rotl(h1, 19);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;

    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = rotl(h2, 17);
    h2 = (h2 + h3) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;

    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = rotl(h3, 15);
    h3 = (h3 + h4) | 0;
    h3 = (Math.imul(h3, 5) + 0x96cd1c35) | 0;

    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = rotl(h4, 13);
    h4 = (h4 + h1) | 0;
    h4 = (Math.imul(h4, 5) + 0x32ac3b17) | 0;
  }

  // Tail: up to 15 bytes, each 4-byte group mixed into its own lane (the reference's fall-through switch).
  const rest = length & 15;
  if (rest > 12) h4 ^= Math.imul(rotl(Math.imul(partialWord(bytes, i + 12, rest - 12), C4), 18), C1);
  if (rest > 8) h3 ^= Math.imul(rotl(Math.imul(partialWord(bytes, i + 8, Math.min(rest - 8, 4)), C3), 17), C4);
  if (rest > 4) h2 ^= Math.imul(rotl(Math.imul(partialWord(bytes, i + 4, Math.min(rest - 4, 4)), C2), 16), C3);
  if (rest > 0) h1 ^= Math.imul(rotl(Math.imul(partialWord(bytes, i, Math.min(rest, 4)), C1), 15), C2);

  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h3 = fmix32(h3);
  h4 = fmix32(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[0] = h1;
  out[1] = h2;
  out[2] = h3;
  out[3] = h4;
}

/**
 * `hash128` of a 16-byte key given as its four little-endian words (the main key shape: a 128-bit hash of
 * something larger), unrolled: the same output words, without the block loop and tail.
 */
export function hash128OfWords(k1: number, k2: number, k3: number, k4: number, seed: number, out: Int32Array): void {
  let h1 = seed ^ Math.imul(rotl(Math.imul(k1, C1), 15), C2);
  h1 = (Math.imul((rotl(h1, 19) + seed) | 0, 5) + 0x561ccd1b) | 0;
  let h2 = seed ^ Math.imul(rotl(Math.imul(k2, C2), 16), C3);
  h2 = (Math.imul((rotl(h2, 17) + seed) | 0, 5) + 0x0bcaa747) | 0;
  let h3 = seed ^ Math.imul(rotl(Math.imul(k3, C3), 17), C4);
  h3 = (Math.imul((rotl(h3, 15) + seed) | 0, 5) + 0x96cd1c35) | 0;
  let h4 = seed ^ Math.imul(rotl(Math.imul(k4, C4), 18), C1);
  h4 = (Math.imul((rotl(h4, 13) + h1) | 0, 5) + 0x32ac3b17) | 0;
  h1 ^= 16;
  h2 ^= 16;
  h3 ^= 16;
  h4 ^= 16;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = fmix32((h2 + h1) | 0);
  h3 = fmix32((h3 + h1) | 0);
  h4 = fmix32((h4 + h1) | 0);
  h1 = fmix32(h1);
  h1 = (h1 + h2 + h3 + h4) | 0;
  out[0] = h1;
  out[1] = h2 + h1;
  out[2] = h3 + h1;
  out[3] = h4 + h1;
}

/** `hash128` of the 16 bytes at `offset` (the caller guarantees `offset + 16 <= bytes.length`). */
export function hash128Of16(bytes: Uint8Array, offset: number, seed: number, out: Int32Array): void {
  const i = offset;
  hash128OfWords(
    bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24),
    bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24),
    bytes[i + 8]! | (bytes[i + 9]! << 8) | (bytes[i + 10]! << 16) | (bytes[i + 11]! << 24),
    bytes[i + 12]! | (bytes[i + 13]! << 8) | (bytes[i + 14]! << 16) | (bytes[i + 15]! << 24),
    seed,
    out,
  );
}

/**
 * The 256 pilot hashes of a seed: `fmix32(((p + 1) * 0x9e3779b9) ^ seed)`. Distinct pilots get distinct values
 * (an odd multiplier and fmix32 are both bijections), so no two pilots of a bucket are the same trial.
 */
export function pilotHashes(seed: number): Int32Array {
  const table = new Int32Array(256);
  for (let pilot = 0; pilot < 256; pilot++) table[pilot] = fmix32(Math.imul(pilot + 1, 0x9e3779b9) ^ seed);
  return table;
}

/** The part of a key: fastrange of hash word h1 over the part count. */
export function partOf(h1: number, parts: number): number {
  return ((h1 >>> 0) * parts * TWO_NEG_32) >>> 0;
}

/**
 * The bucket of a key inside its part, from hash word h2: PtrHash's "cubic-eps" skew
 * `y = t²(1 + t)/2 · 255/256 + t/256` with `t = h2 / 2³²`, then `floor(y · buckets)`. Small `t` lands in few
 * buckets, so the first buckets are large (placed first, while the table is empty) and the last ones small.
 */
export function bucketOf(h2: number, buckets: number): number {
  const t = (h2 >>> 0) * TWO_NEG_32;
  const y = t * t * (1 + t) * 0.498046875 + t * 0.00390625;
  const bucket = (y * buckets) >>> 0;
  // y < 1 for every t < 1, so this never clamps; it keeps a rounding surprise from reading past the pilots.
  return bucket < buckets ? bucket : buckets - 1;
}

/** `slots · 2^-32`, the factor `slotOf` multiplies by (exact: a power-of-two scaling). */
export function slotScaleOf(slots: number): number {
  return slots * TWO_NEG_32;
}

/**
 * The slot of a key inside its part: `x = h3 ^ pilotHash`, one multiply-xorshift round
 * `m = (x ^ (x >>> 16)) * 0x85ebca6b mod 2³²`, then fastrange `floor(m · slots / 2³²)`, computed as
 * `m · slotScale` with `slotScale = slots · 2^-32` (the same double: scaling by a power of two is exact). h3 is
 * already a full hash of the key; the round only has to make the high bits that fastrange reads depend on every
 * bit of `h3 ^ pilotHash`, so two keys of one bucket share a slot for all 256 pilots only if their h3 are equal.
 */
export function slotOf(h3: number, pilotHash: number, slotScale: number): number {
  const x = h3 ^ pilotHash;
  return ((Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0) * slotScale) >>> 0;
}
