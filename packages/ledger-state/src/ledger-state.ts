// LedgerState: one network's ledger state followed ledger by ledger exactly as stellar-core commits it — the live and
// hot-archive BucketLists (@strata/bucket-list) and the in-memory Soroban state — from LedgerCloseMeta, with every
// ledger's bucketListHash compared with its header's (spec ledger-state-replay.md). One `apply` per ledger:
//
//   1. the meta's net changes (@strata/ledger-meta's fold, `wasLive` answered from this state);
//   2. from protocol 20 (the ledger's starting protocol): the eviction scan over the list as the previous ledger left
//      it, checked against the meta's evictedKeys, and the CONFIG_SETTING_EVICTION_ITERATOR entry it leaves;
//   3. every sample period: CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW with the previous ledger's state size;
//   4. from protocol 23: the hot-archive batch (evicted persistent entries, keys restored from the archive);
//   5. the BucketList adds the ledger; the Soroban state takes the changes; the hashes are compared.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { assert, fsyncDirectory, isErrnoError, writeFileAtomic } from '@strata/base';
import {
  BucketError,
  type BucketEvent,
  type BucketListSnapshot,
  BucketManager,
  type HistoryArchiveState,
  MAX_PROTOCOL_VERSION,
  parseHistoryArchiveState,
  referencedBucketHashes,
  serializeHistoryArchiveState,
} from '@strata/bucket-list';
import {
  CONFIG_SETTING_ID,
  compareLedgerEntries,
  LEDGER_ENTRY_TYPE,
  ledgerKeyOfEntry,
  readU32,
} from '@strata/ledger-key';
import {
  extractLedger,
  type LedgerExtract,
  LedgerMetaError,
  type RecordLocation,
  readLedgerSequence,
} from '@strata/ledger-meta';
import {
  booleanOr,
  bytesOf,
  integerIn,
  invalidArgument,
  nonEmptyString,
  optionalFunction,
  optionalOneOf,
  optionalString,
  optionsRecord,
} from './arguments.js';
import { ConfigSettings, configSettingEntry } from './config-settings.js';
import { LedgerStateError, LedgerStateErrorCode } from './errors.js';
import { FIRST_PROTOCOL_EVICTION, scanForEviction } from './eviction/scan.js';
import { decodeEvictionIterator, decodeStateArchivalSettings, evictionIteratorEntry } from './eviction/settings.js';
import { genesisKeyOf, MAX_GENESIS_ENTRIES } from './genesis/genesis.js';
import { genesisProtocol } from './genesis/genesis-options.js';
import { type PopulationReport, SorobanState } from './soroban-state/soroban-state.js';
import { sameKeySet, withEntries } from './sorted-batch.js';
import {
  LEDGER_STATE_FORMAT_VERSION,
  positionAt,
  readStateFile,
  STATE_FILE_NAME,
  type StateFile,
  writeStateFile,
} from './state-file.js';
import { shiftStateSizeWindow } from './state-size-window.js';

/** From this protocol the hot-archive BucketList takes batches and the header hash combines both lists. */
const FIRST_PROTOCOL_HOT_ARCHIVE = 23;
/** From this protocol the Soroban state size is InMemorySorobanState's, before it the live BucketList's bytes. */
const FIRST_PROTOCOL_IN_MEMORY_STATE_SIZE = 23;

export interface LedgerStateOptions {
  /** fsync bucket files, the HAS and the state file (default true). */
  readonly fsync?: boolean;
  /** Where BucketList merges run: worker threads (default) or inline on this thread. */
  readonly merger?: 'workers' | 'inline';
  /**
   * Compare each ledger's computed bucketListHash with its header's (default true); a difference is HASH_MISMATCH.
   * Turn it off only for sources whose headers are not the network's (e.g. the synthetic generator).
   */
  readonly verify?: boolean;
  /**
   * Start the BucketList's merges when opening (default true). False is stellar-core's startup since PR #5252:
   * open without merges, populate the Soroban state, then call `restartMerges()` before the next ledger.
   */
  readonly restartMerges?: boolean;
  /** Structured progress and diagnostics. */
  readonly onEvent?: (event: LedgerStateEvent) => void;
  /**
   * stellar-core's additions to and corrections of the meta (spec ledger-state-replay.md §3), each on by default.
   * Turning one off makes a state that is not stellar-core's: it exists to show what each rule does.
   */
  readonly rules?: ReplayRules;
}

