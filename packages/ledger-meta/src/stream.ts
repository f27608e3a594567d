// Readers of stellar-core record-marked LedgerCloseMeta streams (spec ledger-keys-and-buckets.md §3.1): each record
// is a 4-byte big-endian mark (top bit set, low 31 bits = length) and one XDR LedgerCloseMeta. A stream is one
// network history, so ledger sequences must strictly increase.
import { open } from 'node:fs/promises';
import { readU32 } from '@strata/ledger-key';
import { checkBytes, checkOptions, checkPath, checkString, optionalBoolean, optionalInteger } from './arguments.js';
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import { readLedgerSequence } from './ledger-close-meta.js';

const { TRUNCATED, BAD_RECORD_MARK, TOO_LONG, OUT_OF_ORDER, IO } = LedgerMetaErrorCode;

/** Default cap on one record's length: far above any real ledger (pubnet LCMs are a few MiB), far below 2^31. */
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** Files up to this size are read in one call (an optimisation only; records are then subarrays of that buffer). */
export const DEFAULT_WHOLE_FILE_BYTES = 4 * 1024 * 1024;
/** Size of the read buffer for larger files. */
export const DEFAULT_READ_BUFFER_BYTES = 1024 * 1024;

const LAST_FRAGMENT_BIT = 0x80000000;
/** The longest record a mark can describe (31 length bits); also the most one file read may return. */
const MAX_RECORD_LENGTH = 0x7fff_ffff;

/** One record of a stream. `bytes` is the LedgerCloseMeta XDR; the caller may keep it (it is never reused). */
export interface LedgerCloseMetaRecord {
  /** The stream file, or undefined for an in-memory buffer. */
  file: string | undefined;
  /** 0-based index of the record in the stream. */
  record: number;
  /** Byte offset of `bytes` (just after the record mark) in the file or buffer. */
  offset: number;
  ledgerSeq: number;
  bytes: Uint8Array;
}

/** Options of the stream readers. Each is an integer in [0, 2^31 - 1] (readBufferBytes: at least 1) or absent. */
export interface StreamReadOptions {
  /** Records longer than this are TOO_LONG (default 256 MiB). */
  maxRecordBytes?: number;
  /** Require strictly increasing ledger sequences (default true). */
  checkOrder?: boolean;
  /** Read files up to this size whole (default 4 MiB); larger ones through a fixed buffer. */
  wholeFileBytes?: number;
  /** Read buffer size for larger files (default 1 MiB; sizes below 16 bytes are raised to 16). */
  readBufferBytes?: number;
}

/** StreamReadOptions with the defaults applied, checked (INVALID_ARGUMENT naming the option). */
interface ResolvedStreamOptions {
  maxRecordBytes: number;
  checkOrder: boolean;
  wholeFileBytes: number;
  readBufferBytes: number;
}

function resolveStreamOptions(options: Record<string, unknown>): ResolvedStreamOptions {
  const { maxRecordBytes, checkOrder, wholeFileBytes, readBufferBytes } = options;
  return {
    maxRecordBytes: optionalInteger(maxRecordBytes, 'maxRecordBytes', 0, MAX_RECORD_LENGTH, DEFAULT_MAX_RECORD_BYTES),
    checkOrder: optionalBoolean(checkOrder, 'checkOrder', true),
    wholeFileBytes: optionalInteger(wholeFileBytes, 'wholeFileBytes', 0, MAX_RECORD_LENGTH, DEFAULT_WHOLE_FILE_BYTES),
    readBufferBytes: Math.max(
      16,
      optionalInteger(readBufferBytes, 'readBufferBytes', 1, MAX_RECORD_LENGTH, DEFAULT_READ_BUFFER_BYTES),
    ),
  };
}

/** Tracks the ledger order of one stream. */
class OrderCheck {
  private previous = -1;
  constructor(private readonly enabled: boolean) {}

  check(ledgerSeq: number, file: string | undefined, record: number, offset: number): void {
    if (this.enabled && ledgerSeq <= this.previous) {
      throw new LedgerMetaError(OUT_OF_ORDER, `ledger ${ledgerSeq} follows ledger ${this.previous}`, {
        ...(file === undefined ? {} : { file }),
        record,
        offset,
      });
    }
    this.previous = ledgerSeq;
  }
}

function framingError(
  code: LedgerMetaErrorCode,
  detail: string,
  file: string | undefined,
  record: number,
  offset: number,
): LedgerMetaError {
  return new LedgerMetaError(code, detail, { ...(file === undefined ? {} : { file }), record, offset });
}

/** Validates a record mark read at `offset`; returns the payload length. */
function recordLength(
  mark: number,
  available: number,
  maxRecordBytes: number,
  file: string | undefined,
  record: number,
  offset: number,
): number {
  if ((mark & LAST_FRAGMENT_BIT) === 0) {
    throw framingError(BAD_RECORD_MARK, `record mark 0x${mark.toString(16)} lacks the top bit`, file, record, offset);
  }
  const length = mark & 0x7fffffff;
  if (length > maxRecordBytes) {
    throw framingError(TOO_LONG, `record of ${length} bytes exceeds the cap ${maxRecordBytes}`, file, record, offset);
  }
  if (length > available) {
    throw framingError(TRUNCATED, `record of ${length} bytes, ${available} left`, file, record, offset + 4);
  }
  return length;
}

