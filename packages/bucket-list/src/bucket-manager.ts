// A BucketList node's state on disk: the live and hot-archive lists, their bucket files and indexes under
// `<dir>/buckets`, and the History Archive State `<dir>/has.json` that names them. The HAS is the commit point: it is
// replaced atomically after each ledger, once every bucket it names is durable, so a process killed at any moment
// reopens at the last ledger whose HAS landed, with every bucket it names present and verifying.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectorySync, isAtomicTempName, writeFileAtomicSync } from '@strata/base';
import {
  requireBucketFile,
  requireBytesList,
  requireFunction,
  requireHash,
  requireInteger,
  requireKind,
  requireObject,
  requireOptionalBoolean,
  requireOptionalFunction,
  requireOptions,
  requireString,
  requireUint32,
} from './arguments.js';
import {
  BUCKET_FILE_PATTERN,
  type BucketFile,
  BucketInput,
  bucketFileName,
  emptyBucket,
  TEMP_PREFIX,
  verifyBucketFile,
  writeBucket,
} from './bucket-file.js';
import {
  type BucketIndex,
  type IndexOptions,
  indexPathOf,
  openBucketIndex,
  resolveOptions,
} from './bucket-index/bucket-index.js';
import { BucketError, ioError } from './errors.js';
import {
  checkHistoryArchiveState,
  type FutureBucketState,
  type HasLevel,
  type HistoryArchiveState,
  parseHistoryArchiveState,
  serializeHistoryArchiveState,
  ZERO_HASH,
} from './history-archive-state.js';
import { type BucketKind, DEAD_ENTRY, FIRST_PROTOCOL_HOT_ARCHIVE, HOT_LIVE } from './kind.js';
import { keepTombstoneEntries, NUM_LEVELS } from './levels.js';
import {
  checkHotArchiveBatch,
  checkLiveBatch,
  freshHotArchiveEntries,
  freshLiveEntries,
  type HotArchiveBatch,
  type LiveBatch,
  mergeProtocolVersion,
  mergeSortedArrays,
} from './merge/bucket-merge.js';
import { InlineMerger, MAX_WORKERS, type Merger, WorkerMerger } from './merge/worker-merger.js';
import { type Future, Schedule, type ScheduleOps } from './schedule.js';
import { BucketListSnapshot, pointLoad } from './snapshot.js';

/** The newest ledger protocol this package knows (stellar-core CURRENT_LEDGER_PROTOCOL_VERSION at the spec's commit). */
export const MAX_PROTOCOL_VERSION = 28;
const HAS_FILE = 'has.json';
const INDEX_FILE_PATTERN = /^bucket-[0-9a-f]{64}\.index$/;

/**
 * A leftover of an interrupted write: a bucket writer's `tmp-*` file (and the index of one, `tmp-*.index`), or a
 * temporary sibling of @strata/base's atomic writes (indexes and has.json: `<name>.tmp-<pid>-<thread>-<n>`).
 */
function isTemporaryName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX) || isAtomicTempName(name);
}
const BUCKETS_DIR = 'buckets';

/** A bucket in use: its file, its index, and (level 0 only) its entries in memory for the next in-memory merge. */
export class Bucket {
  /** Snapshots holding this bucket: its file is not deleted while any does. */
  pins = 0;

  constructor(
    readonly file: BucketFile,
    readonly index: BucketIndex | undefined,
    public entries: Uint8Array[] | undefined,
  ) {
    requireBucketFile(file, 'file');
    if (index !== undefined) requireObject(index, 'index');
    if (entries !== undefined) requireBytesList(entries, 'entries');
  }

  get hash(): string {
    return this.file.hash;
  }

  get isEmpty(): boolean {
    return this.file.hash === ZERO_HASH;
  }
}

/**
 * What the manager reports as it works, for progress bars and structured logs (the manager itself never prints):
 * each bucket verified while opening a state (`done` of `total`), each background merge started and finished, and
 * index files that had to be rebuilt.
 */
