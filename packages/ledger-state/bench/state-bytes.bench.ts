// `state.bytes-per-entry`: memory the in-memory Soroban state holds per CONTRACT_DATA entry (with its TTL), against
// the entry's XDR size, on 1 M entries of a network-like mix of shapes. Baseline: a Map from the TTL key hash to
// { entry, liveUntil, lastModified } (an object graph per entry). Each is built in a fresh process (heap + external
// bytes after full collections, before vs after); target ≤ 1.3 × the mean XDR size + 32 bytes.
// STRATA_SOROBAN_STATE_BYTES_ENTRIES=<n> sets the entry count (quick mode: 100 000).
import { fileURLToPath } from 'node:url';
import { measurePeakRss, quickMode, runBench } from '@strata/bench';
import type { BytesReport } from './state-bytes.js';

const COUNT = Number(process.env.STRATA_SOROBAN_STATE_BYTES_ENTRIES ?? (quickMode ? 100_000 : 1_000_000));
if (!Number.isInteger(COUNT) || COUNT < 1000 || COUNT > 50_000_000) {
  throw new Error(`STRATA_SOROBAN_STATE_BYTES_ENTRIES must be an integer from 1000 to 50000000, got ${COUNT}`);
}
const module = fileURLToPath(new URL('./state-bytes.ts', import.meta.url));

async function run(kind: 'soroban-state' | 'map'): Promise<BytesReport & { peakRssBytes: number }> {
  const report = await measurePeakRss({
    module,
    exportName: 'measure',
    args: [kind, COUNT, 9],
    execArgv: ['--expose-gc', '--max-old-space-size=8192'],
  });
  const result = report.result as BytesReport;
  console.log(
    `  ${kind}: ${result.bytesPerEntry.toFixed(1)} bytes/entry (mean XDR ${result.meanXdrBytes.toFixed(1)}), peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  return { ...result, peakRssBytes: report.peakRssBytes };
}

const mine = await run('soroban-state');
const theirs = await run('map');
if (mine.meanXdrBytes !== theirs.meanXdrBytes) throw new Error('the two runs built different entries');

await runBench(async (bench) => {
  bench.record(
    {
      id: 'state.bytes-per-entry',
      value: mine.bytesPerEntry,
      unit: 'bytes',
      higherIsBetter: false,
      baseline: {
        name: 'Map<hex key hash, { entry: Uint8Array, liveUntil, lastModified }>',
        value: theirs.bytesPerEntry,
        unit: 'bytes',
      },
    },
    {
      target: { value: 1.3 * mine.meanXdrBytes + 32 },
      note: `${COUNT} CONTRACT_DATA entries with TTLs, mean XDR ${mine.meanXdrBytes.toFixed(1)} bytes (target 1.3 × XDR + 32); heap + external after GC, fresh process each; arenas + indexes alone ${mine.structuralBytesPerEntry.toFixed(1)} bytes/entry`,
    },
  );
});
