// The packfile reader (FORMAT.md § "Packfile container"). Open costs one storage read of the tail (two when the
// index and app data are larger than it) and checks everything the tail holds; item reads check each record's CRC
// before using a byte of it. Fetches fan out over `concurrency` batches, each with buffers of its own (spec §4.8).
import { crc32c } from '@node-rs/crc32';
import { assert } from '@strata/base';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import type { StorageFile } from '../storage/storage.js';
import { BufferPool } from './buffer-pool.js';
import { MIN_RECORD_BYTES, PackCodec, TRAILER_BYTES, TrailerFlag } from './format.js';
import { type CheckedRecord, checkRecord, type RecordContext, recordPayload } from './record.js';
import { decodeOffsetIndex, decodeTrailer, type Trailer } from './trailer.js';

/** Options of PackfileReader.open. */
export interface PackfileReadOptions {
  /** Batches in flight per readItems/readRange call, 1..64; default 8. */
  readonly concurrency?: number;
  /** A batch is a run of adjacent records of at most this many stored bytes (or one larger record), read with one
   * storage read; 1..2^30, default 1 MiB. Pooled buffers are this size, or the pack's largest record (stored or
   * inflated) when that is larger, up to 4 MiB. */
  readonly maxBatchBytes?: number;
}

/** Counters of a reader's buffer pool and reads. */
export interface PackfileReaderStats {
  /** Buffers taken from the pool and not yet given back: 0 whenever no read is in flight, failed ones included. */
  readonly pooledBuffersInUse: number;
  /** Buffers given back while the pool already held its cap (2 × concurrency) of free ones, so left to the GC. */
  readonly buffersDroppedByPoolCap: number;
  /** Batches read so far. */
  readonly batches: number;
  /** Storage reads so far (open's included). */
  readonly reads: number;
}

/**
 * Test-only fault switches (negative controls); never set outside tests. `sharedArena` makes a fetch copy items
 * into one arena for the whole call, each batch claiming its space before its read is awaited and filling it after:
 * the unsynchronised shared arena of spec §4.8, which concurrent batches tear. `skipRecordCrc` trusts records
 * without checking their CRC32C.
 */
export const __faults: { sharedArena: boolean; skipRecordCrc: boolean } = {
  sharedArena: false,
  skipRecordCrc: false,
};

/** Bytes read speculatively at open: usually the trailer, offset index and app data in one read. */
const TAIL_READ_BYTES = 256 * 1024;
const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;
const DEFAULT_MAX_BATCH_BYTES = 1024 * 1024;
/** Pooled buffers grow past maxBatchBytes to fit the pack's largest record, but not past this. */
const POOLED_BUFFER_CEILING = 4 * 1024 * 1024;

/** Adjacent records read with one storage read; their requested items are result slots [firstSlot, endSlot). */
interface Batch {
  readonly firstRecord: number;
  lastRecord: number;
  readonly offset: number;
  bytes: number;
  readonly firstSlot: number;
  endSlot: number;
}

/** Where a fetch's items go: the fault mode's shared arena or (always otherwise) fresh copies. */
interface Arena {
  readonly bytes: Uint8Array;
  used: number;
}

/**
 * An open packfile. All methods are called from the JS thread; any number of readItems/readRange calls may be in
 * flight at once (they share only the buffer pool, whose buffers have one owner at a time). Results are copies the
 * caller owns. The reader owns the StorageFile it was opened on from a successful open(): close() closes it (a
 * failed open leaves it to the caller).
 */
export class PackfileReader {
  readonly itemCount: number;
  readonly recordCount: number;
  readonly itemsPerRecord: number;
  readonly appData: Uint8Array;
  readonly contentHash: Uint8Array | undefined;
  private readonly pool: BufferPool;
  /** Bit r set: record r's CRC was checked in the mapping (itemView). */
  private checkedRecords: Uint8Array | undefined;
  private batchCount = 0;
  private readCount: number;
  private closed = false;

  private constructor(
    private readonly file: StorageFile,
    private readonly trailer: Trailer,
    /** File offset of each record, and of the index after the last: recordCount + 1 entries. */
    private readonly recordOffsets: Float64Array,
    /** First item of each record, and itemCount after the last: recordCount + 1 entries. */
    private readonly firstItems: Uint32Array,
    /** Every record but the last holds exactly itemsPerRecord items (no byte cap hit): item / ipr is its record. */
    private readonly uniform: boolean,
    appData: Uint8Array,
    private readonly concurrency: number,
    private readonly maxBatchBytes: number,
    largestRecordBytes: number,
    openReads: number,
  ) {
    this.itemCount = trailer.itemCount;
    this.recordCount = trailer.recordCount;
    this.itemsPerRecord = trailer.itemsPerRecord;
    this.appData = appData;
    this.contentHash = (trailer.flags & TrailerFlag.contentHash) !== 0 ? trailer.contentHash : undefined;
    // Pooled buffers fit any batch and any record's inflated payload (so a batch cap below one record still
    // pools), up to POOLED_BUFFER_CEILING: rarer giant records get buffers of their own.
    const pooledBytes = Math.max(largestRecordBytes, trailer.maxRecordRawBytes, maxBatchBytes);
    this.pool = new BufferPool(Math.min(pooledBytes, Math.max(maxBatchBytes, POOLED_BUFFER_CEILING)), 2 * concurrency);
    this.readCount = openReads;
  }

