// The ChunkReader of a hot chunk (spec §3.4 "Reader contract"), in two flavours over one class: the store's own
// reader (the writer's connection and index, in the writer's thread) and a worker reader (its own read-only
// connection and its own index, rebuilt at open and caught up from committed ledgers on each refresh).

import { CopyBlocks } from '@strata/base';
import {
  type ChunkReader,
  EventsError,
  EventsErrorCode,
  type FetchedEvent,
  type LedgerOffsets,
  type OrdinalWindow,
  PAYLOAD_FIELD_OFFSETS,
  PAYLOAD_HEADER_LENGTH,
  PAYLOAD_VERSION,
  type ReadonlyBitmap,
  TERM_KEY_BYTES,
  type TermKey,
} from '@strata/events';
import type Database from 'better-sqlite3';
import { ChunkImage, indexStoredEvents, loadImage, readLedgerRows } from './chunk-image.js';
import { corrupt, HotStoreError, HotStoreErrorCode, storageError } from './errors.js';
import { type FanoutSeams, type FanoutStats, FetchFanout, sqliteEntry } from './fetch-fanout.js';
import { type ConnectionOptions, DEFAULT_CACHE_KIB, DEFAULT_MMAP_MIB, openReaderDatabase } from './schema.js';

/** Most ordinals one fetchEvents call and most events one fetchRange window may hold. */
export const MAX_FETCH_EVENTS = 65_536;
/** Most keys one lookupTerms call may ask for. */
export const MAX_LOOKUP_TERMS = 65_536;
/**
 * Ordinals per group of fetchEvents: one prepared `ordinal IN (?, ..., ?)` of this many parameters (the last group
 * padded with its last ordinal; a run of consecutive ordinals: one range scan instead), answered by ONE row that
 * aggregates the group (see GROUP_COLUMNS). Measured (1,000 scattered ordinals of a 9 M-event chunk, one process,
 * loaded machine): a row per group takes 0.6-0.7x the time of a row per event (better-sqlite3's per-row work was
 * about a third of the fetch); groups of 256 and one row for the whole call no better than 64.
 */
export const FETCH_ARITY = 64;
/**
 * Ordinals per aggregated row of fetchRange: one range scan per group, answered by ONE row (GROUP_COLUMNS). Measured
 * (3 M events of a 9 M-event chunk in windows of 4,096, as a freeze reads): 1.6 s against 6.6-8.7 s for a row per
 * event; groups of 64 1.9 s, of 1,024 and 4,096 no better than 256.
 */
export const RANGE_ARITY = 256;
/**
 * What a group's row holds: the row count and the payloads concatenated in ordinal order (one blob). Nothing else:
 * the payloads' own headers split the blob and prove its order (see splitGroupRow), and the ordinal and length
 * lists an earlier version also aggregated cost a tenth of a scattered fetch (1,000 ordinals of a 9 M-event chunk:
 * 1.80-1.86 ms against 1.94-2.08 ms for the statements alone).
 */
const GROUP_COLUMNS = "count(*), CAST(group_concat(payload, x'') AS BLOB)";

/** The SQL of the fetch statements: per event, and one aggregated row (GROUP_COLUMNS) per group. */
function groupStatements() {
  const parameters = Array.from({ length: FETCH_ARITY }, () => '?').join(', ');
  const picked = `SELECT ordinal, payload FROM events WHERE ordinal IN (${parameters}) ORDER BY ordinal`;
  const ranged = 'SELECT ordinal, payload FROM events WHERE ordinal >= ? AND ordinal < ? ORDER BY ordinal';
  return {
    picked,
    ranged,
    pickGroupSql: `SELECT ${GROUP_COLUMNS} FROM (${picked})`,
    rangeGroupSql: `SELECT ${GROUP_COLUMNS} FROM (${ranged})`,
  };
}

