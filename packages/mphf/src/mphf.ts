// Queries a function in place: `openMphf` validates the bytes once (layout.ts) and returns a view whose `index` and
// `lookup` read the pilot, remap and fingerprint sections straight from the caller's Uint8Array — a Buffer, a slice
// of a memory-mapped file, at any byte offset — with no deserialization and no allocation per query. Only two small
// tables live beside the bytes: the 256 pilot hashes (computed from the seed) and a copy of the part table (4 bytes
// per part of about 2^17 keys).
import { describeValue, MphfError } from './errors.js';
import { bucketOf, hash128, LITTLE_ENDIAN, partOf, pilotHashes, slotOf, slotScaleOf, TWO_NEG_32 } from './hash.js';
import { type Layout, readLayout, readU16, readU32 } from './layout.js';

/**
 * An opened function over n keys. Read-only and safe to share: queries only read the bytes, so any number of
 * callers on one thread may use it, and the same bytes may be opened in several workers (e.g. from a
 * SharedArrayBuffer or one mapping per worker). The caller must keep the bytes unchanged and alive while it is used.
 */
export interface Mphf {
  /** n: the number of keys; member keys map onto [0, n). */
  readonly size: number;
  /** Bits of fingerprint per slot (0: no fingerprints, `lookup` then behaves like `index`). */
  readonly fingerprintBits: number;
  /** Bytes the function occupies from the start of the buffer it was opened from (header to checksum). */
  readonly byteLength: number;
  /** The key hash seed the build settled on (informational; it is in the header). */
  readonly seed: number;
  /**
   * The slot of a member key, in [0, n); distinct members get distinct slots. A non-member gets some slot in
   * [0, n) too (use `lookup` to reject most of them). -1 only when n = 0. The key is
   * `key[keyOffset, keyOffset + keyLength)`, so a key inside a larger buffer needs no copy. `key` must be a
   * Uint8Array (a Buffer is one) and the range integers inside it: anything else (a string, an array, another typed
   * array, an offset of 1.5 or '0') is MphfError INVALID_ARGUMENT.
   */
  index(key: Uint8Array, keyOffset?: number, keyLength?: number): number;
  /**
   * Like `index`, then checks the slot's fingerprint: -1 when it does not match (the key is certainly not a
   * member), otherwise the slot. A non-member passes with probability 2^-fingerprintBits.
   */
  lookup(key: Uint8Array, keyOffset?: number, keyLength?: number): number;
}

/** Key arrays at least this long get a cached Int32Array view (a big Buffer of keys, a mapped file). */
const WORD_VIEW_MIN_LENGTH = 256;

class MphfView implements Mphf {
  readonly size: number;
  readonly fingerprintBits: number;
  readonly byteLength: number;
  readonly seed: number;
  private readonly bytes: Uint8Array;
  private readonly pilots: Uint8Array;
  private readonly pilotHash: Int32Array;
  private readonly parts: number;
  private readonly bucketsPerPart: number;
  /** The part table, copied: [firstKey(0), firstSlot(0), firstKey(1), firstSlot(1), …, keyCount, slotCount]. */
  private readonly partTable: Uint32Array;
  private readonly remapOffset: number;
  private readonly fingerprintsOffset: number;
  private readonly fingerprintBytes: number;
  /** Hash words of a key that is not 16 bytes long; a per-view scratch so a query allocates nothing. */
  private readonly words = new Int32Array(4);
  /** Hash word h4 of the last key `index` hashed: `lookup` compares its fingerprint. */
  private lastH4 = 0;
  // The key array of the last 16-byte query and an Int32Array over the same memory: four word reads instead of
  // sixteen byte reads when the caller queries keys out of one large buffer (the common case). Holding it keeps
  // that one buffer reachable until a query names another.
  // Starts as a private empty array, never a caller's value, so the type check below cannot be skipped by mistake.
  private wordKey: Uint8Array = new Uint8Array(0);
  private wordView: Int32Array = new Int32Array(0);
  private wordShift = 0;

  constructor(bytes: Uint8Array, layout: Layout) {
    this.bytes = bytes;
    this.size = layout.keyCount;
    this.fingerprintBits = layout.fingerprintBits;
    this.fingerprintBytes = layout.fingerprintBits / 8;
    this.byteLength = layout.totalLength;
    this.seed = layout.seed;
    this.pilots = bytes.subarray(layout.pilotsOffset, layout.pilotsOffset + layout.pilotsLength);
    this.pilotHash = pilotHashes(layout.seed);
    this.parts = layout.parts;
    this.bucketsPerPart = layout.bucketsPerPart;
    this.partTable = new Uint32Array(2 * (layout.parts + 1));
    for (let i = 0; i < this.partTable.length; i++) this.partTable[i] = readU32(bytes, layout.partTableOffset + 4 * i);
    this.remapOffset = layout.remapOffset;
    this.fingerprintsOffset = layout.fingerprintsOffset;
  }