  /**
   * One read of the tail (min(256 KiB, size)), a second only when the index and app data do not fit in it. Checks,
   * in order: size (TRUNCATED), magic (BAD_MAGIC), trailer CRC (CHECKSUM_MISMATCH), version (BAD_VERSION), flags,
   * codec and format id (BAD_FORMAT), counts against the file size, offset-index CRC and app-data CRC
   * (CHECKSUM_MISMATCH), then that record sizes sum to the index's offset and item counts to itemCount (CORRUPT).
   */
  static async open(
    file: StorageFile,
    expectedFormatId: number,
    options: PackfileReadOptions = {},
  ): Promise<PackfileReader> {
    if (typeof file !== 'object' || file === null || typeof file.read !== 'function') {
      invalidArgument('file', 'expected a StorageFile');
    }
    checkInteger(expectedFormatId, 0, 2 ** 32 - 1, 'expectedFormatId');
    if (typeof options !== 'object' || options === null) invalidArgument('options', 'expected an options object');
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    checkInteger(concurrency, 1, MAX_CONCURRENCY, 'concurrency');
    const maxBatchBytes = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    checkInteger(maxBatchBytes, 1, 2 ** 30, 'maxBatchBytes');

    const { name, size } = file;
    if (size < TRAILER_BYTES) {
      throw new ColdStoreError(ColdStoreErrorCode.TRUNCATED, `${size} bytes is shorter than a packfile trailer`, {
        file: name,
        offset: 0,
      });
    }
    const tailBytes = Math.min(TAIL_READ_BYTES, size);
    const tail = await file.read(size - tailBytes, tailBytes);
    let reads = 1;
    const trailer = decodeTrailer(tail.subarray(tailBytes - TRAILER_BYTES), size, expectedFormatId, name);
    const metaBytes = trailer.indexSize + trailer.appDataSize;
    const recordsEnd = size - TRAILER_BYTES - metaBytes;
    let meta: Uint8Array;
    if (metaBytes + TRAILER_BYTES <= tailBytes) {
      meta = tail.subarray(tailBytes - TRAILER_BYTES - metaBytes, tailBytes - TRAILER_BYTES);
    } else {
      meta = await file.read(recordsEnd, metaBytes); // bounded: decodeTrailer checked it fits in the file
      reads++;
    }
    const index = decodeOffsetIndex(meta.subarray(0, trailer.indexSize), trailer.recordCount, recordsEnd, name);
    const appData = meta.slice(trailer.indexSize);
    if (crc32c(appData) !== trailer.appDataCrc) {
      throw new ColdStoreError(ColdStoreErrorCode.CHECKSUM_MISMATCH, 'app data CRC32C mismatch', {
        file: name,
        offset: recordsEnd + trailer.indexSize,
        field: 'app data',
      });
    }

    const corrupt = (detail: string, field: string) =>
      new ColdStoreError(ColdStoreErrorCode.CORRUPT, detail, { file: name, offset: recordsEnd, field });
    const recordCount = trailer.recordCount;
    const recordOffsets = new Float64Array(recordCount + 1);
    const firstItems = new Uint32Array(recordCount + 1);
    let offset = 0;
    let items = 0;
    let uniform = true;
    let largestRecordBytes = 0;
    for (let record = 0; record < recordCount; record++) {
      const recordBytes = index.recordSizes[record] as number; // record < recordCount = array length
      const recordItems = index.recordItems[record] as number;
      if (recordBytes < MIN_RECORD_BYTES) throw corrupt(`record ${record} of ${recordBytes} bytes`, 'offset index');
      if (recordItems < 1 || recordItems > trailer.itemsPerRecord) {
        throw corrupt(`record ${record} holds ${recordItems} items`, 'offset index');
      }
      if (recordItems !== trailer.itemsPerRecord && record !== recordCount - 1) uniform = false;
      if (recordBytes > largestRecordBytes) largestRecordBytes = recordBytes;
      recordOffsets[record] = offset;
      firstItems[record] = items;
      offset += recordBytes;
      items += recordItems;
    }
    recordOffsets[recordCount] = offset;
    if (offset !== recordsEnd) {
      throw corrupt(`record sizes sum to ${offset}, the offset index starts at ${recordsEnd}`, 'offset index');
    }
    if (items !== trailer.itemCount) {
      throw corrupt(`records hold ${items} items, the trailer says ${trailer.itemCount}`, 'offset index');
    }
    firstItems[recordCount] = items;
    return new PackfileReader(
      file,
      trailer,
      recordOffsets,
      firstItems,
      uniform,
      appData,
      concurrency,
      maxBatchBytes,
      largestRecordBytes,
      reads,
    );
  }

