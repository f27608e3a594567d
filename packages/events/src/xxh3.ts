// Derived from xxHash (https://github.com/Cyan4973/xxHash), whose license this file keeps:
//
//   xxHash - Extremely Fast Hash algorithm
//   Copyright (c) Yann Collet - Meta Platforms, Inc
//   BSD 2-Clause License (https://www.opensource.org/licenses/bsd-license.php)
//
//   Redistribution and use in source and binary forms, with or without modification, are permitted provided that the
//   following conditions are met:
//   * Redistributions of source code must retain the above copyright notice, this list of conditions and the
//     following disclaimer.
//   * Redistributions in binary form must reproduce the above copyright notice, this list of conditions and the
//     following disclaimer in the documentation and/or other materials provided with the distribution.
//
//   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED
//   WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
//   PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT,
//   INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
//   SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
//   THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN
//   ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//
// XXH3-128 with seed 0 and the default secret, in plain JavaScript for inputs of up to 240 bytes (every term value
// but an unusually large topic), transcribed from xxHash 0.8's xxhash.h (XXH3_len_0to16_128b, XXH3_len_17to128_128b,
// XXH3_len_129to240_128b) with the seed terms dropped. Longer inputs go to @node-rs/xxhash. Why: a napi call costs
// 350-600 ns per hash here (argument checks plus a 128-bit BigInt result), several times the whole per-term budget;
// this code costs a few tens of ns for term-sized inputs and allocates nothing. test/xxh3.property.test.ts checks it
// against @node-rs/xxhash for every length 0..300 and random contents.
//
// 64-bit values are (hi, lo) pairs of uint32 numbers; helpers return through module registers (no allocation).
// 32x32 -> 64 products are exact in doubles once one factor is split into 16-bit halves.
import { xxh3 } from '@node-rs/xxhash';

/** Longest input hashed in JavaScript; longer ones take the napi path (XXH3's "long" stripe loop). */
export const XXH3_JS_MAX_INPUT = 240;

// prettier-ignore
const SECRET = Uint8Array.of(
  0xb8,
  0xfe,
  0x6c,
  0x39,
  0x23,
  0xa4,
  0x4b,
  0xbe,
  0x7c,
  0x01,
  0x81,
  0x2c,
  0xf7,
  0x21,
  0xad,
  0x1c,
  0xde,
  0xd4,
  0x6d,
  0xe9,
  0x83,
  0x90,
  0x97,
  0xdb,
  0x72,
  0x40,
  0xa4,
  0xa4,
  0xb7,
  0xb3,
  0x67,
  0x1f,
  0xcb,
  0x79,
  0xe6,
  0x4e,
  0xcc,
  0xc0,
  0xe5,
  0x78,
  0x82,
  0x5a,
  0xd0,
  0x7d,
  0xcc,
  0xff,
  0x72,
  0x21,
  0xb8,
  0x08,
  0x46,
  0x74,
  0xf7,
  0x43,
  0x24,
  0x8e,
  0xe0,
  0x35,
  0x90,
  0xe6,
  0x81,
  0x3a,
  0x26,
  0x4c,
  0x3c,
  0x28,
  0x52,
  0xbb,
  0x91,
  0xc3,
  0x00,
  0xcb,
  0x88,
  0xd0,
  0x65,
  0x8b,
  0x1b,
  0x53,
  0x2e,
  0xa3,
  0x71,
  0x64,
  0x48,
  0x97,
  0xa2,
  0x0d,
  0xf9,
  0x4e,
  0x38,
  0x19,
  0xef,
  0x46,
  0xa9,
  0xde,
  0xac,
  0xd8,
  0xa8,
  0xfa,
  0x76,
  0x3f,
  0xe3,
  0x9c,
  0x34,
  0x3f,
  0xf9,
  0xdc,
  0xbb,
  0xc7,
  0xc7,
  0x0b,
  0x4f,
  0x1d,
  0x8a,
  0x51,
  0xe0,
  0x4b,
  0xcd,
  0xb4,
  0x59,
  0x31,
  0xc8,
  0x9f,
  0x7e,
  0xc9,
  0xd9,
  0x78,
  0x73,
  0x64,
  0xea,
  0xc5,
  0xac,
  0x83,
  0x34,
  0xd3,
  0xeb,
  0xc3,
  0xc5,
  0x81,
  0xa0,
  0xff,
  0xfa,
  0x13,
  0x63,
  0xeb,
  0x17,
  0x0d,
  0xdd,
  0x51,
  0xb7,
  0xf0,
  0xda,
  0x49,
  0xd3,
  0x16,
  0x55,
  0x26,
  0x29,
  0xd4,
  0x68,
  0x9e,
  0x2b,
  0x16,
  0xbe,
  0x58,
  0x7d,
  0x47,
  0xa1,
  0xfc,
  0x8f,
  0xf8,
  0xb8,
  0xd1,
  0x7a,
  0xd0,
  0x31,
  0xce,
  0x45,
  0xcb,
  0x3a,
  0x8f,
  0x95,
  0x16,
  0x04,
  0x28,
  0xaf,
  0xd7,
  0xfb,
  0xca,
  0xbb,
  0x4b,
  0x40,
  0x7e,
);

