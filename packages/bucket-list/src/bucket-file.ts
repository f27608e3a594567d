// Bucket files as stellar-core writes them (spec §3): record-marked BucketEntry (or HotArchiveBucketEntry) XDR,
// METAENTRY first from protocol 11, entries strictly increasing, the SHA-256 of the whole file as the bucket's hash and
// name. Writing streams into a temporary file that is fsynced and renamed, so a bucket file either exists whole under
// its hash or not at all; the same entries always give the same bytes.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import {
  requireBucketFile,
  requireBytes,
  requireFunction,
  requireHash,
  requireInteger,
  requireKind,
  requireOptionalBoolean,
  requireOptions,
  requireString,
  requireUint32,
} from './arguments.js';
import { BucketError, entryError } from './errors.js';
import { ZERO_HASH } from './history-archive-state.js';
import {
  type BucketKind,
  decodeMeta,
  encodeMeta,
  FIRST_PROTOCOL_HOT_ARCHIVE,
  FIRST_PROTOCOL_INIT_AND_META,
  INIT_ENTRY,
  type KindOps,
  kindOps,
  META,
  recordType,
} from './kind.js';
import { RecordReader, RecordWriter } from './record-io.js';

/** A bucket: its hash, where its file is, and what its METAENTRY says. Plain data, so it crosses worker boundaries. */
export interface BucketFile {
  readonly hash: string;
  /** Absolute path of `bucket-<hash>.xdr`; undefined for the empty bucket. */
  readonly path: string | undefined;
  readonly kind: BucketKind;
  /** METAENTRY ledgerVersion (0 for the empty bucket and pre-11 buckets without META). */
  readonly protocolVersion: number;
  /** File size in bytes. */
  readonly size: number;
  /** Records other than META. */
  readonly entries: number;
}

/** The empty bucket of a kind: the zero hash, no file. */
export function emptyBucket(kind: BucketKind): BucketFile {
  requireKind(kind, 'kind');
  return { hash: ZERO_HASH, path: undefined, kind, protocolVersion: 0, size: 0, entries: 0 };
}

/** `bucket-<hash>.xdr`, the name of a bucket file. */
export function bucketFileName(hash: string): string {
  requireHash(hash, 'hash');
  return `bucket-${hash}.xdr`;
}

function checkOutputOptions(options: unknown, field: string): void {
  requireOptions(options, field);
  requireOptionalBoolean(options?.keepTombstones, `${field}.keepTombstones`);
  requireOptionalBoolean(options?.fsync, `${field}.fsync`);
  requireOptionalBoolean(options?.writeBehind, `${field}.writeBehind`);
}

/** The arguments a BucketOutput is made from (shared with writeBucket, which makes one). */
function checkOutputArguments(dir: unknown, kind: unknown, protocolVersion: unknown, options: unknown): void {
  requireString(dir, 'dir');
  requireKind(kind, 'kind');
  requireUint32(protocolVersion, 'protocolVersion');
  checkOutputOptions(options, 'options');
}

export const BUCKET_FILE_PATTERN = /^bucket-([0-9a-f]{64})\.xdr$/;
/** Temporary files of unfinished writes: `tmp-...`. Anything with this prefix is garbage after a restart. */
export const TEMP_PREFIX = 'tmp-';

let tempCounter = 0;
function tempPathIn(dir: string): string {
  return join(dir, `${TEMP_PREFIX}${process.pid}-${threadId}-${tempCounter++}.xdr`);
}

export interface OutputOptions {
  /** Drop tombstones (only merges into the bottom level do). Default true. */
  keepTombstones?: boolean;
  /** fsync the file before it is published (stellar-core's DISABLE_XDR_FSYNC inverted). Default true. */
  fsync?: boolean;
  /**
   * Hash and write full buffers on a helper thread while the caller fills the next (see write-behind.ts). Worth it
   * for outputs of several MiB; merges choose it from their inputs' sizes unless this says otherwise.
   */
  writeBehind?: boolean;
}

