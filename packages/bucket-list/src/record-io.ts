// RFC 5531 record marking as stellar-core's XDRInputFileStream/XDROutputFileStream use it for bucket files: each
// record is a 4-byte big-endian mark (top bit "last fragment", always set; low 31 bits the payload length) followed by
// the XDR payload. Synchronous, buffered file I/O: bucket work runs in worker threads (merges) or is small and on the
// critical path of a ledger close (level 0, point lookups), where a promise per read would cost more than it saves.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { assert } from '@strata/base';
import { BucketError, ioError } from './errors.js';
import { WriteBehind } from './write-behind.js';

/** Largest payload a record may carry. Ledger entries are bounded far below this (contract code ≤ a few hundred KiB). */
export const MAX_RECORD_BYTES = 1 << 26;
const LAST_FRAGMENT = 0x80000000;
const DEFAULT_READ_BUFFER = 1 << 20;
const DEFAULT_WRITE_BUFFER = 1 << 20;

/**
 * Sequential reader of the records in [start, end) of a file. `next()` advances; the current record's payload is
 * `buffer[payloadStart, payloadEnd)` (its mark the 4 bytes before), valid until the following `next()`: the buffer is
 * reused, so reading allocates nothing per record (the `payload` getter makes a view; loops that care use the
 * positions). Positions of earlier records stay valid across `next()` until the buffer is refilled, and
 * `beforeRefill` is called just before that happens, so a caller can consume bytes it still points at.
 */
export class RecordReader {
  buffer: Uint8Array;
  payloadStart = 0;
  payloadEnd = 0;
  recordOffset = -1;
  /** Called before a refill moves or replaces `buffer` (positions of records already returned become stale). */
  beforeRefill: (() => void) | undefined = undefined;
  private fd: number;
  private filled = 0; // bytes of the file held in buffer[0, filled)
  private bufferFileOffset: number; // file offset of buffer[0]
  private position: number; // file offset of the next record mark
  private readonly end: number;
  private readonly hasher: Hash | undefined;

