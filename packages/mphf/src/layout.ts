// The flat byte layout of a function (FORMAT.md is the prose version): an 88-byte little-endian header; the part
// table, pilot, remap and fingerprint sections, each starting at a multiple of 8 bytes from the function's first
// byte; and an 8-byte checksum trailer. `readLayout` is the one place that trusts nothing: it validates every field
// and every stored value a query can return before a query may use them, so a damaged buffer throws at open and
// never answers wrongly.
import { MphfError } from './errors.js';
import { hash128 } from './hash.js';

/**
 * Format versions. A reader accepts exactly the versions listed here.
 * - 1: the first layout (header, part table, 8-bit pilots, 16-bit per-part remap, optional 8/16/32-bit
 *   fingerprints, 64-bit checksum).
 */
export const MPHF_FORMAT_VERSION = 1;

/** "SMPH" (Strata Minimal Perfect Hash) as the first four bytes. */
export const MAGIC = Uint8Array.of(0x53, 0x4d, 0x50, 0x48);

/** Header size of format version 1. */
export const HEADER_LENGTH = 88;
/** The checksum trailer: MurmurHash3 x86_128 (seed 0) words h1, h2 of every byte before it. */
export const CHECKSUM_LENGTH = 8;
/** Keys a part may hold: remap targets are part-local and stored in 16 bits. */
export const MAX_PART_KEYS = 65536;

/** Key hash of version 1: MurmurHash3 x86_128 with the header's seed. */
export const HASH_MURMUR3_X86_128 = 1;
/** Bucket function of version 1: PtrHash's cubic-eps skew (see `bucketOf`). */
export const BUCKET_FN_CUBIC_EPS = 1;
/** Header flag: a fingerprint section is present. */
export const FLAG_FINGERPRINTS = 1;

/** Byte offsets of the header fields (u32 little-endian unless marked). */
export const Field = {
  magic: 0, // 4 bytes
  version: 4, // u16
  flags: 6, // u16
  headerLength: 8,
  totalLength: 12,
  keyCount: 16,
  seed: 20,
  parts: 24,
  bucketsPerPart: 28,
  slotCount: 32, // all parts together
  lambdaMicros: 36, // lambda × 10⁶, informational
  alphaMicros: 40, // alpha × 10⁶, informational
  fingerprintBits: 44, // u8
  hashId: 45, // u8
  bucketFnId: 46, // u8
  reserved8: 47, // u8, zero
  partTableOffset: 48,
  partTableLength: 52,
  pilotsOffset: 56,
  pilotsLength: 60,
  remapOffset: 64,
  remapLength: 68,
  fingerprintsOffset: 72,
  fingerprintsLength: 76,
  checksumOffset: 80,
  reserved32: 84, // zero
} as const;

/** Everything a query needs, validated. Offsets are relative to the function's first byte. */
export interface Layout {
  keyCount: number;
  seed: number;
  parts: number;
  bucketsPerPart: number;
  /** Slots of all parts together (≥ keyCount); each part has its own spare slots above its key count. */
  slotCount: number;
  lambdaMicros: number;
  alphaMicros: number;
  fingerprintBits: number;
  partTableOffset: number;
  partTableLength: number;
  pilotsOffset: number;
  pilotsLength: number;
  remapOffset: number;
  remapLength: number;
  fingerprintsOffset: number;
  fingerprintsLength: number;
  checksumOffset: number;
  totalLength: number;
}

export type LayoutShape = Pick<
  Layout,
  'keyCount' | 'seed' | 'parts' | 'bucketsPerPart' | 'slotCount' | 'lambdaMicros' | 'alphaMicros' | 'fingerprintBits'
>;

const MAX_U32 = 0xffff_ffff;

function align8(value: number): number {
  return Math.ceil(value / 8) * 8;
}

/** Where the sections of a function with these parameters go: the only placement a version-1 reader accepts. */
export function planLayout(shape: LayoutShape): Layout {
  const partTableOffset = HEADER_LENGTH;
  const partTableLength = 8 * (shape.parts + 1);
  const pilotsOffset = align8(partTableOffset + partTableLength);
  const pilotsLength = shape.parts * shape.bucketsPerPart;
  const remapOffset = align8(pilotsOffset + pilotsLength);
  const remapLength = 2 * (shape.slotCount - shape.keyCount);
  const fingerprintsOffset = align8(remapOffset + remapLength);
  const fingerprintsLength = (shape.keyCount * shape.fingerprintBits) / 8;
  const checksumOffset = align8(fingerprintsOffset + fingerprintsLength);
  return {
    ...shape,
    partTableOffset,
    partTableLength,
    pilotsOffset,
    pilotsLength,
    remapOffset,
    remapLength,
    fingerprintsOffset,
    fingerprintsLength,
    checksumOffset,
    totalLength: checksumOffset + CHECKSUM_LENGTH,
  };
}

export function readU16(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! | (bytes[offset + 1]! << 8);
}

export function readU32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24)) >>> 0;
}