export interface ReplayRules {
  /** §3.4: CONFIG_SETTING_EVICTION_ITERATOR every ledger from protocol 20. */
  readonly evictionIterator?: boolean;
  /** §3.5: CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW every sample period. */
  readonly stateSizeWindow?: boolean;
  /** §3.1: a RESTORED entry the ledger did not write is a read (@strata/ledger-meta FoldOptions.corrections). */
  readonly restoreReads?: boolean;
  /** §3.2: a TTL keeps its largest read-only bump. */
  readonly maxTtlBumps?: boolean;
}

export type LedgerStateEvent =
  | { readonly type: 'population'; readonly report: PopulationReport; readonly message: string }
  | { readonly type: 'bucket-list'; readonly event: BucketEvent };

/** What a new state starts from: ledger 1's entries (see genesisEntries) at its protocol. */
export interface GenesisLedger {
  readonly networkPassphrase: string;
  /** The genesis protocol (0 for stellar-core's GENESIS_LEDGER_VERSION). */
  readonly protocolVersion: number;
  /** LedgerEntry XDR of every genesis entry, each with lastModifiedLedgerSeq 1, in any order. */
  readonly entries: readonly Uint8Array[];
}

/** The outcome of one applied ledger. */
export interface AppliedLedger {
  readonly ledger: number;
  readonly protocolVersion: number;
  /** The bucketListHash this state computed, hex. */
  readonly bucketListHash: string;
  /** The header's bucketListHash, hex. */
  readonly headerBucketListHash: string;
  readonly matches: boolean;
  /** Sizes of what the BucketList was given. */
  readonly batch: { readonly init: number; readonly live: number; readonly dead: number };
  readonly hotArchive: { readonly archived: number; readonly restored: number } | undefined;
  readonly evicted: number;
  /**
   * The ledger as this state read it: extractLedger of the bytes with the state's own `wasLive` and corrections, so
   * its header and events are those of a plain extract and its changes the batch the BucketList was given (before the
   * entries the state adds). For a caller that needs the ledger's events too, without extracting it again.
   */
  readonly extract: LedgerExtract;
}

export class LedgerState {
  readonly #dir: string;
  readonly #list: BucketManager;
  readonly #soroban: SorobanState;
  readonly #settings: ConfigSettings;
  readonly #fsync: boolean;
  readonly #verify: boolean;
  readonly #networkPassphrase: string;
  readonly #rules: Required<ReplayRules>;
  #protocolVersion: number;
  #previous: StateFile['previous'];
  #failure: Error | undefined;
  #closed = false;