/** le32(SECRET, i) for every byte offset i (the 129..240 path reads the secret at unaligned offsets). */
const S32 = new Uint32Array(SECRET.length - 3);
for (let i = 0; i < S32.length; i++) {
  S32[i] = (SECRET[i]! | (SECRET[i + 1]! << 8) | (SECRET[i + 2]! << 16) | (SECRET[i + 3]! << 24)) >>> 0;
}

/** Input buffer of the JavaScript paths: callers fill it (or xxh3128Into copies into it) and pass the length. */
export const XXH3_SCRATCH = new Uint8Array(XXH3_JS_MAX_INPUT);
const DV = new DataView(XXH3_SCRATCH.buffer);

// Primes (hi, lo).
const P32_2 = 0x85ebca77;
const P64_1_H = 0x9e3779b1;
const P64_1_L = 0x85ebca87;
const P64_2_H = 0xc2b2ae3d;
const P64_2_L = 0x27d4eb4f;
const P64_3_H = 0x165667b1;
const P64_3_L = 0x9e3779f9;
const P64_4_H = 0x85ebca77;
const P64_4_L = 0xc2b2ae63;
const MX1_H = 0x16566791;
const MX1_L = 0x9e3779f9;
const MX2_H = 0x9fb21c65;
const MX2_L = 0x1e98df25;
const TWO32 = 4294967296;
const INV_TWO32 = 1 / TWO32;

// Module registers in a typed array (unboxed; a module-level `let` holding a uint32 would box it in a HeapNumber
// on every store): a 64-bit result (REG[0]!, REG[1]!), a 32x32 product (REG[2]!, REG[3]!), a 128-bit product (REG[7]!..REG[4]!), and the
// 17..240-byte accumulator (REG[8]!:REG[9]! low64, REG[10]!:REG[11]! high64).
const REG = new Uint32Array(12);

function le32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

/**
 * Exact 32x32 -> 64 product into (REG[2], REG[3]). The low word is Math.imul's; the double product a * b is within
 * 2^11 of the exact one, so (a * b - low) / 2^32 is within 2^-20 of the exact high word and rounds to it.
 */
function mul32(a: number, b: number): void {
  const lo = Math.imul(a, b) >>> 0;
  REG[3] = lo;
  REG[2] = Math.round((a * b - lo) * INV_TWO32);
}