function badArgument(field: string, detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** One group's row: the count of rows that matched, and their payloads concatenated (null when none matched). */
export type GroupRow = readonly [number, Uint8Array | null];

/** Offsets of the stored payload header's fields (@strata/events FORMAT.md "Stored payload"). */
const { ledger: LEDGER_AT, txIndex: TX_AT, opIndex: OP_AT, eventIndex: EVENT_AT } = PAYLOAD_FIELD_OFFSETS;
const EVENT_LENGTH_OFFSET = PAYLOAD_FIELD_OFFSETS.contractEventLength;

/** The big-endian u32 at `at` of a stored payload (no bounds check: callers check the header's length first). */
export function u32At(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/**
 * Whether the stored payload at `at` comes strictly after the one at `previous` in event order — (ledger, tx, op,
 * event) ascending, as ingest requires of the payloads it stores in ordinal order.
 */
function follows(b: Uint8Array, at: number, pb: Uint8Array, previous: number): boolean {
  let x = u32At(b, at + LEDGER_AT);
  let y = u32At(pb, previous + LEDGER_AT);
  if (x === y) {
    x = u32At(b, at + TX_AT);
    y = u32At(pb, previous + TX_AT);
  }
  if (x === y) {
    x = u32At(b, at + OP_AT);
    y = u32At(pb, previous + OP_AT);
  }
  if (x === y) {
    x = u32At(b, at + EVENT_AT);
    y = u32At(pb, previous + EVENT_AT);
  }
  return x > y;
}

/**
 * Splits the row (GROUP_COLUMNS) of the group of ordinals at positions [from, to) of a call into `out` (views into
 * the row's blob, which is the caller's own copy) by walking the payloads' headers: each must be version 0x01 with its ContractEvent inside
 * the blob, each must come after the one before it in event order, and there must be exactly `to - from` of them
 * ending exactly at the blob's end. With the row count equal to `to - from` (every ordinal asked for matched, as
 * the statements select no other), ascending positions prove the payloads are those ordinals' in that order.
 * Returns false when anything of that does not hold, leaving `out` as it was: the caller rereads the group row by
 * row, which names the missing or damaged event (CORRUPT) — never a shifted answer.
 */
export function splitGroupRow(row: GroupRow, from: number, to: number, out: Uint8Array[]): boolean {
  const [count, blob] = row;
  if (count !== to - from || !(blob instanceof Uint8Array)) return false;
  const first = out.length;
  let at = 0;
  let previous = -1;
  for (let i = from; i < to; i++) {
    const rest = blob.length - at;
    if (rest < PAYLOAD_HEADER_LENGTH || blob[at] !== PAYLOAD_VERSION) break;
    const length = PAYLOAD_HEADER_LENGTH + u32At(blob, at + EVENT_LENGTH_OFFSET);
    if (length > rest || (previous >= 0 && !follows(blob, at, blob, previous))) break;
    out.push(new Uint8Array(blob.buffer, blob.byteOffset + at, length));
    previous = at;
    at += length;
  }
  if (out.length - first === to - from && at === blob.length) return true;
  out.length = first;
  return false;
}

/**
 * A stored payload is its header and exactly the ContractEvent its header announces (@strata/events FORMAT.md;
 * ingest checked that): one that is not (truncated, extended, another version) is CORRUPT.
 */
function checkFraming(bytes: Uint8Array, at: number, length: number, ordinal: number, file: string): void {
  const announced = length < PAYLOAD_HEADER_LENGTH ? -1 : u32At(bytes, at + EVENT_LENGTH_OFFSET);
  if (bytes[at] !== PAYLOAD_VERSION || announced !== length - PAYLOAD_HEADER_LENGTH) {
    throw corrupt(file, `event ${ordinal}: the stored payload of ${length} bytes is not one payload`, 'events');
  }
}

/** The prepared reads of one connection. */
export class ReadStatements {
  private readonly pick: Database.Statement;
  private readonly pickGroup: Database.Statement;
  private readonly pickArgs: number[] = new Array(FETCH_ARITY).fill(0);
  private readonly range: Database.Statement;
  private readonly rangeGroup: Database.Statement;
  /** The SQL of the two aggregated-row statements (a fetch fan-out's worker prepares the same). */
  static readonly groupSql = groupStatements();

  /** `fanout`: a worker that answers some groups of large scattered fetches (fetch-fanout.ts), if any. */
  constructor(
    readonly db: Database.Database,
    private readonly fanout?: FetchFanout,
  ) {
    const { picked, ranged, pickGroupSql, rangeGroupSql } = ReadStatements.groupSql;
    this.pick = db.prepare(picked).raw();
    this.range = db.prepare(ranged).raw();
    this.pickGroup = db.prepare(pickGroupSql).raw();
    this.rangeGroup = db.prepare(rangeGroupSql).raw();
  }

  /**
   * Payloads of `ordinals` (ascending, unique), FETCH_ARITY ordinals per statement call and one row per group;
   * each payload a view into its group's blob (a fresh copy per call). A call of many groups may have some of them
   * read by the fan-out's worker; every row is split and checked here all the same. A group whose rows are not all
   * there is read again row by row to name the missing event (CORRUPT).
   */
  pickEvents(ordinals: ArrayLike<number>, file: string): Uint8Array[] {
    const out: Uint8Array[] = [];
    const groups = Math.ceil(ordinals.length / FETCH_ARITY);
    const rows = this.fanout?.rows(ordinals, (group) => this.groupRow(ordinals, group));
    for (let group = 0; group < groups; group++) {
      const from = group * FETCH_ARITY;
      const to = Math.min(ordinals.length, from + FETCH_ARITY);
      const row = rows === undefined ? this.groupRow(ordinals, group) : rows[group]!;
      if (!splitGroupRow(row, from, to, out))
        this.pickRows(ordinals, from, to, this.bind(ordinals, from, to), out, file);
    }
    return out;
  }

  /**
   * Binds the group of ordinals[from..to) for the scattered statements; true when it is a run of consecutive
   * ordinals instead (one range scan, measured ~25 % cheaper than the IN list for a full run; nothing bound).
   */
  private bind(ordinals: ArrayLike<number>, from: number, to: number): boolean {
    if (ordinals[to - 1]! - ordinals[from]! === to - from - 1) return true;
    const args = this.pickArgs;
    for (let i = 0; i < FETCH_ARITY; i++) args[i] = ordinals[Math.min(from + i, to - 1)]!;
    return false;
  }

  /** The aggregated row of group `group` of a call (its FETCH_ARITY ordinals, the last group padded). */
  private groupRow(ordinals: ArrayLike<number>, group: number): GroupRow {
    const from = group * FETCH_ARITY;
    const to = Math.min(ordinals.length, from + FETCH_ARITY);
    return (
      this.bind(ordinals, from, to)
        ? this.rangeGroup.get(ordinals[from], ordinals[to - 1]! + 1)
        : this.pickGroup.get(this.pickArgs)
    ) as GroupRow;
  }

  /**
   * The per-row read of one group (ordinals[from..to), statement arguments already bound for a scattered one), when
   * its aggregated row did not split: names what is wrong (CORRUPT), or reads the group if nothing is.
   */
  private pickRows(
    ordinals: ArrayLike<number>,
    from: number,
    to: number,
    run: boolean,
    out: Uint8Array[],
    file: string,
  ): void {
    const copies = new CopyBlocks();
    const rows = (
      run ? this.range.iterate(ordinals[from], ordinals[to - 1]! + 1) : this.pick.iterate(this.pickArgs)
    ) as IterableIterator<[number, Uint8Array]>;
    const expected = out.length + (to - from);
    const first = out.length - from;
    let previous: Uint8Array | undefined;
    for (const [ordinal, payload] of rows) {
      if (ordinal !== ordinals[out.length - first]) break;
      if (!(payload instanceof Uint8Array)) {
        throw corrupt(file, `event ${ordinal}: the stored payload is not a blob`, 'events');
      }
      checkFraming(payload, 0, payload.length, ordinal, file);
      if (previous !== undefined && !follows(payload, 0, previous, 0)) {
        throw corrupt(file, `event ${ordinal}: its position does not follow the event before it`, 'events');
      }
      previous = payload;
      out.push(copies.copy(payload));
    }
    if (out.length !== expected) throw corrupt(file, `event ${ordinals[out.length - first]} is missing`, 'events');
  }

  /**
   * Rows [start, end) in groups of RANGE_ARITY consecutive ordinals, one aggregated row per group (as pickEvents;
   * each payload a view into its group's blob, a fresh copy per call). A group whose rows are not all there is read
   * again row by row to name the missing event (CORRUPT).
   */
  rangeEvents(window: OrdinalWindow, file: string): FetchedEvent[] {
    const count = window.end - window.start;
    const ordinals = new Float64Array(count);
    for (let i = 0; i < count; i++) ordinals[i] = window.start + i;
    const payloads: Uint8Array[] = [];
    for (let from = 0; from < count; from += RANGE_ARITY) {
      const to = Math.min(count, from + RANGE_ARITY);
      const row = this.rangeGroup.get(window.start + from, window.start + to) as GroupRow;
      if (!splitGroupRow(row, from, to, payloads)) this.pickRows(ordinals, from, to, true, payloads, file);
    }
    const out: FetchedEvent[] = new Array(count);
    for (let i = 0; i < count; i++) out[i] = { ordinal: window.start + i, payload: payloads[i]! };
    return out;
  }
}

/** What a HotChunkReader reads through: an image, the statements of a connection, and how to catch up. */
export interface ReaderSource {
  readonly file: string;
  readonly image: ChunkImage;
  readonly statements: ReadStatements;
  /** Throws CLOSED when the source is closed. */
  checkOpen(): void;
  /** Brings the image up to the newest committed state (no-op for the writer's own reader). */
  refresh(): void;
  /** Called by the reader's close(). */
  release(): void;
  /** The fan-out of this source's fetches, if any. */
  readonly fanout?: FetchFanout | undefined;
}

/** What a fetch fan-out is doing (tests and benchmarks). */
export interface FanoutState {
  readonly running: boolean;
  readonly stats: Readonly<FanoutStats>;
}

/** The state of `fanout`, undefined without one. */
export function fanoutStateOf(fanout: FetchFanout | undefined): FanoutState | undefined {
  return fanout === undefined ? undefined : { running: fanout.running, stats: { ...fanout.stats } };
}

function checkWindow(window: OrdinalWindow, eventCount: number): void {
  if (typeof window !== 'object' || window === null) badArgument('window', 'expected { start, end }');
  const { start, end } = window;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start) {
    badArgument('window', `bad window [${start}, ${end})`);
  }
  if (end > eventCount) badArgument('window', `window end ${end} beyond event count ${eventCount}`);
}

/**
 * A ChunkReader over one hot chunk (see @strata/events ChunkReader for the general contract).
 *
 * What it sees, and when:
 * - The store's own reader (`HotStore.reader()`) sees every ledger whose ingest call has returned, and nothing of
 *   one in progress: ingest publishes index, offsets and latest ledger after the commit, synchronously.
 * - A worker reader (`openHotReader`) sees the database as of its last refresh, which `eventCount()`,
 *   `ledgerOffsets()` and `refresh()` do: one read transaction reads every ledger committed by then, indexes its
 *   events, then publishes the offsets. A ledger is visible with all its events and terms or not at all; a
 *   request that takes `ledgerOffsets()` once keeps that image, whatever commits meanwhile.
 * - Bitmaps are frozen and shared, payloads are copies; both stay valid after close.
 * Call from the thread that opened it; any number of calls may be in flight (they run synchronously inside).
 */
export class HotChunkReader implements ChunkReader {
  readonly chunkId: number;
  private closed = false;

  constructor(private readonly source: ReaderSource) {
    this.chunkId = source.image.chunkId;
  }

  /**
   * The chunk image this reader reads (its term index and ledger offsets), for hotTermOrdinals (term-ordinals.ts).
   * @internal Not part of the package's API: the image changes as the reader refreshes.
   */
  imageForTermOrdinals(): ChunkImage {
    this.check();
    return this.source.image;
  }

  /**
   * Whether this reader's fetch fan-out runs, and what it answered; undefined without one (`fetchWorker` false).
   * @internal Not part of the package's API (tests and benchmarks).
   */
  fanoutState(): FanoutState | undefined {
    return fanoutStateOf(this.source.fanout);
  }

  private check(): void {
    if (this.closed) throw new HotStoreError(HotStoreErrorCode.CLOSED, 'reader is closed', { file: this.source.file });
    this.source.checkOpen();
  }

  /** Catches up with committed ledgers (worker readers; a no-op for the store's own reader). */
  refresh(): void {
    this.check();
    this.source.refresh();
  }

  eventCount(): number {
    this.refresh();
    return this.source.image.eventCount;
  }

  ledgerOffsets(): LedgerOffsets {
    this.refresh();
    return this.source.image.ledgerOffsets();
  }

  /** The newest ledger this reader sees, undefined while the chunk is empty. */
  latestLedger(): number | undefined {
    this.refresh();
    return this.source.image.latestLedger;
  }

  async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    this.check();
    if (!Array.isArray(keys)) badArgument('keys', 'expected an array of term keys');
    if (keys.length > MAX_LOOKUP_TERMS) badArgument('keys', `${keys.length} keys, at most ${MAX_LOOKUP_TERMS}`);
    const image = this.source.image;
    checkWindow(window, image.eventCount);
    return keys.map((key, i) => {
      if (!(key instanceof Uint8Array) || key.length !== TERM_KEY_BYTES) {
        badArgument(`keys[${i}]`, `expected a ${TERM_KEY_BYTES}-byte term key`);
      }
      return image.index.lookup(key, window);
    });
  }

  async fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    this.check();
    if (typeof ordinals !== 'object' || ordinals === null || !Number.isSafeInteger(ordinals.length)) {
      badArgument('ordinals', 'expected an array of ordinals');
    }
    if (ordinals.length > MAX_FETCH_EVENTS) {
      badArgument('ordinals', `${ordinals.length} ordinals, at most ${MAX_FETCH_EVENTS} per call`);
    }
    const count = this.source.image.eventCount;
    let previous = -1;
    for (let i = 0; i < ordinals.length; i++) {
      const o = ordinals[i]!;
      if (!Number.isInteger(o) || o < 0 || o >= count) badArgument('ordinals', `ordinal ${o} outside [0, ${count})`);
      if (o <= previous) badArgument('ordinals', 'ordinals must be strictly ascending');
      previous = o;
    }
    if (ordinals.length === 0) return [];
    return this.read(() => this.source.statements.pickEvents(ordinals, this.source.file));
  }

  async fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    this.check();
    checkWindow(window, this.source.image.eventCount);
    if (window.end - window.start > MAX_FETCH_EVENTS) {
      badArgument('window', `${window.end - window.start} events, at most ${MAX_FETCH_EVENTS} per call`);
    }
    if (window.end === window.start) return [];
    return this.read(() => this.source.statements.rangeEvents(window, this.source.file));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.source.release();
  }

  private read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw storageError(error, this.source.file, 'read');
    }
  }
}