  private constructor(
    dir: string,
    list: BucketManager,
    soroban: SorobanState,
    state: { networkPassphrase: string; protocolVersion: number; previous: StateFile['previous'] },
    options: LedgerStateOptions,
  ) {
    this.#dir = dir;
    this.#list = list;
    this.#soroban = soroban;
    this.#settings = ConfigSettings.load((key) => list.load(key));
    this.#fsync = options.fsync ?? true;
    this.#verify = options.verify ?? true;
    this.#networkPassphrase = state.networkPassphrase;
    this.#rules = {
      evictionIterator: options.rules?.evictionIterator ?? true,
      stateSizeWindow: options.rules?.stateSizeWindow ?? true,
      restoreReads: options.rules?.restoreReads ?? true,
      maxTtlBumps: options.rules?.maxTtlBumps ?? true,
    };
    this.#protocolVersion = state.protocolVersion;
    this.#previous = state.previous;
  }

  /**
   * Starts a new state in `dir` (which must hold none) at ledger 1 from `genesis`: the genesis entries go into the
   * live list only (no eviction scan, no hot-archive batch), as stellar-core's startNewLedger does. Every argument
   * is checked before the directory is touched: INVALID_ARGUMENT for a wrong type or range, BAD_ENTRY for a genesis
   * entry that is no LedgerEntry, BAD_GENESIS for a genesis stellar-core cannot have made (a protocol above 28, an
   * entry not last modified at ledger 1 or not an account or config setting, two entries of one key).
   */
  static async create(dir: string, genesis: GenesisLedger, options: LedgerStateOptions = {}): Promise<LedgerState> {
    nonEmptyString(dir, 'dir');
    const init = sortedGenesisEntries(genesis);
    checkStateOptions(options, false);
    if (readStateFile(dir) !== undefined) {
      throw new LedgerStateError('BAD_STATE', 'the directory already holds a ledger state', { file: dir });
    }
    const list = await openList(dir, { ...options, create: true, restartMerges: true }, genesis.networkPassphrase);
    try {
      if (list.ledger !== 0) {
        throw new LedgerStateError('BAD_STATE', `the directory holds a BucketList at ledger ${list.ledger}`, {
          file: dir,
        });
      }
      const fsync = options.fsync ?? true;
      writeStateFile(
        dir,
        stateFileOf(genesis.networkPassphrase, { ledger: 1, protocolVersion: genesis.protocolVersion }, undefined),
        fsync,
      );
      await list.addLedger(1, genesis.protocolVersion, { init, live: [], dead: [] });
      const soroban = new SorobanState({ ledgerSeq: 0 });
      const state = new LedgerState(
        dir,
        list,
        soroban,
        { networkPassphrase: genesis.networkPassphrase, protocolVersion: genesis.protocolVersion, previous: undefined },
        options,
      );
      soroban.apply(
        { init, live: [], dead: [] },
        { ledgerSeq: 1, protocolVersion: genesis.protocolVersion, ...state.#memCostParams() },
      );
      return state;
    } catch (error) {
      await list.close().catch(() => undefined);
      throw wrap(error, 'create the genesis ledger', dir);
    }
  }

  /**
   * Opens the state in `dir` as a node starts: the BucketList without merges, verified against the state file; the
   * Soroban state populated from it (loser-tree scans of CONTRACT_DATA, then TTL, then CONTRACT_CODE); then, unless
   * `restartMerges: false`, the merges restart. `networkPassphrase`, when given, must be the state's network.
   */
  static async open(
    dir: string,
    options: LedgerStateOptions & { readonly networkPassphrase?: string } = {},
  ): Promise<LedgerState> {
    nonEmptyString(dir, 'dir');
    checkStateOptions(options, true);
    const file = readStateFile(dir);
    if (file === undefined) {
      throw new LedgerStateError('BAD_STATE', `no ${STATE_FILE_NAME}: not a ledger state (create one first)`, {
        file: dir,
      });
    }
    if (options.networkPassphrase !== undefined && options.networkPassphrase !== file.networkPassphrase) {
      throw new LedgerStateError(
        'BAD_STATE',
        `the state is of network ${JSON.stringify(file.networkPassphrase)}, not ${JSON.stringify(options.networkPassphrase)}`,
        { file: dir, field: 'networkPassphrase' },
      );
    }
    if (file.diverged !== undefined) {
      throw new LedgerStateError(
        'HASH_MISMATCH',
        `the state diverged from the network at ledger ${file.diverged.ledger} (header ${file.diverged.expected}, computed ${file.diverged.computed})`,
        { file: dir, ledger: file.diverged.ledger },
      );
    }
    const list = await openList(dir, { ...options, create: false, restartMerges: false }, file.networkPassphrase);
    try {
      const position = positionAt(file, list.ledger, dir);
      const previous = position === file.current ? file.previous : undefined;
      const soroban = new SorobanState();
      const state = new LedgerState(
        dir,
        list,
        soroban,
        { networkPassphrase: file.networkPassphrase, protocolVersion: position.protocolVersion, previous },
        options,
      );
      state.#populate(options);
      if (options.restartMerges ?? true) list.restartMerges();
      return state;
    } catch (error) {
      await list.close().catch(() => undefined);
      throw wrap(error, 'open the state', dir);
    }
  }

  /**
   * Starts a state in `dir` (which must hold none) from a History Archive State and a directory of its bucket files,
   * the way a node joins a network: the buckets the HAS names are copied in (`bucket-<hex>.xdr`, or `.xdr.gz` as
   * archives store them), the HAS becomes the state's `has.json`, and the state opens through `open` (every bucket
   * verified against its hash, the Soroban state populated). `protocolVersion` is the HAS ledger's protocol, from its
   * ledger header (a HAS does not carry it). The next ledger applied must be `has.currentLedger + 1`.
   */
  static async fromHistoryArchive(
    dir: string,
    archive: {
      readonly has: string;
      readonly bucketDir: string;
      readonly networkPassphrase: string;
      readonly protocolVersion: number;
    },
    options: LedgerStateOptions = {},
  ): Promise<LedgerState> {
    nonEmptyString(dir, 'dir');
    checkArchive(archive);
    checkStateOptions(options, false);
    if (readStateFile(dir) !== undefined) {
      throw new LedgerStateError('BAD_STATE', 'the directory already holds a ledger state', { file: dir });
    }
    let has: HistoryArchiveState;
    try {
      has = parseHistoryArchiveState(archive.has);
    } catch (error) {
      if (!(error instanceof BucketError)) throw error;
      throw new LedgerStateError('INVALID_ARGUMENT', `archive.has is not a History Archive State: ${error.message}`, {
        field: 'archive.has',
        cause: error,
      });
    }
    const names = [...referencedBucketHashes(has)]
      .filter((hash) => !/^0+$/.test(hash))
      .map((hash) => `bucket-${hash}.xdr`);
    for (const name of names) {
      const plain = join(archive.bucketDir, name);
      if (!existsSync(plain) && !existsSync(`${plain}.gz`)) {
        throw new LedgerStateError('IO', `the archive has no ${name} (nor ${name}.gz)`, { file: plain });
      }
    }
    const buckets = join(dir, 'buckets');
    try {
      await mkdir(buckets, { recursive: true });
      for (const name of names) {
        const plain = join(archive.bucketDir, name);
        const bytes = existsSync(plain) ? await readFile(plain) : gunzipSync(await readFile(`${plain}.gz`));
        await writeFileAtomic(join(buckets, name), bytes, { fsyncDirectory: false });
      }
      await fsyncDirectory(buckets);
      await writeFileAtomic(join(dir, 'has.json'), Buffer.from(serializeHistoryArchiveState(has)));
    } catch (error) {
      throw wrap(error, 'copy the archive buckets', archive.bucketDir);
    }
    writeStateFile(
      dir,
      stateFileOf(
        archive.networkPassphrase,
        { ledger: has.currentLedger, protocolVersion: archive.protocolVersion },
        undefined,
      ),
      options.fsync ?? true,
    );
    return LedgerState.open(dir, { ...options, networkPassphrase: archive.networkPassphrase });
  }

  /** The last applied ledger. */
  get ledger(): number {
    return this.#list.ledger;
  }

  /** The last applied ledger's protocol (after its upgrades). */
  get protocolVersion(): number {
    return this.#protocolVersion;
  }

  get networkPassphrase(): string {
    return this.#networkPassphrase;
  }

  /** The header bucketListHash of the last applied ledger, hex. */
  bucketListHash(): string {
    return this.#list.bucketListHash();
  }

  /** The BucketLists (read it; apply ledgers through this class only). */
  get bucketList(): BucketManager {
    return this.#list;
  }

  /** The in-memory Soroban state (read it; apply ledgers through this class only). */
  get sorobanState(): SorobanState {
    return this.#soroban;
  }

  /** Starts the BucketList's merges of a state opened with `restartMerges: false`. */
  restartMerges(): void {
    this.#usable();
    this.#list.restartMerges();
  }

  /**
   * Applies the next ledger's LedgerCloseMeta (XDR). Throws LedgerStateError: OUT_OF_ORDER for a ledger that is not
   * the next one or a protocol that goes back; INCONSISTENT_META when the meta's evicted keys differ from the scan's
   * (EVICTION_MISMATCH) or it lacks a setting the ledger needs; HASH_MISMATCH (after the ledger is applied, which the
   * state file records: the state no longer opens) when verification is on and the hashes differ. A malformed meta
   * is refused before anything changes (`cause`: the LedgerMetaError), as are bad arguments (INVALID_ARGUMENT).
   */
  async apply(lcm: Uint8Array, location: RecordLocation = {}): Promise<AppliedLedger> {
    this.#usable();
    bytesOf(lcm, 'lcm');
    checkLocation(location);
    const ledger = readSequence(lcm, location);
    const previousLedger = this.#list.ledger;
    if (ledger !== previousLedger + 1) {
      throw new LedgerStateError('OUT_OF_ORDER', `ledger ${ledger} does not follow ledger ${previousLedger}`, {
        ...fileOf(location),
        ledger,
      });
    }
    let extract: LedgerExtract;
    try {
      extract = extractLedger(lcm, location, {
        wasLive: (key) => this.#wasLive(key),
        corrections: { restoreReads: this.#rules.restoreReads, maxTtlBumps: this.#rules.maxTtlBumps },
      });
    } catch (error) {
      throw wrap(error, 'read the LedgerCloseMeta', location.file, ledger);
    }
    const startProtocol = this.#protocolVersion;
    const protocol = extract.header.protocolVersion;
    if (protocol < startProtocol) {
      throw new LedgerStateError('OUT_OF_ORDER', `protocol ${protocol} after protocol ${startProtocol}`, {
        ...fileOf(location),
        ledger,
      });
    }

    // Settings as the ledger's transactions and upgrades leave them (stellar-core reads them from its LedgerTxn).
    const settings = this.#settings.with([...extract.changes.init, ...extract.changes.live]);
    const additions: Uint8Array[] = [];
    let evicted: ReturnType<typeof scanForEviction> | undefined;
    let hot: { archived: Uint8Array[]; restored: Uint8Array[] } | undefined;
    if (startProtocol >= FIRST_PROTOCOL_EVICTION) {
      const memCostChanged = extract.changes.live.some((entry) =>
        isConfigSetting(entry, CONFIG_SETTING_ID.CONTRACT_COST_PARAMS_MEMORY_BYTES),
      );
      if (memCostChanged || (protocol > startProtocol && protocol >= FIRST_PROTOCOL_IN_MEMORY_STATE_SIZE)) {
        // An upgrade of the memory cost parameters, or of the protocol to 23 or later (Upgrades applyVersionUpgrade,
        // ConfigUpgradeSetFrame::applyTo), reprices every contract's module before the
        // ledger's size sample (LedgerManagerImpl handleUpgradeAffectingSorobanInMemoryStateSize).
        this.#soroban.recomputeContractCodeSizes(
          requiredBody(settings, CONFIG_SETTING_ID.CONTRACT_COST_PARAMS_MEMORY_BYTES, ledger),
        );
      }
      evicted = this.#evict(ledger, startProtocol, settings, extract, location);
      if (this.#rules.evictionIterator) additions.push(evictionIteratorEntry(ledger, evicted.iterator));
      const window = this.#rules.stateSizeWindow ? this.#sampleStateSize(ledger, protocol, settings) : undefined;
      if (window !== undefined) additions.push(window);
      if (startProtocol >= FIRST_PROTOCOL_HOT_ARCHIVE) {
        hot = {
          archived: [...evicted.archivedEntries],
          restored: extract.restoredKeys.filter((key) => isSorobanEntryKey(key)),
        };
      }
    }
    const live = withEntries(extract.changes.live, additions);
    const batch = { init: extract.changes.init, live, dead: extract.changes.dead };

    writeStateFile(
      this.#dir,
      stateFileOf(
        this.#networkPassphrase,
        { ledger, protocolVersion: protocol },
        {
          ledger: previousLedger,
          protocolVersion: startProtocol,
        },
      ),
      this.#fsync,
    );
    const levelsBefore = this.#levelHashes();
    try {
      await this.#list.addLedger(ledger, protocol, batch, hot);
      this.#previous = { ledger: previousLedger, protocolVersion: startProtocol };
      this.#protocolVersion = protocol;
      this.#settings.update([...batch.init, ...batch.live]);
      this.#soroban.apply(batch, { ledgerSeq: ledger, protocolVersion: protocol, ...this.#memCostParams() });
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      throw wrap(error, 'apply the ledger', location.file, ledger);
    }

    const computed = this.#list.bucketListHash();
    const expected = Buffer.from(extract.header.bucketListHash).toString('hex');
    const matches = computed === expected;
    if (!matches && this.#verify) {
      writeStateFile(
        this.#dir,
        {
          ...stateFileOf(this.#networkPassphrase, { ledger, protocolVersion: protocol }, this.#previous),
          diverged: { ledger, expected, computed },
        },
        this.#fsync,
      );
      this.#failure = new LedgerStateError('HASH_MISMATCH', `diverged at ledger ${ledger}`, { ledger });
      throw new LedgerStateError(
        'HASH_MISMATCH',
        `bucketListHash ${computed} computed, the header says ${expected}; ${this.#changedLevels(levelsBefore)}`,
        { ...fileOf(location), ledger },
      );
    }
    return {
      ledger,
      protocolVersion: protocol,
      bucketListHash: computed,
      headerBucketListHash: expected,
      matches,
      batch: { init: batch.init.length, live: batch.live.length, dead: batch.dead.length },
      hotArchive: hot === undefined ? undefined : { archived: hot.archived.length, restored: hot.restored.length },
      evicted: evicted?.evicted.length ?? 0,
      extract,
    };
  }

  /** Lets the BucketList's merges finish and closes it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#list.close();
  }

  /** The eviction of `ledger`, checked against the meta's evictedKeys (spec §3.4). */
  #evict(
    ledger: number,
    startProtocol: number,
    settings: ConfigSettings,
    extract: LedgerExtract,
    location: RecordLocation,
  ): ReturnType<typeof scanForEviction> {
    const archival = decodeStateArchivalSettings(requiredBody(settings, CONFIG_SETTING_ID.STATE_ARCHIVAL, ledger));
    const iterator = decodeEvictionIterator(requiredBody(this.#settings, CONFIG_SETTING_ID.EVICTION_ITERATOR, ledger));
    // TTLs the ledger changed before its evictions: the batch's TTL keys, less the keys the meta evicts.
    const evictedByMeta = new Set(extract.evictedKeys.map((key) => Buffer.from(key).toString('latin1')));
    const modified = new Set<string>();
    const note = (key: Uint8Array): void => {
      if (readU32(key, 0) !== LEDGER_ENTRY_TYPE.TTL || evictedByMeta.has(Buffer.from(key).toString('latin1'))) return;
      modified.add(Buffer.from(key.subarray(4, 36)).toString('latin1'));
    };
    for (const entry of [...extract.changes.init, ...extract.changes.live]) {
      if (readU32(entry, 4) === LEDGER_ENTRY_TYPE.TTL) note(ledgerKeyOfEntry(entry));
    }
    for (const key of extract.changes.dead) note(key);
    const snapshot: BucketListSnapshot = this.#list.snapshot();
    let result: ReturnType<typeof scanForEviction>;
    try {
      result = scanForEviction({
        snapshot,
        ledgerSeq: ledger,
        protocolVersion: startProtocol,
        iterator,
        settings: archival,
        liveUntilOf: (hash) => this.#soroban.liveUntilOf(hash),
        ttlModified: (hash) => modified.has(Buffer.from(hash).toString('latin1')),
      });
    } finally {
      snapshot.release();
    }
    if (!sameKeySet(result.evictedKeys, extract.evictedKeys)) {
      throw new LedgerStateError(
        'EVICTION_MISMATCH',
        `the scan evicts ${result.evictedKeys.length} keys, the meta lists ${extract.evictedKeys.length}` +
          (result.evictedKeys.length === extract.evictedKeys.length ? ' (other keys)' : ''),
        { ...fileOf(location), ledger, field: 'evictedKeys' },
      );
    }
    return result;
  }

  /**
   * CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW when `ledger` is a multiple of the sample period: the state size
   * as the previous ledger left it (maybeSnapshotSorobanStateSize) — before protocol 23 the live BucketList's bytes.
   */
  #sampleStateSize(ledger: number, protocol: number, settings: ConfigSettings): Uint8Array | undefined {
    const archival = decodeStateArchivalSettings(requiredBody(settings, CONFIG_SETTING_ID.STATE_ARCHIVAL, ledger));
    const period = archival.liveSorobanStateSizeWindowSamplePeriod;
    if (period === 0 || ledger % period !== 0) return undefined;
    const size =
      protocol < FIRST_PROTOCOL_IN_MEMORY_STATE_SIZE
        ? BigInt(this.#list.listSize('live'))
        : BigInt(this.#soroban.stateSizeBytes);
    const body = requiredBody(settings, CONFIG_SETTING_ID.LIVE_SOROBAN_STATE_SIZE_WINDOW, ledger);
    return configSettingEntry(
      CONFIG_SETTING_ID.LIVE_SOROBAN_STATE_SIZE_WINDOW,
      shiftStateSizeWindow(body, size),
      ledger,
    );
  }

  /** For the fold: whether a key first seen as RESTORED was live when the ledger started. */
  #wasLive(key: Uint8Array): boolean {
    const type = readU32(key, 0);
    if (
      type === LEDGER_ENTRY_TYPE.CONTRACT_DATA ||
      type === LEDGER_ENTRY_TYPE.CONTRACT_CODE ||
      type === LEDGER_ENTRY_TYPE.TTL
    ) {
      if (this.#protocolVersion >= FIRST_PROTOCOL_EVICTION) return this.#soroban.has(key);
    }
    return this.#list.load(key) !== undefined;
  }

  /** `{ memCostParams }` when the network has CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES, else `{}`. */
  #memCostParams(): { memCostParams?: Uint8Array } {
    const body = this.#settings.body(CONFIG_SETTING_ID.CONTRACT_COST_PARAMS_MEMORY_BYTES);
    return body === undefined ? {} : { memCostParams: body };
  }

  #populate(options: LedgerStateOptions): void {
    const snapshot = this.#list.snapshot();
    try {
      const report = this.#soroban.populate(snapshot, {
        protocolVersion: this.#protocolVersion,
        ...this.#memCostParams(),
      });
      const rss = (report.peakRssBytes / (1 << 20)).toFixed(0);
      options.onEvent?.({
        type: 'population',
        report,
        message: `Populated in-memory Soroban state in ${report.seconds.toFixed(3)} sec (${report.data} data, ${report.code} code, peak RSS ${rss} MiB)`,
      });
    } finally {
      snapshot.release();
    }
  }

  /** `kind level curr|snap` → bucket hash, of both lists. */
  #levelHashes(): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const [kind, schedule] of [
      ['live', this.#list.live],
      ['hot archive', this.#list.hotArchive],
    ] as const) {
      schedule.levels.forEach((level, i) => {
        hashes.set(`${kind} level ${i} curr`, level.curr.file.hash);
        hashes.set(`${kind} level ${i} snap`, level.snap.file.hash);
      });
    }
    return hashes;
  }

  /**
   * Where a divergence can have entered, when the previous ledger still matched: the buckets this ledger changed
   * (its batch went into level 0's curr; spills and merges changed the others). The header names only the hash, so
   * which of them differs from stellar-core's cannot be told from it.
   */
  #changedLevels(before: Map<string, string>): string {
    const changed = [...this.#levelHashes()].filter(([slot, hash]) => before.get(slot) !== hash).map(([slot]) => slot);
    return `the ledger changed ${changed.join(', ')}`;
  }

  #usable(): void {
    if (this.#closed) throw new LedgerStateError('CLOSED', 'the state is closed');
    if (this.#failure !== undefined) {
      throw new LedgerStateError('CLOSED', 'an earlier ledger failed part-way: reopen the state', {
        cause: this.#failure,
      });
    }
  }
}

