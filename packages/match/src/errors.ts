// The one error class of @strata/match. Bad scopes, malformed cursors, positions that do not match the chunk's
// events and reader failures are MatchErrors with a stable `code`; a reader's own error is kept as `cause`.
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const MatchErrorCode = {
  /** A bad argument or option from the caller. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** An inclusive ordinal range [lo, hi] (window, slab) that is not integers with 0 ≤ lo ≤ hi + 1, hi ≤ 2^32 - 1. */
  INVALID_ORDINAL_RANGE: 'INVALID_ORDINAL_RANGE',
} as const;
export type MatchErrorCode = (typeof MatchErrorCode)[keyof typeof MatchErrorCode];

export interface MatchErrorContext {
  readonly field?: string;
  readonly cause?: unknown;
}

/** Every error this package throws for bad input or a failing reader; bugs are `assert` failures. */
export class MatchError extends StrataError<MatchErrorCode> {
  override readonly name = 'MatchError';
}
