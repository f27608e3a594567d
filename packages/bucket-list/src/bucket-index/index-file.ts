// The persisted page index, `bucket-<hash>.index` next to its bucket (FORMAT.md, "Index file"). A cache: it is
// loaded only if every check passes (magic, version, page size, the bucket it belongs to, sizes, structure,
// checksum) and rebuilt from the bucket otherwise, so nothing here throws for a bad file; decoding returns the
// reason instead. Written whole to a temporary file, fsynced and renamed, so a crash leaves the old file, the new
// one, or none — never a torn one (and a torn one would fail its checksum anyway).
import { closeSync, fstatSync, openSync } from 'node:fs';
import { xxh3 } from '@node-rs/xxhash';
import { assert, writeFileAtomicSync } from '@strata/base';
import { compareLedgerKeys, LedgerKeyError, validateLedgerKey } from '@strata/ledger-key';
import { ioError } from '../errors.js';
import type { BucketKind } from '../kind.js';
import { readAt } from '../record-io.js';
import { BinaryFuse16 } from './fuse-filter.js';
import type { PageTable } from './page-index.js';

/**
 * Index file format versions. A file of any other version is rebuilt.
 *   1 — header, type range starts, page table (offsets, first/last keys), optional 16-bit binary fuse filter
 *       (XXH3-64 key hashes + Feistel remix), XXH3-64 trailer (seed 0).
 *   2 — the trailer's seed is the bucket's hash (its first 8 bytes, little-endian): the checksum itself names the
 *       bucket, besides the header's hash and size fields. (Loaders since v2 also check a file's claims against the
 *       bucket; see FORMAT.md.)
 */
export const INDEX_VERSION = 2;

/** "STRATAIX" */
const MAGIC = [0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x49, 0x58];
const HEADER_BYTES = 80;
const TYPE_RANGE_BYTES = 16;
const FILTER_HEADER_BYTES = 24;
const TRAILER_BYTES = 8;
/** LedgerEntryType has 10 values; anything much larger is corruption. */
const MAX_TYPE_RANGES = 64;

/** What an index file holds besides the page table. */
export interface IndexFileContents {
  readonly hash: string;
  readonly kind: BucketKind;
  readonly fileSize: number;
  readonly entries: number;
  readonly types: readonly number[];
  readonly typeStarts: readonly number[];
  readonly table: PageTable;
  readonly filter: BinaryFuse16 | undefined;
}

const pad8 = (n: number): number => (n + 7) & ~7;

function setU64(view: DataView, at: number, value: number): void {
  view.setUint32(at, value % 2 ** 32, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}

/** A u64 that must be a safe integer, or -1. */
function getU64(view: DataView, at: number): number {
  const hi = view.getUint32(at + 4, true);
  return hi >= 2 ** 21 ? -1 : hi * 2 ** 32 + view.getUint32(at, true);
}

function hashBytes(hash: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  return Uint8Array.from(Buffer.from(hash, 'hex'));
}

/** The trailer of an index of bucket `hash` (hex) whose body is `body`: XXH3-64 seeded with the hash's first 8 bytes. */
export function indexChecksum(body: Uint8Array, hash: string): bigint {
  const seed = Buffer.from(hash.slice(0, 16), 'hex').readBigUInt64LE(0);
  return xxh3.xxh64(body, seed);
}

/** Serializes an index; the layout is FORMAT.md "Index file". */
export function encodeIndexFile(contents: IndexFileContents): Uint8Array {
  const { table, filter } = contents;
  const hash = hashBytes(contents.hash);
  assert(hash !== undefined, `index of a bucket without a hex hash: ${contents.hash}`);
  const typesAt = HEADER_BYTES;
  const offsetsAt = typesAt + TYPE_RANGE_BYTES * contents.types.length;
  const keyStartsAt = offsetsAt + 8 * table.pageCount;
  const keyBytesAt = keyStartsAt + 4 * (2 * table.pageCount + 1);
  const filterAt = pad8(keyBytesAt + table.keyBytes.length);
  const filterBytes = filter === undefined ? 0 : FILTER_HEADER_BYTES + pad8(2 * filter.arrayLength);
  const total = filterAt + filterBytes + TRAILER_BYTES;

  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, INDEX_VERSION, true);
  view.setUint32(12, table.pageSize, true);
  out.set(hash, 16);
  setU64(view, 48, contents.fileSize);
  view.setUint32(56, contents.kind === 'live' ? 0 : 1, true);
  view.setUint32(60, contents.entries, true);
  view.setUint32(64, contents.types.length, true);
  view.setUint32(68, table.pageCount, true);
  view.setUint32(72, table.keyBytes.length, true);
  view.setUint32(76, filter === undefined ? 0 : 1, true);
  for (let i = 0; i < contents.types.length; i++) {
    view.setInt32(typesAt + TYPE_RANGE_BYTES * i, contents.types[i]!, true);
    setU64(view, typesAt + TYPE_RANGE_BYTES * i + 8, contents.typeStarts[i]!);
  }
  for (let i = 0; i < table.pageCount; i++) setU64(view, offsetsAt + 8 * i, table.pageOffsets[i]!);
  for (let i = 0; i < 2 * table.pageCount + 1; i++) view.setUint32(keyStartsAt + 4 * i, table.keyStarts[i]!, true);
  out.set(table.keyBytes, keyBytesAt);
  if (filter !== undefined) {
    view.setBigUint64(filterAt, filter.hashSeed, true);
    view.setUint32(filterAt + 8, filter.mixSeed, true);
    view.setUint32(filterAt + 12, filter.segmentLength, true);
    view.setUint32(filterAt + 16, filter.segmentCount, true);
    const fingerprintsAt = filterAt + FILTER_HEADER_BYTES;
    const fingerprints = filter.fingerprints;
    for (let i = 0; i < fingerprints.length; i++) view.setUint16(fingerprintsAt + 2 * i, fingerprints[i]!, true);
  }
  view.setBigUint64(total - TRAILER_BYTES, indexChecksum(out.subarray(0, total - TRAILER_BYTES), contents.hash), true);
  return out;
}

