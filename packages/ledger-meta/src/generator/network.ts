// A synthetic network ledger by ledger: each LedgerCloseMeta v2 is planned (plan.ts), its envelopes and results
// written (envelopes.ts), its transactions applied (transaction-apply.ts), then assembled here with the ledger's tail
// (the first ledger's upgrade, which creates the root account, and evictions) and a header chained to the previous.
import type { LedgerBatch } from '../change-fold.js';
import { concatBytes, networkIdOf, sha256, u32Bytes, writeLedgerHeader, XDR } from '../lcm-writer.js';
import { ChangeList, EntryChangeWriter, NetEffect } from './entry-changes.js';
import { EnvelopeWriter } from './envelopes.js';
import { EventWriter, type GeneratedEvent } from './event-writer.js';
import { FragmentBuilder } from './fragments.js';
import { LedgerState } from './ledger-state.js';
import type { ResolvedGeneratorOptions } from './options.js';
import { TransactionPlanner, type TxPlan } from './plan.js';
import { Prng } from './prng.js';
import { TransactionApplier } from './transaction-apply.js';
import { type AccountState, makeAccounts, makeContracts } from './universe.js';
import { XdrWriter } from './xdr-writer.js';

const MAX_EVICTIONS_PER_LEDGER = 1000;
const CLOSE_INTERVAL_SECONDS = 5;
const GENESIS_CLOSE_TIME = 1_750_000_000;
const ROOT_BALANCE = 1_000_000_000_000_000; // 100 M XLM: funds a million accounts
/** LedgerHeaderHistoryEntry { hash, header, ext }: 32 + 324 (fixed: no upgrades, ext v0) + 4 bytes. */
const HEADER_PLACEHOLDER = new Uint8Array(32 + 324 + 4);

export interface GeneratedLedger {
  sequence: number;
  /** Unix seconds, strictly increasing. */
  closeTime: number;
  /** SHA-256 of the LedgerHeader XDR; the next ledger's previousLedgerHash. */
  hash: Uint8Array;
  /** The LedgerCloseMeta XDR (a fresh array per ledger). */
  lcm: Uint8Array;
  transactionCount: number;
  eventCount: number;
  /** In emission order; empty unless `record`. */
  events: GeneratedEvent[];
  /** Net effect of the ledger's changes, each list in stellar-core key order; null unless `record`. */
  batch: LedgerBatch | null;
}

/** Builds one ledger per nextLedger call; all its state is its own. Not safe for concurrent use. */
export class NetworkGenerator {
  private readonly prng: Prng;
  private readonly state: LedgerState;
  private readonly planner: TransactionPlanner;
  private readonly envelopes: EnvelopeWriter;
  private readonly changes = new EntryChangeWriter();
  private readonly events: EventWriter;
  private readonly applier: TransactionApplier;
  private sequence: number;
  private previousHash: Uint8Array;
  private closeTime: number;

  // Writers reused across ledgers (capacity grows once, then stays).
  private readonly tail = new XdrWriter();
  private readonly header = new XdrWriter(1024);
  private readonly out = new XdrWriter(256 * 1024);

  /** `options` as resolveGeneratorOptions returns them (checked). */
  constructor(private readonly options: ResolvedGeneratorOptions) {
    this.prng = new Prng(options.seed);
    const networkId = networkIdOf(options.networkPassphrase);
    const accounts = makeAccounts(this.prng, options.accounts);
    const contracts = makeContracts(options.contracts, accounts, networkId);
    this.state = new LedgerState(accounts, contracts);
    const fragments = new FragmentBuilder();
    this.planner = new TransactionPlanner(options, this.prng, this.state, fragments);
    this.envelopes = new EnvelopeWriter(networkId);
    this.events = new EventWriter(contracts.length, options.record);
    this.applier = new TransactionApplier(this.state, this.changes, this.events, fragments);
    this.sequence = options.startLedger;
    this.previousHash = sha256(new TextEncoder().encode(`strata-gen previous of ${options.startLedger}`));
    this.closeTime = GENESIS_CLOSE_TIME + options.startLedger * CLOSE_INTERVAL_SECONDS;
  }

