// Deterministic synthetic Stellar networks: a stream of LedgerCloseMeta v2 ledgers with pubnet-like CAP-67 asset
// events and a valid ledger-entry history, plus (optionally) a record of every event and of each ledger's
// init/live/dead batch, so tests can check readers against what was written.
//
// Event shapes follow CAP-67 (stellar-protocol core/cap-0067.md, "Semantics"): transfer [sym, from, to, sep0011
// asset string] i128; mint [sym, to, asset] i128; burn [sym, from, asset] i128; fee [sym "fee", from] i128 as a
// transaction-level event, BeforeAllTxs when charged and AfterAllTxs (negative amount) when refunded from protocol
// 23. approve follows the SAC (CAP-46-06): [sym, from, spender, asset] with data vec[i128 amount, u32 live_until].
// Event coordinates and ids follow spec events-and-stores.md §2.
import { compareLedgerKeys, encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import {
  checkInteger,
  checkOptions,
  invalidArgument,
  MAX_LEDGER_SEQUENCE,
  optionalBoolean,
  optionalInteger,
} from './arguments.js';
import type { LedgerBatch } from './change-fold.js';
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import { AFTER_ALL_TXS_TRANSACTION, type ContractEventRecord, type ContractEventStage, eventId } from './events.js';
import { Prng, ZipfSampler } from './generator/prng.js';
import {
  ACCOUNT_ENTRY_LAYOUT,
  type AccountState,
  type ContractInfo,
  makeAccounts,
  makeContracts,
} from './generator/universe.js';
import { ByteSlab, setI64, setU32, XdrWriter } from './generator/xdr-writer.js';
import {
  concatBytes,
  contractEventHead,
  networkIdOf,
  scvI128,
  scvSymbol,
  sha256,
  sha256Into,
  u32Bytes,
  writeContractEventRest,
  writeLedgerHeader,
  XDR,
} from './lcm-writer.js';

/** The passphrase of the synthetic network: tx hashes and SAC contract ids derive from it. */
export const SYNTHETIC_NETWORK_PASSPHRASE = 'Strata Synthetic Network ; 2026';

/**
 * The largest counts the generator accepts: beyond them a network would not fit in memory (or, for events, a ledger
 * would outgrow what readers accept), so they are refused up front instead of ending in an aborted process.
 */
export const GENERATOR_LIMITS = {
  /**
   * Mean events per ledger: a ledger's budget is up to 1.25 × this, and its LCM stays well below a data lake's
   * per-ledger allowance (MAX_BATCH_BYTES_PER_LEDGER).
   */
  maxEventsPerLedger: 50_000,
  /** Stellar Asset Contracts: each account with a trust line keeps one slot per contract. */
  maxContracts: 1_000,
  /** Accounts: the root account's balance funds exactly this many at their starting balance. */
  maxAccounts: 1_000_000,
  /** The oldest protocol whose meta the generator writes (LedgerCloseMeta v2, TransactionMeta v4). */
  minProtocolVersion: 23,
  /**
   * The newest ledger the generator writes. Sequences are uint32, but an event id (TOID) holds the ledger in 31
   * bits (stellar-rpc's int32), so the events of a later ledger would have no valid id.
   */
  maxLedger: 0x7fff_ffff,
} as const;

/**
 * What to generate. Every number is an integer; a missing, fractional, negative or out-of-range one (see each member
 * and GENERATOR_LIMITS) is INVALID_ARGUMENT with the option's name as `field`.
 */
export interface GeneratorOptions {
  /** Any string or finite number; the same options give the same bytes. Default 1. */
  seed?: string | number;
  /** Number of ledgers to generate (≥ 1); the last one, startLedger + ledgers - 1, is at most GENERATOR_LIMITS.maxLedger. */
  ledgers: number;
  /**
   * Mean number of contract events per ledger, 0 to GENERATOR_LIMITS.maxEventsPerLedger. Default 100. (The first
   * ledger, which creates the root account, has none.)
   */
  eventsPerLedger?: number;
  /** Stellar Asset Contracts, XLM included: 1 to GENERATOR_LIMITS.maxContracts. Default 20. */
  contracts?: number;
  /**
   * Accounts, 0 to GENERATOR_LIMITS.maxAccounts, raised to contracts + 1 (every credit asset needs an issuer).
   * Default 1000.
   */
  accounts?: number;
  /** Sequence of the first ledger, 1 to GENERATOR_LIMITS.maxLedger. Default 2 (the first ledger after genesis). */
  startLedger?: number;
  /** LedgerHeader.ledgerVersion, GENERATOR_LIMITS.minProtocolVersion to 2^32 - 1. Default 23. */
  protocolVersion?: number;
  /** Keep events and batches in each GeneratedLedger (default true); benchmarks turn it off. */
  record?: boolean;
  networkPassphrase?: string;
}

/**
 * One generated contract event: what extraction yields for it (ContractEventRecord) less the raw XDR. The generator
 * writes only system and contract events (never diagnostic ones).
 */
export type GeneratedEvent = Omit<ContractEventRecord, 'xdr' | 'type'> & { type: 'system' | 'contract' };

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

// ---- tuning: shares of operation kinds and sizes, chosen to resemble pubnet's SAC-dominated event mix ----

const SOROBAN_TX_SHARE = 0.3;
const FAILED_TX_SHARE = 0.03;
const REFUND_SHARE = 0.6;
const SYSTEM_EVENT_SHARE = 0.01;
const PERSISTENT_TTL = 500_000;
const TEMPORARY_TTL_MIN = 4;
const TEMPORARY_TTL_MAX = 24;
const MAX_EVICTIONS_PER_LEDGER = 1000;
const CLOSE_INTERVAL_SECONDS = 5;
const GENESIS_CLOSE_TIME = 1_750_000_000;
const ROOT_BALANCE = 1_000_000_000_000_000; // 100 M XLM: funds a million accounts
const STARTING_BALANCE = 1_000_000_000; // 100 XLM
const TRUSTLINE_LIMIT = 1_000_000_000_000_000;
const ZERO_HASH = new Uint8Array(32);
/** LedgerHeaderHistoryEntry { hash, header, ext }: 32 + 324 (fixed: no upgrades, ext v0) + 4 bytes. */
const HEADER_PLACEHOLDER = new Uint8Array(32 + 324 + 4);

const SYM_TRANSFER = scvSymbol('transfer');
const SYM_MINT = scvSymbol('mint');
const SYM_BURN = scvSymbol('burn');
const SYM_APPROVE = scvSymbol('approve');
const SYM_FEE = scvSymbol('fee');
const SYM_ALLOWANCE = scvSymbol('Allowance');
const SYM_AMOUNT = scvSymbol('amount');
const SYM_LIVE_UNTIL = scvSymbol('live_until_ledger');
const SYM_CORE_UPGRADE = scvSymbol('executable_update');
const FN_TRANSFER = new TextEncoder().encode('transfer');
const FN_APPROVE = new TextEncoder().encode('approve');
const SCV_VOID = u32Bytes(XDR.SCV_VOID);
/** Events with fewer topics than this get a cached head (writeEvent); CAP-67 events have at most four. */
const MAX_HEAD_TOPICS = 8;
/** The topics of no event (read only). */
const NO_TOPICS: Uint8Array[] = [];

/** A Soroban entry (contract data or code) with its TTL. */
interface SorobanEntry {
  /** LedgerKey XDR of the entry. */
  key: Uint8Array;
  /** LedgerKey XDR of its TTL entry. */
  ttlKey: Uint8Array;
  /** LedgerEntry XDR after lastModifiedLedgerSeq (type, body, ext): the entry is lastModified ++ body. */
  body: Uint8Array;
  lastModified: number;
  ttlLastModified: number;
  liveUntil: number;
  /** Position in `persistentEntries` (swap-remove), -1 for temporary entries. */
  slot: number;
  /** Allowance amount for allowance entries. */
  amount: number;
  durability: 'temporary' | 'persistent';
  /** Key of an allowance entry in `allowances`, -1 for other entries. */
  allowanceId: number;
  /** The SAC an allowance belongs to. */
  contract: ContractInfo | null;
}

/** A trust line. Its LedgerKey is built only when written out whole (removal) or recorded: see trustlineKey. */
interface TrustlineState {
  account: AccountState;
  contract: ContractInfo;
  balance: number;
  lastModified: number;
}

type OpPlan =
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

interface TxPlan {
  source: AccountState;
  ops: OpPlan[];
  soroban: boolean;
  failed: boolean;
  /** Fee charged up front (BeforeAllTxs). */
  fee: number;
  /** Refunded after all transactions (AfterAllTxs), 0 for none. */
  refund: number;
  systemEvent: boolean;
  hash: Uint8Array;
}

/** Counts the changes of one LedgerEntryChanges array and patches its length prefix at the end. */
class ChangeList {
  private countOffset = 0;
  count = 0;
  constructor(readonly w: XdrWriter) {}
  open(): void {
    this.countOffset = this.w.length;
    this.count = 0;
    this.w.u32(0);
  }
  close(): void {
    this.w.patchU32(this.countOffset, this.count);
  }
}

/**
 * Tracks each touched key's fate inside one ledger from the generator's own knowledge of what exists (independent
 * of the change types written), to record the expected batch.
 */
class NetEffect {
  private readonly fates = new Map<string, { key: Uint8Array; existed: boolean; current: Uint8Array | null }>();
  touch(key: Uint8Array, existedBefore: boolean, after: Uint8Array | null): void {
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    const fate = this.fates.get(id);
    if (fate === undefined) this.fates.set(id, { key, existed: existedBefore, current: after });
    else fate.current = after;
  }
  batch(): LedgerBatch {
    const batch: LedgerBatch = { init: [], live: [], dead: [] };
    const fates = [...this.fates.values()].sort((a, b) => compareLedgerKeys(a.key, b.key));
    for (const fate of fates) {
      if (fate.current !== null) (fate.existed ? batch.live : batch.init).push(fate.current);
      else if (fate.existed) batch.dead.push(fate.key);
    }
    return batch;
  }
}

/**
 * Generates `options.ledgers` ledgers lazily. The options are checked by this call (INVALID_ARGUMENT, before any
 * work); each call of the iterator builds one ledger. The state (accounts, trust lines, Soroban entries) lives in the
 * iterator, so two iterators with the same options are independent and yield identical bytes. Not safe to share one
 * iterator between concurrent consumers.
 */
export function generateNetwork(options: GeneratorOptions): Generator<GeneratedLedger, void, undefined> {
  return generateLedgers(resolveGeneratorOptions(options));
}

function* generateLedgers(options: Required<GeneratorOptions>): Generator<GeneratedLedger, void, undefined> {
  const network = new NetworkGenerator(options);
  for (let i = 0; i < options.ledgers; i++) yield network.nextLedger();
}

/**
 * The resolved options (defaults applied), e.g. for a CLI summary. Bad options are INVALID_ARGUMENT with the option's
 * name as `field` (see GeneratorOptions).
 */
export function resolveGeneratorOptions(options: GeneratorOptions): Required<GeneratorOptions> {
  const given = checkOptions(options, 'options');
  const { seed = 1, networkPassphrase = SYNTHETIC_NETWORK_PASSPHRASE } = given;
  if (typeof seed !== 'string' && !(typeof seed === 'number' && Number.isFinite(seed))) {
    throw invalidArgument('seed', 'a string or a finite number', seed);
  }
  if (typeof networkPassphrase !== 'string') throw invalidArgument('networkPassphrase', 'a string', networkPassphrase);
  const startLedger = optionalInteger(given.startLedger, 'startLedger', 1, GENERATOR_LIMITS.maxLedger, 2);
  const ledgers = checkInteger(given.ledgers, 'ledgers', 1, GENERATOR_LIMITS.maxLedger);
  if (startLedger + ledgers - 1 > GENERATOR_LIMITS.maxLedger) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.INVALID_ARGUMENT,
      `the last ledger, startLedger + ledgers - 1 = ${startLedger + ledgers - 1}, is past ${GENERATOR_LIMITS.maxLedger}` +
        ' (event ids hold the ledger in 31 bits)',
      { field: 'ledgers' },
    );
  }
  const contracts = optionalInteger(given.contracts, 'contracts', 1, GENERATOR_LIMITS.maxContracts, 20);
  const accounts = optionalInteger(given.accounts, 'accounts', 0, GENERATOR_LIMITS.maxAccounts, 1000);
  return {
    seed,
    ledgers,
    eventsPerLedger: optionalInteger(
      given.eventsPerLedger,
      'eventsPerLedger',
      0,
      GENERATOR_LIMITS.maxEventsPerLedger,
      100,
    ),
    contracts,
    accounts: Math.max(contracts + 1, accounts, 2),
    startLedger,
    protocolVersion: optionalInteger(
      given.protocolVersion,
      'protocolVersion',
      GENERATOR_LIMITS.minProtocolVersion,
      MAX_LEDGER_SEQUENCE,
      23,
    ),
    record: optionalBoolean(given.record, 'record', true),
    networkPassphrase,
  };
}

