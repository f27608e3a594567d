// The fetch fan-out (src/fetch-fanout.ts): a worker with its own read-only connection answers some groups of large
// scattered fetchEvents calls of the store's reader. Properties:
// 1. With the worker running, every ascending set of ordinals (scattered, consecutive, mixed, across any number of
//    groups) returns exactly the payloads fetchRange gives for them, in order, while ingest goes on between calls
//    (the worker reads the newest committed state; the asked ordinals are committed and never change); the worker
//    did answer groups.
// 2. A worker that misbehaves never changes an answer, and the store goes on (alone where the worker is given up):
//    rows it truncates are reread by the caller; a worker that throws, one stuck mid-group, one slower than the
//    caller (its groups taken over, its late answers dropped), one that cannot start, and a region too small for its
//    rows all leave every answer exact, and close() returns in each case.
// 3. Negative control: a worker that reads each group's neighbour events (a row the caller's checks cannot tell
//    from the right one: a whole group of other events, in order) makes property 1's check fail — the check
//    compares payloads, not just shapes.
// 4. fetchWorker false: no worker, answers the same.
// 5. A worker reader (openHotReader) fans out the same way over its own connection: property 1 through it, with a
//    ledger committed by the store before each set (the reader refreshes; its worker reads the newest state).
import { join } from 'node:path';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FanoutSeams } from '../src/fetch-fanout.js';
import { openHotStoreWith } from '../src/hot-store.js';
import { FETCH_ARITY, type HotChunkReader, type HotStore, openHotReader } from '../src/index.js';
import { ordinalSets, syntheticLedger } from './support.js';

const CHUNK = 13;
const FIRST = CHUNK * 10_000 + 2;

function filled(fanout: FanoutSeams, fetchWorker = true): { store: HotStore; next: number } {
  const path = join(tempDir('fanout'), 'chunk.db');
  const store = openHotStoreWith(path, { chunkId: CHUNK, create: true, fetchWorker }, { fanout });
  let next = FIRST;
  while (store.eventCount < 3_000) store.ingestLedger(next, syntheticLedger(11, next++, 40, 10));
  return { store, next };
}

