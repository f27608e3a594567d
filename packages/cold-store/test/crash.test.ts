// Crash safety of a freeze: a child process freezing a hot chunk (crash-freeze-child.ts) is killed with SIGKILL at
// random moments — while it opens the hot chunk, while it writes events.pack, index.hash or index.pack, while it
// verifies, around the manifest's rename, and while a re-run opens an already frozen chunk — at least 50 times.
// After each kill, openChunk must serve the chunk correctly: from the hot chunk while there is no manifest, or from a
// complete cold chunk (every payload byte-exact, every term's bitmap exact, checked against the generator). Between
// rounds the parent sometimes withdraws the manifest (leaving the cold files), so the next child freezes over the
// files and temp files a killed one left; other rounds start on a frozen chunk (the idempotent path).
//
// The child is bundled once with esbuild (strata-source condition, native addons external) and run by plain node;
// one child per lane is kept warm (started, waiting on stdin) while another runs, as in hot-store's crash test.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChunkReader } from '@strata/events';
import { HotStore, openHotReader } from '@strata/hot-store';
import { seededRandom, tempDir } from '@strata/test-kit';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { chunkFileNames, LocalStorage, openChunk } from '../src/index.js';
import { termsOfPayloads } from './chunk-support.js';

const CHILD_SOURCE = fileURLToPath(new URL('./crash-freeze-child.ts', import.meta.url));
const bundleDir = mkdtempSync(join(tmpdir(), 'strata-cold-crash-child-'));
const CHILD = join(bundleDir, 'crash-freeze-child.mjs');
/** Native addons stay external, imported by absolute path (the bundle lives outside the workspace). */
const NATIVE = /^(better-sqlite3|roaring|zstd-napi(\/.*)?|@riaskov\/mmap-io|@node-rs\/[a-z0-9-]+)$/;

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

const KILLS = 50;
const ROUNDS_PER_LANE = 26;
const LEDGERS = 200;
const MAX_EVENTS = 24;
const SEED = 23;

interface Expected {
  readonly payloads: Uint8Array[];
  readonly terms: { key: Uint8Array; ordinals: number[] }[];
}

function expectedChunk(first: number): Expected {
  const payloads = Array.from({ length: LEDGERS }, (_, i) => syntheticLedger(SEED, first + i, MAX_EVENTS)).flat();
  return { payloads, terms: [...termsOfPayloads(payloads).values()] };
}

interface Warm {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<void>;
}