  /** The record holding `item` (0 ≤ item < itemCount): item / itemsPerRecord when no record was closed early by the
   * byte cap, else found by binary search over the records' first items (from the offset index). */
  recordOfItem(item: number): number {
    checkInteger(item, 0, this.itemCount - 1, 'item');
    return this.recordOf(item);
  }

  private recordOf(item: number): number {
    if (this.uniform) return Math.floor(item / this.itemsPerRecord);
    let low = 0;
    let high = this.recordCount - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.firstItems[mid] as number) <= item) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /**
   * Items at strictly ascending positions; result i is positions[i], a copy the caller owns. Positions fall into
   * batches of adjacent records (at most maxBatchBytes each, one storage read each), `concurrency` in flight, each
   * with its own pooled buffers; every record's CRC32C is checked before use. INVALID_ARGUMENT for a position that
   * is not an integer in [0, itemCount) or not above the one before; CHECKSUM_MISMATCH / CORRUPT for a damaged
   * record (no partial result is returned).
   */
  async readItems(positions: ArrayLike<number>): Promise<Uint8Array[]> {
    this.checkOpen();
    if (typeof positions !== 'object' || positions === null || !Number.isInteger(positions.length)) {
      invalidArgument('positions', 'expected an array of positions');
    }
    let previous = -1;
    for (let i = 0; i < positions.length; i++) {
      const position = positions[i];
      checkInteger(position, previous + 1, this.itemCount - 1, `positions[${i}]`);
      previous = position;
    }
    return this.fetch(positions.length, (i) => positions[i] as number);
  }

  /** Items [start, end) in order (0 ≤ start ≤ end ≤ itemCount), read as readItems reads them. */
  async readRange(start: number, end: number): Promise<Uint8Array[]> {
    this.checkOpen();
    checkInteger(start, 0, this.itemCount, 'start');
    checkInteger(end, start, this.itemCount, 'end');
    return this.fetch(end - start, (i) => start + i);
  }

  /**
   * Zero-copy access for packs written with codec 'none' (index.pack): the item's bytes as a view of the file's
   * mapping (StorageFile.map(), mapped on first use; FILE_TOO_LARGE above the mapping limit) once its record's CRC
   * was checked (once per record, remembered as a bit). Undefined when the pack may hold compressed records or the
   * backend cannot map. The view is read-only memory: writing to it crashes the process.
   */
  itemView(position: number): Uint8Array | undefined {
    this.checkOpen();
    checkInteger(position, 0, this.itemCount - 1, 'position');
    if (this.trailer.codec !== PackCodec.none) return undefined;
    const mapping = this.file.map();
    if (mapping === undefined) return undefined;
    const record = this.recordOf(position);
    const start = this.recordOffsets[record] as number;
    const stored = mapping.subarray(start, this.recordOffsets[record + 1]);
    this.checkedRecords ??= new Uint8Array(Math.ceil(this.recordCount / 8));
    const bit = 1 << (record & 7);
    const verified = ((this.checkedRecords[record >>> 3] as number) & bit) !== 0;
    const checked = checkRecord(stored, this.recordContext(record), !verified && !__faults.skipRecordCrc);
    if (!verified) this.checkedRecords[record >>> 3] = (this.checkedRecords[record >>> 3] as number) | bit;
    const local = position - (this.firstItems[record] as number);
    let itemStart = 0;
    for (let i = 0; i < local; i++) itemStart += checked.itemSizes[i] as number;
    return stored.subarray(itemStart, itemStart + (checked.itemSizes[local] as number));
  }

  get stats(): PackfileReaderStats {
    return {
      pooledBuffersInUse: this.pool.inUse,
      buffersDroppedByPoolCap: this.pool.droppedByCap,
      batches: this.batchCount,
      reads: this.readCount,
    };
  }

  /** Closes the StorageFile (after its reads in flight). Idempotent; later reads reject with CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }

  private checkOpen(): void {
    if (this.closed) {
      throw new ColdStoreError(ColdStoreErrorCode.CLOSED, 'the packfile reader is closed', { file: this.file.name });
    }
  }

  private recordContext(record: number): RecordContext {
    return {
      file: this.file.name,
      offset: this.recordOffsets[record] as number,
      record,
      itemCount: (this.firstItems[record + 1] as number) - (this.firstItems[record] as number),
      maxRawBytes: this.trailer.maxRecordRawBytes,
      zstdAllowed: this.trailer.codec === PackCodec.zstd,
    };
  }

  /** Groups the `count` ascending positions into batches of adjacent records of at most maxBatchBytes. */
  private planBatches(count: number, positionAt: (slot: number) => number): Batch[] {
    const batches: Batch[] = [];
    let current: Batch | undefined;
    let record = -1;
    for (let slot = 0; slot < count; slot++) {
      const position = positionAt(slot);
      if (record >= 0 && position < (this.firstItems[record + 1] as number)) continue; // same record
      record = this.recordOf(position);
      const offset = this.recordOffsets[record] as number;
      const bytes = (this.recordOffsets[record + 1] as number) - offset;
      if (current !== undefined && current.lastRecord + 1 === record && current.bytes + bytes <= this.maxBatchBytes) {
        current.lastRecord = record;
        current.bytes += bytes;
      } else {
        if (current !== undefined) current.endSlot = slot;
        current = { firstRecord: record, lastRecord: record, offset, bytes, firstSlot: slot, endSlot: slot };
        batches.push(current);
      }
    }
    // endSlot of every batch but the last was set when the next one started.
    if (current !== undefined) current.endSlot = count;
    return batches;
  }

  /** Reads the items at positionAt(0..count) with `concurrency` batches in flight. */
  private async fetch(count: number, positionAt: (slot: number) => number): Promise<Uint8Array[]> {
    const results = new Array<Uint8Array>(count);
    const batches = this.planBatches(count, positionAt);
    const arena = __faults.sharedArena ? this.faultArena(batches) : undefined;
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async (): Promise<void> => {
      while (failure === undefined && next < batches.length) {
        const batch = batches[next++] as Batch; // next < batches.length
        try {
          await this.readBatch(batch, positionAt, results, arena);
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    };
    // Workers never reject, so every batch in flight has finished (and released its buffers) when this resolves.
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker));
    if (failure !== undefined) throw failure.error;
    return results;
  }

  /** Reads one batch into a buffer of its own, checks each record, and copies the requested items out. */
  private async readBatch(
    batch: Batch,
    positionAt: (slot: number) => number,
    results: Uint8Array[],
    arena: Arena | undefined,
  ): Promise<void> {
    this.batchCount++;
    const arenaBase = arena?.used ?? 0; // the fault: claimed before the read is awaited
    const buffer = this.pool.acquire(batch.bytes);
    let scratch: Uint8Array | undefined;
    try {
      this.readCount++;
      const bytes = await this.file.read(batch.offset, batch.bytes, buffer);
      let slot = batch.firstSlot;
      let arenaAt = arenaBase;
      for (let record = batch.firstRecord; record <= batch.lastRecord; record++) {
        const start = (this.recordOffsets[record] as number) - batch.offset;
        const stored = bytes.subarray(start, (this.recordOffsets[record + 1] as number) - batch.offset);
        const context = this.recordContext(record);
        const checked: CheckedRecord = checkRecord(stored, context, !__faults.skipRecordCrc);
        if (checked.compressed && (scratch === undefined || scratch.length < checked.rawBytes)) {
          if (scratch !== undefined) this.pool.release(scratch);
          scratch = undefined; // not released twice if acquire throws
          scratch = this.pool.acquire(checked.rawBytes);
        }
        const payload = recordPayload(stored, checked, scratch ?? bytes, context);
        const recordFirst = this.firstItems[record] as number;
        const recordEnd = this.firstItems[record + 1] as number;
        let local = 0;
        let itemStart = 0;
        while (slot < batch.endSlot) {
          const position = positionAt(slot);
          if (position >= recordEnd) break;
          for (; local < position - recordFirst; local++) itemStart += checked.itemSizes[local] as number;
          const item = payload.subarray(itemStart, itemStart + (checked.itemSizes[local] as number));
          if (arena === undefined) {
            results[slot] = item.slice();
          } else {
            arena.bytes.set(item, arenaAt);
            results[slot] = arena.bytes.subarray(arenaAt, arenaAt + item.length);
            arenaAt += item.length;
          }
          slot++;
        }
      }
      assert(slot === batch.endSlot, 'every slot of a batch belongs to one of its records');
      if (arena !== undefined) arena.used = arenaAt;
    } finally {
      this.pool.release(buffer);
      if (scratch !== undefined) this.pool.release(scratch);
    }
  }

  /** The fault mode's arena: room for every record of the fetch at its largest raw size. */
  private faultArena(batches: readonly Batch[]): Arena {
    let records = 0;
    for (const batch of batches) records += batch.lastRecord - batch.firstRecord + 1;
    return { bytes: new Uint8Array(records * this.trailer.maxRecordRawBytes), used: 0 };
  }
}
