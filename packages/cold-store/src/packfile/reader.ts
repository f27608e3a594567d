// The packfile reader (FORMAT.md § "Packfile container"). Open costs one storage read of the tail (two when the
// index and app data are larger than it) and checks everything the tail holds; item reads check each record's CRC
// before using a byte of it. Fetches fan out over `concurrency` batches, each with buffers of its own (spec §4.8);
// a batch whose bytes are in memory in the file's mapping is read from the mapping instead, with no storage read.
import { crc32c } from '@node-rs/crc32';
import { assert, CopyBlocks } from '@strata/base';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import { MAX_MAPPED_FILE_BYTES, type StorageFile } from '../storage/storage.js';
import { BufferPool } from './buffer-pool.js';
import { MIN_RECORD_BYTES, PackCodec, TRAILER_BYTES, TrailerFlag } from './format.js';
import {
  type CheckedRecord,
  checkRecord,
  type PackDictionary,
  type RecordContext,
  type RecordVisitor,
  readPackDictionary,
  recordPayload,
  scanRecords,
} from './record.js';
import { decodeOffsetIndex, decodeTrailer, type Trailer } from './trailer.js';
import { itemSizeAt, itemStartAt, layoutOf, recheckRecord } from './verified-record.js';

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
  /** Batches served so far, read or mapped. */
  readonly batches: number;
  /** Of those, batches served from the file's mapping (in memory, so no storage read). */
  readonly mappedBatches: number;
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
/**
 * Buffers a reader keeps grow to fit the pack's largest record (pooled read buffers past maxBatchBytes, the inflate
 * scratch), but not past this: rarer giant records get buffers of their own.
 */
const KEPT_BUFFER_CEILING = 4 * 1024 * 1024;
/**
 * Residency of mapped batches is asked for runs of batches at once: a StorageFile.resident() call (mincore) costs
 * about as much as scanning 32 pages, so batches less than this many bytes apart share one call, ...
 */
const RESIDENCY_GAP_BYTES = 128 * 1024;
/** ... as long as the run spans at most this many bytes (a call stays ~20 µs). */
const RESIDENCY_SPAN_BYTES = 2 * 1024 * 1024;

/** Adjacent records read with one storage read; their requested items are result slots [firstSlot, endSlot). */
interface Batch {
  readonly firstRecord: number;
  lastRecord: number;
  readonly offset: number;
  bytes: number;
  readonly firstSlot: number;
  endSlot: number;
}

/**
 * Where a fetch's items go: the fault mode's shared arena, or (always otherwise) the call's own copy blocks, filled
 * only inside serveBatch (synchronous), so concurrent batches of one call never claim space across an await.
 */
interface Arena {
  readonly bytes: Uint8Array;
  used: number;
}

/**
 * An open packfile. All methods are called from the JS thread; any number of readItems/readRange calls may be in
 * flight at once (they share only the buffer pool, whose buffers have one owner at a time). Results are copies the
 * caller owns, packed into blocks of the call's own (@strata/base CopyBlocks): views that keep their block alive.
 * The reader owns the StorageFile it was opened on from a successful open(): close() closes it (a failed open
 * leaves it to the caller).
 */
