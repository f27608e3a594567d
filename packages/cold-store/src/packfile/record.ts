// One stored record: `[payload][item-size FOR group][flag u8][CRC32C u32]`, where the payload is the record's items
// concatenated, or one zstd frame of them when the flag says so, and the CRC covers every byte before it. The reader
// checks the CRC first, so a damaged record is reported (CHECKSUM_MISMATCH) before any of its bytes are trusted.
import { crc32c } from '@node-rs/crc32';
import zstd from 'zstd-napi/binding.js';
import { ColdStoreError, ColdStoreErrorCode } from '../errors.js';
import type { StorageFile } from '../storage/storage.js';
import { decodeForGroup, encodeForGroup } from './for-group.js';
import { MIN_RECORD_BYTES, RECORD_FOOTER_BYTES, RecordFlag } from './format.js';
import type { Trailer } from './trailer.js';

/** One decompression context for the whole process: used synchronously, so concurrent batches never share state. */
let sharedDecompressor: InstanceType<typeof zstd.DCtx> | undefined;

/**
 * A pack's zstd dictionary prepared for decompression (a ZSTD_DDict, which holds its own copy of the bytes): what a
 * reader keeps for a pack of codec zstdDictionary. Immutable, so concurrent batches share it.
 */
export type PackDictionary = InstanceType<typeof zstd.DDict>;

/** Test-only fault switch (a negative control), never set outside tests: trust a dictionary without its CRC32C. */
export const __dictionaryFaults: { skipCrc: boolean } = { skipCrc: false };

/**
 * Reads and checks a pack's dictionary (`trailer.dictionarySize` bytes at file offset `at`, between the records and
 * the offset index): CHECKSUM_MISMATCH when its CRC32C is not the trailer's. Undefined (and nothing read) for a pack
 * without one. decodeTrailer bounded the size (MAX_DICTIONARY_BYTES) and checked it fits in the file.
 */
export async function readPackDictionary(
  file: StorageFile,
  trailer: Trailer,
  at: number,
): Promise<PackDictionary | undefined> {
  if (trailer.dictionarySize === 0) return undefined;
  const bytes = await file.read(at, trailer.dictionarySize);
  if (!__dictionaryFaults.skipCrc && crc32c(bytes) !== trailer.dictionaryCrc) {
    throw new ColdStoreError(ColdStoreErrorCode.CHECKSUM_MISMATCH, 'dictionary CRC32C mismatch', {
      file: file.name,
      offset: at,
      field: 'dictionary',
    });
  }
  return new zstd.DDict(bytes);
}

/** The tail of an encoded record: the item sizes, the flag byte and the CRC over `payload ‖ tail[0, len - 4)`. */
export function encodeRecordFooter(payload: Uint8Array, itemSizes: ArrayLike<number>, flags: number): Uint8Array {
  const sizes = encodeForGroup(itemSizes, 0, itemSizes.length);
  const footer = new Uint8Array(sizes.length + RECORD_FOOTER_BYTES);
  footer.set(sizes, 0);
  footer[sizes.length] = flags;
  const crc = crc32c(footer.subarray(0, sizes.length + 1), crc32c(payload));
  new DataView(footer.buffer).setUint32(sizes.length + 1, crc, true);
  return footer;
}

/** Where a record sits, for errors and bounds. */
export interface RecordContext {
  readonly file: string;
  /** File offset of the record's first byte. */
  readonly offset: number;
  readonly record: number;
  /** Items the offset index says the record holds. */
  readonly itemCount: number;
  /** The trailer's largest raw record: a payload claiming more is refused before anything is allocated. */
  readonly maxRawBytes: number;
  /** Whether the pack's codec allows zstd records. */
  readonly zstdAllowed: boolean;
  /** The pack's dictionary, which its zstd records were compressed against (codec zstdDictionary); absent: none. */
  readonly dictionary?: PackDictionary | undefined;
}