class NetworkGenerator {
  private readonly options: Required<GeneratorOptions>;
  private readonly prng: Prng;
  private readonly networkId: Uint8Array;
  private readonly accounts: AccountState[];
  private readonly contracts: ContractInfo[];
  private readonly accountZipf: ZipfSampler;
  private readonly contractZipf: ZipfSampler;
  /**
   * Trust lines by account index, then by contract index (null: none): two array loads per look-up, where a Map keyed
   * by account × contract (up to hundreds of thousands of lines) spent ~2 % of generation in its probes.
   */
  private readonly trustlines: Array<Array<TrustlineState | null> | null>;
  private readonly allowances = new Map<number, SorobanEntry>();
  private readonly persistentEntries: SorobanEntry[] = [];
  /** Temporary entries by liveUntil: evicted once liveUntil < the current ledger. */
  private readonly temporaryByExpiry = new Map<number, SorobanEntry[]>();
  private evictionCursor = 0;
  private createdAccounts = 0;
  private nonceCounter = 0;
  private sorobanStateBytes = 0;
  private sequence: number;
  private previousHash: Uint8Array;
  private closeTime = GENESIS_CLOSE_TIME;
  private feePool = 0;
  private idPool = 0;

  // Writers reused across ledgers (capacity grows once, then stays).
  private readonly txSet = new XdrWriter();
  private readonly results = new XdrWriter();
  private readonly feeChanges = new XdrWriter();
  private readonly applyMeta = new XdrWriter();
  private readonly postChanges = new XdrWriter();
  /** The hash preimage of the envelope being written: networkID ‖ ENVELOPE_TYPE_TX (kept), then the Transaction. */
  private readonly envelopePreimage = new XdrWriter(4096);
  private readonly tail = new XdrWriter();
  private readonly header = new XdrWriter(1024);
  private readonly out = new XdrWriter(256 * 1024);
  // One change list per writer, opened again for each list written there (lists in one writer never nest).
  private readonly feeList = new ChangeList(this.feeChanges);
  private readonly applyChanges = new ChangeList(this.applyMeta);
  private readonly postList = new ChangeList(this.postChanges);

