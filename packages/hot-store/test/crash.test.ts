// Crash safety: a child process ingesting synthetic ledgers (one transaction per call, synchronous 'normal', the
// default, batches now and then, a WAL checkpoint in its worker thread every 16 KiB) is killed with SIGKILL at random
// moments — while opening and rebuilding, mid-ingest, mid-seal, mid-checkpoint — at least 100 times. The child
// announces each call on stdout synchronously before and after it ("A n" / "C n"), so
// every reopen must show exactly the committed ledgers: the last "C", or the last "A" when the kill fell between
// commit and report; never a part of a batch. Each reopen also checks every ledger's count and every new event's
// bytes against the generator, and the rebuilt index against one derived from the events table from scratch.
// Children are started ahead (one warm per lane, waiting on stdin) so process start-up overlaps the previous round.
//
// The child is children/crash-ingest.ts bundled once (strata-source condition, native addons left external) by
// esbuild, and run by plain node: a child under the tsx loader costs ~0.45 s of CPU to start, a
// bundled one ~0.1 s, and 100+ kills on 2 shared cores must stay well under a minute.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkFirstLedger } from '@strata/events';
import { seededRandom, tempDir } from '@strata/test-kit';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HotStore, MAX_FETCH_EVENTS } from '../src/index.js';
import { firstIndexDifference, indexFromEventsTable, syntheticLedger } from './support.js';

const CHILD_SOURCE = fileURLToPath(new URL('./children/crash-ingest.ts', import.meta.url));
const bundleDir = mkdtempSync(join(tmpdir(), 'strata-crash-child-'));
const CHILD = join(bundleDir, 'crash-ingest.mjs');

/** better-sqlite3's entry, for the child's checkpoint worker (it cannot resolve it from the bundle's directory). */
const SQLITE_ENTRY = createRequire(import.meta.url).resolve('better-sqlite3');

/** Native addons stay external, imported by absolute path (the bundle lives outside the workspace). */
const NATIVE = /^(better-sqlite3|roaring|@node-rs\/xxhash)$/;