/** A checked record: its flag, item sizes, and where its payload ends in the stored bytes. */
export interface CheckedRecord {
  readonly compressed: boolean;
  /** Item sizes, `itemCount` of them. */
  readonly itemSizes: Uint32Array;
  /** Sum of itemSizes. */
  readonly rawBytes: number;
  /** Stored payload bytes: stored[0, payloadBytes). */
  readonly payloadBytes: number;
}

function recordError(code: ColdStoreErrorCode, detail: string, context: RecordContext): ColdStoreError {
  return new ColdStoreError(code, `record ${context.record}: ${detail}`, {
    file: context.file,
    offset: context.offset,
    field: 'record',
  });
}

/**
 * Checks a stored record (CRC unless `verifyCrc` is false because it was checked before, flag, item sizes against
 * the payload) without decoding its payload. CHECKSUM_MISMATCH for a CRC failure; CORRUPT for a record whose checked
 * bytes contradict the format.
 */
export function checkRecord(stored: Uint8Array, context: RecordContext, verifyCrc: boolean): CheckedRecord {
  const length = stored.length;
  if (length < MIN_RECORD_BYTES) {
    throw recordError(ColdStoreErrorCode.CORRUPT, `${length} bytes is shorter than any record`, context);
  }
  const crcAt = length - 4;
  if (verifyCrc) {
    const storedCrc =
      ((stored[crcAt] as number) |
        ((stored[crcAt + 1] as number) << 8) |
        ((stored[crcAt + 2] as number) << 16) |
        ((stored[crcAt + 3] as number) << 24)) >>>
      0;
    if (crc32c(stored.subarray(0, crcAt)) !== storedCrc) {
      throw recordError(ColdStoreErrorCode.CHECKSUM_MISMATCH, 'CRC32C mismatch', context);
    }
  }
  const flags = stored[crcAt - 1] as number;
  if ((flags & ~RecordFlag.zstd) !== 0) {
    throw recordError(ColdStoreErrorCode.CORRUPT, `unknown record flags 0x${flags.toString(16)}`, context);
  }
  const compressed = (flags & RecordFlag.zstd) !== 0;
  if (compressed && !context.zstdAllowed) {
    throw recordError(ColdStoreErrorCode.CORRUPT, 'a zstd record in a pack without a codec', context);
  }
  const itemSizes = new Uint32Array(context.itemCount);
  const payloadBytes = decodeForGroup(stored, crcAt - 1, context.itemCount, 0, itemSizes, {
    file: context.file,
    base: context.offset,
    field: 'item-size index',
  });
  let rawBytes = 0;
  for (const size of itemSizes) rawBytes += size;
  if (rawBytes > context.maxRawBytes) {
    throw recordError(
      ColdStoreErrorCode.CORRUPT,
      `${rawBytes} raw bytes, over the trailer's largest record (${context.maxRawBytes})`,
      context,
    );
  }
  if (!compressed && rawBytes !== payloadBytes) {
    throw recordError(
      ColdStoreErrorCode.CORRUPT,
      `items sum to ${rawBytes} bytes, payload is ${payloadBytes}`,
      context,
    );
  }
  return { compressed, itemSizes, rawBytes, payloadBytes };
}

/**
 * The record's raw payload: a view of `stored` when uncompressed, else the zstd frame inflated into `scratch` (at
 * least `rawBytes` long), against the pack's dictionary when it has one. CORRUPT when the frame does not inflate to
 * exactly rawBytes bytes.
 */
