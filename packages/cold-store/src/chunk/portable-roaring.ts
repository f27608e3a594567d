// The portable roaring serialization (the RoaringFormatSpec format of CRoaring, Java and Go, which
// `RoaringBitmap32.unsafeFrozenView(bytes, 'unsafe_frozen_portable')` reads in place), written straight from a sorted
// run of ordinals, and the structural check a reader runs before it trusts bytes to a frozen view.
//
// Writing in JavaScript rather than through roaring (`new RoaringBitmap32(ordinals)`, `runOptimize()`,
// `serialize('portable')`) saves three native calls per term: a frozen pubnet chunk has millions of terms, most of
// them with a handful of ordinals. Each container takes the smallest of its three forms, as runOptimize() does
// (array for ≤ 4096 values, bitset above, run when strictly smaller). The header is always the run-capable one
// (cookie 12347), even when no container is a run: it is 7 bytes shorter than the no-run header for the one-container
// terms that dominate a chunk, and every portable reader accepts it.
//
// The frozen view reads container bytes where they lie and does not bounds-check them (CRoaring's
// roaring_bitmap_portable_deserialize_frozen takes no length), so a reader must never hand it bytes whose headers
// point past the item: checkPortableStructure walks exactly the bytes the view will walk.
import { assert } from '@strata/base';

/** Cookie of the run-capable header: low 16 bits 12347, high 16 bits the container count minus one. */
const SERIAL_COOKIE = 12347;
/** Cookie of the header without run containers (always followed by a u32 container count). */
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
/** The run-capable header carries per-container offsets only from this many containers on. */
const NO_OFFSET_THRESHOLD = 4;
/** Array containers hold at most this many values; a non-run container with more is a bitset. */
const ARRAY_MAX = 4096;
const BITSET_BYTES = 8192;

enum Kind {
  Array = 0,
  Bitset = 1,
  Run = 2,
}

/** Per-container plan of one encoding, reused across calls (grown on demand). */
export class PortableRoaringWriter {
  private keys = new Uint16Array(16);
  private cards = new Uint32Array(16);
  private runs = new Uint32Array(16);
  private kinds = new Uint8Array(16);
  private firsts = new Uint32Array(17);

  /**
   * Plans the serialization of `values[from, to)` (strictly ascending uint32, at least one) and returns its byte
   * length; `write` then writes exactly that many bytes.
   */
  plan(values: Uint32Array, from: number, to: number): number {
    assert(to > from, 'a term has at least one ordinal');
    let n = 0;
    let i = from;
    while (i < to) {
      const key = values[i]! >>> 16;
      const start = i;
      let runs = 1;
      let previous = values[i]!;
      i++;
      while (i < to) {
        const value = values[i]!;
        if (value >>> 16 !== key) break;
        if (value !== previous + 1) runs++;
        previous = value;
        i++;
      }
      if (n === this.keys.length) this.grow();
      const card = i - start;
      const plain = card > ARRAY_MAX ? BITSET_BYTES : 2 * card;
      const runBytes = 2 + 4 * runs;
      this.keys[n] = key;
      this.cards[n] = card;
      this.runs[n] = runs;
      this.kinds[n] = runBytes < plain ? Kind.Run : card > ARRAY_MAX ? Kind.Bitset : Kind.Array;
      this.firsts[n] = start;
      n++;
    }
    this.firsts[n] = to;
    this.count = n;
    let bytes = headerBytes(n);
    for (let c = 0; c < n; c++) bytes += this.containerBytes(c);
    this.planned = bytes;
    return bytes;
  }

  private count = 0;
  private planned = 0;

  private containerBytes(c: number): number {
    const kind = this.kinds[c]!;
    return kind === Kind.Run ? 2 + 4 * this.runs[c]! : kind === Kind.Bitset ? BITSET_BYTES : 2 * this.cards[c]!;
  }

