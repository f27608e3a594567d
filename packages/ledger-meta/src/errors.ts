// The one error class of @strata/ledger-meta. Everything that reads outside bytes or files throws only this (bugs in
// this package are `assert` failures instead), so callers can branch on a stable `code` and report where it happened.
import { LedgerKeyError } from '@strata/ledger-key';

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
export interface LedgerMetaErrorContext {
  /** The stream file being read. */
  file?: string;
  /** 0-based index of the record (ledger) in its stream or buffer. */
  record?: number;
  /** Byte offset in the file (when `file` is set) or in the buffer the caller passed. */
  offset?: number;
  /**
   * XDR path of the value, e.g. `LedgerCloseMeta.v2.txProcessing[3].txApplyProcessing.v4.operations[0]`; for
   * INVALID_ARGUMENT, the argument or option (`from`, `eventsPerLedger`, `location.offset`).
   */
  field?: string;
  cause?: unknown;
}

/** Malformed input or an unreadable file; `code` says which, the context members say where. */
export class LedgerMetaError extends Error {
  override readonly name = 'LedgerMetaError';
  readonly code: LedgerMetaErrorCode;
  readonly detail: string;
  file: string | undefined;
  record: number | undefined;
  offset: number | undefined;
  field: string | undefined;

  constructor(code: LedgerMetaErrorCode, detail: string, context: LedgerMetaErrorContext = {}) {
    super('', context.cause === undefined ? undefined : { cause: context.cause });
    this.code = code;
    this.detail = detail;
    this.file = context.file;
    this.record = context.record;
    this.offset = context.offset;
    this.field = context.field;
    this.message = this.describe();
  }

  /** Rebuilds the message after an outer reader added where the value sits (file, record, outer offset, path). */
  private describe(): string {
    const parts: string[] = [this.code];
    if (this.file !== undefined) parts.push(`in ${this.file}`);
    if (this.record !== undefined) parts.push(`record ${this.record}`);
    if (this.offset !== undefined) parts.push(`at offset ${this.offset}`);
    if (this.field !== undefined) parts.push(`field ${this.field}`);
    return `${parts.join(' ')}: ${this.detail}`;
  }

  /**
   * Called by the readers as the error unwinds: prefixes the XDR path, shifts a buffer offset to the outer buffer
   * (a record inside a file) and fills in the file and record. Returns `this` so a catch block can rethrow it.
   * @internal
   */
  locate(where: { fieldPrefix?: string; offsetShift?: number; file?: string; record?: number }): this {
    if (where.fieldPrefix !== undefined) {
      this.field =
        this.field === undefined
          ? where.fieldPrefix
          : this.field.startsWith('[')
            ? where.fieldPrefix + this.field
            : `${where.fieldPrefix}.${this.field}`;
    }
    if (where.offsetShift !== undefined && this.offset !== undefined) this.offset += where.offsetShift;
    if (where.file !== undefined && this.file === undefined) this.file = where.file;
    if (where.record !== undefined && this.record === undefined) this.record = where.record;
    this.message = this.describe();
    return this;
  }
}

/** Throws a LedgerMetaError about bytes at `offset`. A function, not a `new` at each site, keeps hot paths small. */
export function fail(code: LedgerMetaErrorCode, offset: number, field: string | undefined, detail: string): never {
  throw new LedgerMetaError(code, detail, field === undefined ? { offset } : { offset, field });
}

/**
 * Converts a LedgerKeyError thrown while reading a sub-value (LedgerEntry, LedgerKey, SCVal, SCAddress) into a
 * LedgerMetaError with the same code. ledger-key reports offsets in the array it was given, which is the same
 * array the walker reads, so the offset carries over unchanged; anything else is rethrown as is (a bug).
 */
export function fromLedgerKeyError(error: unknown, field: string): never {
  if (!(error instanceof LedgerKeyError)) throw error;
  const code = (LedgerMetaErrorCode as Record<string, LedgerMetaErrorCode>)[error.code] ?? 'BAD_DISCRIMINANT';
  const subField = error.field === undefined ? field : `${field}(${error.field})`;
  throw new LedgerMetaError(code, error.message, {
    ...(error.offset >= 0 ? { offset: error.offset } : {}),
    field: subField,
    cause: error,
  });
}
