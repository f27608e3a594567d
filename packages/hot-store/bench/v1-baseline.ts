// The baseline every hot-store figure is measured against: a stellar-rpc v1-style SQLite events table (one row per
// event, the stored payload as a blob, secondary indexes on `(contract_id, id)` and `(topic1, id)`), with the same
// WAL journal and `synchronous` setting as the store under test, ingested one ledger per transaction and queried the
// way v1 answers getEvents: one SQL range scan narrowed by the filters' contract ids (or first topics) through an
// index, then every row decoded and post-filtered until the page is full.
import { join } from 'node:path';
import { type PostFilter, type StorageFilter, viewPayload } from '@strata/events';
import Database from 'better-sqlite3';

export interface V1Page {
  readonly count: number;
  /** XOR of the page's ordinals: two answers agree when count and checksum do. */
  readonly checksum: number;
}

export class V1EventsTable {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly ingestLedger: (ledger: number, payloads: readonly Uint8Array[]) => void;
  private nextId = 0;

  constructor(dir: string, synchronous: 'full' | 'normal') {
    this.file = join(dir, 'v1-events.sqlite');
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS events (
         id INTEGER PRIMARY KEY,
         ledger_sequence INTEGER NOT NULL,
         contract_id BLOB,
         topic1 BLOB,
         event_data BLOB NOT NULL
       );
       CREATE INDEX IF NOT EXISTS idx_contract_id ON events (contract_id, id);
       CREATE INDEX IF NOT EXISTS idx_topic1 ON events (topic1, id);`,
    );
    this.insert = this.db.prepare(
      'INSERT INTO events (id, ledger_sequence, contract_id, topic1, event_data) VALUES (?, ?, ?, ?, ?)',
    );
    this.nextId = this.db.prepare('SELECT coalesce(max(id) + 1, 0) FROM events').pluck().get() as number;
    this.byId = this.db.prepare('SELECT event_data FROM events WHERE id = ?').pluck();
    this.ingestLedger = this.db.transaction((ledger: number, payloads: readonly Uint8Array[]) => {
      for (const payload of payloads) {
        const view = viewPayload(payload);
        this.insert.run(this.nextId++, ledger, view.contractId ?? null, view.topic(0) ?? null, payload);
      }
    });
  }

  /** Events ingested (the next id; found at open by the primary key: v1 has no index to rebuild). */
  get eventCount(): number {
    return this.nextId;
  }

  /** One ledger's events in one transaction; ids continue from the last ledger's. */
  ingest(ledger: number, payloads: readonly Uint8Array[]): void {
    this.ingestLedger(ledger, payloads);
  }

  /** Payloads of ascending ids, one point select each (v1 has no batch read). */
  fetch(ids: ArrayLike<number>): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < ids.length; i++) out.push(this.byId.get(ids[i]) as Uint8Array);
    return out;
  }

  /**
   * A limit-`limit` ascending page over ids [start, end): rows narrowed by the filters' contract ids when every
   * filter names some (else by their first topics when every filter names those, else the whole range), in id order,
   * each post-filtered.
   */
  page(filters: readonly StorageFilter[], postFilter: PostFilter, start: number, end: number, limit: number): V1Page {
    const statement = this.pageStatement(filters);
    let count = 0;
    let checksum = 0;
    for (const row of statement.sql.iterate(start, end, ...statement.values) as Iterable<{
      id: number;
      event_data: Uint8Array;
    }>) {
      if (!postFilter(row.event_data)) continue;
      count++;
      checksum ^= row.id;
      if (count === limit) break;
    }
    return { count, checksum };
  }

  /** Makes every commit durable: a FULL checkpoint. */
  sync(): void {
    this.db.pragma('wal_checkpoint(FULL)');
  }

  close(): void {
    this.db.close();
  }

  private readonly statements = new Map<string, Database.Statement>();

  private pageStatement(filters: readonly StorageFilter[]): { sql: Database.Statement; values: Uint8Array[] } {
    const distinct = (values: Uint8Array[]) => [
      ...new Map(values.map((v) => [Buffer.from(v).toString('hex'), v])).values(),
    ];
    let column = '';
    let values: Uint8Array[] = [];
    if (filters.length > 0 && filters.every((f) => f.contractId !== undefined)) {
      column = 'contract_id';
      values = distinct(filters.map((f) => f.contractId!));
    } else if (filters.length > 0 && filters.every((f) => f.topics[0] !== undefined)) {
      column = 'topic1';
      values = distinct(filters.map((f) => f.topics[0]!));
    }
    const where =
      column === '' ? 'id >= ? AND id < ?' : `id >= ? AND id < ? AND ${column} IN (${values.map(() => '?').join(',')})`;
    const sql = `SELECT id, event_data FROM events WHERE ${where} ORDER BY id`;
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return { sql: statement, values };
  }
}
