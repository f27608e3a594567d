// strata JSON-RPC benchmarks (issue 22), through real HTTP (node:http keep-alive client, open loop: each request sent
// on the clock and timed from its scheduled send, rpc-load.ts) against a node process of its own (rpc-node.ts, run by
// measurePeakRss), each against a baseline in the same run:
// - rpc.getEvents.hot / .cold (p50 with p99, ms; and .p99): 50 requests/s of getEvents, limit 1000, the 700 real
//   requests of ../shared/fixtures/pubnet-getevents re-shaped (rpc-requests.ts; K > 5 as a batch of ⌈K/5⌉ calls) in
//   turn, over @strata/match's bench corpus (8,388,608 generated events of chunk 5999 whose dominant contracts and
//   topics are the requests', ../../../packages/match/bench/synthetic-chunk.ts) ingested into a hot store (served by a
//   read-only hot reader) and frozen with @strata/cold-store (../../../packages/cold-store/bench/freeze-job.ts).
//   Baseline: the same requests at the same schedule against a stellar-rpc v1-style SQLite events table
//   (../../../packages/hot-store/bench/v1-baseline.ts) behind the same HTTP shape (rpc-v1-server.ts), in a process
//   of its own. The v1 table takes up to seconds a request at full size: it cannot keep up with 50 requests/s, so in
//   a full run its load is cut to STRATA_RPC_BENCH_BASELINE_SECONDS of schedule (default 0.2 s: the first 10
//   requests) in the first round only, and its latencies include the queue it builds (what a client at 50
//   requests/s sees); the note gives its service time (drain time ÷ requests) too. STRATA_RPC_BENCH_BASELINE_SECONDS=0
//   skips it (at full size its table, 2.9 GB, is read from disk at a few MB/s when not in the page cache).
// - rpc.getLedgerEntries.1 / .200 (p50 with p99, ms): 50 requests/s of 1 or 200 random keys of live CONTRACT_DATA
//   entries of a BucketList of 100,000 data keys (@strata/ledger-state's population bench data, ~5 versions a key)
//   answered from the in-memory Soroban state; baseline: the same keys from BucketList snapshot point loads.
// - rpc.node.peak-rss (MiB): the node process's peak RSS (VmHWM) over all of the above; baseline: the v1 server's.
// Sizes: STRATA_RPC_BENCH_EVENTS (default 8,388,608; 262,144 under STRATA_BENCH_QUICK), STRATA_RPC_BENCH_SECONDS (load
// per round and tier, default 20; 4 quick). STRATA_RPC_BENCH_CACHE=<dir> keeps the ingested and frozen chunk, the v1
// table and the ledger state in <dir> and reuses them on the next run of the same sizes (building them takes most of
// a full run; ~6 GB at full size): delete it when done.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchSession, measurePeakRss, type PeakRssReport, quickMode, runBench } from '@strata/bench';
import { BucketManager } from '@strata/bucket-list';
import { HotStore } from '@strata/hot-store';
import { V1EventsTable } from '../../../packages/hot-store/bench/v1-baseline.js';
import { writePopulationState } from '../../../packages/ledger-state/bench/population-data.js';
import { loadPubnetVocabulary } from '../../../packages/match/bench/pubnet-requests.js';
import {
  CHUNK_ID,
  corpusVocabulary,
  FULL_CHUNK_EVENTS,
  SyntheticChunk,
} from '../../../packages/match/bench/synthetic-chunk.js';
import { type LoadRequest, type LoadSample, latencyOf, openLoop, post } from './rpc-load.js';
import type { NodeControl } from './rpc-node.js';
import { mixBody, pubnetMissingReason, pubnetMixRequests } from './rpc-requests.js';

const EVENTS = Number(process.env.STRATA_RPC_BENCH_EVENTS ?? (quickMode ? FULL_CHUNK_EVENTS / 32 : FULL_CHUNK_EVENTS));
const SECONDS = Number(process.env.STRATA_RPC_BENCH_SECONDS ?? (quickMode ? 4 : 20));
const BASELINE_SECONDS = Math.min(
  SECONDS,
  Number(process.env.STRATA_RPC_BENCH_BASELINE_SECONDS ?? (quickMode ? SECONDS : 0.2)),
);
const RATE = 50;
const DATA_KEYS = 100_000;
const V1 = 'stellar-rpc v1-style SQLite events table (indexes (contract_id, id), (topic1, id)), same HTTP shape';
const log = (line: string) => console.log(`  ${line}`);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const freezeModule = here('../../../packages/cold-store/bench/freeze-job.ts');

const root = join(tmpdir(), `strata-bench-rpc-${process.pid}`);
mkdirSync(root, { recursive: true });
const cacheDir = process.env.STRATA_RPC_BENCH_CACHE;

