// The one error class of @strata/match. Bad scopes, malformed cursors, positions that do not match the chunk's
// events and reader failures are MatchErrors with a stable `code`; a reader's own error is kept as `cause`.
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const MatchErrorCode = {
  /** A bad argument or option from the caller. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** An inclusive ordinal range [lo, hi] (window, slab) that is not integers with 0 ≤ lo ≤ hi + 1, hi ≤ 2^32 - 1. */
  INVALID_ORDINAL_RANGE: 'INVALID_ORDINAL_RANGE',
  /** A query scope that cannot be served: bad ledger bounds, descending without a max, bad filters or limit. */
  INVALID_SCOPE: 'INVALID_SCOPE',
  /** A cursor (v1 id or v2 position) that does not fit the scope, or whose re-entry event is not the one it names. */
  CURSOR_MALFORMED: 'CURSOR_MALFORMED',
  /** The scope starts below the oldest served ledger (ascending); `missingLedger` names it. */
  LEDGER_OUT_OF_RANGE: 'LEDGER_OUT_OF_RANGE',
  /** A ChunkReader call failed; the reader's error is the `cause`. */
  READER_FAILED: 'READER_FAILED',
  /** A reader answered against its own contract (offsets that do not cover the ledgers it serves, short fetches). */
  STORE_INCONSISTENT: 'STORE_INCONSISTENT',
} as const;
export type MatchErrorCode = (typeof MatchErrorCode)[keyof typeof MatchErrorCode];

export interface MatchErrorContext {
  readonly field?: string;
  readonly cause?: unknown;
  /** LEDGER_OUT_OF_RANGE: the first ledger the scope needs that is not served. */
  readonly missingLedger?: number;
  /** The chunk whose reader failed or answered inconsistently. */
  readonly chunkId?: number;
}

/** Every error this package throws for bad input or a failing reader; bugs are `assert` failures. */
export class MatchError extends StrataError<MatchErrorCode> {
  override readonly name = 'MatchError';
  readonly missingLedger: number | undefined;
  readonly chunkId: number | undefined;

  constructor(code: MatchErrorCode, detail: string, context: MatchErrorContext = {}) {
    const where: string[] = [];
    if (context.chunkId !== undefined) where.push(`chunk ${context.chunkId}`);
    if (context.missingLedger !== undefined) where.push(`ledger ${context.missingLedger}`);
    super(code, detail, context, { where });
    this.missingLedger = context.missingLedger;
    this.chunkId = context.chunkId;
  }
}
