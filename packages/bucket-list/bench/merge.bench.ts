// `merge`: MB/s of input merged (two large live buckets into one, the work of a level merge: read both, compare keys,
// apply the case table, write, hash, fsync off), against the physical limit of the same bytes — a kernel copyFile of
// both input files — in the same run.
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quickMode, runBench } from '@strata/bench';
import { writeBucket } from '../src/bucket-file.js';
import { mergeBucketFiles } from '../src/merge/bucket-merge.js';
import { mergeInputs } from './data.js';

const COUNT = quickMode ? 20_000 : 400_000;
const dir = mkdtempSync(join(tmpdir(), 'strata-bench-merge-'));
try {
  const inputs = mergeInputs(COUNT, 7);
  const older = writeBucket(dir, 'live', 23, inputs.older, { fsync: false });
  const newer = writeBucket(dir, 'live', 23, inputs.newer, { fsync: false });
  const megabytes = (statSync(older.path!).size + statSync(newer.path!).size) / 1e6;
  const copyA = join(dir, 'copy-a');
  const copyB = join(dir, 'copy-b');

  await runBench(async (bench) => {
    await bench.throughput('merge', {
      subject: {
        name: 'mergeBucketFiles',
        fn: () => {
          const out = mergeBucketFiles(dir, older, newer, { maxProtocolVersion: 23, fsync: false, publish: false });
          rmSync(out.path!);
        },
        opsPerCall: megabytes,
      },
      baseline: {
        name: 'copyFile of both input files (kernel copy, the physical limit)',
        fn: () => {
          copyFileSync(older.path!, copyA);
          copyFileSync(newer.path!, copyB);
        },
        opsPerCall: megabytes,
      },
      target: { ratio: 0.5 },
      note: `MB/s of input; ${inputs.older.length} + ${inputs.newer.length} entries (${megabytes.toFixed(1)} MB) of accounts, trustlines, contract data, TTLs, code; interleaved keys; no fsync on either side`,
    });
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
