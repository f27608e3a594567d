// Every HotStoreError code, from the call that must raise it, with the context a caller needs (file, field, cause),
// and nothing written by the failed call (checked on the reopened database).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePayload, EventsError, PAYLOAD_FIELD_OFFSETS, PAYLOAD_HEADER_LENGTH } from '@strata/events';
import { errorOf, rejectionOf, tempDir } from '@strata/test-kit';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  HOT_SCHEMA_VERSION,
  HotStore,
  HotStoreError,
  type HotStoreErrorCode,
  MAX_BATCH_LEDGERS,
  MAX_FETCH_EVENTS,
  MAX_PAYLOAD_BYTES,
  openHotReader,
} from '../src/index.js';
import { syntheticLedger } from './support.js';

const CHUNK = 5;
const FIRST = CHUNK * 10_000 + 2;

function fresh(ledgers = 3): { path: string; store: HotStore } {
  const path = join(tempDir('errors'), 'chunk.db');
  const store = HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
  for (let i = 0; i < ledgers; i++) store.ingestLedger(FIRST + i, syntheticLedger(1, FIRST + i, 8, 1));
  return { path, store };
}

function expectCode(error: HotStoreError, code: HotStoreErrorCode): HotStoreError {
  expect(error.code, error.message).toBe(code);
  return error;
}

/** The store after a failed call: still the three ledgers it had, in memory and on disk. */
function expectUnchanged(path: string, store: HotStore, latest = FIRST + 2): void {
  expect(store.latestLedger).toBe(latest);
  const events = store.eventCount;
  store.close();
  const reopened = HotStore.open(path, { chunkId: CHUNK });
  expect(reopened.latestLedger).toBe(latest);
  expect(reopened.eventCount).toBe(events);
  reopened.close();
}

