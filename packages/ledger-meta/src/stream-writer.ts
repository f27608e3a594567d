// Writes record-marked LedgerCloseMeta streams as stellar-core does (each record: a 4-byte big-endian mark whose top
// bit says "last fragment" and whose low 31 bits are the length, then the XDR; spec ledger-keys-and-buckets.md §3.1).
import { AtomicFile, isErrnoError } from '@strata/base';
import { checkBytes, checkIterable, checkPath } from './arguments.js';
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';

/** Buffered output: one write syscall per ~4 MiB instead of two per ledger. */
const FLUSH_THRESHOLD = 4 * 1024 * 1024;
/** The largest record a mark can describe (31 length bits). */
const MAX_RECORD_LENGTH = 0x7fff_ffff;

/**
 * Appends records to a new stream file, atomically (@strata/base's AtomicFile): nothing is visible at `path` until
 * `close()` has fsynced the file, renamed it into place and fsynced the directory. `abort()` leaves no file (a crash
 * may leave a temporary sibling, named as `isAtomicTempName` recognises). One writer per file; not safe for
 * concurrent calls (await each `write`). A `path` or `lcm` that is not a string / Uint8Array is INVALID_ARGUMENT; a
 * file-system failure is IO with `path` as `file` and the system error as `cause`.
 */
export class LedgerStreamWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Total bytes written (marks included). */
  bytesWritten = 0;
  records = 0;

  private constructor(private readonly file: AtomicFile) {}

  static async create(path: string): Promise<LedgerStreamWriter> {
    checkPath(path, 'path');
    return new LedgerStreamWriter(await wrapIo(path, 'cannot create the stream file', AtomicFile.create(path)));
  }

  async write(lcm: Uint8Array): Promise<void> {
    checkRecord(lcm);
    const mark = new Uint8Array(4);
    new DataView(mark.buffer).setUint32(0, (0x8000_0000 | lcm.length) >>> 0);
    this.pending.push(mark, lcm);
    this.pendingBytes += 4 + lcm.length;
    this.bytesWritten += 4 + lcm.length;
    this.records++;
    if (this.pendingBytes >= FLUSH_THRESHOLD) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    await wrapIo(this.file.path, 'cannot write the stream file', this.file.write(bytes));
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Writes what is buffered, then fsyncs, renames into place and fsyncs the directory (one commit). */
  async close(): Promise<void> {
    await this.flush();
    await wrapIo(this.file.path, 'cannot commit the stream file', this.file.commit());
  }

  async abort(): Promise<void> {
    this.pending = [];
    await this.file.abort();
  }
}

/** Awaits a file-system step of writing `path`, turning an errno error into IO (anything else is rethrown). */
async function wrapIo<T>(path: string, what: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (cause) {
    if (isErrnoError(cause)) throw new LedgerMetaError(LedgerMetaErrorCode.IO, what, { file: path, cause });
    throw cause;
  }
}

/** An LCM to frame: a Uint8Array (INVALID_ARGUMENT otherwise) short enough for a record mark (TOO_LONG otherwise). */
function checkRecord(lcm: Uint8Array): void {
  checkBytes(lcm, 'lcm');
  if (lcm.length > MAX_RECORD_LENGTH)
    throw new LedgerMetaError(LedgerMetaErrorCode.TOO_LONG, `record of ${lcm.length} bytes does not fit a record mark`);
}

/** Writes every LCM of `ledgers` to a new record-marked stream at `path` (atomic). Returns the bytes written. */
export async function writeLedgerStream(
  path: string,
  ledgers: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<number> {
  checkPath(path, 'path');
  checkIterable(ledgers, 'ledgers', true);
  const writer = await LedgerStreamWriter.create(path);
  try {
    for await (const lcm of ledgers) await writer.write(lcm);
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return writer.bytesWritten;
}

/** The record-marked bytes of `ledgers` in memory (tests, benchmarks). */
export function encodeLedgerStream(ledgers: Iterable<Uint8Array>): Uint8Array {
  checkIterable(ledgers, 'ledgers', false);
  const parts: Uint8Array[] = [];
  for (const lcm of ledgers) {
    checkRecord(lcm);
    const mark = Buffer.alloc(4);
    mark.writeUInt32BE((0x8000_0000 | lcm.length) >>> 0);
    parts.push(mark, lcm);
  }
  return Buffer.concat(parts);
}
