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
  decodePayload,
  deriveTermsInto,
  EventsError,
  type LedgerOffsets,
  MAX_TERMS_PER_EVENT,
  TERM_KEY_BYTES,
} from '@strata/events';
import type Database from 'better-sqlite3';
import { ChunkImage, loadImage } from './chunk-image.js';
import { checkInteger, HotStoreError, HotStoreErrorCode, invalidArgument, storageError } from './errors.js';
import {
  HotChunkReader,
  type HotReaderOptions,
  openHotReader,
  type ReaderSource,
  ReadStatements,
} from './hot-reader.js';
import { type ConnectionOptions, openReaderDatabase, openWriterDatabase, type Synchronous } from './schema.js';
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
   * 'full' (default): a commit is on disk when ingest returns (the WAL is fsynced per commit), so a position the
   * node records afterwards never runs ahead of what survives a power cut. 'normal': commits reach disk at WAL
   * checkpoints; a power cut may lose the latest commits (never a part of one); a killed process loses nothing.
   */
  readonly synchronous?: Synchronous;
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
}

function checkOptions(options: unknown): asserts options is Record<string, unknown> {
  if (typeof options !== 'object' || options === null) invalidArgument('options', 'expected an options object');
}

/**
 * One hot chunk, open for writing. Use from one thread; at most one HotStore per database at a time (SQLite's
 * write lock refuses a second writer's commit: IO). Readers: `reader()` in this thread, `openHotReader` in others.
 *
 * Durability: with synchronous 'full', every ledger an ingest call returned for survives a crash or power cut;
 * a call that threw or was interrupted left nothing. Reopening after a crash rebuilds the index from the sealed
 * slabs and the open slab's events, so the index always equals what the events table implies.
 */
export class HotStore {
  readonly path: string;
  readonly chunkId: number;
  private readonly image: ChunkImage;
  private db: Database.Database | undefined;
  private readonly statements: ReadStatements;
  private readonly insertEvent: Database.Statement;
  private readonly insertLedger: Database.Statement;
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
  constructor(path: string, db: Database.Database, chunkId: number, frozen: boolean, seams: HotStoreSeams) {
    this.path = path;
    this.chunkId = chunkId;
    this.db = db;
    this.isFrozen = frozen;
    this.seams = seams;
    this.image = new ChunkImage(chunkId, seams.threshold);
    loadImage(db, path, this.image);
    this.statements = new ReadStatements(db);
    this.insertEvent = db.prepare('INSERT INTO events (ordinal, payload) VALUES (?, ?)');
    this.insertLedger = db.prepare('INSERT INTO ledgers (ledger, event_count, first_ordinal) VALUES (?, ?, ?)');
    this.insertSlab = db.prepare('INSERT INTO sealed_slabs (slab, term_count, postings) VALUES (?, ?, ?)');
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
    const events = this.checkBatch(batch);
    const first = this.image.eventCount;
    const counts = batch.map((entry) => entry.payloads.length);
    const sealTo = Math.floor(first / 2 ** SLAB_SHIFT);
    const write = () => {
      for (let slab = this.image.sealedSlabs; slab < sealTo; slab++) {
        const { blob, termCount } = encodeSlab(this.image.index, slab);
        this.insertSlab.run(slab, termCount, blob);
      }
      let ordinal = first;
      for (const entry of batch) for (const payload of entry.payloads) this.insertEvent.run(ordinal++, payload);
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
      throw storageError(error, this.path, `ingest of ledgers ${batch[0]!.ledger}..${batch[batch.length - 1]!.ledger}`);
    }
    this.seams.onStep?.('committed');
    const publishIndex = () => {
      const index = this.image.index;
      let k = 0;
      for (let e = 0; e < events; e++) {
        const n = this.termCounts[e]!;
        for (let t = 0; t < n; t++) index.add(this.keys, (k + t) * TERM_KEY_BYTES, first + e);
        k += n;
      }
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
      db.close();
    } catch (error) {
      throw storageError(error, this.path, 'close');
    }
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
  private checkBatch(batch: readonly LedgerEvents[]): number {
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
    return events;
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
      payloads.forEach((payload, i) => {
        const field = `ledger ${ledger} event ${i}`;
        try {
          const decoded = decodePayload(payload);
          if (decoded.ledger !== ledger) {
            throw new HotStoreError(HotStoreErrorCode.MALFORMED_PAYLOAD, `the payload is of ledger ${decoded.ledger}`, {
              file: this.path,
              field,
            });
          }
          const { txIndex, opIndex, eventIndex } = decoded;
          const after = txIndex !== tx ? txIndex > tx : opIndex !== op ? opIndex > op : eventIndex > ev;
          if (!after) {
            throw new HotStoreError(
              HotStoreErrorCode.MALFORMED_PAYLOAD,
              `(tx ${txIndex}, op ${opIndex}, event ${eventIndex}) does not follow (tx ${tx}, op ${op}, event ${ev})`,
              { file: this.path, field },
            );
          }
          tx = txIndex;
          op = opIndex;
          ev = eventIndex;
          const n = deriveTermsInto(payload, this.keys, at);
          this.termCounts[e++] = n;
          at += n * TERM_KEY_BYTES;
        } catch (error) {
          if (!(error instanceof EventsError)) throw error;
          throw new HotStoreError(HotStoreErrorCode.MALFORMED_PAYLOAD, error.message, {
            file: this.path,
            field,
            cause: error,
          });
        }
      });
    }
  }
}

/** HotStore.open with test seams (not exported from the package). */
export function openHotStoreWith(path: string, options: HotStoreOptions, seams: HotStoreSeams): HotStore {
  checkOptions(options);
  const synchronous = options.synchronous ?? 'full';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    invalidArgument('synchronous', `expected 'full' or 'normal', got ${describeValue(synchronous)}`);
  }
  if (options.create !== undefined && typeof options.create !== 'boolean') {
    invalidArgument('create', 'expected a boolean');
  }
  const { db, meta } = openWriterDatabase(path, options.chunkId, {
    ...options,
    create: options.create === true,
    synchronous,
  });
  try {
    return new HotStore(path, db, meta.chunkId, meta.frozen, seams);
  } catch (error) {
    db.close();
    throw storageError(error, path, 'open');
  }
}
