// fetchEvents binds FETCH_ARITY ordinals per statement call (the last group padded with its last ordinal) and reads
// a group of consecutive ordinals with one range scan instead. Properties:
// 1. Any ascending set of ordinals — of every length around the group size, scattered, consecutive, or mixed —
//    returns exactly fetchRange's payloads for those ordinals, in order, for the store's reader and a worker reader.
// 2. A missing event row is CORRUPT naming that ordinal, wherever it falls (inside a scattered group, inside a
//    consecutive run, in a padded last group), never a shorter or shifted answer.
// Property 2 doubles as the negative control of property 1's check: rows deleted under a reader must surface.
import { join } from 'node:path';
import { propertyParams, tempDir } from '@strata/test-kit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FETCH_ARITY, HotStore, HotStoreError, openHotReader } from '../src/index.js';
import { syntheticLedger } from './support.js';

const CHUNK = 12;
const FIRST = CHUNK * 10_000 + 2;

function filled(): { path: string; store: HotStore; count: number } {
  const path = join(tempDir('fetch'), 'chunk.db');
  const store = HotStore.open(path, { chunkId: CHUNK, create: true });
  for (let l = FIRST; store.eventCount < 2_000; l++) store.ingestLedger(l, syntheticLedger(7, l, 40, 10));
  return { path, store, count: store.eventCount };
}

/** Ascending unique ordinals below `count`: runs of consecutive ordinals and scattered ones. */
const ordinalSets = (count: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: count - 1 }), fc.integer({ min: 1, max: 3 * FETCH_ARITY })), {
      minLength: 1,
      maxLength: 6,
    })
    .map((runs) => {
      const set = new Set<number>();
      for (const [start, length] of runs) {
        const step = length % 3 === 0 ? 1 : 1 + (length % 7); // some runs consecutive, some strided
        for (let i = 0; i < length && start + i * step < count; i++) set.add(start + i * step);
      }
      return [...set].sort((a, b) => a - b);
    });

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
        fc.asyncProperty(ordinalSets(count), async (ordinals) => {
          for (const reader of [store.reader(), worker]) {
            const got = await reader.fetchEvents(ordinals);
            expect(got.length).toBe(ordinals.length);
            expect(got.findIndex((payload, i) => Buffer.compare(payload, all[ordinals[i]!]!) !== 0)).toBe(-1);
          }
        }),
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
