// The distinct term keys of a chunk being frozen, each with a dense id (in order of first appearance) and its posting
// count. While terms are interned, each open-addressing slot holds the whole entry — the key's four words, id + 1
// (0: empty) and the count, 24 bytes — so a lookup touches one place in memory, not a slot, then a key array, then a
// count array: at 4 M terms the table is far larger than the caches and every rare term's lookup is a miss (measured
// on a 9 M-event chunk: 4.3 s of the freeze's events step with the three arrays). The table is kept at most 3/4 full:
// 32 bytes per term on average after growth, at most 64 just after a doubling. sealed() then lays keys and counts out
// by id (20 bytes per term) and drops the table. Probing starts from a mix of all four key words with a per-build
// random seed: the keys are XXH3 of bytes an attacker chooses, so probing from raw key bits would let them be ground
// into one long chain.
import { randomBytes } from 'node:crypto';
import { assert } from '@strata/base';

/** Term ids stay below 2^31: the postings log uses the top bit of an entry as its event marker. */
export const MAX_TERMS = 2 ** 31 - 1;

/** u32 words per slot: key (4), id + 1, posting count. */
const SLOT_WORDS = 6;
const INITIAL_SLOTS = 4096;

export class TermTable {
  private termCount = 0;
  private slots = new Uint32Array(INITIAL_SLOTS * SLOT_WORDS);
  private mask = INITIAL_SLOTS - 1;
  /** After sealed(): 4 words per term id, and the counts by id. */
  private words: Uint32Array | undefined;
  private postingCounts: Uint32Array | undefined;
  private readonly seeds: Uint32Array;

  constructor() {
    this.seeds = new Uint32Array(randomBytes(16).buffer);
  }

  get size(): number {
    return this.termCount;
  }

  /** The id of the key `keys[at, at + 4)` (four LE words), created when new; counts one posting. */
  intern(keys: Uint32Array, at: number): number {
    assert(this.words === undefined, 'no intern after sealed()');
    const w0 = keys[at]!;
    const w1 = keys[at + 1]!;
    const w2 = keys[at + 2]!;
    const w3 = keys[at + 3]!;
    const slots = this.slots;
    const mask = this.mask;
    for (let slot = this.mix(w0, w1, w2, w3) & mask; ; slot = (slot + 1) & mask) {
      const s = slot * SLOT_WORDS;
      const idPlusOne = slots[s + 4]!;
      if (idPlusOne === 0) {
        const id = this.termCount++;
        assert(id < MAX_TERMS, 'fewer than 2^31 terms in a chunk');
        slots[s] = w0;
        slots[s + 1] = w1;
        slots[s + 2] = w2;
        slots[s + 3] = w3;
        slots[s + 4] = id + 1;
        slots[s + 5] = 1;
        if (this.termCount * 4 > (mask + 1) * 3) this.grow();
        return id;
      }
      if (slots[s] === w0 && slots[s + 1] === w1 && slots[s + 2] === w2 && slots[s + 3] === w3) {
        slots[s + 5]!++;
        return idPlusOne - 1;
      }
    }
  }

  /** Postings of each term id (after sealed()). */
  counts(): Uint32Array {
    assert(this.postingCounts !== undefined, 'counts() after sealed()');
    return this.postingCounts;
  }

  /** The keys packed back to back, 16 bytes per id in id order (after sealed()). */
  keyBytes(): Uint8Array {
    assert(this.words !== undefined, 'keyBytes() after sealed()');
    return new Uint8Array(this.words.buffer, 0, this.termCount * 16);
  }

  /** After the last intern: keys and counts laid out by id, the table dropped. Idempotent. */
  sealed(): void {
    if (this.words !== undefined) return;
    const words = new Uint32Array(this.termCount * 4);
    const counts = new Uint32Array(this.termCount);
    const slots = this.slots;
    for (let s = 0; s < slots.length; s += SLOT_WORDS) {
      const idPlusOne = slots[s + 4]!;
      if (idPlusOne === 0) continue;
      const k = (idPlusOne - 1) * 4;
      words[k] = slots[s]!;
      words[k + 1] = slots[s + 1]!;
      words[k + 2] = slots[s + 2]!;
      words[k + 3] = slots[s + 3]!;
      counts[idPlusOne - 1] = slots[s + 5]!;
    }
    this.words = words;
    this.postingCounts = counts;
    this.slots = new Uint32Array(0);
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

  /** Doubles the table, re-placing every entry. */
  private grow(): void {
    const old = this.slots;
    const capacity = (this.mask + 1) * 2;
    const slots = new Uint32Array(capacity * SLOT_WORDS);
    const mask = capacity - 1;
    for (let s = 0; s < old.length; s += SLOT_WORDS) {
      if (old[s + 4] === 0) continue;
      let slot = this.mix(old[s]!, old[s + 1]!, old[s + 2]!, old[s + 3]!) & mask;
      while (slots[slot * SLOT_WORDS + 4] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(s, s + SLOT_WORDS), slot * SLOT_WORDS);
    }
    this.slots = slots;
    this.mask = mask;
  }
}
