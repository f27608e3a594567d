// The streaming packfile writer (FORMAT.md § "Packfile container"). Memory is bounded by one record (its raw
// payload, its compressed copy), one output buffer of OUTPUT_BUFFER_BYTES, 8 bytes per record for the offset index,
// and with a dictionary its bytes and the compressor's tables over it; items are never held past the record they
// close. The file appears under its name only when finish() resolves (StorageWriter: temp file, fsync, rename,
// directory fsync); abort() or any failure leaves nothing.
import { createHash, type Hash } from 'node:crypto';
import { crc32c } from '@node-rs/crc32';
import { assert } from '@strata/base';
import zstd from 'zstd-napi/binding.js';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import type { Storage, StorageWriter } from '../storage/storage.js';
import {
  CONTENT_HASH_BYTES,
  MAX_DICTIONARY_BYTES,
  MAX_ITEMS_PER_RECORD,
  MAX_PACK_ITEMS,
  MAX_RECORD_RAW_BYTES,
  PackCodec,
  RecordFlag,
  TrailerFlag,
} from './format.js';
import { encodeRecordFooter } from './record.js';
import { encodeOffsetIndex, encodeTrailer } from './trailer.js';

/** Options of PackfileWriter.create. */
export interface PackfileWriterOptions {
  /** u32, caller-assigned: the kind of pack. The reader refuses a pack whose id is not the one it expects. */
  readonly formatId: number;
  /** Most items in one record, 1..65536; default 128. */
  readonly itemsPerRecord?: number;
  /**
   * Close a record before its raw bytes would pass this many, 1..2^30; default 1 MiB. An item larger than this is a
   * record of its own. Keep it at or below the readers' maxBatchBytes so every record reads into a pooled buffer.
   */
  readonly maxRecordBytes?: number;
  /** 'zstd' (default): each record is compressed only when that saves at least 1/16 of it (a per-record flag). */
  readonly codec?: 'zstd' | 'none';
  /** zstd level, default 3 (any level zstd accepts). */
  readonly compressionLevel?: number;
  /**
   * A raw-content zstd dictionary (1 byte to 16 MiB; codec 'zstd' only): records are compressed against it, and it
   * is stored in the pack (codec 2, FORMAT.md "Dictionary"), so the pack stays self-contained. Bytes that recur
   * across records (a sample of the pack's own items) make the best one. Copied: the caller may reuse the array.
   */
  readonly dictionary?: Uint8Array;
  /** Store the SHA-256 content hash (default true). */
  readonly contentHash?: boolean;
}

/** What a finished pack holds. */
export interface PackfileSummary {
  readonly itemCount: number;
  readonly recordCount: number;
  /** File size in bytes. */
  readonly bytes: number;
  /** SHA-256 over `u32 LE length ‖ item` of every item in order, or 32 zero bytes when contentHash was false. */
  readonly contentHash: Uint8Array;
}

const DEFAULT_ITEMS_PER_RECORD = 128;
const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
const DEFAULT_COMPRESSION_LEVEL = 3;
/** Encoded records are gathered into writes of about this size. */
const OUTPUT_BUFFER_BYTES = 1024 * 1024;
/** Item bytes are handed to SHA-256 in updates of about this size (one update per item costs more than the hash). */
const HASH_STAGE_BYTES = 64 * 1024;
const RESOLVED: Promise<void> = Promise.resolve();
const EMPTY = new Uint8Array(0);

interface ResolvedOptions {
  readonly formatId: number;
  readonly itemsPerRecord: number;
  readonly maxRecordBytes: number;
  readonly codec: 'zstd' | 'none';
  readonly compressionLevel: number;
  readonly contentHash: boolean;
  readonly dictionary: Uint8Array | undefined;
}

