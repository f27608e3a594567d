// The in-memory Soroban state (stellar-core ledger/InMemorySorobanState.{h,cpp} at a9b8613): every live
// CONTRACT_DATA and CONTRACT_CODE entry, keyed by its TTL key hash (SHA-256 of the entry's LedgerKey XDR) with its
// TTL {liveUntilLedgerSeq, lastModifiedLedgerSeq} attached, and the state size stellar-core samples into
// CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW from protocol 23 (`getSize`). Filled at startup from a BucketList
// snapshot (data, then TTL, then code, as `initializeStateFromSnapshot`), then kept up ledger by ledger from each
// ledger's init / live / dead changes (`updateState`). Entries stay as XDR bytes in arenas (see record-store.ts),
// CONTRACT_DATA ones in a shorter stored form where they can (compact-data.ts); there is no object per entry.
import { AssertionError, assert } from '@strata/base';
import {
  LEDGER_ENTRY_TYPE,
  LedgerKeyError,
  ledgerEntryLayout,
  readLedgerEntry,
  validateLedgerKey,
} from '@strata/ledger-key';
import { LedgerStateError, type LedgerStateErrorCode } from '../errors.js';
import { CompactData, entryLengthOf, isCompact, storedLengthOf } from './compact-data.js';
import { KeyHasher, SHA256_PADDING_BYTES } from './key-hash.js';
import { KEY_BATCH_BYTES, KeyHashPipeline, startKeyHashWorker } from './key-hash-worker.js';
import { codeSizeForRent, type MemoryCostModels, moduleMemoryCost, readMemoryCostParams } from './memory-cost.js';
import {
  bigEndianWord,
  DEFAULT_CHUNK_BYTES,
  FLAG_HAS_TTL,
  MAX_CHUNK_BYTES,
  MAX_RECORD_ENTRY_BYTES,
  MIN_CHUNK_BYTES,
  type RecordFields,
  RecordStore,
  WORD_AUX,
  WORD_LENGTH,
  WORD_LIVE_UNTIL,
  WORD_TTL_LAST_MODIFIED,
} from './record-store.js';

/** SOROBAN_PROTOCOL_VERSION: before it the state holds nothing and ledgers only advance its sequence. */
export const FIRST_PROTOCOL_SOROBAN_STATE = 20;
/** The most entries one list of one ledger's changes may hold (a bound on caller sizes). */
export const MAX_CHANGES_PER_LIST = 1 << 24;

const DATA = LEDGER_ENTRY_TYPE.CONTRACT_DATA;
const CODE = LEDGER_ENTRY_TYPE.CONTRACT_CODE;
const TTL = LEDGER_ENTRY_TYPE.TTL;
/** LedgerKey of CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES (type CONFIG_SETTING = 8, id 7). */
const MEMORY_COST_PARAMS_KEY = new Uint8Array([0, 0, 0, 8, 0, 0, 0, 7]);
/** A TTL LedgerEntry: lastModifiedLedgerSeq, type, keyHash, liveUntilLedgerSeq, ext v0. */
const TTL_ENTRY_BYTES = 48;
/** The hash a record appended before its key is hashed holds meanwhile. */
const NO_HASH = new Uint32Array(8);
/** TTLs population's merge queues before it reads their records together (see #attachTtls). */
const TTL_QUEUE = 128;
/** What the queue keeps of a TTL entry: lastModifiedLedgerSeq, type, keyHash, liveUntilLedgerSeq. */
const TTL_QUEUED_BYTES = 44;

/** One ledger's changes as @strata/ledger-meta's LedgerBatch gives them (any entry types; others are ignored). */
export interface SorobanStateChanges {
  /** XDR LedgerEntry of keys created in the ledger. */
  readonly init: readonly Uint8Array[];
  /** XDR LedgerEntry of keys updated in the ledger. */
  readonly live: readonly Uint8Array[];
  /** XDR LedgerKey of keys deleted in the ledger. */
  readonly dead: readonly Uint8Array[];
}

export interface SorobanApplyOptions {
  /** The ledger the changes close: the state's `ledgerSeq + 1`. */
  readonly ledgerSeq: number;
  /** The ledger's protocol after its upgrades; before 20 the changes are not looked at. */
  readonly protocolVersion: number;
  /**
   * The ledger's CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES after its upgrades, as ContractCostParams XDR
   * (`readLedgerEntry(entry).configSettingBody()`); prices the CONTRACT_CODE entries the ledger writes. Required from
   * protocol 20.
   */
  readonly memCostParams?: Uint8Array;
}

/** What `populate` reads: a snapshot of the live BucketList (@strata/bucket-list's BucketListSnapshot is one). */
export interface LiveEntrySource {
  /** The ledger the snapshot stands at; the state takes it as its `ledgerSeq`. */
  readonly ledger: number;
  /** Calls `callback` once per live entry of `type` with its newest version (a view valid during the call). */
  scanCurrentLiveEntries(type: number, callback: (entry: Uint8Array) => void): unknown;
  /** Point load of a LedgerKey; used to read the memory cost params when the caller does not pass them. */
  load?(key: Uint8Array): Uint8Array | undefined;
}

export interface SorobanPopulateOptions {
  /** The protocol of the snapshot's ledger (its header's ledgerVersion); before 20 nothing is scanned. */
  readonly protocolVersion: number;
  /** As in SorobanApplyOptions; when absent, read from the source's CONFIG_SETTING entry (as stellar-core does). */
  readonly memCostParams?: Uint8Array;
}

/** What `populate` did, for the log line "Populated in-memory Soroban state in X sec (N data, M code, peak RSS R)". */
export interface PopulationReport {
  readonly data: number;
  readonly code: number;
  readonly seconds: number;
  /** The process's peak resident set size so far (`process.resourceUsage().maxRSS`), in bytes. */
  readonly peakRssBytes: number;
  /** CONTRACT_DATA keys whose hashes the worker thread computed (0 without one; see SorobanStateOptions.hashWorker). */
  readonly keysHashedByWorker: number;
}

/** A stored entry, copied out of the state. */
export interface SorobanStateEntry {
  /** The CONTRACT_DATA / CONTRACT_CODE LedgerEntry XDR; for a TTL key, the TTL LedgerEntry rebuilt from its numbers. */
  readonly entry: Uint8Array;
  /** The entry's TTL; undefined only for an entry whose TTL the state never saw (`entriesWithoutTtl`). */
  readonly liveUntilLedgerSeq: number | undefined;
  readonly ttlLastModifiedLedgerSeq: number | undefined;
}

export interface SorobanStateOptions {
  /** The ledger an empty state stands at (default 0); the first `apply` must be the next one. */
  readonly ledgerSeq?: number;
  /** Bytes of each arena chunk: a power of two from 4 KiB to 64 MiB (default 4 MiB). Small chunks are for tests. */
  readonly arenaChunkBytes?: number;
  /**
   * Whether `populate` hashes CONTRACT_DATA keys on a worker thread while it scans (default true): a second core
   * then takes ~0.3 s of the ~2.2 s it spends on 1 M data entries. The worker (~10 MiB, started with the first 256
   * keys, stopped when the data is in) is only ever a helper: population hashes whatever it has not done in time itself, so the state is the same
   * with or without it, and one that fails to start costs nothing but the speed.
   */
  readonly hashWorker?: boolean;
}