function stateFileOf(
  networkPassphrase: string,
  current: StateFile['current'],
  previous: StateFile['previous'],
): StateFile {
  return { format: LEDGER_STATE_FORMAT_VERSION, networkPassphrase, current, previous, diverged: undefined };
}

async function openList(
  dir: string,
  options: LedgerStateOptions & { create: boolean; restartMerges: boolean },
  networkPassphrase: string,
): Promise<BucketManager> {
  try {
    return await BucketManager.open(dir, {
      create: options.create,
      restartMerges: options.restartMerges,
      fsync: options.fsync ?? true,
      merger: options.merger ?? 'workers',
      networkPassphrase,
      ...(options.onEvent === undefined
        ? {}
        : { onEvent: (event: BucketEvent) => options.onEvent?.({ type: 'bucket-list', event }) }),
    });
  } catch (error) {
    throw wrap(error, 'open the BucketList', dir);
  }
}

function readSequence(lcm: Uint8Array, location: RecordLocation): number {
  try {
    return readLedgerSequence(lcm, location);
  } catch (error) {
    throw wrap(error, 'read the ledger sequence', location.file);
  }
}

function requiredBody(settings: ConfigSettings, id: number, ledger: number): Uint8Array {
  const body = settings.body(id);
  if (body === undefined) {
    throw new LedgerStateError('INCONSISTENT_META', `the network has no CONFIG_SETTING ${id} at protocol 20 or later`, {
      ledger,
      field: `configSetting ${id}`,
    });
  }
  return body;
}

