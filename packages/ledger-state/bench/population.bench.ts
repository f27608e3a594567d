// `population.*`: building the in-memory Soroban state at startup (stellar-core initializeStateFromSnapshot, with
// PR #5252's loser-tree scan) from a BucketList of 1 M live CONTRACT_DATA entries, their 1 M TTLs and 1 k contract
// codes (with theirs), ~5 versions a key across the levels. Subject: SorobanState.populate over the loser-tree scans;
// baseline: the same state fed by the old newest-first raw scans + seen-key set (scanCurrentLiveEntriesBaseline).
// Each run is a fresh process (alternating, `STRATA_BENCH_ROUNDS` rounds) running the job bundled under plain node, as
// a node runs compiled code (no TypeScript loader in the figure); time is the population, peak RSS the whole process,
// and the population's own peak is that minus the resident set when it started (after the open: Node, the modules,
// the bucket indexes, which both approaches hold alike). A scan-only run (loser tree into nothing) tells the state's
// own share of the time.
// STRATA_SOROBAN_POPULATION_KEYS=<n> sets the number of data keys (quick mode: 50 000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureIdleRss, measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import { BucketManager } from '@strata/bucket-list';
import type { PopulationMode, PopulationRun } from './population.js';
import { writePopulationState } from './population-data.js';

const DATA_KEYS = Number(process.env.STRATA_SOROBAN_POPULATION_KEYS ?? (quickMode ? 50_000 : 1_000_000));
const CODES = 1_000;
const ROUNDS = quickMode ? 1 : Math.max(1, Number(process.env.STRATA_BENCH_ROUNDS ?? 3));
const module = fileURLToPath(new URL('./population.ts', import.meta.url));

if (!Number.isInteger(DATA_KEYS) || DATA_KEYS < 1 || DATA_KEYS > 50_000_000) {
  throw new Error(`STRATA_SOROBAN_POPULATION_KEYS must be an integer from 1 to 50000000, got ${DATA_KEYS}`);
}

