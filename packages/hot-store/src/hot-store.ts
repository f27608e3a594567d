// The hot chunk's writer (spec §3.4): one SQLite database per chunk, one transaction per ingest call (one ledger,
// or several for backfill), the in-memory term index, and the lifecycle (open and rebuild, close, freeze, delete).
//
// Ingest order, per call: validate every argument and derive every term first (nothing is written for a call that
// fails); assign ordinals from the event count; write events, ledger rows and any slab that filled before this
// call in one transaction; commit; then publish to readers — index, then offsets, then latest ledger — so a reader
// that sees a ledger finds all its terms.
import { rmSync } from 'node:fs';
import { assert, describeValue } from '@strata/base';
import {
  chunkIdOfLedger,
  deriveTermsIntoChecked,
  EventsError,
  type LedgerOffsets,
  MAX_TERMS_PER_EVENT,
  PAYLOAD_FIELD_OFFSETS,
  TERM_KEY_BYTES,
} from '@strata/events';
import type Database from 'better-sqlite3';
import { Checkpointer } from './checkpointer.js';
import { ChunkImage, loadImage } from './chunk-image.js';
import { checkInteger, HotStoreError, HotStoreErrorCode, invalidArgument, storageError } from './errors.js';
import { type FanoutSeams, type FetchFanout, sqliteEntry } from './fetch-fanout.js';
import {
  type FanoutState,
  fanoutStateOf,
  fetchFanout,
  HotChunkReader,
  type HotReaderOptions,
  openHotReader,
  type ReaderSource,
  ReadStatements,
  u32At,
} from './hot-reader.js';
import {
  type ConnectionOptions,
  openReaderDatabase,
  openWriterDatabase,
  PAGE_SIZE_BYTES,
  type Synchronous,
} from './schema.js';
import { encodeSlab } from './slab-postings.js';
import { SLAB_SHIFT } from './term-index.js';

/** Largest stored payload accepted (header included): far above any ContractEvent a network admits. */
export const MAX_PAYLOAD_BYTES = 1 << 20;
/** Most ledgers one ingest call may hold (a whole chunk). */
export const MAX_BATCH_LEDGERS = 10_000;
/** Most events one ingest call may hold: bounds the call's term scratch (~112 bytes per event). */
export const MAX_BATCH_EVENTS = 1 << 19;
/** Most payload bytes one ingest call may hold. */
export const MAX_BATCH_PAYLOAD_BYTES = 256 * 1024 * 1024;
/** Ordinals are uint32: a chunk holds at most this many events. */
const MAX_CHUNK_EVENTS = 0xffff_ffff;
/**
 * Events per multi-row INSERT: one statement call binds this many rows (the rest of a call goes row by row).
 * Measured: 64 rows cost ~0.75 µs an event against ~2 µs for one INSERT per event; 128 was no better.
 */
const INSERT_ROWS = 64;
/**
 * The writer asks for a PASSIVE checkpoint of the WAL (after publishing; by default in a worker thread, see
 * checkpointer.ts) once this many payload bytes were committed since the last one; SQLite's own auto-checkpoint is
 * off. It bounds the WAL (and what sync() must copy) to about this size; a full chunk checkpoints ~40 times.
 */
export const CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** One ledger to ingest: its sequence and its stored payloads (@strata/events encodePayload) in event-id order. */
export interface LedgerEvents {
  readonly ledger: number;
  readonly payloads: readonly Uint8Array[];
}

export interface HotStoreOptions extends ConnectionOptions {
  /** The chunk this database holds (new databases record it; existing ones must match: WRONG_CHUNK). */
  readonly chunkId: number;
  /** Create the database when the path holds none (default false: NOT_FOUND). */
  readonly create?: boolean;
  /**
   * 'normal' (default): a commit is durable against a killed process when ingest returns, and against a power cut
   * once `durableLedger` covers it (after `sync()` or the writer's next checkpoint); a power cut loses at most the
   * commits after that, never a part of one. 'full': every commit is fsynced before ingest returns
   * (`durableLedger` = `latestLedger` always), ~5 ms per call. README "Durability".
   */
  readonly synchronous?: Synchronous;
  /**
   * Run the periodic checkpoints in a worker thread of the store's own (default true), so an ingest call never
   * waits for one; false runs them inline in the ingest call that crosses CHECKPOINT_BYTES.
   */
  readonly backgroundCheckpoints?: boolean;
  /**
   * Let a worker thread with its own read-only connection answer part of each large scattered fetch of this store's
   * readers (default true): from FANOUT_MIN_GROUPS groups of 64 ordinals on, the calling thread and the worker read
   * groups side by side (README "Fetch fan-out"). The worker (~10 MiB, plus its connection's page cache) starts at
   * the first such fetch; false keeps every read on the calling thread.
   */
  readonly fetchWorker?: boolean;
}

