// A growable big-endian byte buffer for writing XDR directly, without building objects first. The generator writes
// hundreds of thousands of values a second through it, so every method is a few typed-array stores and no allocation
// except when the buffer doubles.
import { assert } from '@strata/base';

/** 2^32 as a number: splits non-negative int64 values held in a JS number into XDR's hi / lo words. */
const TWO_POW_32 = 4_294_967_296;

/**
 * Stores a u32 big-endian at `bytes[at, at + 4)`: fills a moving field of a fragment encoded once (see AccountState's
 * `entry`). `value` may be negative (an int32); the byte stores keep its low 32 bits.
 */
export function setU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = value >>> 16;
  bytes[at + 2] = value >>> 8;
  bytes[at + 3] = value;
}

/** Stores an int64 from a number in [-2^53, 2^53] at `bytes[at, at + 8)`, as XdrWriter.i64 writes it. */
export function setI64(bytes: Uint8Array, at: number, value: number): void {
  const hi = Math.floor(value / TWO_POW_32);
  setU32(bytes, at, hi);
  setU32(bytes, at + 4, value - hi * TWO_POW_32);
}

/**
 * Appends XDR primitives to one growing buffer. Not safe for concurrent use (one writer per ledger being built).
 * `bytes()` returns a view of the written prefix that stays valid until the next write or `reset()`.
 */
export class XdrWriter {
  private buffer: Uint8Array;
  private view: DataView;
  /** Number of bytes written so far (the next write position). */
  length = 0;

  constructor(initialCapacity = 64 * 1024) {
    this.buffer = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buffer.buffer);
  }

  /** Forgets the content but keeps the capacity, so a writer reused per ledger stops allocating after warm-up. */
  reset(): void {
    this.length = 0;
  }

  /** Forgets what was written after the first `length` bytes (a fixed prefix written once stays). */
  truncate(length: number): void {
    assert(length <= this.length, () => `cannot truncate ${this.length} bytes to ${length}`);
    this.length = length;
  }

  /**
   * Makes room for `extra` more bytes. Only the check is here, so that it is inlined into every write (with the
   * growing in it, V8 called it out of line from the hot writes); doubling keeps the amortised cost per byte constant.
   */
  private ensure(extra: number): void {
    if (this.length + extra > this.buffer.length) this.grow(this.length + extra);
  }

  private grow(needed: number): void {
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }

  u32(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, value >>> 0);
    this.length += 4;
  }

  i32(value: number): void {
    this.ensure(4);
    this.view.setInt32(this.length, value | 0);
    this.length += 4;
  }

  /** An int64 / uint64 from a number in [-2^53, 2^53]: exact for every amount, balance and sequence we generate. */
  i64(value: number): void {
    this.ensure(8);
    const hi = Math.floor(value / TWO_POW_32);
    this.view.setInt32(this.length, hi);
    this.view.setUint32(this.length + 4, value - hi * TWO_POW_32);
    this.length += 8;
  }

  /** An int128 (SCV_I128 parts hi:int64, lo:uint64) from a number in [-2^53, 2^53], two's complement. */
  i128(value: number): void {
    this.ensure(16);
    // value = q * 2^32 + r with 0 <= r < 2^32; a negative value's low uint64 is 2^64 + value = (2^32 + q) * 2^32 + r.
    const q = Math.floor(value / TWO_POW_32);
    const r = value - q * TWO_POW_32;
    this.view.setInt32(this.length, value < 0 ? -1 : 0);
    this.view.setInt32(this.length + 4, value < 0 ? -1 : 0);
    this.view.setUint32(this.length + 8, value < 0 ? TWO_POW_32 + q : q);
    this.view.setUint32(this.length + 12, r);
    this.length += 16;
  }

  /** Bytes copied as they are: fixed-length opaque (hashes, keys) or pre-encoded XDR fragments. */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Variable-length opaque / string: length, bytes, zero padding to 4. */
  opaque(bytes: Uint8Array): void {
    this.u32(bytes.length);
    this.raw(bytes);
    const pad = (4 - (bytes.length & 3)) & 3;
    this.ensure(pad);
    for (let i = 0; i < pad; i++) this.buffer[this.length++] = 0;
  }

  /** Overwrites a u32 written earlier, e.g. an array count known only after its elements were written. */
  patchU32(offset: number, value: number): void {
    this.view.setUint32(offset, value >>> 0);
  }

  /** Overwrites bytes written earlier (a placeholder whose content depends on what followed it). */
  patchBytes(offset: number, bytes: Uint8Array): void {
    this.buffer.set(bytes, offset);
  }

  /** A view of everything written so far (no copy). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  /** A view of [from, to) of what was written (no copy). */
  slice(from: number, to: number): Uint8Array {
    return this.buffer.subarray(from, to);
  }

  /** A copy of everything written so far, independent of later writes (carved from `slab` when one is given). */
  copy(slab?: ByteSlab): Uint8Array {
    return slab === undefined ? this.buffer.slice(0, this.length) : slab.copyOf(this.buffer, this.length);
  }

  /**
   * A copy of everything written so far in a fresh array that is not zero-filled first (every byte is overwritten by
   * the copy), for the large per-ledger outputs.
   */
  copyLarge(): Uint8Array {
    const n = this.length;
    const out = new Uint8Array(Buffer.allocUnsafeSlow(n).buffer, 0, n);
    out.set(this.buffer.subarray(0, n));
    return out;
  }
}

/** Typed arrays up to this many bytes are allocated inline with their object; a larger one gets its own backing store. */
const INLINE_TYPED_ARRAY_BYTES = 64;

/**
 * Copies of fragments carved out of shared blocks, for state the generator keeps (Soroban keys and bodies): V8 gives
 * a typed array over 64 bytes a backing store of its own, about ten times the cost of a view into an existing
 * ArrayBuffer. A block stays allocated while any copy in it is alive, so one slab should hold fragments of one
 * lifetime. Copies are plain Uint8Arrays at 4-aligned offsets. Not safe for concurrent use.
 */
export class ByteSlab {
  private block = new ArrayBuffer(0);
  private used = 0;

  constructor(private readonly blockBytes = 16 * 1024) {}

  /** A copy of `bytes[0, length)`: a fresh array when small (or large), else a view into the current block. */
  copyOf(bytes: Uint8Array, length = bytes.length): Uint8Array {
    if (length <= INLINE_TYPED_ARRAY_BYTES || length > this.blockBytes / 4) return bytes.slice(0, length);
    if (this.used + length > this.block.byteLength) {
      this.block = new ArrayBuffer(this.blockBytes);
      this.used = 0;
    }
    const out = new Uint8Array(this.block, this.used, length);
    out.set(length === bytes.length ? bytes : bytes.subarray(0, length));
    this.used += (length + 3) & ~3;
    return out;
  }
}