/**
 * The fetch fan-out of a connection to `path` with these options (fetch-fanout.ts; undefined where better-sqlite3
 * cannot be resolved for its worker, as in a bundle, unless `sqlite` names it).
 */
export function fetchFanout(
  path: string,
  options: ConnectionOptions,
  sqlite = sqliteEntry(),
  seams?: FanoutSeams,
): FetchFanout {
  return new FetchFanout(
    path,
    { ...ReadStatements.groupSql, arity: FETCH_ARITY, maxOrdinals: MAX_FETCH_EVENTS },
    { cacheSizeKiB: options.cacheSizeKiB ?? DEFAULT_CACHE_KIB, mmapSizeMiB: options.mmapSizeMiB ?? DEFAULT_MMAP_MIB },
    sqlite,
    seams,
  );
}

/** Options of a worker reader. */
export interface HotReaderOptions extends ConnectionOptions {
  /** The chunk the database must hold (WRONG_CHUNK otherwise). */
  readonly chunkId: number;
  /** Share large scattered fetches with a worker thread of this reader's own (default true; README "Fetch fan-out"). */
  readonly fetchWorker?: boolean;
}

/**
 * Opens a reader with its own read-only connection, for any thread (typically a worker: readers cannot be posted
 * between threads). It rebuilds its own index at open (sealed slabs plus the open slab's events) and catches up on
 * each refresh; see HotChunkReader for what it sees. Errors: NOT_FOUND, SCHEMA_VERSION, WRONG_CHUNK, CORRUPT, IO.
 */