  // Per-ledger recording (only when options.record).
  private net: NetEffect | null = null;
  private beforeEvents: GeneratedEvent[] = [];
  private opEvents: GeneratedEvent[] = [];
  private afterEvents: GeneratedEvent[] = [];
  private eventCount = 0;

  /** `options` as resolveGeneratorOptions returns them (checked). */
  constructor(options: Required<GeneratorOptions>) {
    this.options = options;
    this.prng = new Prng(this.options.seed);
    this.networkId = networkIdOf(this.options.networkPassphrase);
    this.accounts = makeAccounts(this.prng, this.options.accounts);
    this.contracts = makeContracts(this.options.contracts, this.accounts, this.networkId);
    // Accounts are mildly skewed (many active), contracts strongly (XLM and a few tokens dominate).
    this.accountZipf = new ZipfSampler(this.accounts.length, 0.8);
    this.contractZipf = new ZipfSampler(this.contracts.length, 1.2);
    this.trustlines = new Array<Array<TrustlineState | null> | null>(this.accounts.length).fill(null);
    this.sequence = this.options.startLedger;
    this.previousHash = sha256(new TextEncoder().encode(`strata-gen previous of ${this.options.startLedger}`));
    this.envelopePreimage.raw(this.networkId);
    this.envelopePreimage.u32(XDR.ENVELOPE_TYPE_TX);
    this.closeTime = GENESIS_CLOSE_TIME + this.options.startLedger * CLOSE_INTERVAL_SECONDS;
  }

  nextLedger(): GeneratedLedger {
    const ledger = this.sequence;
    const record = this.options.record;
    this.net = record ? new NetEffect() : null;
    this.beforeEvents = [];
    this.opEvents = [];
    this.afterEvents = [];
    this.eventCount = 0;
    this.afterCount = 0;
    for (const writer of [this.txSet, this.results, this.feeChanges, this.applyMeta, this.postChanges, this.tail]) {
      writer.reset();
    }

    // Plan transactions (and write their envelopes and results) until the event budget is spent.
    const plans = ledger === this.options.startLedger ? [] : this.planTransactions(ledger);
    this.results.u32(0); // TransactionResultSet count, patched once known
    const resultRanges: number[] = [4];
    const feeRanges: number[] = [0];
    const applyRanges: number[] = [0];
    const postRanges: number[] = [0];
    for (const plan of plans) {
      this.writeResult(plan);
      resultRanges.push(this.results.length);
    }
    // Apply order of stellar-core from protocol 23: every fee first, then each transaction, then every refund.
    for (let i = 0; i < plans.length; i++) {
      this.applyFee(plans[i] as TxPlan, ledger, i);
      feeRanges.push(this.feeChanges.length);
    }
    for (let i = 0; i < plans.length; i++) {
      this.applyTransaction(plans[i] as TxPlan, ledger, i + 1);
      applyRanges.push(this.applyMeta.length);
    }
    for (let i = 0; i < plans.length; i++) {
      this.applyRefund(plans[i] as TxPlan, ledger);
      postRanges.push(this.postChanges.length);
    }

    // Tail: upgradesProcessing (the first ledger creates the root account), scpInfo, Soroban state size, evictions.
    this.writeUpgrades(ledger);
    this.tail.u32(0);
    this.tail.i64(this.sorobanStateBytes);
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
      out.raw(this.txSet.bytes());
    }
    out.u32(1);
    out.u32(0);
    out.u32(0);
    const txSetHash = sha256(out.slice(txSetStart, out.length));
    out.u32(plans.length);
    for (let i = 0; i < plans.length; i++) {
      out.u32(0);
      out.raw(this.results.slice(resultRanges[i] as number, resultRanges[i + 1] as number));
      out.raw(this.feeChanges.slice(feeRanges[i] as number, feeRanges[i + 1] as number));
      out.raw(this.applyMeta.slice(applyRanges[i] as number, applyRanges[i + 1] as number));
      out.raw(this.postChanges.slice(postRanges[i] as number, postRanges[i + 1] as number));
    }
    out.raw(this.tail.bytes());

