// Snapshots and the loser-tree scan (issue 7): stellar-core's BucketIndexTests cases for scanForLiveEntriesOfType as
// named tests, a randomized comparison against the oracle and the old approach, snapshot isolation while later
// ledgers close, bulk and point loads through snapshots, and raw type scans.
import { createHash } from 'node:crypto';
import { compareLedgerKeys, encodeLedgerEntry, LEDGER_ENTRY_TYPE, ledgerKeyOfEntry } from '@strata/ledger-key';
import { hex, seededRandom, tempDir, withTempDir } from '@strata/test-kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { type BucketFile, BucketInput, emptyBucket, writeBucket } from '../src/bucket-file.js';
import { openBucketIndex } from '../src/bucket-index/bucket-index.js';
import { BucketManager } from '../src/bucket-manager.js';
import { DEAD_ENTRY } from '../src/kind.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';
import { BucketListSnapshot, type SnapshotBucket } from '../src/snapshot.js';
import { BatchStream, Oracle, poolKey } from './support.js';

/** The running test's directory for makeBucket's buckets (set by the unit tests' beforeEach). */
let dir: string;

const OFFER = LEDGER_ENTRY_TYPE.OFFER;
const id = (label: string, n: number): Uint8Array =>
  new Uint8Array(createHash('sha256').update(`${label}${n}`).digest());

const offer = (n: number, version: number): Uint8Array =>
  encodeLedgerEntry({
    lastModifiedLedgerSeq: version,
    data: { type: 'offer', sellerId: id('seller', n % 3), offerId: BigInt(n), amount: BigInt(version) },
  });
const account = (n: number): Uint8Array =>
  encodeLedgerEntry({ lastModifiedLedgerSeq: 1, data: { type: 'account', accountId: id('pad-account', n) } });
const balance = (n: number): Uint8Array =>
  encodeLedgerEntry({ lastModifiedLedgerSeq: 1, data: { type: 'claimableBalance', balanceId: id('pad-balance', n) } });

let padCounter = 0;
/** stellar-core's makeBucket: a fresh bucket of the batch, padded with 2 ACCOUNTs and 2 CLAIMABLE_BALANCEs (types below and above OFFER). */
function makeBucket(init: Uint8Array[], live: Uint8Array[], dead: Uint8Array[], pad = true): BucketFile {
  const padding = pad
    ? [account(padCounter), account(padCounter + 1), balance(padCounter), balance(padCounter + 1)]
    : [];
  padCounter += 2;
  return writeBucket(dir, 'live', 23, freshLiveEntries(23, { init: [...init, ...padding], live, dead }), {
    fsync: false,
  });
}

/** stellar-core's makeViewFromBuckets: bucket i at level i/2, curr when i is even, snap when odd; other slots empty. */
function viewOf(buckets: BucketFile[]): BucketListSnapshot {
  const slots: SnapshotBucket[] = [];
  for (let slot = 0; slot < 22; slot++) {
    const file = buckets[slot] ?? emptyBucket('live');
    slots.push({ file, index: file.path === undefined ? undefined : openBucketIndex(file) });
  }
  const empty = Array.from({ length: 22 }, () => ({ file: emptyBucket('hot-archive'), index: undefined }));
  return new BucketListSnapshot(1, slots, empty, () => undefined);
}

function scan(view: BucketListSnapshot, type: number = OFFER): string[] {
  const out: string[] = [];
  const count = view.scanCurrentLiveEntries(type, (entry) => out.push(hex(entry)));
  expect(count).toBe(out.length);
  return out;
}

const sorted = (entries: Uint8Array[]): string[] =>
  [...entries].sort((a, b) => compareLedgerKeys(ledgerKeyOfEntry(a), ledgerKeyOfEntry(b))).map(hex);

