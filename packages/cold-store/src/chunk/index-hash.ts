// index.hash (FORMAT.md § "index.hash"): a 64-byte header — the chunk's term-blinding secret, its counts, the
// freeze's build id, a CRC32C of the MPHF — then an @strata/mphf function over the chunk's routed term keys. It is
// queried in place from the file's mapping (or from one read of it where the storage cannot map).
import { crc32c } from '@node-rs/crc32';
import { INDEXED_FIELD_MASK, TERM_SCHEMA_VERSION } from '@strata/events';
import { type Mphf, MphfError, MphfErrorCode, openMphf } from '@strata/mphf';
import { ColdStoreErrorCode } from '../errors.js';
import type { StorageFile } from '../storage/index.js';
import {
  BUILD_ID_BYTES,
  copyOf,
  corrupt,
  formatError,
  INDEX_HASH_HEADER_BYTES,
  INDEX_HASH_MAGIC,
  INDEX_HASH_VERSION,
  readU16,
  readU32,
  writeU16,
  writeU32,
} from './layout.js';
import { SIPHASH_KEY_BYTES } from './siphash.js';

/** Header fields, by offset. */
const AT = {
  magic: 0,
  version: 4,
  flags: 6,
  chunkId: 8,
  termCount: 12,
  buildId: 16,
  secret: 24,
  mphfBytes: 40,
  termSchema: 44,
  reserved: 46,
  fieldMask: 48,
  mphfCrc: 56,
  headerCrc: 60,
} as const;

export interface IndexHashContents {
  readonly chunkId: number;
  readonly buildId: Uint8Array;
  readonly secret: Uint8Array;
  readonly mphf: Uint8Array;
  readonly termCount: number;
}

/** The whole file: header then MPHF. */
export function encodeIndexHash(contents: IndexHashContents): Uint8Array {
  const out = new Uint8Array(INDEX_HASH_HEADER_BYTES + contents.mphf.length);
  writeU32(out, AT.magic, INDEX_HASH_MAGIC);
  writeU16(out, AT.version, INDEX_HASH_VERSION);
  writeU16(out, AT.flags, 0);
  writeU32(out, AT.chunkId, contents.chunkId);
  writeU32(out, AT.termCount, contents.termCount);
  out.set(contents.buildId, AT.buildId);
  out.set(contents.secret, AT.secret);
  writeU32(out, AT.mphfBytes, contents.mphf.length);
  writeU16(out, AT.termSchema, TERM_SCHEMA_VERSION);
  writeU16(out, AT.reserved, 0);
  writeU32(out, AT.fieldMask, INDEXED_FIELD_MASK);
  writeU32(out, AT.fieldMask + 4, 0);
  writeU32(out, AT.mphfCrc, crc32c(contents.mphf));
  writeU32(out, AT.headerCrc, crc32c(out.subarray(0, AT.headerCrc)));
  out.set(contents.mphf, INDEX_HASH_HEADER_BYTES);
  return out;
}

/** An opened index.hash: its header fields and the MPHF, queried over `bytes` (kept alive by this object). */
export interface IndexHash {
  readonly buildId: Uint8Array;
  readonly secret: Uint8Array;
  readonly termCount: number;
  readonly mphf: Mphf;
  /** The header's own CRC32C (covers the MPHF's CRC): what a manifest records of this file. */
  readonly headerCrc: number;
  /** The file's bytes (a mapping, or one read of the file). */
  readonly bytes: Uint8Array;
}

/**
 * Opens and checks index.hash: size, magic, version, flags, header CRC, chunk id, term schema, MPHF CRC, then the
 * MPHF itself (@strata/mphf checks its own layout and checksum). Maps the file when the storage can (FILE_TOO_LARGE
 * above the mapping limit), else reads it whole.
 */