function resolveOptions(options: PackfileWriterOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) invalidArgument('options', 'expected an options object');
  checkInteger(options.formatId, 0, 2 ** 32 - 1, 'formatId');
  const itemsPerRecord = options.itemsPerRecord ?? DEFAULT_ITEMS_PER_RECORD;
  checkInteger(itemsPerRecord, 1, MAX_ITEMS_PER_RECORD, 'itemsPerRecord');
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  checkInteger(maxRecordBytes, 1, MAX_RECORD_RAW_BYTES, 'maxRecordBytes');
  const codec = options.codec ?? 'zstd';
  if (codec !== 'zstd' && codec !== 'none') invalidArgument('codec', `expected 'zstd' or 'none'`);
  const compressionLevel = options.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
  checkInteger(compressionLevel, zstd.minCLevel(), zstd.maxCLevel(), 'compressionLevel');
  const contentHash = options.contentHash ?? true;
  if (typeof contentHash !== 'boolean') invalidArgument('contentHash', 'expected a boolean');
  const { dictionary } = options;
  if (dictionary !== undefined) {
    if (!(dictionary instanceof Uint8Array) || dictionary.length === 0 || dictionary.length > MAX_DICTIONARY_BYTES) {
      invalidArgument('dictionary', `expected 1 to ${MAX_DICTIONARY_BYTES} bytes`);
    }
    if (codec !== 'zstd') invalidArgument('dictionary', "a dictionary needs codec 'zstd'");
  }
  return {
    formatId: options.formatId,
    itemsPerRecord,
    maxRecordBytes,
    codec,
    compressionLevel,
    contentHash,
    dictionary: dictionary === undefined ? undefined : new Uint8Array(dictionary),
  };
}

/**
 * Hash-table size (log2 entries) of a compressor over a dictionary of `bytes`: one entry per 16 dictionary bytes, at
 * least 2^15. Measured on pubnet-like records of 128 events against their chunk's dictionary (levels -1 and 1, the
 * same sizes): with 1 MiB over a 9 M-event chunk, 2^14 to 2^17 entries within 0.2 % in size (2^14 fastest, 2^16
 * 12 % slower); with 546 KiB over the quick bench's more repetitive chunk, 2^14 gave 15 % more bytes than 2^16, 2^17
 * only 0.6 % fewer. So one entry per 16 bytes: robust on repetitive data, little slower on the rest.
 */
function dictionaryHashLog(bytes: number): number {
  return Math.min(20, Math.max(15, Math.ceil(Math.log2(bytes)) - 4));
}

/**
 * Test seam (a negative control, never used outside tests): writers that store one item with its last byte flipped,
 * after the content hash took the item as given — a writer storing other bytes than it hashed.
 */
const storedItemFlips = new WeakMap<PackfileWriter, number>();

/** Makes `writer` store item `position` with its last byte flipped (see storedItemFlips). Tests only. */
export function flipStoredItemForTest(writer: PackfileWriter, position: number): void {
  storedItemFlips.set(writer, position);
}

/** A growable u32 array (the offset index's per-record columns). */
class U32Column {
  values = new Uint32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

/**
 * Writes one packfile, item by item. One caller at a time: await each add() before the next (add resolves when the
 * item is buffered, or when the record it closed is handed to storage: that is the backpressure). The bytes of an
 * item are copied before add returns. A failed add or finish aborts the writer (the temp file is removed) and every
 * later call rejects with that failure.
 */
export class PackfileWriter {
  private readonly hash: Hash | undefined;
  private readonly compressor: InstanceType<typeof zstd.CCtx> | undefined;
  /** The open record's raw payload: rawBytes[0, rawUsed). */
  private rawBytes: Uint8Array;
  private rawUsed = 0;
  private readonly itemSizes: number[] = [];
  private readonly recordSizes = new U32Column();
  private readonly recordItems = new U32Column();
  private maxRecordRawBytes = 0;
  private output: Uint8Array = new Uint8Array(OUTPUT_BUFFER_BYTES);
  /** Scratch for the open record's zstd frame (emitted, so copied or written, before the next record reuses it). */
  private frame: Uint8Array = new Uint8Array(0);
  private outputUsed = 0;
  private items = 0;
  private state: 'open' | 'finished' | 'aborted' = 'open';
  private failure: unknown;
  private busy = false;
  /** `u32 length ‖ item` bytes not yet given to the hash. */
  private readonly hashStage = new Uint8Array(HASH_STAGE_BYTES);
  private hashStaged = 0;