describe('ingest errors leave nothing written', () => {
  const orderCases: { code: HotStoreErrorCode; single: number; batch: [number, number] }[] = [
    // A stored ledger; a ledger repeated inside a batch.
    { code: 'DUPLICATE_LEDGER', single: FIRST + 1, batch: [FIRST + 3, FIRST + 3] },
    // A gap; a batch out of order.
    { code: 'OUT_OF_ORDER_LEDGER', single: FIRST + 4, batch: [FIRST + 3, FIRST + 5] },
  ];
  for (const { code, single, batch } of orderCases) {
    it(`${code}: a single ledger and a batch`, () => {
      const { path, store } = fresh();
      const error = expectCode(
        errorOf(HotStoreError, () => store.ingestLedger(single, [])),
        code,
      );
      expect(error.field).toBe('ledger');
      expect(error.file).toBe(path);
      const ledgers = batch.map((ledger) => ({ ledger, payloads: syntheticLedger(2, ledger, 4, 1) }));
      expectCode(
        errorOf(HotStoreError, () => store.ingestLedgers(ledgers)),
        code,
      );
      expectUnchanged(path, store);
    });
  }

  it('LEDGER_OUTSIDE_CHUNK: the first ledger of an empty store, or any later one', () => {
    const path = join(tempDir('errors'), 'chunk.db');
    const store = HotStore.open(path, { chunkId: CHUNK, create: true });
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST - 1, [])),
      'LEDGER_OUTSIDE_CHUNK',
    );
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 10_000, [])),
      'LEDGER_OUTSIDE_CHUNK',
    );
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(1, [])),
      'LEDGER_OUTSIDE_CHUNK',
    );
    expect(store.latestLedger).toBeUndefined();
    // The first ledger may be any ledger inside the chunk (a node starting mid-chunk); the last one too.
    store.ingestLedger(FIRST + 9_999, []);
    expect(store.ledgerOffsets().startLedger).toBe(FIRST + 9_999);
    store.close();
  });

  it('MALFORMED_PAYLOAD: bad bytes (cause: the EventsError), another ledger, events out of id order', () => {
    const { path, store } = fresh();
    const good = syntheticLedger(3, FIRST + 3, 6, 2);
    const bad = [...good.slice(0, 1), Uint8Array.of(2, ...good[1]!.subarray(1))];
    const error = expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, bad)),
      'MALFORMED_PAYLOAD',
    );
    expect(error.cause).toBeInstanceOf(EventsError);
    expect(error.field).toBe(`ledger ${FIRST + 3} event 1`);
    const truncated = [good[0]!.subarray(0, good[0]!.length - 1)];
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, truncated)),
      'MALFORMED_PAYLOAD',
    );
    // The value cut short under a header that agrees (only a walk to the end finds it), and a close time outside
    // the safe range (decodePayload would refuse both).
    const cut = good[0]!.slice(0, good[0]!.length - 1);
    new DataView(cut.buffer).setUint32(PAYLOAD_FIELD_OFFSETS.contractEventLength, cut.length - PAYLOAD_HEADER_LENGTH);
    const lateClose = good[0]!.slice();
    new DataView(lateClose.buffer).setInt32(PAYLOAD_FIELD_OFFSETS.ledgerClosedAt, 2 ** 30);
    for (const payload of [cut, lateClose]) {
      expect(() => decodePayload(payload)).toThrow(EventsError);
      expectCode(
        errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, [payload])),
        'MALFORMED_PAYLOAD',
      );
    }
    const foreign = syntheticLedger(3, FIRST + 4, 2, 1);
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, foreign)),
      'MALFORMED_PAYLOAD',
    );
    const reversed = [good[1]!, good[0]!];
    const order = expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, reversed)),
      'MALFORMED_PAYLOAD',
    );
    expect(order.detail).toMatch(/does not follow/);
    // A bad payload in the last ledger of a batch fails the whole batch.
    const batch = [
      { ledger: FIRST + 3, payloads: good },
      { ledger: FIRST + 4, payloads: [new Uint8Array(10)] },
    ];
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedgers(batch)),
      'MALFORMED_PAYLOAD',
    );
    expectUnchanged(path, store);
  });

  it('INVALID_ARGUMENT: shapes and bounds of every caller-supplied size', () => {
    const { path, store } = fresh();
    const calls: (() => unknown)[] = [
      () => store.ingestLedgers([]),
      () => store.ingestLedgers('x' as never),
      () =>
        store.ingestLedgers(
          Array.from({ length: MAX_BATCH_LEDGERS + 1 }, (_, i) => ({ ledger: FIRST + 3 + i, payloads: [] })),
        ),
      () => store.ingestLedger(FIRST + 3.5, []),
      () => store.ingestLedger(FIRST + 3, 'x' as never),
      () => store.ingestLedger(FIRST + 3, [[1, 2]] as never),
      () => store.ingestLedger(FIRST + 3, [new Uint8Array(MAX_PAYLOAD_BYTES + 1)]),
      () => HotStore.open(path, { chunkId: -1 }),
      () => HotStore.open(path, { chunkId: CHUNK, cacheSizeKiB: 1 }),
      () => HotStore.open(path, { chunkId: CHUNK, synchronous: 'off' as never }),
      () => HotStore.open(path, null as never),
    ];
    for (const call of calls) expectCode(errorOf(HotStoreError, call), 'INVALID_ARGUMENT');
    expectUnchanged(path, store);
  });

  it('IO: SQLite refuses the write (a row the store did not expect), and the transaction rolls back', () => {
    const { path, store } = fresh();
    const raw = new Database(path);
    raw.prepare('INSERT INTO events (ordinal, payload) VALUES (?, ?)').run(store.eventCount + 1, Buffer.from([1]));
    raw.close();
    const payloads = syntheticLedger(4, FIRST + 3, 6, 3);
    const error = expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, payloads)),
      'IO',
    );
    expect((error.cause as { code?: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(ledger) FROM ledgers').pluck().get()).toBe(FIRST + 2);
    check.close();
    store.close();
  });

  it('FROZEN and NOT_FROZEN: ingest into a frozen chunk; delete of a live one; delete of a frozen one', () => {
    const { path, store } = fresh();
    expectCode(
      errorOf(HotStoreError, () => HotStore.delete(path, { chunkId: CHUNK })),
      'NOT_FROZEN',
    );
    store.freeze();
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, [])),
      'FROZEN',
    );
    store.close();
    const reopened = HotStore.open(path, { chunkId: CHUNK });
    expect(reopened.frozen).toBe(true);
    expectCode(
      errorOf(HotStoreError, () => reopened.ingestLedger(FIRST + 3, [])),
      'FROZEN',
    );
    reopened.close();
    expectCode(
      errorOf(HotStoreError, () => HotStore.delete(path, { chunkId: CHUNK + 1 })),
      'WRONG_CHUNK',
    );
    HotStore.delete(path, { chunkId: CHUNK });
    expectCode(
      errorOf(HotStoreError, () => HotStore.open(path, { chunkId: CHUNK })),
      'NOT_FOUND',
    );
    expectCode(
      errorOf(HotStoreError, () => HotStore.delete(path, { chunkId: CHUNK })),
      'NOT_FOUND',
    );
  });
});