/**
 * stellar-core's BucketOutputIterator without shadows: META first (protocol ≥ 11, always for the hot archive), then
 * the entries, which the caller hands over in strictly increasing order (merges and sorted batches guarantee it; a
 * reader verifies it). Tombstones are dropped when `keepTombstones` is false.
 */
export class BucketOutput {
  private readonly writer: RecordWriter;
  private readonly ops: KindOps;
  private readonly keepTombstones: boolean;
  private entries = 0;

  constructor(
    private readonly dir: string,
    readonly kind: BucketKind,
    readonly protocolVersion: number,
    options: OutputOptions = {},
  ) {
    checkOutputArguments(dir, kind, protocolVersion, options);
    this.ops = kindOps(kind);
    this.keepTombstones = options.keepTombstones ?? true;
    // Version 0 is the merge of two empty buckets: no META, and (for the hot archive) no entries either, so the
    // result is the empty bucket, as in stellar-core.
    if (
      kind === 'hot-archive' &&
      protocolVersion >= FIRST_PROTOCOL_INIT_AND_META &&
      protocolVersion < FIRST_PROTOCOL_HOT_ARCHIVE
    ) {
      throw new BucketError('PROTOCOL', `hot-archive bucket at protocol ${protocolVersion} (< 23)`);
    }
    this.writer = new RecordWriter(tempPathIn(dir), options.fsync ?? true, {
      writeBehind: options.writeBehind ?? false,
    });
    if (protocolVersion >= FIRST_PROTOCOL_INIT_AND_META) this.writer.put(encodeMeta(kind, protocolVersion));
  }

  /** Writes one record; `type`, when given, replaces the payload's discriminant (a merge turning INIT into LIVE). */
  put(payload: Uint8Array, type?: number): void {
    requireBytes(payload, 'payload');
    if (payload.length < 4)
      throw new BucketError('INVALID_ARGUMENT', 'a record payload of fewer than 4 bytes', { field: 'payload' });
    if (type === undefined) type = recordType(payload);
    else requireInteger(type, 'type', -(2 ** 31), 2 ** 31 - 1);
    if (!this.keepTombstones && this.ops.isTombstone(type)) return;
    if (this.protocolVersion < FIRST_PROTOCOL_INIT_AND_META && (this.kind === 'hot-archive' || type === INIT_ENTRY)) {
      this.abort();
      throw new BucketError(
        'PROTOCOL',
        `${this.kind} entry type ${type} in a bucket of protocol ${this.protocolVersion}`,
      );
    }
    this.writer.put(payload, type);
    this.entries++;
  }

  /**
   * Appends `records` whole records verbatim, marks included, from bytes [start, end) of `source` (a RecordReader's
   * buffer): the merge's fast path, one copy per run. The caller has applied what `put` checks: order, types
   * (protocol ≥ 11 only, no META) and the tombstone rule.
   */
  putRun(source: Uint8Array, start: number, end: number, records: number): void {
    requireBytes(source, 'source');
    requireInteger(start, 'start', 0, source.length);
    requireInteger(end, 'end', start, source.length);
    requireInteger(records, 'records', end > start ? 1 : 0, end - start);
    this.writer.putRun(source, start, end, records);
    this.entries += records;
  }

  /**
   * Completes the file and describes it. With `publish` (the default) the file is renamed to `bucket-<hash>.xdr`;
   * without, it stays under its temporary name (`path`), for a worker whose caller decides the final name. Zero
   * records give the empty bucket and no file.
   */
  finish(options: { publish?: boolean } = {}): BucketFile {
    requireOptions(options, 'options');
    requireOptionalBoolean(options.publish, 'options.publish');
    const records = this.writer.records;
    const size = this.writer.bytesWritten;
    const hash = this.writer.finish();
    if (records === 0) {
      this.writer.abort();
      return emptyBucket(this.kind);
    }
    let path = this.writer.tempPath;
    if (options.publish ?? true) {
      path = join(this.dir, bucketFileName(hash));
      this.writer.publish(path);
    }
    return { hash, path, kind: this.kind, protocolVersion: this.protocolVersion, size, entries: this.entries };
  }

