// Applying planned transactions as stellar-core does from protocol 23, writing what the meta says about it: every
// fee first (feeProcessing, a BeforeAllTxs fee event each), then each transaction (TransactionMeta v4: the sequence
// bump, each operation's changes and events, the transaction-level events), then every refund (postTxApplyFee
// processing, an AfterAllTxs fee event each). The state moves with the changes written.
import { AFTER_ALL_TXS_TRANSACTION } from '../events.js';
import { scvSymbol, u32Bytes, XDR } from '../lcm-writer.js';
import { ChangeList, type EntryChangeWriter } from './entry-changes.js';
import type { EventWriter } from './event-writer.js';
import type { FragmentBuilder } from './fragments.js';
import type { LedgerState } from './ledger-state.js';
import type { OpPlan, TxPlan } from './plan.js';
import type { ContractInfo } from './universe.js';
import { XdrWriter } from './xdr-writer.js';

// Topics (CAP-67 / SAC events, encoded once) and values of the events applying emits.
const SYM_TRANSFER = scvSymbol('transfer');
const SYM_MINT = scvSymbol('mint');
const SYM_BURN = scvSymbol('burn');
const SYM_APPROVE = scvSymbol('approve');
const SYM_FEE = scvSymbol('fee');
const SYM_CORE_UPGRADE = scvSymbol('executable_update');
const SCV_VOID = u32Bytes(XDR.SCV_VOID);
/** The topics of no event (read only). */
const NO_TOPICS: Uint8Array[] = [];
/** An approval lives this many ledgers (the live_until_ledger of its value and event). */
const ALLOWANCE_LIFETIME = 1000;

/**
 * Writes the three per-transaction parts of a ledger's TransactionResultMetaV1s into writers of their own (the caller
 * cuts them per transaction by the lengths after each call). Reused across ledgers; not safe for concurrent use.
 */
export class TransactionApplier {
  /** feeProcessing of each transaction, one LedgerEntryChanges after another. */
  readonly feeChanges = new XdrWriter();
  /** txApplyProcessing (TransactionMeta v4) of each transaction. */
  readonly applyMeta = new XdrWriter();
  /** postTxApplyFeeProcessing of each transaction. */
  readonly postChanges = new XdrWriter();
  // One change list per writer, opened again for each list written there (lists in one writer never nest).
  private readonly feeList = new ChangeList(this.feeChanges);
  private readonly applyChanges = new ChangeList(this.applyMeta);
  private readonly postList = new ChangeList(this.postChanges);
  /** The XLM SAC: it emits every fee event. */
  private readonly xlm: ContractInfo;

  constructor(
    private readonly state: LedgerState,
    private readonly changes: EntryChangeWriter,
    private readonly events: EventWriter,
    private readonly fragments: FragmentBuilder,
  ) {
    this.xlm = state.contracts[0] as ContractInfo;
  }

  /** Empties the writers for the next ledger. */
  reset(): void {
    this.feeChanges.reset();
    this.applyMeta.reset();
    this.postChanges.reset();
  }

  /** Charges the fee of the `position`-th transaction (0-based) and records its BeforeAllTxs fee event. */
  applyFee(plan: TxPlan, ledger: number, position: number): void {
    const list = this.feeList;
    list.open();
    this.changes.updateAccount(list, plan.source, ledger, -plan.fee, 0, 0);
    list.close();
    this.state.feePool += plan.fee;
    this.events.recordEvent(
      'beforeAllTxs',
      ledger,
      0,
      0,
      position,
      XDR.CONTRACT_EVENT_CONTRACT,
      this.xlm,
      [SYM_FEE, plan.source.address],
      plan.fee,
      plan,
    );
  }

  /** Refunds what the transaction did not use (an empty change list when nothing is refunded). */
  applyRefund(plan: TxPlan, ledger: number): void {
    const list = this.postList;
    list.open();
    if (plan.refund > 0) {
      this.changes.updateAccount(list, plan.source, ledger, plan.refund, 0, 0);
      this.state.feePool -= plan.refund;
      this.events.recordEvent(
        'afterAllTxs',
        ledger,
        AFTER_ALL_TXS_TRANSACTION,
        0,
        this.events.afterAllTxsCount++,
        XDR.CONTRACT_EVENT_CONTRACT,
        this.xlm,
        [SYM_FEE, plan.source.address],
        -plan.refund,
        plan,
      );
    }
    list.close();
  }