  private constructor(
    private readonly file: StorageWriter,
    private readonly name: string,
    private readonly options: ResolvedOptions,
  ) {
    this.hash = options.contentHash ? createHash('sha256') : undefined;
    this.rawBytes = new Uint8Array(Math.min(options.maxRecordBytes, 64 * 1024));
    if (options.codec === 'zstd') {
      this.compressor = new zstd.CCtx();
      this.compressor.setParameter(zstd.CParameter.compressionLevel, options.compressionLevel);
      // The record CRC covers the frame; zstd's own checksum would be 4 more bytes checking the same thing.
      this.compressor.setParameter(zstd.CParameter.checksumFlag, 0);
      if (options.dictionary !== undefined) {
        const hashLog = dictionaryHashLog(options.dictionary.length);
        this.compressor.setParameter(zstd.CParameter.hashLog, hashLog);
        this.compressor.setParameter(zstd.CParameter.chainLog, hashLog);
        // Every record is then compressed against it (a raw-content dictionary: no dictionary id in frames).
        this.compressor.loadDictionary(options.dictionary);
      }
    }
  }

  /** Starts a pack that will be `name` in `storage` once finish() resolves. INVALID_ARGUMENT for bad options. */
  static async create(storage: Storage, name: string, options: PackfileWriterOptions): Promise<PackfileWriter> {
    const resolved = resolveOptions(options);
    return new PackfileWriter(await storage.createWriter(name), name, resolved);
  }

  get itemCount(): number {
    return this.items;
  }

  /** Appends one item (0 to 2^30 bytes). */
  add(item: Uint8Array): Promise<void> {
    return this.append(item) ?? RESOLVED;
  }

  /**
   * add() without a promise in the common case: returns undefined when the item joined the open record (nothing to
   * await), else the promise of the record it closed, which must be awaited before the next call. A failure is a
   * rejected promise, as for add(). For loops over millions of small items, where an await per item costs more than
   * the copy.
   */
  append(item: Uint8Array): Promise<void> | undefined {
    try {
      this.enter();
    } catch (error) {
      return Promise.reject(error);
    }
    try {
      if (!(item instanceof Uint8Array)) invalidArgument('item', 'expected a Uint8Array');
      if (item.length > MAX_RECORD_RAW_BYTES) invalidArgument('item', `${item.length} bytes is over 2^30`);
      if (this.items === MAX_PACK_ITEMS) invalidArgument('item', `a pack holds at most ${MAX_PACK_ITEMS} items`);
    } catch (error) {
      this.busy = false;
      return Promise.reject(error);
    }
    const closeFirst = this.itemSizes.length > 0 && this.rawUsed + item.length > this.options.maxRecordBytes;
    if (!closeFirst && this.itemSizes.length + 1 < this.options.itemsPerRecord) {
      // The common case: the item joins the open record, nothing to await.
      this.appendItem(item);
      this.busy = false;
      return undefined;
    }
    return this.guard(async () => {
      if (closeFirst) await this.closeRecord();
      this.appendItem(item);
      if (this.itemSizes.length === this.options.itemsPerRecord) await this.closeRecord();
    });
  }