describe('scanCurrentLiveEntries: stellar-core loser tree unit tests', () => {
  beforeEach(() => {
    dir = tempDir('scan');
  });

  for (let k = 0; k <= 10; k++) {
    it(`k disjoint buckets, k = ${k}`, () => {
      const offers = Array.from({ length: 4 * k }, (_, n) => offer(n, 1));
      const buckets = Array.from({ length: k }, (_, b) =>
        makeBucket(
          offers.filter((_, n) => n % k === b),
          [],
          [],
        ),
      );
      expect(scan(viewOf(buckets))).toEqual(sorted(offers));
    });
  }

  it('shadowing across buckets: I, I L, I L L, with/without a final D, with/without an "I D" prefix', () => {
    // 12 keys; each history (oldest first) is laid over 6 buckets so its newest step is in the newest bucket used.
    const histories: string[][] = [];
    for (const base of [['I'], ['I', 'L'], ['I', 'L', 'L']]) {
      for (const deleted of [false, true]) {
        for (const recreated of [false, true]) {
          histories.push([...(recreated ? ['I', 'D'] : []), ...base, ...(deleted ? ['D'] : [])]);
        }
      }
    }
    const perBucket = Array.from({ length: 6 }, () => ({
      init: [] as Uint8Array[],
      live: [] as Uint8Array[],
      dead: [] as Uint8Array[],
    }));
    const expected: Uint8Array[] = [];
    histories.forEach((history, n) => {
      history.forEach((step, s) => {
        const bucket = perBucket[history.length - 1 - s]!; // oldest step in the oldest bucket of the ones used
        const version = s + 1; // lastModifiedLedgerSeq grows along the history
        if (step === 'I') bucket.init.push(offer(n, version));
        else if (step === 'L') bucket.live.push(offer(n, version));
        else bucket.dead.push(ledgerKeyOfEntry(offer(n, 1)));
      });
      if (history[history.length - 1] !== 'D') expected.push(offer(n, history.length));
    });
    const buckets = perBucket.map((b) => makeBucket(b.init, b.live, b.dead));
    expect(scan(viewOf(buckets))).toEqual(sorted(expected));
  });

  for (const pad of [true, false]) {
    it(`the same bucket at two slots (${pad ? 'padded' : 'not padded'}): each key once`, () => {
      const offers = Array.from({ length: 6 }, (_, n) => offer(n, 1));
      const bucket = makeBucket(offers, [], [], pad);
      expect(scan(viewOf([bucket, bucket]))).toEqual(sorted(offers));
    });
  }

  it('the same bucket at non-adjacent slots with shadowing: [A, B, A], A = DEAD(k1), DEAD(k2), B = LIVE(k2) → nothing', () => {
    const [k1, k2] = [offer(1, 1), offer(2, 1)].sort((a, b) =>
      compareLedgerKeys(ledgerKeyOfEntry(a), ledgerKeyOfEntry(b)),
    );
    const a = makeBucket([], [], [ledgerKeyOfEntry(k1!), ledgerKeyOfEntry(k2!)], false);
    const b = makeBucket([], [k2!], [], false);
    expect(scan(viewOf([a, b, a]))).toEqual([]);
  });

  it('all entries dead: 9 OFFER keys as DEAD across 3 buckets → nothing', () => {
    const buckets = [0, 1, 2].map((b) =>
      makeBucket(
        [],
        [],
        [0, 1, 2].map((i) => ledgerKeyOfEntry(offer(3 * b + i, 1))),
      ),
    );
    expect(scan(viewOf(buckets))).toEqual([]);
  });

  it('no bucket has the type: padded buckets only → nothing, and the padding types scan on their own', () => {
    const buckets = [makeBucket([], [], []), makeBucket([], [], []), makeBucket([], [], [], false)];
    expect(scan(viewOf(buckets))).toEqual([]);
    expect(scan(viewOf(buckets), LEDGER_ENTRY_TYPE.ACCOUNT)).toHaveLength(4);
    expect(scan(viewOf(buckets), LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE)).toHaveLength(4);
  });

  it('negative control: a scan that ignores recency (oldest wins) is caught by the shadowing expectations', () => {
    const older = makeBucket([offer(1, 1)], [], [], false);
    const newer = makeBucket([], [offer(1, 2)], [], false);
    expect(scan(viewOf([newer, older]))).toEqual([hex(offer(1, 2))]);
    expect(scan(viewOf([older, newer]))).not.toEqual([hex(offer(1, 2))]);
  });
});

