// The hot chunk's SQLite schema (FORMAT.md): its version constant, the tables, the connection settings, and the
// checks that refuse a database of another schema version or another chunk before anything reads or writes it.
import { existsSync } from 'node:fs';
import { assert } from '@strata/base';
import { MAX_CHUNK_ID, PAYLOAD_VERSION, TERM_SCHEMA_VERSION } from '@strata/events';
import Database from 'better-sqlite3';
import { checkInteger, HotStoreError, HotStoreErrorCode, storageError } from './errors.js';
import { SLAB_SHIFT } from './term-index.js';

/**
 * Schema versions, stored in SQLite's `PRAGMA user_version`. A database of any other version is refused
 * (SCHEMA_VERSION); there is no migration, because a hot chunk lives at most one chunk's time and is re-ingested or
 * frozen, never carried across upgrades.
 * - 1: meta, ledgers (count + first ordinal per ledger), events (ordinal → stored payload v1), sealed_slabs
 *   (per-slab postings blobs, POSTINGS_BLOB_VERSION 1).
 */
export const HOT_SCHEMA_VERSION = 1;

/** `PRAGMA application_id` of every hot-store database: ASCII "STHS" (Strata hot store). */
export const HOT_APPLICATION_ID = 0x53544853;

/**
 * Page size of new databases, in bytes (measured: see README "Storage settings"). A property of the file, read
 * from its header at open: databases created with 4096 by earlier builds open and work unchanged (FORMAT.md).
 */
export const PAGE_SIZE_BYTES = 16384;
/** Default page cache per connection, in KiB (measured: see README "Storage settings"). */
export const DEFAULT_CACHE_KIB = 16 * 1024;
/**
 * Default memory-mapped span per connection, in MiB (SQLite clamps it to its build's maximum, 2 GiB in
 * better-sqlite3 12.11.1): pages inside it are read straight from the OS page cache, without a read() and a copy
 * per page. Measured: 1,000 scattered fetches ~1.9 ms with it against ~5 ms without. 0 turns it off. An I/O error
 * under a mapping is a SIGBUS rather than an IO error: turn it off where the disk is not trusted.
 */
export const DEFAULT_MMAP_MIB = 2048;
/** Bounds of the mmapSizeMiB option. */
export const MAX_MMAP_MIB = 64 * 1024;
/** Bounds of the cacheSizeKiB option: 1 MiB to 4 GiB. */
export const MIN_CACHE_KIB = 1024;
export const MAX_CACHE_KIB = 4 * 1024 * 1024;

/** When a commit is durable: 'full' = when ingest returns (one WAL fsync per commit); 'normal' = at checkpoints. */
export type Synchronous = 'full' | 'normal';

