// SHA-256 (FIPS 180-4) of short messages held in a scratch buffer: the TTL key hash of every CONTRACT_DATA /
// CONTRACT_CODE entry the Soroban state stores (stellar-core getTTLKey), in JavaScript that allocates nothing, or by
// node:crypto for messages that would need more than two compressions here.
//
// Population hashes keys in key order, and neighbouring keys share long prefixes (the contract, the SCVal's shape:
// every SAC balance key of one token begins with the same 68 bytes). SHA-256 reads its message in 64-byte blocks
// and its state after a block depends only on the blocks so far, so KeyHasher keeps the state after each whole
// block of the last message it compressed and starts the next message from the last block the two share: a 116-byte
// SAC balance key costs one compression instead of two. Measured on the state's keys (Node 20, one core): a
// compression ~370 ns; node:crypto's one-shot `hash` ~780-930 ns whatever the length up to a few hundred bytes
// (its fixed cost of crossing into C++ and allocating the digest), so it takes a message when more than two blocks
// are left to compress. Checked against node:crypto's streaming hash for every length from 0 to 300 bytes, for
// random ones and for runs of messages sharing prefixes (test/soroban-state.test.ts). Not constant-time: it hashes
// public ledger keys.
import { hash } from 'node:crypto';

/** Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const W = new Int32Array(64);

/** Bytes a message buffer needs beyond the message for the padding (0x80, zeros, 64-bit length). */
export const SHA256_PADDING_BYTES = 72;

/** The most blocks KeyHasher compresses itself for one message; with more left, node:crypto is faster. */
export const JS_HASH_MAX_BLOCKS = 2;
/** Whole blocks of the last message whose state KeyHasher keeps (keys longer than this share no more of it). */
const CACHED_BLOCKS = 4;

/** The initial hash value: the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/**
 * SHA-256 of successive messages, each resumed from the last whole block it shares with the last message this hasher
 * compressed. One per state (not thread-safe); nothing is kept but those blocks and the state after each.
 */
export class KeyHasher {
  /** The whole blocks of the last message compressed here (up to CACHED_BLOCKS) as words, and the state after each. */
  private readonly blocks = new Int32Array(16 * CACHED_BLOCKS);
  private readonly states = new Int32Array(8 * CACHED_BLOCKS);
  private cached = 0;
  private readonly state = new Int32Array(8);
  /** The last buffer hashed and the same memory as words (when 4-aligned), to compare blocks a word at a time. */
  private buffer: Uint8Array | undefined = undefined;
  private words: Int32Array | undefined = undefined;

  /**
   * Writes SHA-256 of `buffer[0, length)` into `out` (32 bytes). `buffer` must have `length + SHA256_PADDING_BYTES`
   * bytes: the padding is written into it after the message (the message itself is left as it was). Messages are
   * limited to 2^29 bytes (the length field is written from 32 bits).
   */
  hashInto(buffer: Uint8Array, length: number, out: Uint8Array): void {
    const totalBlocks = ((length + 8) >>> 6) + 1;
    const wholeBlocks = Math.min(length >>> 6, CACHED_BLOCKS);
    const words = this.wordsOf(buffer);
    let shared = 0;
    if (words !== undefined) {
      while (shared < wholeBlocks && shared < this.cached && sameBlock(words, this.blocks, shared)) shared++;
    }
    if (totalBlocks - shared > JS_HASH_MAX_BLOCKS) {
      out.set(hash('sha256', new Uint8Array(buffer.buffer, buffer.byteOffset, length), 'buffer'));
      return;
    }
    pad(buffer, length);
    const state = this.state;
    // `!` below: shared ≤ CACHED_BLOCKS, so its states are in range; whole blocks lie inside `words`
    for (let i = 0; i < 8; i++) state[i] = shared === 0 ? IV[i]! : this.states[8 * (shared - 1) + i]!;
    for (let block = shared; block < totalBlocks; block++) {
      compress(state, buffer, 64 * block);
      if (block < wholeBlocks && words !== undefined) {
        for (let i = 16 * block; i < 16 * block + 16; i++) this.blocks[i] = words[i]!;
        for (let i = 0; i < 8; i++) this.states[8 * block + i] = state[i]!;
      }
    }
    this.cached = words === undefined ? 0 : wholeBlocks;
    for (let i = 0; i < 8; i++) writeWord(out, 4 * i, state[i]!);
  }

  /** `buffer` as words (the view kept while the same buffer comes back), or undefined when it is not 4-aligned. */
  private wordsOf(buffer: Uint8Array): Int32Array | undefined {
    if (buffer !== this.buffer) {
      this.buffer = buffer;
      this.words =
        buffer.byteOffset % 4 === 0 ? new Int32Array(buffer.buffer, buffer.byteOffset, buffer.length >>> 2) : undefined;
    }
    return this.words;
  }
}

/**
 * Writes SHA-256 of `buffer[0, length)` into `out` (32 bytes), compressing every block in JavaScript (KeyHasher's
 * compression without its cache or node:crypto). `buffer` as for KeyHasher.hashInto.
 */
export function sha256Into(buffer: Uint8Array, length: number, out: Uint8Array): void {
  const totalBlocks = ((length + 8) >>> 6) + 1;
  pad(buffer, length);
  const state = new Int32Array(IV);
  for (let block = 0; block < totalBlocks; block++) compress(state, buffer, 64 * block);
  for (let i = 0; i < 8; i++) writeWord(out, 4 * i, state[i]!);
}

/** Whether block `block` of a message (as words) holds the words `blocks` keeps for it. */
function sameBlock(words: Int32Array, blocks: Int32Array, block: number): boolean {
  // `!`: both hold the block's 16 words
  for (let i = 16 * block; i < 16 * block + 16; i++) if (words[i] !== blocks[i]) return false;
  return true;
}

/** Writes the padding after the message: 0x80, zeros, the message's length in bits (big-endian, 32 of 64 bits). */
function pad(buffer: Uint8Array, length: number): void {
  const total = (((length + 8) >>> 6) + 1) << 6;
  buffer[length] = 0x80;
  buffer.fill(0, length + 1, total - 4);
  const bits = length * 8;
  buffer[total - 4] = bits >>> 24;
  buffer[total - 3] = bits >>> 16;
  buffer[total - 2] = bits >>> 8;
  buffer[total - 1] = bits;
}

/** One compression: `state` (8 words) updated with the block at `buffer[at, at + 64)`. */
function compress(state: Int32Array, buffer: Uint8Array, at: number): void {
  // `!` below: indexes stay inside the padded message, W and K (64 words) and state (8 words)
  for (let i = 0; i < 16; i++) {
    const p = at + 4 * i;
    W[i] = (buffer[p]! << 24) | (buffer[p + 1]! << 16) | (buffer[p + 2]! << 8) | buffer[p + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15]!;
    const w2 = W[i - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

function writeWord(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = word >>> 16;
  out[at + 2] = word >>> 8;
  out[at + 3] = word;
}