  /** Writes the planned serialization of the same `values` to `out` at `at`; returns the end offset. */
  write(values: Uint32Array, out: Uint8Array, at: number): number {
    const n = this.count;
    const base = at;
    writeU32(out, at, (SERIAL_COOKIE | ((n - 1) << 16)) >>> 0);
    at += 4;
    const flagBytes = (n + 7) >>> 3;
    out.fill(0, at, at + flagBytes);
    for (let c = 0; c < n; c++) if (this.kinds[c] === Kind.Run) out[at + (c >>> 3)]! |= 1 << (c & 7);
    at += flagBytes;
    for (let c = 0; c < n; c++) {
      writeU16(out, at, this.keys[c]!);
      writeU16(out, at + 2, this.cards[c]! - 1);
      at += 4;
    }
    if (n >= NO_OFFSET_THRESHOLD) {
      let offset = headerBytes(n);
      for (let c = 0; c < n; c++) {
        writeU32(out, at, offset);
        at += 4;
        offset += this.containerBytes(c);
      }
    }
    for (let c = 0; c < n; c++) {
      const from = this.firsts[c]!;
      const to = this.firsts[c + 1]!;
      const kind = this.kinds[c]!;
      if (kind === Kind.Array) {
        for (let i = from; i < to; i++) {
          writeU16(out, at, values[i]! & 0xffff);
          at += 2;
        }
      } else if (kind === Kind.Bitset) {
        out.fill(0, at, at + BITSET_BYTES);
        for (let i = from; i < to; i++) {
          const low = values[i]! & 0xffff;
          out[at + (low >>> 3)]! |= 1 << (low & 7);
        }
        at += BITSET_BYTES;
      } else {
        writeU16(out, at, this.runs[c]!);
        at += 2;
        let i = from;
        while (i < to) {
          const start = values[i]! & 0xffff;
          let end = start;
          i++;
          while (i < to && (values[i]! & 0xffff) === end + 1) {
            end++;
            i++;
          }
          writeU16(out, at, start);
          writeU16(out, at + 2, end - start);
          at += 4;
        }
      }
    }
    assert(at - base === this.planned, 'wrote what was planned');
    return at;
  }

  private grow(): void {
    const size = this.keys.length * 2;
    const keys = new Uint16Array(size);
    keys.set(this.keys);
    this.keys = keys;
    const cards = new Uint32Array(size);
    cards.set(this.cards);
    this.cards = cards;
    const runs = new Uint32Array(size);
    runs.set(this.runs);
    this.runs = runs;
    const kinds = new Uint8Array(size);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const firsts = new Uint32Array(size + 1);
    firsts.set(this.firsts);
    this.firsts = firsts;
  }
}

/** Bytes of the run-capable header for `n` containers: cookie, run flags, descriptive headers, offsets from 4 on. */
function headerBytes(n: number): number {
  return 4 + ((n + 7) >>> 3) + 4 * n + (n >= NO_OFFSET_THRESHOLD ? 4 * n : 0);
}

/**
 * Checks that `bytes[from, to)` is exactly one portable roaring bitmap as far as a frozen view walks it: a known
 * cookie, a container count whose headers fit, keys strictly ascending, array and bitset containers inside the
 * bytes, run containers with at least one run, runs ascending, disjoint and inside their 16-bit container, their
 * lengths summing to the header's cardinality, and nothing left over. Returns undefined when it is, else what is
 * wrong. Array values and bitset words are not read (O(containers + runs)): their integrity is the record
 * checksum's. An empty bitmap (no container) is refused: no stored term has one.
 */