export async function openIndexHash(file: StorageFile, chunkId: number): Promise<IndexHash> {
  const name = file.name;
  const bytes = file.map() ?? (await file.read(0, file.size));
  if (bytes.length < INDEX_HASH_HEADER_BYTES) {
    formatError(ColdStoreErrorCode.TRUNCATED, name, `${bytes.length} bytes, shorter than the header`, 0, 'header');
  }
  if (readU32(bytes, AT.magic) !== INDEX_HASH_MAGIC) {
    formatError(ColdStoreErrorCode.BAD_MAGIC, name, 'not an index.hash file', AT.magic, 'magic');
  }
  const version = readU16(bytes, AT.version);
  if (version !== INDEX_HASH_VERSION) {
    formatError(ColdStoreErrorCode.BAD_VERSION, name, `version ${version}`, AT.version, 'version');
  }
  const headerCrc = readU32(bytes, AT.headerCrc);
  if (crc32c(bytes.subarray(0, AT.headerCrc)) !== headerCrc) {
    formatError(ColdStoreErrorCode.CHECKSUM_MISMATCH, name, 'header CRC32C', AT.headerCrc, 'header');
  }
  const flags = readU16(bytes, AT.flags);
  if (flags !== 0) formatError(ColdStoreErrorCode.BAD_FORMAT, name, `unknown flags 0x${flags.toString(16)}`, AT.flags);
  if (readU32(bytes, AT.chunkId) !== chunkId) {
    corrupt(name, `holds chunk ${readU32(bytes, AT.chunkId)}, expected ${chunkId}`, 'chunkId', AT.chunkId);
  }
  const schema = readU16(bytes, AT.termSchema);
  if (
    schema !== TERM_SCHEMA_VERSION ||
    readU32(bytes, AT.fieldMask) !== INDEXED_FIELD_MASK ||
    readU32(bytes, AT.fieldMask + 4) !== 0 ||
    readU16(bytes, AT.reserved) !== 0
  ) {
    formatError(ColdStoreErrorCode.BAD_VERSION, name, `term schema ${schema}`, AT.termSchema, 'term schema');
  }
  const mphfBytes = readU32(bytes, AT.mphfBytes);
  if (bytes.length !== INDEX_HASH_HEADER_BYTES + mphfBytes) {
    formatError(
      bytes.length < INDEX_HASH_HEADER_BYTES + mphfBytes ? ColdStoreErrorCode.TRUNCATED : ColdStoreErrorCode.CORRUPT,
      name,
      `the header announces a ${mphfBytes}-byte MPHF, the file holds ${bytes.length - INDEX_HASH_HEADER_BYTES} bytes after it`,
      AT.mphfBytes,
      'mphf',
    );
  }
  const mphfView = bytes.subarray(INDEX_HASH_HEADER_BYTES);
  if (crc32c(mphfView) !== readU32(bytes, AT.mphfCrc)) {
    formatError(ColdStoreErrorCode.CHECKSUM_MISMATCH, name, 'MPHF CRC32C', INDEX_HASH_HEADER_BYTES, 'mphf');
  }
  let mphf: Mphf;
  try {
    mphf = openMphf(mphfView);
  } catch (error) {
    if (!(error instanceof MphfError)) throw error;
    const code =
      error.code === MphfErrorCode.CHECKSUM_MISMATCH
        ? ColdStoreErrorCode.CHECKSUM_MISMATCH
        : error.code === MphfErrorCode.TRUNCATED
          ? ColdStoreErrorCode.TRUNCATED
          : ColdStoreErrorCode.CORRUPT;
    formatError(code, name, `MPHF: ${error.message}`, INDEX_HASH_HEADER_BYTES + (error.offset ?? 0), 'mphf', error);
  }
  const termCount = readU32(bytes, AT.termCount);
  if (mphf.size !== termCount || mphf.byteLength !== mphfBytes || mphf.fingerprintBits !== 0) {
    corrupt(name, `an MPHF of ${mphf.size} keys for ${termCount} terms`, 'mphf', INDEX_HASH_HEADER_BYTES);
  }
  return {
    buildId: copyOf(bytes, AT.buildId, AT.buildId + BUILD_ID_BYTES),
    secret: copyOf(bytes, AT.secret, AT.secret + SIPHASH_KEY_BYTES),
    termCount,
    mphf,
    headerCrc,
    bytes,
  };
}
