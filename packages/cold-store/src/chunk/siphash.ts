// SipHash-2-4 with a 128-bit tag (Aumasson & Bernstein; the reference implementation's `siphash(..., outlen = 16)`),
// the keyed hash that blinds a chunk's term keys before they reach the MPHF (upstream #932): term keys are XXH3 of
// bytes an attacker chooses, so without a secret they could be ground into one MPHF part or bucket and stall the
// chunk's freeze; SipHash is a PRF under its 128-bit key, so without the chunk's secret no one can aim a key.
//
// V8 has no fast 64-bit integer arithmetic, so each 64-bit state word is two uint32 halves (hi, lo), kept in a
// Uint32Array between rounds and in locals inside them. No allocation per call.
import { assert } from '@strata/base';

/** Bytes of a SipHash key (the chunk's index secret). */
export const SIPHASH_KEY_BYTES = 16;
/** Bytes of a SipHash-2-4-128 tag. */
export const SIPHASH_TAG_BYTES = 16;

/** A SipHash-2-4-128 function under one fixed key. Stateless between calls; safe to share on one thread. */
export class SipHash128 {
  private readonly k0h: number;
  private readonly k0l: number;
  private readonly k1h: number;
  private readonly k1l: number;
  /** The four state words as hi/lo halves, reused by every call. */
  private readonly state = new Uint32Array(8);

  constructor(key: Uint8Array) {
    assert(key.length === SIPHASH_KEY_BYTES, 'a SipHash key is 16 bytes (callers check)');
    this.k0l = readU32(key, 0);
    this.k0h = readU32(key, 4);
    this.k1l = readU32(key, 8);
    this.k1h = readU32(key, 12);
  }

  /**
   * Writes the 16-byte tag of `message[offset, offset + length)` to `out[outOffset, outOffset + 16)`: the first u64
   * output word little-endian, then the second (the reference implementation's byte order).
   */
  hash(message: Uint8Array, offset: number, length: number, out: Uint8Array, outOffset: number): void {
    const v = this.state;
    // v0 = k0 ^ "somepseu", v1 = k1 ^ "dorandom" ^ 0xee (128-bit tag), v2 = k0 ^ "lygenera", v3 = k1 ^ "tedbytes".
    // State layout: [v0h, v0l, v1h, v1l, v2h, v2l, v3h, v3l].
    v[0] = this.k0h ^ 0x736f6d65;
    v[1] = this.k0l ^ 0x70736575;
    v[2] = this.k1h ^ 0x646f7261;
    v[3] = this.k1l ^ 0x6e646f6d ^ 0xee;
    v[4] = this.k0h ^ 0x6c796765;
    v[5] = this.k0l ^ 0x6e657261;
    v[6] = this.k1h ^ 0x74656462;
    v[7] = this.k1l ^ 0x79746573;
    const end = offset + length;
    const whole = offset + (length - (length % 8));
    for (let at = offset; at < whole; at += 8) {
      const ml = readU32(message, at);
      const mh = readU32(message, at + 4);
      v[7] ^= ml;
      v[6] ^= mh;
      sipRounds(v, 2);
      v[1] ^= ml;
      v[0] ^= mh;
    }
    // The last block: the remaining bytes little-endian, the length's low byte in the top byte.
    let bl = 0;
    let bh = (length & 0xff) << 24;
    for (let at = whole, shift = 0; at < end; at++, shift += 8) {
      if (shift < 32) bl |= message[at]! << shift;
      else bh |= message[at]! << (shift - 32);
    }
    v[7] ^= bl;
    v[6] ^= bh;
    sipRounds(v, 2);
    v[1] ^= bl;
    v[0] ^= bh;

    v[5] ^= 0xee;
    sipRounds(v, 4);
    writeU32(out, outOffset, v[1]! ^ v[3]! ^ v[5]! ^ v[7]!);
    writeU32(out, outOffset + 4, v[0]! ^ v[2]! ^ v[4]! ^ v[6]!);
    v[3] ^= 0xdd;
    sipRounds(v, 4);
    writeU32(out, outOffset + 8, v[1]! ^ v[3]! ^ v[5]! ^ v[7]!);
    writeU32(out, outOffset + 12, v[0]! ^ v[2]! ^ v[4]! ^ v[6]!);
  }
}

/** `count` SipRounds on the state [v0h, v0l, v1h, v1l, v2h, v2l, v3h, v3l] (loaded into locals for the loop). */
function sipRounds(v: Uint32Array, count: number): void {
  let v0h = v[0]!;
  let v0l = v[1]!;
  let v1h = v[2]!;
  let v1l = v[3]!;
  let v2h = v[4]!;
  let v2l = v[5]!;
  let v3h = v[6]!;
  let v3l = v[7]!;
  let t = 0;
  for (let r = 0; r < count; r++) {
    // v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
    t = (v0l + v1l) >>> 0;
    v0h = (v0h + v1h + (t < v0l ? 1 : 0)) >>> 0;
    v0l = t;
    t = ((v1h << 13) | (v1l >>> 19)) >>> 0;
    v1l = ((v1l << 13) | (v1h >>> 19)) >>> 0;
    v1h = (t ^ v0h) >>> 0;
    v1l = (v1l ^ v0l) >>> 0;
    t = v0h;
    v0h = v0l;
    v0l = t;
    // v2 += v3; v3 = rotl(v3, 16); v3 ^= v2
    t = (v2l + v3l) >>> 0;
    v2h = (v2h + v3h + (t < v2l ? 1 : 0)) >>> 0;
    v2l = t;
    t = ((v3h << 16) | (v3l >>> 16)) >>> 0;
    v3l = ((v3l << 16) | (v3h >>> 16)) >>> 0;
    v3h = (t ^ v2h) >>> 0;
    v3l = (v3l ^ v2l) >>> 0;
    // v0 += v3; v3 = rotl(v3, 21); v3 ^= v0
    t = (v0l + v3l) >>> 0;
    v0h = (v0h + v3h + (t < v0l ? 1 : 0)) >>> 0;
    v0l = t;
    t = ((v3h << 21) | (v3l >>> 11)) >>> 0;
    v3l = ((v3l << 21) | (v3h >>> 11)) >>> 0;
    v3h = (t ^ v0h) >>> 0;
    v3l = (v3l ^ v0l) >>> 0;
    // v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
    t = (v2l + v1l) >>> 0;
    v2h = (v2h + v1h + (t < v2l ? 1 : 0)) >>> 0;
    v2l = t;
    t = ((v1h << 17) | (v1l >>> 15)) >>> 0;
    v1l = ((v1l << 17) | (v1h >>> 15)) >>> 0;
    v1h = (t ^ v2h) >>> 0;
    v1l = (v1l ^ v2l) >>> 0;
    t = v2h;
    v2h = v2l;
    v2l = t;
  }
  v[0] = v0h;
  v[1] = v0l;
  v[2] = v1h;
  v[3] = v1l;
  v[4] = v2h;
  v[5] = v2l;
  v[6] = v3h;
  v[7] = v3l;
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = value >>> 24;
}