export function writeU16(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >>> 8) & 0xff;
}

export function writeU32(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >>> 8) & 0xff;
  bytes[offset + 2] = (value >>> 16) & 0xff;
  bytes[offset + 3] = value >>> 24;
}

/** Writes the header of `layout` into `out` (the function's bytes, zero-filled, `layout.totalLength` long). */
export function writeHeader(out: Uint8Array, layout: Layout): void {
  out.set(MAGIC, Field.magic);
  writeU16(out, Field.version, MPHF_FORMAT_VERSION);
  writeU16(out, Field.flags, layout.fingerprintBits === 0 ? 0 : FLAG_FINGERPRINTS);
  writeU32(out, Field.headerLength, HEADER_LENGTH);
  writeU32(out, Field.totalLength, layout.totalLength);
  writeU32(out, Field.keyCount, layout.keyCount);
  writeU32(out, Field.seed, layout.seed);
  writeU32(out, Field.parts, layout.parts);
  writeU32(out, Field.bucketsPerPart, layout.bucketsPerPart);
  writeU32(out, Field.slotCount, layout.slotCount);
  writeU32(out, Field.lambdaMicros, layout.lambdaMicros);
  writeU32(out, Field.alphaMicros, layout.alphaMicros);
  out[Field.fingerprintBits] = layout.fingerprintBits;
  out[Field.hashId] = HASH_MURMUR3_X86_128;
  out[Field.bucketFnId] = BUCKET_FN_CUBIC_EPS;
  writeU32(out, Field.partTableOffset, layout.partTableOffset);
  writeU32(out, Field.partTableLength, layout.partTableLength);
  writeU32(out, Field.pilotsOffset, layout.pilotsOffset);
  writeU32(out, Field.pilotsLength, layout.pilotsLength);
  writeU32(out, Field.remapOffset, layout.remapOffset);
  writeU32(out, Field.remapLength, layout.remapLength);
  writeU32(out, Field.fingerprintsOffset, layout.fingerprintsOffset);
  writeU32(out, Field.fingerprintsLength, layout.fingerprintsLength);
  writeU32(out, Field.checksumOffset, layout.checksumOffset);
}

/** The checksum of a function's bytes before `checksumOffset`: MurmurHash3 x86_128 words h1, h2. */
function computeChecksum(bytes: Uint8Array, checksumOffset: number): Int32Array {
  const words = new Int32Array(4);
  hash128(bytes, 0, checksumOffset, 0, words);
  return words;
}

/** Writes the checksum trailer; call after every other byte is final. */
export function sealChecksum(bytes: Uint8Array, checksumOffset: number): void {
  const words = computeChecksum(bytes, checksumOffset);
  writeU32(bytes, checksumOffset, words[0]!);
  writeU32(bytes, checksumOffset + 4, words[1]!);
}

function badHeader(field: keyof typeof Field, detail: string): MphfError {
  return new MphfError('BAD_HEADER', detail, { field, offset: Field[field] });
}

/**
 * Validates a function's bytes (which may be followed by unrelated bytes) and returns its layout. Checks, in order:
 * length for a header, magic, version, total length against the buffer, checksum, then every field against the
 * canonical layout of its parameters, the part table, and every remap target. Throws MphfError; never returns a
 * layout a query could read out of bounds with or that could answer outside [0, keyCount).
 */
