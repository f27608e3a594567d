// SHA-256 (FIPS 180-4) of short messages held in a scratch buffer: the TTL key hash of every CONTRACT_DATA /
// CONTRACT_CODE entry the Soroban state stores (stellar-core getTTLKey), in JavaScript that allocates nothing, or by
// node:crypto for messages that would need more than two compressions here.
//
// Population hashes keys in key order, and neighbouring keys share long prefixes (the contract, the SCVal's shape:
// every SAC balance key of one token begins with the same 68 bytes). SHA-256 reads its message in 64-byte blocks
// and its state after a block depends only on the blocks so far, so KeyHasher keeps the state after each whole
// block of the last message it compressed and starts the next message from the last block the two share: a 116-byte
// SAC balance key costs one compression instead of two. Measured on the state's keys (Node 20, one core): a
// compression ~250 ns (see `compress`); node:crypto's one-shot `hash` ~700-930 ns whatever the length up to a few
// hundred bytes (its fixed cost of crossing into C++ and allocating the digest), so it takes a message when more
// than two blocks are left to compress. Checked against node:crypto's streaming hash for every length from 0 to 300
// bytes, for random ones, for runs of messages sharing prefixes and for messages back to back in one buffer
// (test/soroban-state.test.ts). Not constant-time: it hashes public ledger keys.
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
    this.hashAt(buffer, 0, length, out);
  }

  /**
   * hashInto of the message `buffer[start, start + length)`, for a buffer holding several (population hashes keys a
   * batch at a time), into `out[outAt, outAt + 32)`: `buffer` must have `start + length + SHA256_PADDING_BYTES`
   * bytes. The message's blocks are compared with the ones kept when `start` and the buffer are 4-aligned.
   */
  hashAt(buffer: Uint8Array, start: number, length: number, out: Uint8Array, outAt = 0): void {
    const totalBlocks = ((length + 8) >>> 6) + 1;
    const wholeBlocks = Math.min(length >>> 6, CACHED_BLOCKS);
    const words = start % 4 !== 0 ? undefined : buffer === this.buffer ? this.words : this.wordsOf(buffer);
    const first = start >>> 2;
    const blocks = this.blocks;
    let shared = 0;
    if (words !== undefined) {
      const limit = Math.min(wholeBlocks, this.cached);
      // `!` below: whole blocks lie inside `words`, cached ones inside `blocks`
      sharing: for (; shared < limit; shared++) {
        for (let i = 16 * shared; i < 16 * shared + 16; i++) if (words[first + i] !== blocks[i]) break sharing;
      }
    }
    if (totalBlocks - shared > JS_HASH_MAX_BLOCKS) {
      out.set(digestOf(new Uint8Array(buffer.buffer, buffer.byteOffset + start, length)), outAt);
      return;
    }
    pad(buffer, start, length);
    const state = this.state;
    const states = this.states;
    // `!` below: shared ≤ CACHED_BLOCKS, so its states are in range
    if (shared === 0) state.set(IV);
    else for (let i = 0, from = 8 * (shared - 1); i < 8; i++) state[i] = states[from + i]!;
    for (let block = shared; block < totalBlocks; block++) {
      compress(state, buffer, start + 64 * block);
      if (block < wholeBlocks && words !== undefined) {
        for (let i = 16 * block; i < 16 * block + 16; i++) blocks[i] = words[first + i]!;
        for (let i = 0; i < 8; i++) states[8 * block + i] = state[i]!;
      }
    }
    this.cached = words === undefined ? 0 : wholeBlocks;
    for (let i = 0; i < 8; i++) writeWord(out, outAt + 4 * i, state[i]!);
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
 * SHA-256 of a message by node:crypto. KeyHasher calls it by this module-local name, never `hash` itself: the
 * worker keyHasherSource builds defines its own (an imported binding may be renamed by whatever loads this module).
 */
function digestOf(message: Uint8Array): Uint8Array {
  return hash('sha256', message, 'buffer');
}

/**
 * JavaScript source that defines KeyHasher (this class's own code, from `Function.prototype.toString`) and
 * everything it refers to, for a worker thread started from that source (key-hash-worker.ts): the worker then runs
 * exactly the code this thread runs, without loading this module (under tsx that would load tsx in the worker, ~26 MiB
 * and ~200 ms). The source runs as a CommonJS script (it uses `require`). `__name` is esbuild's keepNames helper,
 * which tsx's output of the class calls.
 */
export function keyHasherSource(): string {
  return [
    'const __name = (target) => target;',
    "const digestOf = (message) => require('node:crypto').hash('sha256', message, 'buffer');",
    `const K = new Int32Array([${K.join(', ')}]);`,
    `const IV = new Int32Array([${IV.join(', ')}]);`,
    `const CACHED_BLOCKS = ${CACHED_BLOCKS};`,
    `const JS_HASH_MAX_BLOCKS = ${JS_HASH_MAX_BLOCKS};`,
    pad.toString(),
    compress.toString(),
    writeWord.toString(),
    `const KeyHasher = ${KeyHasher.toString()};`,
  ].join('\n');
}

/**
 * Writes SHA-256 of `buffer[0, length)` into `out` (32 bytes), compressing every block in JavaScript (KeyHasher's
 * compression without its cache or node:crypto). `buffer` as for KeyHasher.hashInto.
 */
export function sha256Into(buffer: Uint8Array, length: number, out: Uint8Array): void {
  const totalBlocks = ((length + 8) >>> 6) + 1;
  pad(buffer, 0, length);
  const state = new Int32Array(IV);
  for (let block = 0; block < totalBlocks; block++) compress(state, buffer, 64 * block);
  for (let i = 0; i < 8; i++) writeWord(out, 4 * i, state[i]!);
}

/** Writes the padding after the message: 0x80, zeros, the message's length in bits (big-endian, 32 of 64 bits). */
function pad(buffer: Uint8Array, start: number, length: number): void {
  const total = start + ((((length + 8) >>> 6) + 1) << 6);
  buffer[start + length] = 0x80;
  // a loop: at most 67 bytes, where fill's call costs more
  for (let i = start + length + 1; i < total - 4; i++) buffer[i] = 0;
  const bits = length * 8;
  buffer[total - 4] = bits >>> 24;
  buffer[total - 3] = bits >>> 16;
  buffer[total - 2] = bits >>> 8;
  buffer[total - 1] = bits;
}

/** One compression: `state` (8 words) updated with the block at `buffer[at, at + 64)`. */
function compress(state: Int32Array, buffer: Uint8Array, at: number): void {
  // The message schedule lives in 16 locals, updated in place before each 16 rounds after the first, and the 16
  // rounds of a pass are written out with the working variables renamed round by round instead of shifted. A loop
  // over an array of 64 words with eight moves a round took ~320 ns a block; this takes ~250 ns (Node 20). All 64
  // rounds written out ran no faster inside this module (~215 ns alone, ~340 ns here). `!` below: indexes stay
  // inside the padded message, K (64 words) and state (8 words).
  let w0 = (buffer[at + 0]! << 24) | (buffer[at + 1]! << 16) | (buffer[at + 2]! << 8) | buffer[at + 3]!;
  let w1 = (buffer[at + 4]! << 24) | (buffer[at + 5]! << 16) | (buffer[at + 6]! << 8) | buffer[at + 7]!;
  let w2 = (buffer[at + 8]! << 24) | (buffer[at + 9]! << 16) | (buffer[at + 10]! << 8) | buffer[at + 11]!;
  let w3 = (buffer[at + 12]! << 24) | (buffer[at + 13]! << 16) | (buffer[at + 14]! << 8) | buffer[at + 15]!;
  let w4 = (buffer[at + 16]! << 24) | (buffer[at + 17]! << 16) | (buffer[at + 18]! << 8) | buffer[at + 19]!;
  let w5 = (buffer[at + 20]! << 24) | (buffer[at + 21]! << 16) | (buffer[at + 22]! << 8) | buffer[at + 23]!;
  let w6 = (buffer[at + 24]! << 24) | (buffer[at + 25]! << 16) | (buffer[at + 26]! << 8) | buffer[at + 27]!;
  let w7 = (buffer[at + 28]! << 24) | (buffer[at + 29]! << 16) | (buffer[at + 30]! << 8) | buffer[at + 31]!;
  let w8 = (buffer[at + 32]! << 24) | (buffer[at + 33]! << 16) | (buffer[at + 34]! << 8) | buffer[at + 35]!;
  let w9 = (buffer[at + 36]! << 24) | (buffer[at + 37]! << 16) | (buffer[at + 38]! << 8) | buffer[at + 39]!;
  let w10 = (buffer[at + 40]! << 24) | (buffer[at + 41]! << 16) | (buffer[at + 42]! << 8) | buffer[at + 43]!;
  let w11 = (buffer[at + 44]! << 24) | (buffer[at + 45]! << 16) | (buffer[at + 46]! << 8) | buffer[at + 47]!;
  let w12 = (buffer[at + 48]! << 24) | (buffer[at + 49]! << 16) | (buffer[at + 50]! << 8) | buffer[at + 51]!;
  let w13 = (buffer[at + 52]! << 24) | (buffer[at + 53]! << 16) | (buffer[at + 54]! << 8) | buffer[at + 55]!;
  let w14 = (buffer[at + 56]! << 24) | (buffer[at + 57]! << 16) | (buffer[at + 58]! << 8) | buffer[at + 59]!;
  let w15 = (buffer[at + 60]! << 24) | (buffer[at + 61]! << 16) | (buffer[at + 62]! << 8) | buffer[at + 63]!;
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  let s = 0;
  let t = 0;
  for (let round = 0; round < 64; round += 16) {
    if (round > 0) {
      // w[i] += w[i + 9] + σ0(w[i + 1]) + σ1(w[i + 14]), indexes mod 16, in order
      s = w1;
      t = w14;
      w0 = (w0 + w9 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w0 = (w0 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w2;
      t = w15;
      w1 = (w1 + w10 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w1 = (w1 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w3;
      t = w0;
      w2 = (w2 + w11 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w2 = (w2 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w4;
      t = w1;
      w3 = (w3 + w12 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w3 = (w3 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w5;
      t = w2;
      w4 = (w4 + w13 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w4 = (w4 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w6;
      t = w3;
      w5 = (w5 + w14 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w5 = (w5 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w7;
      t = w4;
      w6 = (w6 + w15 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w6 = (w6 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w8;
      t = w5;
      w7 = (w7 + w0 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w7 = (w7 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w9;
      t = w6;
      w8 = (w8 + w1 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w8 = (w8 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w10;
      t = w7;
      w9 = (w9 + w2 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w9 = (w9 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w11;
      t = w8;
      w10 = (w10 + w3 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w10 = (w10 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w12;
      t = w9;
      w11 = (w11 + w4 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w11 = (w11 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w13;
      t = w10;
      w12 = (w12 + w5 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w12 = (w12 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w14;
      t = w11;
      w13 = (w13 + w6 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w13 = (w13 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w15;
      t = w12;
      w14 = (w14 + w7 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w14 = (w14 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
      s = w0;
      t = w13;
      w15 = (w15 + w8 + (((s >>> 7) | (s << 25)) ^ ((s >>> 18) | (s << 14)) ^ (s >>> 3))) | 0;
      w15 = (w15 + (((t >>> 17) | (t << 15)) ^ ((t >>> 19) | (t << 13)) ^ (t >>> 10))) | 0;
    }
    // t = h + Σ1(e) + Ch(e, f, g) + K[i] + w[i]; d += t; h = t + Σ0(a) + Maj(a, b, c); then the names turn
    t = (h + K[round + 0]! + w0 + ((e & f) ^ (~e & g))) | 0;
    t = (t + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))) | 0;
    d = (d + t) | 0;
    h = (t + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = (h + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))) | 0;
    t = (g + K[round + 1]! + w1 + ((d & e) ^ (~d & f))) | 0;
    t = (t + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7)))) | 0;
    c = (c + t) | 0;
    g = (t + ((h & a) ^ (h & b) ^ (a & b))) | 0;
    g = (g + (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10)))) | 0;
    t = (f + K[round + 2]! + w2 + ((c & d) ^ (~c & e))) | 0;
    t = (t + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7)))) | 0;
    b = (b + t) | 0;
    f = (t + ((g & h) ^ (g & a) ^ (h & a))) | 0;
    f = (f + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10)))) | 0;
    t = (e + K[round + 3]! + w3 + ((b & c) ^ (~b & d))) | 0;
    t = (t + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7)))) | 0;
    a = (a + t) | 0;
    e = (t + ((f & g) ^ (f & h) ^ (g & h))) | 0;
    e = (e + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10)))) | 0;
    t = (d + K[round + 4]! + w4 + ((a & b) ^ (~a & c))) | 0;
    t = (t + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7)))) | 0;
    h = (h + t) | 0;
    d = (t + ((e & f) ^ (e & g) ^ (f & g))) | 0;
    d = (d + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10)))) | 0;
    t = (c + K[round + 5]! + w5 + ((h & a) ^ (~h & b))) | 0;
    t = (t + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7)))) | 0;
    g = (g + t) | 0;
    c = (t + ((d & e) ^ (d & f) ^ (e & f))) | 0;
    c = (c + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10)))) | 0;
    t = (b + K[round + 6]! + w6 + ((g & h) ^ (~g & a))) | 0;
    t = (t + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7)))) | 0;
    f = (f + t) | 0;
    b = (t + ((c & d) ^ (c & e) ^ (d & e))) | 0;
    b = (b + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10)))) | 0;
    t = (a + K[round + 7]! + w7 + ((f & g) ^ (~f & h))) | 0;
    t = (t + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7)))) | 0;
    e = (e + t) | 0;
    a = (t + ((b & c) ^ (b & d) ^ (c & d))) | 0;
    a = (a + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10)))) | 0;
    t = (h + K[round + 8]! + w8 + ((e & f) ^ (~e & g))) | 0;
    t = (t + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))) | 0;
    d = (d + t) | 0;
    h = (t + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = (h + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))) | 0;
    t = (g + K[round + 9]! + w9 + ((d & e) ^ (~d & f))) | 0;
    t = (t + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7)))) | 0;
    c = (c + t) | 0;
    g = (t + ((h & a) ^ (h & b) ^ (a & b))) | 0;
    g = (g + (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10)))) | 0;
    t = (f + K[round + 10]! + w10 + ((c & d) ^ (~c & e))) | 0;
    t = (t + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7)))) | 0;
    b = (b + t) | 0;
    f = (t + ((g & h) ^ (g & a) ^ (h & a))) | 0;
    f = (f + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10)))) | 0;
    t = (e + K[round + 11]! + w11 + ((b & c) ^ (~b & d))) | 0;
    t = (t + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7)))) | 0;
    a = (a + t) | 0;
    e = (t + ((f & g) ^ (f & h) ^ (g & h))) | 0;
    e = (e + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10)))) | 0;
    t = (d + K[round + 12]! + w12 + ((a & b) ^ (~a & c))) | 0;
    t = (t + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7)))) | 0;
    h = (h + t) | 0;
    d = (t + ((e & f) ^ (e & g) ^ (f & g))) | 0;
    d = (d + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10)))) | 0;
    t = (c + K[round + 13]! + w13 + ((h & a) ^ (~h & b))) | 0;
    t = (t + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7)))) | 0;
    g = (g + t) | 0;
    c = (t + ((d & e) ^ (d & f) ^ (e & f))) | 0;
    c = (c + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10)))) | 0;
    t = (b + K[round + 14]! + w14 + ((g & h) ^ (~g & a))) | 0;
    t = (t + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7)))) | 0;
    f = (f + t) | 0;
    b = (t + ((c & d) ^ (c & e) ^ (d & e))) | 0;
    b = (b + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10)))) | 0;
    t = (a + K[round + 15]! + w15 + ((f & g) ^ (~f & h))) | 0;
    t = (t + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7)))) | 0;
    e = (e + t) | 0;
    a = (t + ((b & c) ^ (b & d) ^ (c & d))) | 0;
    a = (a + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10)))) | 0;
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
