// The one error class of @strata/bucket-list. Everything that reads outside bytes or files (bucket files, History
// Archive States, index files) or takes a caller's argument throws only this; bugs in this package are `assert`
// failures instead. `code` is stable; `file`, `offset` and `field` say where.
import { describeValue, isErrnoError, StrataError } from '@strata/base';
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
  /**
   * A persisted index that is corrupt or that its bucket contradicts: reported to `onIndexProblem` and rebuilt, not
   * thrown. Thrown only when a bucket file changes under an index built from it.
   */
  BAD_INDEX: 'BAD_INDEX',
  /** The file system refused (permission, read or write error); `cause` holds the original error. */
  IO: 'IO',
  /** The list or store was used after close, or a worker failed. */
  CLOSED: 'CLOSED',
  /** A bad option or argument from the caller. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** `BucketManager.open` found no state (no `has.json`) in the directory, and `create` was not set. */
  NO_STATE: 'NO_STATE',
  /** The state `BucketManager.open` found is not the one `expect` names (ledger or bucketListHash). */
  STATE_MISMATCH: 'STATE_MISMATCH',
} as const;
export type BucketErrorCode = (typeof BucketErrorCode)[keyof typeof BucketErrorCode];

export interface BucketErrorContext {
  /** The bucket, index or state file. */
  readonly file?: string;
  /** Byte offset in the file (of the record mark for record-level problems); undefined when there is none. */
  readonly offset?: number;
  /** The field or JSON path, e.g. `currentBuckets[3].next.output`. */
  readonly field?: string;
  readonly cause?: unknown;
}

/**
 * Malformed input, a missing or unreadable file, or a broken rule; `code` says which, the context says where. The
 * shape (read-only `code`, `detail`, `file`, `offset`, `field`, `cause`; the message
 * `CODE in FILE at offset N field F: detail`, built once) is @strata/base's StrataError.
 */
export class BucketError extends StrataError<BucketErrorCode> {
  override readonly name = 'BucketError';

  constructor(code: BucketErrorCode, detail: string, context: BucketErrorContext = {}) {
    // A caller may construct one too (custom Mergers report failures with it): arguments that cannot make one are
    // INVALID_ARGUMENT, never a TypeError from formatting them.
    const problem = contextProblem(code, detail, context);
    if (problem !== undefined) throw new BucketError('INVALID_ARGUMENT', problem, { field: 'BucketError' });
    super(code, detail, context);
  }
}

const CODES = new Set<unknown>(Object.values(BucketErrorCode));

/** Why the constructor's arguments cannot make a BucketError, or undefined. */
function contextProblem(code: unknown, detail: unknown, context: unknown): string | undefined {
  if (!CODES.has(code)) return `unknown error code ${describeValue(code)}`;
  if (typeof detail !== 'string') return 'the detail must be a string';
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return 'the context must be an object';
  const { file, offset, field } = context as Record<string, unknown>;
  if (file !== undefined && typeof file !== 'string') return 'context.file must be a string';
  if (offset !== undefined && !Number.isSafeInteger(offset)) return 'context.offset must be an integer';
  if (field !== undefined && typeof field !== 'string') return 'context.field must be a string';
  return undefined;
}

/**
 * Runs `read` over a record's payload and turns a LedgerKeyError into BAD_ENTRY at the record's file offset plus the
 * offset inside the payload. Anything else is rethrown (a bug).
 */
export function entryError(error: unknown, file: string | undefined, payloadOffset: number): never {
  if (!(error instanceof LedgerKeyError)) throw error;
  const offset = error.offset === undefined ? payloadOffset : payloadOffset + error.offset;
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
  const code = isErrnoError(error) && error.code === 'ENOENT' ? 'MISSING_BUCKET' : 'IO';
  return new BucketError(code, `${action}: ${message}`, { file, cause: error });
}