  /** Writes the last record, the offset index, `appData` (up to 2^32 - 1 bytes) and the trailer, then commits. */
  async finish(appData: Uint8Array = new Uint8Array(0)): Promise<PackfileSummary> {
    this.enter();
    if (!(appData instanceof Uint8Array) || appData.length > 2 ** 32 - 1) {
      this.busy = false;
      invalidArgument('appData', 'expected a Uint8Array of at most 2^32 - 1 bytes');
    }
    return this.guard(async () => {
      if (this.itemSizes.length > 0) await this.closeRecord();
      const recordCount = this.recordSizes.length;
      const { dictionary } = this.options;
      if (dictionary !== undefined) await this.emit(dictionary);
      const index = encodeOffsetIndex(this.recordSizes.values, this.recordItems.values, recordCount);
      this.flushHash();
      const contentHash = this.hash?.digest() ?? new Uint8Array(CONTENT_HASH_BYTES);
      const trailer = encodeTrailer({
        flags: this.hash === undefined ? 0 : TrailerFlag.contentHash,
        codec:
          dictionary !== undefined
            ? PackCodec.zstdDictionary
            : this.options.codec === 'zstd'
              ? PackCodec.zstd
              : PackCodec.none,
        formatId: this.options.formatId,
        recordCount,
        itemCount: this.items,
        itemsPerRecord: this.options.itemsPerRecord,
        maxRecordRawBytes: this.maxRecordRawBytes,
        indexSize: index.length,
        appDataSize: appData.length,
        contentHash,
        appDataCrc: crc32c(appData),
        dictionarySize: dictionary?.length ?? 0,
        dictionaryCrc: dictionary === undefined ? 0 : crc32c(dictionary),
      });
      await this.emit(index);
      await this.emit(appData);
      await this.emit(trailer);
      await this.flush();
      await this.file.commit();
      this.state = 'finished';
      return {
        itemCount: this.items,
        recordCount,
        bytes: this.file.bytesWritten,
        contentHash: new Uint8Array(contentHash),
      };
    });
  }

  /** Discards the pack: no file is left behind. Idempotent; a no-op after finish(). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.file.abort();
  }

  /** One call at a time, on an open writer. */
  private enter(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') {
      throw new ColdStoreError(ColdStoreErrorCode.CLOSED, `the writer is ${this.state}`, { file: this.name });
    }
    if (this.busy) invalidArgument('writer', 'a previous add() or finish() has not resolved: await each call');
    this.busy = true;
  }