function isConfigSetting(entry: Uint8Array, id: number): boolean {
  return readU32(entry, 4) === LEDGER_ENTRY_TYPE.CONFIG_SETTING && readU32(entry, 8) === id;
}

function isSorobanEntryKey(key: Uint8Array): boolean {
  const type = readU32(key, 0);
  return type === LEDGER_ENTRY_TYPE.CONTRACT_DATA || type === LEDGER_ENTRY_TYPE.CONTRACT_CODE;
}

function fileOf(location: RecordLocation): { file?: string } {
  return location.file === undefined ? {} : { file: location.file };
}

/** Where BucketList merges may run (LedgerStateOptions.merger). */
const MERGERS = ['workers', 'inline'] as const;
/** The rules of ReplayRules, each a boolean option. */
const RULES = [
  'evictionIterator',
  'stateSizeWindow',
  'restoreReads',
  'maxTtlBumps',
] as const satisfies readonly (keyof ReplayRules)[];

/** The options LedgerState and the replay functions share (`fsync`, `merger`, `rules`), checked. */
export function checkCommonOptions(options: Record<string, unknown>, field: string): void {
  booleanOr(options.fsync, `${field}.fsync`, true);
  optionalOneOf(options.merger, `${field}.merger`, MERGERS);
  const rules = optionsRecord(options.rules, `${field}.rules`, true);
  for (const rule of RULES) booleanOr(rules[rule], `${field}.rules.${rule}`, true);
}

