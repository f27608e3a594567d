// fetchEvents binds FETCH_ARITY ordinals per statement call (the last group padded with its last ordinal), reads
// a group of consecutive ordinals with one range scan instead, and gets ONE row per group (the row count and the
// payloads concatenated) that it splits by the payloads' own headers. Properties:
// 1. Any ascending set of ordinals — of every length around the group size, scattered, consecutive, or mixed —
//    returns exactly fetchRange's payloads for those ordinals, in order, for the store's reader and a worker reader.
// 2. A missing event row is CORRUPT naming that ordinal, wherever it falls (inside a scattered group, inside a
//    consecutive run, in a padded last group), never a shorter or shifted answer.
// 3. Against an oracle of one point select per ordinal (the v1-style read): random sets and the edge cases (empty,
//    single, first and last ordinal, a whole aligned group, sets straddling group boundaries), on a database of
//    this build's page size and on one of 4 KiB pages (an earlier build's file), both readers; repeated or
//    descending ordinals are INVALID_ARGUMENT.
// 4. A group row that is not exactly the ordinals' payloads in event order (a header's length altered, the blob
//    truncated or extended, a payload missing, extra, repeated or swapped, another version, a row count short) does
//    not split: the reader rereads the group row by row, which names the problem. 4b: payloads stored out of event
//    order (two rows' payloads exchanged) are CORRUPT from every read holding both.
// 5. A stored payload that is not exactly one payload (truncated, extended, another version, not a blob) is
//    CORRUPT from fetchEvents (scattered and consecutive groups) and fetchRange.
// 6. fetchRange (RANGE_ARITY ordinals per aggregated row) equals one point select per ordinal for windows of every
//    length around the group size and across group boundaries, both readers; a row missing in any group of the
//    window is CORRUPT naming it.
// Property 2 doubles as the negative control of property 1's check: rows deleted under a reader must surface.
import { join } from 'node:path';
import { propertyParams, tempDir } from '@strata/test-kit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GroupRow, RANGE_ARITY, splitGroupRow } from '../src/hot-reader.js';
import { openHotStoreWith } from '../src/hot-store.js';
import { FETCH_ARITY, HotStore, HotStoreError, openHotReader, PAGE_SIZE_BYTES } from '../src/index.js';
import { ordinalSets, syntheticLedger } from './support.js';

const CHUNK = 12;
const FIRST = CHUNK * 10_000 + 2;

function filled(pageSizeBytes = PAGE_SIZE_BYTES): { path: string; store: HotStore; count: number } {
  const path = join(tempDir('fetch'), 'chunk.db');
  const store = openHotStoreWith(path, { chunkId: CHUNK, create: true }, { pageSizeBytes });
  for (let l = FIRST; store.eventCount < 2_000; l++) store.ingestLedger(l, syntheticLedger(7, l, 40, 10));
  return { path, store, count: store.eventCount };
}

