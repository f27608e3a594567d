// Frame-of-reference (FOR) groups: up to a few thousand u32 values stored as `value - min` residuals of W bits each,
// packed LSB first, followed by W (u8) and min (u32 LE). W and min are the last 5 bytes, so a group is decoded from
// its end: a reader that knows where a group ends and how many values it holds finds where it starts.
import { ColdStoreError, ColdStoreErrorCode } from '../errors.js';
import { FOR_TAIL_BYTES } from './format.js';

const TWO_32 = 2 ** 32;

/** Where a decoding error is reported. */
export interface ForContext {
  readonly file: string;
  /** File offset of byte 0 of the buffer being decoded. */
  readonly base: number;
  readonly field: string;
}

/** Bits needed for `value` (0 for 0). */
function bitLength(value: number): number {
  return value === 0 ? 0 : 32 - Math.clz32(value);
}

/** Bytes of a group of `count` values with residual width `width`. */
export function forGroupBytes(count: number, width: number): number {
  return Math.ceil((count * width) / 8) + FOR_TAIL_BYTES;
}

/** Encodes values[start, start + count) (u32 each) as one FOR group. */
export function encodeForGroup(values: ArrayLike<number>, start: number, count: number): Uint8Array {
  let min = TWO_32;
  let max = 0;
  for (let i = start; i < start + count; i++) {
    const value = values[i] as number; // i < start + count ≤ values.length
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (count === 0) min = 0;
  const width = bitLength(max - min);
  const out = new Uint8Array(forGroupBytes(count, width));
  let at = 0;
  // acc holds at most width + 7 ≤ 39 bits: exact in a double.
  let acc = 0;
  let accBits = 0;
  for (let i = start; i < start + count; i++) {
    acc += ((values[i] as number) - min) * 2 ** accBits;
    accBits += width;
    while (accBits >= 8) {
      out[at++] = acc % 256;
      acc = Math.floor(acc / 256);
      accBits -= 8;
    }
  }
  if (accBits > 0) out[at++] = acc;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint8(at, width);
  view.setUint32(at + 1, min, true);
  return out;
}

/**
 * Decodes the FOR group of `count` values that ends at bytes[end) into `into` (its first `count` slots), checking
 * every bound against `floor` (the group may not start before it). Returns the group's start offset. CORRUPT for a
 * width over 32, a group running below `floor`, or a value over 2^32 - 1.
 */
export function decodeForGroup(
  bytes: Uint8Array,
  end: number,
  count: number,
  floor: number,
  into: { [index: number]: number; readonly length: number },
  context: ForContext,
): number {
  const corrupt = (detail: string, at: number) =>
    new ColdStoreError(ColdStoreErrorCode.CORRUPT, detail, {
      file: context.file,
      offset: context.base + at,
      field: context.field,
    });
  if (end - floor < FOR_TAIL_BYTES) throw corrupt('no room for a FOR group', floor);
  const width = bytes[end - FOR_TAIL_BYTES] as number; // end - 5 ≥ floor ≥ 0
  const min =
    ((bytes[end - 4] as number) |
      ((bytes[end - 3] as number) << 8) |
      ((bytes[end - 2] as number) << 16) |
      ((bytes[end - 1] as number) << 24)) >>>
    0;
  if (width > 32) throw corrupt(`FOR width ${width} is over 32`, end - FOR_TAIL_BYTES);
  const start = end - forGroupBytes(count, width);
  if (start < floor) throw corrupt(`a FOR group of ${count} values needs more bytes than there are`, floor);
  if (width === 0) {
    for (let i = 0; i < count; i++) into[i] = min;
    return start;
  }
  const scale = 2 ** width;
  const maxResidual = TWO_32 - 1 - min;
  let at = start;
  let acc = 0;
  let accBits = 0;
  for (let i = 0; i < count; i++) {
    while (accBits < width) {
      acc += (bytes[at++] as number) * 2 ** accBits; // at < end - 5: the length check above
      accBits += 8;
    }
    const residual = acc % scale;
    acc = Math.floor(acc / scale);
    accBits -= width;
    if (residual > maxResidual) throw corrupt('a FOR value is over 2^32 - 1', start);
    into[i] = min + residual;
  }
  return start;
}
