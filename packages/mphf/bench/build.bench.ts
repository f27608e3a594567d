// `build`: ns per key to build a function over 10 M random 16-byte keys on one thread (target ≤ 200), against
// building a Map<hex key, slot> over the same keys and against radix-sorting them into a packed sorted array; and
// `build.parallel`: `buildMphfAsync` with two threads (this machine's core count) against the one-thread build.
// Each is timed in alternating rounds (STRATA_BENCH_ROUNDS) in this process; the figure is the median round. A 10 M
// build takes seconds, so the rounds are whole builds rather than mitata samples.
import { quickMode, runBench, summarize } from '@strata/bench';
import { buildMphfAsyncWithReport, buildMphfWithReport } from '../src/build.js';
import { buildHexMap, KEY_COUNT, KEY_SEED, randomKeys, sortKeys } from './data.js';

const n = KEY_COUNT;
const keys = randomKeys(n, KEY_SEED);
const keysBuffer = Buffer.from(keys.buffer, keys.byteOffset, keys.length);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
let sink = 0;

/** ns per key of one call of `run`, after a collection so no round pays for the previous one's garbage. */
function timed(run: () => number): number {
  collect();
  const start = process.hrtime.bigint();
  sink += run();
  return Number(process.hrtime.bigint() - start) / n;
}

async function timedAsync(run: () => Promise<number>): Promise<number> {
  collect();
  const start = process.hrtime.bigint();
  sink += await run();
  return Number(process.hrtime.bigint() - start) / n;
}

await runBench(async (bench) => {
  const rounds = quickMode ? 1 : bench.rounds;
  const mphf: number[] = [];
  const map: number[] = [];
  const sort: number[] = [];
  const parallel: number[] = [];
  let attempts = 0;
  let evictions = 0;
  timed(() => buildMphfWithReport({ bytes: keys, keyLength: 16 }).bytes.length); // warm-up: JIT and first-touch
  for (let round = 0; round < rounds; round++) {
    mphf.push(
      timed(() => {
        const report = buildMphfWithReport({ bytes: keys, keyLength: 16 }, { seed: round });
        attempts += report.attempts;
        evictions += report.evictions;
        return report.bytes.length;
      }),
    );
    map.push(timed(() => buildHexMap(keysBuffer).size));
    sort.push(timed(() => sortKeys(keys).length));
    parallel.push(
      await timedAsync(async () => {
        const report = await buildMphfAsyncWithReport({ bytes: keys, keyLength: 16 }, { seed: round, threads: 2 });
        return report.bytes.length;
      }),
    );
  }
  const median = (values: number[]) => summarize(values).median;
  const note = `${n} random 16-byte keys packed in one buffer, default options; median of ${rounds} alternating rounds [${mphf.map((v) => v.toFixed(0)).join(', ')}]; ${(attempts / rounds).toFixed(2)} seeds and ${(evictions / rounds).toFixed(0)} evictions per build`;
  bench.record(
    {
      id: 'build',
      value: median(mphf),
      unit: 'ns/key',
      higherIsBetter: false,
      samples: rounds,
      baseline: { name: 'building a Map<hex key, slot> (toString("hex") + set)', value: median(map), unit: 'ns/key' },
    },
    { target: { value: 200 }, note },
  );
  bench.record(
    {
      id: 'build.vs-sort',
      value: median(mphf),
      unit: 'ns/key',
      higherIsBetter: false,
      samples: rounds,
      baseline: { name: 'LSD radix sort of the keys into a packed sorted array', value: median(sort), unit: 'ns/key' },
    },
    {
      note: `the same builds against the sorted-array baseline's build (rounds [${sort.map((v) => v.toFixed(0)).join(', ')}])`,
    },
  );
  bench.record(
    {
      id: 'build.parallel',
      value: median(parallel),
      unit: 'ns/key',
      higherIsBetter: false,
      samples: rounds,
      baseline: { name: 'buildMphf on one thread (the `build` figure)', value: median(mphf), unit: 'ns/key' },
    },
    {
      target: { value: 200 },
      note: `buildMphfAsync with 2 threads (hashing on the main thread, parts placed by both; the same bytes); rounds [${parallel.map((v) => v.toFixed(0)).join(', ')}]`,
    },
  );
  if (sink === 0) console.log('');
});