  abort(): void {
    this.writer.abort();
  }
}

/** Writes already sorted, de-duplicated payloads as one bucket. */
export function writeBucket(
  dir: string,
  kind: BucketKind,
  protocolVersion: number,
  payloads: Iterable<Uint8Array>,
  options: OutputOptions = {},
): BucketFile {
  checkOutputArguments(dir, kind, protocolVersion, options);
  if (typeof (payloads as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== 'function') {
    throw new BucketError('INVALID_ARGUMENT', 'payloads must be an iterable of Uint8Arrays', { field: 'payloads' });
  }
  const out = new BucketOutput(dir, kind, protocolVersion, options);
  try {
    for (const payload of payloads) out.put(payload);
  } catch (error) {
    out.abort();
    throw error;
  }
  return out.finish();
}

/** A bucket file's records opened past the METAENTRY (see openBucketRecords). */
export interface OpenedRecords {
  /** Undefined for the empty bucket (no file). */
  readonly reader: RecordReader | undefined;
  /** True when the reader is on the first entry; false when the file holds no entries. */
  readonly atEntry: boolean;
  /** METAENTRY ledgerVersion; 0 without META. */
  readonly protocolVersion: number;
}

/**
 * Opens a bucket file and consumes its METAENTRY (validated and decoded; a hot-archive bucket without one is BAD_META),
 * leaving the reader on the first entry. The caller closes the reader; it is closed here if opening fails.
 */
export function openBucketRecords(
  bucket: BucketFile,
  options: { hash?: boolean; bufferSize?: number; buffer?: Uint8Array } = {},
): OpenedRecords {
  if (bucket.path === undefined) return { reader: undefined, atEntry: false, protocolVersion: 0 };
  const path = bucket.path;
  const reader = new RecordReader(path, {
    hash: options.hash ?? false,
    ...(options.bufferSize === undefined ? {} : { bufferSize: options.bufferSize }),
    ...(options.buffer === undefined ? {} : { buffer: options.buffer }),
  });
  try {
    if (!reader.next()) return { reader, atEntry: false, protocolVersion: 0 };
    const first = reader.payload;
    if (first.length >= 4 && recordType(first) === META) {
      try {
        kindOps(bucket.kind).validate(first);
      } catch (error) {
        entryError(error, path, reader.recordOffset + 4);
      }
      const { protocolVersion } = decodeMeta(bucket.kind, first, { file: path, offset: 0 });
      return { reader, atEntry: reader.next(), protocolVersion };
    }
    if (bucket.kind === 'hot-archive') {
      throw new BucketError('BAD_META', 'hot-archive bucket without METAENTRY', { file: path, offset: 0 });
    }
    return { reader, atEntry: true, protocolVersion: 0 };
  } catch (error) {
    reader.close();
    throw error;
  }
}

/**
 * A forward cursor over the entries of a bucket file (META consumed on open). `current` is a view valid until
 * `advance()`; undefined at the end. With `check`, every entry is validated and the order and META rules enforced.
 */
export class BucketInput {
  current: Uint8Array | undefined;
  /** File offset of the current record's mark. */
  offset = -1;
  readonly protocolVersion: number;
  private readonly reader: RecordReader | undefined;
  private readonly ops: KindOps;
  private readonly check: boolean;
  private previous: Uint8Array = new Uint8Array(256);
  private previousLength = -1;

  constructor(
    readonly bucket: BucketFile,
    options: { check?: boolean; hash?: boolean; bufferSize?: number } = {},
  ) {
    requireBucketFile(bucket, 'bucket');
    requireOptions(options, 'options');
    requireOptionalBoolean(options.check, 'options.check');
    requireOptionalBoolean(options.hash, 'options.hash');
    if (options.bufferSize !== undefined) requireInteger(options.bufferSize, 'options.bufferSize', 8, 2 ** 30);
    this.ops = kindOps(bucket.kind);
    this.check = options.check ?? false;
    const opened = openBucketRecords(bucket, options);
    this.reader = opened.reader;
    this.protocolVersion = opened.protocolVersion;
    this.current = undefined;
    if (opened.reader === undefined) return;
    try {
      this.load(opened.atEntry);
    } catch (error) {
      opened.reader.close();
      throw error;
    }
  }

  advance(): void {
    this.load(this.reader!.next());
  }

  /** SHA-256 of the whole file (requires `hash: true` and a cursor advanced to the end). */
  digest(): string {
    return this.reader === undefined ? ZERO_HASH : this.reader.digest();
  }

  close(): void {
    this.reader?.close();
  }

  private load(present: boolean): void {
    if (!present) {
      this.current = undefined;
      return;
    }
    const reader = this.reader!;
    const payload = reader.payload;
    this.current = payload;
    this.offset = reader.recordOffset;
    if (this.check) this.checkEntry(payload);
  }

  private validate(payload: Uint8Array): void {
    try {
      this.ops.validate(payload);
    } catch (error) {
      entryError(error, this.bucket.path, this.reader!.recordOffset + 4);
    }
  }

  private checkEntry(payload: Uint8Array): void {
    const where = { file: this.bucket.path!, offset: this.offset };
    this.validate(payload);
    const type = recordType(payload);
    if (type === META) throw new BucketError('BAD_META', 'METAENTRY after the first record', where);
    if (this.bucket.kind === 'live' && type === INIT_ENTRY && this.protocolVersion < FIRST_PROTOCOL_INIT_AND_META) {
      throw new BucketError('BAD_META', `INITENTRY in a bucket of protocol ${this.protocolVersion}`, where);
    }
    if (this.previousLength >= 0) {
      let order: number;
      try {
        order = this.ops.compare(this.previous.subarray(0, this.previousLength), payload);
      } catch (error) {
        entryError(error, this.bucket.path, this.offset + 4);
      }
      if (order >= 0) {
        throw new BucketError(
          'OUT_OF_ORDER',
          order === 0 ? 'two entries with the same key' : 'entry sorts before the previous one',
          where,
        );
      }
    }
    if (payload.length > this.previous.length) this.previous = new Uint8Array(payload.length * 2);
    this.previous.set(payload);
    this.previousLength = payload.length;
  }
}

/**
 * Reads a whole bucket file, checking the hash (when `expectedHash` is given), every entry's XDR, the META rules and
 * the order; `onEntry` sees each non-META record (payload view valid only during the call, and the mark's offset).
 * Returns the bucket's description. Throws BucketError (HASH_MISMATCH, OUT_OF_ORDER, BAD_META, BAD_ENTRY, TRUNCATED,
 * BAD_RECORD_MARK, MISSING_BUCKET).
 */
export function verifyBucketFile(
  path: string,
  kind: BucketKind,
  expectedHash: string | undefined,
  onEntry?: (payload: Uint8Array, offset: number) => void,
): BucketFile {
  requireString(path, 'path');
  requireKind(kind, 'kind');
  if (expectedHash !== undefined) requireHash(expectedHash, 'expectedHash');
  if (onEntry !== undefined) requireFunction(onEntry, 'onEntry');
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new BucketError('MISSING_BUCKET', 'bucket file not found', { file: path, cause: error });
  }
  // The hash is not known yet (it is what the read computes); the cursor reads only the path and kind.
  const provisional: BucketFile = { hash: expectedHash ?? ZERO_HASH, path, kind, protocolVersion: 0, size, entries: 0 };
  const input = new BucketInput(provisional, { check: true, hash: true });
  let entries = 0;
  try {
    for (; input.current !== undefined; input.advance()) {
      onEntry?.(input.current, input.offset);
      entries++;
    }
    const hash = input.digest();
    if (expectedHash !== undefined && hash !== expectedHash) {
      throw new BucketError('HASH_MISMATCH', `SHA-256 is ${hash}, expected ${expectedHash}`, { file: path });
    }
    return { hash, path, kind, protocolVersion: input.protocolVersion, size, entries };
  } finally {
    input.close();
  }
}
