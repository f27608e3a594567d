// One pass over one LedgerCloseMeta (v0, v1, v2): the header, the contract events with their coordinates, and the
// entry changes folded into the ledger's bucket batch. The paths it needs are walked by hand; everything else is
// validated and skipped by the schema walker, so a record either extracts completely or throws LedgerMetaError.
import { LedgerToidFormatter } from '@strata/events';
import * as ledgerKey from '@strata/ledger-key';
import { checkBytes, checkInteger, checkOptions, checkString } from './arguments.js';
import {
  checkFoldOptions,
  type FoldOptions,
  LEDGER_ENTRY_CHANGE,
  type LedgerBatch,
  LedgerChangeFold,
  type LedgerEntryChangeKind,
} from './change-fold.js';
import { annotate, fail, fromLedgerKeyError, LedgerMetaError, LedgerMetaErrorCode, relocated } from './errors.js';
import type { ContractEventRecord, ContractEventStage } from './events.js';
import * as events from './events.js';
import * as xdrWalker from './xdr-walker.js';

// Module-local copies of the functions and constants used per change and per event: an imported binding is read
// again at every use (under tsx's CommonJS output, through one or two getters per call), which cost about a tenth of
// extraction time when profiled.
const { ledgerEntryLayout, ledgerKeyOfEntry, readLedgerKey, scValEnd } = ledgerKey;
const { readI32, readU32, skipperFor, skipXdr } = xdrWalker;
const { AFTER_ALL_TXS_TRANSACTION, AFTER_TX_OPERATION, TRANSACTION_EVENT_STAGE } = events;
const { REMOVED } = LEDGER_ENTRY_CHANGE;
const { BEFORE_ALL_TXS, AFTER_TX, AFTER_ALL_TXS } = TRANSACTION_EVENT_STAGE;

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

/** Options of extractLedger: the fold's, and an observer of every change. */
export interface ExtractOptions extends FoldOptions {
  /**
   * Called for every LedgerEntryChange in the order the meta holds them (not application order: a transaction's
   * fee, apply and post-apply changes come together), with the change's kind and its LedgerEntry XDR (REMOVED: its
   * LedgerKey XDR). The bytes are views into `lcm`, valid as long as it is. Evicted keys are not changes.
   */
  onChange?: (kind: LedgerEntryChangeKind, bytes: Uint8Array) => void;
}

/** Everything extracted from one ledger. Byte members are subarrays of the LedgerCloseMeta bytes (zero-copy). */
export interface LedgerExtract {
  header: LedgerHeaderInfo;
  /** Contract events in emission order = id order (spec §2.2). Diagnostic events are not included. */
  events: ContractEventRecord[];
  /** The ledger's bucket batch: net effect per key over the whole ledger. */
  changes: LedgerBatch;
  /**
   * XDR LedgerKeys the meta lists as evicted (LCM v1 evictedTemporaryLedgerKeys and the keys of its unused
   * evictedPersistentLedgerEntries, LCM v2 evictedKeys), in meta order; they are in `changes.dead` too. v0: none.
   */
  evictedKeys: Uint8Array[];
  /** XDR LedgerKeys restored from the hot archive (LedgerChangeFold.archiveRestores), in key order. */
  restoredKeys: Uint8Array[];
}

/**
 * Where a LedgerCloseMeta came from, to put into errors (offset = where its bytes start in the file or buffer). A
 * LedgerCloseMetaRecord is one. `record` and `offset` are non-negative integers.
 */
export interface RecordLocation {
  file?: string | undefined;
  record?: number | undefined;
  offset?: number | undefined;
}

/**
 * Extracts header, events and entry changes from the XDR of one LedgerCloseMeta, which must fill `lcm` exactly. The
 * whole value is validated. Synchronous and stateless: call it from any thread or worker. Throws LedgerMetaError
 * with the offset inside `lcm` shifted by `location.offset`, the XDR path, and `location`'s file and record.
 * `options.wasLive` resolves restores of expired-but-not-evicted entries (see LedgerChangeFold). Bad arguments (`lcm`
 * not a Uint8Array, a malformed `location` or `options`) are INVALID_ARGUMENT.
 */
