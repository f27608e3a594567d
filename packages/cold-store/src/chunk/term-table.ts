// The distinct term keys of a chunk being frozen, each with a dense id and its posting count: 16 bytes of key, 4 of
// count and two 4-byte table slots per term (the table is kept at most half full), nothing per posting. Probing
// starts from a mix of all four key words with a per-build random seed: the keys are XXH3 of bytes an attacker
// chooses, so probing from raw key bits would let them be ground into one long chain.
import { randomBytes } from 'node:crypto';
import { assert } from '@strata/base';

/** Term ids stay below 2^31: the postings log uses the top bit of an entry as its event marker. */
export const MAX_TERMS = 2 ** 31 - 1;

export class TermTable {
  private termCount = 0;
  /** 4 words per term id: the key as four little-endian u32. */
  private words = new Uint32Array(4 * 1024);
  private postingCounts = new Uint32Array(1024);
  /** Open addressing: term id + 1, 0 = empty. */
  private table = new Int32Array(2048);
  private readonly seeds: Uint32Array;

  constructor() {
    this.seeds = new Uint32Array(randomBytes(16).buffer);
  }

  get size(): number {
    return this.termCount;
  }

  /** The id of the key `keys[4·at, 4·at + 4)` (four LE words), created when new; counts one posting. */
  intern(keys: Uint32Array, at: number): number {
    const w0 = keys[at]!;
    const w1 = keys[at + 1]!;
    const w2 = keys[at + 2]!;
    const w3 = keys[at + 3]!;
    const mask = this.table.length - 1;
    const words = this.words;
    for (let slot = this.mix(w0, w1, w2, w3) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) {
        const id = this.termCount++;
        assert(id < MAX_TERMS, 'fewer than 2^31 terms in a chunk');
        if (id === this.postingCounts.length) this.growTerms();
        this.words.set(keys.subarray(at, at + 4), id * 4);
        this.postingCounts[id] = 1;
        this.table[slot] = id + 1;
        if (this.termCount * 2 > this.table.length) this.rehash();
        return id;
      }
      const k = (entry - 1) * 4;
      if (words[k] === w0 && words[k + 1] === w1 && words[k + 2] === w2 && words[k + 3] === w3) {
        this.postingCounts[entry - 1]!++;
        return entry - 1;
      }
    }
  }

  /** Postings of each term id (a view valid until the next intern). */
  counts(): Uint32Array {
    return this.postingCounts.subarray(0, this.termCount);
  }

  /** The keys packed back to back (16 bytes per id, in id order; a view valid until the next intern). */
  keyBytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, 0, this.termCount * 16);
  }

  /** Drops the hash table (after the last intern: the build keeps only keys and counts). */
  sealed(): void {
    this.table = new Int32Array(1);
  }

  private mix(w0: number, w1: number, w2: number, w3: number): number {
    const s = this.seeds;
    let h =
      Math.imul(w0 ^ s[0]!, 0x9e3779b1) ^
      Math.imul(w1 ^ s[1]!, 0x85ebca77) ^
      Math.imul(w2 ^ s[2]!, 0xc2b2ae3d) ^
      Math.imul(w3 ^ s[3]!, 0x27d4eb2f);
    // MurmurHash3's finalizer: every input bit reaches the low bits the mask keeps.
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }

  private growTerms(): void {
    const size = this.postingCounts.length * 2;
    const counts = new Uint32Array(size);
    counts.set(this.postingCounts);
    this.postingCounts = counts;
    const words = new Uint32Array(size * 4);
    words.set(this.words);
    this.words = words;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    const words = this.words;
    for (let id = 0; id < this.termCount; id++) {
      const k = id * 4;
      let slot = this.mix(words[k]!, words[k + 1]!, words[k + 2]!, words[k + 3]!) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }
}