/** Publication steps, in the order a correct store takes them (test seam). */
export type PublishStep = 'committed' | 'index' | 'offsets' | 'latest';

/** Test seams: hooks and deliberate defects for negative controls (not exported from the package). */
export interface HotStoreSeams {
  /** Called after each publication step of each ingest call, synchronously. */
  readonly onStep?: (step: PublishStep | 'counts-committed') => void;
  /** Publishes latest ledger and offsets before the index (a broken store). */
  readonly publishLatestFirst?: boolean;
  /** Commits the ledger rows in a transaction of their own before the events (a broken store). */
  readonly commitCountsFirst?: boolean;
  /** Promotion threshold of the in-memory index (default PROMOTION_THRESHOLD). */
  readonly threshold?: number;
  /** Payload bytes between the writer's checkpoints (default CHECKPOINT_BYTES). */
  readonly checkpointBytes?: number;
  /** sync() and the periodic checkpoints report success without checkpointing (a broken store). */
  readonly skipCheckpoints?: boolean;
  /** better-sqlite3's entry for the checkpoint worker (bundled children, where it cannot be resolved). */
  readonly sqliteEntry?: string;
  /** Page size of a database this open creates (default PAGE_SIZE_BYTES; 4096: a file of an earlier build). */
  readonly pageSizeBytes?: number;
  /** The fetch fan-out's seams (its thresholds, a stuck or failing worker). */
  readonly fanout?: FanoutSeams;
}

function checkOptions(options: unknown): asserts options is Record<string, unknown> {
  if (typeof options !== 'object' || options === null) invalidArgument('options', 'expected an options object');
}

/**
 * One hot chunk, open for writing. Use from one thread; at most one HotStore per database at a time (SQLite's
 * write lock refuses a second writer's commit: IO). Readers: `reader()` in this thread, `openHotReader` in others.
 *
 * Durability: every ledger an ingest call returned for survives a killed process; ledgers up to `durableLedger`
 * also survive a power cut (with synchronous 'full' that is every returned ledger). A call that threw or was
 * interrupted left nothing. Reopening after a crash rebuilds the index from the sealed slabs and the open slab's
 * events, so the index always equals what the events table implies.
 */
export class HotStore {
  readonly path: string;
  readonly chunkId: number;
  private readonly image: ChunkImage;
  private db: Database.Database | undefined;
  private readonly statements: ReadStatements;
  private readonly insertEvent: Database.Statement;
  private readonly insertEvents: Database.Statement;
  /** Bound values of one insertEvents call (ordinal, payload) × INSERT_ROWS, reused. */
  private readonly insertArgs: unknown[] = new Array(2 * INSERT_ROWS);
  private readonly insertLedger: Database.Statement;
  private readonly synchronous: Synchronous;
  /** The newest ledger sync() made durable (synchronous 'normal'); periodic checkpoints: the checkpointer's. */
  private durable: number | undefined;
  private readonly checkpointer: Checkpointer;
  private readonly fanout: FetchFanout | undefined;
  /** Payload bytes committed since the last checkpoint. */
  private uncheckpointedBytes = 0;
  private readonly insertSlab: Database.Statement;
  private isFrozen: boolean;
  private readonly seams: HotStoreSeams;
  private keys = new Uint8Array(1024 * MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);
  private termCounts = new Uint8Array(1024);

  /** Opens (or with `create` creates) the chunk's database at `path` and rebuilds its index. */
  static open(path: string, options: HotStoreOptions): HotStore {
    return openHotStoreWith(path, options, {});
  }

  /** A reader with its own read-only connection, for another thread (see openHotReader). */
  static openReader(path: string, options: HotReaderOptions): HotChunkReader {
    return openHotReader(path, options);
  }