export function extractLedger(lcm: Uint8Array, location?: RecordLocation, options: ExtractOptions = {}): LedgerExtract {
  checkArguments(lcm, location);
  checkFoldOptions(options);
  if (options.onChange !== undefined && typeof options.onChange !== 'function') {
    throw new LedgerMetaError(LedgerMetaErrorCode.INVALID_ARGUMENT, 'onChange must be a function', {
      field: 'onChange',
    });
  }
  try {
    return new LedgerExtractor(lcm, options).run();
  } catch (error) {
    throw locateError(error, location);
  }
}

/** Validates one LedgerCloseMeta filling `lcm` with the schema walker alone (no extraction). */
export function validateLedgerCloseMeta(lcm: Uint8Array, location?: RecordLocation): void {
  checkArguments(lcm, location);
  try {
    const end = skipXdr('LedgerCloseMeta', lcm, 0);
    if (end !== lcm.length) fail(TRAILING_BYTES, end, 'LedgerCloseMeta', `${lcm.length - end} bytes after the value`);
  } catch (error) {
    throw locateError(error, location);
  }
}

/** Reads only the ledger sequence (validates the bytes up to it). */
export function readLedgerSequence(lcm: Uint8Array, location?: RecordLocation): number {
  checkArguments(lcm, location);
  try {
    const version = readVersion(lcm);
    let p = 4;
    if (version >= 1) p = skipLedgerCloseMetaExt(lcm, p, 1);
    // hash, ledgerVersion, previousLedgerHash, then the variable-length StellarValue; ledgerSeq is 64 bytes after it.
    const stellarValueEnd = skipStellarValue(lcm, p + 68, 3);
    return readU32(lcm, stellarValueEnd + 64);
  } catch (error) {
    throw locateError(error, location);
  }
}

/**
 * Reads only the header's previousLedgerHash (a copy of its 32 bytes), validating the bytes up to it: what a node
 * checks its header chain with before it hands the ledger to a reader that extracts it (so the ledger is not
 * extracted twice). The rest of the value is not looked at.
 */
export function readPreviousLedgerHash(lcm: Uint8Array, location?: RecordLocation): Uint8Array {
  checkArguments(lcm, location);
  try {
    const version = readVersion(lcm);
    let p = 4;
    if (version >= 1) p = skipLedgerCloseMetaExt(lcm, p, 1);
    // hash (32 bytes), ledgerVersion, then previousLedgerHash.
    const at = p + 36;
    if (lcm.length < at + 32) fail(TRUNCATED, lcm.length, 'header.previousLedgerHash', 'the value ends inside it');
    return lcm.slice(at, at + 32);
  } catch (error) {
    throw locateError(error, location);
  }
}

/** The arguments every entry point shares: the bytes, and an optional location whose members go into errors. */
function checkArguments(lcm: unknown, location: unknown): void {
  checkBytes(lcm, 'lcm');
  if (location === undefined) return;
  const { file, record, offset } = checkOptions(location, 'location');
  if (file !== undefined) checkString(file, 'location.file');
  if (record !== undefined) checkInteger(record, 'location.record', 0, Number.MAX_SAFE_INTEGER);
  if (offset !== undefined) checkInteger(offset, 'location.offset', 0, Number.MAX_SAFE_INTEGER);
}

/**
 * The error an entry point throws: a LedgerMetaError from inside the value, placed under `LedgerCloseMeta` (unless
 * its path starts there already) and at `location` (its offset shifted to the file's or buffer's, the file and
 * record filled in), as a new error; anything else (a bug) as it is.
 */