/** ContractCostParams XDR with stellar-core's VmInstantiation (v20) and ParseWasm* (v21) memory models. */
function memoryCostParams(): Uint8Array {
  const models: [number, number][] = Array.from({ length: 45 }, () => [0, 0]);
  models[11] = [130065, 5064];
  const parseWasm: [number, number][] = [
    [17564, 6457],
    [0, 47464],
    [0, 13420],
    [0, 6285],
    [0, 64670],
    [0, 29074],
    [0, 48095],
    [0, 103229],
    [0, 36394],
    [0, 257],
  ];
  parseWasm.forEach((model, i) => {
    models[23 + i] = model;
  });
  const out = new Uint8Array(4 + 20 * models.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, models.length);
  models.forEach(([constTerm, linearTerm], i) => {
    view.setBigInt64(4 + 20 * i + 4, BigInt(constTerm));
    view.setBigInt64(4 + 20 * i + 12, BigInt(linearTerm));
  });
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'strata-bench-soroban-population-'));
try {
  let started = performance.now();
  const written = writePopulationState(dir, { dataKeys: DATA_KEYS, codes: CODES, seed: 5 });
  const live = 2 * (written.liveData + written.liveCodes); // data and code entries, and their TTLs
  console.log(
    `  wrote ${written.bucketEntries} bucket entries (${live} live) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // Open once so page indexes are built and persisted: every measured run then loads them.
  started = performance.now();
  await (await BucketManager.open(dir, { merger: 'inline', restartMerges: false, fsync: false })).close();
  console.log(`  verified and indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const paramsHex = Buffer.from(memoryCostParams()).toString('hex');
  type Run = PopulationRun & { rss: number };
  const runs: Record<PopulationMode, Run[]> = { 'loser-tree': [], baseline: [], 'scan-only': [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['loser-tree', 'baseline', 'scan-only'] as const) {
      const report = await measurePeakRss({
        module,
        exportName: 'populate',
        args: [dir, mode, paramsHex],
        execArgv: ['--max-old-space-size=8192'],
        bundled: true,
      });
      const result = report.result as PopulationRun;
      if (result.scanned !== live) throw new Error(`${mode} scanned ${result.scanned} live entries, expected ${live}`);
      if (mode !== 'scan-only') {
        if (result.data !== written.liveData || result.code !== written.liveCodes || result.entriesWithoutTtl !== 0) {
          throw new Error(`${mode} built ${JSON.stringify(result)}, expected ${JSON.stringify(written)}`);
        }
      }
      runs[mode].push({ ...result, rss: report.peakRssBytes });
      const byWorker = mode === 'scan-only' ? '' : `, ${result.keysHashedByWorker} keys hashed by the worker`;
      console.log(
        `  round ${round + 1} ${mode}: ${(result.ms / 1000).toFixed(2)} s, peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB (${(result.rssBeforeBytes / 2 ** 20).toFixed(0)} MiB when it started)${byWorker}`,
      );
    }
  }
  if (runs['loser-tree'][0]!.stateSizeBytes !== runs.baseline[0]!.stateSizeBytes) {
    throw new Error('the two approaches built states of different sizes');
  }
  // Context for the peak-RSS ratio (printed only; the recorded figure is unchanged): the spread of each mode's peaks
  // (the baseline's own swings by 100 MiB and more from run to run), and the floor every child starts from.
  const idle = await measureIdleRss({ bundled: true });
  const spread = (mode: PopulationMode) => {
    const peaks = runs[mode].map((run) => run.rss / 2 ** 20);
    return `${Math.min(...peaks).toFixed(0)}-${Math.max(...peaks).toFixed(0)} MiB`;
  };
  console.log(
    `  peak RSS spread: loser-tree ${spread('loser-tree')}, baseline ${spread('baseline')}, scan-only ${spread('scan-only')}; an idle child ${(idle.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  const median = (mode: PopulationMode, pick: (run: Run) => number) => summarize(runs[mode].map(pick)).median;
  const seconds = (mode: PopulationMode) => median(mode, (run) => run.ms) / 1000;
  const shape = `${DATA_KEYS} CONTRACT_DATA + their TTLs + ${CODES} CONTRACT_CODE (+ TTLs) live, ${written.bucketEntries} bucket entries (~5 versions a key), ${ROUNDS} round(s), each run a fresh process`;
  const baselineName = 'old approach: newest-first raw scans + seen-key set, into the same SorobanState';

  await runBench(async (bench) => {
    bench.record(
      {
        id: 'population.time',
        value: seconds('loser-tree'),
        unit: 's',
        higherIsBetter: false,
        baseline: { name: baselineName, value: seconds('baseline'), unit: 's' },
      },
      { target: { ratio: 0.5 }, note: shape },
    );
    bench.record(
      {
        id: 'population.peak-rss',
        value: median('loser-tree', (run) => run.rss),
        unit: 'bytes',
        higherIsBetter: false,
        baseline: { name: baselineName, value: median('baseline', (run) => run.rss), unit: 'bytes' },
      },
      { target: { ratio: 0.6 }, note: `${shape}; whole-process peak (Node, open, indexes, scan, state), plain node` },
    );
    const added = (run: Run) => run.rss - run.rssBeforeBytes;
    bench.record(
      {
        id: 'population.peak-rss-added',
        value: median('loser-tree', added),
        unit: 'bytes',
        higherIsBetter: false,
        baseline: { name: baselineName, value: median('baseline', added), unit: 'bytes' },
      },
      {
        target: { ratio: 0.6 },
        note: `${shape}; the population's own peak: whole-process peak − the resident set when it started (after the open; ${(median('loser-tree', (run) => run.rssBeforeBytes) / 2 ** 20).toFixed(0)} MiB)`,
      },
    );
    bench.record(
      {
        id: 'population.throughput',
        value: live / seconds('loser-tree'),
        unit: 'ops/s',
        higherIsBetter: true,
      },
      {
        target: { value: 1_000_000 },
        note: 'live entries (data + TTL + code) into the state per second, scan included, one core',
      },
    );
    bench.record(
      {
        id: 'population.state-throughput',
        value: live / Math.max(1e-9, seconds('loser-tree') - seconds('scan-only')),
        unit: 'ops/s',
        higherIsBetter: true,
      },
      {
        target: { value: 1_000_000 },
        note: `the state's own share: live entries ÷ (population time − loser-tree scan alone, ${seconds('scan-only').toFixed(2)} s)`,
      },
    );
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
