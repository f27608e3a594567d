// The one error class of the `strata` node. A data directory of another network or format, a source whose ledgers
// do not follow each other (a gap, a duplicate, one out of order), a header chain that breaks: each is a NodeError
// with a stable `code` and the ledger it concerns. Errors of the packages underneath (ledger-state, hot-store,
// ledger-meta) arrive as `cause`, keeping their own code.
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const NodeErrorCode = {
  /** A bad argument, option or flag from the caller (`field` names it). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** The data directory belongs to another network (node.json's passphrase differs from the one given). */
  WRONG_NETWORK: 'WRONG_NETWORK',
  /** node.json was written by another format version of the node. */
  FORMAT_VERSION: 'FORMAT_VERSION',
  /** Another node (another process, or this one) has the data directory open: its `lock` names the holder. */
  DATA_DIR_LOCKED: 'DATA_DIR_LOCKED',
  /** The data directory cannot be used: node.json unreadable or contradicting the stores. */
  BAD_DATA_DIR: 'BAD_DATA_DIR',
  /** The source skips a ledger: the record after ledger N is not N + 1 (`ledger`: the first one missing). */
  LEDGER_GAP: 'LEDGER_GAP',
  /** The source repeats a ledger it already gave (`ledger`: the repeated one). */
  DUPLICATE_LEDGER: 'DUPLICATE_LEDGER',
  /** The source goes back to an earlier ledger (`ledger`: the one out of order). */
  OUT_OF_ORDER_LEDGER: 'OUT_OF_ORDER_LEDGER',
  /** A header's previousLedgerHash is not the hash of the ledger before it. */
  HEADER_CHAIN_MISMATCH: 'HEADER_CHAIN_MISMATCH',
  /** The source cannot start where the node stands (it starts after the next ledger, or at ledger 2 on a used dir). */
  SOURCE_MISMATCH: 'SOURCE_MISMATCH',
  /** Applying a ledger to the ledger state failed (`cause`: the LedgerStateError, e.g. HASH_MISMATCH). */
  STATE_FAILED: 'STATE_FAILED',
  /** Writing a ledger's events into the hot chunk failed (`cause`: the HotStoreError). */
  EVENTS_FAILED: 'EVENTS_FAILED',
  /** The source could not be read (`cause`: the LedgerMetaError: a corrupt record, a missing file). */
  SOURCE_FAILED: 'SOURCE_FAILED',
  /** `strata verify`: a file does not match its hash (`file` names it; `cause`: the package's error). */
  VERIFY_FAILED: 'VERIFY_FAILED',
  /** Reading or writing the node's own files failed. */
  IO: 'IO',
} as const;
export type NodeErrorCode = (typeof NodeErrorCode)[keyof typeof NodeErrorCode];

export interface NodeErrorContext {
  readonly file?: string;
  readonly offset?: number;
  readonly field?: string;
  /** The ledger the error concerns. */
  readonly ledger?: number;
  readonly cause?: unknown;
}

/** Every error the node throws for bad input, a bad source or a data dir it cannot use; bugs are `assert` failures. */
export class NodeError extends StrataError<NodeErrorCode> {
  override readonly name = 'NodeError';
  readonly ledger: number | undefined;

  constructor(code: NodeErrorCode, detail: string, context: NodeErrorContext = {}) {
    super(code, detail, context, { where: context.ledger === undefined ? [] : [`ledger ${context.ledger}`] });
    this.ledger = context.ledger;
  }
}
