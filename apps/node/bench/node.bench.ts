// strata node benchmarks (issue 21), each against a baseline in the same run:
// - ingest.pubnet-like (ledgers/s) and ingest.pubnet-like.events (events/s), end to end: StrataNode.ingest of the
//   synthetic generator (`--source generator`: @strata/ledger-meta's generateNetwork on the node's test genesis, each
//   ledger's evictions rewritten to what stellar-core's scan finds, as the node does) from ledger 2 through 1 +
//   LEDGERS (default 22,000: across the chunk boundaries at ledgers 10,002 and 20,002, and on long enough for the
//   second chunk's background freeze to end), with the generator options of @strata/ledger-state's apply.pubnet-like
//   (~960 entry changes and ~760 events a ledger), fsync off (`--no-fsync`: every write still atomic), retention off.
//   The rate is ledgers ÷ the time until the last one committed; the note adds the median rate of 1,000-ledger
//   windows. Baselines over the same ledgers read from the same generator: the ledger state alone (LedgerState.apply,
//   as the node calls it) for the ledgers/s figure, the hot store alone (extract, encode, HotStore.ingestLedger, a
//   new chunk at each boundary, no freeze) for the events/s figure. Generation alone is timed over the first 2,000
//   ledgers and given in the note (every subject pays it).
// - freeze-while-ingesting (ledgers/s): from the same node run, the rate of the ledgers committed while a chunk froze
//   in the background (between the node's "freezing chunk" and "froze chunk" log lines), against the rate of the
//   other ledgers of the run past the first 1,000.
// - startup (seconds) and startup.peak-rss (MiB): a fresh process opens a data directory holding 1,000,000 live
//   CONTRACT_DATA entries with their TTLs and 1,000 CONTRACT_CODE in a BucketList of ~5 versions a key
//   (@strata/ledger-state's population bench data, through LedgerState.fromHistoryArchive) and a full hot chunk
//   (10,000 pubnet-like ledgers, ~9 M events: @strata/hot-store's bench data); the figure is the seconds from process
//   start to the node's resume phase (node-startup.ts), the median of STRATA_BENCH_ROUNDS processes. Baseline: the
//   same stores opened by the packages alone (LedgerState.open with merges restarted, HotStore.open), fresh process.
// Every subject reads the generator the node's way: on a worker thread, a few ledgers ahead (prefetchedGeneratorRecords).
// Sizes: STRATA_NODE_BENCH_LEDGERS (default 22,000; 400 quick: no boundary, no freeze figure). STRATA_NODE_BENCH_CACHE
// =<dir> keeps the startup data directory in <dir> and reuses it (building it takes minutes; ~3 GB): delete it when
// done.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type BenchSession, measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import { BucketOutput, freshLiveEntries } from '@strata/bucket-list';
import { logger } from '@strata/cli-kit';
import { chunkFirstLedger, chunkIdOfLedger, chunkLastLedger } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { extractLedger } from '@strata/ledger-meta';
import { genesisEntries, LedgerState } from '@strata/ledger-state';
import { chunkLedgers, templatePayloads } from '../../../packages/hot-store/bench/pubnet-like.js';
import { writePopulationState } from '../../../packages/ledger-state/bench/population-data.js';
import {
  dataDirLayout,
  hotChunkIds,
  hotChunkPath,
  NODE_FORMAT_VERSION,
  networkIdOf,
  writeNodeFile,
} from '../src/data-dir.js';
import { coldChunkIds } from '../src/event-chunks.js';
import {
  GENERATOR_PASSPHRASE,
  type GeneratorSource,
  generatorGenesis,
  generatorRecords,
  prefetchedGeneratorRecords,
  withScannedEvictions,
} from '../src/generator-source.js';
import { eventPayloads, POSITION_INTERVAL_LEDGERS, StrataNode } from '../src/node.js';
import type { StartupRun } from './node-startup.js';