describe('open errors', () => {
  it('NOT_FOUND without create; WRONG_CHUNK for another chunk (writer and reader)', () => {
    const dir = tempDir('errors');
    expectCode(
      errorOf(HotStoreError, () => HotStore.open(join(dir, 'none.db'), { chunkId: CHUNK })),
      'NOT_FOUND',
    );
    expectCode(
      errorOf(HotStoreError, () => openHotReader(join(dir, 'none.db'), { chunkId: CHUNK })),
      'NOT_FOUND',
    );
    const { path, store } = fresh();
    store.close();
    const wrong = expectCode(
      errorOf(HotStoreError, () => HotStore.open(path, { chunkId: CHUNK + 1 })),
      'WRONG_CHUNK',
    );
    expect(wrong.file).toBe(path);
    expectCode(
      errorOf(HotStoreError, () => openHotReader(path, { chunkId: CHUNK - 1 })),
      'WRONG_CHUNK',
    );
  });

  it('SCHEMA_VERSION: another user_version, another application, another meta value', () => {
    const { path, store } = fresh();
    store.close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${HOT_SCHEMA_VERSION + 1}`);
    raw.close();
    const error = expectCode(
      errorOf(HotStoreError, () => HotStore.open(path, { chunkId: CHUNK })),
      'SCHEMA_VERSION',
    );
    expect(error.detail).toMatch(`schema version ${HOT_SCHEMA_VERSION + 1}`);
    expectCode(
      errorOf(HotStoreError, () => openHotReader(path, { chunkId: CHUNK })),
      'SCHEMA_VERSION',
    );

    const other = join(tempDir('errors'), 'other.db');
    const foreign = new Database(other);
    foreign.exec('CREATE TABLE t (x)');
    foreign.close();
    expectCode(
      errorOf(HotStoreError, () => HotStore.open(other, { chunkId: CHUNK, create: true })),
      'SCHEMA_VERSION',
    );

    const { path: second, store: secondStore } = fresh(1);
    secondStore.close();
    const edit = new Database(second);
    edit.prepare("UPDATE meta SET value = 2 WHERE key = 'term_schema_version'").run();
    edit.close();
    const meta = expectCode(
      errorOf(HotStoreError, () => HotStore.open(second, { chunkId: CHUNK })),
      'SCHEMA_VERSION',
    );
    expect(meta.field).toBe('term_schema_version');
  });

  it('CORRUPT: not a database (SQLite error as cause), a missing event, a damaged sealed slab', () => {
    const dir = tempDir('errors');
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, Buffer.alloc(8192, 0x5a));
    const error = expectCode(
      errorOf(HotStoreError, () => HotStore.open(garbage, { chunkId: CHUNK })),
      'CORRUPT',
    );
    expect((error.cause as { code?: string }).code).toBe('SQLITE_NOTADB');

    const { path, store } = fresh();
    store.close();
    const raw = new Database(path);
    raw.prepare('DELETE FROM events WHERE ordinal = 1').run();
    raw.close();
    expectCode(
      errorOf(HotStoreError, () => HotStore.open(path, { chunkId: CHUNK })),
      'CORRUPT',
    );
    expectCode(
      errorOf(HotStoreError, () => openHotReader(path, { chunkId: CHUNK })),
      'CORRUPT',
    );

    // A full slab, sealed by the next ingest; then one byte of its blob changed.
    const sealed = join(tempDir('errors'), 'sealed.db');
    const big = HotStore.open(sealed, { chunkId: CHUNK, create: true, synchronous: 'normal' });
    let ledger = FIRST;
    while (big.eventCount < 65_536) big.ingestLedger(ledger, syntheticLedger(9, ledger++, 3_000, 2_000));
    big.ingestLedger(ledger, []);
    big.close();
    const edit = new Database(sealed);
    const blob = edit.prepare('SELECT postings FROM sealed_slabs WHERE slab = 0').pluck().get() as Buffer;
    blob[blob.length - 1] = blob[blob.length - 1]! ^ 0xff;
    edit.prepare('UPDATE sealed_slabs SET postings = ? WHERE slab = 0').run(blob);
    edit.close();
    const slab = expectCode(
      errorOf(HotStoreError, () => HotStore.open(sealed, { chunkId: CHUNK })),
      'CORRUPT',
    );
    expect(slab.field).toMatch(/sealed_slabs|events/);
  });
});

describe('CLOSED', () => {
  it('a closed store and its readers reject; a closed worker reader rejects', async () => {
    const { path, store } = fresh();
    const reader = store.reader();
    const worker = openHotReader(path, { chunkId: CHUNK });
    store.close();
    store.close(); // idempotent
    expectCode(
      errorOf(HotStoreError, () => store.ingestLedger(FIRST + 3, [])),
      'CLOSED',
    );
    expectCode(
      errorOf(HotStoreError, () => store.latestLedger),
      'CLOSED',
    );
    expectCode(await rejectionOf(HotStoreError, () => reader.fetchRange({ start: 0, end: 1 })), 'CLOSED');
    expect(worker.eventCount()).toBeGreaterThan(0); // its own connection outlives the store
    await worker.close();
    expectCode(
      errorOf(HotStoreError, () => worker.eventCount()),
      'CLOSED',
    );
    expectCode(await rejectionOf(HotStoreError, () => worker.lookupTerms([], { start: 0, end: 0 })), 'CLOSED');
  });

  it('reader arguments are EventsError INVALID_ARGUMENT (the ChunkReader contract), bounded', async () => {
    const { store } = fresh();
    const reader = store.reader();
    const n = reader.eventCount();
    for (const call of [
      () => reader.fetchEvents(Array.from({ length: MAX_FETCH_EVENTS + 1 }, (_, i) => i)),
      () => reader.fetchEvents([0.5]),
      () => reader.fetchRange({ start: 1, end: 0 }),
      () => reader.lookupTerms([new Uint8Array(15)], { start: 0, end: n }),
      () => reader.lookupTerms('x' as never, { start: 0, end: n }),
    ]) {
      expect((await rejectionOf(EventsError, call)).code).toBe('INVALID_ARGUMENT');
    }
    store.close();
  });
});
