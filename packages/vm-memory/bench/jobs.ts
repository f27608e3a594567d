// The measured jobs of the vm-memory benchmarks. Each runs in a fresh child process (measurePeakRss), so one
// strategy's garbage, resident pages or GC pressure never lands on another's figures, as in the spec's experiment
// (../shared/spec/vm-memory-pool.md, Part B): one execution = acquire a memory, instantiate the compiled contract
// over it, touch K wasm pages (one i64 store per 4 KiB page), release (reset).
import { ContractRunner, MemoryPool, type MemoryPoolOptions, type PoolStats } from '../src/index.js';
import { compileContract } from '../test/contracts.js';

/** The strategies compared; `dirty-pages-js` is dirty-pages with the pure-JS pagemap reader (no PAGEMAP_SCAN). */
export const STRATEGIES = ['fresh', 'zero-all', 'decommit', 'dirty-pages', 'dirty-pages-js', 'auto'] as const;
export type BenchStrategy = (typeof STRATEGIES)[number];

/** K wasm pages written with one store per 4 KiB page, or `sparse`: 16 OS pages spread over the whole 64 MiB. */
export const WORKLOADS = {
  k1: { pages: 1, stride: 4096 },
  k16: { pages: 16, stride: 4096 },
  k256: { pages: 256, stride: 4096 },
  k1024: { pages: 1024, stride: 4096 },
  sparse: { pages: 1024, stride: 4 << 20 },
} as const;
export type WorkloadName = keyof typeof WORKLOADS;

/** nearcore's limits: every contract starts at 64 MiB (1024 pages), maximum 128 MiB. */
const SHAPE = { initialPages: 1024, maximumPages: 2048 };

function poolOptions(strategy: BenchStrategy): MemoryPoolOptions {
  if (strategy === 'dirty-pages-js')
    return { ...SHAPE, strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-read' } };
  if (strategy === 'dirty-pages') return { ...SHAPE, strategy: 'dirty-pages', dirtyPages: { scanner: 'pagemap-scan' } };
  return { ...SHAPE, strategy };
}

async function setUp(strategy: BenchStrategy) {
  const code = await compileContract('workload');
  const pool = new MemoryPool(poolOptions(strategy));
  const runner = new ContractRunner(pool);
  const contract = runner.prepare(code);
  const env = { host_write() {}, host_fail() {} };
  const imports = () => ({ env });
  const execute = (pages: number, stride: number, value: bigint) =>
    runner.run(contract, 'touch', [pages, stride, value], imports);
  return { pool, execute };
}

export interface SeriesResult {
  medianMicros: number;
  meanMicros: number;
  p90Micros: number;
  samples: number;
  strategyUsed: string;
  scanner: string;
  resets: PoolStats['resets'];
  retired: number;
}

function summary(pool: MemoryPool): Pick<SeriesResult, 'strategyUsed' | 'scanner' | 'resets' | 'retired'> {
  const stats = pool.stats();
  return {
    strategyUsed: stats.strategy,
    scanner: stats.backend?.scanner ?? 'none',
    resets: stats.resets,
    retired: Object.values(stats.retirements).reduce((sum, count) => sum + count, 0),
  };
}

/** `warmup` then `iterations` executions of one workload; per-execution times in µs. */
export async function execSeries(
  strategy: BenchStrategy,
  workload: WorkloadName,
  iterations: number,
  warmup: number,
): Promise<SeriesResult> {
  const { pool, execute } = await setUp(strategy);
  const { pages, stride } = WORKLOADS[workload];
  for (let index = 0; index < warmup; index++) execute(pages, stride, BigInt(index + 1));
  const times = new Float64Array(iterations);
  for (let index = 0; index < iterations; index++) {
    const started = process.hrtime.bigint();
    execute(pages, stride, BigInt(index + 1));
    times[index] = Number(process.hrtime.bigint() - started) / 1000;
  }
  times.sort();
  let sum = 0;
  for (const time of times) sum += time;
  return {
    medianMicros: times[Math.floor(iterations / 2)]!,
    meanMicros: sum / iterations,
    p90Micros: times[Math.floor(iterations * 0.9)]!,
    samples: iterations,
    ...summary(pool),
  };
}

/**
 * The apply-range mix: `count` executions whose working sets vary the way a block's receipts do (most touch a few
 * pages, a few touch tens of MiB), in a fixed pseudo-random order. Returns the total seconds.
 */
export async function applyRange(
  strategy: BenchStrategy,
  count: number,
): Promise<{ seconds: number } & ReturnType<typeof summary>> {
  const { pool, execute } = await setUp(strategy);
  const mix: { pages: number; stride: number; weight: number }[] = [
    { pages: 1, stride: 4096, weight: 40 },
    { pages: 4, stride: 4096, weight: 20 },
    { pages: 16, stride: 4096, weight: 15 },
    { pages: 1024, stride: 4 << 20, weight: 8 }, // sparse: a few pages across the whole memory
    { pages: 64, stride: 4096, weight: 10 },
    { pages: 256, stride: 4096, weight: 5 },
    { pages: 1024, stride: 4096, weight: 2 },
  ];
  const totalWeight = mix.reduce((sum, entry) => sum + entry.weight, 0);
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const plan = Array.from({ length: count }, () => {
    let pick = next() * totalWeight;
    for (const entry of mix) {
      pick -= entry.weight;
      if (pick < 0) return entry;
    }
    return mix[0]!;
  });
  for (let index = 0; index < 10; index++) execute(1, 4096, 1n);
  const started = performance.now();
  for (const [index, entry] of plan.entries()) execute(entry.pages, entry.stride, BigInt(index + 1));
  return { seconds: (performance.now() - started) / 1000, ...summary(pool) };
}