describe('fetchEvents through fixed-arity statements', () => {
  it('property 1: every ascending set equals fetchRange, store reader and worker reader', async () => {
    const { path, store, count } = filled();
    const all = (await store.reader().fetchRange({ start: 0, end: count })).map((e) => Buffer.from(e.payload));
    const worker = openHotReader(path, { chunkId: CHUNK });
    try {
      // Every length around one and two groups, consecutive and scattered.
      for (const length of [1, FETCH_ARITY - 1, FETCH_ARITY, FETCH_ARITY + 1, 2 * FETCH_ARITY + 1]) {
        for (const step of [1, 3]) {
          const ordinals = Array.from({ length }, (_, i) => 5 + i * step);
          const got = await store.reader().fetchEvents(ordinals);
          expect(got.map((p) => Buffer.from(p))).toEqual(ordinals.map((o) => all[o]));
        }
      }
      await fc.assert(
        fc.asyncProperty(
          ordinalSets(count, { maxRun: 3 * FETCH_ARITY, maxRuns: 6, strideMod: 7 }),
          async (ordinals) => {
            for (const reader of [store.reader(), worker]) {
              const got = await reader.fetchEvents(ordinals);
              expect(got.length).toBe(ordinals.length);
              expect(got.findIndex((payload, i) => Buffer.compare(payload, all[ordinals[i]!]!) !== 0)).toBe(-1);
            }
          },
        ),
        propertyParams({ numRuns: 60 }),
      );
    } finally {
      await worker.close();
      store.close();
    }
  });

  it('property 2 and negative control: a missing row is CORRUPT wherever it falls', async () => {
    const { path, store } = filled();
    const scattered = Array.from({ length: FETCH_ARITY + 10 }, (_, i) => 3 * i);
    const consecutive = Array.from({ length: 2 * FETCH_ARITY }, (_, i) => 1_000 + i);
    const before = await store.reader().fetchEvents(scattered);
    store.close();
    // A reader opened first (its index rebuilt from intact rows); then rows disappear under it.
    const reader = openHotReader(path, { chunkId: CHUNK });
    const db = new Database(path);
    // In a scattered group, in a consecutive run, and the last ordinal of a padded last group.
    const missing = [3 * 7, 1_000 + FETCH_ARITY + 5, 3 * (FETCH_ARITY + 9)];
    for (const ordinal of missing) db.prepare('DELETE FROM events WHERE ordinal = ?').run(ordinal);
    db.close();
    try {
      for (const [ordinals, gone] of [
        [scattered, missing[0]!],
        [consecutive, missing[1]!],
        [scattered.slice(FETCH_ARITY), missing[2]!],
      ] as const) {
        const error = await reader.fetchEvents(ordinals).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(HotStoreError);
        expect((error as HotStoreError).code).toBe('CORRUPT');
        expect((error as HotStoreError).detail).toBe(`event ${gone} is missing`);
      }
      // The ordinals around the gaps still read as before.
      const kept = scattered.filter((o) => !missing.includes(o));
      const got = await reader.fetchEvents(kept);
      expect(got.map((p) => Buffer.from(p))).toEqual(
        before.filter((_, i) => !missing.includes(scattered[i]!)).map((p) => Buffer.from(p)),
      );
    } finally {
      await reader.close();
    }
  });
});

/** The oracle: one point select per ordinal on a connection of its own. */
function pointSelects(path: string, ordinals: readonly number[]): Buffer[] {
  const db = new Database(path, { readonly: true });
  try {
    const select = db.prepare('SELECT payload FROM events WHERE ordinal = ?').pluck();
    return ordinals.map((o) => select.get(o) as Buffer);
  } finally {
    db.close();
  }
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (e: unknown) => (e instanceof HotStoreError || (e instanceof Error && 'code' in e) ? String(e.code) : 'other'),
  );
}