    this.closeTime += CLOSE_INTERVAL_SECONDS - 1 + this.prng.below(3);
    // TransactionResultSet { results<> } is what txSetResultHash covers: the count, then every result pair.
    this.results.patchU32(0, plans.length);
    const header = this.header;
    header.reset();
    writeLedgerHeader(header, {
      protocolVersion: this.options.protocolVersion,
      previousLedgerHash: this.previousHash,
      txSetHash,
      closeTime: this.closeTime,
      txSetResultHash: sha256(this.results.bytes()),
      bucketListHash: sha256(concatBytes([this.previousHash, u32Bytes(ledger)])),
      ledgerSeq: ledger,
      feePool: this.feePool,
      idPool: this.idPool,
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
      eventCount: this.eventCount,
      events: record ? [...this.beforeEvents, ...this.opEvents, ...this.afterEvents] : [],
      batch: this.net === null ? null : this.net.batch(),
    };
  }

  // ---- planning ----

  private pickAccount(limit: number): AccountState {
    return this.accounts[this.accountZipf.sample(this.prng, limit)] as AccountState;
  }

  private pickContract(): ContractInfo {
    return this.contracts[this.contractZipf.sample(this.prng)] as ContractInfo;
  }

  private planTransactions(ledger: number): TxPlan[] {
    const mean = this.options.eventsPerLedger;
    const budget = Math.round(mean * (0.75 + 0.5 * this.prng.next()));
    // Only accounts that existed when the ledger started may pay fees or receive (fees are charged first).
    const existing = this.createdAccounts;
    const plans: TxPlan[] = [];
    let planned = 0;
    while (planned < budget) {
      const plan =
        this.createdAccounts < this.accounts.length && (plans.length === 0 || this.prng.chance(0.1))
          ? this.planFunding(ledger, Math.max(1, Math.min(100, budget - planned - 1)))
          : this.planTransaction(ledger, existing);
      planned += this.countEvents(plan);
      plans.push(plan);
    }
    for (const plan of plans) this.writeEnvelope(plan);
    return plans;
  }

  private countEvents(plan: TxPlan): number {
    let events = 1 + (plan.refund > 0 ? 1 : 0);
    if (plan.failed) return events;
    for (const op of plan.ops) {
      if (op.kind === 'createAccount' || op.kind === 'payment' || op.kind === 'approve') events++;
      if (op.kind === 'removeAllowance') events++;
    }
    return events + (plan.systemEvent ? 1 : 0);
  }

  /** A transaction of up to `maxOps` CreateAccount operations from the root account. */
  private planFunding(ledger: number, maxOps: number): TxPlan {
    const source = this.accounts[0] as AccountState;
    const ops: OpPlan[] = [];
    const count = Math.min(maxOps, this.accounts.length - this.createdAccounts);
    for (let i = 0; i < count; i++) {
      const to = this.accounts[this.createdAccounts++] as AccountState;
      to.created = true;
      to.seqHi = ledger;
      ops.push({ kind: 'createAccount', from: source, to, amount: STARTING_BALANCE });
    }
    return this.classicPlan(source, ops, false);
  }

  private classicPlan(source: AccountState, ops: OpPlan[], failed: boolean): TxPlan {
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
      return this.classicPlan(source, [failedPayment], true);
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
    return this.classicPlan(source, ops, false);
  }

  /** A payment (transfer / mint / burn), or the trust line changes that make one possible. */
  private planClassicOp(source: AccountState, existing: number, soroban: boolean): OpPlan {
    const prng = this.prng;
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
    const sourceLine = this.trustline(source, contract);
    if (source.index !== contract.issuer && sourceLine === null) {
      return { kind: 'trustCreate', account: source, line: this.newTrustline(source, contract) };
    }
    if (sourceLine !== null && !soroban && prng.chance(0.02)) {
      this.setTrustline(source, contract, null);
      return { kind: 'trustRemove', account: source, line: sourceLine };
    }
    let toLine = to.index === contract.issuer ? null : this.trustline(to, contract);
    if (to.index !== contract.issuer && toLine === null) {
      // No trust line at the destination: pay the issuer instead (a burn), as redemptions do.
      to = this.accounts[contract.issuer] as AccountState;
      toLine = null;
    }
    return { kind: 'payment', from: source, to, contract, amount, fromLine: sourceLine, toLine, soroban };
  }

  private newTrustline(account: AccountState, contract: ContractInfo): TrustlineState {
    const line: TrustlineState = { account, contract, balance: 0, lastModified: 0 };
    this.setTrustline(account, contract, line);
    return line;
  }

  private trustline(account: AccountState, contract: ContractInfo): TrustlineState | null {
    return this.trustlines[account.index]?.[contract.index] ?? null;
  }

  private setTrustline(account: AccountState, contract: ContractInfo, line: TrustlineState | null): void {
    let lines = this.trustlines[account.index];
    if (lines === null || lines === undefined) {
      lines = new Array<TrustlineState | null>(this.contracts.length).fill(null);
      this.trustlines[account.index] = lines;
    }
    lines[contract.index] = line;
  }

