// The BucketList end to end against the oracle: random valid batches over thousands of ledgers (creates, updates,
// deletes, recreates, TTL entries, hot-archive evictions and restores across the protocol-23 boundary); after every
// ledger every key the pool knows is looked up and compared with a plain Map replaying the same batches — through
// restarts at random ledgers (HAS reload, assumeState, restartMerges). Worker-thread merges must give the same list
// hash as inline merges. Opening: a state must exist unless `create` is set, and opening deletes no bucket file
// before the caller has accepted the state (issue 15).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex, seededRandom, withTempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { BucketManager, type BucketManagerOptions } from '../src/bucket-manager.js';
import { BucketError } from '../src/errors.js';
import { referencedBucketHashes } from '../src/history-archive-state.js';
import { BatchStream, Oracle, poolKey } from './support.js';

const POOL = 120;
const keys = Array.from({ length: POOL }, (_, n) => poolKey(n));
const seed = Number(process.env.STRATA_FC_SEED ?? 20261130);

/** Keys whose lookup disagrees with the oracle (live list and hot archive). */
function mismatches(manager: BucketManager, oracle: Oracle): string[] {
  const out: string[] = [];
  for (const [n, key] of keys.entries()) {
    const got = manager.load(key);
    const want = oracle.load(key);
    if ((got === undefined) !== (want === undefined) || (got !== undefined && hex(got) !== hex(want!)))
      out.push(`live ${n}`);
    const gotHot = manager.loadHotArchive(key);
    const wantHot = oracle.loadHotArchive(key);
    if ((gotHot === undefined) !== (wantHot === undefined) || (gotHot !== undefined && hex(gotHot) !== hex(wantHot!))) {
      out.push(`hot ${n}`);
    }
  }
  return out;
}

const protocolAt = (ledger: number): number => (ledger < 1200 ? 22 : 23);

async function run(
  dir: string,
  ledgers: number,
  options: BucketManagerOptions,
  restartEvery: number | undefined,
  check: (manager: BucketManager, oracle: Oracle, ledger: number) => void,
): Promise<string> {
  const stream = new BatchStream(POOL, seed);
  const oracle = new Oracle();
  const random = seededRandom(seed + 1);
  let manager = await BucketManager.open(dir, { ...options, create: true });
  let nextRestart = restartEvery === undefined ? Number.POSITIVE_INFINITY : Math.floor(random() * restartEvery) + 1;
  try {
    for (let ledger = 1; ledger <= ledgers; ledger++) {
      const protocol = protocolAt(ledger);
      const { live, hot } = stream.next(ledger, protocol);
      await manager.addLedger(ledger, protocol, live, hot);
      oracle.apply(live, hot);
      check(manager, oracle, ledger);
      if (ledger === nextRestart) {
        const hash = manager.bucketListHash();
        await manager.close();
        // Half the restarts load the state without merges (the node's startup order), check lookups, then restart.
        const deferred = random() < 0.5;
        manager = await BucketManager.open(dir, { ...options, restartMerges: !deferred });
        expect(manager.ledger).toBe(ledger);
        expect(manager.bucketListHash()).toBe(hash);
        check(manager, oracle, ledger);
        if (deferred) manager.restartMerges();
        nextRestart = ledger + Math.floor(random() * restartEvery!) + 1;
      }
    }
    return manager.bucketListHash();
  } finally {
    await manager.close();
  }
}

