// The one error class of @strata/mphf. Bad input to a build (duplicate keys, bad options) and bytes that cannot be a
// function (too short, wrong magic or version, failed checksum, inconsistent header) throw only this; bugs in this
// package are `assert` failures (@strata/base) instead. `code` is stable; `offset`, `field` and the key fields say
// where and what.
import { describeValue, StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const MphfErrorCode = {
  /** Two keys of a build have the same bytes; `keyHex`, `keyIndex` and `otherKeyIndex` name them. */
  DUPLICATE_KEY: 'DUPLICATE_KEY',
  /** No seed out of `maxAttempts` gave a function (a parameter choice that leaves too little room, e.g. alpha = 1
   * with a large lambda), or a worker thread of `buildMphfAsync` failed (`cause` holds its error). */
  BUILD_FAILED: 'BUILD_FAILED',
  /** Fewer bytes than the header says the function occupies (or than a header needs). */
  TRUNCATED: 'TRUNCATED',
  /** The first four bytes are not the function's magic: not an MPHF, or not where the caller thought. */
  BAD_MAGIC: 'BAD_MAGIC',
  /** A format version this code does not read (written by a newer release, or corrupt). */
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',
  /** The checksum over header and sections does not match the stored one: the bytes were damaged. */
  CHECKSUM_MISMATCH: 'CHECKSUM_MISMATCH',
  /** A header field or section that cannot belong to a function this code wrote (sizes, offsets, flags, remap
   * targets). Reported after the checksum matched, so it means a writer bug or deliberate tampering. */
  BAD_HEADER: 'BAD_HEADER',
  /** A bad option or argument from the caller (key type, key range, parameter out of range). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const;
export type MphfErrorCode = (typeof MphfErrorCode)[keyof typeof MphfErrorCode];

export interface MphfErrorContext {
  /** Byte offset inside the function's bytes (for open-time errors). */
  readonly offset?: number;
  /** The header field or option concerned, e.g. `fingerprintBits`. */
  readonly field?: string;
  /** The duplicate key in hex (DUPLICATE_KEY). */
  readonly keyHex?: string;
  /** Position of a key in the build input (DUPLICATE_KEY: the later of the two). */
  readonly keyIndex?: number;
  /** Position of the other key with the same bytes (DUPLICATE_KEY: the earlier one). */
  readonly otherKeyIndex?: number;
  readonly cause?: unknown;
}

/**
 * Bad input or bytes that are not a valid function; `code` says which, the context says where. A StrataError: the
 * message (`CODE at offset N field F: detail`) is built once, and every field is read-only.
 */
export class MphfError extends StrataError<MphfErrorCode> {
  override readonly name = 'MphfError';
  readonly keyHex: string | undefined;
  readonly keyIndex: number | undefined;
  readonly otherKeyIndex: number | undefined;

  constructor(code: MphfErrorCode, detail: string, context: MphfErrorContext = {}) {
    super(code, detail, context);
    this.keyHex = context.keyHex;
    this.keyIndex = context.keyIndex;
    this.otherKeyIndex = context.otherKeyIndex;
  }
}

/** Caller values in messages: one description for every package (@strata/base). */
export { describeValue };