describe('snapshots of a real list', () => {
  const TYPES = Object.values(LEDGER_ENTRY_TYPE);

  async function build(
    dirPath: string,
    ledgers: number,
    seed: number,
  ): Promise<{ manager: BucketManager; oracle: Oracle; stream: BatchStream }> {
    const stream = new BatchStream(300, seed, 12);
    const oracle = new Oracle();
    const manager = await BucketManager.open(dirPath, { merger: 'inline', fsync: false, create: true });
    for (let ledger = 1; ledger <= ledgers; ledger++) {
      const { live, hot } = stream.next(ledger, 23);
      await manager.addLedger(ledger, 23, live, hot);
      oracle.apply(live, hot);
    }
    return { manager, oracle, stream };
  }

  /** The oracle's live entries of one type, ascending by key. */
  function expectedOfType(oracle: Oracle, type: number): string[] {
    const entries = [...oracle.live.values()].filter(
      (entry) => new DataView(entry.buffer, entry.byteOffset).getInt32(4) === type,
    );
    return sorted(entries);
  }

  it('randomized: every type scans to the oracle’s live map (each key once, newest, ascending) and matches the old approach', async () => {
    for (const seed of [1, 2, 3]) {
      await withTempDir(async (path) => {
        const { manager, oracle } = await build(path, 700 + seed * 97, seed);
        const view = manager.snapshot();
        try {
          for (const type of TYPES) {
            const got = scan(view, type);
            expect(got, `type ${type}`).toEqual(expectedOfType(oracle, type));
            const baseline: Uint8Array[] = [];
            view.scanCurrentLiveEntriesBaseline(type, (entry) => baseline.push(entry.slice()));
            expect(sorted(baseline), `baseline type ${type}`).toEqual(got);
          }
        } finally {
          view.release();
          await manager.close();
        }
      });
    }
  }, 120_000);

  it('snapshot isolation: a scan and loads at ledger L return L’s state while later ledgers close and merges finish', async () => {
    await withTempDir(async (path) => {
      const stream = new BatchStream(300, 9, 12);
      const oracle = new Oracle();
      const manager = await BucketManager.open(path, { merger: 'workers', workers: 2, fsync: false, create: true });
      try {
        let ledger = 1;
        for (; ledger <= 500; ledger++) {
          const { live, hot } = stream.next(ledger, 23);
          await manager.addLedger(ledger, 23, live, hot);
          oracle.apply(live, hot);
        }
        const view = manager.snapshot();
        const frozen = new Map(oracle.live);
        const expected = expectedOfType(oracle, LEDGER_ENTRY_TYPE.CONTRACT_DATA);
        const got: string[] = [];
        for await (const entry of view.liveEntries(LEDGER_ENTRY_TYPE.CONTRACT_DATA)) {
          got.push(hex(entry));
          // Between entries, close more ledgers (spilling levels and finishing merges underneath the scan).
          for (let i = 0; i < 4; i++, ledger++) {
            const { live, hot } = stream.next(ledger, 23);
            await manager.addLedger(ledger, 23, live, hot);
          }
        }
        expect(ledger).toBeGreaterThan(600);
        expect(got).toEqual(expected);
        const keys = Array.from({ length: 300 }, (_, n) => poolKey(n));
        const loaded = view.loadKeys(keys);
        keys.forEach((key, n) => {
          const want = frozen.get(hex(key));
          expect(view.load(key) === undefined ? undefined : hex(view.load(key)!), `key ${n}`).toBe(
            want === undefined ? undefined : hex(want),
          );
          expect(loaded[n] === undefined ? undefined : hex(loaded[n]!), `bulk key ${n}`).toBe(
            want === undefined ? undefined : hex(want),
          );
        });
        view.release();
        expect(() => view.load(keys[0]!)).toThrow(expect.objectContaining({ code: 'CLOSED' }));
      } finally {
        await manager.close();
      }
    });
  }, 120_000);

  it('bulk loads agree with point loads, with repeated and absent keys in any order', async () => {
    await withTempDir(async (path) => {
      const { manager } = await build(path, 400, 4);
      const view = manager.snapshot();
      try {
        const random = seededRandom(4);
        const keys = Array.from({ length: 500 }, () => poolKey(Math.floor(random() * 400)));
        const bulk = view.loadKeys(keys);
        keys.forEach((key, i) => {
          const point = view.load(key);
          expect(bulk[i] === undefined ? undefined : hex(bulk[i]!)).toBe(point === undefined ? undefined : hex(point));
        });
        expect(bulk.some((entry) => entry === undefined)).toBe(true);
        expect(bulk.some((entry) => entry !== undefined)).toBe(true);
        expect(() => view.loadKeys([new Uint8Array(3)])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      } finally {
        view.release();
        await manager.close();
      }
    });
  });

  it('scanBucketType hands over every record of the type in one bucket, in file order', async () => {
    await withTempDir(async (path) => {
      const { manager } = await build(path, 300, 5);
      const view = manager.snapshot();
      try {
        for (let slot = 0; slot < 22; slot++) {
          const bucket = view.live[slot]!;
          if (bucket.file.path === undefined) continue;
          for (const type of TYPES) {
            const got: string[] = [];
            view.scanBucketType(slot, type, (payload) => got.push(hex(payload)));
            const want: string[] = [];
            const input = new BucketInput(bucket.file as BucketFile);
            for (; input.current !== undefined; input.advance()) {
              const p = input.current;
              const entryType = new DataView(p.buffer, p.byteOffset).getInt32(p[3] === DEAD_ENTRY ? 4 : 8);
              if (entryType === type) want.push(hex(p));
            }
            input.close();
            expect(got, `slot ${slot} type ${type}`).toEqual(want);
          }
        }
      } finally {
        view.release();
        await manager.close();
      }
    });
  });

  it('a snapshot keeps its bucket files until released; then they are deleted', async () => {
    await withTempDir(async (path) => {
      const { manager, stream } = await build(path, 64, 6);
      try {
        const view = manager.snapshot();
        const files = view.live.map((b) => b.file.path).filter((p): p is string => p !== undefined);
        for (let ledger = 65; ledger <= 200; ledger++) {
          const { live, hot } = stream.next(ledger, 23);
          await manager.addLedger(ledger, 23, live, hot);
        }
        const { existsSync } = await import('node:fs');
        expect(files.every((file) => existsSync(file))).toBe(true);
        view.release();
        expect(files.some((file) => !existsSync(file))).toBe(true);
      } finally {
        await manager.close();
      }
    });
  });
});