  /**
   * Deletes the database of a frozen chunk (its files: the database, -wal and -shm). Refuses a chunk that was not
   * frozen (NOT_FROZEN) or is another chunk (WRONG_CHUNK); a missing database is NOT_FOUND. Close every store and
   * reader of it first: open connections keep reading the deleted files.
   */
  static delete(path: string, options: { readonly chunkId: number }): void {
    checkOptions(options);
    const { db, meta } = openReaderDatabase(path, options.chunkId, {});
    db.close();
    if (!meta.frozen) {
      throw new HotStoreError(HotStoreErrorCode.NOT_FROZEN, 'freeze the chunk before deleting it', { file: path });
    }
    try {
      for (const suffix of ['-wal', '-shm', '']) rmSync(path + suffix, { force: true });
    } catch (error) {
      throw storageError(error, path, 'delete');
    }
  }

  /** @internal Use HotStore.open. */
  constructor(
    path: string,
    db: Database.Database,
    chunkId: number,
    frozen: boolean,
    synchronous: Synchronous,
    backgroundCheckpoints: boolean,
    fanout: ConnectionOptions | undefined,
    seams: HotStoreSeams,
  ) {
    this.path = path;
    this.synchronous = synchronous;
    this.checkpointer = new Checkpointer(path, db, backgroundCheckpoints, seams.sqliteEntry);
    this.chunkId = chunkId;
    this.db = db;
    this.isFrozen = frozen;
    this.seams = seams;
    this.image = new ChunkImage(chunkId, seams.threshold);
    loadImage(db, path, this.image);
    this.fanout =
      fanout === undefined ? undefined : fetchFanout(path, fanout, seams.sqliteEntry ?? sqliteEntry(), seams.fanout);
    this.statements = new ReadStatements(db, this.fanout);
    this.insertEvent = db.prepare('INSERT INTO events (ordinal, payload) VALUES (?, ?)');
    this.insertEvents = db.prepare(
      `INSERT INTO events (ordinal, payload) VALUES ${Array.from({ length: INSERT_ROWS }, () => '(?, ?)').join(', ')}`,
    );
    this.insertLedger = db.prepare('INSERT INTO ledgers (ledger, event_count, first_ordinal) VALUES (?, ?, ?)');
    this.insertSlab = db.prepare('INSERT INTO sealed_slabs (slab, term_count, postings) VALUES (?, ?, ?)');
    // What a previous process committed may still sit unsynced in the OS page cache: make it durable first.
    if (this.image.latestLedger !== undefined) this.sync();
  }

  /** The newest stored ledger, undefined while the chunk is empty. */
  get latestLedger(): number | undefined {
    this.open();
    return this.image.latestLedger;
  }

  /** Events stored (= the next ordinal). */
  get eventCount(): number {
    this.open();
    return this.image.eventCount;
  }

  /**
   * The newest ledger that survives a power cut, undefined while none is known to. The node records its position
   * (ledger state, bucket list) only up to this ledger, so its recorded position never gets ahead of the store.
   * With synchronous 'full' it is `latestLedger`; with 'normal' it advances at `sync()`, at the writer's periodic
   * checkpoints and at open.
   */
  get durableLedger(): number | undefined {
    this.open();
    if (this.synchronous === 'full') return this.image.latestLedger;
    const periodic = this.checkpointer.durableLedger;
    if (periodic === undefined) return this.durable;
    return this.durable === undefined ? periodic : Math.max(this.durable, periodic);
  }

  /**
   * Makes every committed ledger durable (a FULL checkpoint: the WAL is fsynced, its frames copied into the
   * database file, and that file fsynced) and returns `durableLedger` (= `latestLedger`). Waits for readers that
   * pin older frames (SQLite's busy timeout, 5 s); IO if they still do, or if SQLite fails.
   */
  sync(): number | undefined {
    const db = this.open();
    const latest = this.image.latestLedger;
    if (this.seams.skipCheckpoints !== true) {
      this.checkpointer.idle(); // a checkpoint in flight holds the checkpoint lock
      let result: { busy: number; log: number; checkpointed: number };
      try {
        [result] = db.pragma('wal_checkpoint(FULL)') as [typeof result];
      } catch (error) {
        throw storageError(error, this.path, 'sync');
      }
      if (result.busy !== 0 || result.checkpointed !== result.log) {
        throw new HotStoreError(
          HotStoreErrorCode.IO,
          `sync: the checkpoint copied ${result.checkpointed} of ${result.log} WAL frames (a reader pins older ones)`,
          { file: this.path },
        );
      }
    }
    this.uncheckpointedBytes = 0;
    this.durable = latest;
    return latest;
  }

  /** Whether freeze() was called (durably). */
  get frozen(): boolean {
    return this.isFrozen;
  }

