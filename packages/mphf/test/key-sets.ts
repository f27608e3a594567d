// Key sets for the tests: seeded random packed keys, and the adversarial shapes a real key set may have (shared
// prefixes, zeros, counters), all deterministic so a failure replays.
import { seededRandom } from '@strata/test-kit';

/** `count` random keys of `length` bytes, packed back to back (the shape a build of millions of keys uses). */
export function randomPackedKeys(count: number, seed: number, length = 16): Uint8Array {
  const random = seededRandom(seed);
  const bytes = new Uint8Array(count * length);
  for (let i = 0; i < bytes.length; i += 4) {
    const word = Math.floor(random() * 2 ** 32);
    bytes[i] = word & 0xff;
    if (i + 1 < bytes.length) bytes[i + 1] = (word >>> 8) & 0xff;
    if (i + 2 < bytes.length) bytes[i + 2] = (word >>> 16) & 0xff;
    if (i + 3 < bytes.length) bytes[i + 3] = word >>> 24;
  }
  return bytes;
}

/** The keys of a packed buffer as separate arrays (views, no copies). */
export function unpack(bytes: Uint8Array, length = 16): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += length) keys.push(bytes.subarray(offset, offset + length));
  return keys;
}

/** A 16-byte key holding `value` as a little- or big-endian counter in the given 4-byte word, zeros elsewhere. */
export function counterKey(value: number, word: number, bigEndian: boolean): Uint8Array {
  const key = new Uint8Array(16);
  const view = new DataView(key.buffer);
  view.setUint32(4 * word, value >>> 0, !bigEndian);
  return key;
}

/** Adversarial key sets, each of distinct keys, named for the failure message. */
export function adversarialKeySets(): { name: string; keys: Uint8Array[] }[] {
  const sets: { name: string; keys: Uint8Array[] }[] = [];
  for (const bigEndian of [false, true]) {
    for (const word of [0, 3]) {
      sets.push({
        name: `sequential ${bigEndian ? 'big' : 'little'}-endian counter in word ${word}`,
        keys: Array.from({ length: 20_000 }, (_, i) => counterKey(i, word, bigEndian)),
      });
    }
  }
  // Keys that differ only in their last bytes after a long shared prefix.
  const prefix = new Uint8Array(61).fill(0xab);
  sets.push({
    name: 'shared 61-byte prefix, 3-byte counter suffix',
    keys: Array.from({ length: 20_000 }, (_, i) => Uint8Array.of(...prefix, i & 0xff, (i >>> 8) & 0xff, i >>> 16)),
  });
  // All-zero keys of every length (distinct because their lengths differ), the empty key included.
  sets.push({
    name: 'all-zero keys of lengths 0..999',
    keys: Array.from({ length: 1000 }, (_, i) => new Uint8Array(i)),
  });
  // 16-byte keys with exactly one bit set, and the all-zero and all-one keys.
  const singleBits = Array.from({ length: 128 }, (_, bit) => {
    const key = new Uint8Array(16);
    key[bit >> 3] = 1 << (bit & 7);
    return key;
  });
  sets.push({
    name: 'single-bit 16-byte keys, zero and all-ones',
    keys: [...singleBits, new Uint8Array(16), new Uint8Array(16).fill(255)],
  });
  // Pairs of keys that differ in the top bits of two words (a pattern that defeats multiply-only hashes).
  sets.push({
    name: 'top bits of two words flipped',
    keys: Array.from({ length: 4096 }, (_, i) => {
      const key = counterKey(i >> 2, 1, false);
      if (i & 1) key[3] = 0x80;
      if (i & 2) key[11] = 0x80;
      return key;
    }),
  });
  return sets;
}