export class PackfileReader {
  readonly itemCount: number;
  readonly recordCount: number;
  readonly itemsPerRecord: number;
  readonly appData: Uint8Array;
  readonly contentHash: Uint8Array | undefined;
  private readonly pool: BufferPool;
  /**
   * Bit r set: record r was checked (CRC, flag, sizes) in the file's mapping, whose bytes cannot change: from then
   * on it is read through recheckRecord (no CRC, no checked decode). Records read into buffers are checked each time.
   */
  private checkedRecords: Uint8Array | undefined;
  /** What fetches read records from: the mapping (undefined: the backend cannot map, or the file is over the
   * mapping limit), or null before the first fetch asked. */
  private fetchMapping: Uint8Array | undefined | null = null;
  /** Item sizes of the record being served (recheckRecord). Used only between two awaits: see serveBatch. */
  private sizeScratch: Uint32Array | undefined;
  /** Where serveBatch inflates zstd records (inflateScratchFor). */
  private inflateScratch = new Uint8Array(0);
  private batchCount = 0;
  private mappedBatchCount = 0;
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
    /** Write path (helper CW): the pack's zstd dictionary (codec zstdDictionary), handed to every record's decode. */
    private readonly dictionary: PackDictionary | undefined,
  ) {
    this.itemCount = trailer.itemCount;
    this.recordCount = trailer.recordCount;
    this.itemsPerRecord = trailer.itemsPerRecord;
    this.appData = appData;
    this.contentHash = (trailer.flags & TrailerFlag.contentHash) !== 0 ? trailer.contentHash : undefined;
    // Pooled buffers hold stored bytes only (records inflate into the inflate scratch): they fit any batch and any
    // stored record (so a batch cap below one record still pools), up to KEPT_BUFFER_CEILING.
    const pooledBytes = Math.max(largestRecordBytes, maxBatchBytes);
    this.pool = new BufferPool(Math.min(pooledBytes, Math.max(maxBatchBytes, KEPT_BUFFER_CEILING)), 2 * concurrency);
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

    // Write path (helper CW): a pack of codec zstdDictionary holds its dictionary between the records and the index.
    const dictionaryAt = recordsEnd - trailer.dictionarySize;
    const dictionary = await readPackDictionary(file, trailer, dictionaryAt);
    if (dictionary !== undefined) reads++;

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
    if (offset !== dictionaryAt) {
      throw corrupt(`record sizes sum to ${offset}, the records end at ${dictionaryAt}`, 'offset index');
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
      dictionary,
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

  // Write path (helper CW): a freeze's verification reads each pack whole, in order; the scan is record.ts's.
  /**
   * Every record in order, each checked (CRC first) and inflated, its raw payload and item sizes lent to `visit`
   * (record.ts scanRecords): reads of about 4 MiB of adjacent records, one in flight ahead of the visits.
   */
  scanRecords(visit: RecordVisitor): Promise<void> {
    this.checkOpen();
    return scanRecords(
      this.file,
      {
        recordCount: this.recordCount,
        offsetOf: (record) => this.recordOffsets[record] as number,
        firstItemOf: (record) => this.firstItems[record] as number,
        contextOf: (record) => this.recordContext(record),
      },
      visit,
    );
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
    const stored = mapping.subarray(this.recordOffsets[record], this.recordOffsets[record + 1]);
    const local = position - (this.firstItems[record] as number);
    if (!this.isChecked(record)) {
      const checked = this.checkOnce(record, stored);
      let itemStart = 0;
      for (let i = 0; i < local; i++) itemStart += checked.itemSizes[i] as number;
      return stored.subarray(itemStart, itemStart + (checked.itemSizes[local] as number));
    }
    // Checked before, in these very pages: the offsets straight from the size group, nothing allocated.
    const layout = layoutOf(stored, this.itemsIn(record));
    const itemStart = itemStartAt(stored, layout, local);
    return stored.subarray(itemStart, itemStart + itemSizeAt(stored, layout, local));
  }

  private isChecked(record: number): boolean {
    return (
      this.checkedRecords !== undefined && ((this.checkedRecords[record >>> 3] as number) & (1 << (record & 7))) !== 0
    );
  }

  /** checkRecord of a record in the mapping (CRC included), remembered: the mapped bytes cannot change. */
  private checkOnce(record: number, stored: Uint8Array): CheckedRecord {
    const checked = checkRecord(stored, this.recordContext(record), !__faults.skipRecordCrc);
    this.checkedRecords ??= new Uint8Array(Math.ceil(this.recordCount / 8));
    this.checkedRecords[record >>> 3] = (this.checkedRecords[record >>> 3] as number) | (1 << (record & 7));
    return checked;
  }

  private itemsIn(record: number): number {
    return (this.firstItems[record + 1] as number) - (this.firstItems[record] as number);
  }

  get stats(): PackfileReaderStats {
    return {
      pooledBuffersInUse: this.pool.inUse,
      buffersDroppedByPoolCap: this.pool.droppedByCap,
      batches: this.batchCount,
      mappedBatches: this.mappedBatchCount,
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
      itemCount: this.itemsIn(record),
      maxRawBytes: this.trailer.maxRecordRawBytes,
      zstdAllowed: this.trailer.codec !== PackCodec.none,
      dictionary: this.dictionary,
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

  /**
   * The mapping fetches read from, asked for once: undefined where the backend cannot map (an object store), or the
   * file is over MAX_MAPPED_FILE_BYTES, or mapping failed (then reads serve: they do not need it).
   */
  private mappingForFetch(): Uint8Array | undefined {
    if (this.fetchMapping === null) {
      let mapping: Uint8Array | undefined;
      if (this.file.size <= MAX_MAPPED_FILE_BYTES) {
        try {
          mapping = this.file.map();
        } catch (error) {
          if (!(error instanceof ColdStoreError) || error.code === ColdStoreErrorCode.CLOSED) throw error;
        }
      }
      this.fetchMapping = mapping;
    }
    return this.fetchMapping;
  }

  /**
   * Reads the items at positionAt(0..count) with `concurrency` batches in flight. A batch whose bytes are resident
   * in the mapping is served from it at once (no read, no await); any other is one storage read into its own buffer.
   */
  private async fetch(count: number, positionAt: (slot: number) => number): Promise<Uint8Array[]> {
    const results = new Array<Uint8Array>(count);
    const batches = this.planBatches(count, positionAt);
    const arena = __faults.sharedArena ? this.faultArena(batches) : undefined;
    const copies = new CopyBlocks();
    const mapping = batches.length > 0 ? this.mappingForFetch() : undefined;
    const resident = mapping === undefined ? undefined : this.residentBatches(batches);
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async (): Promise<void> => {
      while (failure === undefined && next < batches.length) {
        const index = next++;
        const batch = batches[index] as Batch; // index < batches.length
        try {
          if (mapping !== undefined && resident?.[index] === 1) {
            this.mappedBatchCount++;
            this.serveBatch(batch, mapping, 0, true, positionAt, results, copies, arena, arena?.used ?? 0);
          } else {
            await this.readBatch(batch, positionAt, results, copies, arena);
          }
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

  /**
   * Which batches are in memory in the mapping (1) and which need a read (0): one StorageFile.resident() call per
   * run of nearby batches (RESIDENCY_GAP_BYTES, RESIDENCY_SPAN_BYTES), and one per batch of a run that is not all in
   * memory. All 1 when the backend's mapping is memory (no resident()).
   */
  private residentBatches(batches: readonly Batch[]): Uint8Array {
    const flags = new Uint8Array(batches.length);
    const resident = this.file.resident?.bind(this.file);
    if (resident === undefined) return flags.fill(1);
    for (let first = 0; first < batches.length; ) {
      const start = (batches[first] as Batch).offset;
      let end = start + (batches[first] as Batch).bytes;
      let last = first;
      while (last + 1 < batches.length) {
        const following = batches[last + 1] as Batch;
        const followingEnd = following.offset + following.bytes;
        if (following.offset - end > RESIDENCY_GAP_BYTES || followingEnd - start > RESIDENCY_SPAN_BYTES) break;
        end = followingEnd;
        last++;
      }
      if (resident(start, end - start)) {
        flags.fill(1, first, last + 1);
      } else if (last > first) {
        for (let b = first; b <= last; b++) {
          const batch = batches[b] as Batch;
          flags[b] = resident(batch.offset, batch.bytes) ? 1 : 0;
        }
      }
      first = last + 1;
    }
    return flags;
  }

  /** Reads one batch into a buffer of its own, then serves it; the buffer goes back to the pool on every path. */
  private async readBatch(
    batch: Batch,
    positionAt: (slot: number) => number,
    results: Uint8Array[],
    copies: CopyBlocks,
    arena: Arena | undefined,
  ): Promise<void> {
    const arenaBase = arena?.used ?? 0; // the fault: claimed before the read is awaited
    const buffer = this.pool.acquire(batch.bytes);
    try {
      this.readCount++;
      const bytes = await this.file.read(batch.offset, batch.bytes, buffer);
      this.serveBatch(batch, bytes, batch.offset, false, positionAt, results, copies, arena, arenaBase);
    } finally {
      this.pool.release(buffer);
    }
  }

  /**
   * Checks each record of a batch whose stored bytes are `source` (file offset `sourceOffset` at source[0]), inflates
   * it if it is zstd, and copies the requested items out. Records of the mapping (`mapped`) are checked once per
   * reader (checkOnce), records of a read buffer every time. Synchronous: the reader's size and inflate scratches are
   * used between two awaits only, so concurrent batches never share them.
   */
  private serveBatch(
    batch: Batch,
    source: Uint8Array,
    sourceOffset: number,
    mapped: boolean,
    positionAt: (slot: number) => number,
    results: Uint8Array[],
    copies: CopyBlocks,
    arena: Arena | undefined,
    arenaBase: number,
  ): void {
    this.batchCount++;
    let slot = batch.firstSlot;
    let arenaAt = arenaBase;
    for (let record = batch.firstRecord; record <= batch.lastRecord; record++) {
      const stored = source.subarray(
        (this.recordOffsets[record] as number) - sourceOffset,
        (this.recordOffsets[record + 1] as number) - sourceOffset,
      );
      let checked: CheckedRecord;
      if (!mapped) checked = checkRecord(stored, this.recordContext(record), !__faults.skipRecordCrc);
      else if (!this.isChecked(record)) checked = this.checkOnce(record, stored);
      else checked = recheckRecord(stored, this.itemsIn(record), this.sizesFor(this.itemsIn(record)));
      const payload = checked.compressed
        ? recordPayload(stored, checked, this.inflateScratchFor(checked.rawBytes), this.recordContext(record))
        : stored.subarray(0, checked.payloadBytes);
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
          results[slot] = copies.copy(item);
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
  }

  /**
   * Where a zstd record of `rawBytes` inflates: the reader's inflate scratch, grown to fit (kept up to
   * KEPT_BUFFER_CEILING; a larger record gets a buffer of its own). Used between two awaits only (serveBatch is
   * synchronous and copies every item out), so concurrent batches never share it — as the size scratch.
   */
  private inflateScratchFor(rawBytes: number): Uint8Array {
    if (this.inflateScratch.length >= rawBytes) return this.inflateScratch;
    const buffer = new Uint8Array(rawBytes);
    if (rawBytes <= KEPT_BUFFER_CEILING) this.inflateScratch = buffer;
    return buffer;
  }

  /** The reader's item-size scratch, at least `itemCount` long (at most itemsPerRecord: 256 KiB at 65,536). */
  private sizesFor(itemCount: number): Uint32Array {
    if (this.sizeScratch === undefined || this.sizeScratch.length < itemCount) {
      this.sizeScratch = new Uint32Array(this.itemsPerRecord);
    }
    return this.sizeScratch;
  }

  /** The fault mode's arena: room for every record of the fetch at its largest raw size. */
  private faultArena(batches: readonly Batch[]): Arena {
    let records = 0;
    for (const batch of batches) records += batch.lastRecord - batch.firstRecord + 1;
    return { bytes: new Uint8Array(records * this.trailer.maxRecordRawBytes), used: 0 };
  }
}