/** What the loader expects of the file: the bucket it belongs to and the configured page size. */
export interface IndexFileExpectation {
  readonly hash: string;
  readonly kind: BucketKind;
  readonly fileSize: number;
  readonly entries: number;
  readonly pageSize: number;
}

/**
 * Decodes and checks an index file. Returns the contents, or a string saying why the file cannot be used. Every
 * count is checked against the file length before anything is allocated from it, so a corrupt file costs at most
 * its own size.
 */
export function decodeIndexFile(bytes: Uint8Array, expect: IndexFileExpectation): IndexFileContents | string {
  if (bytes.length < HEADER_BYTES + TRAILER_BYTES || bytes.length % 8 !== 0) return `file of ${bytes.length} bytes`;
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return 'not an index file (magic)';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== INDEX_VERSION) return `index version ${version}, this build reads ${INDEX_VERSION}`;
  // The hash before the checksum, which is seeded with it: another bucket's index is named as such.
  const hash = Buffer.from(bytes.subarray(16, 48)).toString('hex');
  if (hash !== expect.hash) return `index of bucket ${hash}`;
  const bodyLength = bytes.length - TRAILER_BYTES;
  if (view.getBigUint64(bodyLength, true) !== indexChecksum(bytes.subarray(0, bodyLength), hash)) return 'checksum';
  const pageSize = view.getUint32(12, true);
  if (pageSize !== expect.pageSize) return `page size ${pageSize}, configured ${expect.pageSize}`;
  const fileSize = getU64(view, 48);
  if (fileSize !== expect.fileSize) return `bucket size ${fileSize}, file has ${expect.fileSize}`;
  const kind = view.getUint32(56, true);
  if (kind !== (expect.kind === 'live' ? 0 : 1)) return `bucket kind ${kind}`;
  const entries = view.getUint32(60, true);
  if (entries !== expect.entries) return `${entries} entries, bucket has ${expect.entries}`;
  const typeCount = view.getUint32(64, true);
  const pageCount = view.getUint32(68, true);
  const keyBytesLength = view.getUint32(72, true);
  const filterFlag = view.getUint32(76, true);

  // Sizes first: each region must fit in the file before it is read or allocated.
  if (typeCount > MAX_TYPE_RANGES || typeCount > entries) return `${typeCount} type ranges`;
  if (pageCount > entries || pageCount > Math.floor(fileSize / pageSize) + 1) return `${pageCount} pages`;
  if ((pageCount === 0) !== (entries === 0) || (typeCount === 0) !== (entries === 0)) return 'empty parts';
  if (filterFlag > 1 || (filterFlag === 1 && entries < 2)) return `filter flag ${filterFlag}`;
  const typesAt = HEADER_BYTES;
  const offsetsAt = typesAt + TYPE_RANGE_BYTES * typeCount;
  const keyStartsAt = offsetsAt + 8 * pageCount;
  const keyBytesAt = keyStartsAt + 4 * (2 * pageCount + 1);
  if (keyBytesAt + keyBytesLength > bodyLength) return 'page table runs past the end';
  const filterAt = pad8(keyBytesAt + keyBytesLength);
  let filterEnd = filterAt;
  let filter: BinaryFuse16 | undefined;
  if (filterFlag === 1) {
    if (filterAt + FILTER_HEADER_BYTES > bodyLength) return 'filter header runs past the end';
    const segmentLength = view.getUint32(filterAt + 12, true);
    const segmentCount = view.getUint32(filterAt + 16, true);
    const slots = (segmentCount + 2) * segmentLength;
    const fingerprintsAt = filterAt + FILTER_HEADER_BYTES;
    filterEnd = fingerprintsAt + pad8(2 * slots);
    if (filterEnd > bodyLength) return 'filter runs past the end';
    const fingerprints = new Uint16Array(slots);
    for (let i = 0; i < slots; i++) fingerprints[i] = view.getUint16(fingerprintsAt + 2 * i, true);
    const built = BinaryFuse16.fromParts(
      view.getBigUint64(filterAt, true),
      view.getUint32(filterAt + 8, true),
      segmentLength,
      segmentCount,
      fingerprints,
    );
    if (typeof built === 'string') return `filter: ${built}`;
    filter = built;
  }
  if (filterEnd !== bodyLength) return `${bodyLength - filterEnd} unexplained bytes`;

  // Type ranges: strictly ascending types and starts inside the file.
  const types: number[] = [];
  const typeStarts: number[] = [];
  for (let i = 0; i < typeCount; i++) {
    const type = view.getInt32(typesAt + TYPE_RANGE_BYTES * i, true);
    const start = getU64(view, typesAt + TYPE_RANGE_BYTES * i + 8);
    if (view.getUint32(typesAt + TYPE_RANGE_BYTES * i + 4, true) !== 0) return 'type range padding';
    if (start < 0 || start >= fileSize) return `type ${type} starts at ${start}`;
    if (i > 0 && (type <= types[i - 1]! || start <= typeStarts[i - 1]!)) return 'type ranges out of order';
    types.push(type);
    typeStarts.push(start);
  }

  // Pages: offsets ascending, each in a later page window than the one before, the first where the first type starts.
  const pageOffsets = new Float64Array(pageCount);
  for (let i = 0; i < pageCount; i++) {
    const offset = getU64(view, offsetsAt + 8 * i);
    if (offset < 0 || offset >= fileSize) return `page ${i} at ${offset}`;
    if (i > 0 && offset < Math.floor(pageOffsets[i - 1]! / pageSize) * pageSize + pageSize) return `page ${i} window`;
    pageOffsets[i] = offset;
  }
  if (pageCount > 0 && pageOffsets[0] !== typeStarts[0]) return 'first page is not the first record';

  // Keys: boundaries ascending and inside the key bytes, each key a valid LedgerKey, first ≤ last < next first.
  const keyStarts = new Uint32Array(2 * pageCount + 1);
  for (let i = 0; i < keyStarts.length; i++) {
    const start = view.getUint32(keyStartsAt + 4 * i, true);
    if (start > keyBytesLength || (i > 0 && start < keyStarts[i - 1]!)) return `key boundary ${i}`;
    keyStarts[i] = start;
  }
  if (keyStarts[0] !== 0 || keyStarts[2 * pageCount] !== keyBytesLength) return 'key boundaries do not span the keys';
  const keyBytes = bytes.slice(keyBytesAt, keyBytesAt + keyBytesLength);
  for (let i = filterAt - (keyBytesAt + keyBytesLength); i > 0; i--) {
    if (bytes[filterAt - i] !== 0) return 'key padding';
  }
  const key = (k: number): Uint8Array => keyBytes.subarray(keyStarts[k]!, keyStarts[k + 1]!);
  try {
    for (let k = 0; k < 2 * pageCount; k++) validateLedgerKey(key(k));
    for (let p = 0; p < pageCount; p++) {
      if (compareLedgerKeys(key(2 * p), key(2 * p + 1)) > 0) return `page ${p} first key > last key`;
      if (p > 0 && compareLedgerKeys(key(2 * p - 1), key(2 * p)) >= 0) return `page ${p} overlaps page ${p - 1}`;
    }
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    return `bad key: ${error.message}`;
  }
  return {
    hash,
    kind: expect.kind,
    fileSize,
    entries,
    types,
    typeStarts,
    table: { pageSize, pageCount, pageOffsets, keyStarts, keyBytes },
    filter,
  };
}

/**
 * The bytes of the index file at `path`; undefined when there is none; a string (the reason it is refused) when it is
 * larger than `maxBytes`, which is then not read. Throws BucketError IO.
 */
export function readIndexFile(path: string, maxBytes: number): Uint8Array | string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw ioError(error, path, 'open index');
  }
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return `index file of ${size} bytes, more than ${maxBytes} for its bucket`;
    const bytes = new Uint8Array(size);
    const got = readAt(fd, path, bytes, size, 0);
    return bytes.subarray(0, got);
  } catch (error) {
    throw ioError(error, path, 'read index');
  } finally {
    closeSync(fd);
  }
}

/** Writes `bytes` to `path` atomically (@strata/base: temporary sibling, fsync, rename, fsync of the directory). */
export function writeIndexFile(path: string, bytes: Uint8Array): void {
  try {
    writeFileAtomicSync(path, bytes);
  } catch (error) {
    throw ioError(error, path, 'write index');
  }
}