  nextLedger(): GeneratedLedger {
    const ledger = this.sequence;
    const record = this.options.record;
    const net = record ? new NetEffect() : null;
    this.changes.net = net;
    this.events.startLedger();
    this.envelopes.reset();
    this.applier.reset();
    this.tail.reset();

    // Plan transactions, then write their envelopes and results.
    const plans: TxPlan[] = ledger === this.options.startLedger ? [] : this.planner.planLedger(ledger);
    for (const plan of plans) this.envelopes.writeEnvelope(plan, ledger);
    const { txSet, results } = this.envelopes;
    const { feeChanges, applyMeta, postChanges } = this.applier;
    results.u32(0); // TransactionResultSet count, patched once known
    const resultRanges: number[] = [4];
    const feeRanges: number[] = [0];
    const applyRanges: number[] = [0];
    const postRanges: number[] = [0];
    for (const plan of plans) {
      this.envelopes.writeResult(plan);
      resultRanges.push(results.length);
    }
    // Apply order of stellar-core from protocol 23: every fee first, then each transaction, then every refund.
    for (let i = 0; i < plans.length; i++) {
      this.applier.applyFee(plans[i] as TxPlan, ledger, i);
      feeRanges.push(feeChanges.length);
    }
    for (let i = 0; i < plans.length; i++) {
      this.applier.applyTransaction(plans[i] as TxPlan, ledger, i + 1);
      applyRanges.push(applyMeta.length);
    }
    for (let i = 0; i < plans.length; i++) {
      this.applier.applyRefund(plans[i] as TxPlan, ledger);
      postRanges.push(postChanges.length);
    }

    // Tail: upgradesProcessing (the first ledger creates the root account), scpInfo, Soroban state size, evictions.
    this.writeUpgrades(ledger);
    this.tail.u32(0);
    this.tail.i64(this.state.sorobanStateBytes);
    this.writeEvictions(ledger);

    // Written straight into the output: version, ext, a placeholder for the header (its hashes depend on what
    // follows), the txSet, then the transactions. The header is patched in at the end.
    const out = this.out;
    out.reset();
    out.u32(XDR.LEDGER_CLOSE_META_V2);
    out.u32(0);
    const headerAt = out.length;
    out.raw(HEADER_PLACEHOLDER);
    // The txSet: one classic phase with every envelope, one empty parallel Soroban phase.
    const txSetStart = out.length;
    out.u32(XDR.GENERALIZED_TX_SET_V1);
    out.raw(this.previousHash);
    out.u32(2);
    out.u32(0);
    if (plans.length === 0) out.u32(0);
    else {
      out.u32(1);
      out.u32(XDR.TXSET_COMP_TXS_MAYBE_DISCOUNTED_FEE);
      out.u32(1);
      out.i64(100);
      out.u32(plans.length);
      out.raw(txSet.bytes());
    }
    out.u32(1);
    out.u32(0);
    out.u32(0);
    const txSetHash = sha256(out.slice(txSetStart, out.length));
    out.u32(plans.length);
    for (let i = 0; i < plans.length; i++) {
      out.u32(0);
      out.raw(results.slice(resultRanges[i] as number, resultRanges[i + 1] as number));
      out.raw(feeChanges.slice(feeRanges[i] as number, feeRanges[i + 1] as number));
      out.raw(applyMeta.slice(applyRanges[i] as number, applyRanges[i + 1] as number));
      out.raw(postChanges.slice(postRanges[i] as number, postRanges[i + 1] as number));
    }
    out.raw(this.tail.bytes());

    this.closeTime += CLOSE_INTERVAL_SECONDS - 1 + this.prng.below(3);
    // TransactionResultSet { results<> } is what txSetResultHash covers: the count, then every result pair.
    results.patchU32(0, plans.length);
    const header = this.header;
    header.reset();
    writeLedgerHeader(header, {
      protocolVersion: this.options.protocolVersion,
      previousLedgerHash: this.previousHash,
      txSetHash,
      closeTime: this.closeTime,
      txSetResultHash: sha256(results.bytes()),
      bucketListHash: sha256(concatBytes([this.previousHash, u32Bytes(ledger)])),
      ledgerSeq: ledger,
      feePool: this.state.feePool,
      idPool: this.state.idPool,
    });
    const headerHash = sha256(header.bytes());
    out.patchBytes(headerAt, headerHash);
    out.patchBytes(headerAt + 32, header.bytes());
    this.previousHash = headerHash;
    this.sequence++;
    return {
      sequence: ledger,
      closeTime: this.closeTime,
      hash: headerHash,
      lcm: out.copyLarge(),
      transactionCount: plans.length,
      eventCount: this.events.eventCount,
      events: this.events.ledgerEvents(),
      batch: net === null ? null : net.batch(),
    };
  }

  /** upgradesProcessing: none, except in the first ledger. */
  private writeUpgrades(ledger: number): void {
    const w = this.tail;
    if (ledger !== this.options.startLedger) {
      w.u32(0);
      return;
    }
    // The first ledger upgrades the protocol version and creates the root account that funds every other account.
    w.u32(1);
    w.u32(XDR.LEDGER_UPGRADE_VERSION);
    w.u32(this.options.protocolVersion);
    const root = this.state.accounts[0] as AccountState;
    root.created = true;
    root.balance = ROOT_BALANCE;
    root.seqHi = ledger;
    root.lastModified = ledger;
    this.state.createdAccounts = 1;
    const list = new ChangeList(w);
    list.open();
    this.changes.createdAccount(list, root);
    list.close();
  }

  /**
   * Evicts temporary entries whose TTL lapsed (liveUntil < ledger), at most MAX_EVICTIONS_PER_LEDGER: the entry key
   * and its TTL key go into evictedKeys, both become dead in this ledger's batch (spec ledger-keys-and-buckets.md §8).
   */
  private writeEvictions(ledger: number): void {
    const w = this.tail;
    const countOffset = w.length;
    w.u32(0);
    let evicted = 0;
    while (evicted < MAX_EVICTIONS_PER_LEDGER) {
      const entry = this.state.popExpired(ledger);
      if (entry === null) break;
      w.raw(entry.key);
      w.raw(entry.ttlKey);
      this.changes.evicted(entry);
      evicted++;
    }
    w.patchU32(countOffset, evicted * 2);
  }
}
