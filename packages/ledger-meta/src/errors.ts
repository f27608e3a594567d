// The one error class of @strata/ledger-meta. Everything that reads outside bytes or files throws only this (bugs in
// this package are `assert` failures instead), so callers can branch on a stable `code` and report where it happened.
// An error is never changed after it is built: a reader that knows more about where a value sits (its XDR path, the
// file and record it came from) throws a new error with that context instead (`relocated`).
import { type ErrorContext, StrataError } from '@strata/base';
import { LedgerKeyError, type LedgerKeyErrorCode } from '@strata/ledger-key';

/**
 * Stable error codes. The strings are part of the public contract: new codes may be added, existing ones keep their
 * meaning.
 */
export const LedgerMetaErrorCode = {
  /** A record header, a record payload or an XDR value runs past the end of the bytes available. */
  TRUNCATED: 'TRUNCATED',
  /** A record mark without its top ("last fragment") bit: not a stellar-core record-marked stream. */
  BAD_RECORD_MARK: 'BAD_RECORD_MARK',
  /** A union discriminant or enum value the current XDR does not define. */
  BAD_DISCRIMINANT: 'BAD_DISCRIMINANT',
  /** A bool or optional-pointer flag other than 0 or 1. */
  BAD_BOOL: 'BAD_BOOL',
  /** Bytes left inside a record after its LedgerCloseMeta. */
  TRAILING_BYTES: 'TRAILING_BYTES',
  /**
   * A record longer than the configured cap, a data-lake batch over its cap, or a string, opaque or array over its
   * XDR bound.
   */
  TOO_LONG: 'TOO_LONG',
  /** Nesting beyond the walker's depth cap (recursive types: ClaimPredicate, auth invocations, quorum sets, SCVal). */
  TOO_DEEP: 'TOO_DEEP',
  /** Non-zero XDR padding after variable-length data. */
  BAD_PADDING: 'BAD_PADDING',
  /** A ledger whose sequence is not greater than the previous ledger's in the same stream. */
  OUT_OF_ORDER: 'OUT_OF_ORDER',
  /** The file system refused (missing file, permission, read error); `cause` holds the original error. */
  IO: 'IO',
  /** A data-lake batch file that is not valid zstd. */
  BAD_COMPRESSION: 'BAD_COMPRESSION',
  /** A data-lake batch whose sequences disagree with its file name or the requested range, or that holds no ledger. */
  BATCH_MISMATCH: 'BATCH_MISMATCH',
  /** A bad option or argument from the caller (not bytes read from outside); `field` names it. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const;
export type LedgerMetaErrorCode = (typeof LedgerMetaErrorCode)[keyof typeof LedgerMetaErrorCode];

/** Where a problem was found. Every member is optional: a bare buffer has no file, a framing error has no field. */
export interface LedgerMetaErrorContext extends ErrorContext {
  /** The stream file being read. */
  readonly file?: string;
  /** 0-based index of the record (ledger) in its stream or buffer. */
  readonly record?: number;
  /** Byte offset in the file (when `file` is set) or in the buffer the caller passed. */
  readonly offset?: number;
  /**
   * XDR path of the value, e.g. `LedgerCloseMeta.v2.txProcessing[3].txApplyProcessing.v4.operations[0]`; for
   * INVALID_ARGUMENT, the argument or option (`from`, `eventsPerLedger`, `location.offset`).
   */
  readonly field?: string;
  readonly cause?: unknown;
}

/**
 * Malformed input or an unreadable file; `code` says which, the context members say where. Read-only, like every
 * StrataError; the message is `CODE in FILE at offset N field F record R: detail`, leaving out what is not known.
 */
export class LedgerMetaError extends StrataError<LedgerMetaErrorCode> {
  override readonly name = 'LedgerMetaError';
  /** 0-based index of the record (ledger) in its stream or buffer, when known. */
  readonly record: number | undefined;

  constructor(code: LedgerMetaErrorCode, detail: string, context: LedgerMetaErrorContext = {}) {
    super(code, detail, context, context.record === undefined ? {} : { where: [`record ${context.record}`] });
    this.record = context.record;
  }
}

/** Throws a LedgerMetaError about bytes at `offset`. A function, not a `new` at each site, keeps hot paths small. */
export function fail(code: LedgerMetaErrorCode, offset: number, field: string | undefined, detail: string): never {
  throw new LedgerMetaError(code, detail, field === undefined ? { offset } : { offset, field });
}

/** What an outer reader knows about where an inner error's value sits (see `relocated`). */
export interface ErrorPlacement {
  /** The path of the enclosing value: `Parent.field` + the error's path (an array index joins without a dot). */
  readonly fieldPrefix?: string;
  /** Where the inner error's buffer starts in the outer one (a record inside its file). */
  readonly offsetShift?: number;
  /** The file, when the error has none yet. */
  readonly file?: string;
  /** The record, when the error has none yet. */
  readonly record?: number;
}

/**
 * A new LedgerMetaError: `error` (same code, detail and cause) placed in its surroundings. Readers throw it as an
 * error unwinds through a struct field, an array element, a union arm, a record or a file, instead of changing the
 * error they caught. The cause stays the original one (the LedgerKeyError of a sub-value, the errno error of IO):
 * the error describes one fault, and the copies it passed through on the way up are not part of it.
 */
export function relocated(error: LedgerMetaError, placement: ErrorPlacement): LedgerMetaError {
  const { fieldPrefix, offsetShift } = placement;
  const context: { -readonly [K in keyof LedgerMetaErrorContext]: LedgerMetaErrorContext[K] } = {};
  const file = error.file ?? placement.file;
  if (file !== undefined) context.file = file;
  const record = error.record ?? placement.record;
  if (record !== undefined) context.record = record;
  if (error.offset !== undefined) context.offset = error.offset + (offsetShift ?? 0);
  const field = error.field;
  if (fieldPrefix === undefined) {
    if (field !== undefined) context.field = field;
  } else {
    context.field =
      field === undefined ? fieldPrefix : field.startsWith('[') ? fieldPrefix + field : `${fieldPrefix}.${field}`;
  }
  if (error.cause !== undefined) context.cause = error.cause;
  return new LedgerMetaError(error.code, error.detail, context);
}

/**
 * Adds a path segment to a LedgerMetaError unwinding through a struct field, an array element or a union arm: throws
 * the relocated error (anything else, a bug, is rethrown as is). Only catch blocks call it, so the walk pays nothing
 * for paths until something fails.
 */
export function annotate(error: unknown, segment: string): never {
  if (error instanceof LedgerMetaError) throw relocated(error, { fieldPrefix: segment });
  throw error;
}

/**
 * LedgerKeyError codes as LedgerMetaError codes, one for one where ledger-key and ledger-meta share the meaning.
 * NOT_SOROBAN_KEY (a key of a type that has no TTL) cannot come from the readers the walker calls; should it, the key
 * holds a discriminant its place does not allow.
 */
const FROM_LEDGER_KEY = {
  TRUNCATED: 'TRUNCATED',
  BAD_DISCRIMINANT: 'BAD_DISCRIMINANT',
  TRAILING_BYTES: 'TRAILING_BYTES',
  TOO_DEEP: 'TOO_DEEP',
  TOO_LONG: 'TOO_LONG',
  BAD_PADDING: 'BAD_PADDING',
  BAD_BOOL: 'BAD_BOOL',
  NOT_SOROBAN_KEY: 'BAD_DISCRIMINANT',
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const satisfies Record<LedgerKeyErrorCode, LedgerMetaErrorCode>;

/**
 * Converts a LedgerKeyError thrown while reading a sub-value (LedgerEntry, LedgerKey, SCVal, SCAddress) into a
 * LedgerMetaError with the corresponding code (FROM_LEDGER_KEY) and the LedgerKeyError as its cause. ledger-key
 * reports offsets in the array it was given, which is the same array the walker reads, so the offset carries over
 * unchanged; anything else is rethrown as is (a bug).
 */
export function fromLedgerKeyError(error: unknown, field: string): never {
  if (!(error instanceof LedgerKeyError)) throw error;
  const subField = error.field === undefined ? field : `${field}(${error.field})`;
  const offset = error.offset;
  throw new LedgerMetaError(FROM_LEDGER_KEY[error.code], error.message, {
    ...(offset !== undefined && offset >= 0 ? { offset } : {}),
    field: subField,
    cause: error,
  });
}