  /** The TransactionMeta v4 of the `txIndex`-th transaction (1-based apply order). */
  applyTransaction(plan: TxPlan, ledger: number, txIndex: number): void {
    const w = this.applyMeta;
    w.u32(4); // TransactionMeta v4
    w.u32(0); // ext
    const before = this.applyChanges;
    before.open();
    this.changes.updateAccount(before, plan.source, ledger, 0, 1, 0); // the sequence number bump
    before.close();
    w.u32(plan.failed ? 0 : plan.ops.length);
    if (!plan.failed) {
      for (let opIndex = 0; opIndex < plan.ops.length; opIndex++) {
        this.applyOperation(plan, plan.ops[opIndex] as OpPlan, ledger, txIndex, opIndex);
      }
    }
    w.u32(0); // txChangesAfter
    if (plan.soroban) {
      w.u32(1);
      w.u32(0); // SorobanTransactionMetaExt v0
      w.u32(1);
      w.raw(SCV_VOID); // returnValue
    } else w.u32(0);
    // Transaction-level events of this transaction: its fee, and its refund when there is one.
    w.u32(plan.refund > 0 ? 2 : 1);
    w.u32(XDR.STAGE_BEFORE_ALL_TXS);
    this.events.write(w, XDR.CONTRACT_EVENT_CONTRACT, this.xlm, [SYM_FEE, plan.source.address], plan.fee);
    if (plan.refund > 0) {
      w.u32(XDR.STAGE_AFTER_ALL_TXS);
      this.events.write(w, XDR.CONTRACT_EVENT_CONTRACT, this.xlm, [SYM_FEE, plan.source.address], -plan.refund);
    }
    w.u32(0); // diagnosticEvents
  }

