// Contract events as the stores receive them: coordinates per spec events-and-stores.md §2 (TOID, sentinels, event
// index), the id string, and zero-copy views of the raw ContractEvent XDR.

/** Transaction-level stage of an event, or `operation` for an event emitted by an operation. */
export type ContractEventStage = 'beforeAllTxs' | 'operation' | 'afterTx' | 'afterAllTxs';

/** TransactionEventStage values (XDR, TransactionMetaV4.events). */
export const TRANSACTION_EVENT_STAGE = { BEFORE_ALL_TXS: 0, AFTER_TX: 1, AFTER_ALL_TXS: 2 } as const;

/** The op index of AfterTx events (TOID OperationMask, 12 bits). */
export const AFTER_TX_OPERATION = 4095;
/** The tx index of AfterAllTxs events (TOID TransactionMask, 20 bits). */
export const AFTER_ALL_TXS_TRANSACTION = 1_048_575;

/**
 * One contract event. Byte members are subarrays of the LedgerCloseMeta bytes (zero-copy): they stay valid while the
 * caller does not modify those bytes, and they keep the whole record alive.
 */
export interface ContractEventRecord {
  /** `%019d-%010d` of (TOID, eventIndex): lexicographic order = (ledger, tx, op, eventIndex) order. */
  id: string;
  ledger: number;
  /** 1-based apply order; 0 for beforeAllTxs, 1048575 for afterAllTxs. */
  tx: number;
  /** 0-based operation index; 4095 for afterTx, 0 for the ledger-level stages. */
  op: number;
  /** Counted within the operation, the transaction (afterTx) or the ledger (beforeAllTxs, afterAllTxs). */
  eventIndex: number;
  stage: ContractEventStage;
  /** ContractEventType; `diagnostic` is valid XDR but stellar-core never puts one among contract events. */
  type: 'system' | 'contract' | 'diagnostic';
  /** The emitting contract's 32-byte id, or null (some system events have none). */
  contractId: Uint8Array | null;
  /** XDR SCVal of each topic, in order. */
  topics: Uint8Array[];
  /** XDR SCVal of the event's data. */
  value: Uint8Array;
  /** The raw XDR ContractEvent. */
  xdr: Uint8Array;
  /** TransactionResultPair.transactionHash of the emitting transaction (32 bytes). */
  txHash: Uint8Array;
  /**
   * Whether the emitting transaction succeeded (txSUCCESS or txFEE_BUMP_INNER_SUCCESS): the flag stellar-rpc stores
   * as DiagnosticEvent.inSuccessfulContractCall for every event it ingests (db/event.go: `tx.Successful()`).
   */
  inSuccessfulContractCall: boolean;
}
