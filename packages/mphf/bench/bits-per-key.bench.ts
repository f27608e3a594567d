// `bits-per-key`: the size of a function over 10 M random 16-byte keys (target ≤ 3.0), split into its sections,
// against the V8 heap a Map<hex key, slot> over the same keys takes; the same with 8-bit fingerprints against the
// keys themselves (a sorted array stores 128 bits per key); and the peak RSS of a build against building the Map,
// each in a child process that also holds the keys.
import { fileURLToPath } from 'node:url';
import { measurePeakRss, runBench } from '@strata/bench';
import { buildMphf } from '../src/index.js';
import { Field, readU32 } from '../src/layout.js';
import { buildHexMap, KEY_COUNT, KEY_SEED, randomKeys } from './data.js';

const n = KEY_COUNT;
const keys = randomKeys(n, KEY_SEED);
const plain = buildMphf({ bytes: keys, keyLength: 16 });
const fingerprinted = buildMphf({ bytes: keys, keyLength: 16 }, { fingerprintBits: 8 });
const bits = (bytes: number): number => (bytes * 8) / n;
const sections = `pilots ${bits(readU32(plain, Field.pilotsLength)).toFixed(3)}, remap ${bits(readU32(plain, Field.remapLength)).toFixed(3)}, part table ${bits(readU32(plain, Field.partTableLength)).toFixed(4)}, header + padding + checksum the rest`;

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
collect();
const heapBefore = process.memoryUsage().heapUsed;
let map: Map<string, number> | undefined = buildHexMap(Buffer.from(keys.buffer, keys.byteOffset, keys.length));
collect();
const mapBits = ((process.memoryUsage().heapUsed - heapBefore) * 8) / map.size;
map = undefined;

const jobsModule = fileURLToPath(new URL('./data.ts', import.meta.url));
const mebibyte = 2 ** 20;

await runBench(async (bench) => {
  bench.record(
    {
      id: 'bits-per-key',
      value: bits(plain.length),
      unit: 'bits/key',
      higherIsBetter: false,
      baseline: { name: 'Map<hex key, slot> over the same keys (V8 heap growth)', value: mapBits, unit: 'bits/key' },
    },
    {
      target: { value: 3.0 },
      note: `${n} random 16-byte keys, default options (lambda 3, alpha 0.99, parts of 32768 keys), no fingerprints: ${sections}`,
    },
  );
  bench.record(
    {
      id: 'bits-per-key.fingerprint8',
      value: bits(fingerprinted.length),
      unit: 'bits/key',
      higherIsBetter: false,
      baseline: { name: 'sorted packed key array (the keys themselves)', value: 128, unit: 'bits/key' },
    },
    { note: 'the same function with 8-bit fingerprints (rejects 255/256 of non-members)' },
  );

  const job = (exportName: string) => measurePeakRss({ module: jobsModule, exportName, args: [n, KEY_SEED] });
  const keysOnly = await job('holdKeys');
  const mphfPeak = await job('holdMphfBuild');
  const mapPeak = await job('holdHexMap');
  // Absolute peaks: the difference from a keys-only child is smaller than that child's run-to-run spread.
  bench.record(
    {
      id: 'memory.build-peak-rss',
      value: mphfPeak.peakRssBytes / mebibyte,
      unit: 'MiB',
      higherIsBetter: false,
      baseline: { name: 'building a Map<hex key, slot> instead', value: mapPeak.peakRssBytes / mebibyte, unit: 'MiB' },
    },
    {
      note: `peak RSS of a child that generates the ${n} packed keys (${(16 * n) / mebibyte} MiB) and builds; the same child holding only the keys: ${(keysOnly.peakRssBytes / mebibyte).toFixed(0)} MiB`,
    },
  );
});
