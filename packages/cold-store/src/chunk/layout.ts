// What a frozen chunk is on disk: the names of its four files, the format ids and versions of each, and the
// little-endian field helpers the chunk-level encodings share (FORMAT.md). Packfile bytes themselves are the
// container's (src/packfile, FORMAT.md § "Packfile container").
import { bucketOfChunk, coldFilePath, MAX_CHUNK_ID } from '@strata/events';
import { ColdStoreError, ColdStoreErrorCode, checkInteger } from '../errors.js';

/**
 * Packfile format id of events.pack: "STE" and the layout version of its items and app data in the low byte.
 * - 0x5354_4501 (v1): item = the stored payload of one ordinal; app data = EVENTS_APP_DATA_VERSION 1.
 */
export const EVENTS_PACK_FORMAT_ID = 0x5354_4501;
/**
 * Packfile format id of index.pack: "STI" and the layout version of its items and app data in the low byte.
 * - 0x5354_4901 (v1): item of slot s = fingerprint u32 LE of the routed key ‖ the term's portable roaring bitmap;
 *   app data = INDEX_APP_DATA_VERSION 1. No longer read (BAD_FORMAT).
 * - 0x5354_4902 (v2): item = fingerprint ‖ codec u8 ‖ body: codec 0 the portable roaring bitmap, codec 1..4 a delta
 *   list of at most 1,024 ordinals whose first takes that many bytes (index-item.ts); app data as v1.
 */
export const INDEX_PACK_FORMAT_ID = 0x5354_4902;

/** Version of events.pack's app data. 1: version u8 ‖ build id (8) ‖ LedgerOffsets (@strata/events encoding). */
export const EVENTS_APP_DATA_VERSION = 1;
/** Version of index.pack's app data. 1: version u8 ‖ build id (8) ‖ term schema u16 ‖ indexed-field mask u64. */
export const INDEX_APP_DATA_VERSION = 1;

/** index.hash: magic "STIH" as bytes 53 54 49 48 (read as u32 LE). */
export const INDEX_HASH_MAGIC = 0x4849_5453;
/** index.hash versions. 1: a 64-byte header (secret, counts, build id, CRC32C of the MPHF) then the MPHF bytes. */
export const INDEX_HASH_VERSION = 1;
export const INDEX_HASH_HEADER_BYTES = 64;

/** Manifest: magic "STCM" as bytes 53 54 43 4d (read as u32 LE). */
export const MANIFEST_MAGIC = 0x4d43_5453;
/** Manifest versions. 1: 128 bytes — chunk, counts, build id, the three files' sizes and hashes, CRC32C. */
export const MANIFEST_VERSION = 1;
export const MANIFEST_BYTES = 128;

/** Items per record of index.pack (spec §3.5.4). */
export const INDEX_ITEMS_PER_RECORD = 128;
/**
 * Events per record of events.pack by default (upstream: 128, spec §3.5.2). A fetch inflates the whole record of
 * every event it returns, so a page of scattered events pays for records × this many events: README "Record size"
 * has the measurement this is chosen by.
 */
export const DEFAULT_EVENTS_PER_RECORD = 16;
/** events.pack closes a record early past this many raw payload bytes (upstream eventsPackMaxRecordBytes). */
export const EVENTS_MAX_RECORD_BYTES = 128 * 1024;
/** Bytes of the build id that ties a chunk's files to one freeze. */
export const BUILD_ID_BYTES = 8;
/** Bytes of the fingerprint in front of each index.pack bitmap. */
export const FINGERPRINT_BYTES = 4;

/** The storage names of one chunk's files: `{bucket %05d}/{chunk %08d}-{kind}` (spec §3.1) plus the manifest. */
export interface ChunkFileNames {
  readonly eventsPack: string;
  readonly indexPack: string;
  readonly indexHash: string;
  /** Written last by a freeze: its presence means the three files are complete and verified. */
  readonly manifest: string;
}

/** INVALID_ARGUMENT (ColdStoreError) for a chunk id that is not an integer in [0, MAX_CHUNK_ID]. */
export function chunkFileNames(chunkId: number): ChunkFileNames {
  checkInteger(chunkId, 0, MAX_CHUNK_ID, 'chunkId');
  const eventsPack = coldFilePath(chunkId, 'events.pack');
  const bucket = bucketOfChunk(chunkId).toString().padStart(5, '0');
  return {
    eventsPack,
    indexPack: coldFilePath(chunkId, 'index.pack'),
    indexHash: coldFilePath(chunkId, 'index.hash'),
    manifest: `${bucket}/${chunkId.toString().padStart(8, '0')}-manifest`,
  };
}

/** Throws `code` about `file` at `offset` (`field` names the structure). */
export function formatError(
  code: ColdStoreErrorCode,
  file: string,
  detail: string,
  offset?: number,
  field?: string,
  cause?: unknown,
): never {
  const context: { file: string; offset?: number; field?: string; cause?: unknown } = { file };
  if (offset !== undefined) context.offset = offset;
  if (field !== undefined) context.field = field;
  if (cause !== undefined) context.cause = cause;
  throw new ColdStoreError(code, detail, context);
}

/** CORRUPT about `file` (bytes that pass their checksums but contradict the format or the other files). */
export function corrupt(file: string, detail: string, field?: string, offset?: number): never {
  formatError(ColdStoreErrorCode.CORRUPT, file, detail, offset, field);
}

export function readU16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

export function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** A u64 LE that must be a safe integer (sizes); undefined when it is not. */
export function readU53(bytes: Uint8Array, at: number): number | undefined {
  const high = readU32(bytes, at + 4);
  if (high > 0x1f_ffff) return undefined;
  return high * 2 ** 32 + readU32(bytes, at);
}

export function writeU16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
}

export function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = value >>> 24;
}

/** Writes a safe integer as u64 LE. */
export function writeU53(bytes: Uint8Array, at: number, value: number): void {
  writeU32(bytes, at, value >>> 0);
  writeU32(bytes, at + 4, Math.floor(value / 2 ** 32));
}

/** A copy of bytes[start, end) that owns its memory (Buffer.slice would share the Buffer's). */
export function copyOf(bytes: Uint8Array, start = 0, end = bytes.length): Uint8Array {
  return new Uint8Array(bytes.subarray(start, end));
}

/** Whether two byte ranges hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