/** Low 64 bits of a 64x64 product into (REG[0], REG[1]). */
function mul64(aH: number, aL: number, bH: number, bL: number): void {
  const lo = Math.imul(aL, bL) >>> 0;
  REG[1] = lo;
  REG[0] = Math.round((aL * bL - lo) * INV_TWO32) + Math.imul(aL, bH) + Math.imul(aH, bL);
}

/** Full 64x64 -> 128 product into REG[7]!..REG[4]! (XXH_mult64to128). */
function mul128(aH: number, aL: number, bH: number, bL: number): void {
  mul32(aL, bL);
  REG[4] = REG[3]!;
  const c = REG[2]!;
  mul32(aL, bH);
  const x0 = REG[3]!;
  const x1 = REG[2]!;
  mul32(aH, bL);
  const y0 = REG[3]!;
  const y1 = REG[2]!;
  mul32(aH, bH);
  const s1 = c + x0 + y0;
  REG[5] = s1 >>> 0;
  const s2 = x1 + y1 + REG[3]! + Math.floor(s1 / TWO32);
  REG[6] = s2 >>> 0;
  REG[7] = (REG[2]! + Math.floor(s2 / TWO32)) >>> 0;
}

/** (REG[0]!, REG[1]!) = a + b mod 2^64. */
function add64(aH: number, aL: number, bH: number, bL: number): void {
  const lo = aL + bL;
  REG[1] = lo >>> 0;
  REG[0] = (aH + bH + (lo >= TWO32 ? 1 : 0)) >>> 0;
}

/** XXH3_avalanche: h ^= h >> 37; h *= PRIME_MX1; h ^= h >> 32. Result in (REG[0]!, REG[1]!). */
function avalanche3(h: number, l: number): void {
  l = (l ^ (h >>> 5)) >>> 0;
  mul64(h, l, MX1_H, MX1_L);
  REG[1] = (REG[1]! ^ REG[0]!) >>> 0;
}

/** XXH64_avalanche: h ^= h >> 33; h *= P64_2; h ^= h >> 29; h *= P64_3; h ^= h >> 32. Result in (REG[0]!, REG[1]!). */
function avalanche64(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0;
  mul64(h, l, P64_2_H, P64_2_L);
  h = REG[0]!;
  // h >> 29 over 64 bits = (hi >>> 29, (lo >>> 29) | (hi << 3)).
  l = (REG[1]! ^ ((REG[1]! >>> 29) | (h << 3))) >>> 0;
  h = (h ^ (h >>> 29)) >>> 0;
  mul64(h, l, P64_3_H, P64_3_L);
  REG[1] = (REG[1]! ^ REG[0]!) >>> 0;
}

function swap32(x: number): number {
  return ((x >>> 24) | ((x >>> 8) & 0xff00) | ((x & 0xff00) << 8) | (x << 24)) >>> 0;
}

/**
 * XXH3_mix16B with seed 0 over SCRATCH at `p` and the secret at `s`: fold64((in_lo ^ s_lo) * (in_hi ^ s_hi)), the
 * 128-bit product written out inline (this is the hot loop; helper calls would box uint32 arguments). Result in
 * (REG[0], REG[1]).
 */
function mix16(p: number, s: number): void {
  const aL = (DV.getUint32(p, true) ^ S32[s]!) >>> 0;
  const aH = (DV.getUint32(p + 4, true) ^ S32[s + 4]!) >>> 0;
  const bL = (DV.getUint32(p + 8, true) ^ S32[s + 8]!) >>> 0;
  const bH = (DV.getUint32(p + 12, true) ^ S32[s + 12]!) >>> 0;
  const l00 = Math.imul(aL, bL) >>> 0;
  const h00 = Math.round((aL * bL - l00) * INV_TWO32);
  const l01 = Math.imul(aL, bH) >>> 0;
  const h01 = Math.round((aL * bH - l01) * INV_TWO32);
  const l10 = Math.imul(aH, bL) >>> 0;
  const h10 = Math.round((aH * bL - l10) * INV_TWO32);
  const l11 = Math.imul(aH, bH) >>> 0;
  const h11 = Math.round((aH * bH - l11) * INV_TWO32);
  const s1 = h00 + l01 + l10;
  const w1 = s1 >>> 0;
  const s2 = h01 + h10 + l11 + (s1 - w1) * INV_TWO32;
  const w2 = s2 >>> 0;
  const w3 = (h11 + (s2 - w2) * INV_TWO32) >>> 0;
  REG[0] = w1 ^ w3;
  REG[1] = l00 ^ w2;
}