const LEDGERS = Number(process.env.STRATA_NODE_BENCH_LEDGERS ?? (quickMode ? 400 : 22_000));
/** @strata/ledger-state's apply.pubnet-like generator options (its GENERATOR): ~960 changes, ~760 events a ledger. */
const SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 'apply',
  ledgers: LEDGERS,
  eventsPerLedger: 750,
  contracts: 50,
  accounts: 10_000,
};
const GENERATION_LEDGERS = Math.min(LEDGERS, 2_000);
const WINDOW = quickMode ? 100 : 1_000;
const DATA_KEYS = quickMode ? 20_000 : 1_000_000;
const CODES = quickMode ? 100 : 1_000;
const HOT_LEDGERS = quickMode ? 200 : 10_000;
const HOT_EVENTS_PER_LEDGER = 900;
const STARTUP_PASSPHRASE = 'Strata Soroban state population benchmark';
const log = (line: string) => console.log(`  ${line}`);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const root = join(tmpdir(), `strata-bench-node-${process.pid}`);
mkdirSync(root, { recursive: true });
const cacheDir = process.env.STRATA_NODE_BENCH_CACHE;

const seconds = (from: number) => (performance.now() - from) / 1000;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** A freeze seen in the node's log: its chunk and when it started and ended (performance.now()). */
interface FreezeSpan {
  chunkId: number;
  start: number;
  end: number;
}

/** A pino logger into memory that notes the node's background freezes as they start and end. */
function freezeWatcher(): { log: ReturnType<typeof logger>; spans: FreezeSpan[] } {
  const spans: FreezeSpan[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        const entry = JSON.parse(line) as { msg?: string; chunkId?: number; level?: number };
        if (entry.level !== undefined && entry.level >= 40) log(`node: ${line.slice(0, 300)}`);
        if (entry.chunkId === undefined || entry.msg === undefined) continue;
        if (entry.msg.startsWith('freezing chunk')) {
          spans.push({ chunkId: entry.chunkId, start: performance.now(), end: Number.POSITIVE_INFINITY });
        } else if (entry.msg.startsWith('froze chunk') || entry.msg.startsWith('cannot freeze')) {
          const span = spans.find((s) => s.chunkId === entry.chunkId);
          if (span !== undefined) span.end = performance.now();
        }
      }
      done();
    },
  });
  return { log: logger(stream), spans };
}

/** Commit times of the ledgers of one run, and the rate over a range of them. */
class Timeline {
  readonly at: Float64Array;
  constructor(
    readonly started: number,
    count: number,
  ) {
    this.at = new Float64Array(count);
  }
  /** Ledgers per second over ledgers (by index) from `a` to `b`, exclusive of a's own time. */
  rate(a: number, b: number): number {
    const from = a === 0 ? this.started : (this.at[a - 1] as number);
    return (b - a) / (((this.at[b - 1] as number) - from) / 1000);
  }
  windowRates(window: number): number[] {
    const rates: number[] = [];
    for (let a = 0; a + window <= this.at.length; a += window) rates.push(this.rate(a, a + window));
    return rates;
  }
}

interface NodeRun {
  timeline: Timeline;
  events: number;
  spans: FreezeSpan[];
  closeSeconds: number;
  hotChunks: number;
  coldChunks: number;
}

/** The node over a new data directory: ingest every generated ledger, then close (waiting for freezes in flight). */
async function runNode(dir: string): Promise<NodeRun> {
  const watcher = freezeWatcher();
  const node = await StrataNode.open(dir, {
    networkPassphrase: GENERATOR_PASSPHRASE,
    source: SOURCE,
    fsync: false,
    retentionLedgers: 0,
    log: watcher.log,
  });
  const timeline = new Timeline(performance.now(), LEDGERS);
  let index = 0;
  const summary = await node.ingest(SOURCE, {}, (ledger) => {
    timeline.at[index++] = performance.now();
    if (ledger % 2000 === 0) log(`node: ledger ${ledger} (${fmt(seconds(timeline.started), 0)} s)`);
  });
  if (index !== LEDGERS) throw new Error(`the node ingested ${index} ledgers, not ${LEDGERS}`);
  const closing = performance.now();
  await node.close();
  const layout = dataDirLayout(dir);
  return {
    timeline,
    events: summary.events,
    spans: watcher.spans,
    closeSeconds: seconds(closing),
    hotChunks: hotChunkIds(layout).length,
    coldChunks: coldChunkIds(layout).length,
  };
}