/** Memory the state holds in its arenas and indexes, in bytes. */
export interface SorobanStateMemory {
  /** The record arenas' chunks (live, dead and not yet used bytes). */
  readonly arenaBytes: number;
  /** The hash indexes over the records, and the table of the contract ids compact records refer to. */
  readonly indexBytes: number;
  readonly totalBytes: number;
}

function invalid(detail: string, field: string): never {
  throw new LedgerStateError('INVALID_ARGUMENT', detail, { field });
}

function requireUint32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    invalid(`${field} must be a uint32, got ${String(value)}`, field);
  }
  return value;
}

function requireList(value: unknown, field: string): readonly Uint8Array[] {
  if (!Array.isArray(value)) invalid(`${field} must be an array of Uint8Array`, field);
  if (value.length > MAX_CHANGES_PER_LIST)
    invalid(`${field} holds ${value.length} items (at most ${MAX_CHANGES_PER_LIST})`, field);
  for (let i = 0; i < value.length; i++) {
    if (!(value[i] instanceof Uint8Array)) invalid(`${field}[${i}] must be a Uint8Array`, `${field}[${i}]`);
  }
  return value as readonly Uint8Array[];
}

const u32 = (bytes: Uint8Array, at: number): number =>
  // `!` below: callers check the length first
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/**
 * The in-memory Soroban state of one node. Single-threaded: every method runs to completion on the caller's thread
 * and no method may be called from inside a `forEachEntry` callback or a populate source's scan. In memory only:
 * after a restart, `populate` rebuilds it from the BucketList. A call that fails part-way (the changes contradict
 * the state, the BucketList holds a TTL without its entry) leaves the state unusable (`CLOSED` afterwards): build a
 * new one. Failures found before anything changes (bad arguments, malformed XDR, an out-of-order ledger) leave it
 * as it was.
 */
export class SorobanState {
  readonly #data: RecordStore;
  readonly #code: RecordStore;
  /** TTLs whose entry has not arrived yet (population scans TTLs before code): records without an entry. */
  readonly #pending: RecordStore;
  #ledgerSeq: number;
  #dataSizeBytes = 0;
  #codeSizeBytes = 0;
  #entriesWithoutTtl = 0;
  #failure: unknown;
  /** Set while a method runs callbacks (a populate source's scan, forEachEntry's visitor): re-entry is refused. */
  #busy = false;
  /** The ledger the change in progress belongs to, for error context. */
  #changingLedger = 0;

  /** The key hash of the operation in progress: its bytes, and the same memory as native words for the stores. */
  readonly #hashBytes = new Uint8Array(32);
  readonly #hashWords = new Uint32Array(this.#hashBytes.buffer);
  #keyScratch = new Uint8Array(256);
  /** Hashes keys, resuming each from the blocks it shares with the key before (see key-hash.ts). */
  readonly #hasher = new KeyHasher();
  readonly #hashWorker: boolean;
  /** Data keys the worker hashed in the last population. */
  #keysHashedByWorker = 0;
  /** ledgerEntryLayout's output for the entry at hand: type, key start and end, end, data arm end. */
  readonly #layout = new Int32Array(5);
  /** The stored form of CONTRACT_DATA entries and the contract ids it refers to (compact-data.ts). */
  readonly #compact = new CompactData();
  /** Where forEachEntry rebuilds each CONTRACT_DATA entry's XDR. */
  #entryScratch = new Uint8Array(256);
  /** The fields of the record being written (one object, refilled for every write). */
  readonly #fields: RecordFields = { hasTtl: false, liveUntil: 0, ttlLastModified: 0, aux: 0 };
  /** What RecordStore.touch read (kept so the reads are not optimized away; means nothing). */
  #touched = 0;

  constructor(options: SorobanStateOptions = {}) {
    if (typeof options !== 'object' || options === null) invalid('options must be an object', 'options');
    this.#ledgerSeq = options.ledgerSeq === undefined ? 0 : requireUint32(options.ledgerSeq, 'ledgerSeq');
    const chunkBytes = options.arenaChunkBytes ?? DEFAULT_CHUNK_BYTES;
    if (
      typeof chunkBytes !== 'number' ||
      !Number.isInteger(Math.log2(chunkBytes)) ||
      chunkBytes < MIN_CHUNK_BYTES ||
      chunkBytes > MAX_CHUNK_BYTES
    ) {
      invalid(
        `arenaChunkBytes must be a power of two from ${MIN_CHUNK_BYTES} to ${MAX_CHUNK_BYTES}`,
        'arenaChunkBytes',
      );
    }
    if (options.hashWorker !== undefined && typeof options.hashWorker !== 'boolean')
      invalid('hashWorker must be a boolean', 'hashWorker');
    this.#hashWorker = options.hashWorker ?? true;
    this.#data = new RecordStore(0, chunkBytes);
    this.#code = new RecordStore(1, chunkBytes);
    this.#pending = new RecordStore(0, chunkBytes);
  }

  /** The last ledger applied or populated from. */
  get ledgerSeq(): number {
    return this.#ledgerSeq;
  }

  /** Number of CONTRACT_DATA entries (getContractDataEntryCount). */
  get dataCount(): number {
    return this.#data.count;
  }

  /** Number of CONTRACT_CODE entries (getContractCodeEntryCount). */
  get codeCount(): number {
    return this.#code.count;
  }

  /** Entries whose TTL never arrived: 0 in any state stellar-core holds (it does not check; lookups of them fail). */
  get entriesWithoutTtl(): number {
    return this.#entriesWithoutTtl;
  }

  /** XDR bytes of every CONTRACT_DATA entry. */
  get dataSizeBytes(): number {
    return this.#dataSizeBytes;
  }

  /** Rent size (XDR + module memory, capped at u32) of every CONTRACT_CODE entry, as last priced. */
  get codeSizeBytes(): number {
    return this.#codeSizeBytes;
  }

  /** InMemorySorobanState::getSize: data XDR bytes plus code rent sizes. */
  get stateSizeBytes(): number {
    return this.#dataSizeBytes + this.#codeSizeBytes;
  }