  /** The published per-ledger counts (startLedger = the first stored ledger, or the chunk's first while empty). */
  ledgerOffsets(): LedgerOffsets {
    this.open();
    return this.image.ledgerOffsets();
  }

  /** A ChunkReader over this store in this thread, sharing its connection and index; close() leaves the store open. */
  reader(): HotChunkReader {
    this.open();
    const source: ReaderSource = {
      file: this.path,
      image: this.image,
      statements: this.statements,
      fanout: this.fanout,
      checkOpen: () => this.open(),
      refresh: () => {},
      release: () => {},
    };
    return new HotChunkReader(source);
  }

  /** Ingests one ledger in one transaction (see ingestLedgers). */
  ingestLedger(ledger: number, payloads: readonly Uint8Array[]): void {
    this.ingestLedgers([{ ledger, payloads }]);
  }

  /**
   * Ingests consecutive ledgers in one transaction: all or none. The first ledger must be the next one (any ledger
   * of the chunk while it is empty). Readers see the ledgers once this returns (index, then offsets, then latest).
   * Errors (nothing written): DUPLICATE_LEDGER, OUT_OF_ORDER_LEDGER, LEDGER_OUTSIDE_CHUNK, MALFORMED_PAYLOAD,
   * INVALID_ARGUMENT (shapes and the MAX_* bounds), FROZEN, CLOSED; SQLite failures are IO or CORRUPT (`cause`).
   */
  ingestLedgers(batch: readonly LedgerEvents[]): void {
    const db = this.open();
    if (this.isFrozen) throw new HotStoreError(HotStoreErrorCode.FROZEN, 'the chunk is frozen', { file: this.path });
    const { events, bytes } = this.checkBatch(batch);
    const first = this.image.eventCount;
    const counts = batch.map((entry) => entry.payloads.length);
    const sealTo = Math.floor(first / 2 ** SLAB_SHIFT);
    const write = () => {
      for (let slab = this.image.sealedSlabs; slab < sealTo; slab++) {
        const { blob, termCount } = encodeSlab(this.image.index, slab);
        this.insertSlab.run(slab, termCount, blob);
      }
      const args = this.insertArgs;
      let ordinal = first;
      let rows = 0;
      for (const entry of batch) {
        for (const payload of entry.payloads) {
          args[2 * rows] = ordinal++;
          args[2 * rows + 1] = payload;
          if (++rows === INSERT_ROWS) {
            this.insertEvents.run(args);
            rows = 0;
          }
        }
      }
      for (let r = 0; r < rows; r++) this.insertEvent.run(args[2 * r], args[2 * r + 1]);
      args.fill(undefined); // keep no payload alive past the call
      assert(ordinal === first + events, 'one ordinal per event');
    };
    const writeLedgers = () => {
      let ordinal = first;
      batch.forEach((entry, i) => {
        this.insertLedger.run(entry.ledger, counts[i]!, ordinal);
        ordinal += counts[i]!;
      });
    };
    try {
      if (this.seams.commitCountsFirst === true) {
        db.transaction(writeLedgers)();
        this.seams.onStep?.('counts-committed');
        db.transaction(write)();
      } else {
        db.transaction(() => {
          write();
          writeLedgers();
        })();
      }
    } catch (error) {
      this.insertArgs.fill(undefined);
      throw storageError(error, this.path, `ingest of ledgers ${batch[0]!.ledger}..${batch[batch.length - 1]!.ledger}`);
    }
    this.seams.onStep?.('committed');
    const publishIndex = () => {
      const index = this.image.index;
      index.addEvents(this.keys, this.termCounts, events, first);
      index.markSealed(sealTo);
      this.image.sealedSlabs = Math.max(this.image.sealedSlabs, sealTo);
      this.seams.onStep?.('index');
    };
    const publishOffsets = () => {
      this.image.publishOffsets(batch[0]!.ledger, counts);
      this.seams.onStep?.('offsets');
    };
    const publishLatest = () => {
      this.image.publishLatest(batch[batch.length - 1]!.ledger);
      this.seams.onStep?.('latest');
    };
    if (this.seams.publishLatestFirst === true) {
      publishLatest();
      publishOffsets();
      publishIndex();
    } else {
      publishIndex();
      publishOffsets();
      publishLatest();
    }
    this.uncheckpointedBytes += bytes;
    if (this.uncheckpointedBytes >= (this.seams.checkpointBytes ?? CHECKPOINT_BYTES)) this.checkpoint();
  }