export function readLayout(bytes: Uint8Array): Layout {
  if (bytes.length < MAGIC.length) {
    throw new MphfError('TRUNCATED', `${bytes.length} bytes cannot hold a function header`);
  }
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i])
      throw new MphfError('BAD_MAGIC', 'not a Strata MPHF (magic "SMPH" expected)', { offset: 0 });
  }
  if (bytes.length < HEADER_LENGTH) {
    throw new MphfError('TRUNCATED', `${bytes.length} bytes cannot hold the ${HEADER_LENGTH}-byte header`);
  }
  const version = readU16(bytes, Field.version);
  if (version !== MPHF_FORMAT_VERSION) {
    throw new MphfError('UNSUPPORTED_VERSION', `format version ${version}; this reader knows ${MPHF_FORMAT_VERSION}`, {
      field: 'version',
      offset: Field.version,
    });
  }
  const totalLength = readU32(bytes, Field.totalLength);
  if (totalLength < HEADER_LENGTH + CHECKSUM_LENGTH || totalLength % 8 !== 0) {
    throw badHeader('totalLength', `total length ${totalLength} is not a valid function size`);
  }
  if (bytes.length < totalLength) {
    throw new MphfError('TRUNCATED', `the header says ${totalLength} bytes, the buffer has ${bytes.length}`, {
      field: 'totalLength',
      offset: Field.totalLength,
    });
  }
  const checksumOffset = totalLength - CHECKSUM_LENGTH;
  const expected = computeChecksum(bytes, checksumOffset);
  if (
    readU32(bytes, checksumOffset) !== expected[0]! >>> 0 ||
    readU32(bytes, checksumOffset + 4) !== expected[1]! >>> 0
  ) {
    throw new MphfError('CHECKSUM_MISMATCH', 'the checksum over header and sections does not match', {
      offset: checksumOffset,
    });
  }

  const keyCount = readU32(bytes, Field.keyCount);
  const parts = readU32(bytes, Field.parts);
  const bucketsPerPart = readU32(bytes, Field.bucketsPerPart);
  const slotCount = readU32(bytes, Field.slotCount);
  const fingerprintBits = bytes[Field.fingerprintBits]!;
  if (readU32(bytes, Field.headerLength) !== HEADER_LENGTH) throw badHeader('headerLength', `not ${HEADER_LENGTH}`);
  if (bytes[Field.hashId] !== HASH_MURMUR3_X86_128) throw badHeader('hashId', 'unknown key hash');
  if (bytes[Field.bucketFnId] !== BUCKET_FN_CUBIC_EPS) throw badHeader('bucketFnId', 'unknown bucket function');
  if (bytes[Field.reserved8] !== 0 || readU32(bytes, Field.reserved32) !== 0) {
    throw badHeader('reserved32', 'reserved bytes are not zero');
  }
  if (fingerprintBits !== 0 && fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) {
    throw badHeader('fingerprintBits', `${fingerprintBits} is not 0, 8, 16 or 32`);
  }
  const flags = readU16(bytes, Field.flags);
  if (flags !== (fingerprintBits === 0 ? 0 : FLAG_FINGERPRINTS)) throw badHeader('flags', `flags ${flags}`);
  if (parts < 1 || parts > (MAX_U32 - HEADER_LENGTH) / 8 - 1) throw badHeader('parts', `${parts} parts`);
  if (keyCount === 0 ? parts !== 1 || bucketsPerPart !== 0 || slotCount !== 0 : bucketsPerPart < 1) {
    throw badHeader('bucketsPerPart', `${bucketsPerPart} buckets per part for ${keyCount} keys`);
  }
  if (slotCount < keyCount || parts * bucketsPerPart > MAX_U32) {
    throw badHeader('slotCount', `${slotCount} slots for ${keyCount} keys`);
  }

  const layout = planLayout({
    keyCount,
    seed: readU32(bytes, Field.seed),
    parts,
    bucketsPerPart,
    slotCount,
    lambdaMicros: readU32(bytes, Field.lambdaMicros),
    alphaMicros: readU32(bytes, Field.alphaMicros),
    fingerprintBits,
  });
  for (const field of [
    'partTableOffset',
    'partTableLength',
    'pilotsOffset',
    'pilotsLength',
    'remapOffset',
    'remapLength',
    'fingerprintsOffset',
    'fingerprintsLength',
    'checksumOffset',
    'totalLength',
  ] as const) {
    const stored = readU32(bytes, Field[field]);
    if (stored !== layout[field])
      throw badHeader(field, `${stored}, the layout of these parameters needs ${layout[field]}`);
  }
  validatePartsAndRemap(bytes, layout);
  return layout;
}

/**
 * The part table holds (first key, first slot) of every part and a closing entry (keyCount, slotCount). Every part
 * of a non-empty function has 1 to 65536 keys and at least as many slots; its spare slots' remap targets (in part
 * order in the remap section) are below its key count. These are exactly the facts a query relies on.
 */
function validatePartsAndRemap(bytes: Uint8Array, layout: Layout): void {
  const { partTableOffset, parts, keyCount, slotCount, remapOffset } = layout;
  const fail = (offset: number, detail: string) => new MphfError('BAD_HEADER', detail, { field: 'partTable', offset });
  if (readU32(bytes, partTableOffset) !== 0 || readU32(bytes, partTableOffset + 4) !== 0) {
    throw fail(partTableOffset, 'the first part does not start at key 0 and slot 0');
  }
  const end = partTableOffset + 8 * parts;
  if (readU32(bytes, end) !== keyCount || readU32(bytes, end + 4) !== slotCount) {
    throw fail(end, `the part table does not end at (${keyCount}, ${slotCount})`);
  }
  if (keyCount === 0) return;
  let remapAt = remapOffset;
  for (let p = 0; p < parts; p++) {
    const at = partTableOffset + 8 * p;
    const keys = readU32(bytes, at + 8) - readU32(bytes, at);
    const slots = readU32(bytes, at + 12) - readU32(bytes, at + 4);
    // Differences of u32 fields: a decreasing table shows up as a negative count.
    if (keys < 1 || keys > MAX_PART_KEYS || slots < keys) {
      throw fail(at, `part ${p} has ${keys} keys and ${slots} slots`);
    }
    for (let spare = keys; spare < slots; spare++, remapAt += 2) {
      const target = readU16(bytes, remapAt);
      if (target >= keys) {
        throw new MphfError('BAD_HEADER', `remap target ${target} of part ${p} is not below its ${keys} keys`, {
          field: 'remap',
          offset: remapAt,
        });
      }
    }
  }
}