  /**
   * @param hash when set, every byte read is fed to a SHA-256 (only meaningful when reading from 0 to the end of the
   *   file); `digest()` returns it.
   * @param buffer storage to read into (its whole length; `bufferSize` is then ignored), e.g. memory a comparator
   *   reads in place; a record larger than it moves the reader to a new, plain buffer.
   */
  constructor(
    readonly path: string,
    options: { start?: number; end?: number; bufferSize?: number; hash?: boolean; buffer?: Uint8Array } = {},
  ) {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw ioError(error, path, 'open bucket');
    }
    this.buffer = options.buffer ?? new Uint8Array(options.bufferSize ?? DEFAULT_READ_BUFFER);
    this.position = options.start ?? 0;
    this.bufferFileOffset = this.position;
    this.end = options.end ?? Number.POSITIVE_INFINITY;
    this.hasher = options.hash === true ? createHash('sha256') : undefined;
  }

  /** The current record's payload (a view, valid until `next()`). */
  get payload(): Uint8Array {
    // The constructor form of the view: about twice as fast as `subarray`, which matters once per record.
    const buffer = this.buffer;
    return new Uint8Array(buffer.buffer, buffer.byteOffset + this.payloadStart, this.payloadEnd - this.payloadStart);
  }

  /** File offset where the next record would start (after the current one). */
  get nextOffset(): number {
    return this.position;
  }

  /** Moves to the next record; false at a clean end (EOF or `end` exactly at a record boundary). */
  next(): boolean {
    const at = this.position;
    if (at >= this.end) return false;
    if (!this.ensure(at, 4)) {
      if (this.available(at) === 0) return false;
      throw new BucketError('TRUNCATED', 'record mark runs past the end of the file', { file: this.path, offset: at });
    }
    const p = at - this.bufferFileOffset;
    const b = this.buffer;
    const mark = ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
    const length = mark & 0x7fffffff;
    if ((mark & LAST_FRAGMENT) === 0 || length === 0 || length % 4 !== 0 || length > MAX_RECORD_BYTES) {
      throw new BucketError('BAD_RECORD_MARK', `record mark 0x${mark.toString(16).padStart(8, '0')}`, {
        file: this.path,
        offset: at,
      });
    }
    if (!this.ensure(at, 4 + length)) {
      throw new BucketError('TRUNCATED', `record of ${length} bytes runs past the end of the file`, {
        file: this.path,
        offset: at,
      });
    }
    const q = at - this.bufferFileOffset;
    this.recordOffset = at;
    this.payloadStart = q + 4;
    this.payloadEnd = q + 4 + length;
    this.position = at + 4 + length;
    return true;
  }

  /**
   * Makes `next()` read the record whose mark is at file offset `offset` (a record boundary at or after the start of
   * what is buffered), keeping the buffer: for a caller that read through `refillFrom` and hands the reader back to
   * `next()` (the loser tree leaving its WebAssembly loop).
   */
  seek(offset: number): void {
    assert(offset >= this.bufferFileOffset, 'a reader seeks within or after what it holds');
    this.position = offset;
  }

  /** SHA-256 of every byte read so far (requires `hash: true`). */
  digest(): string {
    assert(this.hasher !== undefined, 'RecordReader was opened without hash: true');
    // Bytes still in the buffer were hashed when they were read; nothing to add.
    return this.hasher.digest('hex');
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private available(at: number): number {
    return this.bufferFileOffset + this.filled - at;
  }

  /** File offset of `buffer[0]`. */
  get bufferFileStart(): number {
    return this.bufferFileOffset;
  }

  /** Bytes of the file held in `buffer[0, bufferedBytes)`. */
  get bufferedBytes(): number {
    return this.filled;
  }

  /**
   * For a caller that parses the buffered records itself (the merge loop in WebAssembly): moves the bytes from file
   * offset `at` (at most what is buffered) to the front of the buffer, then reads until the buffer is full or the file
   * (or `end`) ends. Never grows the buffer. Returns the bytes read: 0 when the file ends at what is buffered (or the
   * buffer was already full from `at`). `next()` must not be used afterwards.
   */
  refillFrom(at: number): number {
    this.moveTo(at, this.buffer.length);
    const before = this.filled;
    this.readUntil(this.buffer.length);
    return this.filled - before;
  }

  /** Makes file bytes [at, at + n) resident in the buffer; false if the file (or `end`) ends first. */
  private ensure(at: number, n: number): boolean {
    if (this.available(at) >= n) return true;
    this.moveTo(at, n);
    return this.readUntil(n);
  }

  /** Keeps the unread tail from file offset `at`, moved to the front, in a buffer of at least `n` bytes. */
  private moveTo(at: number, n: number): void {
    this.beforeRefill?.();
    const keepFrom = at - this.bufferFileOffset;
    const keep = this.filled - keepFrom;
    if (n > this.buffer.length) {
      const grown = new Uint8Array(Math.max(n, this.buffer.length * 2));
      grown.set(this.buffer.subarray(keepFrom, this.filled));
      this.buffer = grown;
    } else if (keepFrom > 0) {
      this.buffer.copyWithin(0, keepFrom, this.filled);
    }
    this.bufferFileOffset = at;
    this.filled = keep;
  }

  /** Reads until `n` bytes are buffered: true when they are, false when the file (or `end`) ends first. */
  private readUntil(n: number): boolean {
    while (this.filled < n) {
      const at = this.bufferFileOffset + this.filled;
      const want = Math.min(this.buffer.length - this.filled, this.end - at);
      if (want <= 0) return false;
      let got: number;
      try {
        got = readSync(this.fd, this.buffer, this.filled, want, at);
      } catch (error) {
        throw ioError(error, this.path, 'read bucket');
      }
      if (got === 0) return false;
      this.hasher?.update(this.buffer.subarray(this.filled, this.filled + got));
      this.filled += got;
    }
    return true;
  }
}

/** Reads `length` bytes at `offset` (pread), growing nothing: the caller sizes `into`. Returns bytes read. */
export function readAt(fd: number, path: string, into: Uint8Array, length: number, offset: number): number {
  let total = 0;
  try {
    while (total < length) {
      const got = readSync(fd, into, total, length - total, offset + total);
      if (got === 0) break;
      total += got;
    }
  } catch (error) {
    throw ioError(error, path, 'read bucket');
  }
  return total;
}