  /** @internal Tests: waits until no periodic checkpoint is in flight. */
  settleCheckpoints(): void {
    this.checkpointer.idle();
  }

  /** The writer's periodic checkpoint, after publication (see CHECKPOINT_BYTES and checkpointer.ts). */
  private checkpoint(): void {
    this.uncheckpointedBytes = 0;
    const latest = this.image.latestLedger;
    if (latest === undefined) return;
    if (this.seams.skipCheckpoints === true) this.durable = latest;
    else this.checkpointer.request(latest);
  }

  /**
   * Marks the chunk frozen, durably: no more ingest (FROZEN), and HotStore.delete may remove it. The node freezes a
   * chunk once its cold copy is durable.
   */
  freeze(): void {
    const db = this.open();
    try {
      db.prepare("UPDATE meta SET value = 1 WHERE key = 'frozen'").run();
    } catch (error) {
      throw storageError(error, this.path, 'freeze');
    }
    this.isFrozen = true;
  }

  /** Closes the database (checkpointing the WAL). Idempotent; readers from reader() reject afterwards. */
  close(): void {
    const db = this.db;
    if (db === undefined) return;
    this.db = undefined;
    try {
      this.fanout?.close();
      this.checkpointer.close();
      db.close();
    } catch (error) {
      throw storageError(error, this.path, 'close');
    }
  }

  /**
   * The fetch fan-out's state: whether its worker answers groups now, and what it answered (tests and benchmarks);
   * undefined when `fetchWorker` is false.
   * @internal Not part of the package's API.
   */
  fanoutState(): FanoutState | undefined {
    return fanoutStateOf(this.fanout);
  }

  /** The in-memory index as hex key → ordinals (tests compare it with an index rebuilt from the events). */
  dumpIndex(): Map<string, number[]> {
    this.open();
    return this.image.index.dump();
  }

  private open(): Database.Database {
    if (this.db === undefined) {
      throw new HotStoreError(HotStoreErrorCode.CLOSED, 'the store is closed', { file: this.path });
    }
    return this.db;
  }

  /**
   * Checks the whole call and derives every term into the scratch buffers; returns the number of events. Throws
   * before anything is written.
   */
  private checkBatch(batch: readonly LedgerEvents[]): { events: number; bytes: number } {
    if (!Array.isArray(batch)) invalidArgument('batch', `expected an array of ledgers, got ${describeValue(batch)}`);
    if (batch.length === 0 || batch.length > MAX_BATCH_LEDGERS) {
      invalidArgument('batch', `${batch.length} ledgers; a call takes 1..${MAX_BATCH_LEDGERS}`);
    }
    let expected = this.image.nextLedger;
    let events = 0;
    let bytes = 0;
    for (const entry of batch) {
      if (typeof entry !== 'object' || entry === null) invalidArgument('batch', 'expected { ledger, payloads }');
      const { ledger, payloads } = entry;
      checkInteger(ledger, 0, 0xffff_ffff, 'ledger');
      if (ledger < 2 || chunkIdOfLedger(ledger) !== this.chunkId) {
        throw new HotStoreError(
          HotStoreErrorCode.LEDGER_OUTSIDE_CHUNK,
          `ledger ${ledger} is not in chunk ${this.chunkId}`,
          {
            file: this.path,
            field: 'ledger',
          },
        );
      }
      if (expected !== undefined && ledger !== expected) {
        const duplicate = ledger < expected;
        throw new HotStoreError(
          duplicate ? HotStoreErrorCode.DUPLICATE_LEDGER : HotStoreErrorCode.OUT_OF_ORDER_LEDGER,
          `ledger ${ledger} ${duplicate ? 'is already stored' : 'is not the next ledger'}; expected ${expected}`,
          { file: this.path, field: 'ledger' },
        );
      }
      expected = ledger + 1;
      if (!Array.isArray(payloads)) invalidArgument('payloads', `ledger ${ledger}: expected an array of payloads`);
      events += payloads.length;
      if (events > MAX_BATCH_EVENTS) invalidArgument('payloads', `more than ${MAX_BATCH_EVENTS} events in one call`);
      for (const payload of payloads) {
        if (!(payload instanceof Uint8Array)) invalidArgument('payloads', `ledger ${ledger}: expected Uint8Arrays`);
        if (payload.length > MAX_PAYLOAD_BYTES) {
          invalidArgument(
            'payloads',
            `ledger ${ledger}: a payload of ${payload.length} bytes (max ${MAX_PAYLOAD_BYTES})`,
          );
        }
        bytes += payload.length;
      }
      if (bytes > MAX_BATCH_PAYLOAD_BYTES) {
        invalidArgument('payloads', `more than ${MAX_BATCH_PAYLOAD_BYTES} payload bytes in one call`);
      }
    }
    if (this.image.eventCount + events > MAX_CHUNK_EVENTS) {
      invalidArgument('payloads', `the chunk would exceed ${MAX_CHUNK_EVENTS} events`);
    }
    this.deriveBatch(batch, events);
    return { events, bytes };
  }

