// The harness's example benchmark, and a template for package benchmarks: one throughput figure against a
// baseline measured in the same process, and one peak-RSS figure measured in child processes.
import { fileURLToPath } from 'node:url';
import { measureIdleRss, measurePeakRss, runBench } from '../src/index.js';

const count = 10_000;
const source = new Uint32Array(count);
let state = 0x9e3779b9;
for (let i = 0; i < count; i++) {
  state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
  source[i] = state;
}
const sourceArray = Array.from(source);

await runBench(async (bench) => {
  await bench.throughput('example.sort-u32', {
    subject: { name: 'Uint32Array#sort (numeric, native)', fn: () => source.slice().sort(), opsPerCall: count },
    baseline: {
      name: 'Array#sort with a comparator',
      fn: () => sourceArray.slice().sort((a, b) => a - b),
      opsPerCall: count,
    },
    note: 'elements sorted per second, 10k random u32',
  });

  const mebibytes = 64;
  const idle = await measureIdleRss();
  const job = await measurePeakRss({
    module: fileURLToPath(new URL('./example-memory.ts', import.meta.url)),
    exportName: 'allocateAndTouch',
    args: [mebibytes],
  });
  bench.record(
    {
      id: 'example.peak-rss',
      value: job.peakRssBytes / 2 ** 20,
      unit: 'MiB',
      higherIsBetter: false,
      baseline: { name: 'idle child process', value: idle.peakRssBytes / 2 ** 20, unit: 'MiB' },
    },
    { note: `${mebibytes} MiB allocated and touched, in a child process` },
  );
});