function locateError(error: unknown, location: RecordLocation | undefined): unknown {
  if (!(error instanceof LedgerMetaError)) return error;
  const underLedgerCloseMeta = error.field?.startsWith('LedgerCloseMeta') === true;
  if (underLedgerCloseMeta && location === undefined) return error;
  return relocated(error, {
    ...(underLedgerCloseMeta ? {} : { fieldPrefix: 'LedgerCloseMeta' }),
    ...(location?.offset === undefined ? {} : { offsetShift: location.offset }),
    ...(location?.file === undefined ? {} : { file: location.file }),
    ...(location?.record === undefined ? {} : { record: location.record }),
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

/** ledgerEntryLayout's answer for the entry being read: type, key fields start and end, entry end (reused). */
const layout = new Int32Array(4);

/** Per-transaction state while its meta is read. */
interface TxContext {
  /** 1-based apply order. */
  index: number;
  hash: Uint8Array;
  successful: boolean;
  afterTxCount: number;
}

// Smallest encodings, for the count checks before loops (a count that cannot fit is TRUNCATED before any work).
const MIN_CHANGE_BYTES = 8; // type + the smallest LedgerKey/LedgerEntry prefix
const MIN_EVENT_BYTES = 24; // ext + contractID flag + type + body.v + topic count + SCVal type
const MIN_RESULT_META_BYTES = 52; // hash + feeCharged + result code + ext + two empty change lists + meta.v

/**
 * Fold phases in application order (LedgerChangeFold.observePhased): every transaction's fee processing, then per
 * transaction its apply changes, then post-apply fee processing (LCM v2), upgrades, evictions. txProcessing holds a
 * transaction's fee, apply and post-apply changes together; the phases put them in order without a second pass.
 */
const PHASE_FEE = 0;
const PHASE_APPLY = 1;
const PHASE_POST_APPLY_FEE = 2;
const PHASE_UPGRADE = 3;
const PHASE_EVICTION = 4;

// The schema walker's skip functions (generated) for the segments walked past.
const skipLedgerCloseMetaExt = skipperFor('LedgerCloseMetaExt');
const skipLedgerHeaderHistoryEntry = skipperFor('LedgerHeaderHistoryEntry');
const skipTransactionSet = skipperFor('TransactionSet');
const skipGeneralizedTransactionSet = skipperFor('GeneralizedTransactionSet');
const skipLedgerUpgrade = skipperFor('LedgerUpgrade');
const skipScpHistoryEntries = skipperFor('SCPHistoryEntry<>');
const skipStellarValue = skipperFor('StellarValue');
const skipExtensionPoint = skipperFor('ExtensionPoint');
const skipTransactionResultPair = skipperFor('TransactionResultPair');
const skipSorobanTransactionMetaExt = skipperFor('SorobanTransactionMetaExt');
const skipSorobanTransactionMetaV2Optional = skipperFor('SorobanTransactionMetaV2?');
const skipDiagnosticEvents = skipperFor('DiagnosticEvent<>');
const scValSkip = skipperFor('@SCVal');

/** `%010d` of small event indexes, built once (the id's suffix; indexes are mostly below a few hundred). */
const EVENT_INDEX_SUFFIXES: string[] = [];
const CACHED_SUFFIXES = 4096;

function eventIndexSuffix(eventIndex: number): string {
  if (eventIndex >= CACHED_SUFFIXES) return String(eventIndex).padStart(10, '0');
  for (let i = EVENT_INDEX_SUFFIXES.length; i <= eventIndex; i++)
    EVENT_INDEX_SUFFIXES.push(String(i).padStart(10, '0'));
  // `!` is safe: filled up to eventIndex on the line above
  return EVENT_INDEX_SUFFIXES[eventIndex]!;
}

class LedgerExtractor {
  private readonly b: Uint8Array;
  /**
   * Whether `b` is a plain Uint8Array: then byte members are made with the Uint8Array constructor over its buffer,
   * about twice as fast as subarray(); for a Buffer (or another subclass) subarray() keeps the caller's class.
   */
  private readonly plain: boolean;
  private readonly buffer: ArrayBufferLike;
  private readonly base: number;
  private ledgerSeq = 0;
  /** Every change of the ledger, each with its phase (see PHASE_FEE). */
  private readonly fold: LedgerChangeFold;
  private readonly beforeAllTxs: ContractEventRecord[] = [];
  /** The last TOID prefix of an operation or afterTx event id (`%019d-`) and the (tx, op) it is for. */
  private toid = '';
  private toidTx = -1;
  private toidOp = -1;
  /** TOID prefixes of the ledger-level stages, built on first use. */
  private beforeAllTxsToid = '';
  /** Formats this ledger's TOIDs (built when the header has been read). */
  private toids: LedgerToidFormatter | null = null;
  private afterAllTxsToid = '';
  private readonly transactionEvents: ContractEventRecord[] = [];
  private readonly afterAllTxs: ContractEventRecord[] = [];
  private readonly evictedKeys: Uint8Array[] = [];

  private readonly onChange: ((kind: LedgerEntryChangeKind, bytes: Uint8Array) => void) | undefined;

  constructor(b: Uint8Array, foldOptions: ExtractOptions) {
    this.onChange = foldOptions.onChange;
    this.b = b;
    this.plain = b.constructor === Uint8Array;
    this.buffer = b.buffer;
    this.base = b.byteOffset;
    this.fold = new LedgerChangeFold(foldOptions);
    this.fold.useWordSource(b);
  }

  run(): LedgerExtract {
    const b = this.b;
    const version = readVersion(b);
    let p = 4;
    if (version >= 1) p = this.skip('ext', skipLedgerCloseMetaExt, p);
    const headerStart = p;
    p = this.skip('ledgerHeader', skipLedgerHeaderHistoryEntry, p);
    const header = this.readHeader(version, headerStart);
    this.ledgerSeq = header.ledgerSeq;
    this.fold.setLedgerSeq(header.ledgerSeq);
    p = this.skip('txSet', version === 0 ? skipTransactionSet : skipGeneralizedTransactionSet, p);

    const txCount = this.count(p, MIN_RESULT_META_BYTES, 'txProcessing');
    p += 4;
    for (let i = 0; i < txCount; i++) {
      try {
        p = this.readResultMeta(p, i + 1, version === 2);
      } catch (error) {
        annotate(error, `txProcessing[${i}]`);
      }
    }

    const upgradeCount = this.count(p, 8, 'upgradesProcessing');
    p += 4;
    for (let i = 0; i < upgradeCount; i++) {
      try {
        p = this.skip('upgrade', skipLedgerUpgrade, p);
        p = this.readChanges(p, PHASE_UPGRADE, 'changes');
      } catch (error) {
        annotate(error, `upgradesProcessing[${i}]`);
      }
    }
    p = this.skip('scpInfo', skipScpHistoryEntries, p);

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
    const changes = this.fold.finish();
    return {
      header,
      events,
      changes,
      evictedKeys: this.evictedKeys,
      restoredKeys: this.fold.archiveRestores(),
    };
  }

  private skip(segment: string, skip: xdrWalker.Skip, p: number): number {
    try {
      return skip(this.b, p, 1);
    } catch (error) {
      return annotate(error, segment);
    }
  }

  /** ExtensionPoint: v0 (4 bytes) on the fast path; anything else goes to the walker for its error. */
  private skipExt(p: number): number {
    const b = this.b;
    if (p + 4 <= b.length && b[p] === 0 && b[p + 1] === 0 && b[p + 2] === 0 && b[p + 3] === 0) return p + 4;
    return this.skip('ext', skipExtensionPoint, p);
  }

  /** A byte member: `b[start, end)` without a copy (see `plain`). */
  private view(start: number, end: number): Uint8Array {
    return this.plain ? new Uint8Array(this.buffer, this.base + start, end - start) : this.b.subarray(start, end);
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
    const stellarValueEnd = skipStellarValue(b, h + 68, 3);
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
    if (withPostApplyFees) p = this.skipExt(p);
    const pairStart = p;
    p = this.skip('result', skipTransactionResultPair, p);
    // TransactionResultPair = transactionHash (32) + TransactionResult { feeCharged (8), result.code, ... }.
    const resultCode = readI32(b, pairStart + 40);
    const tx: TxContext = {
      index,
      hash: this.view(pairStart, pairStart + 32),
      // txSUCCESS (0) or txFEE_BUMP_INNER_SUCCESS (1): go-stellar-sdk TransactionResult.Successful().
      successful: resultCode === 0 || resultCode === 1,
      afterTxCount: 0,
    };
    p = this.readChanges(p, PHASE_FEE, 'feeProcessing');
    try {
      p = this.readTransactionMeta(p, tx);
    } catch (error) {
      annotate(error, 'txApplyProcessing');
    }
    if (withPostApplyFees) p = this.readChanges(p, PHASE_POST_APPLY_FEE, 'postTxApplyFeeProcessing');
    return p;
  }

  /**
   * TransactionMeta v0..v4. Events, as stellar-rpc numbers them (go-stellar-sdk ingest/ledger_transaction.go
   * `GetTransactionEvents`, used by stellar-rpc cmd/stellar-rpc/internal/db/event.go `InsertEvents`):
   * v0..v2 have none; v3 has the Soroban transaction's `sorobanMeta.events`, numbered as operation 0; v4 has
   * `operations[i].events` (operation i) plus the transaction-level `events`, each placed by its stage. A
   * transaction's operation events and then its afterTx events are its slice of the ledger's emission order; they
   * come in that order in the meta, so they go straight into `transactionEvents`.
   */
  private readTransactionMeta(p: number, tx: TxContext): number {
    const b = this.b;
    const version = readI32(b, p);
    p += 4;
    switch (version) {
      case 0:
        return this.readOperationMetas(p, tx, false, 'operations');
      case 1:
        p = this.readChanges(p, PHASE_APPLY, 'v1.txChanges');
        return this.readOperationMetas(p, tx, false, 'v1.operations');
      case 2:
        p = this.readChanges(p, PHASE_APPLY, 'v2.txChangesBefore');
        p = this.readOperationMetas(p, tx, false, 'v2.operations');
        return this.readChanges(p, PHASE_APPLY, 'v2.txChangesAfter');
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
    p = this.skipExt(p);
    p = this.readChanges(p, PHASE_APPLY, 'txChangesBefore');
    p = this.readOperationMetas(p, tx, false, 'operations');
    p = this.readChanges(p, PHASE_APPLY, 'txChangesAfter');
    const present = this.optionalFlag(p, 'sorobanMeta');
    p += 4;
    if (present) {
      try {
        p = this.skip('ext', skipSorobanTransactionMetaExt, p);
        const eventCount = this.count(p, MIN_EVENT_BYTES, 'events');
        p += 4;
        for (let i = 0; i < eventCount; i++) {
          try {
            p = this.readContractEvent(p, tx, 'operation', 0, i, this.transactionEvents);
          } catch (error) {
            annotate(error, `events[${i}]`);
          }
        }
        p = this.skip('returnValue', scValSkip, p);
        p = this.skip('diagnosticEvents', skipDiagnosticEvents, p);
      } catch (error) {
        annotate(error, 'sorobanMeta');
      }
    }
    return p;
  }

  private readTransactionMetaV4(p: number, tx: TxContext): number {
    p = this.skipExt(p);
    p = this.readChanges(p, PHASE_APPLY, 'txChangesBefore');
    p = this.readOperationMetas(p, tx, true, 'operations');
    p = this.readChanges(p, PHASE_APPLY, 'txChangesAfter');
    p = this.skip('sorobanMeta', skipSorobanTransactionMetaV2Optional, p);
    const eventCount = this.count(p, 4 + MIN_EVENT_BYTES, 'events');
    p += 4;
    for (let i = 0; i < eventCount; i++) {
      try {
        const stage = readI32(this.b, p);
        if (stage === BEFORE_ALL_TXS) {
          p = this.readContractEvent(p + 4, tx, 'beforeAllTxs', 0, this.beforeAllTxs.length, this.beforeAllTxs);
        } else if (stage === AFTER_TX) {
          // Every operation event of this transaction came before (operations precede the transaction's events).
          p = this.readContractEvent(
            p + 4,
            tx,
            'afterTx',
            AFTER_TX_OPERATION,
            tx.afterTxCount++,
            this.transactionEvents,
          );
        } else if (stage === AFTER_ALL_TXS) {
          p = this.readContractEvent(p + 4, tx, 'afterAllTxs', 0, this.afterAllTxs.length, this.afterAllTxs);
        } else {
          fail(BAD_DISCRIMINANT, p, 'stage', `unknown TransactionEventStage ${stage}`);
        }
      } catch (error) {
        annotate(error, `events[${i}]`);
      }
    }
    return this.skip('diagnosticEvents', skipDiagnosticEvents, p);
  }

  /** OperationMeta<> (changes only) or OperationMetaV2<> (ext, changes, events). */
  private readOperationMetas(p: number, tx: TxContext, withEvents: boolean, field: string): number {
    const count = this.count(p, withEvents ? 12 : 4, field);
    p += 4;
    for (let op = 0; op < count; op++) {
      try {
        if (withEvents) p = this.skipExt(p);
        p = this.readChanges(p, PHASE_APPLY, 'changes');
        if (withEvents) {
          const eventCount = this.count(p, MIN_EVENT_BYTES, 'events');
          p += 4;
          for (let i = 0; i < eventCount; i++) {
            try {
              p = this.readContractEvent(p, tx, 'operation', op, i, this.transactionEvents);
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

  /** The `%019d-` TOID prefix of an event id; the ledger-level stages and each (tx, op) run build theirs once. */
  private toidPrefix(stage: ContractEventStage, txIndex: number, op: number): string {
    if (stage === 'beforeAllTxs') {
      if (this.beforeAllTxsToid === '') this.beforeAllTxsToid = this.toidText(txIndex, op);
      return this.beforeAllTxsToid;
    }
    if (stage === 'afterAllTxs') {
      if (this.afterAllTxsToid === '') this.afterAllTxsToid = this.toidText(txIndex, op);
      return this.afterAllTxsToid;
    }
    if (txIndex !== this.toidTx || op !== this.toidOp) {
      this.toidTx = txIndex;
      this.toidOp = op;
      this.toid = this.toidText(txIndex, op);
    }
    return this.toid;
  }

  private toidText(txIndex: number, op: number): string {
    if (this.toids === null) this.toids = new LedgerToidFormatter(this.ledgerSeq);
    return `${this.toids.format(txIndex, op)}-`;
  }

  /** Reads one ContractEvent at `p` into a record with coordinates (tx, op, eventIndex) and pushes it to `into`. */
  private readContractEvent(
    p: number,
    tx: TxContext,
    stage: ContractEventStage,
    op: number,
    eventIndex: number,
    into: ContractEventRecord[],
  ): number {
    const b = this.b;
    const start = p;
    const extVersion = readI32(b, p);
    if (extVersion !== 0) fail(BAD_DISCRIMINANT, p, 'ext', `unknown ExtensionPoint ${extVersion}`);
    p += 4;
    let contractId: Uint8Array | null = null;
    if (this.optionalFlag(p, 'contractID')) {
      if (p + 36 > b.length) fail(TRUNCATED, p + 4, 'contractID', 'need 32 bytes');
      contractId = this.view(p + 4, p + 36);
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
      const topicEnd = this.scVal(p, i);
      topics.push(this.view(p, topicEnd));
      p = topicEnd;
    }
    const valueEnd = this.scVal(p, -1);
    const txIndex = stage === 'beforeAllTxs' ? 0 : stage === 'afterAllTxs' ? AFTER_ALL_TXS_TRANSACTION : tx.index;
    into.push({
      id: this.toidPrefix(stage, txIndex, op) + eventIndexSuffix(eventIndex),
      ledger: this.ledgerSeq,
      tx: txIndex,
      op,
      eventIndex,
      stage,
      type: typeCode === 0 ? 'system' : typeCode === 1 ? 'contract' : 'diagnostic',
      contractId,
      topics,
      value: this.view(p, valueEnd),
      xdr: this.view(start, valueEnd),
      txHash: tx.hash,
      inSuccessfulContractCall: tx.successful,
    });
    return valueEnd;
  }

  /** End of the SCVal at `p`: topic `topic` of an event, or its data for -1 (the field name only for errors). */
  private scVal(p: number, topic: number): number {
    try {
      return scValEnd(this.b, p);
    } catch (error) {
      return fromLedgerKeyError(error, topic < 0 ? 'body.v0.data' : `body.v0.topics[${topic}]`);
    }
  }

  /** LedgerEntryChanges at `p` into the fold as phase `phase`; returns the offset after the list. */
  private readChanges(p: number, phase: number, field: string): number {
    const b = this.b;
    const fold = this.fold;
    const count = this.count(p, MIN_CHANGE_BYTES, field);
    p += 4;
    for (let i = 0; i < count; i++) {
      const kind = readI32(b, p);
      p += 4;
      try {
        // Keys are given as ranges of `b` itself (see LedgerChangeFold.useWordSource).
        if (kind === REMOVED) {
          const key = readLedgerKey(b, p).xdr;
          fold.observePhased(phase, REMOVED, readU32(b, p), b, p + 4, p + key.length, key, null);
          this.onChange?.(REMOVED, key);
          p += key.length;
        } else if (kind >= 0 && kind <= 4) {
          ledgerEntryLayout(b, p, layout);
          const end = layout[3]!;
          // The entry as the range b[p, end): the fold makes arrays only for the entries that end up in the batch.
          fold.observeAt(phase, kind as LedgerEntryChangeKind, layout[0]!, b, layout[1]!, layout[2]!, null, b, p, end);
          this.onChange?.(kind as LedgerEntryChangeKind, b.subarray(p, end));
          p = end;
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
        this.fold.observePhased(PHASE_EVICTION, REMOVED, readU32(b, p), b, p + 4, p + key.length, key, null);
        this.evictedKeys.push(key);
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
        ledgerEntryLayout(b, p, layout);
        this.fold.observePhased(PHASE_EVICTION, REMOVED, layout[0]!, b, layout[1]!, layout[2]!, null, null);
        this.evictedKeys.push(ledgerKeyOfEntry(b.subarray(p, layout[3]!)));
        p = layout[3]!;
      } catch (error) {
        fromLedgerKeyError(error, `unused[${i}]`);
      }
    }
    return p;
  }
}