beforeAll(async () => {
  await build({
    entryPoints: [CHILD_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['strata-source'],
    outfile: CHILD,
    logLevel: 'error',
    plugins: [
      {
        name: 'native-addons',
        setup(plugin) {
          plugin.onResolve({ filter: NATIVE }, (args) => ({
            path: createRequire(join(args.resolveDir, 'x.js')).resolve(args.path),
            external: true,
          }));
        },
      },
    ],
  });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
const KILLS = 100;
const ROUNDS_PER_DATABASE = 14;
/** The database that starts just short of a full slab gets fewer rounds: each reopen re-derives all its events. */
const ROUNDS_PREFILLED = 6;
const DATABASES_PER_LANE = 4;
const MAX_EVENTS = 20;
const SEED = 19;

interface Warm {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<void>;
  readonly path: string;
}

function spawnWarm(path: string, chunkId: number): Warm {
  const proc = fork(
    CHILD,
    [path, String(chunkId), String(SEED), String(chunkFirstLedger(chunkId) + 9_999), String(MAX_EVENTS), SQLITE_ENTRY],
    {
      execArgv: [],
      stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    },
  );
  const lines: string[] = [];
  let partial = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return { proc, lines, exited, path };
}

/** Events of the generator's ledger, cached (rounds re-check them). */
const ledgerCache = new Map<number, Uint8Array[]>();
function expectedLedger(ledger: number): Uint8Array[] {
  let payloads = ledgerCache.get(ledger);
  if (payloads === undefined) {
    payloads = syntheticLedger(SEED, ledger, MAX_EVENTS);
    ledgerCache.set(ledger, payloads);
  }
  return payloads;
}

/** What one lane observed. */
interface LaneStats {
  kills: number;
  killedMidCall: number;
  sealedSeen: number;
}

/**
 * One lane: `databases` databases in turn, each ingested by ROUNDS_PER_DATABASE children, each killed at a random
 * moment and verified on reopen. One child is kept warm (started, waiting on stdin) while another runs.
 */
async function runLane(dir: string, lane: number, databases: number, random: () => number): Promise<LaneStats> {
  const stats: LaneStats = { kills: 0, killedMidCall: 0, sealedSeen: 0 };
  for (let database = 0; database < databases; database++) {
    const chunkId = 20 + lane * 100 + database;
    const path = join(dir, `chunk-${chunkId}.db`);
    const first = chunkFirstLedger(chunkId);
    if (lane === 1 && database === 0) {
      // Start this database just short of a full slab, so the children's first calls seal it (killed there too).
      const prefill = HotStore.open(path, { chunkId, create: true, synchronous: 'normal' });
      let ledger = first;
      while (prefill.eventCount < 65_536 - 300) prefill.ingestLedger(ledger, expectedLedger(ledger++));
      prefill.close();
    }
    let verifiedLatest: number | undefined;
    if (database > 0 || lane !== 1) verifiedLatest = undefined;
    else {
      const opened = HotStore.open(path, { chunkId });
      verifiedLatest = opened.latestLedger;
      opened.close();
    }
    let warm = spawnWarm(path, chunkId);
    const rounds = lane === 1 && database === 0 ? ROUNDS_PREFILLED : ROUNDS_PER_DATABASE;
    for (let round = 0; round < rounds; round++) {
      const child = warm;
      warm = spawnWarm(path, chunkId);
      child.proc.stdin!.write('go\n');
      const kill = () => child.proc.kill('SIGKILL');
      if (random() < 0.15)
        setTimeout(kill, Math.floor(random() * 4)); // during open and rebuild
      else {
        // Children ingest several ledgers a millisecond (synchronous 'normal'): 50 ms keeps each round's checks short.
        const delay = Math.floor(random() * 50);
        const ready = setInterval(() => {
          if (child.lines.some((l) => l.startsWith('R'))) {
            clearInterval(ready);
            setTimeout(kill, delay);
          }
        }, 1);
        void child.exited.then(() => clearInterval(ready));
      }
      await child.exited;
      stats.kills++;
      let lastCommitted = verifiedLatest;
      let lastAttempt: number | undefined;
      for (const line of child.lines) {
        const [tag, value] = line.split(' ');
        if (tag === 'A') lastAttempt = Number(value);
        if (tag === 'C') {
          lastCommitted = Number(value);
          lastAttempt = undefined;
        }
      }
      if (lastAttempt !== undefined) stats.killedMidCall++;
      verifiedLatest = await verifyReopen(path, chunkId, verifiedLatest, lastCommitted, lastAttempt);
      if (verifiedLatest !== undefined && verifiedLatest - first > 300) stats.sealedSeen += lane === 1 ? 1 : 0;
    }
    warm.proc.kill('SIGKILL');
    await warm.exited;
  }
  return stats;
}

/** Reopens after a kill and checks ledgers, bytes and index; returns the latest ledger. */
async function verifyReopen(
  path: string,
  chunkId: number,
  verifiedLatest: number | undefined,
  lastCommitted: number | undefined,
  lastAttempt: number | undefined,
): Promise<number | undefined> {
  const first = chunkFirstLedger(chunkId);
  const store = HotStore.open(path, { chunkId, create: true });
  try {
    const latest = store.latestLedger;
    if (latest !== lastCommitted)
      expect(latest, 'a ledger whose call never started, or a lost commit').toBe(lastAttempt);
    const offsets = store.ledgerOffsets();
    if (latest !== undefined) {
      expect(offsets.lastLedger).toBe(latest);
      const counts = offsets.counts();
      expect(counts.findIndex((count, i) => count !== expectedLedger(first + i).length)).toBe(-1);
      // Every event of the ledgers committed since the last check, byte for byte.
      const from =
        verifiedLatest === undefined ? 0 : offsets.firstOrdinal(verifiedLatest) + offsets.countOf(verifiedLatest);
      const want: Uint8Array[] = [];
      for (let l = verifiedLatest === undefined ? first : verifiedLatest + 1; l <= latest; l++)
        want.push(...expectedLedger(l));
      expect(offsets.eventCount - from).toBe(want.length);
      const reader = store.reader();
      for (let start = from; start < offsets.eventCount; start += MAX_FETCH_EVENTS) {
        const got = await reader.fetchRange({ start, end: Math.min(offsets.eventCount, start + MAX_FETCH_EVENTS) });
        const differs = got.findIndex((event, i) => Buffer.compare(event.payload, want[start - from + i]!) !== 0);
        expect(differs, 'an event differs from the one ingested').toBe(-1);
      }
    }
    expect(firstIndexDifference(store.dumpIndex(), indexFromEventsTable(path))).toBeUndefined();
    return latest;
  } finally {
    store.close();
  }
}

describe('crash safety', () => {
  it(`SIGKILL at ${KILLS}+ random moments: every reopen shows exactly the committed ledgers and a sound index`, async () => {
    const dir = tempDir('crash');
    // Two lanes on separate databases run side by side (one per core); each kills its children in turn.
    const lanes = await Promise.all(
      [0, 1].map((lane) => runLane(dir, lane, DATABASES_PER_LANE, seededRandom(SEED + lane))),
    );
    const kills = lanes.reduce((n, l) => n + l.kills, 0);
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    // Not vacuous: many kills fell inside a call, and rounds ran on a database past a full slab.
    expect(lanes.reduce((n, l) => n + l.killedMidCall, 0)).toBeGreaterThan(KILLS / 5);
    expect(lanes[1]!.sealedSeen).toBeGreaterThan(0);
  }, 120_000);
});
