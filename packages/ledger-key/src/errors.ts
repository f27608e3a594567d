// The one error class of @strata/ledger-key. Every function that reads outside bytes or takes a caller's value throws
// only this (bugs in this package are `assert` failures instead), so callers can branch on a stable `code`.
import { describeValue, StrataError } from '@strata/base';

/**
 * Stable error codes. The strings are part of the public contract: new codes may be added, existing ones keep their
 * meaning.
 */
export const LedgerKeyErrorCode = {
  /** The value runs past the end of the buffer (a fixed field, a length prefix or the bytes it announces). */
  TRUNCATED: 'TRUNCATED',
  /** A union discriminant or enum value that the current XDR (protocol 23+) does not define. */
  BAD_DISCRIMINANT: 'BAD_DISCRIMINANT',
  /** Bytes remain after a value that was required to fill its buffer. */
  TRAILING_BYTES: 'TRAILING_BYTES',
  /** SCVal or ClaimPredicate nesting beyond MAX_SCVAL_DEPTH / MAX_CLAIM_PREDICATE_DEPTH. */
  TOO_DEEP: 'TOO_DEEP',
  /** A string, opaque or array longer than its XDR bound (string<64>, string<32>, Signer<20>, ...). */
  TOO_LONG: 'TOO_LONG',
  /** Non-zero XDR padding after variable-length data (XDR requires zero bytes). */
  BAD_PADDING: 'BAD_PADDING',
  /** A bool or optional-pointer flag that is neither 0 nor 1. */
  BAD_BOOL: 'BAD_BOOL',
  /** ttlKeyOf was given a key that is neither CONTRACT_DATA nor CONTRACT_CODE. */
  NOT_SOROBAN_KEY: 'NOT_SOROBAN_KEY',
  /** A caller's argument is unusable: a writer input out of range, or a view accessor that does not fit the type. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
} as const;
export type LedgerKeyErrorCode = (typeof LedgerKeyErrorCode)[keyof typeof LedgerKeyErrorCode];

/**
 * Malformed input or a misused argument. `offset` is the byte offset, within the Uint8Array the caller passed, where
 * the problem was detected (undefined when the error is not about bytes); `field` names the XDR field (`SCVal.sym`,
 * `LedgerKey.type`, ...) or the writer input path. The shape (read-only `code`, `detail`, `offset`, `field`, `cause`,
 * and the message `CODE at offset N field F: detail`) is @strata/base's StrataError.
 */
export class LedgerKeyError extends StrataError<LedgerKeyErrorCode> {
  override readonly name = 'LedgerKeyError';
}

/** Throws a LedgerKeyError about bytes at `offset`. A function (not a `new` at each site) keeps hot paths small. */
export function fail(code: LedgerKeyErrorCode, offset: number, field: string, detail: string): never {
  throw new LedgerKeyError(code, detail, { offset, field });
}

/** Throws INVALID_ARGUMENT for a bad writer input or an accessor that does not fit the value's type. */
export function invalidArgument(field: string, detail: string): never {
  throw new LedgerKeyError(LedgerKeyErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** Caller values in messages: one description for every package (@strata/base). */
export { describeValue };

/** INVALID_ARGUMENT for a value passed where a Uint8Array belongs (cold: built only when throwing). */
export function notBytes(value: unknown, field: string): never {
  return invalidArgument(field, `expected a Uint8Array, got ${describeValue(value)}`);
}