  /** Runs `body`; a failure aborts the writer (removing the temp file) and sticks. */
  private async guard<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      this.failure = error;
      await this.abort();
      throw error;
    } finally {
      this.busy = false;
    }
  }

  private appendItem(item: Uint8Array): void {
    const needed = this.rawUsed + item.length;
    if (needed > this.rawBytes.length) {
      const grown = new Uint8Array(Math.max(needed, Math.min(this.rawBytes.length * 2, this.options.maxRecordBytes)));
      grown.set(this.rawBytes.subarray(0, this.rawUsed));
      this.rawBytes = grown;
    }
    this.rawBytes.set(item, this.rawUsed);
    this.rawUsed = needed;
    this.itemSizes.push(item.length);
    this.items++;
    if (this.hash !== undefined) this.hashItem(item);
  }

  /** Feeds `u32 length ‖ item` to the content hash, staged so the hash sees a few large updates. */
  private hashItem(item: Uint8Array): void {
    const stage = this.hashStage;
    if (this.hashStaged + 4 + item.length > stage.length) this.flushHash();
    if (4 + item.length > stage.length) {
      const length = new Uint8Array(4);
      new DataView(length.buffer).setUint32(0, item.length, true);
      this.hash?.update(length).update(item);
      return;
    }
    const at = this.hashStaged;
    stage[at] = item.length & 0xff;
    stage[at + 1] = (item.length >>> 8) & 0xff;
    stage[at + 2] = (item.length >>> 16) & 0xff;
    stage[at + 3] = item.length >>> 24;
    stage.set(item, at + 4);
    this.hashStaged = at + 4 + item.length;
  }

  private flushHash(): void {
    if (this.hashStaged > 0) this.hash?.update(this.hashStage.subarray(0, this.hashStaged));
    this.hashStaged = 0;
  }

  /** Encodes the open record (compressing it when that pays) and queues it for writing. */
  private async closeRecord(): Promise<void> {
    const raw = this.rawBytes.subarray(0, this.rawUsed);
    const flip = storedItemFlips.get(this);
    if (flip !== undefined) this.flipStored(raw, flip);
    let payload = raw;
    let flags = 0;
    if (this.compressor !== undefined && raw.length > 0) {
      const bound = zstd.compressBound(raw.length);
      if (this.frame.length < bound) this.frame = new Uint8Array(bound);
      const frame = this.frame;
      const frameBytes =
        this.options.dictionary === undefined
          ? this.compressor.compress2(frame, raw)
          : this.compressStreamed(frame, raw);
      // Compression pays when it saves at least 1/16: below that, the inflate on every read costs more than the
      // bytes it saves.
      if (frameBytes * 16 <= raw.length * 15) {
        payload = frame.subarray(0, frameBytes);
        flags = RecordFlag.zstd;
      }
    }
    const footer = encodeRecordFooter(payload, this.itemSizes, flags);
    this.recordSizes.push(payload.length + footer.length);
    this.recordItems.push(this.itemSizes.length);
    if (raw.length > this.maxRecordRawBytes) this.maxRecordRawBytes = raw.length;
    await this.emit(payload);
    await this.emit(footer);
    this.itemSizes.length = 0;
    this.rawUsed = 0;
    if (this.rawBytes.length > this.options.maxRecordBytes) {
      // An oversized item grew the buffer past the cap: do not keep it for the rest of the pack.
      this.rawBytes = new Uint8Array(Math.min(this.options.maxRecordBytes, 64 * 1024));
    }
    if (this.frame.length > zstd.compressBound(this.options.maxRecordBytes)) this.frame = new Uint8Array(0);
  }

  /**
   * One frame of `raw` through the streaming API, its size not given in advance (so the frame header holds no
   * content size, which the reader does not need: it knows the raw size from the size index). zstd then uses the
   * dictionary's tables in place instead of copying them into the context for every record, which it does for a
   * frame of known size above a few KiB: measured on pubnet-like records of 128 events with a 1 MiB dictionary at
   * level 1, 67 µs a record against 86 (and 39 without a dictionary), the same size.
   */
  private compressStreamed(frame: Uint8Array, raw: Uint8Array): number {
    const compressor = this.compressor!;
    let written = 0;
    let consumed = 0;
    // One call takes the whole record in practice (the frame buffer is compressBound of it); loop all the same.
    while (consumed < raw.length) {
      const [, out, taken] = compressor.compressStream2(
        frame.subarray(written),
        raw.subarray(consumed),
        zstd.EndDirective.continue,
      );
      assert(out > 0 || taken > 0, 'zstd makes progress with compressBound bytes of room');
      written += out;
      consumed += taken;
    }
    for (;;) {
      const [left, out] = compressor.compressStream2(frame.subarray(written), EMPTY, zstd.EndDirective.end);
      written += out;
      if (left === 0) return written;
      assert(out > 0, 'zstd ends the frame within compressBound bytes');
    }
  }

  /** The test seam: flips the last byte of item `position` if it is in the open record (and not empty). */
  private flipStored(raw: Uint8Array, position: number): void {
    const local = position - (this.items - this.itemSizes.length);
    if (local < 0 || local >= this.itemSizes.length) return;
    let end = 0;
    for (let i = 0; i <= local; i++) end += this.itemSizes[i]!;
    if (this.itemSizes[local]! > 0) raw[end - 1]! ^= 0x01;
  }

  /** Copies bytes into the output buffer, writing it out when full (large pieces go straight through). */
  private async emit(bytes: Uint8Array): Promise<void> {
    if (this.outputUsed + bytes.length > this.output.length) await this.flush();
    if (bytes.length >= this.output.length) {
      await this.file.write(bytes);
      return;
    }
    this.output.set(bytes, this.outputUsed);
    this.outputUsed += bytes.length;
  }

  private async flush(): Promise<void> {
    if (this.outputUsed === 0) return;
    // Reused after the write resolves: calls are serialised (enter()), so nothing fills it while it is written.
    await this.file.write(this.output.subarray(0, this.outputUsed));
    this.outputUsed = 0;
  }
}
