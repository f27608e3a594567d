// What survives a power cut, and what the store says survives (synchronous 'normal', the default). A power cut is
// simulated at its worst: the WAL is lost entirely, only the database file remains (a copy of it, taken while no
// checkpoint is in flight). Properties:
// 1. `durableLedger` never runs ahead of the database file: a copy of the file alone reopens with every ledger up
//    to `durableLedger`, byte-exact, and an index equal to one rebuilt from its events table; after `sync()` that is
//    every committed ledger (`durableLedger` = `latestLedger`).
// 2. The periodic checkpoints (in the store's worker thread, and inline) advance `durableLedger` by themselves, with
//    the same guarantee; reopening makes everything durable.
// 3. With synchronous 'full' every returned ledger is durable (`durableLedger` = `latestLedger` after each call).
// Negative control: a store whose sync() and checkpoints report success without checkpointing is caught by 1 and 2.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type HotStore, type HotStoreSeams, openHotStoreWith } from '../src/hot-store.js';
import { HotStoreError, HotStore as PublicHotStore } from '../src/index.js';
import { firstIndexDifference, indexFromEventsTable, syntheticLedger } from './support.js';

const CHUNK = 11;
const FIRST = CHUNK * 10_000 + 2;
const SEED = 41;

const ledger = (l: number) => syntheticLedger(SEED, l, 30, 1);

/** The latest ledger of a copy of the database file alone (no WAL, no shm), checked; undefined if none/unreadable. */
function afterPowerCut(path: string): number | undefined {
  const copy = join(tempDir('power-cut'), 'chunk.db');
  copyFileSync(path, copy);
  let store: PublicHotStore;
  try {
    store = PublicHotStore.open(copy, { chunkId: CHUNK });
  } catch (error) {
    if (error instanceof HotStoreError) return undefined;
    throw error;
  }
  try {
    const latest = store.latestLedger;
    if (latest === undefined) return undefined;
    const offsets = store.ledgerOffsets();
    expect(offsets.startLedger).toBe(FIRST);
    for (let l = FIRST; l <= latest; l++) expect(offsets.countOf(l)).toBe(ledger(l).length);
    expect(firstIndexDifference(store.dumpIndex(), indexFromEventsTable(copy))).toBeUndefined();
    return latest;
  } finally {
    store.close();
  }
}

/** Ingests ledgers FIRST.. one per call; after each, checks durableLedger against a simulated power cut. */
function run(seams: HotStoreSeams, options: { synchronous?: 'full' | 'normal'; background?: boolean }, ledgers = 12) {
  const path = join(tempDir('durability'), 'chunk.db');
  const store: HotStore = openHotStoreWith(
    path,
    {
      chunkId: CHUNK,
      create: true,
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.background === undefined ? {} : { backgroundCheckpoints: options.background }),
    },
    seams,
  );
  const seen: { latest: number; durable: number | undefined; survived: number | undefined }[] = [];
  try {
    for (let l = FIRST; l < FIRST + ledgers; l++) {
      store.ingestLedger(l, ledger(l));
      store.settleCheckpoints();
      const durable = store.durableLedger;
      const survived = afterPowerCut(path);
      seen.push({ latest: l, durable, survived });
    }
    const synced = store.sync();
    seen.push({ latest: store.latestLedger!, durable: synced, survived: afterPowerCut(path) });
  } finally {
    store.close();
  }
  return seen;
}

/** Steps where the store claimed more than the database file holds. */
const overclaims = (seen: ReturnType<typeof run>) =>
  seen.filter((s) => s.durable !== undefined && (s.survived === undefined || s.survived < s.durable));

describe('durableLedger against a simulated power cut', () => {
  it('property 1: without checkpoints, durableLedger waits for sync(); after it the file alone holds everything', () => {
    const seen = run({ checkpointBytes: Number.MAX_SAFE_INTEGER }, {});
    expect(overclaims(seen)).toEqual([]);
    expect(seen.slice(0, -1).every((s) => s.durable === undefined)).toBe(true);
    const last = seen.at(-1)!;
    expect(last.durable).toBe(last.latest);
    expect(last.survived).toBe(last.latest);
  });

  for (const background of [true, false]) {
    it(`property 2: periodic checkpoints (${background ? 'worker thread' : 'inline'}) advance durableLedger soundly`, () => {
      const seen = run({ checkpointBytes: 1 }, { background });
      expect(overclaims(seen)).toEqual([]);
      // Not vacuous: the checkpoints made ledgers durable before the final sync().
      const advanced = seen.slice(0, -1).filter((s) => s.durable !== undefined);
      expect(advanced.length).toBeGreaterThan(seen.length / 2);
      if (!background) expect(advanced.every((s) => s.durable === s.latest)).toBe(true);
    });
  }

  it('property 2: a reopened store starts with every stored ledger durable', () => {
    const path = join(tempDir('durability'), 'chunk.db');
    const store = PublicHotStore.open(path, { chunkId: CHUNK, create: true });
    for (let l = FIRST; l < FIRST + 3; l++) store.ingestLedger(l, ledger(l));
    expect(store.durableLedger).toBeUndefined();
    const reopened = PublicHotStore.open(path, { chunkId: CHUNK }); // the first is left open (a killed process)
    try {
      expect(reopened.durableLedger).toBe(FIRST + 2);
      expect(afterPowerCut(path)).toBe(FIRST + 2);
    } finally {
      reopened.close();
      store.close();
    }
  });

  it("property 3: synchronous 'full': every returned ledger is durable", () => {
    const seen = run({ checkpointBytes: Number.MAX_SAFE_INTEGER }, { synchronous: 'full' }, 4);
    expect(seen.every((s) => s.durable === s.latest)).toBe(true);
  });

  it('negative control: a store whose sync() and checkpoints do not checkpoint is caught', () => {
    for (const checkpointBytes of [1, Number.MAX_SAFE_INTEGER]) {
      const seen = run({ checkpointBytes, skipCheckpoints: true }, { background: false }, 4);
      expect(overclaims(seen).length).toBeGreaterThan(0);
    }
  });
});