export function openHotReader(path: string, options: HotReaderOptions): HotChunkReader {
  if (typeof options !== 'object' || options === null) {
    throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, 'options must be an object', { field: 'options' });
  }
  if (options.fetchWorker !== undefined && typeof options.fetchWorker !== 'boolean') {
    throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, 'fetchWorker: expected a boolean', {
      field: 'fetchWorker',
    });
  }
  const { db } = openReaderDatabase(path, options.chunkId, options);
  try {
    const fanout = options.fetchWorker === false ? undefined : fetchFanout(path, options);
    return new HotChunkReader(new WorkerSource(path, db, options.chunkId, fanout));
  } catch (error) {
    db.close();
    throw storageError(error, path, 'open reader');
  }
}

/** The worker reader's source: its own connection, image and catch-up. */
class WorkerSource implements ReaderSource {
  readonly image: ChunkImage;
  readonly statements: ReadStatements;
  private readonly dataVersion: Database.Statement;
  private lastVersion: unknown;
  private open = true;
  /** A refresh that failed leaves the image behind the database: every later call reports that failure. */
  private failure: HotStoreError | undefined;

  constructor(
    readonly file: string,
    private readonly db: Database.Database,
    chunkId: number,
    readonly fanout: FetchFanout | undefined,
  ) {
    this.image = new ChunkImage(chunkId);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.lastVersion = this.dataVersion.get();
    loadImage(db, file, this.image);
    this.statements = new ReadStatements(db, fanout);
  }

  checkOpen(): void {
    if (!this.open) throw new HotStoreError(HotStoreErrorCode.CLOSED, 'reader is closed', { file: this.file });
    if (this.failure !== undefined) throw this.failure;
  }

  refresh(): void {
    // data_version changes when another connection commits: the common no-news case costs one pragma.
    const version = this.dataVersion.get();
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    const image = this.image;
    try {
      this.db.transaction(() => {
        const from = image.eventCount;
        const { first, counts } = readLedgerRows(this.db, this.file, image, image.latestLedger, from);
        if (first === undefined) return;
        const to = from + counts.reduce((a, b) => a + b, 0);
        indexStoredEvents(this.db, this.file, image.index, from, to);
        image.publishOffsets(first, counts);
        image.publishLatest(first + counts.length - 1);
      })();
    } catch (error) {
      this.failure = storageError(error, this.file, 'refresh');
      throw this.failure;
    }
  }

  release(): void {
    if (!this.open) return;
    this.open = false;
    this.fanout?.close();
    this.db.close();
  }
}
