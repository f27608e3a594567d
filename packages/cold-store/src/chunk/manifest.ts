// The chunk manifest (FORMAT.md § "Manifest"): 128 bytes a freeze writes last, atomically, after the three
// files are durable and verified. Its presence is what switches a chunk to the cold tier; its content binds the
// three files (sizes, content hashes, the index.hash header CRC, the build id), so files swapped in afterwards are
// refused rather than served.
import { crc32c } from '@node-rs/crc32';
import { ColdStoreErrorCode } from '../errors.js';
import {
  BUILD_ID_BYTES,
  copyOf,
  corrupt,
  formatError,
  MANIFEST_BYTES,
  MANIFEST_MAGIC,
  MANIFEST_VERSION,
  readU16,
  readU32,
  readU53,
  writeU16,
  writeU32,
  writeU53,
} from './layout.js';

export interface ChunkManifest {
  readonly chunkId: number;
  readonly eventCount: number;
  readonly termCount: number;
  readonly buildId: Uint8Array;
  readonly eventsPackBytes: number;
  readonly indexPackBytes: number;
  readonly indexHashBytes: number;
  /** SHA-256 content hash of events.pack (its trailer's). */
  readonly eventsContentHash: Uint8Array;
  /** SHA-256 content hash of index.pack (its trailer's). */
  readonly indexContentHash: Uint8Array;
  /** CRC32C of index.hash's header (which covers its MPHF's CRC). */
  readonly indexHashCrc: number;
}

const AT = {
  magic: 0,
  version: 4,
  flags: 6,
  chunkId: 8,
  eventCount: 12,
  termCount: 16,
  reserved: 20,
  buildId: 24,
  eventsPackBytes: 32,
  indexPackBytes: 40,
  indexHashBytes: 48,
  eventsContentHash: 56,
  indexContentHash: 88,
  indexHashCrc: 120,
  crc: 124,
} as const;

export function encodeManifest(manifest: ChunkManifest): Uint8Array {
  const out = new Uint8Array(MANIFEST_BYTES);
  writeU32(out, AT.magic, MANIFEST_MAGIC);
  writeU16(out, AT.version, MANIFEST_VERSION);
  writeU16(out, AT.flags, 0);
  writeU32(out, AT.chunkId, manifest.chunkId);
  writeU32(out, AT.eventCount, manifest.eventCount);
  writeU32(out, AT.termCount, manifest.termCount);
  writeU32(out, AT.reserved, 0);
  out.set(manifest.buildId, AT.buildId);
  writeU53(out, AT.eventsPackBytes, manifest.eventsPackBytes);
  writeU53(out, AT.indexPackBytes, manifest.indexPackBytes);
  writeU53(out, AT.indexHashBytes, manifest.indexHashBytes);
  out.set(manifest.eventsContentHash, AT.eventsContentHash);
  out.set(manifest.indexContentHash, AT.indexContentHash);
  writeU32(out, AT.indexHashCrc, manifest.indexHashCrc);
  writeU32(out, AT.crc, crc32c(out.subarray(0, AT.crc)));
  return out;
}

/** Decodes and checks a manifest: size, magic, version, flags, CRC32C, the chunk id. */
export function decodeManifest(bytes: Uint8Array, file: string, chunkId: number): ChunkManifest {
  if (bytes.length < MANIFEST_BYTES) {
    formatError(ColdStoreErrorCode.TRUNCATED, file, `${bytes.length} of ${MANIFEST_BYTES} bytes`, bytes.length);
  }
  if (readU32(bytes, AT.magic) !== MANIFEST_MAGIC) {
    formatError(ColdStoreErrorCode.BAD_MAGIC, file, 'not a chunk manifest', AT.magic, 'magic');
  }
  const version = readU16(bytes, AT.version);
  if (version !== MANIFEST_VERSION) {
    formatError(ColdStoreErrorCode.BAD_VERSION, file, `version ${version}`, AT.version, 'version');
  }
  if (bytes.length !== MANIFEST_BYTES) corrupt(file, `${bytes.length} bytes, expected ${MANIFEST_BYTES}`);
  if (crc32c(bytes.subarray(0, AT.crc)) !== readU32(bytes, AT.crc)) {
    formatError(ColdStoreErrorCode.CHECKSUM_MISMATCH, file, 'manifest CRC32C', AT.crc, 'crc');
  }
  const flags = readU16(bytes, AT.flags);
  if (flags !== 0 || readU32(bytes, AT.reserved) !== 0) {
    formatError(ColdStoreErrorCode.BAD_FORMAT, file, `unknown flags 0x${flags.toString(16)}`, AT.flags, 'flags');
  }
  if (readU32(bytes, AT.chunkId) !== chunkId) {
    corrupt(file, `names chunk ${readU32(bytes, AT.chunkId)}, expected ${chunkId}`, 'chunkId', AT.chunkId);
  }
  const size = (at: number, field: string): number => {
    const value = readU53(bytes, at);
    if (value === undefined) corrupt(file, `${field} is not a safe integer`, field, at);
    return value;
  };
  return {
    chunkId,
    eventCount: readU32(bytes, AT.eventCount),
    termCount: readU32(bytes, AT.termCount),
    buildId: copyOf(bytes, AT.buildId, AT.buildId + BUILD_ID_BYTES),
    eventsPackBytes: size(AT.eventsPackBytes, 'eventsPackBytes'),
    indexPackBytes: size(AT.indexPackBytes, 'indexPackBytes'),
    indexHashBytes: size(AT.indexHashBytes, 'indexHashBytes'),
    eventsContentHash: copyOf(bytes, AT.eventsContentHash, AT.eventsContentHash + 32),
    indexContentHash: copyOf(bytes, AT.indexContentHash, AT.indexContentHash + 32),
    indexHashCrc: readU32(bytes, AT.indexHashCrc),
  };
}