describe('BucketManager against the oracle', () => {
  it('every lookup equals the oracle after every ledger, through random restarts (2,600 ledgers, inline merges)', async () => {
    await withTempDir(async (dir) => {
      let checked = 0;
      await run(dir, 2600, { merger: 'inline', fsync: false }, 300, (manager, oracle) => {
        expect(mismatches(manager, oracle)).toEqual([]);
        checked++;
      });
      expect(checked).toBeGreaterThan(2600);
    });
  }, 300_000);

  it('worker-thread merges reach the same list hashes as inline merges, with restarts', async () => {
    const hashes: string[][] = [[], []];
    await withTempDir(async (dir) => {
      await run(dir, 1400, { merger: 'inline', fsync: false }, undefined, (manager, _oracle, ledger) => {
        if (ledger % 50 === 0) hashes[0]!.push(manager.bucketListHash());
      });
    });
    await withTempDir(async (dir) => {
      await run(dir, 1400, { merger: 'workers', workers: 2, fsync: false }, 250, (manager, oracle, ledger) => {
        if (ledger % 50 === 0) {
          hashes[1]!.push(manager.bucketListHash());
          expect(mismatches(manager, oracle)).toEqual([]);
        }
      });
    });
    expect(hashes[1]).toEqual(hashes[0]);
  }, 300_000);

  it('negative control: an oracle that forgets deletions is caught', async () => {
    await withTempDir(async (dir) => {
      const stream = new BatchStream(POOL, seed);
      const broken = new Oracle();
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false, create: true });
      try {
        for (let ledger = 1; ledger <= 200; ledger++) {
          const { live } = stream.next(ledger, 22);
          await manager.addLedger(ledger, 22, live);
          broken.apply({ ...live, dead: [] });
        }
        expect(mismatches(manager, broken).length).toBeGreaterThan(0);
      } finally {
        await manager.close();
      }
    });
  });
});

describe('BucketManager persistence and errors', () => {
  async function build(dir: string, ledgers: number): Promise<void> {
    const stream = new BatchStream(POOL, seed);
    const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false, create: true });
    for (let ledger = 1; ledger <= ledgers; ledger++) {
      const { live, hot } = stream.next(ledger, 23);
      await manager.addLedger(ledger, 23, live, hot);
    }
    await manager.close();
  }

  it('the buckets directory holds exactly the buckets the HAS names (plus their indexes)', async () => {
    await withTempDir(async (dir) => {
      await build(dir, 300);
      const has = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8'));
      expect(has.version).toBe(2);
      expect(has.currentLedger).toBe(300);
      const named = referencedBucketHashes(has);
      const files = readdirSync(join(dir, 'buckets')).filter((name) => name.endsWith('.xdr'));
      expect(new Set(files.map((name) => name.slice(7, 71)))).toEqual(named);
    });
  });

  it("list hashes follow stellar-core: SHA-256 over the levels' SHA-256(curr ‖ snap), live ‖ hot from 23", async () => {
    await withTempDir(async (dir) => {
      await build(dir, 150);
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false });
      try {
        const has = manager.historyArchiveState();
        const sha = (...parts: Uint8Array[]): Buffer => {
          const hash = createHash('sha256');
          for (const part of parts) hash.update(part);
          return hash.digest();
        };
        const listHash = (levels: { curr: string; snap: string }[]): Buffer =>
          sha(...levels.map((level) => sha(Buffer.from(level.curr, 'hex'), Buffer.from(level.snap, 'hex'))));
        const live = listHash(has.currentBuckets);
        const hot = listHash(has.hotArchiveBuckets!);
        expect(manager.listHash('live')).toBe(live.toString('hex'));
        expect(manager.listHash('hot-archive')).toBe(hot.toString('hex'));
        expect(manager.bucketListHash()).toBe(sha(live, hot).toString('hex'));
        // Level order matters: the same hashes in reverse give another list hash (negative control).
        expect(listHash([...has.currentBuckets].reverse()).toString('hex')).not.toBe(live.toString('hex'));
      } finally {
        await manager.close();
      }
    });
  });

  it('refuses to start from a HAS whose bucket does not verify, or is missing', async () => {
    await withTempDir(async (dir) => {
      await build(dir, 100);
      const has = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8'));
      const pathOf = (hash: string): string => join(dir, 'buckets', `bucket-${hash}.xdr`);
      const victim = pathOf(has.currentBuckets[1].curr);
      const original = readFileSync(victim);
      // A well-formed bucket under the wrong name: only the hash can tell.
      writeFileSync(victim, readFileSync(pathOf(has.currentBuckets[1].snap)));
      await expect(BucketManager.open(dir, { merger: 'inline' })).rejects.toMatchObject({
        code: 'HASH_MISMATCH',
        file: victim,
      });
      // An unknown BucketEntryType in the first record (after its 4-byte mark) breaks the XDR before the hash is known.
      const flipped = Buffer.from(original);
      flipped.writeUInt32BE(0x7fff_ffff, 4);
      writeFileSync(victim, flipped);
      await expect(BucketManager.open(dir, { merger: 'inline' })).rejects.toMatchObject({
        code: 'BAD_ENTRY',
        file: victim,
      });
      rmSync(victim);
      await expect(BucketManager.open(dir, { merger: 'inline' })).rejects.toMatchObject({
        code: 'MISSING_BUCKET',
        file: victim,
      });
    });
  });

  it('rejects a ledger that is not the next one, and a bad batch, without changing the state', async () => {
    await withTempDir(async (dir) => {
      await build(dir, 10);
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false });
      try {
        const hash = manager.bucketListHash();
        await expect(manager.addLedger(12, 23, { init: [], live: [], dead: [] })).rejects.toMatchObject({
          code: 'PROTOCOL',
        });
        await expect(
          manager.addLedger(11, 23, { init: [new Uint8Array(8)], live: [], dead: [] }),
        ).rejects.toBeInstanceOf(BucketError);
        expect(manager.bucketListHash()).toBe(hash);
        await manager.addLedger(11, 23, { init: [], live: [], dead: [] });
        expect(manager.ledger).toBe(11);
      } finally {
        await manager.close();
      }
    });
  });

  it('after assumeState without merges, lookups work and the next ledger waits for restartMerges', async () => {
    await withTempDir(async (dir) => {
      await build(dir, 70);
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false, restartMerges: false });
      try {
        await expect(manager.addLedger(71, 23, { init: [], live: [], dead: [] })).rejects.toMatchObject({
          code: 'PROTOCOL',
        });
        manager.restartMerges();
        await manager.addLedger(71, 23, { init: [], live: [], dead: [] });
      } finally {
        await manager.close();
      }
    });
  });
});

