// The packfile trailer: the fixed 76 bytes at the end of every pack (FORMAT.md § "Trailer"), and the offset index
// just before the app data. Encoding here; the reader checks them in the order FORMAT.md gives.
import { crc32c } from '@node-rs/crc32';
import { ColdStoreError, ColdStoreErrorCode } from '../errors.js';
import { decodeForGroup, encodeForGroup } from './for-group.js';
import {
  CONTENT_HASH_BYTES,
  FOR_TAIL_BYTES,
  INDEX_GROUP_SIZE,
  KNOWN_TRAILER_FLAGS,
  MAX_DICTIONARY_BYTES,
  MAX_ITEMS_PER_RECORD,
  MAX_RECORD_RAW_BYTES,
  MIN_RECORD_BYTES,
  PACKFILE_MAGIC,
  PACKFILE_VERSION,
  PackCodec,
  TRAILER_BYTES,
  TrailerField,
  V1_TRAILER_BYTES,
} from './format.js';

/** The trailer's fields. */
export interface Trailer {
  readonly flags: number;
  readonly codec: number;
  readonly formatId: number;
  readonly recordCount: number;
  readonly itemCount: number;
  readonly itemsPerRecord: number;
  readonly maxRecordRawBytes: number;
  readonly indexSize: number;
  readonly appDataSize: number;
  readonly contentHash: Uint8Array;
  readonly appDataCrc: number;
  /** Bytes of the dictionary after the records: > 0 exactly when codec is zstdDictionary. */
  readonly dictionarySize: number;
  readonly dictionaryCrc: number;
}