/**
 * The records of a record-marked stream held in memory, in order. Records are subarrays of `bytes` (zero-copy).
 * Synchronous; framing, order and each record's header up to the ledger sequence are checked, the rest of each
 * LedgerCloseMeta is checked by `extractLedger` / `validateLedgerCloseMeta`. Bad arguments are INVALID_ARGUMENT,
 * thrown by this call.
 */
export function iterateLedgerCloseMetaRecords(
  bytes: Uint8Array,
  options: StreamReadOptions & { file?: string } = {},
): Generator<LedgerCloseMetaRecord, void, undefined> {
  checkBytes(bytes, 'bytes');
  const checked = checkOptions(options, 'options');
  const file = checked.file === undefined ? undefined : checkString(checked.file, 'file');
  return iterateRecords(bytes, resolveStreamOptions(checked), file);
}

function* iterateRecords(
  bytes: Uint8Array,
  options: ResolvedStreamOptions,
  file: string | undefined,
): Generator<LedgerCloseMetaRecord, void, undefined> {
  const maxRecordBytes = options.maxRecordBytes;
  const order = new OrderCheck(options.checkOrder);
  let offset = 0;
  for (let record = 0; offset < bytes.length; record++) {
    if (offset + 4 > bytes.length) {
      throw framingError(TRUNCATED, `record mark cut after ${bytes.length - offset} bytes`, file, record, offset);
    }
    const mark = readU32(bytes, offset); // in bounds: checked above
    const length = recordLength(mark, bytes.length - offset - 4, maxRecordBytes, file, record, offset);
    const payload = bytes.subarray(offset + 4, offset + 4 + length);
    const ledgerSeq = readLedgerSequence(payload, { file, record, offset: offset + 4 });
    order.check(ledgerSeq, file, record, offset);
    yield { file, record, offset: offset + 4, ledgerSeq, bytes: payload };
    offset += 4 + length;
  }
}

/**
 * The records of a stream file, in order, with bounded memory: a file above `wholeFileBytes` is read through one
 * fixed buffer, and each record gets its own array of exactly its length (so memory is the read buffer plus the
 * records the caller still holds). Bad arguments are INVALID_ARGUMENT, thrown by this call; while iterating, errors are
 * LedgerMetaError with the file, record index and file offset (IO wraps file-system errors). Not safe to share one
 * iterator between concurrent consumers.
 */
export function readLedgerCloseMetaStream(
  path: string,
  options: StreamReadOptions = {},
): AsyncGenerator<LedgerCloseMetaRecord, void, undefined> {
  checkPath(path, 'path');
  return readStreamFile(path, resolveStreamOptions(checkOptions(options, 'options')));
}

async function* readStreamFile(
  path: string,
  options: ResolvedStreamOptions,
): AsyncGenerator<LedgerCloseMetaRecord, void, undefined> {
  const { maxRecordBytes, wholeFileBytes, readBufferBytes: bufferBytes } = options;
  const io = async <T>(what: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      throw new LedgerMetaError(IO, `${what}: ${(error as Error).message}`, { file: path, cause: error });
    }
  };
  const handle = await io('open', () => open(path, 'r'));
  try {
    const size = (await io('stat', () => handle.stat())).size;
    if (size <= wholeFileBytes) {
      const whole = await io('read', () => handle.readFile());
      yield* iterateRecords(new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength), options, path);
      return;
    }
    const buffer = new Uint8Array(bufferBytes);
    let bufferStart = 0; // first unread byte in `buffer`
    let bufferEnd = 0; // end of valid bytes in `buffer`
    let filePosition = 0; // file offset of buffer[bufferEnd]
    const refill = async (): Promise<void> => {
      buffer.copyWithin(0, bufferStart, bufferEnd);
      bufferEnd -= bufferStart;
      bufferStart = 0;
      const { bytesRead } = await io('read', () =>
        handle.read(buffer, bufferEnd, buffer.length - bufferEnd, filePosition),
      );
      bufferEnd += bytesRead;
      filePosition += bytesRead;
    };
    const order = new OrderCheck(options.checkOrder);
    let offset = 0; // file offset of the next record mark
    for (let record = 0; ; record++) {
      if (bufferEnd - bufferStart < 4) await refill();
      const buffered = bufferEnd - bufferStart;
      if (buffered === 0) return; // EOF exactly at a record boundary
      if (buffered < 4) throw framingError(TRUNCATED, `record mark cut after ${buffered} bytes`, path, record, offset);
      const mark = readU32(buffer, bufferStart); // in bounds: 4 bytes are buffered
      bufferStart += 4;
      // The length is checked against what the file still holds before the record's array is allocated.
      const length = recordLength(mark, size - offset - 4, maxRecordBytes, path, record, offset);
      const payload = new Uint8Array(length);
      let filled = Math.min(length, bufferEnd - bufferStart);
      payload.set(buffer.subarray(bufferStart, bufferStart + filled));
      bufferStart += filled;
      while (filled < length) {
        // Large remainders go straight into the record's array; the read buffer only carries small tails.
        const { bytesRead } = await io('read', () => handle.read(payload, filled, length - filled, filePosition));
        if (bytesRead === 0) {
          throw framingError(TRUNCATED, `record of ${length} bytes cut after ${filled}`, path, record, offset + 4);
        }
        filled += bytesRead;
        filePosition += bytesRead;
      }
      const ledgerSeq = readLedgerSequence(payload, { file: path, record, offset: offset + 4 });
      order.check(ledgerSeq, path, record, offset);
      yield { file: path, record, offset: offset + 4, ledgerSeq, bytes: payload };
      offset += 4 + length;
    }
  } finally {
    await handle.close();
  }
}