describe('fetchEvents: one row per group', () => {
  for (const pageSize of [PAGE_SIZE_BYTES, 4096]) {
    it(`property 3: equals one point select per ordinal (page size ${pageSize}), edge cases included`, async () => {
      const { path, store, count } = filled(pageSize);
      store.close();
      const writer = HotStore.open(path, { chunkId: CHUNK }); // reopened by a plain open: the file keeps its pages
      const worker = openHotReader(path, { chunkId: CHUNK });
      const db = new Database(path, { readonly: true });
      expect(db.pragma('page_size', { simple: true })).toBe(pageSize);
      db.close();
      const aligned = (g: number) => Array.from({ length: FETCH_ARITY }, (_, i) => g * FETCH_ARITY + i);
      const edges: number[][] = [
        [],
        [0],
        [count - 1],
        [0, count - 1],
        aligned(3),
        [...aligned(3), 4 * FETCH_ARITY], // a whole group plus one
        aligned(3)
          .slice(1)
          .concat(4 * FETCH_ARITY), // a run across a group boundary
        Array.from({ length: 3 * FETCH_ARITY }, (_, i) => count - 3 * FETCH_ARITY + i), // ends at the last ordinal
        Array.from({ length: FETCH_ARITY + 1 }, (_, i) => count - 1 - 2 * (FETCH_ARITY - i)), // scattered, to the last
        [FETCH_ARITY - 1, FETCH_ARITY, 2 * FETCH_ARITY - 1, 2 * FETCH_ARITY],
      ];
      const check = async (ordinals: number[]) => {
        const expected = pointSelects(path, ordinals);
        for (const reader of [writer.reader(), worker]) {
          const got = await reader.fetchEvents(ordinals);
          expect(got.length).toBe(ordinals.length);
          expect(got.findIndex((payload, i) => Buffer.compare(payload, expected[i]!) !== 0)).toBe(-1);
        }
      };
      try {
        for (const ordinals of edges) await check(ordinals);
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { maxLength: 4 * FETCH_ARITY }),
            async (set) => check(set.sort((a, b) => a - b)),
          ),
          propertyParams({ numRuns: 40 }),
        );
        for (const bad of [
          [5, 5],
          [7, 6],
          [1, 2, 2, 3],
        ]) {
          expect(await codeOf(worker.fetchEvents(bad))).toBe('INVALID_ARGUMENT');
        }
      } finally {
        await worker.close();
        writer.close();
      }
    });
  }

  it('a new database gets PAGE_SIZE_BYTES pages', () => {
    const path = join(tempDir('fetch'), 'new.db');
    HotStore.open(path, { chunkId: CHUNK, create: true }).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('page_size', { simple: true })).toBe(PAGE_SIZE_BYTES);
    expect(PAGE_SIZE_BYTES).toBe(16384);
    db.close();
  });

  it('property 4: a group row that is not exactly the payloads in event order does not split', () => {
    const payloads = syntheticLedger(3, FIRST, 4, 4);
    const blob = Buffer.concat(payloads);
    const lengths = payloads.map((p) => p.length);
    const out: Uint8Array[] = [];
    expect(splitGroupRow([4, blob], 0, 4, out)).toBe(true);
    expect(out.map((p) => Buffer.from(p))).toEqual(payloads.map((p) => Buffer.from(p)));
    /** The blob with the ContractEvent length of payload `i` changed by `delta`. */
    const lengthAltered = (i: number, delta: number) => {
      const copy = Buffer.from(blob);
      const at = lengths.slice(0, i).reduce((x, y) => x + y, 0) + 57;
      copy.writeUInt32BE(copy.readUInt32BE(at) + delta, at);
      return copy;
    };
    const bad: [string, GroupRow][] = [
      ['a length larger', [4, lengthAltered(1, 1)]],
      ['a length smaller', [4, lengthAltered(1, -1)]],
      ['the last length larger', [4, lengthAltered(3, 1)]],
      ['the blob truncated', [4, blob.subarray(0, blob.length - 1)]],
      ['the blob extended', [4, Buffer.concat([blob, Buffer.from([0])])]],
      ['a payload missing', [4, Buffer.concat(payloads.slice(0, 3))]],
      ['a payload extra', [4, Buffer.concat([...payloads, payloads[3]!])]],
      ['two payloads swapped', [4, Buffer.concat([payloads[0]!, payloads[2]!, payloads[1]!, payloads[3]!])]],
      ['a payload repeated', [4, Buffer.concat([payloads[0]!, payloads[1]!, payloads[1]!, payloads[3]!])]],
      ['another version', [4, Buffer.concat([Buffer.from([2]), blob.subarray(1)])]],
      ['a row missing', [3, blob]],
      ['no row', [0, null]],
    ];
    for (const [what, row] of bad) {
      const kept = [new Uint8Array(1)];
      expect([what, splitGroupRow(row, 0, 4, kept), kept.length]).toEqual([what, false, 1]);
    }
  });

  it('property 4b: payloads stored out of event order are CORRUPT from the reads that see both', async () => {
    const { path, store, count } = filled();
    store.close();
    const target = 1 + Math.floor(count / 2);
    const reader = openHotReader(path, { chunkId: CHUNK });
    const db = new Database(path);
    db.prepare(
      'UPDATE events SET payload = (SELECT payload FROM events AS o WHERE o.ordinal = ? + ? - events.ordinal) WHERE ordinal IN (?, ?)',
    ).run(target, target + 1, target, target + 1);
    db.close();
    try {
      for (const call of [
        () => reader.fetchEvents([target - 1, target, target + 1]),
        () => reader.fetchEvents([target - 8, target, target + 1, target + 9]),
        () => reader.fetchRange({ start: target - 1, end: target + 2 }),
      ]) {
        expect(await codeOf(call())).toBe('CORRUPT');
      }
    } finally {
      await reader.close();
    }
  });

  it('property 5: a stored payload that is not one payload is CORRUPT from every read', async () => {
    const { path, store, count } = filled();
    store.close();
    const damaged = [
      ['truncated', 'substr(payload, 1, length(payload) - 1)'],
      ['extended', "payload || x'00'"],
      ['another version', "x'02' || substr(payload, 2)"],
      ['text', "'é' || substr(payload, 2)"],
      ['an integer', '7'],
    ] as const;
    for (const [what, expression] of damaged) {
      const target = 1 + Math.floor(count / 2);
      const copy = join(tempDir('fetch'), 'damaged.db');
      const source = new Database(path, { readonly: true });
      await source.backup(copy);
      source.close();
      // The reader opens first (it indexes the open slab's events, which would refuse the damage at open).
      const reader = openHotReader(copy, { chunkId: CHUNK });
      const db = new Database(copy);
      db.prepare(`UPDATE events SET payload = ${expression} WHERE ordinal = ?`).run(target);
      db.close();
      try {
        const scattered = [target - 4, target - 2, target, target + 2];
        const run = [target - 1, target, target + 1];
        for (const call of [
          () => reader.fetchEvents(scattered),
          () => reader.fetchEvents(run),
          () => reader.fetchRange({ start: target - 1, end: target + 2 }),
        ]) {
          expect([what, await codeOf(call())]).toEqual([what, 'CORRUPT']);
        }
        // Its neighbours still read.
        expect((await reader.fetchEvents([target - 2, target + 2])).length).toBe(2);
      } finally {
        await reader.close();
      }
    }
  });
});