/** XXH128_mix32B with seed 0 on the accumulator registers (REG[8..11]), input in SCRATCH. */
function mix32(p1: number, p2: number, s: number): void {
  mix16(p1, s);
  let lo = REG[9]! + REG[1]!;
  let hi = REG[8]! + REG[0]! + (lo >= TWO32 ? 1 : 0);
  let xl = DV.getUint32(p2, true) + DV.getUint32(p2 + 8, true);
  let xh = DV.getUint32(p2 + 4, true) + DV.getUint32(p2 + 12, true) + (xl >= TWO32 ? 1 : 0);
  REG[8] = hi ^ xh;
  REG[9] = lo ^ xl;
  mix16(p2, s + 16);
  lo = REG[11]! + REG[1]!;
  hi = REG[10]! + REG[0]! + (lo >= TWO32 ? 1 : 0);
  xl = DV.getUint32(p1, true) + DV.getUint32(p1 + 8, true);
  xh = DV.getUint32(p1 + 4, true) + DV.getUint32(p1 + 12, true) + (xl >= TWO32 ? 1 : 0);
  REG[10] = hi ^ xh;
  REG[11] = lo ^ xl;
}

function writeLe32(out: Uint8Array, o: number, v: number): void {
  out[o] = v;
  out[o + 1] = v >>> 8;
  out[o + 2] = v >>> 16;
  out[o + 3] = v >>> 24;
}

/** Writes the 128-bit hash (low64 LE, then high64 LE) at `o`. */
function write128(out: Uint8Array, o: number, lowH: number, lowL: number, highH: number, highL: number): void {
  writeLe32(out, o, lowL);
  writeLe32(out, o + 4, lowH);
  writeLe32(out, o + 8, highL);
  writeLe32(out, o + 12, highH);
}

function len1to3(b: Uint8Array, p: number, len: number, out: Uint8Array, o: number): void {
  const combinedl = ((b[p]! << 16) | (b[p + (len >> 1)]! << 24) | b[p + len - 1]! | (len << 8)) >>> 0;
  const sw = swap32(combinedl);
  const combinedh = ((sw << 13) | (sw >>> 19)) >>> 0;
  avalanche64(0, (combinedl ^ S32[0]! ^ S32[4]!) >>> 0);
  const lowH = REG[0]!;
  const lowL = REG[1]!;
  avalanche64(0, (combinedh ^ S32[8]! ^ S32[12]!) >>> 0);
  write128(out, o, lowH, lowL, REG[0]!, REG[1]!);
}

function len4to8(b: Uint8Array, p: number, len: number, out: Uint8Array, o: number): void {
  const inLo = le32(b, p);
  const inHi = le32(b, p + len - 4);
  // keyed = (inHi:inLo) ^ (secret[16..24] ^ secret[24..32])
  const kH = (inHi ^ S32[20]! ^ S32[28]!) >>> 0;
  const kL = (inLo ^ S32[16]! ^ S32[24]!) >>> 0;
  add64(P64_1_H, P64_1_L, 0, len << 2);
  mul128(kH, kL, REG[0]!, REG[1]!);
  // high64 += low64 << 1
  add64(REG[7]!, REG[6]!, ((REG[5]! << 1) | (REG[4]! >>> 31)) >>> 0, (REG[4]! << 1) >>> 0);
  const hiH = REG[0]!;
  const hiL = REG[1]!;
  // low64 ^= high64 >> 3
  let lH = (REG[5]! ^ (hiH >>> 3)) >>> 0;
  let lL = (REG[4]! ^ ((hiL >>> 3) | (hiH << 29))) >>> 0;
  // xorshift 35
  lL = (lL ^ (lH >>> 3)) >>> 0;
  mul64(lH, lL, MX2_H, MX2_L);
  lH = REG[0]!;
  lL = REG[1]!;
  // xorshift 28
  lL = (lL ^ ((lL >>> 28) | (lH << 4))) >>> 0;
  lH = (lH ^ (lH >>> 28)) >>> 0;
  avalanche3(hiH, hiL);
  write128(out, o, lH, lL, REG[0]!, REG[1]!);
}

