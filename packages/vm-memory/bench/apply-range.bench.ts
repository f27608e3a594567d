// `apply-range.<strategy>`: total seconds for a fixed mix of contract executions with varied working sets (most touch
// 1-16 wasm pages, some are sparse, a few touch 16-64 MiB), like applying a range of blocks; and `rss.<strategy>`: the
// peak RSS of the process doing it. Each (strategy, round) is a fresh process; figures are medians over rounds,
// with fresh (a new memory per execution, what nearcore kept after #10851) as the same-run baseline.
import { fileURLToPath } from 'node:url';
import { measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import { type BenchStrategy, STRATEGIES } from './jobs.js';

const ROUNDS = quickMode ? 1 : Math.max(1, Number(process.env.STRATA_BENCH_ROUNDS ?? 3));
const EXECUTIONS = quickMode ? 100 : 2000;
const jobs = fileURLToPath(new URL('./jobs.ts', import.meta.url));

type Run = { seconds: number; peakRssBytes: number; strategyUsed: string; scanner: string };
const runs = new Map<BenchStrategy, Run[]>();

for (let round = 0; round < ROUNDS; round++) {
  const order = STRATEGIES.map((_, index) => STRATEGIES[(index + round) % STRATEGIES.length]!);
  for (const strategy of order) {
    const report = await measurePeakRss({ module: jobs, exportName: 'applyRange', args: [strategy, EXECUTIONS] });
    const result = report.result as Omit<Run, 'peakRssBytes'>;
    const list = runs.get(strategy) ?? [];
    list.push({ ...result, peakRssBytes: report.peakRssBytes });
    runs.set(strategy, list);
    console.log(
      `  round ${round + 1} ${strategy}: ${result.seconds.toFixed(3)} s, peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB (${result.strategyUsed}/${result.scanner})`,
    );
  }
}

const median = (strategy: BenchStrategy, pick: (run: Run) => number) =>
  summarize((runs.get(strategy) ?? []).map(pick)).median;
const shape = `${EXECUTIONS} executions (40% K=1, 20% K=4, 15% K=16, 10% K=64, 8% sparse, 5% K=256, 2% K=1024), 64 MiB memories, ${ROUNDS} process(es) per strategy`;

await runBench(async (bench) => {
  for (const strategy of STRATEGIES) {
    const first = runs.get(strategy)?.[0];
    const ranAs = first === undefined ? '' : `; ran as ${first.strategyUsed}/${first.scanner}`;
    bench.record(
      {
        id: `apply-range.${strategy}`,
        value: median(strategy, (run) => run.seconds),
        unit: 's',
        higherIsBetter: false,
        baseline: { name: 'fresh (same run)', value: median('fresh', (run) => run.seconds), unit: 's' },
      },
      { ...(strategy === 'auto' ? { target: { ratio: 1 } } : {}), note: `${shape}${ranAs}` },
    );
  }
  for (const strategy of STRATEGIES) {
    bench.record(
      {
        id: `rss.${strategy}`,
        value: median(strategy, (run) => run.peakRssBytes),
        unit: 'bytes',
        higherIsBetter: false,
        baseline: { name: 'fresh (same run)', value: median('fresh', (run) => run.peakRssBytes), unit: 'bytes' },
      },
      { note: `peak RSS of the whole process (Node + tsx + the pool) during apply-range; ${shape}` },
    );
  }
});
