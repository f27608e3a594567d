// The transaction set and results of a ledger: each planned transaction as a TransactionEnvelope (ENVELOPE_TYPE_TX,
// no signatures) in the txSet, its hash (what stellar-core reports), and its TransactionResultPair. One writer per
// generator, reused across ledgers; not safe for concurrent use.
import { sha256, XDR } from '../lcm-writer.js';
import { TRUSTLINE_LIMIT } from './ledger-state.js';
import type { TxPlan } from './plan.js';
import type { ContractInfo } from './universe.js';
import { XdrWriter } from './xdr-writer.js';

/** Function names of InvokeContractArgs (SCSymbol bodies, without the SCVal type). */
const FN_TRANSFER = new TextEncoder().encode('transfer');
const FN_APPROVE = new TextEncoder().encode('approve');

export class EnvelopeWriter {
  /** The envelopes of the ledger, one after another (the txSet's phase body after its count). */
  readonly txSet = new XdrWriter();
  /** TransactionResultSet: a count (patched by the caller), then each TransactionResultPair. */
  readonly results = new XdrWriter();
  /** The hash preimage of the envelope being written: networkID ‖ ENVELOPE_TYPE_TX (kept), then the Transaction. */
  private readonly envelopePreimage = new XdrWriter(4096);

  constructor(networkId: Uint8Array) {
    this.envelopePreimage.raw(networkId);
    this.envelopePreimage.u32(XDR.ENVELOPE_TYPE_TX);
  }

  /** Empties the txSet and the results for the next ledger. */
  reset(): void {
    this.txSet.reset();
    this.results.reset();
  }

  /** Appends `plan`'s envelope to the txSet and sets `plan.hash`; uses the source's next sequence number. */
  writeEnvelope(plan: TxPlan, ledger: number): void {
    const tx = this.envelopePreimage;
    // The hash preimage starts networkID ‖ ENVELOPE_TYPE_TX, written once in the constructor and kept; the bytes
    // from offset 32 on are also the envelope's start.
    tx.truncate(32 + 4);
    const source = plan.source;
    tx.raw(source.accountId);
    tx.u32(plan.fee);
    source.plannedSeqLo++;
    tx.u32(source.seqHi);
    tx.u32(source.plannedSeqLo);
    tx.u32(0); // PRECOND_NONE
    tx.u32(0); // MEMO_NONE
    tx.u32(plan.ops.length);
    for (const op of plan.ops) {
      tx.u32(0); // no per-operation source account
      switch (op.kind) {
        case 'createAccount':
          tx.u32(XDR.OP_CREATE_ACCOUNT);
          tx.raw(op.to.accountId);
          tx.i64(op.amount);
          break;
        case 'payment':
          if (op.soroban) writeInvoke(tx, op.contract, FN_TRANSFER);
          else {
            tx.u32(XDR.OP_PAYMENT);
            tx.raw(op.to.accountId);
            tx.raw(op.contract.asset);
            tx.i64(op.amount);
          }
          break;
        case 'trustCreate':
        case 'trustRemove':
          tx.u32(XDR.OP_CHANGE_TRUST);
          tx.raw(op.line.contract.asset);
          tx.i64(op.kind === 'trustCreate' ? TRUSTLINE_LIMIT : 0);
          break;
        case 'approve':
          writeInvoke(tx, op.contract, FN_APPROVE);
          break;
        case 'removeAllowance':
          writeInvoke(tx, op.contract, FN_APPROVE);
          break;
        case 'extendTtl':
          tx.u32(XDR.OP_EXTEND_FOOTPRINT_TTL);
          tx.u32(0);
          tx.u32(op.liveUntil - ledger);
          break;
        case 'upload':
          tx.u32(XDR.OP_INVOKE_HOST_FUNCTION);
          tx.u32(XDR.HOST_FUNCTION_UPLOAD_WASM);
          tx.opaque(op.code);
          tx.u32(0);
          break;
      }
    }
    tx.u32(0); // Transaction.ext v0
    // The hash stellar-core reports: SHA-256(networkID ‖ ENVELOPE_TYPE_TX ‖ Transaction).
    plan.hash = sha256(tx.bytes());
    this.txSet.raw(tx.slice(32, tx.length));
    this.txSet.u32(0); // no signatures
  }

  /** Appends `plan`'s TransactionResultPair (its envelope must have been written: the pair starts with its hash). */
  writeResult(plan: TxPlan): void {
    const w = this.results;
    w.raw(plan.hash);
    w.i64(plan.fee - plan.refund);
    w.i32(plan.failed ? XDR.TX_FAILED : XDR.TX_SUCCESS);
    w.u32(plan.ops.length);
    for (const op of plan.ops) {
      w.u32(XDR.OP_INNER);
      if (plan.failed) {
        w.u32(XDR.OP_PAYMENT);
        w.i32(XDR.PAYMENT_UNDERFUNDED);
        continue;
      }
      switch (op.kind) {
        case 'createAccount':
          w.u32(XDR.OP_CREATE_ACCOUNT);
          w.u32(0);
          break;
        case 'payment':
          if (op.soroban) writeInvokeSuccess(w, plan.hash);
          else {
            w.u32(XDR.OP_PAYMENT);
            w.u32(0);
          }
          break;
        case 'trustCreate':
        case 'trustRemove':
          w.u32(XDR.OP_CHANGE_TRUST);
          w.u32(0);
          break;
        case 'extendTtl':
          w.u32(XDR.OP_EXTEND_FOOTPRINT_TTL);
          w.u32(0);
          break;
        default:
          writeInvokeSuccess(w, plan.hash);
      }
    }
    w.u32(0); // TransactionResult.ext v0
  }
}

/** InvokeHostFunctionOp { HostFunction INVOKE_CONTRACT { contract, function, args<> }, auth<> }. */
function writeInvoke(tx: XdrWriter, contract: ContractInfo, functionName: Uint8Array): void {
  tx.u32(XDR.OP_INVOKE_HOST_FUNCTION);
  tx.u32(XDR.HOST_FUNCTION_INVOKE_CONTRACT);
  tx.raw(contract.scAddress);
  tx.opaque(functionName);
  tx.u32(0);
  tx.u32(0);
}

function writeInvokeSuccess(w: XdrWriter, txHash: Uint8Array): void {
  w.u32(XDR.OP_INVOKE_HOST_FUNCTION);
  w.u32(0);
  w.raw(txHash); // stands in for the hash of InvokeHostFunctionSuccessPreImage
}