/** Makes one large fetch (which starts the worker), then waits until the worker runs (or 10 s) unless `wait` is false. */
async function started(store: HotStore | HotChunkReader, wait = true): Promise<void> {
  const ordinals = Array.from({ length: 4 * FETCH_ARITY }, (_, i) => 2 * i);
  await ('reader' in store ? store.reader() : store).fetchEvents(ordinals);
  for (let waited = 0; wait && store.fanoutState()?.running !== true && waited < 10_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Checks random sets (and one of every ordinal) against fetchRange, ingesting a ledger before each set; through
 * `through` (default the store's reader).
 */
async function checkAnswers(
  store: HotStore,
  next: number,
  numRuns: number,
  through: HotChunkReader = store.reader(),
): Promise<void> {
  const reader = through;
  const count = store.eventCount;
  const all = (await reader.fetchRange({ start: 0, end: count })).map((e) => Buffer.from(e.payload));
  const whole = await reader.fetchEvents(Array.from({ length: count }, (_, i) => i));
  expect(whole.findIndex((payload, i) => Buffer.compare(payload, all[i]!) !== 0)).toBe(-1);
  await fc.assert(
    fc.asyncProperty(ordinalSets(count, { maxRun: 6 * FETCH_ARITY, maxRuns: 8, strideMod: 11 }), async (ordinals) => {
      store.ingestLedger(next, syntheticLedger(11, next++, 40, 10));
      const got = await reader.fetchEvents(ordinals);
      expect(got.length).toBe(ordinals.length);
      expect(got.findIndex((payload, i) => Buffer.compare(payload, all[ordinals[i]!]!) !== 0)).toBe(-1);
    }),
    propertyParams({ numRuns }),
  );
}

describe('fetch fan-out', () => {
  it('property 1: with the worker running, every set equals fetchRange while ingest goes on', async () => {
    const { store, next } = filled({});
    try {
      await started(store);
      expect(store.fanoutState()?.running).toBe(true);
      await checkAnswers(store, next, 80);
      const state = store.fanoutState()!;
      expect(state.running).toBe(true);
      expect(state.stats.calls).toBeGreaterThan(40);
      expect(state.stats.workerGroups).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  const misbehaving: [string, FanoutSeams, { running: boolean; answered: boolean }][] = [
    // [what, seams, whether the worker still runs afterwards and whether rows of it were used]
    [
      'truncates the rows it returns',
      { workerHook: 'row = [row[0], row[1] && row[1].subarray(1)];' },
      { running: true, answered: true },
    ],
    ['throws', { workerHook: "throw new Error('boom');" }, { running: false, answered: false }],
    [
      'is stuck past the wait',
      { workerHook: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);', giveUpCalls: 4 },
      { running: false, answered: false },
    ],
    ['has a region too small for any row', { regionBytes: 16 }, { running: true, answered: false }],
  ];
  for (const [what, seams, after] of misbehaving) {
    it(`property 2: a worker that ${what} changes no answer`, async () => {
      const { store, next } = filled(seams);
      try {
        await started(store);
        await checkAnswers(store, next, 15);
        const state = store.fanoutState()!;
        expect(state.running).toBe(after.running);
        expect(state.stats.workerGroups > 0).toBe(after.answered);
      } finally {
        store.close(); // returns (a stuck worker is let go, then terminated): the test's timeout catches a hang
      }
    });
  }

  it('property 2: a worker slower than the caller has its groups taken over, and its late answers dropped', async () => {
    // 2 ms a group: the caller's groups of this small database take a few µs, so it takes the worker's over.
    const { store, next } = filled({ workerHook: 'for (const until = Date.now() + 2; Date.now() < until; );' });
    try {
      await started(store);
      await checkAnswers(store, next, 20);
      const state = store.fanoutState()!;
      expect(state.running).toBe(true);
      expect(state.stats.takenGroups).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it('property 2: a worker that cannot start changes no answer', async () => {
    const path = join(tempDir('fanout'), 'chunk.db');
    const store = openHotStoreWith(
      path,
      { chunkId: CHUNK, create: true, backgroundCheckpoints: false },
      { sqliteEntry: join(path, 'no-such-module.js') },
    );
    let next = FIRST;
    while (store.eventCount < 3_000) store.ingestLedger(next, syntheticLedger(11, next++, 40, 10));
    try {
      await started(store, false); // it never runs: its start fails in the background, whenever that is
      await checkAnswers(store, next, 10);
      expect(store.fanoutState()).toEqual({ running: false, stats: { calls: 0, workerGroups: 0, takenGroups: 0 } });
    } finally {
      store.close();
    }
  });

  it('property 3 (negative control): a worker reading the neighbour events fails property 1', async () => {
    // Its rows hold the events that follow each group's first ordinal: the right count, in event order.
    const { store, next } = filled({
      workerHook: 'row = range.get(ordinals[from] + 1, ordinals[from] + 1 + (to - from));',
    });
    try {
      await started(store);
      await expect(checkAnswers(store, next, 10)).rejects.toThrow(/Property failed|to be -1/);
    } finally {
      store.close();
    }
  });

  it('property 5: a worker reader fans out over its own connection', async () => {
    const { store, next } = filled({}, false);
    const reader = openHotReader(store.path, { chunkId: CHUNK });
    try {
      await started(reader);
      expect(reader.fanoutState()?.running).toBe(true);
      await checkAnswers(store, next, 40, reader);
      expect(reader.fanoutState()!.stats.workerGroups).toBeGreaterThan(0);
    } finally {
      await reader.close();
      store.close();
    }
    expect(reader.fanoutState()?.running).toBe(false);
  });

  it('property 4: fetchWorker false starts no worker and answers the same', async () => {
    const { store, next } = filled({}, false);
    try {
      await checkAnswers(store, next, 15);
      expect(store.fanoutState()).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
