// Reading a record again after checkRecord accepted it: the layout from the record's last bytes, and item sizes
// decoded with 32-bit integer reads instead of checkRecord's checked, allocating decode. Only for bytes that were
// checked and cannot have changed since — the pages of an immutable mapped file, whose records the packfile reader
// checks once per reader (FORMAT.md "Reading"). Nothing here validates: on other bytes the results are meaningless.
import { FOR_TAIL_BYTES, RECORD_FOOTER_BYTES, RecordFlag } from './format.js';
import type { CheckedRecord } from './record.js';

/** Where a checked record's item-size group is: what checkRecord derived, re-derived without its checks. */
export interface RecordLayout {
  readonly compressed: boolean;
  /** Stored payload bytes: the group starts here. */
  readonly payloadBytes: number;
  /** Bits per residual (≤ 32, as checkRecord found). */
  readonly width: number;
  /** The group's minimum. */
  readonly min: number;
}

function u32At(bytes: Uint8Array, at: number): number {
  // Past the end of `bytes` reads undefined, which the shifts turn into 0; no caller relies on those bits.
  return (
    ((bytes[at] as number) |
      ((bytes[at + 1] as number) << 8) |
      ((bytes[at + 2] as number) << 16) |
      ((bytes[at + 3] as number) << 24)) >>>
    0
  );
}

/** The layout of checked record `stored` of `itemCount` items: its last 10 bytes and the count. */
export function layoutOf(stored: Uint8Array, itemCount: number): RecordLayout {
  const groupEnd = stored.length - RECORD_FOOTER_BYTES; // the flag byte and the CRC follow the group
  const width = stored[groupEnd - FOR_TAIL_BYTES] as number;
  const min = u32At(stored, groupEnd - 4);
  const payloadBytes = groupEnd - FOR_TAIL_BYTES - Math.ceil((itemCount * width) / 8);
  const compressed = ((stored[groupEnd] as number) & RecordFlag.zstd) !== 0;
  return { compressed, payloadBytes, width, min };
}

/**
 * The residual at bit `bit` of the group at `groupStart`, for a width of at most 25 bits (`mask` = 2^width − 1):
 * such a residual lies within the 4 bytes at its first byte (shift ≤ 7).
 */
function narrowResidual(stored: Uint8Array, groupStart: number, bit: number, mask: number): number {
  return (u32At(stored, groupStart + (bit >>> 3)) >>> (bit & 7)) & mask;
}

/** Item `index`'s size: residual `index` of the group (W bits at bit index·W, LSB first) plus the minimum. */
export function itemSizeAt(stored: Uint8Array, layout: RecordLayout, index: number): number {
  const { width, min, payloadBytes } = layout;
  const bit = index * width;
  if (width <= 25) return min + narrowResidual(stored, payloadBytes, bit, 2 ** width - 1);
  // 26 to 32 bits: past the 32 - shift bits of the first 4 bytes, the residual may reach into a fifth.
  const at = payloadBytes + (bit >>> 3);
  const shift = bit & 7;
  const low = u32At(stored, at) >>> shift;
  if (shift + width <= 32) return min + (width === 32 ? low : low & (2 ** width - 1));
  const high = (stored[at + 4] as number) & ((1 << (shift + width - 32)) - 1);
  return min + low + high * 2 ** (32 - shift);
}

/** Where item `index` starts in the record's raw payload: the sizes of the items before it, summed. */
export function itemStartAt(stored: Uint8Array, layout: RecordLayout, index: number): number {
  const { width, payloadBytes } = layout;
  if (width > 25) {
    let start = 0;
    for (let i = 0; i < index; i++) start += itemSizeAt(stored, layout, i);
    return start;
  }
  const mask = 2 ** width - 1;
  let residuals = 0;
  for (let i = 0, bit = 0; i < index; i++, bit += width) residuals += narrowResidual(stored, payloadBytes, bit, mask);
  return index * layout.min + residuals;
}

/**
 * What checkRecord returned for these bytes, its item sizes decoded into `sizes` (at least itemCount long; the
 * result's itemSizes is a view of it, valid until the next call with the same `sizes`).
 */
export function recheckRecord(stored: Uint8Array, itemCount: number, sizes: Uint32Array): CheckedRecord {
  const layout = layoutOf(stored, itemCount);
  const { width, min, payloadBytes } = layout;
  let rawBytes = 0;
  if (width > 25) {
    for (let i = 0; i < itemCount; i++) {
      const size = itemSizeAt(stored, layout, i);
      sizes[i] = size;
      rawBytes += size;
    }
  } else {
    const mask = 2 ** width - 1;
    for (let i = 0, bit = 0; i < itemCount; i++, bit += width) {
      const size = min + narrowResidual(stored, payloadBytes, bit, mask);
      sizes[i] = size;
      rawBytes += size;
    }
  }
  return { compressed: layout.compressed, itemSizes: sizes.subarray(0, itemCount), rawBytes, payloadBytes };
}