export type BucketEvent =
  | { type: 'verify'; kind: BucketKind; hash: string; bytes: number; done: number; total: number; ms: number }
  | { type: 'merge-start'; kind: BucketKind; level: number; bytes: number }
  | { type: 'merge-done'; kind: BucketKind; level: number; hash: string; bytes: number; ms: number }
  | { type: 'index-problem'; error: BucketError };

export interface BucketManagerOptions {
  /** fsync bucket files, indexes and the HAS (stellar-core's DISABLE_XDR_FSYNC inverted). Default true. */
  fsync?: boolean;
  /** Where merges of levels ≥ 1 run: worker threads (default), inline on this thread, or a custom Merger. */
  merger?: 'workers' | 'inline' | Merger;
  /** Worker threads for merges (default: spare cores, 1 to 4). */
  workers?: number;
  index?: IndexOptions;
  /** Network passphrase written into the HAS (required by HAS version 2). */
  networkPassphrase?: string;
  /** Start the saved pending merges when opening (default true). False defers them to `restartMerges()`. */
  restartMerges?: boolean;
  /**
   * Start a new, empty state when `dir` holds none (no `has.json`): the directories are created and the empty state's
   * `has.json` (ledger 0) written, so the next open resumes it. Default false: opening a directory without a state is
   * the error NO_STATE, so that a mistyped path never becomes an empty list.
   */
  create?: boolean;
  /**
   * The state the caller means to resume, checked before the state is changed or any file deleted (its buckets are
   * verified and indexed first): the last ledger and the ledger header's bucketListHash (lowercase hex) at that
   * ledger. A state that differs is the error STATE_MISMATCH.
   */
  expect?: { ledger: number; bucketListHash: string };
  /** Progress and diagnostics (see BucketEvent). */
  onEvent?: (event: BucketEvent) => void;
}

/** A live-list point lookup's answer: the newest LedgerEntry XDR, or undefined (absent or deleted). */
export type LookupResult = Uint8Array | undefined;

type Prepared = Uint8Array[];

/**
 * The live and hot-archive BucketLists of one node, persisted in a directory. Use `BucketManager.open(dir)` (with
 * `{ create: true }` to start a new state); then `addLedger` once per closed ledger, `load`/`loadHotArchive` for
 * point lookups, `close()` at the end. Single-threaded: call it from the thread that opened it, one `addLedger` at a
 * time. After a crash, the state on disk is the last ledger whose `addLedger` returned (or a later one).
 */
export class BucketManager {
  readonly live: Schedule<Bucket, Prepared>;
  readonly hotArchive: Schedule<Bucket, Prepared>;
  /** The last ledger added (or loaded from the HAS); 0 for a new list. */
  ledger = 0;
  /** Protocol of the last ledger added; for a loaded state, the protocol its HAS version implies until a ledger is added. */
  protocolVersion = 0;
  private readonly registry = new Map<string, Bucket>();
  private readonly bucketsDir: string;
  private readonly fsync: boolean;
  private readonly merger: Merger;
  private readonly indexOptions: IndexOptions;
  private readonly onEvent: (event: BucketEvent) => void;
  private readonly networkPassphrase: string;
  private hasVersion: 1 | 2 = 1;
  private failure: Error | undefined;
  private closed = false;
  /**
   * Files in the buckets directory that the state does not name are kept until the caller has accepted the state
   * (added a ledger to it, or replaced it with assumeState): a HAS edited or damaged into naming fewer buckets must
   * not cost the buckets it no longer names.
   */
  private sweepPending = true;

  private constructor(
    readonly dir: string,
    options: BucketManagerOptions,
  ) {
    this.bucketsDir = join(dir, BUCKETS_DIR);
    this.fsync = options.fsync ?? true;
    const onEvent = options.onEvent;
    this.onEvent = onEvent ?? (() => undefined);
    const onIndexProblem = options.index?.onIndexProblem;
    this.indexOptions =
      onEvent === undefined
        ? (options.index ?? {})
        : {
            ...options.index,
            onIndexProblem: (error) => {
              onIndexProblem?.(error);
              onEvent({ type: 'index-problem', error });
            },
          };
    this.networkPassphrase = options.networkPassphrase ?? 'Standalone Network ; February 2017';
    const merger = options.merger ?? 'workers';
    this.merger =
      merger === 'workers' ? new WorkerMerger(options.workers) : merger === 'inline' ? new InlineMerger() : merger;
    this.live = new Schedule(this.scheduleOps('live'));
    this.hotArchive = new Schedule(this.scheduleOps('hot-archive'));
  }