export function recordPayload(
  stored: Uint8Array,
  checked: CheckedRecord,
  scratch: Uint8Array,
  context: RecordContext,
): Uint8Array {
  if (!checked.compressed) return stored.subarray(0, checked.payloadBytes);
  const frame = stored.subarray(0, checked.payloadBytes);
  const target = scratch.subarray(0, checked.rawBytes);
  let produced: number;
  try {
    // A frame that would inflate past rawBytes fails here (the target is exactly that long); one that inflates to
    // fewer is caught below.
    sharedDecompressor ??= new zstd.DCtx();
    produced =
      context.dictionary === undefined
        ? sharedDecompressor.decompress(target, frame)
        : sharedDecompressor.decompressUsingDDict(target, frame, context.dictionary);
  } catch (error) {
    throw new ColdStoreError(
      ColdStoreErrorCode.CORRUPT,
      `record ${context.record}: zstd payload does not inflate to ${checked.rawBytes} bytes`,
      { file: context.file, offset: context.offset, field: 'record', cause: error },
    );
  }
  if (produced !== checked.rawBytes) {
    throw recordError(ColdStoreErrorCode.CORRUPT, `zstd payload inflated to ${produced} bytes`, context);
  }
  return target;
}

/** Where a pack's records lie, for scanRecords: what the packfile reader knows once it is open. */
export interface RecordSpans {
  readonly recordCount: number;
  /** File offset of record r's first byte; r = recordCount: where the records end. */
  offsetOf(record: number): number;
  /** The first item of record r; r = recordCount: the pack's item count. */
  firstItemOf(record: number): number;
  contextOf(record: number): RecordContext;
}

/**
 * Called for each record in order with its raw payload (the items concatenated) and its item sizes. Both are
 * borrowed: valid during the call, and until the promise it returns (if any) settles.
 */
export type RecordVisitor = (payload: Uint8Array, itemSizes: Uint32Array, firstItem: number) => void | Promise<void>;

/** Bytes of adjacent records a scan reads at once (a larger record is a read of its own). */
export const SCAN_READ_BYTES = 4 * 1024 * 1024;

/** One read of records [first, end) into `buffer`, started. */
interface ScanRead {
  readonly first: number;
  readonly end: number;
  readonly bytes: Promise<Uint8Array>;
}

/**
 * Reads every record of a pack in order, in reads of about `readBytes` adjacent records (the next read is in flight
 * while the current one is visited), checks each record (CRC first, as every read does), inflates it and hands it to
 * `visit`. Memory: two read buffers and one inflate buffer. Rejects with the first failure, after the read in flight
 * settled.
 */
export async function scanRecords(
  file: StorageFile,
  spans: RecordSpans,
  visit: RecordVisitor,
  readBytes = SCAN_READ_BYTES,
): Promise<void> {
  const { recordCount } = spans;
  const buffers = [new Uint8Array(0), new Uint8Array(0)];
  let turn = 0;
  const start = (first: number): ScanRead => {
    const offset = spans.offsetOf(first);
    let end = first + 1;
    while (end < recordCount && spans.offsetOf(end + 1) - offset <= readBytes) end++;
    const length = spans.offsetOf(end) - offset;
    if (buffers[turn]!.length < length) buffers[turn] = new Uint8Array(Math.max(length, readBytes));
    const bytes = file.read(offset, length, buffers[turn]);
    turn ^= 1;
    return { first, end, bytes };
  };
  let scratch = new Uint8Array(0);
  let next: ScanRead | undefined = recordCount > 0 ? start(0) : undefined;
  try {
    while (next !== undefined) {
      const read: ScanRead = next;
      const stored = await read.bytes;
      next = read.end < recordCount ? start(read.end) : undefined;
      const base = spans.offsetOf(read.first);
      for (let record = read.first; record < read.end; record++) {
        const context = spans.contextOf(record);
        const bytes = stored.subarray(spans.offsetOf(record) - base, spans.offsetOf(record + 1) - base);
        const checked = checkRecord(bytes, context, true);
        if (checked.compressed && scratch.length < checked.rawBytes) scratch = new Uint8Array(checked.rawBytes);
        const payload = recordPayload(bytes, checked, scratch, context);
        const visited = visit(payload, checked.itemSizes, spans.firstItemOf(record));
        if (visited !== undefined) await visited;
      }
    }
  } finally {
    // A failure leaves no read running into a buffer the caller may have moved on from.
    await next?.bytes.catch(() => undefined);
  }
}
