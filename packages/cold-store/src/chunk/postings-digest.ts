// An order-independent digest of a chunk's postings — the multiset of (term key, ordinal) pairs — so a freeze that
// takes its term → ordinals lists from the hot index (FreezeOptions.termOrdinals) can check them against the terms
// it derives from the very payloads it writes, without regrouping 50 M postings by term: each side adds every posting
// in its own order, and the digests are equal exactly when the multisets are (but for a 2^-64 chance per build).
//
// Each posting adds h = fmix(termHash(key) ^ ordinal·φ) and fmix(h ^ seed) to two 32-bit sums, and the posting
// count is kept beside them: a missing, extra, repeated or moved posting changes the sums. The seeds are random per
// freeze, so no payload can be chosen to cancel another's change.
import { randomBytes } from 'node:crypto';

/** murmur3's 32-bit finalizer. */
function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class PostingsDigest {
  private sumA = 0;
  private sumB = 0;
  /** Postings added. */
  count = 0;

  private constructor(private readonly seeds: Uint32Array) {}

  /** A pair of empty digests with the same (random) seeds: one per side of a comparison. */
  static pair(): [PostingsDigest, PostingsDigest] {
    const seeds = new Uint32Array(randomBytes(16).buffer);
    return [new PostingsDigest(seeds), new PostingsDigest(seeds)];
  }

  /** The term hash of the key in words[at, at + 4) (four LE words of the 16-byte key). */
  termHash(words: Uint32Array, at: number): number {
    const s = this.seeds;
    let h = fmix(words[at]! ^ s[0]!);
    h = fmix(h ^ words[at + 1]! ^ s[1]!);
    h = fmix(h ^ words[at + 2]!);
    return fmix(h ^ words[at + 3]! ^ s[2]!);
  }

  /** Adds the posting (term, ordinal) of a term whose termHash is `termHash`. */
  add(termHash: number, ordinal: number): void {
    const h = fmix(termHash ^ Math.imul(ordinal, 0x9e37_79b1));
    this.sumA = (this.sumA + h) >>> 0;
    this.sumB = (this.sumB + fmix(h ^ this.seeds[3]!)) >>> 0;
    this.count++;
  }

  /** Whether both digests hold the same multiset of postings. */
  equals(other: PostingsDigest): boolean {
    return this.count === other.count && this.sumA === other.sumA && this.sumB === other.sumB;
  }
}