describe('fetchRange: one row per group of RANGE_ARITY', () => {
  it('property 6: equals one point select per ordinal across group boundaries; a missing row is named', async () => {
    const { path, store, count } = filled();
    expect(count).toBeGreaterThan(3 * RANGE_ARITY + 2);
    const worker = openHotReader(path, { chunkId: CHUNK });
    const range = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => start + i);
    const check = async (start: number, end: number) => {
      const expected = pointSelects(path, range(start, end));
      for (const reader of [store.reader(), worker]) {
        const got = await reader.fetchRange({ start, end });
        expect(got.map((e) => e.ordinal)).toEqual(range(start, end));
        expect(got.findIndex((e, i) => Buffer.compare(e.payload, expected[i]!) !== 0)).toBe(-1);
      }
    };
    try {
      for (const length of [1, RANGE_ARITY - 1, RANGE_ARITY, RANGE_ARITY + 1, 3 * RANGE_ARITY + 2]) {
        await check(0, length);
        await check(count - length, count);
        await check(RANGE_ARITY - 1, RANGE_ARITY - 1 + length);
      }
      await check(0, count);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: count - 1 }),
          fc.integer({ min: 1, max: 4 * RANGE_ARITY }),
          async (start, length) => check(start, Math.min(count, start + length)),
        ),
        propertyParams({ numRuns: 30 }),
      );
    } finally {
      await worker.close();
    }
    // A row deleted in the third group of a window: CORRUPT naming it, from both readers.
    const gone = 2 * RANGE_ARITY + 7;
    const reader = openHotReader(path, { chunkId: CHUNK });
    store.close();
    const db = new Database(path);
    db.prepare('DELETE FROM events WHERE ordinal = ?').run(gone);
    db.close();
    try {
      const error = await reader.fetchRange({ start: 5, end: 3 * RANGE_ARITY }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HotStoreError);
      expect((error as HotStoreError).code).toBe('CORRUPT');
      expect((error as HotStoreError).detail).toBe(`event ${gone} is missing`);
      expect((await reader.fetchRange({ start: 5, end: gone })).length).toBe(gone - 5);
    } finally {
      await reader.close();
    }
  });
});
