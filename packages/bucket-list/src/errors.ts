// The one error class of @strata/bucket-list. Everything that reads outside bytes or files (bucket files, History
// Archive States, index files) or takes a caller's argument throws only this; bugs in this package are `assert`
// failures instead. `code` is stable; `file`, `offset` and `field` say where.
import { LedgerKeyError } from '@strata/ledger-key';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const BucketErrorCode = {
  /** A record mark or record payload runs past the end of the file. */
  TRUNCATED: 'TRUNCATED',
  /** A record mark whose length is zero, not a multiple of 4, or over the record cap. */
  BAD_RECORD_MARK: 'BAD_RECORD_MARK',
  /** A record whose XDR is malformed (the ledger-key code and offset are in `cause`). */
  BAD_ENTRY: 'BAD_ENTRY',
  /** A METAENTRY that is not the first record, a missing or wrong list type, INIT/META in a pre-11 bucket. */
  BAD_META: 'BAD_META',
  /** Entries not strictly increasing in stellar-core's order (includes two entries with the same key). */
  OUT_OF_ORDER: 'OUT_OF_ORDER',
  /** The SHA-256 of a bucket file differs from the hash that names it. */
  HASH_MISMATCH: 'HASH_MISMATCH',
  /** A bucket named by a History Archive State or a merge is not on disk. */
  MISSING_BUCKET: 'MISSING_BUCKET',
  /** A merge that the case table forbids: an INIT entry arriving onto a live (INIT or LIVE) one. */
  MERGE_CONFLICT: 'MERGE_CONFLICT',
  /** A protocol rule broken: merge version over the maximum, shadows at protocol 12 or later, ledger not next. */
  PROTOCOL: 'PROTOCOL',
  /** A History Archive State that is not valid JSON of the expected shape. */
  BAD_HAS: 'BAD_HAS',
  /** A persisted index that is corrupt (it is rebuilt, this code is reported to loggers, not thrown to callers). */
  BAD_INDEX: 'BAD_INDEX',
  /** The file system refused (permission, read or write error); `cause` holds the original error. */
  IO: 'IO',
  /** The list or store was used after close, or a worker failed. */
  CLOSED: 'CLOSED',
  /** A bad option or argument from the caller. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const;
export type BucketErrorCode = (typeof BucketErrorCode)[keyof typeof BucketErrorCode];

export interface BucketErrorContext {
  /** The bucket, index or state file. */
  file?: string;
  /** Byte offset in the file (of the record mark for record-level problems). */
  offset?: number;
  /** The field or JSON path, e.g. `currentBuckets[3].next.output`. */
  field?: string;
  cause?: unknown;
}

/** Malformed input, a missing or unreadable file, or a broken rule; `code` says which, the context says where. */
export class BucketError extends Error {
  override readonly name = 'BucketError';
  readonly code: BucketErrorCode;
  readonly detail: string;
  readonly file: string | undefined;
  readonly offset: number | undefined;
  readonly field: string | undefined;

  constructor(code: BucketErrorCode, detail: string, context: BucketErrorContext = {}) {
    const parts: string[] = [code];
    if (context.file !== undefined) parts.push(`in ${context.file}`);
    if (context.offset !== undefined) parts.push(`at offset ${context.offset}`);
    if (context.field !== undefined) parts.push(`field ${context.field}`);
    super(`${parts.join(' ')}: ${detail}`, context.cause === undefined ? undefined : { cause: context.cause });
    this.code = code;
    this.detail = detail;
    this.file = context.file;
    this.offset = context.offset;
    this.field = context.field;
  }
}

/**
 * Runs `read` over a record's payload and turns a LedgerKeyError into BAD_ENTRY at the record's file offset plus the
 * offset inside the payload. Anything else is rethrown (a bug).
 */
export function entryError(error: unknown, file: string | undefined, payloadOffset: number): never {
  if (!(error instanceof LedgerKeyError)) throw error;
  const offset = error.offset >= 0 ? payloadOffset + error.offset : payloadOffset;
  throw new BucketError('BAD_ENTRY', `${error.code}: ${error.message}`, {
    ...(file === undefined ? {} : { file }),
    offset,
    ...(error.field === undefined ? {} : { field: error.field }),
    cause: error,
  });
}

/** Wraps a Node file-system error as IO with the file it concerned. */
export function ioError(error: unknown, file: string, action: string): BucketError {
  if (error instanceof BucketError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code === 'ENOENT' ? 'MISSING_BUCKET' : 'IO';
  return new BucketError(code, `${action}: ${message}`, { file, cause: error });
}
