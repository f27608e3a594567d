// The XDR genesis writes itself (ConfigSettingEntry arms, the LedgerHeader): big-endian 32-bit words, 64-bit
// integers, fixed opaque runs, and structs of scalars described by a layout, which also reads such a struct back
// (to learn a test Config from a revealed setting). Written values come from this folder's tables and from checked
// options, so one out of range is a bug here (assert), not a caller's mistake.
import { assert } from '@strata/base';

/** The XDR scalar types of the structs genesis writes (XDR `bool` is a uint32 of 0 or 1). */
export type XdrScalar = 'uint32' | 'int64' | 'uint64' | 'bool';

/**
 * A struct made of scalars only, as [field name, XDR type] in declaration order (the order of the `.x` file). The
 * field names are those of the TypeScript model, which are the XDR names.
 */
export type ScalarLayout<T> = readonly (readonly [keyof T & string, XdrScalar])[];

const SCALAR_SIZE: Readonly<Record<XdrScalar, number>> = { uint32: 4, bool: 4, int64: 8, uint64: 8 };

/** The encoded size of a struct of scalars. */
export function scalarStructSize<T>(layout: ScalarLayout<T>): number {
  return layout.reduce((size, [, type]) => size + SCALAR_SIZE[type], 0);
}

/**
 * Reads a struct of scalars at `offset` of `bytes`, which the caller has validated as holding it (a LedgerEntry that
 * passed validation). 64-bit fields come back as numbers: every value genesis compares is a safe integer, and one
 * that is not is returned as NaN so that it equals nothing.
 */
export function readScalarStruct<T>(layout: ScalarLayout<T>, bytes: Uint8Array, offset: number): T {
  assert(offset + scalarStructSize(layout) <= bytes.length, 'struct beyond the bytes');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const value: Record<string, number | boolean> = {};
  let p = offset;
  for (const [field, type] of layout) {
    if (type === 'uint32') value[field] = view.getUint32(p);
    else if (type === 'bool') value[field] = view.getUint32(p) !== 0;
    else {
      const big = type === 'int64' ? view.getBigInt64(p) : view.getBigUint64(p);
      const safe = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER);
      value[field] = safe ? Number(big) : Number.NaN;
    }
    p += SCALAR_SIZE[type];
  }
  return value as T;
}

/** Bytes built append-only; `finish` returns exactly what was written. */
export class XdrOutput {
  #bytes = new Uint8Array(256);
  #view = new DataView(this.#bytes.buffer);
  #length = 0;

  #grow(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#bytes.length) return;
    const next = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
    next.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = next;
    this.#view = new DataView(next.buffer);
  }

  uint32(value: number): this {
    assert(Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff, `uint32 out of range: ${value}`);
    this.#grow(4);
    this.#view.setUint32(this.#length, value);
    this.#length += 4;
    return this;
  }

  /** int64 from a safe integer (every genesis value is one) or a bigint. */
  int64(value: number | bigint): this {
    const big = BigInt(value);
    assert(BigInt.asIntN(64, big) === big, `int64 out of range: ${value}`);
    return this.#word64(BigInt.asUintN(64, big));
  }

  uint64(value: number | bigint): this {
    const big = BigInt(value);
    assert(BigInt.asUintN(64, big) === big, `uint64 out of range: ${value}`);
    return this.#word64(big);
  }

  bool(value: boolean): this {
    return this.uint32(value ? 1 : 0);
  }

  /** Fixed-length opaque (a Hash, a public key): the bytes as they are, their length a multiple of 4. */
  opaque(bytes: Uint8Array): this {
    assert(bytes.length % 4 === 0, `fixed opaque of ${bytes.length} bytes needs padding`);
    this.#grow(bytes.length);
    this.#bytes.set(bytes, this.#length);
    this.#length += bytes.length;
    return this;
  }

  /** Writes the fields of `value` in the order of `layout`. */
  struct<T>(layout: ScalarLayout<T>, value: T): this {
    for (const [field, type] of layout) {
      const fieldValue = value[field] as unknown;
      if (type === 'bool') this.bool(fieldValue as boolean);
      else if (type === 'uint32') this.uint32(fieldValue as number);
      else if (type === 'int64') this.int64(fieldValue as number | bigint);
      else this.uint64(fieldValue as number | bigint);
    }
    return this;
  }

  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }

  #word64(bits: bigint): this {
    this.#grow(8);
    this.#view.setBigUint64(this.#length, bits);
    this.#length += 8;
    return this;
  }
}