/** Baseline: the same ledgers into a ledger state alone, as the node applies them. */
async function runStateAlone(dir: string): Promise<{ timeline: Timeline; changes: number }> {
  const state = await LedgerState.create(dir, generatorGenesis(GENERATOR_PASSPHRASE), { verify: false, fsync: false });
  const timeline = new Timeline(performance.now(), LEDGERS);
  let index = 0;
  let changes = 0;
  try {
    for await (const record of prefetchedGeneratorRecords(SOURCE, GENERATOR_PASSPHRASE)) {
      const applied = await state.apply(withScannedEvictions(state, record.bytes), record);
      changes += applied.batch.init + applied.batch.live + applied.batch.dead;
      timeline.at[index++] = performance.now();
    }
  } finally {
    await state.close();
  }
  return { timeline, changes };
}

/** Baseline: the same ledgers' events into hot chunks alone (a new chunk at each boundary, synced as the node does). */
async function runHotAlone(dir: string): Promise<{ timeline: Timeline; events: number }> {
  mkdirSync(dir, { recursive: true });
  const timeline = new Timeline(performance.now(), LEDGERS);
  let index = 0;
  let events = 0;
  let hot: HotStore | undefined;
  try {
    for await (const record of prefetchedGeneratorRecords(SOURCE, GENERATOR_PASSPHRASE)) {
      const ledger = record.ledgerSeq;
      const chunkId = chunkIdOfLedger(ledger);
      if (hot?.chunkId !== chunkId) {
        hot?.sync();
        hot?.close();
        hot = HotStore.open(join(dir, `${chunkId}.db`), { chunkId, create: true });
      }
      const payloads = eventPayloads(ledger, extractLedger(record.bytes, record));
      hot.ingestLedger(ledger, payloads);
      events += payloads.length;
      if (index % POSITION_INTERVAL_LEDGERS === 0) hot.sync();
      timeline.at[index++] = performance.now();
    }
    hot?.sync();
  } finally {
    hot?.close();
  }
  return { timeline, events };
}

/** Generation alone: ledgers/s of the generator over the first GENERATION_LEDGERS ledgers. */
function generationRate(): number {
  const started = performance.now();
  let bytes = 0;
  for (const record of generatorRecords(SOURCE, GENERATOR_PASSPHRASE, { to: 1 + GENERATION_LEDGERS })) {
    bytes += record.bytes.length;
  }
  if (bytes === 0) throw new Error('the generator made nothing');
  return GENERATION_LEDGERS / seconds(started);
}

/** Ledgers/s of the ledgers committed while a freeze ran, and of the others past the first window. */
function freezeRates(run: NodeRun): { during: number; without: number; duringLedgers: number } | undefined {
  const inFreeze = (t: number) => run.spans.some((span) => t > span.start && t <= span.end);
  let duringLedgers = 0;
  let duringMs = 0;
  let withoutLedgers = 0;
  let withoutMs = 0;
  const at = run.timeline.at;
  for (let i = WINDOW; i < at.length; i++) {
    const ms = (at[i] as number) - (at[i - 1] as number);
    if (inFreeze(at[i] as number)) {
      duringLedgers++;
      duringMs += ms;
    } else {
      withoutLedgers++;
      withoutMs += ms;
    }
  }
  if (duringLedgers === 0 || withoutLedgers === 0) return undefined;
  return { during: duringLedgers / (duringMs / 1000), without: withoutLedgers / (withoutMs / 1000), duringLedgers };
}

