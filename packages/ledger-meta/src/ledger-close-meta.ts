// One pass over one LedgerCloseMeta (v0, v1, v2): the header, the contract events with their coordinates, and the
// entry changes folded into the ledger's bucket batch. The paths it needs are walked by hand; everything else is
// validated and skipped by the schema walker, so a record either extracts completely or throws LedgerMetaError.
import { type LedgerEntryView, readLedgerEntry, readLedgerKey, readScVal } from '@strata/ledger-key';
import {
  type FoldOptions,
  LEDGER_ENTRY_CHANGE,
  type LedgerBatch,
  LedgerChangeFold,
  type LedgerEntryChangeKind,
} from './change-fold.js';
import { fail, fromLedgerKeyError, LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import {
  AFTER_ALL_TXS_TRANSACTION,
  AFTER_TX_OPERATION,
  type ContractEventRecord,
  type ContractEventStage,
  TRANSACTION_EVENT_STAGE,
  toidString,
} from './events.js';
import { annotate, readI32, readU32, skipperFor, skipXdr } from './xdr-walker.js';

const { TRUNCATED, BAD_DISCRIMINANT, BAD_BOOL, TRAILING_BYTES } = LedgerMetaErrorCode;

/** LedgerCloseMeta versions: 0 = classic TransactionSet; 1 = GeneralizedTransactionSet, evictions (protocol 20);
 * 2 = TransactionResultMetaV1 with post-apply fee changes (protocol 23). */
export const LEDGER_CLOSE_META_VERSIONS = [0, 1, 2] as const;

/** The header fields of a ledger that the stores and tools use. */
export interface LedgerHeaderInfo {
  /** LedgerCloseMeta union arm: 0, 1 or 2. */
  lcmVersion: number;
  ledgerSeq: number;
  /** StellarValue.closeTime: unix seconds (uint64, exact as a bigint). */
  closeTime: bigint;
  /** LedgerHeader.ledgerVersion. */
  protocolVersion: number;
  /** LedgerHeaderHistoryEntry.hash (32 bytes). */
  ledgerHash: Uint8Array;
  previousLedgerHash: Uint8Array;
  txSetHash: Uint8Array;
  txSetResultHash: Uint8Array;
  bucketListHash: Uint8Array;
  totalCoins: bigint;
  feePool: bigint;
  baseFee: number;
  baseReserve: number;
  maxTxSetSize: number;
  /** Entries of txProcessing (applied transactions). */
  txCount: number;
  /** LCM v1/v2 totalByteSizeOfLiveSorobanState; null for v0. */
  totalByteSizeOfLiveSorobanState: bigint | null;
}

/** Everything extracted from one ledger. Byte members are subarrays of the LedgerCloseMeta bytes (zero-copy). */
export interface LedgerExtract {
  header: LedgerHeaderInfo;
  /** Contract events in emission order = id order (spec §2.2). Diagnostic events are not included. */
  events: ContractEventRecord[];
  /** The ledger's bucket batch: net effect per key over the whole ledger. */
  changes: LedgerBatch;
}

/** Where a LedgerCloseMeta came from, to put into errors (offset = where its bytes start in the file or buffer). */
export interface RecordLocation {
  file?: string | undefined;
  record?: number | undefined;
  offset?: number | undefined;
}

/**
 * Extracts header, events and entry changes from the XDR of one LedgerCloseMeta, which must fill `lcm` exactly. The
 * whole value is validated. Synchronous and stateless: call it from any thread or worker. Throws LedgerMetaError
 * with the offset inside `lcm` shifted by `location.offset`, the XDR path, and `location`'s file and record.
 * `options.wasLive` resolves restores of expired-but-not-evicted entries (see LedgerChangeFold).
 */
export function extractLedger(lcm: Uint8Array, location?: RecordLocation, options: FoldOptions = {}): LedgerExtract {
  try {
    return new LedgerExtractor(lcm, options).run();
  } catch (error) {
    throw locateError(error, location);
  }
}

/** Validates one LedgerCloseMeta filling `lcm` with the schema walker alone (no extraction). */
export function validateLedgerCloseMeta(lcm: Uint8Array, location?: RecordLocation): void {
  try {
    const end = skipXdr('LedgerCloseMeta', lcm, 0);
    if (end !== lcm.length) fail(TRAILING_BYTES, end, 'LedgerCloseMeta', `${lcm.length - end} bytes after the value`);
  } catch (error) {
    throw locateError(error, location);
  }
}

/** Reads only the ledger sequence (validates the bytes up to it). */
export function readLedgerSequence(lcm: Uint8Array, location?: RecordLocation): number {
  try {
    const version = readVersion(lcm);
    let p = 4;
    if (version >= 1) p = skipperFor('LedgerCloseMetaExt')(lcm, p, 1);
    // hash, ledgerVersion, previousLedgerHash, then the variable-length StellarValue; ledgerSeq is 64 bytes after it.
    const stellarValueEnd = skipperFor('StellarValue')(lcm, p + 68, 3);
    return readU32(lcm, stellarValueEnd + 64);
  } catch (error) {
    throw locateError(error, location);
  }
}

function locateError(error: unknown, location: RecordLocation | undefined): unknown {
  if (!(error instanceof LedgerMetaError)) return error;
  if (error.field === undefined || !error.field.startsWith('LedgerCloseMeta')) {
    error.locate({ fieldPrefix: 'LedgerCloseMeta' });
  }
  if (location === undefined) return error;
  return error.locate({
    ...(location.offset === undefined ? {} : { offsetShift: location.offset }),
    ...(location.file === undefined ? {} : { file: location.file }),
    ...(location.record === undefined ? {} : { record: location.record }),
  });
}

function readVersion(b: Uint8Array): number {
  const version = readI32(b, 0);
  if (version < 0 || version > 2) fail(BAD_DISCRIMINANT, 0, 'v', `unknown LedgerCloseMeta version ${version}`);
  return version;
}

function readU64(b: Uint8Array, p: number): bigint {
  return (BigInt(readU32(b, p)) << 32n) | BigInt(readU32(b, p + 4));
}

function readI64(b: Uint8Array, p: number): bigint {
  return BigInt.asIntN(64, readU64(b, p));
}

/**
 * The changes of one phase of the ledger, in order, before folding (phases are folded in application order). Each
 * change is kept as its key's type and field range, so no LedgerKey is built per change (see LedgerChangeFold).
 */
class ChangeLog {
  readonly kinds: LedgerEntryChangeKind[] = [];
  readonly types: number[] = [];
  readonly srcs: Uint8Array[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly keys: (Uint8Array | null)[] = [];
  readonly entries: (Uint8Array | null)[] = [];

  push(
    kind: LedgerEntryChangeKind,
    type: number,
    src: Uint8Array,
    start: number,
    end: number,
    key: Uint8Array | null,
    entry: Uint8Array | null,
  ): void {
    this.kinds.push(kind);
    this.types.push(type);
    this.srcs.push(src);
    this.starts.push(start);
    this.ends.push(end);
    this.keys.push(key);
    this.entries.push(entry);
  }

  foldInto(fold: LedgerChangeFold): void {
    const { kinds, types, srcs, starts, ends, keys, entries } = this;
    for (let i = 0; i < kinds.length; i++) {
      // `!` is safe: the arrays grow together
      fold.observeFields(kinds[i]!, types[i]!, srcs[i]!, starts[i]!, ends[i]!, keys[i]!, entries[i]!);
    }
  }
}

/** Where changes go: straight into the fold (phases read in fold order) or a log folded later. */
type ChangeSink = LedgerChangeFold | ChangeLog;

/** End of the key fields found by the last entryKeyStart call (a module variable: no object per change). */
let keyFieldsEnd = 0;

/**
 * Start of the key fields of a LedgerEntry validated by readLedgerEntry, relative to `view.xdr`; the end is left in
 * keyFieldsEnd. The fields follow the type at offset 8, except after the ext of CONTRACT_DATA / CONTRACT_CODE, whose
 * key ends where their val / code length begins.
 */
function entryKeyStart(view: LedgerEntryView): number {
  const x = view.xdr;
  switch (view.type) {
    case 0: // ACCOUNT: AccountID
      keyFieldsEnd = 44;
      return 8;
    case 1: {
      // TRUSTLINE: AccountID, TrustLineAsset (native | alphanum4 | alphanum12 | pool share)
      const assetType = readU32(x, 44);
      keyFieldsEnd = 48 + (assetType === 0 ? 0 : assetType === 1 ? 40 : assetType === 2 ? 48 : 32);
      return 8;
    }
    case 2: // OFFER: sellerID, offerID
      keyFieldsEnd = 52;
      return 8;
    case 3: // DATA: AccountID, string64 dataName
      keyFieldsEnd = 48 + ((readU32(x, 44) + 3) & ~3);
      return 8;
    case 4: // CLAIMABLE_BALANCE: ClaimableBalanceID (type + hash)
      keyFieldsEnd = 44;
      return 8;
    case 5: // LIQUIDITY_POOL: PoolID
      keyFieldsEnd = 40;
      return 8;
    case 6: // CONTRACT_DATA: ext (ExtensionPoint v0), then contract, key, durability; val follows
      keyFieldsEnd = view.val().xdr.byteOffset - x.byteOffset;
      return 12;
    case 7: // CONTRACT_CODE: ext (v0 or v1), then hash; the code's length follows
      keyFieldsEnd = view.code().byteOffset - x.byteOffset - 4;
      return keyFieldsEnd - 32;
    case 8: // CONFIG_SETTING: ConfigSettingID
      keyFieldsEnd = 12;
      return 8;
    default: // TTL: keyHash
      keyFieldsEnd = 40;
      return 8;
  }
}

/** Per-transaction state while its meta is read. */
interface TxContext {
  /** 1-based apply order. */
  index: number;
  hash: Uint8Array;
  successful: boolean;
  /** This transaction's op events, then its afterTx events (its slice of the ledger's emission order). */
  events: ContractEventRecord[];
  afterTxCount: number;
}

// Smallest encodings, for the count checks before loops (a count that cannot fit is TRUNCATED before any work).
const MIN_CHANGE_BYTES = 8; // type + the smallest LedgerKey/LedgerEntry prefix
const MIN_EVENT_BYTES = 24; // ext + contractID flag + type + body.v + topic count + SCVal type
const MIN_RESULT_META_BYTES = 52; // hash + feeCharged + result code + ext + two empty change lists + meta.v

class LedgerExtractor {
  private readonly b: Uint8Array;
  private ledgerSeq = 0;
  /**
   * The fold, in application order: fee changes (read first of each transaction, so they go straight in), then the
   * logged apply and post-apply changes of every transaction, then upgrades and evictions (read last: straight in).
   */
  private readonly fold: LedgerChangeFold;
  private readonly feeChanges: LedgerChangeFold;
  private readonly applyChanges = new ChangeLog();
  private readonly postApplyFeeChanges = new ChangeLog();
  private readonly upgradeChanges: LedgerChangeFold;
  private readonly evictions: LedgerChangeFold;
  private readonly beforeAllTxs: ContractEventRecord[] = [];
  /** The last TOID prefix of an event id (`%019d-`) and the (tx, op) it is for. */
  private toid = '';
  private toidTx = -1;
  private toidOp = -1;
  private readonly transactionEvents: ContractEventRecord[] = [];
  private readonly afterAllTxs: ContractEventRecord[] = [];

  constructor(b: Uint8Array, foldOptions: FoldOptions) {
    this.b = b;
    this.fold = new LedgerChangeFold(foldOptions);
    this.feeChanges = this.fold;
    this.upgradeChanges = this.fold;
    this.evictions = this.fold;
  }

  run(): LedgerExtract {
    const b = this.b;
    const version = readVersion(b);
    let p = 4;
    if (version >= 1) p = this.skip('ext', 'LedgerCloseMetaExt', p);
    const headerStart = p;
    p = this.skip('ledgerHeader', 'LedgerHeaderHistoryEntry', p);
    const header = this.readHeader(version, headerStart);
    this.ledgerSeq = header.ledgerSeq;
    p = this.skip('txSet', version === 0 ? 'TransactionSet' : 'GeneralizedTransactionSet', p);

    const txCount = this.count(p, MIN_RESULT_META_BYTES, 'txProcessing');
    p += 4;
    for (let i = 0; i < txCount; i++) {
      try {
        p = this.readResultMeta(p, i + 1, version === 2);
      } catch (error) {
        annotate(error, `txProcessing[${i}]`);
      }
    }

    this.applyChanges.foldInto(this.fold);
    this.postApplyFeeChanges.foldInto(this.fold);

    const upgradeCount = this.count(p, 8, 'upgradesProcessing');
    p += 4;
    for (let i = 0; i < upgradeCount; i++) {
      try {
        p = this.skip('upgrade', 'LedgerUpgrade', p);
        p = this.readChanges(p, this.upgradeChanges, 'changes');
      } catch (error) {
        annotate(error, `upgradesProcessing[${i}]`);
      }
    }
    p = this.skip('scpInfo', 'SCPHistoryEntry<>', p);

    let sorobanStateBytes: bigint | null = null;
    if (version >= 1) {
      sorobanStateBytes = readU64(b, p);
      p += 8;
      p = this.readEvictedKeys(p);
      // LCM v1's last list held evicted persistent entries in older XDR (now `unused`, never populated): their keys
      // are deletions too.
      if (version === 1) p = this.readEvictedEntries(p);
    }
    if (p !== b.length) fail(TRAILING_BYTES, p, undefined, `${b.length - p} bytes after the LedgerCloseMeta`);

    header.txCount = txCount;
    header.totalByteSizeOfLiveSorobanState = sorobanStateBytes;
    const events =
      this.beforeAllTxs.length === 0 && this.afterAllTxs.length === 0
        ? this.transactionEvents
        : [...this.beforeAllTxs, ...this.transactionEvents, ...this.afterAllTxs];
    return { header, events, changes: this.fold.finish() };
  }

  private skip(segment: string, expression: string, p: number): number {
    try {
      return skipperFor(expression)(this.b, p, 1);
    } catch (error) {
      return annotate(error, segment);
    }
  }

  /** Reads an XDR array count at `p` and checks that that many elements of `minBytes` can fit after it. */
  private count(p: number, minBytes: number, field: string): number {
    const b = this.b;
    if (p + 4 > b.length) fail(TRUNCATED, p, field, 'need 4 bytes for an array count');
    const n = readU32(b, p);
    if (n * minBytes > b.length - p - 4) fail(TRUNCATED, p, field, `${n} elements cannot fit in the bytes left`);
    return n;
  }

  /** The header was validated by the schema walker before this runs, so the fixed offsets below are in bounds. */
  private readHeader(version: number, h: number): LedgerHeaderInfo {
    const b = this.b;
    const stellarValueEnd = skipperFor('StellarValue')(b, h + 68, 3);
    const s = stellarValueEnd;
    return {
      lcmVersion: version,
      ledgerSeq: readU32(b, s + 64),
      closeTime: readU64(b, h + 100),
      protocolVersion: readU32(b, h + 32),
      ledgerHash: b.subarray(h, h + 32),
      previousLedgerHash: b.subarray(h + 36, h + 68),
      txSetHash: b.subarray(h + 68, h + 100),
      txSetResultHash: b.subarray(s, s + 32),
      bucketListHash: b.subarray(s + 32, s + 64),
      totalCoins: readI64(b, s + 68),
      feePool: readI64(b, s + 76),
      baseFee: readU32(b, s + 96),
      baseReserve: readU32(b, s + 100),
      maxTxSetSize: readU32(b, s + 104),
      txCount: 0,
      totalByteSizeOfLiveSorobanState: null,
    };
  }

  /** TransactionResultMeta (LCM v0/v1) or TransactionResultMetaV1 (LCM v2). */
  private readResultMeta(p: number, index: number, withPostApplyFees: boolean): number {
    const b = this.b;
    if (withPostApplyFees) p = this.skip('ext', 'ExtensionPoint', p);
    const pairStart = p;
    p = this.skip('result', 'TransactionResultPair', p);
    // TransactionResultPair = transactionHash (32) + TransactionResult { feeCharged (8), result.code, ... }.
    const resultCode = readI32(b, pairStart + 40);
    const tx: TxContext = {
      index,
      hash: b.subarray(pairStart, pairStart + 32),
      // txSUCCESS (0) or txFEE_BUMP_INNER_SUCCESS (1): go-stellar-sdk TransactionResult.Successful().
      successful: resultCode === 0 || resultCode === 1,
      events: [],
      afterTxCount: 0,
    };
    p = this.readChanges(p, this.feeChanges, 'feeProcessing');
    try {
      p = this.readTransactionMeta(p, tx);
    } catch (error) {
      annotate(error, 'txApplyProcessing');
    }
    if (withPostApplyFees) p = this.readChanges(p, this.postApplyFeeChanges, 'postTxApplyFeeProcessing');
    for (const event of tx.events) this.transactionEvents.push(event);
    return p;
  }

  /**
   * TransactionMeta v0..v4. Events, as stellar-rpc numbers them (go-stellar-sdk ingest/ledger_transaction.go
   * `GetTransactionEvents`, used by stellar-rpc cmd/stellar-rpc/internal/db/event.go `InsertEvents`):
   * v0..v2 have none; v3 has the Soroban transaction's `sorobanMeta.events`, numbered as operation 0; v4 has
   * `operations[i].events` (operation i) plus the transaction-level `events`, each placed by its stage.
   */
  private readTransactionMeta(p: number, tx: TxContext): number {
    const b = this.b;
    const version = readI32(b, p);
    p += 4;
    switch (version) {
      case 0:
        return this.readOperationMetas(p, tx, false, 'operations');
      case 1:
        p = this.readChanges(p, this.applyChanges, 'v1.txChanges');
        return this.readOperationMetas(p, tx, false, 'v1.operations');
      case 2:
        p = this.readChanges(p, this.applyChanges, 'v2.txChangesBefore');
        p = this.readOperationMetas(p, tx, false, 'v2.operations');
        return this.readChanges(p, this.applyChanges, 'v2.txChangesAfter');
      case 3:
        try {
          return this.readTransactionMetaV3(p, tx);
        } catch (error) {
          return annotate(error, 'v3');
        }
      case 4:
        try {
          return this.readTransactionMetaV4(p, tx);
        } catch (error) {
          return annotate(error, 'v4');
        }
      default:
        return fail(BAD_DISCRIMINANT, p - 4, 'v', `unknown TransactionMeta version ${version}`);
    }
  }

  private readTransactionMetaV3(p: number, tx: TxContext): number {
    p = this.skip('ext', 'ExtensionPoint', p);
    p = this.readChanges(p, this.applyChanges, 'txChangesBefore');
    p = this.readOperationMetas(p, tx, false, 'operations');
    p = this.readChanges(p, this.applyChanges, 'txChangesAfter');
    const present = this.optionalFlag(p, 'sorobanMeta');
    p += 4;
    if (present) {
      try {
        p = this.skip('ext', 'SorobanTransactionMetaExt', p);
        const eventCount = this.count(p, MIN_EVENT_BYTES, 'events');
        p += 4;
        for (let i = 0; i < eventCount; i++) {
          try {
            p = this.readContractEvent(p, tx, 'operation', 0, i);
          } catch (error) {
            annotate(error, `events[${i}]`);
          }
        }
        p = this.skip('returnValue', '@SCVal', p);
        p = this.skip('diagnosticEvents', 'DiagnosticEvent<>', p);
      } catch (error) {
        annotate(error, 'sorobanMeta');
      }
    }
    return p;
  }

  private readTransactionMetaV4(p: number, tx: TxContext): number {
    p = this.skip('ext', 'ExtensionPoint', p);
    p = this.readChanges(p, this.applyChanges, 'txChangesBefore');
    p = this.readOperationMetas(p, tx, true, 'operations');
    p = this.readChanges(p, this.applyChanges, 'txChangesAfter');
    p = this.skip('sorobanMeta', 'SorobanTransactionMetaV2?', p);
    const eventCount = this.count(p, 4 + MIN_EVENT_BYTES, 'events');
    p += 4;
    const afterTx: ContractEventRecord[] = [];
    for (let i = 0; i < eventCount; i++) {
      try {
        const stage = readI32(this.b, p);
        if (stage === TRANSACTION_EVENT_STAGE.BEFORE_ALL_TXS) {
          p = this.readContractEvent(p + 4, tx, 'beforeAllTxs', 0, this.beforeAllTxs.length, this.beforeAllTxs);
        } else if (stage === TRANSACTION_EVENT_STAGE.AFTER_TX) {
          p = this.readContractEvent(p + 4, tx, 'afterTx', AFTER_TX_OPERATION, tx.afterTxCount++, afterTx);
        } else if (stage === TRANSACTION_EVENT_STAGE.AFTER_ALL_TXS) {
          p = this.readContractEvent(p + 4, tx, 'afterAllTxs', 0, this.afterAllTxs.length, this.afterAllTxs);
        } else {
          fail(BAD_DISCRIMINANT, p, 'stage', `unknown TransactionEventStage ${stage}`);
        }
      } catch (error) {
        annotate(error, `events[${i}]`);
      }
    }
    for (const event of afterTx) tx.events.push(event);
    return this.skip('diagnosticEvents', 'DiagnosticEvent<>', p);
  }

  /** OperationMeta<> (changes only) or OperationMetaV2<> (ext, changes, events). */
  private readOperationMetas(p: number, tx: TxContext, withEvents: boolean, field: string): number {
    const count = this.count(p, withEvents ? 12 : 4, field);
    p += 4;
    for (let op = 0; op < count; op++) {
      try {
        if (withEvents) p = this.skip('ext', 'ExtensionPoint', p);
        p = this.readChanges(p, this.applyChanges, 'changes');
        if (withEvents) {
          const eventCount = this.count(p, MIN_EVENT_BYTES, 'events');
          p += 4;
          for (let i = 0; i < eventCount; i++) {
            try {
              p = this.readContractEvent(p, tx, 'operation', op, i);
            } catch (error) {
              annotate(error, `events[${i}]`);
            }
          }
        }
      } catch (error) {
        annotate(error, `${field}[${op}]`);
      }
    }
    return p;
  }

  private optionalFlag(p: number, field: string): boolean {
    const flag = readU32(this.b, p);
    if (flag > 1) fail(BAD_BOOL, p, field, `optional flag must be 0 or 1, got ${flag}`);
    return flag === 1;
  }

  /**
   * Reads one ContractEvent at `p` into a record with coordinates (tx, op, eventIndex) derived from `stage`; pushes
   * it to `into` (default: the transaction's own list).
   */
  private readContractEvent(
    p: number,
    tx: TxContext,
    stage: ContractEventStage,
    op: number,
    eventIndex: number,
    into: ContractEventRecord[] = tx.events,
  ): number {
    const b = this.b;
    const start = p;
    const extVersion = readI32(b, p);
    if (extVersion !== 0) fail(BAD_DISCRIMINANT, p, 'ext', `unknown ExtensionPoint ${extVersion}`);
    p += 4;
    let contractId: Uint8Array | null = null;
    if (this.optionalFlag(p, 'contractID')) {
      if (p + 36 > b.length) fail(TRUNCATED, p + 4, 'contractID', 'need 32 bytes');
      contractId = b.subarray(p + 4, p + 36);
      p += 36;
    } else p += 4;
    const typeCode = readI32(b, p);
    if (typeCode < 0 || typeCode > 2) fail(BAD_DISCRIMINANT, p, 'type', `unknown ContractEventType ${typeCode}`);
    p += 4;
    const bodyVersion = readI32(b, p);
    if (bodyVersion !== 0) fail(BAD_DISCRIMINANT, p, 'body.v', `unknown ContractEvent body version ${bodyVersion}`);
    p += 4;
    const topicCount = this.count(p, 4, 'body.v0.topics');
    p += 4;
    const topics: Uint8Array[] = [];
    for (let i = 0; i < topicCount; i++) {
      const topicEnd = this.scVal(p, `body.v0.topics[${i}]`);
      topics.push(b.subarray(p, topicEnd));
      p = topicEnd;
    }
    const valueEnd = this.scVal(p, 'body.v0.data');
    const txIndex = stage === 'beforeAllTxs' ? 0 : stage === 'afterAllTxs' ? AFTER_ALL_TXS_TRANSACTION : tx.index;
    // Events come in runs with the same (tx, op): the TOID string (a bigint conversion) is built once per run.
    if (txIndex !== this.toidTx || op !== this.toidOp) {
      this.toidTx = txIndex;
      this.toidOp = op;
      this.toid = `${toidString(this.ledgerSeq, txIndex, op)}-`;
    }
    into.push({
      id: this.toid + (eventIndex < 10 ? `000000000${eventIndex}` : String(eventIndex).padStart(10, '0')),
      ledger: this.ledgerSeq,
      tx: txIndex,
      op,
      eventIndex,
      stage,
      type: typeCode === 0 ? 'system' : typeCode === 1 ? 'contract' : 'diagnostic',
      contractId,
      topics,
      value: b.subarray(p, valueEnd),
      xdr: b.subarray(start, valueEnd),
      txHash: tx.hash,
      inSuccessfulContractCall: tx.successful,
    });
    return valueEnd;
  }

  private scVal(p: number, field: string): number {
    try {
      return p + readScVal(this.b, p).xdr.length;
    } catch (error) {
      return fromLedgerKeyError(error, field);
    }
  }

  /** LedgerEntryChanges at `p` into `log`; returns the offset after the list. */
  private readChanges(p: number, log: ChangeSink, field: string): number {
    const b = this.b;
    const count = this.count(p, MIN_CHANGE_BYTES, field);
    p += 4;
    for (let i = 0; i < count; i++) {
      const kind = readI32(b, p);
      p += 4;
      try {
        if (kind === LEDGER_ENTRY_CHANGE.REMOVED) {
          const key = readLedgerKey(b, p).xdr;
          pushChange(log, kind, readU32(key, 0), key, 4, key.length, key, null);
          p += key.length;
        } else if (kind >= 0 && kind <= 4) {
          const view = readLedgerEntry(b, p);
          const entry = view.xdr;
          const keyStart = entryKeyStart(view);
          pushChange(log, kind as LedgerEntryChangeKind, view.type, entry, keyStart, keyFieldsEnd, null, entry);
          p += entry.length;
        } else {
          fail(BAD_DISCRIMINANT, p - 4, 'type', `unknown LedgerEntryChangeType ${kind}`);
        }
      } catch (error) {
        if (error instanceof LedgerMetaError) annotate(error, `${field}[${i}]`);
        fromLedgerKeyError(error, `${field}[${i}]`);
      }
    }
    return p;
  }

  private readEvictedKeys(p: number): number {
    const b = this.b;
    const count = this.count(p, 8, 'evictedKeys');
    p += 4;
    for (let i = 0; i < count; i++) {
      try {
        const key = readLedgerKey(b, p).xdr;
        pushChange(this.evictions, LEDGER_ENTRY_CHANGE.REMOVED, readU32(key, 0), key, 4, key.length, key, null);
        p += key.length;
      } catch (error) {
        fromLedgerKeyError(error, `evictedKeys[${i}]`);
      }
    }
    return p;
  }

  private readEvictedEntries(p: number): number {
    const b = this.b;
    const count = this.count(p, 8, 'unused');
    p += 4;
    for (let i = 0; i < count; i++) {
      try {
        const view = readLedgerEntry(b, p);
        const keyStart = entryKeyStart(view);
        pushChange(
          this.evictions,
          LEDGER_ENTRY_CHANGE.REMOVED,
          view.type,
          view.xdr,
          keyStart,
          keyFieldsEnd,
          null,
          null,
        );
        p += view.byteLength;
      } catch (error) {
        fromLedgerKeyError(error, `unused[${i}]`);
      }
    }
    return p;
  }
}

function pushChange(
  sink: ChangeSink,
  kind: LedgerEntryChangeKind,
  type: number,
  src: Uint8Array,
  start: number,
  end: number,
  key: Uint8Array | null,
  entry: Uint8Array | null,
): void {
  if (sink instanceof ChangeLog) sink.push(kind, type, src, start, end, key, entry);
  else sink.observeFields(kind, type, src, start, end, key, entry);
}