function len9to16(b: Uint8Array, p: number, len: number, out: Uint8Array, o: number): void {
  const inLoL = le32(b, p);
  const inLoH = le32(b, p + 4);
  let inHiL = le32(b, p + len - 8);
  let inHiH = le32(b, p + len - 4);
  mul128((inLoH ^ inHiH ^ S32[36]! ^ S32[44]!) >>> 0, (inLoL ^ inHiL ^ S32[32]! ^ S32[40]!) >>> 0, P64_1_H, P64_1_L);
  // low64 += (len - 1) << 54
  let mLH = (REG[5]! + ((len - 1) << 22)) >>> 0;
  let mLL = REG[4]!;
  const mHH0 = REG[7]!;
  const mHL0 = REG[6]!;
  inHiH = (inHiH ^ S32[52]! ^ S32[60]!) >>> 0;
  inHiL = (inHiL ^ S32[48]! ^ S32[56]!) >>> 0;
  // high64 += input_hi + (u32)input_hi * (P32_2 - 1)
  add64(mHH0, mHL0, inHiH, inHiL);
  const t1H = REG[0]!;
  const t1L = REG[1]!;
  mul32(inHiL, P32_2 - 1);
  add64(t1H, t1L, REG[2]!, REG[3]!);
  const mHH = REG[0]!;
  const mHL = REG[1]!;
  // low64 ^= swap64(high64)
  mLH = (mLH ^ swap32(mHL)) >>> 0;
  mLL = (mLL ^ swap32(mHH)) >>> 0;
  // h128 = low64 * P64_2 (128-bit); h128.high += high64 * P64_2
  mul128(mLH, mLL, P64_2_H, P64_2_L);
  const hLH = REG[5]!;
  const hLL = REG[4]!;
  const hHH = REG[7]!;
  const hHL = REG[6]!;
  mul64(mHH, mHL, P64_2_H, P64_2_L);
  add64(hHH, hHL, REG[0]!, REG[1]!);
  const hH2 = REG[0]!;
  const hL2 = REG[1]!;
  avalanche3(hLH, hLL);
  const lowH = REG[0]!;
  const lowL = REG[1]!;
  avalanche3(hH2, hL2);
  write128(out, o, lowH, lowL, REG[0]!, REG[1]!);
}

/** Shared finish of the 17..240 paths (seed 0). */
function finish17to240(len: number, out: Uint8Array, o: number): void {
  add64(REG[8]!, REG[9]!, REG[10]!, REG[11]!);
  const lowH = REG[0]!;
  const lowL = REG[1]!;
  mul64(REG[8]!, REG[9]!, P64_1_H, P64_1_L);
  let hH = REG[0]!;
  let hL = REG[1]!;
  mul64(REG[10]!, REG[11]!, P64_4_H, P64_4_L);
  add64(hH, hL, REG[0]!, REG[1]!);
  hH = REG[0]!;
  hL = REG[1]!;
  mul64(0, len, P64_2_H, P64_2_L);
  add64(hH, hL, REG[0]!, REG[1]!);
  hH = REG[0]!;
  hL = REG[1]!;
  avalanche3(lowH, lowL);
  const aLowH = REG[0]!;
  const aLowL = REG[1]!;
  avalanche3(hH, hL);
  // high = 0 - avalanche(high)
  const nL = (~REG[1]! + 1) >>> 0;
  const nH = (~REG[0]! + (nL === 0 ? 1 : 0)) >>> 0;
  write128(out, o, aLowH, aLowL, nH, nL);
}