/**
 * Buffered writer of record-marked payloads into a temporary file, hashing every byte written; `finish()`
 * flushes and fsyncs (unless disabled), `publish(finalPath)` renames. The SHA-256 of the file is the bucket hash.
 * With `writeBehind`, full buffers go to this thread's write-behind helper (see write-behind.ts), which hashes and
 * writes them while the caller fills the next: for large outputs (merges of big buckets), where hashing and the
 * kernel's copy would otherwise take as long as the merge itself.
 */
export class RecordWriter {
  bytesWritten = 0;
  records = 0;
  private fd: number;
  private buffer: Uint8Array;
  /** `buffer` as 32-bit words (record marks and payloads are word multiples, so runs are word-aligned). */
  private words: Int32Array<ArrayBufferLike>;
  private used = 0;
  private readonly channel: WriteBehind | undefined;
  // Word views of the last two run sources (a merge's two read buffers), so the word copy makes no view per run.
  private sourceA: ArrayBufferLike | undefined = undefined;
  private sourceAWords: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private sourceB: ArrayBufferLike | undefined = undefined;
  private sourceBWords: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private readonly hasher: Hash | undefined;

  constructor(
    readonly tempPath: string,
    private readonly fsync: boolean,
    options: { bufferSize?: number; writeBehind?: boolean } = {},
  ) {
    try {
      this.fd = openSync(tempPath, 'w');
    } catch (error) {
      throw ioError(error, tempPath, 'create bucket');
    }
    try {
      this.channel = options.writeBehind === true ? WriteBehind.tryOpen(this.fd, tempPath) : undefined;
    } catch (error) {
      closeSync(this.fd);
      throw ioError(error, tempPath, 'start write-behind');
    }
    this.hasher = this.channel === undefined ? createHash('sha256') : undefined;
    this.buffer = this.channel?.chunk ?? new Uint8Array(roundUp4(options.bufferSize ?? DEFAULT_WRITE_BUFFER));
    this.words = wordsOf(this.buffer);
  }

  /** Appends one record; with `type`, its first XDR word (the union discriminant) is written as `type` instead. */
  put(payload: Uint8Array, type?: number): void {
    const length = payload.length;
    if (length === 0 || length % 4 !== 0 || length > MAX_RECORD_BYTES) {
      throw new BucketError('INVALID_ARGUMENT', `cannot write a record of ${length} bytes`, { file: this.tempPath });
    }
    if (this.used + 4 + length > this.buffer.length) {
      this.flush();
      if (4 + length > this.buffer.length) {
        if (this.channel !== undefined) {
          // Larger than a write-behind chunk: assemble it once and let appendBytes split it across chunks.
          const record = new Uint8Array(4 + length);
          putRecord(record, 0, payload, type);
          this.appendBytes(record, 0, record.length);
          this.bytesWritten += record.length;
          this.records++;
          return;
        }
        this.buffer = new Uint8Array(4 + length);
        this.words = wordsOf(this.buffer);
      }
    }
    this.used = putRecord(this.buffer, this.used, payload, type);
    this.bytesWritten += 4 + length;
    this.records++;
  }

  /**
   * Appends `records` whole records copied verbatim, marks included: bytes [start, end) of `source` (typically a
   * RecordReader's buffer, whose marks the reader has checked). One copy per run of records instead of one per record;
   * a run larger than the buffer is hashed and written straight from `source` (or split across write-behind chunks).
   */
  putRun(source: Uint8Array, start: number, end: number, records: number): void {
    const length = end - start;
    this.bytesWritten += length;
    this.records += records;
    if (this.used + length > this.buffer.length) {
      if (this.channel !== undefined) {
        this.appendBytes(source, start, end);
        return;
      }
      this.flush();
      if (length > this.buffer.length) {
        this.writeOut(new Uint8Array(source.buffer, source.byteOffset + start, length));
        return;
      }
    }
    const from = source.byteOffset + start;
    if (length <= WORD_COPY_MAX && ((from | this.used) & 3) === 0) {
      // A short run (interleaved inputs make most runs one record): a word loop beats making a view for `set`.
      const sourceWords = this.wordsOf(source.buffer);
      const words = this.words;
      let i = from >>> 2;
      let j = this.used >>> 2;
      const stop = i + (length >>> 2);
      while (i < stop) words[j++] = sourceWords[i++]!;
    } else {
      // The constructor form of the view: about twice as fast as `subarray` in V8.
      this.buffer.set(new Uint8Array(source.buffer, from, length), this.used);
    }
    this.used += length;
  }

