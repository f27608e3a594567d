// The one error class of @strata/hot-store. Bad input (a ledger out of order or outside the chunk, a malformed
// payload, an oversized call), a database that is not this chunk's or not this schema's, and SQLite's own failures
// (wrapped with `cause`) throw HotStoreError with a stable `code`; broken invariants are `assert`s (@strata/base).
// Reader calls of the ChunkReader interface keep that interface's contract: bad windows and ordinals reject with
// @strata/events' EventsError INVALID_ARGUMENT.
import { describeValue, type ErrorContext, StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const HotStoreErrorCode = {
  /** A ledger already stored (at or below the latest ledger), or repeated inside one batch. */
  DUPLICATE_LEDGER: 'DUPLICATE_LEDGER',
  /** A ledger that is not the next one: a gap after the latest ledger, or a batch not in consecutive order. */
  OUT_OF_ORDER_LEDGER: 'OUT_OF_ORDER_LEDGER',
  /** A ledger that does not belong to this store's chunk. */
  LEDGER_OUTSIDE_CHUNK: 'LEDGER_OUTSIDE_CHUNK',
  /** A payload that is not a valid stored payload of its ledger (bad bytes: `cause` is the EventsError; another
   * ledger's header; events not in event-id order). `field` names the ledger and event. */
  MALFORMED_PAYLOAD: 'MALFORMED_PAYLOAD',
  /** The database was written by another schema version (or is not a hot-store database at all). */
  SCHEMA_VERSION: 'SCHEMA_VERSION',
  /** The database holds another chunk than the one the caller named. */
  WRONG_CHUNK: 'WRONG_CHUNK',
  /** The database contradicts itself or SQLite reports corruption (`cause` is SQLite's error). */
  CORRUPT: 'CORRUPT',
  /** SQLite or the file system failed for another reason (disk full, I/O error, locked; `cause` is the error). */
  IO: 'IO',
  /** `open` without `create` found no database at the path. */
  NOT_FOUND: 'NOT_FOUND',
  /** An ingest into a chunk that has been frozen. */
  FROZEN: 'FROZEN',
  /** `HotStore.delete` of a chunk that has not been frozen. */
  NOT_FROZEN: 'NOT_FROZEN',
  /** The store or reader was used after close. */
  CLOSED: 'CLOSED',
  /** A caller argument of the wrong type or outside its bound (sizes, options). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const;
export type HotStoreErrorCode = (typeof HotStoreErrorCode)[keyof typeof HotStoreErrorCode];

/** Where: `file` is the database path, `field` the argument or ledger/event, `cause` the wrapped error. */
export type HotStoreErrorContext = ErrorContext;

/**
 * Bad input, a foreign or damaged database, or a failing SQLite call. The shape (read-only `code`, `detail`, `file`,
 * `offset`, `field`, `cause`; the message `CODE in FILE at offset N field F: detail`) is @strata/base's StrataError.
 */
export class HotStoreError extends StrataError<HotStoreErrorCode> {
  override readonly name = 'HotStoreError';

  constructor(code: HotStoreErrorCode, detail: string, context: HotStoreErrorContext = {}) {
    super(code, detail, context);
  }
}

/** Throws INVALID_ARGUMENT about `field`. */
export function invalidArgument(field: string, detail: string): never {
  throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** An integer in [min, max], or INVALID_ARGUMENT naming `field`. */
export function checkInteger(value: unknown, min: number, max: number, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalidArgument(field, `expected an integer in [${min}, ${max}], got ${describeValue(value)}`);
  }
}

/** SQLite result codes that mean the file itself is damaged or not a database. */
const CORRUPTION_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_VTAB']);

/**
 * Wraps an error thrown by better-sqlite3 (SqliteError, `code` like 'SQLITE_CORRUPT') or the file system as CORRUPT
 * or IO with the database path and what was being done. A HotStoreError passes through unchanged; anything else
 * that is not an Error with a string code is a bug and is rethrown.
 */
export function storageError(error: unknown, file: string, action: string): HotStoreError {
  if (error instanceof HotStoreError) return error;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') throw error;
  const corrupt = CORRUPTION_CODES.has(code) || code.startsWith('SQLITE_CORRUPT');
  return new HotStoreError(
    corrupt ? HotStoreErrorCode.CORRUPT : HotStoreErrorCode.IO,
    `${action}: ${code}: ${(error as Error).message}`,
    { file, cause: error },
  );
}

/** CORRUPT about the database at `file`: its rows contradict each other or the schema. */
export function corrupt(file: string, detail: string, field?: string): HotStoreError {
  return new HotStoreError(HotStoreErrorCode.CORRUPT, detail, field === undefined ? { file } : { file, field });
}