  private malformed(ledger: number, i: number, detail: string): HotStoreError {
    return new HotStoreError(HotStoreErrorCode.MALFORMED_PAYLOAD, detail, {
      file: this.path,
      field: eventField(ledger, i),
    });
  }

  /** Validates each payload against its ledger and order and writes its terms into the scratch buffers. */
  private deriveBatch(batch: readonly LedgerEvents[], events: number): void {
    if (this.termCounts.length < events) this.termCounts = new Uint8Array(events * 2);
    const keyBytes = events * MAX_TERMS_PER_EVENT * TERM_KEY_BYTES;
    if (this.keys.length < keyBytes) this.keys = new Uint8Array(keyBytes * 2);
    let e = 0;
    let at = 0;
    for (const { ledger, payloads } of batch) {
      let tx = -1;
      let op = -1;
      let ev = -1;
      for (let i = 0; i < payloads.length; i++) {
        const payload = payloads[i]!;
        try {
          // Terms, and every check decodePayload makes (header, XDR prefix, every topic and the value up to exactly
          // the end, the close time), in one walk over the bytes.
          const n = deriveTermsIntoChecked(payload, this.keys, at);
          const payloadLedger = u32At(payload, PAYLOAD_FIELD_OFFSETS.ledger);
          if (payloadLedger !== ledger) throw this.malformed(ledger, i, `the payload is of ledger ${payloadLedger}`);
          const txIndex = u32At(payload, PAYLOAD_FIELD_OFFSETS.txIndex);
          const opIndex = u32At(payload, PAYLOAD_FIELD_OFFSETS.opIndex);
          const eventIndex = u32At(payload, PAYLOAD_FIELD_OFFSETS.eventIndex);
          const after = txIndex !== tx ? txIndex > tx : opIndex !== op ? opIndex > op : eventIndex > ev;
          if (!after) {
            throw this.malformed(
              ledger,
              i,
              `(tx ${txIndex}, op ${opIndex}, event ${eventIndex}) does not follow (tx ${tx}, op ${op}, event ${ev})`,
            );
          }
          tx = txIndex;
          op = opIndex;
          ev = eventIndex;
          this.termCounts[e++] = n;
          at += n * TERM_KEY_BYTES;
        } catch (error) {
          if (!(error instanceof EventsError)) throw error;
          throw new HotStoreError(HotStoreErrorCode.MALFORMED_PAYLOAD, error.message, {
            file: this.path,
            field: eventField(ledger, i),
            cause: error,
          });
        }
      }
    }
  }
}

/** The `field` of a payload's error. */
function eventField(ledger: number, i: number): string {
  return `ledger ${ledger} event ${i}`;
}

/** HotStore.open with test seams (not exported from the package). */
export function openHotStoreWith(path: string, options: HotStoreOptions, seams: HotStoreSeams): HotStore {
  checkOptions(options);
  const synchronous = options.synchronous ?? 'normal';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    invalidArgument('synchronous', `expected 'full' or 'normal', got ${describeValue(synchronous)}`);
  }
  for (const flag of ['create', 'backgroundCheckpoints', 'fetchWorker'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') invalidArgument(flag, 'expected a boolean');
  }
  const { db, meta } = openWriterDatabase(path, options.chunkId, {
    ...options,
    create: options.create === true,
    synchronous,
    pageSizeBytes: seams.pageSizeBytes ?? PAGE_SIZE_BYTES, // explicit: no caller option reaches it
  });
  try {
    return new HotStore(
      path,
      db,
      meta.chunkId,
      meta.frozen,
      synchronous,
      options.backgroundCheckpoints !== false,
      options.fetchWorker === false ? undefined : options,
      seams,
    );
  } catch (error) {
    db.close();
    throw storageError(error, path, 'open');
  }
}
