// The one error class of @strata/cold-store. A file that is not what it claims (wrong magic, version or format id),
// any checksum failure, a truncated file, an index that contradicts itself or its packs, a file over the mapping
// limit, bad caller input and file-system failures throw ColdStoreError with a stable `code` and the file and offset
// where it was found; broken invariants are `assert`s (@strata/base). Reader calls of @strata/events' ChunkReader
// interface keep that interface's contract: bad windows and ordinals reject with EventsError INVALID_ARGUMENT.
import { describeValue, type ErrorContext, StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const ColdStoreErrorCode = {
  /** The file does not start or end with this format's magic: not a packfile / MPHF / chunk file at all. */
  BAD_MAGIC: 'BAD_MAGIC',
  /** A format version this build does not read. */
  BAD_VERSION: 'BAD_VERSION',
  /** A packfile of another kind (its trailer's format id is not the one the caller expected), or unknown flags. */
  BAD_FORMAT: 'BAD_FORMAT',
  /** A stored checksum (trailer, offset index, item-size index, record, app data) or content hash does not match. */
  CHECKSUM_MISMATCH: 'CHECKSUM_MISMATCH',
  /** The file is shorter than its trailer or index says, or a structure runs past its end. */
  TRUNCATED: 'TRUNCATED',
  /** Bytes that pass their checksums but contradict the format or each other (offsets that do not sum, counts that
   * disagree between index.hash, index.pack and events.pack, an item past its record). */
  CORRUPT: 'CORRUPT',
  /** A term's index.pack fingerprint does not match where the build or verification requires it to. */
  FINGERPRINT_MISMATCH: 'FINGERPRINT_MISMATCH',
  /** A file larger than can be memory-mapped (see MAX_MAPPED_FILE_BYTES). */
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  /** A freeze whose written files do not answer what the hot chunk answers (a term's bitmap, a payload's hash). */
  VERIFY_FAILED: 'VERIFY_FAILED',
  /** A file the chunk needs is missing. */
  NOT_FOUND: 'NOT_FOUND',
  /** The file system failed (`cause` is the error). */
  IO: 'IO',
  /** The reader or writer was used after close. */
  CLOSED: 'CLOSED',
  /** A caller argument of the wrong type or outside its bound (sizes, counts, concurrency, options). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** A freeze could not build the chunk's term index (the MPHF build failed; `cause` is the MphfError). */
  BUILD_FAILED: 'BUILD_FAILED',
} as const;
export type ColdStoreErrorCode = (typeof ColdStoreErrorCode)[keyof typeof ColdStoreErrorCode];

/** Where: `file` is the path (or storage name), `offset` the byte offset, `field` the structure, `cause` the error. */
export type ColdStoreErrorContext = ErrorContext;

/**
 * A damaged, foreign or oversized file, bad input, or a failing file-system call. The shape (read-only `code`,
 * `detail`, `file`, `offset`, `field`, `cause`; the message `CODE in FILE at offset N field F: detail`) is
 * @strata/base's StrataError.
 */
export class ColdStoreError extends StrataError<ColdStoreErrorCode> {
  override readonly name = 'ColdStoreError';

  constructor(code: ColdStoreErrorCode, detail: string, context: ColdStoreErrorContext = {}) {
    super(code, detail, context);
  }
}

/** Throws INVALID_ARGUMENT about `field`. */
export function invalidArgument(field: string, detail: string): never {
  throw new ColdStoreError(ColdStoreErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** An integer in [min, max], or INVALID_ARGUMENT naming `field`. */
export function checkInteger(value: unknown, min: number, max: number, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalidArgument(field, `expected an integer in [${min}, ${max}], got ${describeValue(value)}`);
  }
}

/** Wraps a file-system error (an Error with a string `code` such as 'ENOENT') as NOT_FOUND or IO; a ColdStoreError
 * passes through unchanged; anything else is a bug and is rethrown. */
export function ioError(error: unknown, file: string, action: string): ColdStoreError {
  if (error instanceof ColdStoreError) return error;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') throw error;
  return new ColdStoreError(
    code === 'ENOENT' ? ColdStoreErrorCode.NOT_FOUND : ColdStoreErrorCode.IO,
    `${action}: ${code}`,
    { file, cause: error },
  );
}
