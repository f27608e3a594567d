// Named constants of the packfile container's byte layout (FORMAT.md § "Packfile container"). All integers are
// little-endian.

/**
 * Format versions (the trailer's `version` byte):
 * - 1: records carry a codec flag and a CRC32C over the whole stored record; the offset index holds record sizes
 *   and record item counts (so byte-capped records are addressed exactly); a flat SHA-256 content hash; a 76-byte
 *   trailer with the largest record's raw size. No longer read: refused as BAD_VERSION (see decodeTrailer).
 * - 2: an optional zstd dictionary of the pack's own (codec 2), stored after the records; the trailer grows to 84
 *   bytes with its size and CRC32C.
 */
export const PACKFILE_VERSION = 2;

/** Bytes of a version-1 trailer: a reader finds a v1 file's magic this far from the end, to refuse it by version. */
export const V1_TRAILER_BYTES = 76;

/** The trailer's magic: the bytes "STPK" on disk (u32 LE 0x4b505453). */
export const PACKFILE_MAGIC = 0x4b505453;

/** Size of the fixed trailer at the end of every (version 2) packfile. */
export const TRAILER_BYTES = 84;

/** Byte offsets of the trailer's fields. */
export const TrailerField = {
  magic: 0,
  version: 4,
  flags: 5,
  codec: 6,
  reserved: 7,
  formatId: 8,
  recordCount: 12,
  itemCount: 16,
  itemsPerRecord: 20,
  maxRecordRawBytes: 24,
  indexSize: 28,
  appDataSize: 32,
  contentHash: 36,
  appDataCrc: 68,
  dictionarySize: 72,
  dictionaryCrc: 76,
  trailerCrc: 80,
} as const;

/** Trailer flag bits; any other bit set is refused (BAD_FORMAT). */
export const TrailerFlag = {
  /** The content hash field holds the SHA-256 (else it is all zeros). */
  contentHash: 0x01,
} as const;
export const KNOWN_TRAILER_FLAGS = TrailerFlag.contentHash;

/** The trailer's codec byte: what records may be stored as. */
export const PackCodec = {
  none: 0,
  zstd: 1,
  /** zstd frames compressed against the pack's own dictionary (a raw-content dictionary stored after the records). */
  zstdDictionary: 2,
} as const;

/** Largest dictionary a pack may hold (writer and reader): 16 MiB. */
export const MAX_DICTIONARY_BYTES = 16 * 1024 * 1024;

/** A record's flag byte (just before its CRC); any other bit set is CORRUPT. */
export const RecordFlag = {
  /** The record's payload is one zstd frame (else the raw concatenated items). */
  zstd: 0x01,
} as const;

/** Values per FOR group of the offset index (fixed in version 1). */
export const INDEX_GROUP_SIZE = 128;

/** Bytes after a FOR group's packed residuals: W (u8) then min (u32). */
export const FOR_TAIL_BYTES = 5;

/** Bytes after a record's item-size FOR group: the flag byte and the CRC32C. */
export const RECORD_FOOTER_BYTES = 5;

/** The smallest stored record: an empty payload, a FOR group with W = 0, the flag byte and the CRC. */
export const MIN_RECORD_BYTES = FOR_TAIL_BYTES + RECORD_FOOTER_BYTES;

/** Largest item and largest record payload (raw bytes): 1 GiB. Bounds every allocation a reader makes for a record. */
export const MAX_RECORD_RAW_BYTES = 2 ** 30;

/** Most items one record may hold. */
export const MAX_ITEMS_PER_RECORD = 65_536;

/** Most items one pack may hold (u32 counts). */
export const MAX_PACK_ITEMS = 2 ** 32 - 1;

/** Bytes of the SHA-256 content hash. */
export const CONTENT_HASH_BYTES = 32;