  /** One OperationMetaV2: the operation's changes, then its event (if any) and the transaction's system event. */
  private applyOperation(plan: TxPlan, op: OpPlan, ledger: number, txIndex: number, opIndex: number): void {
    const w = this.applyMeta;
    const state = this.state;
    const changeWriter = this.changes;
    w.u32(0); // OperationMetaV2.ext
    const changes = this.applyChanges;
    changes.open();
    // The operation's event, if it has one (contract null: none). Held in locals rather than a list of tuples: this
    // runs for every operation, and no operation emits more than one (plus the system event below).
    let eventContract: ContractInfo | null = null;
    let eventTopics = NO_TOPICS;
    let eventValue: Uint8Array | number = 0;
    switch (op.kind) {
      case 'createAccount': {
        changeWriter.updateAccount(changes, op.from, ledger, -op.amount, 0, 0);
        const to = op.to;
        to.balance = op.amount;
        to.seqLo = 0;
        to.plannedSeqLo = 0;
        to.lastModified = ledger;
        changeWriter.createdAccount(changes, to);
        eventContract = this.xlm;
        eventTopics = [SYM_TRANSFER, op.from.address, to.address, eventContract.assetName];
        eventValue = op.amount;
        break;
      }
      case 'payment': {
        const { from, to, contract } = op;
        const amount = op.amount;
        if (contract.issuer < 0) {
          changeWriter.updateAccount(changes, from, ledger, -amount, 0, 0);
          if (to !== from) changeWriter.updateAccount(changes, to, ledger, amount, 0, 0);
        } else {
          if (op.fromLine !== null) changeWriter.updateTrustline(changes, op.fromLine, ledger, -amount);
          if (op.toLine !== null && op.toLine !== op.fromLine) {
            changeWriter.updateTrustline(changes, op.toLine, ledger, amount);
          }
        }
        // CAP-67: a movement from the issuer is a mint, to the issuer a burn, otherwise a transfer.
        eventContract = contract;
        eventValue = amount;
        if (from.index === contract.issuer && to.index !== contract.issuer) {
          eventTopics = [SYM_MINT, to.address, contract.assetName];
        } else if (to.index === contract.issuer && from.index !== contract.issuer) {
          eventTopics = [SYM_BURN, from.address, contract.assetName];
        } else {
          eventTopics = [SYM_TRANSFER, from.address, to.address, contract.assetName];
        }
        break;
      }
      case 'trustCreate': {
        changeWriter.updateAccount(changes, op.account, ledger, 0, 0, 1);
        op.line.lastModified = ledger;
        changeWriter.createdTrustline(changes, op.line);
        break;
      }
      case 'trustRemove': {
        changeWriter.updateAccount(changes, op.account, ledger, 0, 0, -1);
        changeWriter.removedTrustline(changes, op.line);
        break;
      }
      case 'approve': {
        const entry = op.entry;
        const liveUntil = ledger + ALLOWANCE_LIFETIME;
        if (op.created) {
          entry.body = this.fragments.allowanceBody(entry.key, op.amount, liveUntil, null);
          entry.lastModified = ledger;
          entry.ttlLastModified = ledger;
          state.sorobanStateBytes += entry.body.length + 4;
          changeWriter.createdSorobanEntry(changes, entry);
        } else {
          // STATE with the body as it was, then the new body written over it (same length: see allowanceBody).
          changeWriter.sorobanEntryState(changes, entry);
          entry.body = this.fragments.allowanceBody(entry.key, op.amount, liveUntil, entry.body);
          entry.lastModified = ledger;
          changeWriter.sorobanEntryUpdated(changes, entry);
        }
        const nonce = op.nonce;
        nonce.lastModified = ledger;
        nonce.ttlLastModified = ledger;
        changeWriter.createdSorobanEntry(changes, nonce);
        eventContract = op.contract;
        eventTopics = [SYM_APPROVE, op.from.address, op.spender.address, op.contract.assetName];
        eventValue = this.fragments.approvalValue(op.amount, liveUntil);
        break;
      }
      case 'removeAllowance': {
        const entry = op.entry;
        state.sorobanStateBytes -= entry.body.length + 4;
        changeWriter.removedSorobanEntry(changes, entry);
        // The key's vec holds [sym, from, spender] after the contract address; reuse those fragments as topics.
        const { from, spender } = this.fragments.allowanceParties(entry.key);
        eventContract = op.contract;
        eventTopics = [SYM_APPROVE, from, spender, op.contract.assetName];
        eventValue = this.fragments.approvalValue(0, ledger);
        break;
      }
      case 'extendTtl': {
        changeWriter.extendTtl(changes, op.entry, ledger, op.liveUntil);
        break;
      }
      case 'upload': {
        const entry = op.entry;
        entry.lastModified = ledger;
        entry.ttlLastModified = ledger;
        state.sorobanStateBytes += entry.body.length + 4;
        changeWriter.createdSorobanEntry(changes, entry);
        break;
      }
    }
    changes.close();
    // A system event (type SYSTEM), as the host emits for executable updates; synthetic payload.
    const systemEvent = plan.systemEvent && opIndex === 0;
    w.u32((eventContract === null ? 0 : 1) + (systemEvent ? 1 : 0));
    let eventIndex = 0;
    if (eventContract !== null) {
      const type = XDR.CONTRACT_EVENT_CONTRACT;
      this.events.write(w, type, eventContract, eventTopics, eventValue);
      this.events.recordEvent(
        'operation',
        ledger,
        txIndex,
        opIndex,
        eventIndex++,
        type,
        eventContract,
        eventTopics,
        eventValue,
        plan,
      );
    }
    if (systemEvent) {
      const contract = op.kind === 'approve' || op.kind === 'payment' ? op.contract : this.xlm;
      const topics = [SYM_CORE_UPGRADE];
      this.events.write(w, XDR.CONTRACT_EVENT_SYSTEM, contract, topics, SCV_VOID);
      this.events.recordEvent(
        'operation',
        ledger,
        txIndex,
        opIndex,
        eventIndex,
        XDR.CONTRACT_EVENT_SYSTEM,
        contract,
        topics,
        SCV_VOID,
        plan,
      );
    }
  }
}