/** LedgerStateOptions (with open's `networkPassphrase` when `withPassphrase`), checked before any file is touched. */
function checkStateOptions(value: unknown, withPassphrase: boolean): void {
  const options = optionsRecord(value, 'options', true);
  checkCommonOptions(options, 'options');
  booleanOr(options.verify, 'options.verify', true);
  booleanOr(options.restartMerges, 'options.restartMerges', true);
  optionalFunction(options.onEvent, 'options.onEvent');
  if (withPassphrase) optionalString(options.networkPassphrase, 'options.networkPassphrase');
}

/**
 * The entries of a GenesisLedger, checked and in key order. INVALID_ARGUMENT for a wrong shape; BAD_ENTRY for bytes
 * that are no LedgerEntry; BAD_GENESIS for a protocol without a genesis, more entries than a genesis holds, an entry
 * genesis cannot have made (not last modified at ledger 1, not an account or config setting) or two of one key.
 */
function sortedGenesisEntries(value: unknown): Uint8Array[] {
  const genesis = optionsRecord(value, 'genesis', false);
  nonEmptyString(genesis.networkPassphrase, 'genesis.networkPassphrase');
  genesisProtocol(genesis.protocolVersion, 'genesis.protocolVersion');
  const entries: unknown = genesis.entries;
  if (!Array.isArray(entries)) throw invalidArgument('genesis.entries', 'an array of LedgerEntry XDR', entries);
  if (entries.length > MAX_GENESIS_ENTRIES) {
    throw new LedgerStateError(
      LedgerStateErrorCode.BAD_GENESIS,
      `${entries.length} entries: a genesis holds at most ${MAX_GENESIS_ENTRIES}`,
      { field: 'genesis.entries' },
    );
  }
  const keys = new Set<string>();
  const checked: Uint8Array[] = [];
  for (let i = 0; i < entries.length; i++) {
    const field = `genesis.entries[${i}]`;
    const entry = bytesOf(entries[i], field);
    const key = genesisKeyOf(entry, field, LedgerStateErrorCode.BAD_GENESIS);
    if (keys.has(key)) {
      throw new LedgerStateError(LedgerStateErrorCode.BAD_GENESIS, 'a second entry of the same key', { field });
    }
    keys.add(key);
    checked.push(entry);
  }
  return checked.sort(compareLedgerEntries);
}

