// Canonical XDR from the plain-object model (model.ts), for tests and the synthetic-network generator: one writer
// file per type, like the readers (scval.ts, ledger-key.ts, entry-bodies.ts, ...). Every input is checked (byte
// lengths, XDR bounds, integer ranges, nesting, known tags; input-checks.ts) and a bad one throws INVALID_ARGUMENT
// naming the field, so whatever the encode* functions return passes this package's own validation.
//
// This file is the output side they share: XdrWriter, a growable big-endian buffer, and encodeWith, which runs one
// top-level writer into a fresh buffer.

/** Growable big-endian output buffer. Writes only values already checked by the callers below. */
export class XdrWriter {
  #buf = new Uint8Array(128);
  #len = 0;

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let capacity = this.#buf.length * 2;
    while (capacity < this.#len + n) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  u32(value: number): void {
    this.#reserve(4);
    const b = this.#buf;
    const p = this.#len;
    b[p] = value >>> 24;
    b[p + 1] = value >>> 16;
    b[p + 2] = value >>> 8;
    b[p + 3] = value;
    this.#len = p + 4;
  }

  i32(value: number): void {
    this.u32(value >>> 0);
  }

  /** Any bigint in [-2^63, 2^64): written as its low 64 bits (two's complement for negatives). */
  u64(value: bigint): void {
    const bits = BigInt.asUintN(64, value);
    this.u32(Number(bits >> 32n));
    this.u32(Number(bits & 0xffff_ffffn));
  }

  fixed(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buf.set(bytes, this.#len);
    this.#len += bytes.length;
  }

  /** opaque<> / string<>: length, bytes, zero padding. */
  variable(bytes: Uint8Array): void {
    this.u32(bytes.length);
    this.fixed(bytes);
    const pad = (4 - (bytes.length & 3)) & 3;
    this.#reserve(pad);
    this.#buf.fill(0, this.#len, this.#len + pad);
    this.#len += pad;
  }

  finish(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}

/** Runs one top-level writer into a fresh buffer and returns exactly the bytes written. */
export function encodeWith<T>(
  value: T,
  write: (w: XdrWriter, value: T, field: string) => void,
  field: string,
): Uint8Array {
  const w = new XdrWriter();
  write(w, value, field);
  return w.finish();
}
