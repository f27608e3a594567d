// index.pack items (FORMAT.md § "index.pack"): `fingerprint u32 ‖ codec u8 ‖ body`, the body either the term's
// portable roaring bitmap (codec 0, read in place as a frozen view) or, for a small term whose list is shorter, its
// ordinals as a delta list (codec 1..4: the first ordinal in that many bytes, then LEB128 gaps). Most terms of a
// chunk hold one to a few ordinals: a one-ordinal term is 8 bytes as a list (fingerprint, codec, 3 bytes) against 15
// as a bitmap, which made index.pack ~40 % smaller on a pubnet-like chunk (upstream's unmerged #965 measured 41 %
// with a similar list). Dense terms, the ones queries spend their time in, keep the zero-copy bitmap.
import type { ReadonlyBitmap } from '@strata/events';
import roaring from 'roaring';
import { corrupt } from './layout.js';
import { PortableRoaringWriter } from './portable-roaring.js';

const { RoaringBitmap32 } = roaring;

/** Bytes before the body: the fingerprint (u32 LE of the routed key's bytes 12..15) and the codec byte. */
export const INDEX_ITEM_HEADER_BYTES = 5;
/** Where the codec byte is. */
export const INDEX_ITEM_CODEC_AT = 4;
/** Codec byte of a portable roaring body. Codec c in 1..4 is a delta list whose first ordinal takes c bytes. */
export const ITEM_CODEC_ROARING = 0;
/** Most ordinals a delta list holds: a reader decodes at most this many per lookup (a few µs). */
export const LIST_MAX_ORDINALS = 1024;

/** Bytes of the LEB128 encoding of a u32. */
function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x20_0000 ? 3 : value < 0x1000_0000 ? 4 : 5;
}

/** Bytes of a u32 written in the fewest whole bytes (at least one). */
function widthOf(value: number): number {
  return value < 0x100 ? 1 : value < 0x1_0000 ? 2 : value < 0x100_0000 ? 3 : 4;
}

/**
 * Plans and writes item bodies (codec byte and body) from sorted runs of ordinals, choosing per term the smaller of
 * the delta list (up to LIST_MAX_ORDINALS) and the bitmap, the bitmap on a tie (it is read without decoding).
 */
export class IndexItemWriter {
  private readonly roaring = new PortableRoaringWriter();
  private useList = false;

  /** Plans `values[from, to)` (strictly ascending, at least one); returns the bytes of codec byte and body. */
  plan(values: Uint32Array, from: number, to: number): number {
    const bitmapBytes = this.roaring.plan(values, from, to);
    this.useList = false;
    if (to - from > LIST_MAX_ORDINALS) return 1 + bitmapBytes;
    let listBytes = widthOf(values[from]!);
    for (let i = from + 1; i < to && listBytes < bitmapBytes; i++)
      listBytes += varintBytes(values[i]! - values[i - 1]! - 1);
    this.useList = listBytes < bitmapBytes;
    return 1 + (this.useList ? listBytes : bitmapBytes);
  }

  /** Writes the planned body of the same `values[from, to)` at out[at]; returns the end offset. */
  write(values: Uint32Array, from: number, to: number, out: Uint8Array, at: number): number {
    if (!this.useList) {
      out[at] = ITEM_CODEC_ROARING;
      return this.roaring.write(values, out, at + 1);
    }
    let value = values[from]!;
    const width = widthOf(value);
    out[at++] = width;
    for (let b = 0; b < width; b++) out[at++] = (value >>> (8 * b)) & 0xff;
    for (let i = from + 1; i < to; i++) {
      let gap = values[i]! - value - 1;
      value = values[i]!;
      while (gap >= 0x80) {
        out[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      out[at++] = gap;
    }
    return at;
  }
}

/**
 * Decodes the delta list of the item `bytes[from, to)` (the whole array by default) whose codec byte is 1..4 into
 * `out` (room for LIST_MAX_ORDINALS); returns how many ordinals, or what is wrong as a string: a first ordinal cut
 * short, a gap that is not a canonical LEB128 u32 (more than 5 bytes, a zero last group after the first, an ordinal
 * past 2^32 − 1), more than LIST_MAX_ORDINALS ordinals. The ordinals are strictly ascending by construction.
 * O(item bytes).
 */
export function decodeOrdinalList(bytes: Uint8Array, out: Uint32Array, from = 0, to = bytes.length): number | string {
  const width = bytes[from + INDEX_ITEM_CODEC_AT]!;
  let at = from + INDEX_ITEM_HEADER_BYTES;
  if (width < 1 || width > 4) return `codec ${width}`;
  if (at + width > to) return 'the first ordinal runs past the item';
  let value = 0;
  for (let b = 0, scale = 1; b < width; b++, scale *= 256) value += bytes[at + b]! * scale;
  at += width;
  let count = 0;
  out[count++] = value;
  while (at < to) {
    if (count === LIST_MAX_ORDINALS) return `more than ${LIST_MAX_ORDINALS} ordinals`;
    let gap = 0;
    let shift = 0;
    for (;;) {
      if (at === to) return `gap ${count} runs past the item`;
      const byte = bytes[at++]!;
      if (shift === 28 && byte > 0x0f) return `gap ${count} is over 32 bits`;
      // Below the fifth byte the group fits a 31-bit shift; the fifth holds at most 4 bits (checked above).
      gap += shift < 28 ? (byte & 0x7f) << shift : byte * 0x1000_0000;
      if (byte < 0x80) {
        if (byte === 0 && shift > 0) return `gap ${count} is not canonical`;
        break;
      }
      shift += 7;
    }
    value += gap + 1;
    if (value > 0xffff_ffff) return `ordinal ${count} is past 2^32 - 1`;
    out[count++] = value;
  }
  return count;
}

/** Scratch of listBitmapOf (used synchronously). */
const listScratch = new Uint32Array(LIST_MAX_ORDINALS);

/**
 * The frozen bitmap of a delta-list item (codec 1..4), for a reader: CORRUPT (naming `file` and `slot`) when the
 * list does not decode. A plain bitmap built from at most LIST_MAX_ORDINALS ordinals (no view of the file's bytes),
 * read-only as the views are.
 */
export function listBitmapOf(item: Uint8Array, file: string, slot: number): ReadonlyBitmap {
  const values = listScratch;
  const count = decodeOrdinalList(item, values);
  if (typeof count === 'string') corrupt(file, `item ${slot}: ${count}`, 'ordinal list');
  return new RoaringBitmap32(values.subarray(0, count)).freeze();
}