interface Built {
  readonly dir: string;
  readonly hotPath: string;
  readonly coldDir: string;
  readonly v1Dir: string;
  readonly startsFile: string;
  readonly stateDir: string;
}

/** The chunk (hot, frozen, v1 table) and the ledger state: from the cache when it holds them, else built now. */
async function build(): Promise<Built> {
  const dir = join(cacheDir ?? root, `rpc-${EVENTS}`);
  const b: Built = {
    dir,
    hotPath: join(dir, 'hot', 'chunk.sqlite'),
    coldDir: join(dir, 'cold'),
    v1Dir: join(dir, 'v1'),
    startsFile: join(dir, 'ledger-starts.json'),
    stateDir: join(dir, 'state'),
  };
  const marker = join(dir, 'built.json');
  if (existsSync(marker)) {
    log(`reusing the chunk and state cached in ${dir}`);
    return b;
  }
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['hot', 'cold', 'v1', 'state']) mkdirSync(join(dir, sub), { recursive: true });
  let started = performance.now();
  const corpus = new SyntheticChunk(EVENTS, corpusVocabulary(loadPubnetVocabulary()));
  const store = HotStore.open(b.hotPath, { chunkId: CHUNK_ID, create: true });
  const v1 = new V1EventsTable(b.v1Dir, 'normal');
  const offsets = corpus.ledgerOffsets();
  const starts: number[] = [];
  for (let ledger = offsets.startLedger; ledger <= offsets.lastLedger; ledger++) {
    const window = offsets.windowForLedgers(ledger, ledger);
    starts.push(window.start);
    const payloads = (await corpus.fetchRange(window)).map((event) => event.payload);
    store.ingestLedger(ledger, payloads);
    v1.ingest(ledger, payloads);
    if ((ledger - offsets.startLedger + 1) % 1000 === 0) {
      log(
        `${ledger - offsets.startLedger + 1} ledgers ingested (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
  starts.push(EVENTS);
  store.sync();
  store.close();
  v1.sync();
  v1.close();
  writeFileSync(b.startsFile, JSON.stringify({ firstLedger: offsets.startLedger, starts }));
  log(`${EVENTS} events ingested into both stores in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  started = performance.now();
  await measurePeakRss({
    module: freezeModule,
    exportName: 'freezeJob',
    args: [b.hotPath, CHUNK_ID, join(b.coldDir, 'packs'), join(b.coldDir, 'index'), root],
    execArgv: ['--max-old-space-size=8192'],
  });
  log(`frozen in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  started = performance.now();
  const written = writePopulationState(b.stateDir, { dataKeys: DATA_KEYS, codes: 100, seed: 7 });
  await (await BucketManager.open(b.stateDir, { merger: 'inline', restartMerges: false, fsync: false })).close();
  log(
    `ledger state: ${written.liveData} live data entries, ${written.bucketEntries} bucket entries (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  writeFileSync(marker, JSON.stringify({ events: EVENTS, dataKeys: DATA_KEYS }));
  return b;
}

/** Starts a server child; resolves with its control file's contents and its peak-RSS report to come. */
async function startChild<T>(module: string, exportName: string, args: object, controlFile: string) {
  rmSync(controlFile, { force: true });
  rmSync(`${controlFile}.stop`, { force: true });
  const done: Promise<PeakRssReport> = measurePeakRss({
    module,
    exportName,
    args: [{ ...args, controlFile }],
    execArgv: ['--max-old-space-size=8192'],
  });
  let failed: unknown;
  done.catch((error: unknown) => {
    failed = error;
  });
  while (!existsSync(controlFile)) {
    if (failed !== undefined) throw failed;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 50)); // the file is written whole before it is read
  const control = JSON.parse(readFileSync(controlFile, 'utf8')) as T;
  return {
    control,
    stop: async () => {
      writeFileSync(`${controlFile}.stop`, '');
      return done;
    },
  };
}

const ids = (text: string): string[] => {
  const parsed = JSON.parse(text) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap(
    (r: { result?: { events: { id: string }[] } }) => r.result?.events.map((e) => e.id) ?? ['error'],
  );
};

/** Failed requests of a load (kept in the figures, counted in the notes): their count and the first's reason. */
const failed: Record<string, { count: number; first: string }> = {};
function failures(samples: readonly LoadSample[], what: string): void {
  const bad = samples.filter((s) => s.error !== undefined);
  if (bad.length === 0) return;
  failed[what] ??= { count: 0, first: bad[0]!.error! };
  failed[what].count += bad.length;
  log(`${what}: ${bad.length} of ${samples.length} requests failed, first: ${bad[0]!.error}`);
}
const failedNote = (what: string) =>
  failed[what] === undefined
    ? ''
    : `; ${failed[what].count} requests failed (first: ${failed[what].first.slice(0, 120)})`;

const url = (port: number) => `http://127.0.0.1:${port}/`;

async function run(bench: BenchSession): Promise<void> {
  const missing = pubnetMissingReason();
  if (missing !== undefined) {
    log(`rpc benches skipped: ${missing}`);
    return;
  }
  const b = await build();
  const requests = pubnetMixRequests();
  const bodies = requests.map((r) => mixBody(r));
  const node = await startChild<NodeControl>(
    here('./rpc-node.ts'),
    'serveNode',
    {
      hotPath: b.hotPath,
      chunkId: CHUNK_ID,
      coldDir: b.coldDir,
      stateDir: b.stateDir,
      sampleKeys: 2000,
    },
    join(root, 'node.json'),
  );
  const withV1 = BASELINE_SECONDS > 0;
  const v1 = !withV1
    ? undefined
    : await startChild<{ port: number }>(
        here('./rpc-v1-server.ts'),
        'serveV1',
        {
          v1Dir: b.v1Dir,
          startsFile: b.startsFile,
        },
        join(root, 'v1.json'),
      );
  let nodeReport: PeakRssReport | undefined;
  let v1Report: PeakRssReport | undefined;
  try {
    const { ports } = node.control;
    log(`node up: ${node.control.liveEntries} live CONTRACT_DATA entries, ${node.control.keys.length} keys sampled`);
    // Every tier answers the same events: the first 20 requests (K = 1) and a batch one, hot and cold; the baseline
    // (seconds a request at full size) on 3 of them and the batch.
    for (const i of [...Array.from({ length: 20 }, (_, j) => j), 650]) {
      const withBaseline = v1 !== undefined && (quickMode || i < 3 || i === 650);
      const ports_ = withBaseline ? [ports.hot, ports.cold, v1.control.port] : [ports.hot, ports.cold];
      const answers = await Promise.all(ports_.map((port) => post(url(port), bodies[i]!)));
      const expected = JSON.stringify(ids(answers[0]!.text));
      if (answers.some((answer) => JSON.stringify(ids(answer.text)) !== expected)) {
        throw new Error(`request ${requests[i]!.id}: the tiers' pages differ`);
      }
    }
    const mix = (i: number): LoadRequest => ({ body: bodies[i % bodies.length]! });
    const serviceMs = { hot: 0, cold: 0 };
    const samples = {
      hot: [] as LoadSample[],
      cold: [] as LoadSample[],
      v1hot: [] as LoadSample[],
      v1cold: [] as LoadSample[],
    };
    for (let round = 0; round < bench.rounds; round++) {
      for (const tier of ['hot', 'cold'] as const) {
        const offset = round * 997;
        const mine = await openLoop({
          url: url(ports[tier]),
          rate: RATE,
          durationMs: SECONDS * 1000,
          next: (i) => mix(i + offset),
        });
        failures(mine.samples, `rpc.getEvents.${tier}`);
        samples[tier].push(...mine.samples);
        log(`round ${round + 1} ${tier}: ${JSON.stringify(latencyOf(mine.samples))}`);
        // the baseline's load: once (it takes up to seconds a request)
        if (v1 === undefined || (round > 0 && !quickMode)) continue;
        const theirs = await openLoop({
          url: url(v1.control.port),
          rate: RATE,
          durationMs: BASELINE_SECONDS * 1000,
          next: (i) => mix(i + offset),
        });
        failures(theirs.samples, `rpc.getEvents.${tier} baseline`);
        samples[tier === 'hot' ? 'v1hot' : 'v1cold'].push(...theirs.samples);
        serviceMs[tier] = theirs.wallMs / theirs.samples.length;
        log(
          `round ${round + 1} ${tier} baseline: ${JSON.stringify(latencyOf(theirs.samples))} (${(theirs.wallMs / 1000).toFixed(1)} s to drain)`,
        );
      }
    }
    const events = samples.hot.reduce((sum, s) => sum + s.events, 0) / samples.hot.length;
    for (const [tier, target] of [
      ['hot', [2.23, 4.18]],
      ['cold', [3.0, 5.9]],
    ] as const) {
      const mine = latencyOf(samples[tier]);
      const theirs = latencyOf(samples[tier === 'hot' ? 'v1hot' : 'v1cold']);
      const note = `ms from scheduled send to response end, ${RATE} requests/s open loop for ${SECONDS} s × ${bench.rounds} rounds (${withV1 ? `baseline: ${BASELINE_SECONDS} s of schedule${quickMode ? ' a round' : ', first round only'}, its queue included` : 'baseline skipped: STRATA_RPC_BENCH_BASELINE_SECONDS=0'}), keep-alive node:http client; the ${requests.length} real pubnet requests re-shaped (K > 5 as a batch of ⌈K/5⌉ calls), limit 1000, ${events.toFixed(0)} events a request, over ${EVENTS} generated events (${tier} tier)${withV1 ? `; baseline ${(serviceMs[tier] / 1000).toFixed(2)} s a request served (its drain time ÷ requests)` : ''}${failedNote(`rpc.getEvents.${tier}`)}${quickMode ? '; quick run: a small chunk, not a figure' : ''}`;
      const baseline = withV1 ? { name: V1, value: theirs.p50, unit: 'ms', p99: theirs.p99 } : undefined;
      const baselineP99 = withV1 ? { name: V1, value: theirs.p99, unit: 'ms' } : undefined;
      bench.record(
        {
          id: `rpc.getEvents.${tier}`,
          value: mine.p50,
          unit: 'ms',
          higherIsBetter: false,
          p99: mine.p99,
          samples: mine.n,
          ...(baseline === undefined ? {} : { baseline }),
        },
        { target: { value: target[0] }, note },
      );
      bench.record(
        {
          id: `rpc.getEvents.${tier}.p99`,
          value: mine.p99,
          unit: 'ms',
          higherIsBetter: false,
          samples: mine.n,
          ...(baselineP99 === undefined ? {} : { baseline: baselineP99 }),
        },
        { target: { value: target[1] }, note },
      );
    }
    // getLedgerEntries: 1 and 200 random sampled keys a request.
    let seed = 99;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const keys = node.control.keys;
    for (const count of [1, 200]) {
      const keyBodies = Array.from({ length: 500 }, (_, i) => {
        const picked = new Set<string>();
        while (picked.size < count) picked.add(keys[Math.floor(random() * keys.length)]!);
        return JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getLedgerEntries', params: { keys: [...picked] } });
      });
      const check = JSON.parse((await post(url(ports.entries), keyBodies[0]!)).text) as {
        result: { entries: unknown[] };
      };
      if (check.result.entries.length !== count)
        throw new Error(`getLedgerEntries found ${check.result.entries.length} of ${count}`);
      const mine: LoadSample[] = [];
      const theirs: LoadSample[] = [];
      const duration = Math.max(2, Math.round(SECONDS / 2)) * 1000;
      for (let round = 0; round < bench.rounds; round++) {
        const next = (i: number) => ({ body: keyBodies[(i + round * 131) % keyBodies.length]! });
        const a = await openLoop({ url: url(ports.entries), rate: RATE, durationMs: duration, next });
        const z = await openLoop({ url: url(ports.entriesBaseline), rate: RATE, durationMs: duration, next });
        failures(a.samples, 'getLedgerEntries');
        failures(z.samples, 'getLedgerEntries baseline');
        mine.push(...a.samples);
        theirs.push(...z.samples);
      }
      const m = latencyOf(mine);
      const t = latencyOf(theirs);
      bench.record(
        {
          id: `rpc.getLedgerEntries.${count}`,
          value: m.p50,
          unit: 'ms',
          higherIsBetter: false,
          p99: m.p99,
          samples: m.n,
          baseline: {
            name: 'the same server, entries from BucketList snapshot point loads',
            value: t.p50,
            unit: 'ms',
            p99: t.p99,
          },
        },
        {
          note: `ms from scheduled send to response end, ${RATE} requests/s open loop, ${duration / 1000} s × ${bench.rounds}; ${count} random keys of live CONTRACT_DATA entries a request, from the in-memory Soroban state; ${node.control.liveEntries} live data entries (${DATA_KEYS} keys, ~5 versions each, in the BucketList)${failedNote('getLedgerEntries')}`,
        },
      );
    }
  } finally {
    nodeReport = await node.stop();
    v1Report = await v1?.stop();
  }
  bench.record(
    {
      id: 'rpc.node.peak-rss',
      value: nodeReport.peakRssBytes / 2 ** 20,
      unit: 'MiB',
      higherIsBetter: false,
      ...(v1Report === undefined
        ? {}
        : { baseline: { name: `${V1}: its server process`, value: v1Report.peakRssBytes / 2 ** 20, unit: 'MiB' } }),
    },
    {
      note: `peak RSS (VmHWM) of the node process over the whole run: hot reader (index rebuilt at open), frozen chunk, Soroban state of ${node.control.liveEntries} entries and the BucketList, four servers under the loads above; the TypeScript loader (tsx, some 40–50 MiB) included, as in the baseline's; ${EVENTS} events`,
    },
  );
}

try {
  await runBench(run);
} finally {
  rmSync(root, { recursive: true, force: true });
}