export function encodeTrailer(trailer: Trailer): Uint8Array {
  const bytes = new Uint8Array(TRAILER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(TrailerField.magic, PACKFILE_MAGIC, true);
  view.setUint8(TrailerField.version, PACKFILE_VERSION);
  view.setUint8(TrailerField.flags, trailer.flags);
  view.setUint8(TrailerField.codec, trailer.codec);
  view.setUint32(TrailerField.formatId, trailer.formatId, true);
  view.setUint32(TrailerField.recordCount, trailer.recordCount, true);
  view.setUint32(TrailerField.itemCount, trailer.itemCount, true);
  view.setUint32(TrailerField.itemsPerRecord, trailer.itemsPerRecord, true);
  view.setUint32(TrailerField.maxRecordRawBytes, trailer.maxRecordRawBytes, true);
  view.setUint32(TrailerField.indexSize, trailer.indexSize, true);
  view.setUint32(TrailerField.appDataSize, trailer.appDataSize, true);
  bytes.set(trailer.contentHash, TrailerField.contentHash);
  view.setUint32(TrailerField.appDataCrc, trailer.appDataCrc, true);
  view.setUint32(TrailerField.dictionarySize, trailer.dictionarySize, true);
  view.setUint32(TrailerField.dictionaryCrc, trailer.dictionaryCrc, true);
  view.setUint32(TrailerField.trailerCrc, crc32c(bytes.subarray(0, TrailerField.trailerCrc)), true);
  return bytes;
}

/**
 * Decodes and checks the trailer (`bytes` is exactly the last TRAILER_BYTES of a file of `fileSize` bytes): magic
 * (BAD_MAGIC; BAD_VERSION for a version-1 pack, whose 76-byte trailer puts its magic 8 bytes further in), CRC
 * (CHECKSUM_MISMATCH), version (BAD_VERSION), flags, codec, reserved byte and format id (BAD_FORMAT), then every
 * count against the file size (TRUNCATED when the dictionary, index and app data cannot fit, CORRUPT for counts that
 * contradict each other), so nothing later allocates more than the file could hold.
 */
export function decodeTrailer(bytes: Uint8Array, fileSize: number, expectedFormatId: number, file: string): Trailer {
  const at = fileSize - TRAILER_BYTES;
  const fail = (code: ColdStoreErrorCode, detail: string, field: keyof typeof TrailerField) =>
    new ColdStoreError(code, detail, { file, offset: at + TrailerField[field], field: `trailer.${field}` });
  const view = new DataView(bytes.buffer, bytes.byteOffset, TRAILER_BYTES);
  const u32 = (field: keyof typeof TrailerField) => view.getUint32(TrailerField[field], true);
  if (u32('magic') !== PACKFILE_MAGIC) {
    const v1At = TRAILER_BYTES - V1_TRAILER_BYTES;
    if (view.getUint32(v1At, true) === PACKFILE_MAGIC && view.getUint8(v1At + TrailerField.version) === 1) {
      throw new ColdStoreError(
        ColdStoreErrorCode.BAD_VERSION,
        `a version-1 packfile; this build reads version ${PACKFILE_VERSION}`,
        { file, offset: fileSize - V1_TRAILER_BYTES + TrailerField.version, field: 'trailer.version' },
      );
    }
    throw fail(ColdStoreErrorCode.BAD_MAGIC, 'no packfile trailer at the end (not a packfile, or truncated)', 'magic');
  }
  if (crc32c(bytes.subarray(0, TrailerField.trailerCrc)) !== u32('trailerCrc')) {
    throw fail(ColdStoreErrorCode.CHECKSUM_MISMATCH, 'trailer CRC32C mismatch', 'trailerCrc');
  }
  const version = view.getUint8(TrailerField.version);
  if (version !== PACKFILE_VERSION) {
    throw fail(ColdStoreErrorCode.BAD_VERSION, `version ${version}; this build reads ${PACKFILE_VERSION}`, 'version');
  }
  const flags = view.getUint8(TrailerField.flags);
  if ((flags & ~KNOWN_TRAILER_FLAGS) !== 0) {
    throw fail(ColdStoreErrorCode.BAD_FORMAT, `unknown trailer flags 0x${flags.toString(16)}`, 'flags');
  }
  const codec = view.getUint8(TrailerField.codec);
  if (codec !== PackCodec.none && codec !== PackCodec.zstd && codec !== PackCodec.zstdDictionary) {
    throw fail(ColdStoreErrorCode.BAD_FORMAT, `unknown codec ${codec}`, 'codec');
  }
  if (view.getUint8(TrailerField.reserved) !== 0) {
    throw fail(ColdStoreErrorCode.BAD_FORMAT, 'reserved byte is not 0', 'reserved');
  }
  const formatId = u32('formatId');
  if (formatId !== expectedFormatId) {
    throw fail(
      ColdStoreErrorCode.BAD_FORMAT,
      `format id 0x${formatId.toString(16)}, expected 0x${expectedFormatId.toString(16)}`,
      'formatId',
    );
  }
  const trailer: Trailer = {
    flags,
    codec,
    formatId,
    recordCount: u32('recordCount'),
    itemCount: u32('itemCount'),
    itemsPerRecord: u32('itemsPerRecord'),
    maxRecordRawBytes: u32('maxRecordRawBytes'),
    indexSize: u32('indexSize'),
    appDataSize: u32('appDataSize'),
    contentHash: bytes.slice(TrailerField.contentHash, TrailerField.contentHash + CONTENT_HASH_BYTES),
    appDataCrc: u32('appDataCrc'),
    dictionarySize: u32('dictionarySize'),
    dictionaryCrc: u32('dictionaryCrc'),
  };
  checkCounts(trailer, fileSize, fail);
  return trailer;
}

function checkCounts(
  trailer: Trailer,
  fileSize: number,
  fail: (code: ColdStoreErrorCode, detail: string, field: keyof typeof TrailerField) => ColdStoreError,
): void {
  const { recordCount, itemCount, itemsPerRecord } = trailer;
  if (itemsPerRecord < 1 || itemsPerRecord > MAX_ITEMS_PER_RECORD) {
    throw fail(ColdStoreErrorCode.CORRUPT, `itemsPerRecord ${itemsPerRecord} out of range`, 'itemsPerRecord');
  }
  if (recordCount > itemCount || (itemCount > 0 && recordCount < Math.ceil(itemCount / itemsPerRecord))) {
    throw fail(
      ColdStoreErrorCode.CORRUPT,
      `${recordCount} records cannot hold ${itemCount} items of at most ${itemsPerRecord} each`,
      'recordCount',
    );
  }
  if (trailer.maxRecordRawBytes > MAX_RECORD_RAW_BYTES) {
    throw fail(ColdStoreErrorCode.CORRUPT, `largest record of ${trailer.maxRecordRawBytes} bytes`, 'maxRecordRawBytes');
  }
  const { dictionarySize } = trailer;
  if ((trailer.codec === PackCodec.zstdDictionary) !== dictionarySize > 0 || dictionarySize > MAX_DICTIONARY_BYTES) {
    throw fail(
      ColdStoreErrorCode.CORRUPT,
      `a dictionary of ${dictionarySize} bytes with codec ${trailer.codec}`,
      'dictionarySize',
    );
  }
  if (dictionarySize === 0 && trailer.dictionaryCrc !== 0) {
    throw fail(ColdStoreErrorCode.CORRUPT, 'a dictionary CRC without a dictionary', 'dictionaryCrc');
  }
  if ((trailer.flags & 1) === 0 && trailer.contentHash.some((byte) => byte !== 0)) {
    throw fail(ColdStoreErrorCode.CORRUPT, 'a content hash without its flag', 'contentHash');
  }
  if (trailer.indexSize < indexMinBytes(recordCount)) {
    throw fail(
      ColdStoreErrorCode.CORRUPT,
      `index of ${trailer.indexSize} bytes for ${recordCount} records`,
      'indexSize',
    );
  }
  const recordsEnd = recordsEndOf(trailer, fileSize);
  if (recordsEnd < 0) {
    throw fail(
      ColdStoreErrorCode.TRUNCATED,
      `dictionary (${dictionarySize} B), index (${trailer.indexSize} B) and app data (${trailer.appDataSize} B) do not fit in ${fileSize} bytes`,
      'indexSize',
    );
  }
  if (recordCount * MIN_RECORD_BYTES > recordsEnd) {
    throw fail(ColdStoreErrorCode.TRUNCATED, `${recordCount} records do not fit in ${recordsEnd} bytes`, 'recordCount');
  }
}

/**
 * Where the records end in a file of `fileSize` bytes: `[records][dictionary][offset index][app data][trailer]`, so
 * also where the dictionary starts.
 */
export function recordsEndOf(trailer: Trailer, fileSize: number): number {
  return fileSize - TRAILER_BYTES - trailer.appDataSize - trailer.indexSize - trailer.dictionarySize;
}

/** Groups of the offset index for `recordCount` records (one group sequence each for sizes and counts). */
function indexGroups(recordCount: number): number {
  return Math.ceil(recordCount / INDEX_GROUP_SIZE);
}

/** Fewest bytes an offset index of `recordCount` records can take: W = 0 groups, plus the CRC. */
function indexMinBytes(recordCount: number): number {
  return 2 * indexGroups(recordCount) * FOR_TAIL_BYTES + 4;
}

/**
 * The offset index: record stored sizes in FOR groups of 128, then record item counts in FOR groups of 128, then a
 * CRC32C over both.
 */
export function encodeOffsetIndex(recordSizes: ArrayLike<number>, recordItems: ArrayLike<number>, count: number) {
  const parts: Uint8Array[] = [];
  for (const values of [recordSizes, recordItems]) {
    for (let start = 0; start < count; start += INDEX_GROUP_SIZE) {
      parts.push(encodeForGroup(values, start, Math.min(INDEX_GROUP_SIZE, count - start)));
    }
  }
  const total = parts.reduce((sum, part) => sum + part.length, 0) + 4;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  new DataView(out.buffer).setUint32(at, crc32c(out.subarray(0, at)), true);
  return out;
}

/** Record sizes and item counts, as decoded from the offset index. */
export interface OffsetIndex {
  readonly recordSizes: Uint32Array;
  readonly recordItems: Uint32Array;
}

/**
 * Decodes the offset index (`bytes` is exactly indexSize bytes, found at file offset `base`): CRC
 * (CHECKSUM_MISMATCH), then the groups from the end, which must use every byte (CORRUPT otherwise).
 */
export function decodeOffsetIndex(bytes: Uint8Array, recordCount: number, base: number, file: string): OffsetIndex {
  const crcAt = bytes.length - 4;
  const stored = new DataView(bytes.buffer, bytes.byteOffset + crcAt, 4).getUint32(0, true);
  if (crc32c(bytes.subarray(0, crcAt)) !== stored) {
    throw new ColdStoreError(ColdStoreErrorCode.CHECKSUM_MISMATCH, 'offset index CRC32C mismatch', {
      file,
      offset: base + crcAt,
      field: 'offset index',
    });
  }
  const recordSizes = new Uint32Array(recordCount);
  const recordItems = new Uint32Array(recordCount);
  let end = crcAt;
  for (const [values, field] of [
    [recordItems, 'offset index: record item counts'],
    [recordSizes, 'offset index: record sizes'],
  ] as const) {
    for (let group = indexGroups(recordCount) - 1; group >= 0; group--) {
      const start = group * INDEX_GROUP_SIZE;
      const count = Math.min(INDEX_GROUP_SIZE, recordCount - start);
      end = decodeForGroup(bytes, end, count, 0, values.subarray(start, start + count), { file, base, field });
    }
  }
  if (end !== 0) {
    throw new ColdStoreError(ColdStoreErrorCode.CORRUPT, `${end} bytes before the offset index's groups`, {
      file,
      offset: base,
      field: 'offset index',
    });
  }
  return { recordSizes, recordItems };
}
