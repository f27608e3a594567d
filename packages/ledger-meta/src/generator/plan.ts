// Planning a ledger: which transactions it holds and what each operation does, drawn from the seeded stream until the
// ledger's event budget is spent. Planning decides and reserves (accounts to create, trust lines, allowance and
// nonce entries, entries removed); writing the envelopes and applying the plans come after, in the same order.
import { encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { sha256 } from '../lcm-writer.js';
import type { FragmentBuilder } from './fragments.js';
import type { LedgerState, SorobanEntry, TrustlineState } from './ledger-state.js';
import type { ResolvedGeneratorOptions } from './options.js';
import { type Prng, ZipfSampler } from './prng.js';
import type { AccountState, ContractInfo } from './universe.js';

// ---- tuning: shares of operation kinds and sizes, chosen to resemble pubnet's SAC-dominated event mix ----

const SOROBAN_TX_SHARE = 0.3;
const FAILED_TX_SHARE = 0.03;
const REFUND_SHARE = 0.6;
const SYSTEM_EVENT_SHARE = 0.01;
const PERSISTENT_TTL = 500_000;
const TEMPORARY_TTL_MIN = 4;
const TEMPORARY_TTL_MAX = 24;
const STARTING_BALANCE = 1_000_000_000; // 100 XLM
/** The hash of a plan until its envelope is written (writeEnvelope sets the real one). */
const ZERO_HASH = new Uint8Array(32);

/** One operation and what it will change. */
export type OpPlan =
  | { kind: 'createAccount'; from: AccountState; to: AccountState; amount: number }
  | {
      kind: 'payment';
      from: AccountState;
      to: AccountState;
      contract: ContractInfo;
      amount: number;
      fromLine: TrustlineState | null;
      toLine: TrustlineState | null;
      soroban: boolean;
    }
  | { kind: 'trustCreate'; account: AccountState; line: TrustlineState }
  | { kind: 'trustRemove'; account: AccountState; line: TrustlineState }
  | {
      kind: 'approve';
      from: AccountState;
      spender: AccountState;
      contract: ContractInfo;
      amount: number;
      entry: SorobanEntry;
      created: boolean;
      nonce: SorobanEntry;
    }
  | { kind: 'removeAllowance'; entry: SorobanEntry; contract: ContractInfo }
  | { kind: 'extendTtl'; entry: SorobanEntry; liveUntil: number }
  | { kind: 'upload'; entry: SorobanEntry; code: Uint8Array };

/** One transaction: its source, operations, fees and outcome. */
export interface TxPlan {
  source: AccountState;
  ops: OpPlan[];
  soroban: boolean;
  failed: boolean;
  /** Fee charged up front (BeforeAllTxs). */
  fee: number;
  /** Refunded after all transactions (AfterAllTxs), 0 for none. */
  refund: number;
  systemEvent: boolean;
  /** The transaction hash, known once the envelope is written. */
  hash: Uint8Array;
}

/** Plans the transactions of each ledger. Draws from `prng` only; not safe for concurrent use. */
export class TransactionPlanner {
  private readonly accountZipf: ZipfSampler;
  private readonly contractZipf: ZipfSampler;
  private readonly accounts: readonly AccountState[];
  private readonly contracts: readonly ContractInfo[];

  constructor(
    private readonly options: ResolvedGeneratorOptions,
    private readonly prng: Prng,
    private readonly state: LedgerState,
    private readonly fragments: FragmentBuilder,
  ) {
    this.accounts = state.accounts;
    this.contracts = state.contracts;
    // Accounts are mildly skewed (many active), contracts strongly (XLM and a few tokens dominate).
    this.accountZipf = new ZipfSampler(this.accounts.length, 0.8);
    this.contractZipf = new ZipfSampler(this.contracts.length, 1.2);
  }

  /** The transactions of `ledger` (not the first: it only creates the root account), until its event budget is spent. */
  planLedger(ledger: number): TxPlan[] {
    const mean = this.options.eventsPerLedger;
    const budget = Math.round(mean * (0.75 + 0.5 * this.prng.next()));
    // Only accounts that existed when the ledger started may pay fees or receive (fees are charged first).
    const existing = this.state.createdAccounts;
    const plans: TxPlan[] = [];
    let planned = 0;
    while (planned < budget) {
      const plan =
        this.state.createdAccounts < this.accounts.length && (plans.length === 0 || this.prng.chance(0.1))
          ? this.planFunding(ledger, Math.max(1, Math.min(100, budget - planned - 1)))
          : this.planTransaction(ledger, existing);
      planned += countEvents(plan);
      plans.push(plan);
    }
    return plans;
  }

  private pickAccount(limit: number): AccountState {
    return this.accounts[this.accountZipf.sample(this.prng, limit)] as AccountState;
  }

  private pickContract(): ContractInfo {
    return this.contracts[this.contractZipf.sample(this.prng)] as ContractInfo;
  }

  /** A transaction of up to `maxOps` CreateAccount operations from the root account. */
  private planFunding(ledger: number, maxOps: number): TxPlan {
    const source = this.accounts[0] as AccountState;
    const ops: OpPlan[] = [];
    const count = Math.min(maxOps, this.accounts.length - this.state.createdAccounts);
    for (let i = 0; i < count; i++) {
      const to = this.accounts[this.state.createdAccounts++] as AccountState;
      to.created = true;
      to.seqHi = ledger;
      ops.push({ kind: 'createAccount', from: source, to, amount: STARTING_BALANCE });
    }
    return classicPlan(source, ops, false);
  }

  private planTransaction(ledger: number, existing: number): TxPlan {
    const prng = this.prng;
    const source = this.pickAccount(existing);
    if (prng.chance(FAILED_TX_SHARE)) {
      const to = this.pickAccount(existing);
      const failedPayment: OpPlan = {
        kind: 'payment',
        from: source,
        to,
        contract: this.contracts[0] as ContractInfo,
        amount: 1,
        fromLine: null,
        toLine: null,
        soroban: false,
      };
      return classicPlan(source, [failedPayment], true);
    }
    if (prng.chance(SOROBAN_TX_SHARE)) {
      // Soroban transactions carry exactly one operation (a protocol rule).
      const op = this.planSorobanOp(ledger, source, existing);
      const fee = prng.between(50_000, 250_000);
      return {
        source,
        ops: [op],
        soroban: true,
        failed: false,
        fee,
        refund: prng.chance(REFUND_SHARE) ? prng.between(1, Math.floor(fee / 2)) : 0,
        systemEvent: prng.chance(SYSTEM_EVENT_SHARE),
        hash: ZERO_HASH,
      };
    }
    const ops: OpPlan[] = [];
    const opCount = prng.chance(0.8) ? 1 : prng.between(2, 3);
    for (let i = 0; i < opCount; i++) ops.push(this.planClassicOp(source, existing, false));
    return classicPlan(source, ops, false);
  }

  /** A payment (transfer / mint / burn), or the trust line changes that make one possible. */
  private planClassicOp(source: AccountState, existing: number, soroban: boolean): OpPlan {
    const prng = this.prng;
    const state = this.state;
    const contract = this.pickContract();
    let to = this.pickAccount(existing);
    const amount = prng.between(1, 10_000) * 100;
    if (contract.issuer < 0 || (this.accounts[contract.issuer] as AccountState).index >= existing) {
      return {
        kind: 'payment',
        from: source,
        to,
        contract: this.contracts[0] as ContractInfo,
        amount,
        fromLine: null,
        toLine: null,
        soroban,
      };
    }
    const sourceLine = state.trustline(source, contract);
    if (source.index !== contract.issuer && sourceLine === null) {
      return { kind: 'trustCreate', account: source, line: state.newTrustline(source, contract) };
    }
    if (sourceLine !== null && !soroban && prng.chance(0.02)) {
      state.setTrustline(source, contract, null);
      return { kind: 'trustRemove', account: source, line: sourceLine };
    }
    let toLine = to.index === contract.issuer ? null : state.trustline(to, contract);
    if (to.index !== contract.issuer && toLine === null) {
      // No trust line at the destination: pay the issuer instead (a burn), as redemptions do.
      to = this.accounts[contract.issuer] as AccountState;
      toLine = null;
    }
    return { kind: 'payment', from: source, to, contract, amount, fromLine: sourceLine, toLine, soroban };
  }

  private planSorobanOp(ledger: number, source: AccountState, existing: number): OpPlan {
    const prng = this.prng;
    const state = this.state;
    const roll = prng.next();
    if (roll < 0.005) return this.planUpload(ledger);
    if (roll < 0.05 && state.persistentEntries.length > 0) {
      const entry = state.persistentEntries[prng.below(state.persistentEntries.length)] as SorobanEntry;
      return { kind: 'extendTtl', entry, liveUntil: entry.liveUntil + prng.between(1000, 100_000) };
    }
    if (roll < 0.08 && state.persistentEntries.length > 0) {
      // Remove an allowance (entry and TTL go together); code entries are never removed.
      const entry = state.persistentEntries[prng.below(state.persistentEntries.length)] as SorobanEntry;
      if (entry.allowanceId >= 0 && entry.contract !== null) {
        state.allowances.delete(entry.allowanceId);
        state.dropPersistent(entry);
        return { kind: 'removeAllowance', entry, contract: entry.contract };
      }
    }
    if (roll < 0.4) return this.planApprove(ledger, source, existing);
    return this.planClassicOp(source, existing, true);
  }

  private planUpload(ledger: number): OpPlan {
    const code = this.prng.bytes(64 + this.prng.below(192));
    const hash = sha256(code);
    const key = encodeLedgerKey({ type: 'contractCode', hash });
    const body = encodeLedgerEntry({ lastModifiedLedgerSeq: 0, data: { type: 'contractCode', hash, code } }).subarray(
      4,
    );
    const entry = this.state.newSorobanEntry(key, body.slice(), ledger + PERSISTENT_TTL, 'persistent');
    return { kind: 'upload', entry, code };
  }

  private planApprove(ledger: number, from: AccountState, existing: number): OpPlan {
    const prng = this.prng;
    const state = this.state;
    const contract = this.pickContract();
    const spender = this.pickAccount(existing);
    const amount = prng.between(0, 1_000_000) * 100;
    const n = this.accounts.length;
    const id = (contract.index * n + from.index) * n + spender.index;
    let entry = state.allowances.get(id);
    const created = entry === undefined;
    if (entry === undefined) {
      const key = this.fragments.allowanceKey(contract, from, spender);
      entry = state.newSorobanEntry(key, new Uint8Array(0), ledger + PERSISTENT_TTL, 'persistent');
      entry.allowanceId = id;
      entry.contract = contract;
      state.allowances.set(id, entry);
    }
    entry.amount = amount;
    // Authorization consumes a nonce: a TEMPORARY entry owned by the signer, evicted once its TTL lapses.
    const nonceKey = this.fragments.nonceKey(from, ++state.nonceCounter);
    const nonce = state.newSorobanEntry(
      nonceKey,
      this.fragments.nonceBody(nonceKey),
      ledger + prng.between(TEMPORARY_TTL_MIN, TEMPORARY_TTL_MAX),
      'temporary',
    );
    return { kind: 'approve', from, spender, contract, amount, entry, created, nonce };
  }
}

function classicPlan(source: AccountState, ops: OpPlan[], failed: boolean): TxPlan {
  return {
    source,
    ops,
    soroban: false,
    failed,
    fee: 100 * ops.length,
    refund: 0,
    systemEvent: false,
    hash: ZERO_HASH,
  };
}

/** The contract events a plan emits: its fee, its refund, one per event-emitting operation, and its system event. */
function countEvents(plan: TxPlan): number {
  let events = 1 + (plan.refund > 0 ? 1 : 0);
  if (plan.failed) return events;
  for (const op of plan.ops) {
    if (op.kind === 'createAccount' || op.kind === 'payment' || op.kind === 'approve') events++;
    if (op.kind === 'removeAllowance') events++;
  }
  return events + (plan.systemEvent ? 1 : 0);
}