describe('index callbacks', () => {
  it('worker merges run when index problems go to onEvent and onIndexProblem (functions stay on this thread)', async () => {
    await withTempDir(async (dir) => {
      const problems: string[] = [];
      const events: string[] = [];
      const manager = await BucketManager.open(dir, {
        merger: 'workers',
        workers: 1,
        fsync: false,
        create: true,
        index: { onIndexProblem: (problem) => problems.push(problem.code) },
        onEvent: (event) => events.push(event.type),
      });
      try {
        const stream = new BatchStream(POOL, seed);
        for (let ledger = 1; ledger <= 40; ledger++) {
          const { live, hot } = stream.next(ledger, 23);
          await manager.addLedger(ledger, 23, live, hot);
        }
        expect(events).toContain('merge-done');
        expect(problems).toEqual([]);
      } finally {
        await manager.close();
      }
    });
  });
});

describe('opening a state (issue 15)', () => {
  const bucketFiles = (dir: string): string[] => readdirSync(join(dir, 'buckets')).sort();

  async function build(dir: string, ledgers: number): Promise<string> {
    const stream = new BatchStream(POOL, seed);
    const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false, create: true });
    try {
      for (let ledger = 1; ledger <= ledgers; ledger++) {
        const { live, hot } = stream.next(ledger, 23);
        await manager.addLedger(ledger, 23, live, hot);
      }
      return manager.bucketListHash();
    } finally {
      await manager.close();
    }
  }

  it('a missing path or a directory without has.json is NO_STATE without create, and nothing is created', async () => {
    await withTempDir(async (dir) => {
      const mistyped = join(dir, 'stat');
      await expect(BucketManager.open(mistyped, { merger: 'inline' })).rejects.toMatchObject({
        name: 'BucketError',
        code: 'NO_STATE',
        file: join(mistyped, 'has.json'),
      });
      expect(existsSync(mistyped)).toBe(false);
      await expect(BucketManager.open(dir, { merger: 'inline' })).rejects.toMatchObject({ code: 'NO_STATE' });
      expect(readdirSync(dir)).toEqual([]);
    });
  });

  it('create starts an empty state that the next open resumes without create', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'new', 'state');
      const created = await BucketManager.open(path, { merger: 'inline', fsync: false, create: true });
      const emptyHash = created.bucketListHash();
      expect(created.ledger).toBe(0);
      await created.close();
      expect(existsSync(join(path, 'has.json'))).toBe(true);
      const reopened = await BucketManager.open(path, { merger: 'inline', fsync: false });
      try {
        expect(reopened.ledger).toBe(0);
        expect(reopened.bucketListHash()).toBe(emptyHash);
        await reopened.addLedger(1, 23, { init: [], live: [], dead: [] });
      } finally {
        await reopened.close();
      }
      // create on an existing state resumes it.
      const resumed = await BucketManager.open(path, { merger: 'inline', fsync: false, create: true });
      expect(resumed.ledger).toBe(1);
      await resumed.close();
    });
  });

  it('a has.json edited to name only zero hashes opens as an empty state and deletes no bucket file', async () => {
    await withTempDir(async (dir) => {
      const hash = await build(dir, 120);
      const hasPath = join(dir, 'has.json');
      const original = readFileSync(hasPath, 'utf8');
      const zeroed = original.replace(/"[0-9a-f]{64}"/g, `"${'0'.repeat(64)}"`);
      expect(zeroed).not.toBe(original);
      writeFileSync(hasPath, zeroed);
      const before = bucketFiles(dir);
      expect(before.filter((name) => name.endsWith('.xdr')).length).toBeGreaterThan(3);

      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false });
      // The caller sees what it opened: the ledger and a bucketListHash that is not its header's.
      expect(manager.ledger).toBe(120);
      expect(manager.bucketListHash()).not.toBe(hash);
      const view = manager.snapshot();
      view.release(); // a snapshot released before the state is accepted deletes nothing either
      await manager.close();
      expect(bucketFiles(dir)).toEqual(before);

      // `expect` refuses it outright, still deleting nothing.
      await expect(
        BucketManager.open(dir, { merger: 'inline', fsync: false, expect: { ledger: 120, bucketListHash: hash } }),
      ).rejects.toMatchObject({ code: 'STATE_MISMATCH' });
      expect(bucketFiles(dir)).toEqual(before);

      // Put back, the state opens whole.
      writeFileSync(hasPath, original);
      const restored = await BucketManager.open(dir, {
        merger: 'inline',
        fsync: false,
        expect: { ledger: 120, bucketListHash: hash },
      });
      expect(restored.bucketListHash()).toBe(hash);
      await restored.close();
    });
  });

  it('files the state does not name are deleted once it is accepted: at the first ledger added', async () => {
    await withTempDir(async (dir) => {
      await build(dir, 60);
      const hasPath = join(dir, 'has.json');
      writeFileSync(hasPath, readFileSync(hasPath, 'utf8').replace(/"[0-9a-f]{64}"/g, `"${'0'.repeat(64)}"`));
      writeFileSync(join(dir, 'buckets', 'tmp-1-0-0.xdr'), 'interrupted write');
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false });
      try {
        expect(bucketFiles(dir).some((name) => name.startsWith('tmp-'))).toBe(false); // temporaries go at open
        expect(bucketFiles(dir).length).toBeGreaterThan(0);
        await manager.addLedger(61, 23, { init: [], live: [], dead: [] });
        const named = referencedBucketHashes(manager.historyArchiveState());
        expect(new Set(bucketFiles(dir).map((name) => name.slice(7, 71)))).toEqual(named);
      } finally {
        await manager.close();
      }
    });
  });
});
