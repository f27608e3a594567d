// `population.*`: rebuilding in-memory Soroban state at startup (stellar-core PR #5252) on a list of 1 M live
// CONTRACT_DATA entries, their 1 M TTLs and 1 k contract codes with ~5 versions per key across the levels. The loser
// tree and the old approach (newest-first raw scans with a set of seen keys) each run in a fresh process per round,
// alternating; time is the scan, peak RSS the whole process (open, indexes, scan).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import { BucketManager } from '../src/bucket-manager.js';
import { writePopulationState } from './population-data.js';

const DATA_KEYS = quickMode ? 50_000 : 1_000_000;
const CODES = 1_000;
const ROUNDS = quickMode ? 1 : Math.max(1, Number(process.env.STRATA_BENCH_ROUNDS ?? 3));
const module = fileURLToPath(new URL('./population.ts', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'strata-bench-population-'));
try {
  let started = performance.now();
  const { bucketEntries, live } = writePopulationState(dir, { dataKeys: DATA_KEYS, codes: CODES, seed: 3 });
  console.log(
    `  wrote ${bucketEntries} bucket entries (${live} live) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // Open once so page indexes are built and persisted: every measured run then loads them.
  started = performance.now();
  await (await BucketManager.open(dir, { merger: 'inline', restartMerges: false, fsync: false })).close();
  console.log(`  verified and indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  type Run = { ms: number; emitted: number; bytes: number; rss: number };
  const runs: Record<'loser-tree' | 'baseline', Run[]> = { 'loser-tree': [], baseline: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['loser-tree', 'baseline'] as const) {
      const report = await measurePeakRss({
        module,
        exportName: 'populate',
        args: [dir, mode],
        execArgv: ['--max-old-space-size=8192'],
      });
      const result = report.result as Omit<Run, 'rss'>;
      if (result.emitted !== live) throw new Error(`${mode} emitted ${result.emitted} entries, expected ${live}`);
      runs[mode].push({ ...result, rss: report.peakRssBytes });
      console.log(
        `  round ${round + 1} ${mode}: ${(result.ms / 1000).toFixed(2)} s, peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
      );
    }
  }
  if (runs['loser-tree'][0]!.bytes !== runs.baseline[0]!.bytes)
    throw new Error('the two approaches emitted different bytes');
  const median = (mode: 'loser-tree' | 'baseline', pick: (run: Run) => number) =>
    summarize(runs[mode].map(pick)).median;
  const shape = `${DATA_KEYS} CONTRACT_DATA + ${DATA_KEYS} TTL + ${CODES} CONTRACT_CODE live, ${bucketEntries} bucket entries (~5 versions a key), ${ROUNDS} round(s), each run a fresh process`;

  await runBench(async (bench) => {
    bench.record(
      {
        id: 'population.time',
        value: median('loser-tree', (run) => run.ms) / 1000,
        unit: 's',
        higherIsBetter: false,
        baseline: {
          name: 'old approach: newest-first raw scans + seen-key set',
          value: median('baseline', (run) => run.ms) / 1000,
          unit: 's',
        },
      },
      { target: { ratio: 0.5 }, note: shape },
    );
    bench.record(
      {
        id: 'population.peak-rss',
        value: median('loser-tree', (run) => run.rss),
        unit: 'bytes',
        higherIsBetter: false,
        baseline: {
          name: 'old approach: newest-first raw scans + seen-key set',
          value: median('baseline', (run) => run.rss),
          unit: 'bytes',
        },
      },
      { target: { ratio: 0.6 }, note: `${shape}; whole-process peak (Node, open, indexes, scan)` },
    );
    bench.record(
      {
        id: 'population.throughput',
        value: bucketEntries / (median('loser-tree', (run) => run.ms) / 1000),
        unit: 'ops/s',
        higherIsBetter: true,
      },
      {
        target: { value: 1_000_000 },
        note: 'bucket entries of the three types scanned per second by the loser tree, one core',
      },
    );
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