export function checkPortableStructure(bytes: Uint8Array, from: number, to: number): string | undefined {
  const length = to - from;
  if (length < 4) return 'shorter than a cookie';
  const cookie = readU32(bytes, from);
  if ((cookie & 0xffff) !== SERIAL_COOKIE) {
    if (cookie !== SERIAL_COOKIE_NO_RUNCONTAINER) return `cookie ${cookie}`;
    if (length < 8) return 'no container count';
    const count = readU32(bytes, from + 4);
    if (count === 0) return 'no container';
    if (count > 65536) return `${count} containers`;
  }
  const { n, runFlags, descriptive, at: first } = layoutOf(bytes, from);
  let at = first;
  if (at > to) return `headers of ${n} containers run past the bitmap`;
  let previousKey = -1;
  for (let c = 0; c < n; c++) {
    const key = readU16(bytes, descriptive + 4 * c);
    const card = readU16(bytes, descriptive + 4 * c + 2) + 1;
    if (key <= previousKey) return `container ${c}: key ${key} after ${previousKey}`;
    previousKey = key;
    const isRun = runFlags >= 0 && (bytes[runFlags + (c >>> 3)]! & (1 << (c & 7))) !== 0;
    if (isRun) {
      if (at + 2 > to) return `container ${c}: run count past the bitmap`;
      const runs = readU16(bytes, at);
      at += 2;
      if (runs === 0) return `container ${c}: no runs`;
      if (at + 4 * runs > to) return `container ${c}: ${runs} runs past the bitmap`;
      let next = 0;
      let total = 0;
      for (let r = 0; r < runs; r++) {
        const start = readU16(bytes, at);
        const extra = readU16(bytes, at + 2);
        at += 4;
        if (start < next) return `container ${c}: run ${r} starts at ${start}, before ${next}`;
        if (start + extra > 0xffff) return `container ${c}: run ${r} passes the container`;
        next = start + extra + 2; // disjoint and not adjacent, as runOptimize writes them
        total += extra + 1;
      }
      if (total !== card) return `container ${c}: runs hold ${total} values, the header says ${card}`;
    } else {
      const size = card > ARRAY_MAX ? BITSET_BYTES : 2 * card;
      if (at + size > to) return `container ${c}: ${size} bytes past the bitmap`;
      at += size;
    }
  }
  if (at !== to) return `${to - at} bytes after the bitmap`;
  return undefined;
}

/** Where a bitmap's parts start (reads only its cookie and count): container count, run flags (or -1), descriptive
 * headers, first container byte. */
function layoutOf(bytes: Uint8Array, from: number): { n: number; runFlags: number; descriptive: number; at: number } {
  const cookie = readU32(bytes, from);
  let at = from + 4;
  let n: number;
  let runFlags = -1;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    n = (cookie >>> 16) + 1;
    runFlags = at;
    at += (n + 7) >>> 3;
  } else {
    n = readU32(bytes, at);
    at += 4;
  }
  const descriptive = at;
  at += 4 * n;
  if (runFlags < 0 || n >= NO_OFFSET_THRESHOLD) at += 4 * n;
  return { n, runFlags, descriptive, at };
}

/** The cardinality of a bitmap that passed checkPortableStructure: the sum of its headers' (O(containers)). */
export function portableCardinality(bytes: Uint8Array, from: number): number {
  const { n, descriptive } = layoutOf(bytes, from);
  let total = 0;
  for (let c = 0; c < n; c++) total += readU16(bytes, descriptive + 4 * c + 2) + 1;
  return total;
}

/**
 * Writes the values of a bitmap that passed checkPortableStructure to `out` (room for its cardinality), ascending
 * when the bytes are sound; returns how many. A plain decoder of the format, independent of roaring's: a freeze
 * compares what it wrote with the hot index through it.
 */
export function decodePortable(bytes: Uint8Array, from: number, out: Uint32Array): number {
  const { n, runFlags, descriptive, at: first } = layoutOf(bytes, from);
  let at = first;
  let count = 0;
  for (let c = 0; c < n; c++) {
    const high = readU16(bytes, descriptive + 4 * c) * 65_536;
    const card = readU16(bytes, descriptive + 4 * c + 2) + 1;
    const isRun = runFlags >= 0 && (bytes[runFlags + (c >>> 3)]! & (1 << (c & 7))) !== 0;
    if (isRun) {
      const runs = readU16(bytes, at);
      at += 2;
      for (let r = 0; r < runs; r++) {
        const start = high + readU16(bytes, at);
        const end = start + readU16(bytes, at + 2);
        at += 4;
        for (let v = start; v <= end; v++) out[count++] = v;
      }
    } else if (card > ARRAY_MAX) {
      for (let byte = 0; byte < BITSET_BYTES; byte++) {
        let bits = bytes[at + byte]!;
        while (bits !== 0) {
          const low = 31 - Math.clz32(bits & -bits);
          out[count++] = high + byte * 8 + low;
          bits &= bits - 1;
        }
      }
      at += BITSET_BYTES;
    } else {
      for (let i = 0; i < card; i++) out[count++] = high + readU16(bytes, at + 2 * i);
      at += 2 * card;
    }
  }
  return count;
}

function readU16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function writeU16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = value >>> 8;
}

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = value >>> 24;
}