  private planSorobanOp(ledger: number, source: AccountState, existing: number): OpPlan {
    const prng = this.prng;
    const roll = prng.next();
    if (roll < 0.005) return this.planUpload(ledger);
    if (roll < 0.05 && this.persistentEntries.length > 0) {
      const entry = this.persistentEntries[prng.below(this.persistentEntries.length)] as SorobanEntry;
      return { kind: 'extendTtl', entry, liveUntil: entry.liveUntil + prng.between(1000, 100_000) };
    }
    if (roll < 0.08 && this.persistentEntries.length > 0) {
      // Remove an allowance (entry and TTL go together); code entries are never removed.
      const entry = this.persistentEntries[prng.below(this.persistentEntries.length)] as SorobanEntry;
      if (entry.allowanceId >= 0 && entry.contract !== null) {
        this.allowances.delete(entry.allowanceId);
        this.dropPersistent(entry);
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
    const entry = this.newSorobanEntry(key, body.slice(), ledger + PERSISTENT_TTL, 'persistent');
    return { kind: 'upload', entry, code };
  }

  private planApprove(ledger: number, from: AccountState, existing: number): OpPlan {
    const prng = this.prng;
    const contract = this.pickContract();
    const spender = this.pickAccount(existing);
    const amount = prng.between(0, 1_000_000) * 100;
    const n = this.accounts.length;
    const id = (contract.index * n + from.index) * n + spender.index;
    let entry = this.allowances.get(id);
    const created = entry === undefined;
    if (entry === undefined) {
      // SAC allowance key: vec[sym "Allowance", map{from, spender}] is the real layout; a flat vec keeps it short.
      const f = this.fragment();
      f.u32(6); // CONTRACT_DATA
      f.raw(contract.scAddress);
      f.u32(XDR.SCV_VEC);
      f.u32(1);
      f.u32(3);
      f.raw(SYM_ALLOWANCE);
      f.raw(from.address);
      f.raw(spender.address);
      f.u32(1); // PERSISTENT
      const key = f.copy(this.stateSlab);
      entry = this.newSorobanEntry(key, new Uint8Array(0), ledger + PERSISTENT_TTL, 'persistent');
      entry.allowanceId = id;
      entry.contract = contract;
      this.allowances.set(id, entry);
    }
    entry.amount = amount;
    // Authorization consumes a nonce: a TEMPORARY entry owned by the signer, evicted once its TTL lapses.
    const f = this.fragment();
    f.u32(6); // CONTRACT_DATA
    f.u32(XDR.SC_ADDRESS_ACCOUNT);
    f.raw(from.accountId);
    f.u32(XDR.SCV_LEDGER_KEY_NONCE);
    f.i64(++this.nonceCounter);
    f.u32(0); // TEMPORARY
    const nonceKey = f.copy();
    const nonce = this.newSorobanEntry(
      nonceKey,
      this.contractDataBody(nonceKey, SCV_VOID, this.temporarySlab),
      ledger + prng.between(TEMPORARY_TTL_MIN, TEMPORARY_TTL_MAX),
      'temporary',
    );
    return { kind: 'approve', from, spender, contract, amount, entry, created, nonce };
  }

  private newSorobanEntry(
    key: Uint8Array,
    body: Uint8Array,
    liveUntil: number,
    durability: 'temporary' | 'persistent',
  ): SorobanEntry {
    const entry: SorobanEntry = {
      key,
      ttlKey: ttlKeyOf(key),
      body,
      lastModified: 0,
      ttlLastModified: 0,
      liveUntil,
      slot: -1,
      amount: -1,
      durability,
      allowanceId: -1,
      contract: null,
    };
    if (durability === 'persistent') {
      entry.slot = this.persistentEntries.length;
      this.persistentEntries.push(entry);
    } else {
      const bucket = this.temporaryByExpiry.get(liveUntil);
      if (bucket === undefined) this.temporaryByExpiry.set(liveUntil, [entry]);
      else bucket.push(entry);
    }
    return entry;
  }

  private dropPersistent(entry: SorobanEntry): void {
    const last = this.persistentEntries.pop() as SorobanEntry;
    if (last !== entry) {
      this.persistentEntries[entry.slot] = last;
      last.slot = entry.slot;
    }
    entry.slot = -1;
  }

  private readonly fragmentWriter = new XdrWriter(1024);
  /**
   * Where the fragments of Soroban entries are kept (see ByteSlab), one slab per lifetime so that short-lived copies
   * do not hold blocks of long-lived ones: allowances (keys and bodies, updated in place) live until removed, which
   * is rare; nonces are TEMPORARY and evicted within TEMPORARY_TTL_MAX ledgers.
   */
  private readonly stateSlab = new ByteSlab();
  private readonly temporarySlab = new ByteSlab();
  /**
   * Event heads (contractEventHead) by first topic, one of a few symbol constants; each an array indexed by contract,
   * topic count (below MAX_HEAD_TOPICS) and type (see writeEvent).
   */
  private readonly eventHeads = new Map<Uint8Array | null, Array<Uint8Array | undefined>>();

  /**
   * A ContractEvent of `contract`: its head, encoded once per contract and kind of event, then the other topics and
   * the data (two writes fewer per event than the fixed prefix, the count and the symbol one by one).
   */
  private writeEvent(
    w: XdrWriter,
    type: number,
    contract: ContractInfo,
    topics: readonly Uint8Array[],
    value: Uint8Array | number,
  ): void {
    const first = topics.length === 0 ? null : (topics[0] as Uint8Array);
    let heads = this.eventHeads.get(first);
    if (heads === undefined) {
      // Filled with undefined to its full size up front, so that V8 keeps it a plain array however it is filled.
      heads = new Array<Uint8Array | undefined>(this.contracts.length * MAX_HEAD_TOPICS * 2).fill(undefined);
      this.eventHeads.set(first, heads);
    }
    const slot =
      (contract.index * MAX_HEAD_TOPICS + topics.length) * 2 + (type === XDR.CONTRACT_EVENT_CONTRACT ? 0 : 1);
    let head = topics.length < MAX_HEAD_TOPICS ? heads[slot] : undefined;
    if (head === undefined) {
      head = contractEventHead(type, contract.contractId, topics.length, first);
      if (topics.length < MAX_HEAD_TOPICS) heads[slot] = head;
    }
    w.raw(head);
    writeContractEventRest(w, topics, value);
  }

  /** The shared scratch writer for small fragments, emptied; callers copy() what they keep. */
  private fragment(): XdrWriter {
    this.fragmentWriter.reset();
    return this.fragmentWriter;
  }

  /**
   * LedgerEntry bytes after lastModifiedLedgerSeq for contract data: type, ext, the key's fields, value, ext; copied
   * into `slab`, which must be the one for the entry's lifetime.
   */
  private contractDataBody(key: Uint8Array, val: Uint8Array, slab: ByteSlab): Uint8Array {
    const f = this.fragment();
    f.u32(6);
    f.u32(0);
    f.raw(key.subarray(4));
    f.raw(val);
    f.u32(0);
    return f.copy(slab);
  }

  /**
   * The LedgerEntry bytes after lastModifiedLedgerSeq of an allowance: contractDataBody with the value
   * map{amount: i128, live_until_ledger: u32}. Its length depends only on the key, so an update writes it over `into`,
   * the entry's current body (already written out as the STATE before it), instead of allocating: bodies are over
   * the 64 bytes up to which V8 allocates a typed array inline, and a larger one costs about ten times more.
   */
  private allowanceBody(key: Uint8Array, amount: number, liveUntil: number, into: Uint8Array | null): Uint8Array {
    const f = this.fragment();
    f.u32(6); // CONTRACT_DATA
    f.u32(0); // ContractDataEntry.ext
    f.raw(key.subarray(4));
    f.u32(XDR.SCV_MAP);
    f.u32(1);
    f.u32(2);
    f.raw(SYM_AMOUNT);
    f.u32(XDR.SCV_I128);
    f.i128(amount);
    f.raw(SYM_LIVE_UNTIL);
    f.u32(XDR.SCV_U32);
    f.u32(liveUntil);
    f.u32(0); // LedgerEntry.ext
    if (into === null || into.length !== f.length) return f.copy(this.stateSlab);
    into.set(f.bytes());
    return into;
  }

  /** The SAC approve event's data: vec[i128 amount, u32 live_until_ledger]. */
  private approvalValue(amount: number, liveUntil: number): Uint8Array {
    const f = this.fragment();
    f.u32(XDR.SCV_VEC);
    f.u32(1);
    f.u32(2);
    f.u32(XDR.SCV_I128);
    f.i128(amount);
    f.u32(XDR.SCV_U32);
    f.u32(liveUntil);
    return f.copy();
  }

  // ---- envelopes and results ----

  private writeEnvelope(plan: TxPlan): void {
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
          if (op.soroban) this.writeInvoke(tx, op.contract, FN_TRANSFER);
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
          this.writeInvoke(tx, op.contract, FN_APPROVE);
          break;
        case 'removeAllowance':
          this.writeInvoke(tx, op.contract, FN_APPROVE);
          break;
        case 'extendTtl':
          tx.u32(XDR.OP_EXTEND_FOOTPRINT_TTL);
          tx.u32(0);
          tx.u32(op.liveUntil - this.sequence);
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

  /** InvokeHostFunctionOp { HostFunction INVOKE_CONTRACT { contract, function, args<> }, auth<> }. */
  private writeInvoke(tx: XdrWriter, contract: ContractInfo, functionName: Uint8Array): void {
    tx.u32(XDR.OP_INVOKE_HOST_FUNCTION);
    tx.u32(XDR.HOST_FUNCTION_INVOKE_CONTRACT);
    tx.raw(contract.scAddress);
    tx.opaque(functionName);
    tx.u32(0);
    tx.u32(0);
  }

  private writeResult(plan: TxPlan): void {
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
          if (op.soroban) this.writeInvokeSuccess(w, plan.hash);
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
          this.writeInvokeSuccess(w, plan.hash);
      }
    }
    w.u32(0); // TransactionResult.ext v0
  }

  private writeInvokeSuccess(w: XdrWriter, txHash: Uint8Array): void {
    w.u32(XDR.OP_INVOKE_HOST_FUNCTION);
    w.u32(0);
    w.raw(txHash); // stands in for the hash of InvokeHostFunctionSuccessPreImage
  }

  // ---- applying: fees, operations, refunds ----

  private applyFee(plan: TxPlan, ledger: number, position: number): void {
    const list = this.feeList;
    list.open();
    this.updateAccount(list, plan.source, ledger, -plan.fee, 0, 0);
    list.close();
    this.feePool += plan.fee;
    this.recordEvent(
      'beforeAllTxs',
      ledger,
      0,
      0,
      position,
      XDR.CONTRACT_EVENT_CONTRACT,
      this.contracts[0] as ContractInfo,
      [SYM_FEE, plan.source.address],
      plan.fee,
      plan,
    );
  }

  private applyRefund(plan: TxPlan, ledger: number): void {
    const list = this.postList;
    list.open();
    if (plan.refund > 0) {
      this.updateAccount(list, plan.source, ledger, plan.refund, 0, 0);
      this.feePool -= plan.refund;
      this.recordEvent(
        'afterAllTxs',
        ledger,
        AFTER_ALL_TXS_TRANSACTION,
        0,
        this.afterCount++,
        XDR.CONTRACT_EVENT_CONTRACT,
        this.contracts[0] as ContractInfo,
        [SYM_FEE, plan.source.address],
        -plan.refund,
        plan,
      );
    }
    list.close();
  }

  private afterCount = 0;

  private applyTransaction(plan: TxPlan, ledger: number, txIndex: number): void {
    const w = this.applyMeta;
    w.u32(4); // TransactionMeta v4
    w.u32(0); // ext
    const before = this.applyChanges;
    before.open();
    this.updateAccount(before, plan.source, ledger, 0, 1, 0); // the sequence number bump
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
    this.writeEvent(
      w,
      XDR.CONTRACT_EVENT_CONTRACT,
      this.contracts[0] as ContractInfo,
      [SYM_FEE, plan.source.address],
      plan.fee,
    );
    if (plan.refund > 0) {
      w.u32(XDR.STAGE_AFTER_ALL_TXS);
      this.writeEvent(
        w,
        XDR.CONTRACT_EVENT_CONTRACT,
        this.contracts[0] as ContractInfo,
        [SYM_FEE, plan.source.address],
        -plan.refund,
      );
    }
    w.u32(0); // diagnosticEvents
  }

  private applyOperation(plan: TxPlan, op: OpPlan, ledger: number, txIndex: number, opIndex: number): void {
    const w = this.applyMeta;
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
        this.updateAccount(changes, op.from, ledger, -op.amount, 0, 0);
        const to = op.to;
        to.balance = op.amount;
        to.seqLo = 0;
        to.plannedSeqLo = 0;
        to.lastModified = ledger;
        this.createdAccount(changes, to);
        eventContract = this.contracts[0] as ContractInfo;
        eventTopics = [SYM_TRANSFER, op.from.address, to.address, eventContract.assetName];
        eventValue = op.amount;
        break;
      }
      case 'payment': {
        const { from, to, contract } = op;
        const amount = op.amount;
        if (contract.issuer < 0) {
          this.updateAccount(changes, from, ledger, -amount, 0, 0);
          if (to !== from) this.updateAccount(changes, to, ledger, amount, 0, 0);
        } else {
          if (op.fromLine !== null) this.updateTrustline(changes, op.fromLine, ledger, -amount);
          if (op.toLine !== null && op.toLine !== op.fromLine) this.updateTrustline(changes, op.toLine, ledger, amount);
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
        this.updateAccount(changes, op.account, ledger, 0, 0, 1);
        op.line.lastModified = ledger;
        this.createdTrustline(changes, op.line);
        break;
      }
      case 'trustRemove': {
        this.updateAccount(changes, op.account, ledger, 0, 0, -1);
        this.removedTrustline(changes, op.line);
        break;
      }
      case 'approve': {
        const entry = op.entry;
        if (op.created) {
          entry.body = this.allowanceBody(entry.key, op.amount, ledger + 1000, null);
          entry.lastModified = ledger;
          entry.ttlLastModified = ledger;
          this.sorobanStateBytes += entry.body.length + 4;
          this.createdSorobanEntry(changes, entry);
        } else {
          // STATE with the body as it was, then the new body written over it (same length: see allowanceBody).
          w.u32(XDR.CHANGE_STATE);
          this.writeSorobanEntry(w, entry);
          entry.body = this.allowanceBody(entry.key, op.amount, ledger + 1000, entry.body);
          entry.lastModified = ledger;
          w.u32(XDR.CHANGE_UPDATED);
          const start = w.length;
          this.writeSorobanEntry(w, entry);
          changes.count += 2;
          this.net?.touch(entry.key, true, w.slice(start, w.length).slice());
        }
        const nonce = op.nonce;
        nonce.lastModified = ledger;
        nonce.ttlLastModified = ledger;
        this.createdSorobanEntry(changes, nonce);
        eventContract = op.contract;
        eventTopics = [SYM_APPROVE, op.from.address, op.spender.address, op.contract.assetName];
        eventValue = this.approvalValue(op.amount, ledger + 1000);
        break;
      }
      case 'removeAllowance': {
        const entry = op.entry;
        this.sorobanStateBytes -= entry.body.length + 4;
        this.removedSorobanEntry(changes, entry);
        // The key's vec holds [sym, from, spender] after the contract address; reuse those fragments as topics.
        const keyVal = entry.key.subarray(4 + 36);
        const from = keyVal.subarray(12 + SYM_ALLOWANCE.length, 12 + SYM_ALLOWANCE.length + 44);
        const spender = keyVal.subarray(12 + SYM_ALLOWANCE.length + 44, 12 + SYM_ALLOWANCE.length + 88);
        eventContract = op.contract;
        eventTopics = [SYM_APPROVE, from, spender, op.contract.assetName];
        eventValue = this.approvalValue(0, ledger);
        break;
      }
      case 'extendTtl': {
        const entry = op.entry;
        w.u32(XDR.CHANGE_STATE);
        this.writeTtlEntry(w, entry);
        entry.liveUntil = op.liveUntil;
        entry.ttlLastModified = ledger;
        w.u32(XDR.CHANGE_UPDATED);
        const start = w.length;
        this.writeTtlEntry(w, entry);
        changes.count += 2;
        this.net?.touch(entry.ttlKey, true, w.slice(start, w.length).slice());
        break;
      }
      case 'upload': {
        const entry = op.entry;
        entry.lastModified = ledger;
        entry.ttlLastModified = ledger;
        this.sorobanStateBytes += entry.body.length + 4;
        this.createdSorobanEntry(changes, entry);
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
      this.writeEvent(w, type, eventContract, eventTopics, eventValue);
      this.recordEvent(
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
      const contract =
        op.kind === 'approve' || op.kind === 'payment' ? op.contract : (this.contracts[0] as ContractInfo);
      const topics = [SYM_CORE_UPGRADE];
      this.writeEvent(w, XDR.CONTRACT_EVENT_SYSTEM, contract, topics, SCV_VOID);
      this.recordEvent(
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

  private recordEvent(
    stage: ContractEventStage,
    ledger: number,
    tx: number,
    op: number,
    eventIndex: number,
    type: number,
    contract: ContractInfo,
    topics: Uint8Array[],
    value: Uint8Array | number,
    plan: TxPlan,
  ): void {
    this.eventCount++;
    if (!this.options.record) return;
    const event: GeneratedEvent = {
      id: eventId(ledger, tx, op, eventIndex),
      ledger,
      tx,
      op,
      eventIndex,
      stage,
      type: type === XDR.CONTRACT_EVENT_SYSTEM ? 'system' : 'contract',
      contractId: contract.contractId,
      topics,
      value: typeof value === 'number' ? scvI128(value) : value,
      txHash: plan.hash,
      inSuccessfulContractCall: !plan.failed,
    };
    if (stage === 'beforeAllTxs') this.beforeEvents.push(event);
    else if (stage === 'afterAllTxs') this.afterEvents.push(event);
    else this.opEvents.push(event);
  }

  // ---- entry changes ----

  /** STATE then UPDATED of an account whose balance, sequence or sub-entry count moves (no closures: hot path). */
  private updateAccount(
    list: ChangeList,
    account: AccountState,
    ledger: number,
    balanceDelta: number,
    seqDelta: number,
    subEntryDelta: number,
  ): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    this.writeAccountEntry(w, account);
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    account.balance += balanceDelta;
    account.seqLo += seqDelta;
    account.numSubEntries += subEntryDelta;
    account.lastModified = ledger;
    this.writeAccountEntry(w, account);
    list.count += 2;
    this.net?.touch(account.key, true, w.slice(start, w.length).slice());
  }

  private updateTrustline(list: ChangeList, line: TrustlineState, ledger: number, balanceDelta: number): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    this.writeTrustlineEntry(w, line);
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    line.balance += balanceDelta;
    line.lastModified = ledger;
    this.writeTrustlineEntry(w, line);
    list.count += 2;
    this.net?.touch(trustlineKey(line), true, w.slice(start, w.length).slice());
  }

  // The writers of the other changes below are spelled out per entry kind rather than taking closures that write
  // the entry: they run for most operations, and a closure per change was an allocation and a megamorphic call.

  /** CREATED of an account (its entry as it is now). */
  private createdAccount(list: ChangeList, account: AccountState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    const start = w.length;
    this.writeAccountEntry(w, account);
    list.count++;
    this.net?.touch(account.key, false, w.slice(start, w.length).slice());
  }

  private createdTrustline(list: ChangeList, line: TrustlineState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    const start = w.length;
    this.writeTrustlineEntry(w, line);
    list.count++;
    this.net?.touch(trustlineKey(line), false, w.slice(start, w.length).slice());
  }

  /** STATE, then REMOVED with the LedgerKey TRUSTLINE { accountID, asset } (an ALPHANUM4 TrustLineAsset is the Asset). */
  private removedTrustline(list: ChangeList, line: TrustlineState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    this.writeTrustlineEntry(w, line);
    w.u32(XDR.CHANGE_REMOVED);
    w.u32(1); // TRUSTLINE
    w.raw(line.account.accountId);
    w.raw(line.contract.asset);
    list.count += 2;
    this.net?.touch(trustlineKey(line), true, null);
  }

  /** CREATED of a Soroban entry, then of its TTL entry (they are always created together). */
  private createdSorobanEntry(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    let start = w.length;
    this.writeSorobanEntry(w, entry);
    this.net?.touch(entry.key, false, w.slice(start, w.length).slice());
    w.u32(XDR.CHANGE_CREATED);
    start = w.length;
    this.writeTtlEntry(w, entry);
    this.net?.touch(entry.ttlKey, false, w.slice(start, w.length).slice());
    list.count += 2;
  }

  /** STATE and REMOVED of a Soroban entry, then of its TTL entry. */
  private removedSorobanEntry(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    this.writeSorobanEntry(w, entry);
    w.u32(XDR.CHANGE_REMOVED);
    w.raw(entry.key);
    this.net?.touch(entry.key, true, null);
    w.u32(XDR.CHANGE_STATE);
    this.writeTtlEntry(w, entry);
    w.u32(XDR.CHANGE_REMOVED);
    w.raw(entry.ttlKey);
    this.net?.touch(entry.ttlKey, true, null);
    list.count += 4;
  }

  /** LedgerEntry ACCOUNT with no signers, home domain or extensions: the account's entry with its moving fields. */
  private writeAccountEntry(w: XdrWriter, account: AccountState): void {
    const entry = account.entry;
    setU32(entry, ACCOUNT_ENTRY_LAYOUT.lastModified, account.lastModified);
    setI64(entry, ACCOUNT_ENTRY_LAYOUT.balance, account.balance);
    setU32(entry, ACCOUNT_ENTRY_LAYOUT.seqHi, account.seqHi);
    setU32(entry, ACCOUNT_ENTRY_LAYOUT.seqLo, account.seqLo);
    setU32(entry, ACCOUNT_ENTRY_LAYOUT.numSubEntries, account.numSubEntries);
    w.raw(entry);
  }

  /** LedgerEntry TRUSTLINE, authorized, ext v0. */
  private writeTrustlineEntry(w: XdrWriter, line: TrustlineState): void {
    w.u32(line.lastModified);
    w.u32(1);
    w.raw(line.account.accountId);
    w.raw(line.contract.asset);
    w.i64(line.balance);
    w.i64(TRUSTLINE_LIMIT);
    w.u32(1); // AUTHORIZED_FLAG
    w.u32(0);
    w.u32(0);
  }

  private writeSorobanEntry(w: XdrWriter, entry: SorobanEntry): void {
    w.u32(entry.lastModified);
    w.raw(entry.body);
  }

  /** LedgerEntry TTL { keyHash, liveUntilLedgerSeq }: the TTL key's bytes after its type are the key hash. */
  private writeTtlEntry(w: XdrWriter, entry: SorobanEntry): void {
    w.u32(entry.ttlLastModified);
    w.raw(entry.ttlKey);
    w.u32(entry.liveUntil);
    w.u32(0);
  }

  // ---- ledger tail ----

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
    const root = this.accounts[0] as AccountState;
    root.created = true;
    root.balance = ROOT_BALANCE;
    root.seqHi = ledger;
    root.lastModified = ledger;
    this.createdAccounts = 1;
    const list = new ChangeList(w);
    list.open();
    this.createdAccount(list, root);
    list.close();
  }

  /**
   * Evicts temporary entries whose TTL lapsed (liveUntil < ledger): the entry key and its TTL key go into
   * evictedKeys, both become dead in this ledger's batch (spec ledger-keys-and-buckets.md §8).
   */
  private writeEvictions(ledger: number): void {
    const w = this.tail;
    const countOffset = w.length;
    w.u32(0);
    let evicted = 0;
    if (this.evictionCursor === 0) this.evictionCursor = ledger;
    while (this.evictionCursor < ledger && evicted < MAX_EVICTIONS_PER_LEDGER) {
      const bucket = this.temporaryByExpiry.get(this.evictionCursor);
      if (bucket === undefined || bucket.length === 0) {
        this.temporaryByExpiry.delete(this.evictionCursor);
        this.evictionCursor++;
        continue;
      }
      const entry = bucket.pop() as SorobanEntry;
      w.raw(entry.key);
      w.raw(entry.ttlKey);
      this.net?.touch(entry.key, true, null);
      this.net?.touch(entry.ttlKey, true, null);
      evicted++;
    }
    w.patchU32(countOffset, evicted * 2);
  }
}

/**
 * LedgerKey TRUSTLINE { accountID, TrustLineAsset } of a line (an ALPHANUM4 TrustLineAsset has the Asset layout),
 * built when asked for rather than kept per line: at 80 bytes it is over the 64 up to which V8 allocates a typed array
 * inline, and a larger one costs about ten times more, which made building it per created line ~4 % of generation.
 */
function trustlineKey(line: TrustlineState): Uint8Array {
  const accountId = line.account.accountId;
  const asset = line.contract.asset;
  const key = new Uint8Array(4 + accountId.length + asset.length);
  key[3] = 1; // TRUSTLINE
  key.set(accountId, 4);
  key.set(asset, 4 + accountId.length);
  return key;
}

/**
 * The TTL LedgerKey of a CONTRACT_DATA / CONTRACT_CODE key the generator built: `{TTL, SHA-256(key)}`, the bytes
 * @strata/ledger-key's ttlKeyOf gives, with one one-shot hash instead of a validation pass and a Hash object.
 */
function ttlKeyOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(36);
  out[3] = 9; // TTL
  sha256Into(key, out, 4);
  return out;
}