  /**
   * Opens the state in `dir` (`<dir>/has.json` and `<dir>/buckets/`), or with `create` starts an empty one when there
   * is none; without `create` a directory without a state is NO_STATE. The HAS's buckets are verified (SHA-256,
   * order, XDR) and indexed, `expect` is checked, and unless `restartMerges: false` the pending merges are started.
   * Opening deletes only temporary files of interrupted writes: bucket files the HAS does not name stay until the
   * state is accepted (the first `addLedger`, or `assumeState`), so check `ledger` and `bucketListHash()` against
   * the ledger header first (or pass `expect`).
   */
  static async open(dir: string, options: BucketManagerOptions = {}): Promise<BucketManager> {
    checkManagerOptions(dir, options);
    const hasPath = join(dir, HAS_FILE);
    let text: string | undefined;
    try {
      text = readFileSync(hasPath, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw ioError(error, hasPath, 'read state');
    }
    if (text === undefined && options.create !== true) {
      throw new BucketError('NO_STATE', `no state in ${dir} (no ${HAS_FILE}); pass { create: true } to start one`, {
        file: hasPath,
      });
    }
    const has = text === undefined ? undefined : parseHistoryArchiveState(text, hasPath);
    const manager = new BucketManager(dir, options);
    try {
      if (has !== undefined) manager.loadState(has);
      if (options.expect !== undefined) manager.checkExpected(options.expect);
      try {
        mkdirSync(manager.bucketsDir, { recursive: true });
      } catch (error) {
        throw ioError(error, manager.bucketsDir, 'create bucket directory');
      }
      if (has === undefined) manager.persist(); // the new state exists from now on
      manager.deleteTemporaries();
      if (has !== undefined && (options.restartMerges ?? true)) manager.restartMerges();
    } catch (error) {
      await manager.close();
      throw error;
    }
    return manager;
  }

  /**
   * Loads the lists a HAS describes, without starting any merge (stellar-core assumeState with restartMerges =
   * false): curr and snap of every level, and each pending merge as its saved output or inputs. Every bucket must be
   * present in the buckets directory (`<dir>/buckets/bucket-<hex>.xdr`: copy or link stellar-core's bucket files
   * there) and verify. Replaces whatever the manager held, and writes the state as `has.json`.
   */
  assumeState(has: HistoryArchiveState): void {
    this.loadState(checkHistoryArchiveState(has));
    this.persist();
    this.collectGarbage(true);
  }

  private loadState(has: HistoryArchiveState): void {
    this.ensureUsable();
    const live = this.assumeLevels('live', has.currentBuckets);
    const hot =
      has.hotArchiveBuckets === undefined ? undefined : this.assumeLevels('hot-archive', has.hotArchiveBuckets);
    for (let i = 0; i < NUM_LEVELS; i++) {
      this.live.levels[i] = live[i]!;
      this.hotArchive.levels[i] = hot?.[i] ?? {
        curr: this.empty('hot-archive'),
        snap: this.empty('hot-archive'),
        next: { state: 'clear' },
      };
    }
    this.live.mergesRunning = false;
    this.hotArchive.mergesRunning = false;
    this.ledger = has.currentLedger;
    this.hasVersion = has.version;
    // The HAS does not record the protocol: version 2 implies at least 23; version 1 says nothing (0).
    this.protocolVersion = has.version === 2 ? FIRST_PROTOCOL_HOT_ARCHIVE : 0;
  }

  /** Starts the pending merges of a state loaded by `assumeState` (stellar-core restartMerges). */
  restartMerges(): void {
    this.ensureUsable();
    this.live.restartMerges(this.ledger);
    this.hotArchive.restartMerges(this.ledger);
  }

  /**
   * Adds one closed ledger: the live batch (created entries, updated entries, deleted keys) and, when the ledger
   * started at protocol 23 or later (the previous ledger's protocol), the hot-archive batch; then persists the HAS.
   * `protocolVersion` is the ledger's (after its upgrades), 0 to MAX_PROTOCOL_VERSION. `ledger` must be the next ledger (any ledger ≥ 1 for a new list).
   * Waits only for the background merges this ledger commits. A bad batch is rejected before anything changes.
   */
  async addLedger(
    ledger: number,
    protocolVersion: number,
    batch: LiveBatch,
    hotBatch?: HotArchiveBatch,
  ): Promise<void> {
    this.ensureUsable();
    requireUint32(ledger, 'ledger', 1);
    // 0 is stellar-core's GENESIS_LEDGER_VERSION: a genesis without config upgrades, a pre-11 bucket.
    requireInteger(protocolVersion, 'protocolVersion', 0, MAX_PROTOCOL_VERSION);
    checkLiveBatch(batch, 'batch');
    if (hotBatch !== undefined) checkHotArchiveBatch(hotBatch, 'hotBatch');
    if (this.ledger !== 0 && ledger !== this.ledger + 1) {
      throw new BucketError('PROTOCOL', `ledger ${ledger} does not follow ledger ${this.ledger}`);
    }
    if (protocolVersion < this.protocolVersion) {
      throw new BucketError('PROTOCOL', `protocol ${protocolVersion} after protocol ${this.protocolVersion}`);
    }
    // stellar-core adds a hot-archive batch only when the ledger started at protocol 23 or later (the previous
    // ledger's protocol; finalizeLedgerTxnChanges' initialLedgerVers): not at genesis, not on the 22→23 upgrade.
    const withHot = this.ledger !== 0 && this.protocolVersion >= FIRST_PROTOCOL_HOT_ARCHIVE;
    if (!withHot && hotBatch !== undefined && (hotBatch.archived.length > 0 || hotBatch.restored.length > 0)) {
      throw new BucketError(
        'INVALID_ARGUMENT',
        this.ledger === 0
          ? 'a hot-archive batch on the first ledger of a list'
          : `a hot-archive batch on a ledger that started at protocol ${this.protocolVersion} (< 23)`,
        { field: 'hotBatch' },
      );
    }
    if (!this.live.mergesRunning || !this.hotArchive.mergesRunning) {
      throw new BucketError('PROTOCOL', 'the state was loaded without merges: call restartMerges() first');
    }
    const live = freshLiveEntries(protocolVersion, batch);
    const hot = withHot ? freshHotArchiveEntries(hotBatch ?? { archived: [], restored: [] }) : undefined;
    try {
      await this.live.addBatch(ledger, protocolVersion, live);
      if (hot !== undefined) await this.hotArchive.addBatch(ledger, protocolVersion, hot);
      this.ledger = ledger;
      this.protocolVersion = protocolVersion;
      if (protocolVersion >= FIRST_PROTOCOL_HOT_ARCHIVE) this.hasVersion = 2;
      this.persist();
      this.collectGarbage(true);
    } catch (error) {
      // The in-memory lists may be half-way through this ledger; the disk still holds the previous one.
      this.failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    }
  }

  /** The newest live LedgerEntry for `key` (LedgerKey XDR), or undefined if absent or deleted. */
  load(key: Uint8Array): LookupResult {
    return this.lookup(this.live, key, DEAD_ENTRY);
  }

  /** The archived LedgerEntry for `key` in the hot archive, or undefined (absent, or restored since). */
  loadHotArchive(key: Uint8Array): LookupResult {
    return this.lookup(this.hotArchive, key, HOT_LIVE);
  }

  /**
   * An immutable view of both lists at the current ledger: its buckets stay on disk and readable while later
   * ledgers close and merges replace them, until `release()`. Release every snapshot (a released snapshot's buckets
   * that no list uses any more are deleted at the next ledger or release).
   */
  snapshot(): BucketListSnapshot {
    this.ensureUsable();
    const slots = (schedule: Schedule<Bucket, Prepared>): Bucket[] =>
      schedule.levels.flatMap((level) => [level.curr, level.snap]);
    const live = slots(this.live);
    const hot = slots(this.hotArchive);
    for (const bucket of [...live, ...hot]) bucket.pins++;
    return new BucketListSnapshot(this.ledger, live, hot, () => {
      for (const bucket of [...live, ...hot]) bucket.pins--;
      if (!this.closed && this.failure === undefined) this.collectGarbage(false);
    });
  }

  /**
   * Bytes of the list's bucket files, curr and snap of every level (BucketListBase::getSize): stellar-core's Soroban
   * state size before protocol 23.
   */
  listSize(kind: BucketKind = 'live'): number {
    requireKind(kind, 'kind');
    this.ensureUsable();
    const schedule = kind === 'live' ? this.live : this.hotArchive;
    let size = 0;
    for (const level of schedule.levels) size += level.curr.file.size + level.snap.file.size;
    return size;
  }

  /** SHA-256 over the levels' SHA-256(curr hash ‖ snap hash) (BucketListBase::getHash), hex. */
  listHash(kind: BucketKind = 'live'): string {
    requireKind(kind, 'kind');
    const schedule = kind === 'live' ? this.live : this.hotArchive;
    const outer = createHash('sha256');
    for (const level of schedule.levels) {
      outer.update(
        createHash('sha256')
          .update(Buffer.from(level.curr.hash, 'hex'))
          .update(Buffer.from(level.snap.hash, 'hex'))
          .digest(),
      );
    }
    return outer.digest('hex');
  }

  /** The ledger header's bucketListHash: the live list's hash, or from protocol 23 SHA-256(live ‖ hot archive). */
  bucketListHash(): string {
    if (this.protocolVersion < FIRST_PROTOCOL_HOT_ARCHIVE) return this.listHash('live');
    return createHash('sha256')
      .update(Buffer.from(this.listHash('live'), 'hex'))
      .update(Buffer.from(this.listHash('hot-archive'), 'hex'))
      .digest('hex');
  }

  /** The state as a History Archive State (what `has.json` holds after the last ledger). */
  historyArchiveState(): HistoryArchiveState {
    const has: HistoryArchiveState = {
      version: this.hasVersion,
      server: 'strata',
      currentLedger: this.ledger,
      networkPassphrase: this.networkPassphrase,
      currentBuckets: this.live.levels.map(saveLevel),
    };
    if (this.hasVersion === 2) has.hotArchiveBuckets = this.hotArchive.levels.map(saveLevel);
    return has;
  }

  /** Waits for running merges (so their outputs are on disk), then releases workers and file handles. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.live.drain();
    await this.hotArchive.drain();
    await this.merger.close();
    for (const bucket of this.registry.values()) bucket.index?.close();
    this.registry.clear();
  }

  // --- internals ---

  private ensureUsable(): void {
    if (this.closed) throw new BucketError('CLOSED', 'the bucket manager is closed');
    if (this.failure !== undefined) {
      throw new BucketError('CLOSED', `an earlier ledger failed; reopen the state (${this.failure.message})`, {
        cause: this.failure,
      });
    }
  }

  private scheduleOps(kind: BucketKind): ScheduleOps<Bucket, Prepared> {
    const empty = this.empty(kind);
    return {
      empty,
      isEmpty: (bucket) => bucket.isEmpty,
      protocolOf: (bucket) => bucket.file.protocolVersion,
      startMerge: (level, older, newer, maxProtocolVersion, deadline) => {
        const started = performance.now();
        const bytes = older.file.size + newer.file.size;
        this.onEvent({ type: 'merge-start', kind, level, bytes });
        return this.merger
          .merge({
            dir: this.bucketsDir,
            older: older.file,
            newer: newer.file,
            keepTombstones: keepTombstoneEntries(level),
            maxProtocolVersion,
            fsync: this.fsync,
            index: this.indexOptions,
            deadline,
          })
          .then((file) => {
            this.onEvent({ type: 'merge-done', kind, level, hash: file.hash, bytes, ms: performance.now() - started });
            return this.adoptMergeOutput(file);
          });
      },
      mergeIntoLevel0: (curr, prepared, protocolVersion) => {
        const entries = curr.entries ?? readEntries(curr.file);
        // Live level 0 merges in memory at the ledger's protocol (LiveBucket::mergeInMemory); the hot archive merges
        // as any other level, at the newer of its inputs' protocols.
        const version =
          kind === 'live'
            ? protocolVersion
            : mergeProtocolVersion(curr.file.protocolVersion, protocolVersion, protocolVersion);
        const merged = mergeSortedArrays(kind, entries, prepared);
        const file = writeBucket(this.bucketsDir, kind, version, merged, { fsync: this.fsync });
        const bucket = this.adopt(file);
        bucket.entries = merged;
        return bucket;
      },
    };
  }

  private empty(kind: BucketKind): Bucket {
    return new Bucket(emptyBucket(kind), undefined, []);
  }

  /** The registered Bucket for a published file (one object per hash), opening its index on first sight. */
  private adopt(file: BucketFile): Bucket {
    if (file.path === undefined) return this.empty(file.kind);
    const known = this.registry.get(registryKey(file.kind, file.hash));
    if (known !== undefined) return known;
    const bucket = new Bucket(file, openBucketIndex(file, this.indexOptions), undefined);
    this.registry.set(registryKey(file.kind, file.hash), bucket);
    return bucket;
  }

  /** Gives a worker's output (and its index) their final names, unless an identical bucket is already in use. */
  private adoptMergeOutput(file: BucketFile): Bucket {
    if (file.path === undefined) return this.empty(file.kind);
    const tempPath = file.path;
    const finalPath = join(this.bucketsDir, bucketFileName(file.hash));
    const known = this.registry.get(registryKey(file.kind, file.hash));
    if (known !== undefined) {
      rmSync(tempPath, { force: true });
      rmSync(indexPathOf(tempPath), { force: true });
      return known;
    }
    try {
      renameSync(indexPathOf(tempPath), indexPathOf(finalPath));
    } catch {
      // small buckets have no persisted index
    }
    try {
      renameSync(tempPath, finalPath);
    } catch (error) {
      throw ioError(error, finalPath, 'publish merge output');
    }
    return this.adopt({ ...file, path: finalPath });
  }

  private assumeLevels(kind: BucketKind, levels: readonly HasLevel[]): Schedule<Bucket, Prepared>['levels'] {
    const total = new Set(
      levels.flatMap((level) => [
        level.curr,
        level.snap,
        ...(level.next.state === 1
          ? [level.next.output]
          : level.next.state === 2
            ? [level.next.curr, level.next.snap]
            : []),
      ]),
    );
    total.delete(ZERO_HASH);
    let done = 0;
    const load = (hash: string, field: string): Bucket => {
      if (hash === ZERO_HASH) return this.empty(kind);
      const known = this.registry.get(registryKey(kind, hash));
      if (known !== undefined) return known;
      const path = join(this.bucketsDir, bucketFileName(hash));
      try {
        const started = performance.now();
        const file = verifyBucketFile(path, kind, hash);
        const bucket = this.adopt(file);
        done++;
        this.onEvent({
          type: 'verify',
          kind,
          hash,
          bytes: file.size,
          done,
          total: total.size,
          ms: performance.now() - started,
        });
        return bucket;
      } catch (error) {
        if (error instanceof BucketError) {
          throw new BucketError(error.code, `${field}: ${error.detail}`, {
            file: error.file ?? path,
            ...(error.offset === undefined ? {} : { offset: error.offset }),
            cause: error,
          });
        }
        throw error;
      }
    };
    const prefix = kind === 'live' ? 'currentBuckets' : 'hotArchiveBuckets';
    return levels.map((level, i) => {
      const at = `${prefix}[${i}]`;
      const next = level.next;
      let future: Future<Bucket>;
      if (next.state === 0) future = { state: 'clear' };
      else if (next.state === 1) future = { state: 'output', output: load(next.output, `${at}.next.output`) };
      else {
        if (next.shadow.length > 0) {
          throw new BucketError('PROTOCOL', 'pending merges with shadows (protocol < 12) are not supported', {
            field: `${at}.next.shadow`,
          });
        }
        future = {
          state: 'inputs',
          older: load(next.curr, `${at}.next.curr`),
          newer: load(next.snap, `${at}.next.snap`),
          protocolVersion: MAX_PROTOCOL_VERSION,
        };
      }
      return { curr: load(level.curr, `${at}.curr`), snap: load(level.snap, `${at}.snap`), next: future };
    });
  }

  /** Writes `has.json` atomically after making every bucket rename durable. */
  private persist(): void {
    const path = join(this.dir, HAS_FILE);
    try {
      if (this.fsync) fsyncDirectorySync(this.bucketsDir);
      const bytes = new TextEncoder().encode(serializeHistoryArchiveState(this.historyArchiveState()));
      writeFileAtomicSync(path, bytes, { fsync: this.fsync });
    } catch (error) {
      throw ioError(error, path, 'write state');
    }
  }

  /** Every bucket the lists reference: curr, snap and pending-merge inputs and outputs. */
  private referenced(): Set<string> {
    const keep = new Set<string>();
    for (const schedule of [this.live, this.hotArchive]) {
      for (const level of schedule.levels) {
        for (const bucket of [level.curr, level.snap]) keep.add(registryKey(bucket.file.kind, bucket.hash));
        const next = level.next;
        if (next.state === 'inputs' || next.state === 'merging') {
          keep.add(registryKey(next.older.file.kind, next.older.hash));
          keep.add(registryKey(next.newer.file.kind, next.newer.hash));
          if (next.state === 'merging' && next.output !== undefined) {
            keep.add(registryKey(next.output.file.kind, next.output.hash));
          }
        } else if (next.state === 'output') {
          keep.add(registryKey(next.output.file.kind, next.output.hash));
        }
      }
    }
    return keep;
  }

  /**
   * Deletes buckets no list references and no snapshot pins. The first call that says the state was `accepted` (a
   * ledger added to it, or assumeState) also deletes every other bucket file and index in the buckets directory:
   * buckets of abandoned states and of ledgers that never committed (see `sweepPending`).
   */
  private collectGarbage(accepted: boolean): void {
    const keep = this.referenced();
    for (const [key, bucket] of this.registry) {
      if (keep.has(key) || bucket.pins > 0) continue;
      this.registry.delete(key);
      bucket.index?.close();
      if (bucket.file.path !== undefined) {
        rmSync(bucket.file.path, { force: true });
        rmSync(indexPathOf(bucket.file.path), { force: true });
      }
    }
    if (!accepted || !this.sweepPending) return;
    this.sweepPending = false;
    const keepFiles = new Set<string>();
    for (const bucket of this.registry.values()) {
      if (bucket.file.path === undefined) continue;
      keepFiles.add(bucketFileName(bucket.hash));
      keepFiles.add(indexPathOf(bucketFileName(bucket.hash)));
    }
    // Temporary files are left alone: merges running in workers are writing theirs.
    for (const name of readdirSync(this.bucketsDir)) {
      if (keepFiles.has(name)) continue;
      if (BUCKET_FILE_PATTERN.test(name) || INDEX_FILE_PATTERN.test(name))
        rmSync(join(this.bucketsDir, name), { force: true });
    }
  }

  /** Deletes the temporary files of interrupted writes (opening): never named by a HAS, never a committed bucket. */
  private deleteTemporaries(): void {
    for (const name of readdirSync(this.bucketsDir)) {
      if (isTemporaryName(name)) unlinkSync(join(this.bucketsDir, name));
    }
    for (const name of readdirSync(this.dir)) {
      // has.json's temporary sibling: base's name, or `has.json.tmp-<pid>` of earlier releases.
      const ofState =
        name.startsWith(`${HAS_FILE}.`) && (isAtomicTempName(name) || name.startsWith(`${HAS_FILE}.${TEMP_PREFIX}`));
      if (ofState) unlinkSync(join(this.dir, name));
    }
  }

  /** STATE_MISMATCH unless the loaded state is the one `expect` names. */
  private checkExpected(expect: { ledger: number; bucketListHash: string }): void {
    const hash = this.bucketListHash();
    if (this.ledger !== expect.ledger || hash !== expect.bucketListHash) {
      throw new BucketError(
        'STATE_MISMATCH',
        `the state is ledger ${this.ledger} with bucketListHash ${hash}; expected ledger ${expect.ledger} with ${expect.bucketListHash}`,
        { file: join(this.dir, HAS_FILE) },
      );
    }
  }

  private lookup(schedule: Schedule<Bucket, Prepared>, key: Uint8Array, tombstone: number): LookupResult {
    this.ensureUsable();
    return pointLoad(
      schedule.levels.flatMap((level) => [level.curr, level.snap]),
      key,
      tombstone,
    );
  }
}

/** The arguments of BucketManager.open (INVALID_ARGUMENT, with the option at fault). */
function checkManagerOptions(dir: unknown, options: unknown): asserts options is BucketManagerOptions {
  requireString(dir, 'dir');
  requireOptions(options, 'options');
  if (options === undefined) return;
  requireOptionalBoolean(options.fsync, 'options.fsync');
  const merger = options.merger;
  if (merger !== undefined && merger !== 'workers' && merger !== 'inline') {
    if (typeof merger !== 'object' || merger === null) {
      throw new BucketError('INVALID_ARGUMENT', `options.merger must be 'workers', 'inline' or a Merger`, {
        field: 'options.merger',
      });
    }
    requireFunction((merger as Merger).merge, 'options.merger.merge');
    requireFunction((merger as Merger).close, 'options.merger.close');
  }
  if (options.workers !== undefined) requireInteger(options.workers, 'options.workers', 1, MAX_WORKERS);
  resolveOptions(options.index as IndexOptions | undefined, 'options.index');
  if (options.networkPassphrase !== undefined) requireString(options.networkPassphrase, 'options.networkPassphrase');
  requireOptionalBoolean(options.restartMerges, 'options.restartMerges');
  requireOptionalBoolean(options.create, 'options.create');
  requireOptionalFunction(options.onEvent, 'options.onEvent');
  if (options.expect !== undefined) {
    const expect = options.expect;
    requireObject(expect, 'options.expect');
    requireUint32(expect.ledger, 'options.expect.ledger');
    requireHash(expect.bucketListHash, 'options.expect.bucketListHash');
  }
}

function registryKey(kind: BucketKind, hash: string): string {
  return kind === 'live' ? hash : `hot:${hash}`;
}

function saveLevel(level: Schedule<Bucket, Prepared>['levels'][number]): HasLevel {
  return { curr: level.curr.hash, next: saveFuture(level.next), snap: level.snap.hash };
}

/** A running merge is saved by its inputs; a finished one by its output (FutureBucket::save). */
function saveFuture(future: Future<Bucket>): FutureBucketState {
  switch (future.state) {
    case 'clear':
      return { state: 0 };
    case 'output':
      return { state: 1, output: future.output.hash };
    case 'inputs':
      return { state: 2, curr: future.older.hash, snap: future.newer.hash, shadow: [] };
    case 'merging':
      return future.output !== undefined
        ? { state: 1, output: future.output.hash }
        : { state: 2, curr: future.older.hash, snap: future.newer.hash, shadow: [] };
  }
}

/** Every non-META payload of a bucket file, copied (level 0 after a restart, before its first in-memory merge). */
function readEntries(file: BucketFile): Uint8Array[] {
  const out: Uint8Array[] = [];
  const input = new BucketInput(file);
  try {
    for (; input.current !== undefined; input.advance()) out.push(input.current.slice());
  } finally {
    input.close();
  }
  return out;
}