const SCHEMA_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE ledgers (
  ledger INTEGER PRIMARY KEY,
  event_count INTEGER NOT NULL,
  first_ordinal INTEGER NOT NULL
);
CREATE TABLE events (ordinal INTEGER PRIMARY KEY, payload BLOB NOT NULL);
CREATE TABLE sealed_slabs (slab INTEGER PRIMARY KEY, term_count INTEGER NOT NULL, postings BLOB NOT NULL);
`;

/** The meta rows a database must hold, with the values this build writes (chunk_id and frozen vary). */
const FIXED_META: Readonly<Record<string, number>> = {
  payload_version: PAYLOAD_VERSION,
  term_schema_version: TERM_SCHEMA_VERSION,
  slab_shift: SLAB_SHIFT,
};

/** Connection options both the writer and read-only readers take. */
export interface ConnectionOptions {
  /** Page cache of this connection in KiB, MIN_CACHE_KIB..MAX_CACHE_KIB; default DEFAULT_CACHE_KIB. */
  readonly cacheSizeKiB?: number;
  /** Memory-mapped span of this connection in MiB, 0..MAX_MMAP_MIB (0: off); default DEFAULT_MMAP_MIB. */
  readonly mmapSizeMiB?: number;
}

/** What an opened database says about itself. */
export interface ChunkMeta {
  readonly chunkId: number;
  readonly frozen: boolean;
}

function checkChunkId(chunkId: unknown): asserts chunkId is number {
  checkInteger(chunkId, 0, MAX_CHUNK_ID, 'chunkId');
}

function applyCache(db: Database.Database, options: ConnectionOptions): void {
  const cache = options.cacheSizeKiB ?? DEFAULT_CACHE_KIB;
  checkInteger(cache, MIN_CACHE_KIB, MAX_CACHE_KIB, 'cacheSizeKiB');
  db.pragma(`cache_size = -${cache}`);
  const mmap = options.mmapSizeMiB ?? DEFAULT_MMAP_MIB;
  checkInteger(mmap, 0, MAX_MMAP_MIB, 'mmapSizeMiB');
  db.pragma(`mmap_size = ${mmap * 1024 * 1024}`);
}

/**
 * Opens (or, with `create`, creates) the writer's connection to the database at `path` and checks it belongs to
 * `chunkId` and this schema. The writer takes the database's write lock only per transaction, so read-only
 * connections of other threads run beside it (WAL).
 */
export function openWriterDatabase(
  path: string,
  chunkId: number,
  options: ConnectionOptions & {
    readonly create: boolean;
    readonly synchronous: Synchronous;
    /** Page size of a database created here (tests: files of earlier builds); default PAGE_SIZE_BYTES. */
    readonly pageSizeBytes?: number;
  },
): { db: Database.Database; meta: ChunkMeta } {
  checkChunkId(chunkId);
  if (typeof path !== 'string' || path === '') throw new HotStoreError('INVALID_ARGUMENT', 'path must be a string');
  const exists = existsSync(path);
  if (!exists && !options.create) {
    throw new HotStoreError(HotStoreErrorCode.NOT_FOUND, 'no hot-store database (pass create: true to create one)', {
      file: path,
    });
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    applyCache(db, options);
    const empty = db.pragma('user_version', { simple: true }) === 0 && tableCount(db) === 0;
    if (empty) {
      // page_size takes effect only before the first table; WAL is a property of the file from here on.
      db.pragma(`page_size = ${options.pageSizeBytes ?? PAGE_SIZE_BYTES}`);
      db.pragma('journal_mode = WAL');
      db.transaction(() => {
        db!.exec(SCHEMA_SQL);
        const insert = db!.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
        for (const [key, value] of Object.entries(FIXED_META)) insert.run(key, value);
        insert.run('chunk_id', chunkId);
        insert.run('frozen', 0);
        db!.pragma(`application_id = ${HOT_APPLICATION_ID}`);
        db!.pragma(`user_version = ${HOT_SCHEMA_VERSION}`);
      })();
    }
    const meta = checkDatabase(db, path, chunkId);
    if (!empty && db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // The writer checkpoints itself, after publishing (HotStore CHECKPOINT_BYTES), not inside a commit.
    db.pragma('wal_autocheckpoint = 0');
    return { db, meta };
  } catch (error) {
    db?.close();
    throw storageError(error, path, 'open');
  }
}

/** Opens a read-only connection (for a reader in any thread) and checks chunk and schema like the writer. */
export function openReaderDatabase(
  path: string,
  chunkId: number,
  options: ConnectionOptions,
): { db: Database.Database; meta: ChunkMeta } {
  checkChunkId(chunkId);
  if (typeof path !== 'string' || path === '') throw new HotStoreError('INVALID_ARGUMENT', 'path must be a string');
  if (!existsSync(path)) throw new HotStoreError(HotStoreErrorCode.NOT_FOUND, 'no hot-store database', { file: path });
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    applyCache(db, options);
    return { db, meta: checkDatabase(db, path, chunkId) };
  } catch (error) {
    db?.close();
    throw storageError(error, path, 'open reader');
  }
}

function tableCount(db: Database.Database): number {
  return db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").pluck().get() as number;
}

/** Refuses a database that is not a hot store of this schema version holding `chunkId`. */
function checkDatabase(db: Database.Database, path: string, chunkId: number): ChunkMeta {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId !== HOT_APPLICATION_ID) {
    throw new HotStoreError(
      HotStoreErrorCode.SCHEMA_VERSION,
      `not a hot-store database (application_id 0x${(applicationId >>> 0).toString(16)}, user_version ${version})`,
      { file: path },
    );
  }
  if (version !== HOT_SCHEMA_VERSION) {
    throw new HotStoreError(
      HotStoreErrorCode.SCHEMA_VERSION,
      `schema version ${version}; this build reads version ${HOT_SCHEMA_VERSION} only`,
      { file: path },
    );
  }
  const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: number }[];
  const meta = new Map(rows.map((row) => [row.key, row.value]));
  for (const [key, value] of Object.entries(FIXED_META)) {
    if (meta.get(key) !== value) {
      throw new HotStoreError(
        HotStoreErrorCode.SCHEMA_VERSION,
        `meta ${key} is ${meta.get(key)}, this build writes ${value}`,
        { file: path, field: key },
      );
    }
  }
  const stored = meta.get('chunk_id');
  const frozen = meta.get('frozen');
  if (typeof stored !== 'number' || (frozen !== 0 && frozen !== 1)) {
    throw new HotStoreError(HotStoreErrorCode.CORRUPT, 'meta rows chunk_id / frozen missing or invalid', {
      file: path,
    });
  }
  if (stored !== chunkId) {
    throw new HotStoreError(HotStoreErrorCode.WRONG_CHUNK, `the database holds chunk ${stored}, not ${chunkId}`, {
      file: path,
    });
  }
  assert(Number.isInteger(stored), 'chunk id is an integer');
  return { chunkId: stored, frozen: frozen === 1 };
}