function len17to128(len: number, out: Uint8Array, o: number): void {
  mul64(0, len, P64_1_H, P64_1_L);
  REG[8] = REG[0]!;
  REG[9] = REG[1]!;
  REG[10] = 0;
  REG[11] = 0;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) mix32(48, len - 64, 96);
      mix32(32, len - 48, 64);
    }
    mix32(16, len - 32, 32);
  }
  mix32(0, len - 16, 0);
  finish17to240(len, out, o);
}

function len129to240(len: number, out: Uint8Array, o: number): void {
  mul64(0, len, P64_1_H, P64_1_L);
  REG[8] = REG[0]!;
  REG[9] = REG[1]!;
  REG[10] = 0;
  REG[11] = 0;
  for (let i = 32; i < 160; i += 32) mix32(i - 32, i - 16, i - 32);
  avalanche3(REG[8]!, REG[9]!);
  REG[8] = REG[0]!;
  REG[9] = REG[1]!;
  avalanche3(REG[10]!, REG[11]!);
  REG[10] = REG[0]!;
  REG[11] = REG[1]!;
  // XXH3_MIDSIZE_STARTOFFSET = 3
  for (let i = 160; i <= len; i += 32) mix32(i - 32, i - 16, 3 + i - 160);
  // XXH3_SECRET_SIZE_MIN (136) - XXH3_MIDSIZE_LASTOFFSET (17) - 16
  mix32(len - 16, len - 32, 103);
  finish17to240(len, out, o);
}

const LOW64 = 0xffffffffffffffffn;
const napiView = new DataView(new ArrayBuffer(16));

/**
 * XXH3-128 (seed 0) of `XXH3_SCRATCH[0, len)` (len <= XXH3_JS_MAX_INPUT), written to `out[o, o + 16)` in the TermKey
 * layout: low 64 bits little-endian, then high 64 bits little-endian.
 */
export function xxh3ScratchInto(len: number, out: Uint8Array, o: number): void {
  const b = XXH3_SCRATCH;
  if (len <= 16) {
    if (len > 8) len9to16(b, 0, len, out, o);
    else if (len >= 4) len4to8(b, 0, len, out, o);
    else if (len > 0) len1to3(b, 0, len, out, o);
    else {
      avalanche64((S32[68]! ^ S32[76]!) >>> 0, (S32[64]! ^ S32[72]!) >>> 0);
      const lowH = REG[0]!;
      const lowL = REG[1]!;
      avalanche64((S32[84]! ^ S32[92]!) >>> 0, (S32[80]! ^ S32[88]!) >>> 0);
      write128(out, o, lowH, lowL, REG[0]!, REG[1]!);
    }
  } else if (len <= 128) len17to128(len, out, o);
  else len129to240(len, out, o);
}

/** XXH3-128 (seed 0) of `b[p, p + len)` into `out[o, o + 16)` (TermKey layout); any length. */
export function xxh3128Into(b: Uint8Array, p: number, len: number, out: Uint8Array, o: number): void {
  if (len <= XXH3_JS_MAX_INPUT) {
    XXH3_SCRATCH.set(b.subarray(p, p + len));
    xxh3ScratchInto(len, out, o);
    return;
  }
  const h = xxh3.xxh128(b.subarray(p, p + len));
  napiView.setBigUint64(0, h & LOW64, true);
  napiView.setBigUint64(8, h >> 64n, true);
  for (let i = 0; i < 16; i++) out[o + i] = napiView.getUint8(i);
}