function spawnWarm(args: string[]): Warm {
  const proc = fork(CHILD, args, { execArgv: [], stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
  const lines: string[] = [];
  let partial = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return { proc, lines, exited };
}

interface LaneStats {
  kills: number;
  /** Kills after the child started building and before its manifest step. */
  midBuild: number;
  /** Kills during or after the manifest step, before "D". */
  aroundManifest: number;
  /** Kills aimed at a manifest step the child held open (it reached the step: the round did not start frozen). */
  held: number;
  servedHot: number;
  servedCold: number;
  /** Rounds that started on a frozen chunk. */
  startedFrozen: number;
}

/** Checks `reader` serves exactly the expected chunk. */
async function expectServes(reader: ChunkReader, want: Expected) {
  expect(reader.eventCount()).toBe(want.payloads.length);
  for (let start = 0; start < want.payloads.length; start += 4096) {
    const end = Math.min(want.payloads.length, start + 4096);
    const got = await reader.fetchRange({ start, end });
    const differs = got.findIndex((e, i) => Buffer.compare(e.payload, want.payloads[start + i]!) !== 0);
    expect(differs, 'an event differs').toBe(-1);
  }
  const bitmaps = await reader.lookupTerms(
    want.terms.map((t) => t.key),
    { start: 0, end: want.payloads.length },
  );
  const wrong = want.terms.findIndex((t, i) => {
    const b = bitmaps[i];
    return b === undefined || b.size !== t.ordinals.length || t.ordinals.some((o) => !b.has(o));
  });
  expect(wrong, 'a term bitmap differs').toBe(-1);
}

async function runLane(dir: string, lane: number, random: () => number): Promise<LaneStats> {
  const stats: LaneStats = {
    kills: 0,
    midBuild: 0,
    aroundManifest: 0,
    held: 0,
    servedHot: 0,
    servedCold: 0,
    startedFrozen: 0,
  };
  const chunkId = 30 + lane;
  const first = chunkId * 10_000 + 2 + 500;
  const hotPath = join(dir, `hot-${lane}.db`);
  const store = HotStore.open(hotPath, { chunkId, create: true, synchronous: 'normal' });
  for (let i = 0; i < LEDGERS; i++) store.ingestLedger(first + i, syntheticLedger(SEED, first + i, MAX_EVENTS));
  store.close();
  const want = expectedChunk(first);
  const dataDir = join(dir, `data-${lane}`);
  const indexDir = join(dir, `index-${lane}`);
  const storage = new LocalStorage(dataDir);
  const indexStorage = new LocalStorage(indexDir);
  const manifest = chunkFileNames(chunkId).manifest;
  const args = [hotPath, String(chunkId), dataDir, indexDir, dir];
  let warm = spawnWarm(args);
  for (let round = 0; round < ROUNDS_PER_LANE; round++) {
    if (await storage.exists(manifest)) stats.startedFrozen++;
    const child = warm;
    warm = spawnWarm(args);
    const kill = () => child.proc.kill('SIGKILL');
    // A tenth of the kills while the child loads the hot chunk; the rest after a random step started (or right
    // after "R"), a random few milliseconds later. "D": the freeze returned, and the kill lands while the child
    // closes (a frozen chunk must then be served).
    const steps = ['R', 'S events', 'S index-hash', 'S index-pack', 'S verify', 'S manifest', 'D true', 'D true'];
    const at = random() < 0.1 ? undefined : steps[Math.floor(random() * steps.length)]!;
    // Every other kill aimed at the manifest step holds that step open (before the manifest is written), so some
    // kills land inside it whatever the machine's timing; the rest land wherever the timing puts them (before,
    // during or after the rename).
    const hold = at === 'S manifest' && random() < 0.5;
    // Drawn every round, whatever tier serves below, so the rounds' draws (and so the held rounds) do not depend on
    // the machine's timing.
    const withdraw = random() < 0.6;
    child.proc.stdin!.write(hold ? 'go hold\n' : 'go\n');
    if (at === undefined) {
      setTimeout(kill, Math.floor(random() * 5));
    } else {
      const delay = Math.floor(random() * (at === 'R' ? 40 : at === 'S manifest' ? 20 : 8));
      const ready = setInterval(() => {
        if (child.lines.includes(at) || child.lines.some((l) => l.startsWith('D'))) {
          // (A round that starts on a frozen chunk prints no steps: it is killed once it has opened it.)
          clearInterval(ready);
          setTimeout(kill, delay);
        }
      }, 1);
      void child.exited.then(() => clearInterval(ready));
    }
    await child.exited;
    stats.kills++;
    const done = child.lines.some((l) => l.startsWith('D'));
    const stepsSeen = child.lines.filter((l) => l.startsWith('S '));
    if (hold && stepsSeen.includes('S manifest')) stats.held++;
    if (!done && stepsSeen.length > 0) {
      if (stepsSeen.includes('S manifest')) stats.aroundManifest++;
      else stats.midBuild++;
    }
    // Reopen as a node would: cold when the manifest says so, else hot.
    const opened = await openChunk({ chunkId, storage, indexStorage, hot: () => openHotReader(hotPath, { chunkId }) });
    try {
      await expectServes(opened.reader, want);
    } finally {
      await opened.reader.close();
    }
    if (opened.tier === 'cold') {
      stats.servedCold++;
      // Withdraw the manifest now and then: the next child freezes over complete-but-unswitched files.
      if (withdraw) await storage.remove(manifest);
    } else {
      stats.servedHot++;
    }
  }
  warm.proc.kill('SIGKILL');
  await warm.exited;
  return stats;
}

describe('crash safety of freezing', () => {
  it(`SIGKILL at ${KILLS}+ random moments: the chunk is always served whole, from hot or from a complete cold chunk`, async () => {
    const dir = tempDir('cold-crash');
    const lanes = await Promise.all([0, 1].map((lane) => runLane(dir, lane, seededRandom(SEED + lane))));
    const total = (pick: (s: LaneStats) => number) => lanes.reduce((n, s) => n + pick(s), 0);
    expect(total((s) => s.kills)).toBeGreaterThanOrEqual(KILLS);
    // Not vacuous: kills fell inside builds and around the switch, and both tiers served after kills.
    expect(
      total((s) => s.midBuild),
      JSON.stringify(lanes),
    ).toBeGreaterThan(5);
    // A held manifest step is always where its kill lands; the seeds hold at least one.
    expect(total((s) => s.held)).toBeGreaterThan(0);
    expect(total((s) => s.aroundManifest)).toBeGreaterThanOrEqual(total((s) => s.held));
    expect(total((s) => s.servedHot)).toBeGreaterThan(5);
    expect(total((s) => s.servedCold)).toBeGreaterThan(5);
    expect(total((s) => s.startedFrozen)).toBeGreaterThan(0);
  }, 120_000);
});