  /** Memory held by the arenas and indexes (what the state allocates itself; the JS object around it aside). */
  memory(): SorobanStateMemory {
    const stores = [this.#data, this.#code, this.#pending];
    const arenaBytes = stores.reduce((sum, store) => sum + store.arenaBytes, 0);
    const indexBytes = stores.reduce((sum, store) => sum + store.indexBytes, 0) + this.#compact.contracts.bytes;
    return { arenaBytes, indexBytes, totalBytes: arenaBytes + indexBytes };
  }

  /**
   * Applies one ledger's changes (InMemorySorobanState::updateState): the init list creates CONTRACT_DATA / CODE
   * entries and TTLs (a TTL attaches to its entry), the live list updates them (a TTL update sets its entry's
   * liveUntil; a data or code update keeps the TTL), the dead list deletes data and code entries (their TTL goes
   * with them; dead TTL keys need nothing). Other entry types are ignored. Before protocol 20 only `ledgerSeq`
   * advances. INCONSISTENT_META when the changes contradict the state (a create of an entry it holds, an update or
   * delete of one it does not, a TTL without its entry at the end).
   */
  apply(changes: SorobanStateChanges, options: SorobanApplyOptions): void {
    this.#usable();
    if (typeof options !== 'object' || options === null) invalid('options must be an object', 'options');
    const ledgerSeq = requireUint32(options.ledgerSeq, 'ledgerSeq');
    const protocolVersion = requireUint32(options.protocolVersion, 'protocolVersion');
    if (ledgerSeq !== this.#ledgerSeq + 1) {
      throw new LedgerStateError('OUT_OF_ORDER', `ledger ${ledgerSeq} does not follow ledger ${this.#ledgerSeq}`, {
        ledger: ledgerSeq,
      });
    }
    if (typeof changes !== 'object' || changes === null) invalid('changes must be an object', 'changes');
    const init = requireList(changes.init, 'init');
    const live = requireList(changes.live, 'live');
    const dead = requireList(changes.dead, 'dead');
    if (protocolVersion < FIRST_PROTOCOL_SOROBAN_STATE) {
      this.#ledgerSeq = ledgerSeq;
      return;
    }
    const models = this.#models(options.memCostParams, ledgerSeq);
    // Everything that can be checked without the state is checked first, so bad input changes nothing.
    const initPlan = this.#planEntries(init, 'init', models, ledgerSeq);
    const livePlan = this.#planEntries(live, 'live', models, ledgerSeq);
    const deadTypes = this.#planKeys(dead, ledgerSeq);
    const fail = 'INCONSISTENT_META';
    this.#change(() => {
      this.#applyEntries(init, initPlan, true, fail);
      this.#applyEntries(live, livePlan, false, fail);
      for (let i = 0; i < dead.length; i++) {
        const type = deadTypes[i]!;
        if (type === DATA || type === CODE) this.#delete(dead[i]!, type, fail);
      }
      this.#checkNoPendingTtl(fail);
      for (const store of [this.#data, this.#code, this.#pending]) store.compact();
    }, ledgerSeq);
    this.#ledgerSeq = ledgerSeq;
  }

  /**
   * Fills an empty state from a BucketList snapshot (InMemorySorobanState::initializeStateFromSnapshot): the current
   * live CONTRACT_DATA entries, then TTLs (a TTL whose entry is not there yet waits), then CONTRACT_CODE entries
   * (each adopting its waiting TTL); afterwards no TTL may be left waiting (INCONSISTENT_STATE — stellar-core
   * asserts). Before protocol 20 nothing is scanned. Takes the source's ledger as `ledgerSeq`.
   */
  populate(source: LiveEntrySource, options: SorobanPopulateOptions): PopulationReport {
    this.#usable();
    if (this.#data.count !== 0 || this.#code.count !== 0 || this.#pending.count !== 0) {
      invalid('populate needs an empty state', 'state');
    }
    if (typeof source !== 'object' || source === null || typeof source.scanCurrentLiveEntries !== 'function') {
      invalid('source must have scanCurrentLiveEntries(type, callback)', 'source');
    }
    const ledgerSeq = requireUint32(source.ledger, 'source.ledger');
    if (typeof options !== 'object' || options === null) invalid('options must be an object', 'options');
    const protocolVersion = requireUint32(options.protocolVersion, 'protocolVersion');
    const started = performance.now();
    if (protocolVersion >= FIRST_PROTOCOL_SOROBAN_STATE) {
      const models = this.#models(options.memCostParams ?? memCostParamsOf(source, ledgerSeq), ledgerSeq);
      const fail = 'INCONSISTENT_STATE';
      const layout = this.#layout;
      this.#change(() => {
        // the data's hash order goes straight to the TTL pass: nothing holds it during the code pass
        this.#attachTtls(source, ledgerSeq, this.#loadData(source, ledgerSeq, fail), fail);
        this.#scan(source, CODE, ledgerSeq, (entry) =>
          this.#createCode(entry, layout[1]!, layout[2]!, this.#codeSizeOf(entry, models, ledgerSeq, 'entry'), fail),
        );
        this.#checkNoPendingTtl(fail);
      }, ledgerSeq);
    }
    this.#ledgerSeq = ledgerSeq;
    return {
      data: this.#data.count,
      code: this.#code.count,
      seconds: (performance.now() - started) / 1000,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      keysHashedByWorker: this.#keysHashedByWorker,
    };
  }

  /**
   * Prices every CONTRACT_CODE entry again with new memory cost params (InMemorySorobanState::
   * recomputeContractCodeSize). stellar-core calls it while applying a ledger's upgrades — a protocol upgrade to 23
   * or later, or an upgrade of CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES — before that ledger's changes reach
   * the state, and writes the new size over the whole size window; code entries priced otherwise keep the size of
   * the params they were written under. Changes nothing when any entry cannot be priced.
   */
  recomputeContractCodeSizes(memCostParams: Uint8Array): void {
    this.#usable();
    const models = this.#models(memCostParams, this.#ledgerSeq);
    const code = this.#code;
    const addresses = [...code.addresses()];
    const sizes = addresses.map((address) =>
      this.#codeSizeOf(code.entryView(address), models, this.#ledgerSeq, 'entry'),
    );
    let total = 0;
    addresses.forEach((address, i) => {
      // `!`: one size per address
      code.setAux(address, sizes[i]!);
      total += sizes[i]!;
    });
    this.#codeSizeBytes = total;
  }

  /**
   * The entry for a CONTRACT_DATA or CONTRACT_CODE LedgerKey (XDR), or for a TTL key the TTL entry stellar-core
   * would rebuild from it; undefined when absent (or, for a TTL key, when its entry has no TTL).
   */
  get(key: Uint8Array): SorobanStateEntry | undefined {
    this.#usable();
    const type = this.#hashQueryKey(key);
    if (type === TTL) {
      const found = this.#findTtlOwner();
      if (found === undefined || (found.w[found.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0) return undefined;
      const liveUntil = found.w[found.p + WORD_LIVE_UNTIL]!;
      const lastModified = found.w[found.p + WORD_TTL_LAST_MODIFIED]!;
      return {
        entry: ttlEntryOf(this.#hashBytes, liveUntil, lastModified),
        liveUntilLedgerSeq: liveUntil,
        ttlLastModifiedLedgerSeq: lastModified,
      };
    }
    const store = type === DATA ? this.#data : this.#code;
    const slot = store.find(this.#hashWords);
    if (slot < 0) return undefined;
    const address = store.addressAt(slot);
    const stored = store.entryView(address);
    const entry = type === DATA ? this.#compact.decode(stored) : stored.slice();
    const hasTtl = (store.w[store.p + WORD_LENGTH]! & FLAG_HAS_TTL) !== 0;
    return {
      entry,
      liveUntilLedgerSeq: hasTtl ? store.w[store.p + WORD_LIVE_UNTIL]! : undefined,
      ttlLastModifiedLedgerSeq: hasTtl ? store.w[store.p + WORD_TTL_LAST_MODIFIED]! : undefined,
    };
  }

  /**
   * Whether the state holds the entry of a CONTRACT_DATA / CONTRACT_CODE LedgerKey, or for a TTL key whether its
   * entry has a TTL (hasTTL). What the change fold's `wasLive` asks for a RESTORED key.
   */
  has(key: Uint8Array): boolean {
    this.#usable();
    const type = this.#hashQueryKey(key);
    if (type === TTL) {
      const found = this.#findTtlOwner();
      return found !== undefined && (found.w[found.p + WORD_LENGTH]! & FLAG_HAS_TTL) !== 0;
    }
    return (type === DATA ? this.#data : this.#code).find(this.#hashWords) >= 0;
  }

  /**
   * liveUntilLedgerSeq of the TTL with key hash `ttlKeyHash` (32 bytes: SHA-256 of the data / code LedgerKey), or
   * undefined when the state holds no such entry or it has no TTL. The eviction scan's TTL lookup.
   */
  liveUntilOf(ttlKeyHash: Uint8Array): number | undefined {
    this.#usable();
    if (!(ttlKeyHash instanceof Uint8Array) || ttlKeyHash.length !== 32) {
      invalid('ttlKeyHash must be a 32-byte Uint8Array', 'ttlKeyHash');
    }
    this.#hashBytes.set(ttlKeyHash);
    const found = this.#findTtlOwner();
    if (found === undefined || (found.w[found.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0) return undefined;
    return found.w[found.p + WORD_LIVE_UNTIL]!;
  }

  /**
   * Calls `visit` for every entry, CONTRACT_DATA first, then CONTRACT_CODE, in no meaningful order: the entry XDR
   * and its 32-byte TTL key hash as views into the state (valid during the call only), and its TTL (undefined if
   * none). The state must not be changed from inside `visit`.
   */
  forEachEntry(
    visit: (
      entry: Uint8Array,
      liveUntilLedgerSeq: number | undefined,
      ttlLastModifiedLedgerSeq: number | undefined,
      ttlKeyHash: Uint8Array,
    ) => void,
  ): void {
    this.#usable();
    if (typeof visit !== 'function') invalid('visit must be a function', 'visit');
    this.#busy = true;
    try {
      for (const store of [this.#data, this.#code]) {
        for (const address of store.addresses()) {
          const stored = store.entryView(address);
          const entry = store === this.#data ? this.#decodeToScratch(stored) : stored;
          const { w, p } = store;
          const hasTtl = (w[p + WORD_LENGTH]! & FLAG_HAS_TTL) !== 0;
          visit(
            entry,
            hasTtl ? w[p + WORD_LIVE_UNTIL]! : undefined,
            hasTtl ? w[p + WORD_TTL_LAST_MODIFIED]! : undefined,
            store.hashView(address),
          );
        }
      }
    } finally {
      this.#busy = false;
    }
  }

  /** A stored CONTRACT_DATA record's entry XDR, rebuilt in #entryScratch (valid until the next call). */
  #decodeToScratch(stored: Uint8Array): Uint8Array {
    const length = entryLengthOf(stored.length, isCompact(stored));
    if (this.#entryScratch.length < length)
      this.#entryScratch = new Uint8Array(Math.max(length, 2 * this.#entryScratch.length));
    return this.#compact.decodeInto(stored, this.#entryScratch);
  }

  #usable(): void {
    if (this.#failure !== undefined) {
      throw new LedgerStateError('CLOSED', 'the Soroban state failed part-way through a change: build it again', {
        cause: this.#failure,
      });
    }
    if (this.#busy) invalid('the Soroban state was called from inside one of its own callbacks', 'state');
  }

  /** Runs a change; if it throws, the state is left failed (it may be half-way through). */
  #change(body: () => void, ledgerSeq: number): void {
    this.#changingLedger = ledgerSeq;
    this.#busy = true;
    try {
      body();
    } catch (error) {
      this.#failure = error;
      if (error instanceof LedgerStateError || error instanceof AssertionError) throw error;
      throw new LedgerStateError('IO', `reading the BucketList failed: ${String(error)}`, {
        ledger: ledgerSeq,
        cause: error,
      });
    } finally {
      this.#busy = false;
    }
  }

  #models(memCostParams: Uint8Array | undefined, ledgerSeq: number): MemoryCostModels {
    if (memCostParams === undefined)
      invalid(`memCostParams is required from protocol ${FIRST_PROTOCOL_SOROBAN_STATE}`, 'memCostParams');
    try {
      return readMemoryCostParams(memCostParams);
    } catch (error) {
      if (error instanceof LedgerStateError && error.code === 'BAD_ENTRY') {
        throw new LedgerStateError('BAD_ENTRY', error.message, {
          ledger: ledgerSeq,
          field: 'memCostParams',
          cause: error,
        });
      }
      throw error;
    }
  }

  /** The init list (creates) or the live list (updates) of a ledger, in list order. */
  #applyEntries(entries: readonly Uint8Array[], plan: EntryPlan, created: boolean, fail: LedgerStateErrorCode): void {
    for (let i = 0; i < entries.length; i++) {
      // `!` below: plans have one slot per item
      const entry = entries[i]!;
      const type = plan.types[i]!;
      const keyStart = plan.keyStarts[i]!;
      const keyEnd = plan.keyEnds[i]!;
      if (type === DATA) {
        const dataEnd = plan.dataEnds[i]!;
        if (created) this.#createData(entry, keyStart, keyEnd, dataEnd, fail);
        else this.#updateData(entry, keyStart, keyEnd, dataEnd, fail);
      } else if (type === CODE) {
        const size = plan.codeSizes[i]!;
        if (created) this.#createCode(entry, keyStart, keyEnd, size, fail);
        else this.#updateCode(entry, keyStart, keyEnd, size, fail);
      } else if (type === TTL) {
        if (created) this.#createTtl(entry, fail);
        else this.#updateTtl(entry, fail);
      }
    }
  }

  /** Validates the Soroban entries of a change list and records their types, key offsets and code rent sizes. */
  #planEntries(entries: readonly Uint8Array[], list: string, models: MemoryCostModels, ledgerSeq: number): EntryPlan {
    const plan: EntryPlan = {
      types: new Int32Array(entries.length),
      keyStarts: new Int32Array(entries.length),
      keyEnds: new Int32Array(entries.length),
      dataEnds: new Int32Array(entries.length),
      codeSizes: [],
    };
    for (let i = 0; i < entries.length; i++) {
      // `!`: i is in range
      const entry = entries[i]!;
      const field = `${list}[${i}]`;
      if (entry.length < 8) badEntry(`${field} is too short for a LedgerEntry`, field, ledgerSeq);
      if (entry.length > MAX_RECORD_ENTRY_BYTES)
        badEntry(`${field} is ${entry.length} bytes (at most ${MAX_RECORD_ENTRY_BYTES})`, field, ledgerSeq);
      const type = u32(entry, 4);
      if (type !== DATA && type !== CODE && type !== TTL) continue; // not kept in this state
      this.#validateEntry(entry, field, ledgerSeq);
      plan.types[i] = type;
      plan.keyStarts[i] = this.#layout[1]!;
      plan.keyEnds[i] = this.#layout[2]!;
      plan.dataEnds[i] = this.#layout[4]!;
      if (type === CODE) plan.codeSizes[i] = this.#codeSizeOf(entry, models, ledgerSeq, field);
    }
    return plan;
  }

  /** Validates the dead keys and returns their types (0 for keys of types this state does not keep). */
  #planKeys(keys: readonly Uint8Array[], ledgerSeq: number): Int32Array {
    const types = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      // `!`: i is in range
      const key = keys[i]!;
      const field = `dead[${i}]`;
      if (key.length < 4) badEntry(`${field} is too short for a LedgerKey`, field, ledgerSeq);
      if (key.length > MAX_RECORD_ENTRY_BYTES)
        badEntry(`${field} is ${key.length} bytes (at most ${MAX_RECORD_ENTRY_BYTES})`, field, ledgerSeq);
      const type = u32(key, 0);
      if (type !== DATA && type !== CODE) continue;
      try {
        validateLedgerKey(key);
      } catch (error) {
        if (!(error instanceof LedgerKeyError)) throw error;
        badEntry(`${field} is not a LedgerKey: ${error.message}`, field, ledgerSeq, error);
      }
      types[i] = type;
    }
    return types;
  }

  /** Validates one LedgerEntry filling `entry` whole; leaves its layout in #layout. BAD_ENTRY otherwise. */
  #validateEntry(entry: Uint8Array, field: string, ledgerSeq: number): void {
    try {
      ledgerEntryLayout(entry, 0, this.#layout);
    } catch (error) {
      if (!(error instanceof LedgerKeyError)) throw error;
      badEntry(`${field} is not a LedgerEntry: ${error.message}`, field, ledgerSeq, error);
    }
    if (this.#layout[3] !== entry.length) badEntry(`${field} has bytes after its LedgerEntry`, field, ledgerSeq);
  }

  /** The rent size of a validated CONTRACT_CODE entry (contractCodeSizeForRent, at least protocol 23 rules). */
  #codeSizeOf(entry: Uint8Array, models: MemoryCostModels, ledgerSeq: number, field: string): number {
    // ledgerEntryLayout put the end of the code's key (its hash) at #layout[2] when the entry was validated; find it
    // again here for entries read back from the state, whose layout is not at hand.
    const extStart = 8;
    const codeLengthAt = extStart + (u32(entry, extStart) === 0 ? 4 : 52) + 32;
    try {
      return codeSizeForRent(entry, moduleMemoryCost(entry, extStart, codeLengthAt, models));
    } catch (error) {
      if (!(error instanceof LedgerStateError)) throw error;
      throw new LedgerStateError(error.code, error.message, { ledger: ledgerSeq, field, cause: error });
    }
  }

  #scan(source: LiveEntrySource, type: number, ledgerSeq: number, add: (entry: Uint8Array) => void): void {
    const layout = this.#layout;
    source.scanCurrentLiveEntries(type, (entry: Uint8Array) => {
      if (!(entry instanceof Uint8Array) || entry.length < 8)
        badEntry('the scan gave something that is not a LedgerEntry', 'entry', ledgerSeq);
      // A TTL entry without extension is 48 bytes whatever its fields hold (lastModifiedLedgerSeq, type 9, key hash,
      // liveUntilLedgerSeq, ext v0): that check is the whole validation, and its layout is fixed. Anything else (an
      // entry with a v1 ext, a wrong type, bad bytes) takes the full validation.
      if (entry.length === TTL_ENTRY_BYTES && u32(entry, 4) === TTL && u32(entry, 44) === 0) {
        layout[0] = TTL;
        layout[1] = 8;
        layout[2] = 40;
        layout[3] = TTL_ENTRY_BYTES;
      } else {
        this.#validateEntry(entry, 'entry', ledgerSeq);
      }
      if (this.#layout[0] !== type) {
        throw new LedgerStateError(
          'INCONSISTENT_STATE',
          `the scan of type ${type} gave a type ${this.#layout[0]} entry`,
          {
            ledger: ledgerSeq,
          },
        );
      }
      add(entry);
    });
  }

  /**
   * Population's CONTRACT_DATA pass (createContractDataEntry for each, into an empty state). Records are appended and
   * indexed once at the end, the index sized for all of them (growing it as they came and probing for each took a
   * third of this pass). Their keys are hashed a batch at a time: copied into a KeyHashPipeline batch as they come,
   * hashed there in a row (~100 ns a key less than hashing each between two steps of the scan), on the worker thread
   * when one runs (~0.3 s of this thread's ~2.3 s for 1 M keys), the hashes then written into the records. The
   * records' hash prefixes and addresses come back sorted by hash for the TTL pass. Nothing waits in #pending yet
   * (data comes first), so no entry has a TTL.
   */
  #loadData(source: LiveEntrySource, ledgerSeq: number, fail: LedgerStateErrorCode): HashOrder {
    const data = this.#data;
    const layout = this.#layout;
    const compact = this.#compact;
    const fields = this.#fields;
    fields.hasTtl = false;
    fields.liveUntil = 0;
    fields.ttlLastModified = 0;
    fields.aux = 0;
    let pairs: Uint32Array = new Uint32Array(2048);
    let count = 0;
    // Each batch's hashes: their first words (big-endian) into the pairs, all of them into the records (tags are
    // the records' ordinals).
    const pipeline = new KeyHashPipeline(
      this.#hasher,
      (tags, tagAt, batchCount, words, wordAt) => {
        for (let i = 0; i < batchCount; i++) {
          // `!` below: the batch's tags and hashes are in range
          const ordinal = tags[tagAt + i]!;
          pairs[2 * ordinal] = bigEndianWord(words[wordAt + 8 * i]!);
          data.setHash(pairs[2 * ordinal + 1]!, words, wordAt + 8 * i);
        }
      },
      this.#hashWorker ? startKeyHashWorker : null,
    );
    const keys = pipeline.bytes;
    try {
      this.#scan(source, DATA, ledgerSeq, (entry) => {
        // `!` below: #scan left the entry's layout; a validated entry has its type word
        const keyStart = layout[1]!;
        const keyEnd = layout[2]!;
        const length = 4 + keyEnd - keyStart;
        const room = (length + SHA256_PADDING_BYTES + 7) & ~7;
        if (2 * count === pairs.length) pairs = grown(pairs);
        if (room > KEY_BATCH_BYTES) {
          // a key too long for a batch (none is in practice) is hashed alone
          this.#hashEntryKey(entry, keyStart, keyEnd);
          pairs[2 * count] = u32(this.#hashBytes, 0);
          pairs[2 * count + 1] = data.append(this.#hashWords, compact.encode(entry, layout[4]!), fields);
        } else {
          if (!pipeline.fits(room)) pipeline.publish();
          // The LedgerKey: the entry's data type, then its key fields.
          const at = pipeline.base + pipeline.used;
          keys[at] = entry[4]!;
          keys[at + 1] = entry[5]!;
          keys[at + 2] = entry[6]!;
          keys[at + 3] = entry[7]!;
          keys.set(new Uint8Array(entry.buffer, entry.byteOffset + keyStart, keyEnd - keyStart), at + 4);
          // the hash is written when the batch's hashes arrive (the pairs first: they may arrive at once)
          // the stored form straight into the arena
          const stored = compact.compactable(entry, layout[4]!);
          pairs[2 * count + 1] = data.reserve(NO_HASH, storedLengthOf(entry.length, stored), fields);
          compact.writeStored(entry, stored, data.entryChunk, data.entryAt);
          pipeline.add(length, room, count);
        }
        count++;
        this.#dataSizeBytes += entry.length;
        this.#entriesWithoutTtl++;
      });
      pipeline.finish();
    } finally {
      // a scan that failed part-way leaves the worker to stop (after finish: nothing left to stop)
      pipeline.abandon();
      this.#keysHashedByWorker = pipeline.stats.byWorker;
    }
    const duplicate = data.indexAppended();
    if (duplicate >= 0) {
      this.#hashBytes.set(data.hashView(duplicate));
      this.#contradiction(fail, 'a CONTRACT_DATA entry created twice');
    }
    sortByHash(data, pairs, count);
    return { pairs, count };
  }

  /**
   * Population's TTL pass (createTTL for each). The loser-tree scan gives TTLs in key order, which is their key
   * hashes' order, so each finds its CONTRACT_DATA entry by a merge with the data's hash order instead of an index
   * probe. A TTL whose hash prefix only one data record has is taken for that record's and queued: a batch of them
   * reads their records together first (the records lie at random in a large arena, and independent reads overlap
   * where one TTL at a time waits for each), then checks each whole hash and writes the TTL. A TTL that does not sort
   * after the last data record the merge passed (a source in another order, a TTL given twice), one without a data
   * entry (a code entry's: it waits in #pending) and one whose queued record turns out not to be its own take the
   * index path, as createTTL does; the queue is emptied before each, so TTLs take effect in the order given.
   */
  #attachTtls(source: LiveEntrySource, ledgerSeq: number, order: HashOrder, fail: LedgerStateErrorCode): void {
    const data = this.#data;
    const { pairs, count } = order;
    // The queue: each TTL's record, and the TTL's first TTL_QUEUED_BYTES bytes (lastModified, type, hash, liveUntil).
    const queued = new Uint32Array(TTL_QUEUE);
    const ttls = new Uint8Array(TTL_QUEUE * TTL_QUEUED_BYTES);
    let length = 0;
    const flush = () => {
      this.#touched += data.touch(queued, length);
      for (let i = 0; i < length; i++) {
        const at = i * TTL_QUEUED_BYTES;
        // `!`: i is below the queue's length
        const address = queued[i]!;
        if (data.compareHash(address, ttls, at + 8) !== 0) {
          this.#createTtl(ttls.subarray(at, at + TTL_QUEUED_BYTES), fail);
          continue;
        }
        data.locate(address);
        // A record the merge queued is one no TTL reached before: the index path takes only TTLs of records passed.
        assert((data.w[data.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0, 'the merge meets each record before its TTL');
        this.#setTtl(data, u32(ttls, at + 40), u32(ttls, at));
        this.#entriesWithoutTtl--;
      }
      length = 0;
    };
    const byIndex = (entry: Uint8Array) => {
      flush();
      this.#createTtl(entry, fail);
    };
    // Every record before `next` in hash order sorts before the last TTL the merge took.
    let next = 0;
    this.#scan(source, TTL, ledgerSeq, (entry) => {
      const prefix = u32(entry, 8);
      // `!` below: next - 1 and next are below count where read
      if (
        next > 0 &&
        prefix <= pairs[2 * (next - 1)]! &&
        (prefix < pairs[2 * (next - 1)]! || data.compareHash(pairs[2 * (next - 1) + 1]!, entry, 8) >= 0)
      ) {
        byIndex(entry);
        return;
      }
      while (next < count && pairs[2 * next]! < prefix) next++;
      if (next === count || pairs[2 * next] !== prefix) {
        byIndex(entry);
        return;
      }
      if (next + 1 === count || pairs[2 * (next + 1)] !== prefix) {
        queued[length] = pairs[2 * next + 1]!;
        const at = length * TTL_QUEUED_BYTES;
        for (let i = 0; i < TTL_QUEUED_BYTES; i++) ttls[at + i] = entry[i]!;
        next++;
        if (++length === TTL_QUEUE) flush();
        return;
      }
      // Several records share the prefix (a few in a million): find the TTL's among them now.
      let order = 1;
      while (next < count && pairs[2 * next] === prefix) {
        order = data.compareHash(pairs[2 * next + 1]!, entry, 8);
        if (order > 0) break;
        next++;
        if (order === 0) break;
      }
      if (order !== 0) {
        byIndex(entry);
        return;
      }
      data.locate(pairs[2 * (next - 1) + 1]!);
      assert((data.w[data.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0, 'the merge meets each record before its TTL');
      this.#setTtl(data, u32(entry, 40), u32(entry, 0));
      this.#entriesWithoutTtl--;
    });
    flush();
  }

  /** Puts the TTL key hash of the entry whose key fields are `entry[keyStart, keyEnd)` into #hashBytes. */
  #hashEntryKey(entry: Uint8Array, keyStart: number, keyEnd: number): void {
    const length = 4 + keyEnd - keyStart;
    const scratch = this.#scratchFor(length);
    // The LedgerKey: the entry's data type, then its key fields. `!`: a validated entry has its type word.
    scratch[0] = entry[4]!;
    scratch[1] = entry[5]!;
    scratch[2] = entry[6]!;
    scratch[3] = entry[7]!;
    // The constructor form of the view: about twice as fast as `subarray`, which matters once per entry.
    scratch.set(new Uint8Array(entry.buffer, entry.byteOffset + keyStart, keyEnd - keyStart), 4);
    this.#hasher.hashInto(scratch, length, this.#hashBytes);
  }

  /** Puts SHA-256 of a (validated, bounded) LedgerKey into #hashBytes. */
  #hashLedgerKey(key: Uint8Array): void {
    const scratch = this.#scratchFor(key.length);
    scratch.set(key, 0);
    this.#hasher.hashInto(scratch, key.length, this.#hashBytes);
  }

  /** The key scratch buffer, with room for `length` bytes of message and the hash's padding. */
  #scratchFor(length: number): Uint8Array {
    const needed = length + SHA256_PADDING_BYTES;
    if (this.#keyScratch.length < needed)
      this.#keyScratch = new Uint8Array(Math.max(needed, 2 * this.#keyScratch.length));
    return this.#keyScratch;
  }

  /** Validates a caller's LedgerKey, puts its TTL key hash into #hashBytes, and returns its type. */
  #hashQueryKey(key: Uint8Array): number {
    if (!(key instanceof Uint8Array)) invalid('key must be a LedgerKey XDR (a Uint8Array)', 'key');
    if (key.length > MAX_RECORD_ENTRY_BYTES)
      invalid(`key is ${key.length} bytes (at most ${MAX_RECORD_ENTRY_BYTES})`, 'key');
    try {
      validateLedgerKey(key);
    } catch (error) {
      if (!(error instanceof LedgerKeyError)) throw error;
      throw new LedgerStateError('INVALID_ARGUMENT', `key is not a LedgerKey: ${error.message}`, {
        field: 'key',
        cause: error,
      });
    }
    const type = u32(key, 0);
    if (type === TTL) this.#hashBytes.set(key.subarray(4, 36));
    else if (type === DATA || type === CODE) this.#hashLedgerKey(key);
    else invalid(`the Soroban state holds no type ${type} entries`, 'key');
    return type;
  }

  /** The data or code record whose hash is #hashBytes (stellar-core looks in both maps, data first), located. */
  #findTtlOwner(): RecordStore | undefined {
    const data = this.#data;
    let slot = data.find(this.#hashWords);
    if (slot >= 0) {
      data.locate(data.addressAt(slot));
      return data;
    }
    const code = this.#code;
    slot = code.count === 0 ? -1 : code.find(this.#hashWords);
    if (slot < 0) return undefined;
    code.locate(code.addressAt(slot));
    return code;
  }

  /** Puts the key hash of the TTL entry `entry` (bytes 8..40) into #hashBytes. */
  #setTtlKeyHash(entry: Uint8Array): void {
    const target = this.#hashBytes;
    // `!`: validated TTL entries are 48 bytes or more
    for (let i = 0; i < 32; i++) target[i] = entry[8 + i]!;
  }

  /** Fills #fields for a new entry: the TTL waiting for #hashBytes, if any (taken), and the auxiliary word. */
  #fieldsForNewEntry(aux: number): RecordFields {
    const fields = this.#fields;
    fields.hasTtl = false;
    fields.liveUntil = 0;
    fields.ttlLastModified = 0;
    fields.aux = aux;
    const pending = this.#pending;
    const slot = pending.count === 0 ? -1 : pending.find(this.#hashWords);
    if (slot >= 0) {
      pending.locate(pending.addressAt(slot));
      fields.hasTtl = true;
      fields.liveUntil = pending.w[pending.p + WORD_LIVE_UNTIL]!;
      fields.ttlLastModified = pending.w[pending.p + WORD_TTL_LAST_MODIFIED]!;
      pending.remove(slot);
    } else {
      this.#entriesWithoutTtl++;
    }
    return fields;
  }

  /** Fills #fields with the TTL of the record `store` last located, and `aux`. */
  #fieldsKeepingTtl(store: RecordStore, aux: number): RecordFields {
    const fields = this.#fields;
    fields.hasTtl = (store.w[store.p + WORD_LENGTH]! & FLAG_HAS_TTL) !== 0;
    fields.liveUntil = store.w[store.p + WORD_LIVE_UNTIL]!;
    fields.ttlLastModified = store.w[store.p + WORD_TTL_LAST_MODIFIED]!;
    fields.aux = aux;
    return fields;
  }

  #createData(entry: Uint8Array, keyStart: number, keyEnd: number, dataEnd: number, fail: LedgerStateErrorCode): void {
    this.#hashEntryKey(entry, keyStart, keyEnd);
    if (this.#data.find(this.#hashWords) >= 0) this.#contradiction(fail, 'a CONTRACT_DATA entry created twice');
    const fields = this.#fieldsForNewEntry(0);
    const stored = this.#compact.encode(entry, dataEnd);
    this.#data.insert(this.#hashWords, stored, stored.length, fields);
    this.#dataSizeBytes += entry.length;
  }

  #createCode(
    entry: Uint8Array,
    keyStart: number,
    keyEnd: number,
    sizeForRent: number,
    fail: LedgerStateErrorCode,
  ): void {
    this.#hashEntryKey(entry, keyStart, keyEnd);
    if (this.#code.find(this.#hashWords) >= 0) this.#contradiction(fail, 'a CONTRACT_CODE entry created twice');
    this.#code.insert(this.#hashWords, entry, entry.length, this.#fieldsForNewEntry(sizeForRent));
    this.#codeSizeBytes += sizeForRent;
  }

  /** createTTL: attach to the data or code entry (which must have none yet), else wait for it. */
  #createTtl(entry: Uint8Array, fail: LedgerStateErrorCode): void {
    this.#setTtlKeyHash(entry);
    const liveUntil = u32(entry, 40);
    const lastModified = u32(entry, 0);
    const owner = this.#findTtlOwner();
    if (owner !== undefined) {
      if ((owner.w[owner.p + WORD_LENGTH]! & FLAG_HAS_TTL) !== 0)
        this.#contradiction(fail, 'a TTL created for an entry that has one');
      this.#setTtl(owner, liveUntil, lastModified);
      this.#entriesWithoutTtl--;
      return;
    }
    if (this.#pending.find(this.#hashWords) >= 0) this.#contradiction(fail, 'a TTL created twice');
    const fields = this.#fields;
    fields.hasTtl = true;
    fields.liveUntil = liveUntil;
    fields.ttlLastModified = lastModified;
    fields.aux = 0;
    this.#pending.insert(this.#hashWords, undefined, 0, fields);
  }

  /** updateTTL: the TTL's data or code entry must exist. */
  #updateTtl(entry: Uint8Array, fail: LedgerStateErrorCode): void {
    this.#setTtlKeyHash(entry);
    const owner = this.#findTtlOwner();
    if (owner === undefined) this.#contradiction(fail, 'an update of a TTL whose entry the state does not hold');
    if ((owner.w[owner.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0) this.#entriesWithoutTtl--;
    this.#setTtl(owner, u32(entry, 40), u32(entry, 0));
  }

  /** Sets the TTL of the record `owner` last located. */
  #setTtl(owner: RecordStore, liveUntil: number, lastModified: number): void {
    const { w, p } = owner;
    w[p + WORD_LIVE_UNTIL] = liveUntil;
    w[p + WORD_TTL_LAST_MODIFIED] = lastModified;
    w[p + WORD_LENGTH] = w[p + WORD_LENGTH]! | FLAG_HAS_TTL;
  }

  /** updateContractData: replace the entry, keep its TTL. */
  #updateData(entry: Uint8Array, keyStart: number, keyEnd: number, dataEnd: number, fail: LedgerStateErrorCode): void {
    this.#hashEntryKey(entry, keyStart, keyEnd);
    const data = this.#data;
    const slot = data.find(this.#hashWords);
    if (slot < 0) this.#contradiction(fail, 'an update of a CONTRACT_DATA entry the state does not hold');
    // the new form first: its contract keeps its ref when the old record held the only one
    const stored = this.#compact.encode(entry, dataEnd);
    const old = data.entryView(data.addressAt(slot));
    this.#dataSizeBytes += entry.length - entryLengthOf(old.length, isCompact(old));
    this.#compact.release(old);
    data.replace(slot, stored, this.#fieldsKeepingTtl(data, 0));
  }

  /** updateContractCode: replace the entry and its rent size, keep its TTL (which it must have). */
  #updateCode(
    entry: Uint8Array,
    keyStart: number,
    keyEnd: number,
    sizeForRent: number,
    fail: LedgerStateErrorCode,
  ): void {
    this.#hashEntryKey(entry, keyStart, keyEnd);
    const code = this.#code;
    const slot = code.find(this.#hashWords);
    if (slot < 0) this.#contradiction(fail, 'an update of a CONTRACT_CODE entry the state does not hold');
    code.locate(code.addressAt(slot));
    if ((code.w[code.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0) {
      this.#contradiction(fail, 'an update of a CONTRACT_CODE entry without a TTL');
    }
    this.#codeSizeBytes += sizeForRent - code.w[code.p + WORD_AUX]!;
    code.replace(slot, entry, this.#fieldsKeepingTtl(code, sizeForRent));
  }

  /** deleteContractData / deleteContractCode of a validated LedgerKey. */
  #delete(key: Uint8Array, type: number, fail: LedgerStateErrorCode): void {
    this.#hashLedgerKey(key);
    const store = type === DATA ? this.#data : this.#code;
    const slot = store.find(this.#hashWords);
    if (slot < 0)
      this.#contradiction(
        fail,
        `a delete of a ${type === DATA ? 'CONTRACT_DATA' : 'CONTRACT_CODE'} entry the state does not hold`,
      );
    const stored = store.entryView(store.addressAt(slot));
    if ((store.w[store.p + WORD_LENGTH]! & FLAG_HAS_TTL) === 0) this.#entriesWithoutTtl--;
    if (type === DATA) {
      this.#dataSizeBytes -= entryLengthOf(stored.length, isCompact(stored));
      this.#compact.release(stored);
    } else {
      this.#codeSizeBytes -= store.w[store.p + WORD_AUX]!;
    }
    store.remove(slot);
  }

  #checkNoPendingTtl(fail: LedgerStateErrorCode): void {
    const waiting = this.#pending.count;
    if (waiting === 0) return;
    let first = '';
    for (const address of this.#pending.addresses()) {
      first = Buffer.from(this.#pending.hashView(address)).toString('hex');
      break;
    }
    this.#contradiction(
      fail,
      `${waiting} TTL entr${waiting === 1 ? 'y' : 'ies'} without their CONTRACT_DATA / CONTRACT_CODE entry (first key hash ${first})`,
    );
  }

  #contradiction(code: LedgerStateErrorCode, detail: string): never {
    const where =
      code === 'INCONSISTENT_META' ? 'the changes contradict the state' : 'the BucketList contradicts itself';
    throw new LedgerStateError(code, `${where}: ${detail} (key hash ${Buffer.from(this.#hashBytes).toString('hex')})`, {
      ledger: this.#changingLedger,
    });
  }
}

/** Population's CONTRACT_DATA records in key hash order. */
interface HashOrder {
  /** Per record, in hash order: its hash's first word (big-endian), then its address. */
  readonly pairs: Uint32Array;
  readonly count: number;
}

/** A copy of `array` twice as long. */
function grown(array: Uint32Array): Uint32Array {
  const copy = new Uint32Array(2 * array.length);
  copy.set(array);
  return copy;
}

/**
 * Sorts the first `count` records (`pairs`: each one's hash prefix, then its address) by key hash: a radix sort on the
 * prefixes (two stable 16-bit passes through a second array, which population's peak memory has room for: the peak
 * comes later, with the code entries), then records sharing a prefix (a few in a million: hashes are uniform) by
 * insertion, by their whole hashes read from the store. An in-place (American flag) sort took twice as long.
 */
function sortByHash(store: RecordStore, pairs: Uint32Array, count: number): void {
  const other = new Uint32Array(2 * count);
  radixPass(pairs, other, count, 0);
  radixPass(other, pairs, count, 16);
  // `!` below: indexes stay below count
  for (let start = 0; start < count; ) {
    let stop = start + 1;
    while (stop < count && pairs[2 * stop] === pairs[2 * start]) stop++;
    // a run of one prefix: by whole hashes (only the addresses move)
    for (let i = start + 1; i < stop; i++) {
      const address = pairs[2 * i + 1]!;
      const hash = store.hashView(address).slice();
      let j = i;
      while (j > start && store.compareHash(pairs[2 * (j - 1) + 1]!, hash, 0) > 0) {
        pairs[2 * j + 1] = pairs[2 * (j - 1) + 1]!;
        j--;
      }
      pairs[2 * j + 1] = address;
    }
    start = stop;
  }
}

/** One stable counting-sort pass of the pairs in `from` into `to`, by the prefixes' 16 bits from `shift`. */
function radixPass(from: Uint32Array, to: Uint32Array, count: number, shift: number): void {
  const starts = new Int32Array(1 << 16);
  // `!` below: indexes stay below count, digits below 2^16
  for (let i = 0; i < count; i++) starts[(from[2 * i]! >>> shift) & 0xffff]!++;
  for (let digit = 0, sum = 0; digit < starts.length; digit++) {
    const n = starts[digit]!;
    starts[digit] = sum;
    sum += n;
  }
  for (let i = 0; i < count; i++) {
    const prefix = from[2 * i]!;
    const at = starts[(prefix >>> shift) & 0xffff]!++;
    to[2 * at] = prefix;
    to[2 * at + 1] = from[2 * i + 1]!;
  }
}

interface EntryPlan {
  /** LedgerEntryType of each Soroban entry; 0 for entries of other types (ignored). */
  readonly types: Int32Array;
  readonly keyStarts: Int32Array;
  readonly keyEnds: Int32Array;
  /** Where each entry's data arm ends (its LedgerEntry.ext starts). */
  readonly dataEnds: Int32Array;
  /** Rent size of each CONTRACT_CODE entry, by position. */
  readonly codeSizes: number[];
}

function badEntry(detail: string, field: string, ledger: number, cause?: unknown): never {
  throw new LedgerStateError('BAD_ENTRY', detail, { field, ledger, ...(cause === undefined ? {} : { cause }) });
}

/** The TTL LedgerEntry stellar-core rebuilds from a stored TTL (InMemorySorobanState::getTTL). */
function ttlEntryOf(keyHash: Uint8Array, liveUntil: number, lastModified: number): Uint8Array {
  const entry = new Uint8Array(TTL_ENTRY_BYTES);
  const view = new DataView(entry.buffer);
  view.setUint32(0, lastModified);
  view.setUint32(4, TTL);
  entry.set(keyHash, 8);
  view.setUint32(40, liveUntil);
  return entry;
}

/** The memory cost params the snapshot holds (SorobanNetworkConfig::loadFromLedger). */
function memCostParamsOf(source: LiveEntrySource, ledgerSeq: number): Uint8Array {
  if (typeof source.load !== 'function') {
    invalid('memCostParams is required when the source cannot load entries', 'memCostParams');
  }
  let entry: Uint8Array | undefined;
  try {
    entry = source.load(MEMORY_COST_PARAMS_KEY);
  } catch (error) {
    if (error instanceof LedgerStateError || error instanceof AssertionError) throw error;
    throw new LedgerStateError('IO', `reading the memory cost params failed: ${String(error)}`, {
      ledger: ledgerSeq,
      cause: error,
    });
  }
  if (entry === undefined) {
    throw new LedgerStateError(
      'INCONSISTENT_STATE',
      'the BucketList has no CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES',
      {
        ledger: ledgerSeq,
      },
    );
  }
  try {
    return readLedgerEntry(entry).configSettingBody();
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    badEntry(`the memory cost params entry is not a LedgerEntry: ${error.message}`, 'memCostParams', ledgerSeq, error);
  }
}

assert(MEMORY_COST_PARAMS_KEY.length === 8, 'a CONFIG_SETTING key is its type and id');
