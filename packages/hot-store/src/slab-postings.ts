// The durable form of the index (FORMAT.md "sealed_slabs"): when a slab of 65,536 ordinals is full, every term it
// holds is written as one entry of one blob, sparse parts as delta varints and dense parts as portable roaring
// bitmaps. Reopening a chunk loads these blobs slab by slab (one deserialize per dense term part instead of one add
// per ordinal) and derives only the open slab's terms from its events, so rebuild work stays bounded by one slab.
import { crc32 } from 'node:zlib';
import { TERM_KEY_BYTES } from '@strata/events';
import roaring from 'roaring';
import { corrupt, type HotStoreError } from './errors.js';
import { SLAB_SHIFT, type TermIndex } from './term-index.js';

const { RoaringBitmap32 } = roaring;

/** Version byte of a sealed-slab blob. 1: version, CRC-32 of the rest, term count, then entries (FORMAT.md). */
export const POSTINGS_BLOB_VERSION = 1;

/** Entry kinds: a delta-varint run, or a portable roaring bitmap. */
const KIND_VARINTS = 0;
const KIND_ROARING = 1;
/** A term part with more ordinals than this is stored as a roaring bitmap (smaller and faster to load). */
const ROARING_ENTRY_MIN = 64;

/** A growable byte buffer with LEB128 varints. */
class ByteWriter {
  bytes = new Uint8Array(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }
  varint(value: number): void {
    this.room(5);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.bytes[this.length++] = v;
  }
  append(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }
  keyOf(index: TermIndex, id: number): void {
    this.room(TERM_KEY_BYTES);
    index.keyInto(id, this.bytes, this.length);
    this.length += TERM_KEY_BYTES;
  }
}

/** The sealed blob of `slab` (which must be full and unsealed) from the index, and how many terms it holds. */
export function encodeSlab(index: TermIndex, slab: number): { blob: Uint8Array; termCount: number } {
  const lo = slab * 2 ** SLAB_SHIFT;
  const hi = lo + 2 ** SLAB_SHIFT;
  const terms = index.termsOfSlab(slab);
  const out = new ByteWriter();
  out.byte(POSTINGS_BLOB_VERSION);
  for (let i = 0; i < 4; i++) out.byte(0); // CRC-32, patched below
  out.varint(terms.length);
  for (const id of terms) {
    const ordinals = index.ordinalsIn(id, lo, hi);
    out.keyOf(index, id);
    if (ordinals.length > ROARING_ENTRY_MIN) {
      const bitmap = new RoaringBitmap32(ordinals);
      bitmap.runOptimize();
      const bytes = bitmap.serialize('portable');
      out.byte(KIND_ROARING);
      out.varint(ordinals.length);
      out.varint(bytes.length);
      out.append(bytes);
    } else {
      out.byte(KIND_VARINTS);
      out.varint(ordinals.length);
      let previous = lo;
      for (let i = 0; i < ordinals.length; i++) {
        out.varint(ordinals[i]! - previous);
        previous = ordinals[i]!;
      }
    }
  }
  const blob = out.bytes.slice(0, out.length);
  new DataView(blob.buffer).setUint32(1, crc32(blob.subarray(5)));
  return { blob, termCount: terms.length };
}

/** Reads one slab's blob into `index`; any inconsistency is CORRUPT (the file named `file`). */
export function loadSlab(index: TermIndex, slab: number, blob: Uint8Array, termCount: number, file: string): void {
  const lo = slab * 2 ** SLAB_SHIFT;
  const hi = lo + 2 ** SLAB_SHIFT;
  const field = `sealed_slabs[${slab}]`;
  let p = 0;
  const fail = (detail: string): HotStoreError => corrupt(file, `${detail} at byte ${p}`, field);
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let k = 0; k < 5; k++) {
      if (p >= blob.length) throw fail('truncated varint');
      const byte = blob[p++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw fail('varint longer than 5 bytes');
  };
  if (blob[p++] !== POSTINGS_BLOB_VERSION) throw fail(`unknown postings blob version ${blob[0]}`);
  if (blob.length < 5) throw fail('truncated header');
  const stored = new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(1);
  if (crc32(blob.subarray(5)) !== stored) throw fail('CRC-32 mismatch');
  p = 5;
  const terms = varint();
  if (terms !== termCount) throw fail(`${terms} terms, the row says ${termCount}`);
  const ordinals = new Uint32Array(ROARING_ENTRY_MIN);
  for (let t = 0; t < terms; t++) {
    if (p + TERM_KEY_BYTES + 1 > blob.length) throw fail('truncated entry');
    const keyAt = p;
    p += TERM_KEY_BYTES;
    const kind = blob[p++];
    const count = varint();
    if (count === 0 || count > hi - lo) throw fail(`entry of ${count} ordinals`);
    if (kind === KIND_VARINTS) {
      if (count > ROARING_ENTRY_MIN) throw fail(`varint entry of ${count} ordinals`);
      let previous = lo;
      for (let i = 0; i < count; i++) {
        const delta = varint();
        if (i > 0 && delta === 0) throw fail('ordinals not ascending');
        previous += delta;
        if (previous >= hi) throw fail(`ordinal ${previous} outside the slab`);
        ordinals[i] = previous;
      }
      index.addSorted(blob, keyAt, ordinals.subarray(0, count));
    } else if (kind === KIND_ROARING) {
      const length = varint();
      if (p + length > blob.length) throw fail('truncated bitmap');
      let bitmap: roaring.RoaringBitmap32;
      try {
        bitmap = RoaringBitmap32.deserialize(blob.subarray(p, p + length), 'portable');
      } catch (error) {
        throw corrupt(file, `bitmap at byte ${p}: ${(error as Error).message}`, field);
      }
      p += length;
      if (bitmap.size !== count || bitmap.minimum() < lo || bitmap.maximum() >= hi) {
        throw fail(`bitmap of ${bitmap.size} ordinals in [${bitmap.minimum()}, ${bitmap.maximum()}]`);
      }
      if (count > index.threshold) index.addBitmap(blob, keyAt, bitmap);
      else index.addSorted(blob, keyAt, bitmap.toUint32Array());
    } else {
      throw fail(`unknown entry kind ${kind}`);
    }
  }
  if (p !== blob.length) throw fail(`${blob.length - p} trailing bytes`);
}