  /** Flushes, fsyncs (unless disabled) and closes; returns the SHA-256 (hex) of everything written. */
  finish(): string {
    this.flush();
    // The helper must be done with the file before it is synced and closed.
    const hash = this.channel === undefined ? this.hasher!.digest('hex') : this.channel.close();
    try {
      if (this.fsync) fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = -1;
    } catch (error) {
      throw ioError(error, this.tempPath, 'commit bucket');
    }
    return hash;
  }

  /** Moves the finished temporary file to its final name. */
  publish(finalPath: string): void {
    try {
      renameSync(this.tempPath, finalPath);
    } catch (error) {
      throw ioError(error, finalPath, 'commit bucket');
    }
  }

  /** Closes and deletes the temporary file (nothing was committed). */
  abort(): void {
    try {
      // Never close the file under a helper that may still write to it (the descriptor number could be reused).
      this.channel?.close();
    } catch {
      // already failing; the file is deleted below
    }
    if (this.fd >= 0) {
      try {
        closeSync(this.fd);
      } catch {
        // already failing; the unlink below is what matters
      }
      this.fd = -1;
    }
    try {
      unlinkSync(this.tempPath);
    } catch {
      // never created or already gone
    }
  }

  /** Copies bytes [start, end) of `source` into the buffer, flushing each time it fills (write-behind mode). */
  private appendBytes(source: Uint8Array, start: number, end: number): void {
    let at = start;
    while (at < end) {
      if (this.used === this.buffer.length) this.flush();
      const take = Math.min(end - at, this.buffer.length - this.used);
      this.buffer.set(new Uint8Array(source.buffer, source.byteOffset + at, take), this.used);
      this.used += take;
      at += take;
    }
  }

  /** The whole of `buffer` as 32-bit words, cached for the last two sources. */
  private wordsOf(buffer: ArrayBufferLike): Int32Array<ArrayBufferLike> {
    if (buffer === this.sourceA) return this.sourceAWords;
    if (buffer === this.sourceB) return this.sourceBWords;
    this.sourceB = this.sourceA;
    this.sourceBWords = this.sourceAWords;
    this.sourceA = buffer;
    this.sourceAWords = new Int32Array(buffer, 0, buffer.byteLength >>> 2);
    return this.sourceAWords;
  }

  private flush(): void {
    if (this.used === 0) return;
    if (this.channel !== undefined) {
      this.buffer = this.channel.submit(this.used);
      this.words = wordsOf(this.buffer);
    } else this.writeOut(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private writeOut(chunk: Uint8Array): void {
    this.hasher!.update(chunk);
    let done = 0;
    try {
      while (done < chunk.length) done += writeSync(this.fd, chunk, done, chunk.length - done);
    } catch (error) {
      throw ioError(error, this.tempPath, 'write bucket');
    }
  }
}

/** Runs up to this many bytes are copied word by word; longer ones with one `set`. */
const WORD_COPY_MAX = 512;

function roundUp4(n: number): number {
  return (n + 3) & ~3;
}

/** A word view of `bytes` (whose offset is a multiple of 4; its length is rounded down). */
function wordsOf(bytes: Uint8Array): Int32Array<ArrayBufferLike> {
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
}

/** Writes a record (mark, payload, `type` over its first word if given) at `into[p]`; returns the end offset. */
function putRecord(into: Uint8Array, p: number, payload: Uint8Array, type: number | undefined): number {
  const length = payload.length;
  const mark = (LAST_FRAGMENT | length) >>> 0;
  into[p] = mark >>> 24;
  into[p + 1] = (mark >>> 16) & 0xff;
  into[p + 2] = (mark >>> 8) & 0xff;
  into[p + 3] = mark & 0xff;
  into.set(payload, p + 4);
  if (type !== undefined) {
    into[p + 4] = type >>> 24;
    into[p + 5] = (type >>> 16) & 0xff;
    into[p + 6] = (type >>> 8) & 0xff;
    into[p + 7] = type & 0xff;
  }
  return p + 4 + length;
}