async function measureIngest(bench: BenchSession): Promise<void> {
  const generation = generationRate();
  log(`generation alone: ${fmt(generation)} ledgers/s over ${GENERATION_LEDGERS} ledgers`);
  const nodeRuns: NodeRun[] = [];
  const stateRuns: Timeline[] = [];
  const hotRuns: { timeline: Timeline; events: number }[] = [];
  let changes = 0;
  // One round by default: a round is LEDGERS ledgers three times over (tens of minutes at full size).
  const rounds = Number(process.env.STRATA_NODE_BENCH_ROUNDS ?? 1);
  for (let round = 0; round < rounds; round++) {
    const dir = join(root, `round-${round}`);
    let started = performance.now();
    const node = await runNode(join(dir, 'node'));
    nodeRuns.push(node);
    log(
      `round ${round + 1} node: ${fmt(node.timeline.rate(0, LEDGERS))} ledgers/s, ${node.events} events, ` +
        `${node.coldChunks} chunk(s) frozen, ${node.hotChunks} hot; close waited ${fmt(node.closeSeconds)} s (${fmt(seconds(started), 0)} s)`,
    );
    rmSync(join(dir, 'node'), { recursive: true, force: true });
    started = performance.now();
    const state = await runStateAlone(join(dir, 'state'));
    stateRuns.push(state.timeline);
    changes = state.changes;
    log(
      `round ${round + 1} ledger state alone: ${fmt(state.timeline.rate(0, LEDGERS))} ledgers/s (${fmt(seconds(started), 0)} s)`,
    );
    rmSync(join(dir, 'state'), { recursive: true, force: true });
    started = performance.now();
    const hot = await runHotAlone(join(dir, 'hot'));
    hotRuns.push(hot);
    log(
      `round ${round + 1} hot store alone: ${fmt(hot.timeline.rate(0, LEDGERS))} ledgers/s (${fmt(seconds(started), 0)} s)`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (values: number[]) => summarize(values).median;
  const nodeRate = median(nodeRuns.map((r) => r.timeline.rate(0, LEDGERS)));
  const stateRate = median(stateRuns.map((t) => t.rate(0, LEDGERS)));
  const hotRate = median(hotRuns.map((r) => r.timeline.rate(0, LEDGERS)));
  const events = nodeRuns[0]!.events;
  const perLedger = (n: number) => n / LEDGERS;
  const windows = summarize(nodeRuns.flatMap((r) => r.timeline.windowRates(WINDOW)));
  const crossed = chunkIdOfLedger(1 + LEDGERS) - chunkIdOfLedger(2);
  const shape =
    `${LEDGERS} generated ledgers from ledger 2 (${JSON.stringify({ seed: SOURCE.seed, eventsPerLedger: SOURCE.eventsPerLedger, contracts: SOURCE.contracts, accounts: SOURCE.accounts })}), ` +
    `${fmt(perLedger(changes), 0)} entry changes and ${fmt(perLedger(events), 0)} events a ledger, ${crossed} chunk boundar${crossed === 1 ? 'y' : 'ies'} crossed; ` +
    `fsync off, retention off, merges and freezes in worker threads; ${rounds} round(s); generation alone ${fmt(generation)} ledgers/s (in every subject)`;
  bench.record(
    {
      id: 'ingest.pubnet-like',
      value: nodeRate,
      unit: 'ledgers/s',
      higherIsBetter: true,
      samples: rounds,
      baseline: {
        name: 'the same ledgers into @strata/ledger-state alone (LedgerState.apply)',
        value: stateRate,
        unit: 'ledgers/s',
      },
    },
    {
      target: { value: 40 },
      note: `end to end through StrataNode.ingest (ledger state → hot chunk → background freeze at each boundary), until the last ledger committed (close then waited ${fmt(nodeRuns[0]!.closeSeconds)} s for the freeze in flight); ${shape}; median of ${WINDOW}-ledger windows ${fmt(windows.median)} ledgers/s${quickMode ? '; quick run: no boundary, not a figure' : ''}`,
    },
  );
  bench.record(
    {
      id: 'ingest.pubnet-like.events',
      value: nodeRate * perLedger(events),
      unit: 'events/s',
      higherIsBetter: true,
      samples: rounds,
      baseline: {
        name: "the same ledgers' events into @strata/hot-store alone (extract, encode, ingestLedger)",
        value: hotRate * perLedger(events),
        unit: 'events/s',
      },
    },
    { note: `the node's ledgers/s × events a ledger; ${shape}` },
  );
  const freeze = freezeRates(nodeRuns[0]!);
  if (freeze === undefined) {
    log('freeze-while-ingesting: no ledger committed during a freeze (no boundary crossed)');
    return;
  }
  const spans = nodeRuns[0]!.spans.map((s) => `chunk ${s.chunkId} ${fmt((s.end - s.start) / 1000)} s`).join(', ');
  bench.record(
    {
      id: 'freeze-while-ingesting',
      value: freeze.during,
      unit: 'ledgers/s',
      higherIsBetter: true,
      baseline: {
        name: "the same run's ledgers committed with no freeze in flight",
        value: freeze.without,
        unit: 'ledgers/s',
      },
    },
    {
      note: `ingest rate of the ${freeze.duringLedgers} ledgers committed while a chunk froze in a worker thread (freezes: ${spans}), against the run's other ledgers past the first ${WINDOW}; ${shape}`,
    },
  );
}

interface StartupData {
  readonly dataDir: string;
  readonly liveData: number;
  readonly bucketEntries: number;
  readonly hotEvents: number;
}

/** The startup data directory (1 M live Soroban entries, a full hot chunk): from the cache, else built now. */
async function startupData(): Promise<StartupData> {
  const dir = join(cacheDir ?? root, `startup-${DATA_KEYS}-${HOT_LEDGERS}`);
  const marker = join(dir, 'built.json');
  if (existsSync(marker)) {
    log(`reusing the startup data directory cached in ${dir}`);
    return JSON.parse(readFileSync(marker, 'utf8')) as StartupData;
  }
  rmSync(dir, { recursive: true, force: true });
  const dataDir = join(dir, 'data');
  const layout = dataDirLayout(dataDir);
  const archive = join(dir, 'archive');
  let started = performance.now();
  const written = writePopulationState(archive, { dataKeys: DATA_KEYS, codes: CODES, seed: 11 });
  // The position: the last ledger of the chunk that holds the archive's ledger, so that chunk is full.
  const hasPath = join(archive, 'has.json');
  const has = JSON.parse(readFileSync(hasPath, 'utf8')) as {
    currentLedger: number;
    currentBuckets: { snap: string }[];
  };
  const chunkId = chunkIdOfLedger(has.currentLedger);
  const ledger = chunkLastLedger(chunkId);
  has.currentLedger = ledger;
  // The network's settings (the population data has none; the Soroban state needs the memory cost model): a test
  // genesis's entries as level 0's snap bucket.
  const settings = new BucketOutput(join(archive, 'buckets'), 'live', 23, { fsync: false });
  const genesis = genesisEntries({ networkPassphrase: STARTUP_PASSPHRASE, protocolVersion: 23 });
  for (const record of freshLiveEntries(23, { init: genesis, live: [], dead: [] })) settings.put(record);
  has.currentBuckets[0]!.snap = settings.finish().hash;
  const state = await LedgerState.fromHistoryArchive(
    layout.stateDir,
    {
      has: JSON.stringify(has),
      bucketDir: join(archive, 'buckets'),
      networkPassphrase: STARTUP_PASSPHRASE,
      protocolVersion: 23,
    },
    { merger: 'inline', restartMerges: false, fsync: false, verify: false },
  );
  await state.close();
  rmSync(archive, { recursive: true, force: true });
  log(
    `ledger state: ${written.liveData} live data entries, ${written.bucketEntries} bucket entries (${fmt(seconds(started), 0)} s)`,
  );
  started = performance.now();
  mkdirSync(layout.hotDir, { recursive: true });
  const hot = HotStore.open(hotChunkPath(layout, chunkId), { chunkId, create: true });
  const options = {
    chunkId,
    ledgers: HOT_LEDGERS,
    eventsPerLedger: HOT_EVENTS_PER_LEDGER,
    templateLedgers: quickMode ? 20 : 250,
    ledgersPerAccountEpoch: 25,
  };
  let hotEvents = 0;
  let last = 0;
  for (const { ledger: l, payloads } of chunkLedgers(options, templatePayloads(options))) {
    hot.ingestLedger(l, payloads);
    hotEvents += payloads.length;
    last = l;
  }
  hot.sync();
  hot.close();
  if (last !== ledger && !quickMode) throw new Error(`the hot chunk ends at ${last}, not ${ledger}`);
  log(`hot chunk ${chunkId}: ${HOT_LEDGERS} ledgers, ${hotEvents} events (${fmt(seconds(started), 0)} s)`);
  writeNodeFile(layout, {
    formatVersion: NODE_FORMAT_VERSION,
    networkPassphrase: STARTUP_PASSPHRASE,
    networkId: networkIdOf(STARTUP_PASSPHRASE),
    firstLedger: chunkFirstLedger(chunkId),
    // The archive has no header: any hash stands for the position's (the chain check starts at the next ledger).
    position: { ledger: last, hash: '00'.repeat(32) },
  });
  const data: StartupData = { dataDir, liveData: written.liveData, bucketEntries: written.bucketEntries, hotEvents };
  writeFileSync(marker, JSON.stringify(data));
  return data;
}

async function measureStartup(bench: BenchSession): Promise<void> {
  const data = await startupData();
  const module = here('./node-startup.ts');
  const mine: { run: StartupRun; rss: number }[] = [];
  const theirs: { run: StartupRun; rss: number }[] = [];
  for (let round = 0; round < bench.rounds; round++) {
    for (const [exportName, into] of [
      ['startNode', mine],
      ['startStores', theirs],
    ] as const) {
      // Each round opens a copy: restartMerges writes into the state, and a job exits without waiting for it.
      const copy = join(root, `startup-${round}-${exportName}`);
      cpSync(data.dataDir, copy, { recursive: true });
      const report = await measurePeakRss({
        module,
        exportName,
        args: [copy],
        execArgv: ['--max-old-space-size=8192'],
      });
      const run = report.result as StartupRun;
      into.push({ run, rss: report.peakRssBytes });
      log(
        `round ${round + 1} ${exportName}: ${fmt(run.seconds, 2)} s, peak RSS ${fmt(report.peakRssBytes / 2 ** 20, 0)} MiB ${JSON.stringify(run.phases)}`,
      );
      rmSync(copy, { recursive: true, force: true });
    }
  }
  const median = (runs: { run: StartupRun; rss: number }[], of: (r: { run: StartupRun; rss: number }) => number) =>
    summarize(runs.map(of)).median;
  const phases = ['open-state', 'populate', 'restart-merges', 'reopen-hot']
    .map(
      (phase) =>
        `${phase} ${fmt(
          median(mine, (r) => r.run.phases.find((p) => p.phase === phase)?.seconds ?? 0),
          2,
        )} s`,
    )
    .join(', ');
  const shape = `${data.liveData} live CONTRACT_DATA + ${CODES} CONTRACT_CODE (with TTLs) of ${data.bucketEntries} bucket entries (~5 versions a key), a full hot chunk of ${data.hotEvents} events (${HOT_LEDGERS} ledgers); fresh process each, ${bench.rounds} round(s)`;
  bench.record(
    {
      id: 'startup',
      value: median(mine, (r) => r.run.seconds),
      unit: 's',
      higherIsBetter: false,
      samples: mine.length,
      baseline: {
        name: 'the same stores opened by the packages alone (LedgerState.open + HotStore.open)',
        value: median(theirs, (r) => r.run.seconds),
        unit: 's',
      },
    },
    {
      note: `seconds from process start (Node + TypeScript loader boot ${fmt(
        median(mine, (r) => r.run.bootSeconds),
        2,
      )} s included) to the node's resume phase; phases (median): ${phases}; ${shape}${quickMode ? '; quick run: a small state, not a figure' : ''}`,
    },
  );
  bench.record(
    {
      id: 'startup.peak-rss',
      value: median(mine, (r) => r.rss) / 2 ** 20,
      unit: 'MiB',
      higherIsBetter: false,
      baseline: {
        name: 'the same stores opened by the packages alone',
        value: median(theirs, (r) => r.rss) / 2 ** 20,
        unit: 'MiB',
      },
    },
    { note: `peak RSS (VmHWM) of the startup process, the TypeScript loader included; ${shape}` },
  );
}

try {
  await runBench(async (bench) => {
    const only = new Set((process.env.STRATA_NODE_BENCH_ONLY ?? 'ingest,startup').split(','));
    if (only.has('ingest')) await measureIngest(bench);
    if (only.has('startup')) await measureStartup(bench);
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