/** The shape of fromHistoryArchive's `archive` (it then parses the HAS and finds its buckets before writing anything). */
function checkArchive(value: unknown): void {
  const archive = optionsRecord(value, 'archive', false);
  if (typeof archive.has !== 'string') {
    throw invalidArgument('archive.has', 'the text of a History Archive State', archive.has);
  }
  nonEmptyString(archive.bucketDir, 'archive.bucketDir');
  nonEmptyString(archive.networkPassphrase, 'archive.networkPassphrase');
  integerIn(archive.protocolVersion, 'archive.protocolVersion', 0, MAX_PROTOCOL_VERSION);
}

/** apply's RecordLocation: an object of an optional file name and optional record number and byte offset. */
function checkLocation(value: unknown): void {
  const location = optionsRecord(value, 'location', true);
  if (location.file !== undefined && typeof location.file !== 'string') {
    throw invalidArgument('location.file', 'a string', location.file);
  }
  for (const name of ['record', 'offset'] as const) {
    if (location[name] !== undefined) integerIn(location[name], `location.${name}`, 0, Number.MAX_SAFE_INTEGER);
  }
}

/** An error from below as this package's: LedgerStateErrors pass through, others become its `cause`. */
export function wrap(error: unknown, what: string, file?: string, ledger?: number): Error {
  if (error instanceof LedgerStateError) return error;
  const context = {
    ...(file === undefined ? {} : { file }),
    ...(ledger === undefined ? {} : { ledger }),
    cause: error,
  };
  if (error instanceof LedgerMetaError) {
    const code = error.code === 'INVALID_ARGUMENT' || error.code === 'IO' ? error.code : 'BAD_ENTRY';
    return new LedgerStateError(code, `cannot ${what}: ${error.message}`, context);
  }
  if (error instanceof BucketError) {
    const code = error.code === 'IO' ? 'IO' : error.code === 'INVALID_ARGUMENT' ? 'INVALID_ARGUMENT' : 'BAD_STATE';
    return new LedgerStateError(code, `cannot ${what}: ${error.message}`, context);
  }
  if (isErrnoError(error)) return new LedgerStateError('IO', `cannot ${what}: ${error.message}`, context);
  assert(error instanceof Error, 'errors are Errors');
  return error;
}