  index(key: Uint8Array, keyOffset = 0, keyLength?: number): number {
    // The argument checks: O(1), before any byte is read. The key array of the last word-read query was checked
    // when it was cached, so the common case (queries out of one large buffer) skips the instanceof.
    if (key !== this.wordKey && !(key instanceof Uint8Array)) throw notAKey(key);
    if (!Number.isInteger(keyOffset) || !(keyLength === undefined || Number.isInteger(keyLength))) {
      throw badRange(key, keyOffset, keyLength);
    }
    if (keyLength === undefined) keyLength = key.length - keyOffset;
    if (!(keyOffset >= 0 && keyLength >= 0 && keyOffset + keyLength <= key.length)) {
      throw badRange(key, keyOffset, keyLength);
    }
    if (this.size === 0) return -1;
    if (keyLength !== 16) {
      const words = this.words;
      hash128(key, keyOffset, keyLength, this.seed, words);
      this.lastH4 = words[3]!;
      return this.position(words[0]!, words[1]!, words[2]!);
    }

    // The 16-byte path: MurmurHash3 x86_128 of one block, written out (the same words as hash128Of16, which the
    // tests hold it to); a call per query and a round trip through a words array cost a fifth of the query.
    let k1: number;
    let k2: number;
    let k3: number;
    let k4: number;
    let view = this.wordView;
    if (key !== this.wordKey && key.length >= WORD_VIEW_MIN_LENGTH && LITTLE_ENDIAN) view = this.viewWords(key);
    const at = this.wordShift + keyOffset;
    // The length check covers a key array over a resizable buffer that grew after the view was made.
    if (key === this.wordKey && (at & 3) === 0 && (at >> 2) + 3 < view.length) {
      const w = at >> 2;
      k1 = view[w]!;
      k2 = view[w + 1]!;
      k3 = view[w + 2]!;
      k4 = view[w + 3]!;
    } else {
      const i = keyOffset;
      k1 = key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24);
      k2 = key[i + 4]! | (key[i + 5]! << 8) | (key[i + 6]! << 16) | (key[i + 7]! << 24);
      k3 = key[i + 8]! | (key[i + 9]! << 8) | (key[i + 10]! << 16) | (key[i + 11]! << 24);
      k4 = key[i + 12]! | (key[i + 13]! << 8) | (key[i + 14]! << 16) | (key[i + 15]! << 24);
    }
    const seed = this.seed;
    k1 = Math.imul(k1, 0x239b961b);
    k2 = Math.imul(k2, 0xab0e9789);
    k3 = Math.imul(k3, 0x38b34ae5);
    k4 = Math.imul(k4, 0xa1e38b93);
    let h1 = seed ^ Math.imul((k1 << 15) | (k1 >>> 17), 0xab0e9789);
    h1 = (Math.imul((((h1 << 19) | (h1 >>> 13)) + seed) | 0, 5) + 0x561ccd1b) | 0;
    let h2 = seed ^ Math.imul((k2 << 16) | (k2 >>> 16), 0x38b34ae5);
    h2 = (Math.imul((((h2 << 17) | (h2 >>> 15)) + seed) | 0, 5) + 0x0bcaa747) | 0;
    let h3 = seed ^ Math.imul((k3 << 17) | (k3 >>> 15), 0xa1e38b93);
    h3 = (Math.imul((((h3 << 15) | (h3 >>> 17)) + seed) | 0, 5) + 0x96cd1c35) | 0;
    let h4 = seed ^ Math.imul((k4 << 18) | (k4 >>> 14), 0x239b961b);
    h4 = (Math.imul((((h4 << 13) | (h4 >>> 19)) + h1) | 0, 5) + 0x32ac3b17) | 0;
    h1 ^= 16;
    h2 ^= 16;
    h3 ^= 16;
    h4 ^= 16;
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    h1 ^= h1 >>> 16;
    h1 = Math.imul(h1, 0x85ebca6b);
    h1 ^= h1 >>> 13;
    h1 = Math.imul(h1, 0xc2b2ae35);
    h1 ^= h1 >>> 16;
    h2 ^= h2 >>> 16;
    h2 = Math.imul(h2, 0x85ebca6b);
    h2 ^= h2 >>> 13;
    h2 = Math.imul(h2, 0xc2b2ae35);
    h2 ^= h2 >>> 16;
    h3 ^= h3 >>> 16;
    h3 = Math.imul(h3, 0x85ebca6b);
    h3 ^= h3 >>> 13;
    h3 = Math.imul(h3, 0xc2b2ae35);
    h3 ^= h3 >>> 16;
    h4 ^= h4 >>> 16;
    h4 = Math.imul(h4, 0x85ebca6b);
    h4 ^= h4 >>> 13;
    h4 = Math.imul(h4, 0xc2b2ae35);
    h4 ^= h4 >>> 16;
    h1 = (h1 + h2 + h3 + h4) | 0;
    this.lastH4 = h4 + h1;
    h2 += h1;
    h3 += h1;
    // position(h1, h2, h3), written out for the same reason.
    const B = this.bucketsPerPart;
    const parts = this.parts;
    const part = parts === 1 ? 0 : ((h1 >>> 0) * parts * TWO_NEG_32) >>> 0;
    const t = (h2 >>> 0) * TWO_NEG_32;
    let bucket = ((t * t * (1 + t) * 0.498046875 + t * 0.00390625) * B) >>> 0;
    if (bucket >= B) bucket = B - 1;
    const pilot = this.pilots[part * B + bucket]!;
    const table = this.partTable;
    const firstKey = table[2 * part]!;
    const firstSlot = table[2 * part + 1]!;
    const keys = table[2 * part + 2]! - firstKey;
    const x = h3 ^ this.pilotHash[pilot]!;
    const slot =
      ((Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0) * ((table[2 * part + 3]! - firstSlot) * TWO_NEG_32)) >>> 0;
    if (slot < keys) return firstKey + slot;
    return firstKey + readU16(this.bytes, this.remapOffset + 2 * (firstSlot - firstKey + slot - keys));
  }

  /** Points the word view at `key`'s memory (from the 4-byte boundary at or before its first byte). */
  private viewWords(key: Uint8Array): Int32Array {
    const shift = key.byteOffset & 3;
    this.wordView = new Int32Array(key.buffer, key.byteOffset - shift, (key.length + shift) >> 2);
    this.wordKey = key;
    this.wordShift = shift;
    return this.wordView;
  }

  /** Part, bucket, pilot, slot and remap: the function itself, from hash words h1, h2, h3. */
  private position(h1: number, h2: number, h3: number): number {
    const B = this.bucketsPerPart;
    const part = this.parts === 1 ? 0 : partOf(h1, this.parts);
    const pilot = this.pilots[part * B + bucketOf(h2, B)]!;
    const table = this.partTable;
    const firstKey = table[2 * part]!;
    const firstSlot = table[2 * part + 1]!;
    const keys = table[2 * part + 2]! - firstKey;
    const slot = slotOf(h3, this.pilotHash[pilot]!, slotScaleOf(table[2 * part + 3]! - firstSlot));
    if (slot < keys) return firstKey + slot;
    // About 1 % of keys land in their part's spare slots; the part's remap entries send each to a free slot.
    return firstKey + readU16(this.bytes, this.remapOffset + 2 * (firstSlot - firstKey + slot - keys));
  }

  lookup(key: Uint8Array, keyOffset?: number, keyLength?: number): number {
    const slot = this.index(key, keyOffset, keyLength);
    const width = this.fingerprintBytes;
    if (width === 0 || slot < 0) return slot;
    const bytes = this.bytes;
    const at = this.fingerprintsOffset + slot * width;
    const fingerprint = this.lastH4;
    let stored: number;
    let expected: number;
    if (width === 1) {
      stored = bytes[at]!;
      expected = fingerprint & 0xff;
    } else if (width === 2) {
      stored = readU16(bytes, at);
      expected = fingerprint & 0xffff;
    } else {
      stored = readU32(bytes, at);
      expected = fingerprint >>> 0;
    }
    return stored === expected ? slot : -1;
  }
}

function notAKey(key: unknown): MphfError {
  return new MphfError('INVALID_ARGUMENT', `the key is ${describeValue(key)}, not a Uint8Array`, { field: 'key' });
}

function badRange(key: Uint8Array, keyOffset: unknown, keyLength: unknown): MphfError {
  const range = `offset ${describeValue(keyOffset)}, length ${describeValue(keyLength)}`;
  return new MphfError('INVALID_ARGUMENT', `key range (${range}) is not inside a ${key.length}-byte array`, {
    field: 'keyOffset',
  });
}

/**
 * Opens a function from its bytes: `bytes[0]` is the first header byte; bytes after the function (its
 * `byteLength`) are ignored, so a function can sit inside a larger file. Validates length, magic, version,
 * checksum and every header field (MphfError TRUNCATED, BAD_MAGIC, UNSUPPORTED_VERSION, CHECKSUM_MISMATCH,
 * BAD_HEADER); the cost is one pass over the function's bytes. Nothing is copied.
 */
export function openMphf(bytes: Uint8Array): Mphf {
  if (!(bytes instanceof Uint8Array)) throw new MphfError('INVALID_ARGUMENT', 'bytes must be a Uint8Array');
  return new MphfView(bytes, readLayout(bytes));
}
