// The one error class of @strata/ledger-state. A ledger that does not follow the state, a batch stellar-core would
// not have committed, a computed bucketListHash that differs from the header's, a genesis or configuration the
// state cannot build: each is a LedgerStateError with a stable `code` and the context (ledger, file, field).
// Errors of the packages underneath (bucket-list, ledger-meta, ledger-key) reach the caller as `cause`.
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const LedgerStateErrorCode = {
  /** A bad argument or option from the caller (a wrong type, a value out of range). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** The ledger does not follow the state (not the next sequence, or a protocol that goes backwards). */
  OUT_OF_ORDER: 'OUT_OF_ORDER',
  /** The computed bucketListHash differs from the ledger header's; `ledger`, `expected`, `computed`, `level`. */
  HASH_MISMATCH: 'HASH_MISMATCH',
  /** The meta's evictedKeys differ from what the eviction scan evicts. */
  EVICTION_MISMATCH: 'EVICTION_MISMATCH',
  /** The meta contradicts the state (a change of an entry the state does not hold, a required setting missing). */
  INCONSISTENT_META: 'INCONSISTENT_META',
  /** A genesis the package cannot build (an unsupported protocol, a bad setting override). */
  BAD_GENESIS: 'BAD_GENESIS',
  /** A ledger entry that cannot be read (malformed XDR inside the state or the meta). */
  BAD_ENTRY: 'BAD_ENTRY',
  /** The state directory cannot be used: a state file of another format, unreadable, or at another ledger than the
   * BucketList; another network's state; a state that diverged from the network. */
  BAD_STATE: 'BAD_STATE',
  /** Reading or writing the state's files failed. */
  IO: 'IO',
  /** The state was closed, or failed part-way through a ledger and must be reopened. */
  CLOSED: 'CLOSED',
  /** The state contradicts itself (e.g. a TTL entry whose CONTRACT_DATA / CONTRACT_CODE entry does not exist). */
  INCONSISTENT_STATE: 'INCONSISTENT_STATE',
  /** An in-memory structure reached its bound (the Soroban state's arena addresses 32 GiB per entry kind). */
  CAPACITY_EXCEEDED: 'CAPACITY_EXCEEDED',
} as const;
export type LedgerStateErrorCode = (typeof LedgerStateErrorCode)[keyof typeof LedgerStateErrorCode];

export interface LedgerStateErrorContext {
  readonly file?: string;
  readonly offset?: number;
  readonly field?: string;
  /** The ledger being applied when the error arose. */
  readonly ledger?: number;
  readonly cause?: unknown;
}

/** Every error this package throws for bad input or a state it cannot reach; bugs are `assert` failures. */
export class LedgerStateError extends StrataError<LedgerStateErrorCode> {
  override readonly name = 'LedgerStateError';
  readonly ledger: number | undefined;

  constructor(code: LedgerStateErrorCode, detail: string, context: LedgerStateErrorContext = {}) {
    super(code, detail, context, { where: context.ledger === undefined ? [] : [`ledger ${context.ledger}`] });
    this.ledger = context.ledger;
  }
}
