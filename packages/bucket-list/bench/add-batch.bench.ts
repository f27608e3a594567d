// `add-batch`: ledgers/s closing 1,000-entry batches drawn from 1 M keys over 20,000 ledgers, merges included (the
// run ends only when every ledger is added; pending merges at the end are not waited for, as a node would not). The
// subject runs level merges in worker threads; the baseline is the same list with every merge inline on the calling
// thread — what background merging buys. fsync is off on both sides (this measures work, not the disk's flush
// latency); each run starts from an empty directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quickMode, runBench } from '@strata/bench';
import { BucketManager, type BucketManagerOptions } from '../src/bucket-manager.js';
import { LedgerBatches } from './data.js';

const LEDGERS = quickMode ? 500 : Number(process.env.STRATA_BENCH_LEDGERS ?? 20_000);
const KEYS = 1_000_000;
const PER_LEDGER = 1_000;

async function run(options: BucketManagerOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-add-batch-'));
  const batches = new LedgerBatches(KEYS, PER_LEDGER, 11);
  const manager = await BucketManager.open(dir, { ...options, fsync: false, create: true });
  const started = performance.now();
  try {
    for (let ledger = 1; ledger <= LEDGERS; ledger++) {
      await manager.addLedger(ledger, 23, batches.next(ledger));
      if (ledger % 2000 === 0) {
        const rate = ledger / ((performance.now() - started) / 1000);
        console.log(`  ${options.merger}: ledger ${ledger}, ${rate.toFixed(0)} ledgers/s`);
      }
    }
    return LEDGERS / ((performance.now() - started) / 1000);
  } finally {
    await manager.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(async (bench) => {
  const subject = await run({ merger: 'workers' });
  const baseline = await run({ merger: 'inline' });
  bench.record(
    {
      id: 'add-batch',
      value: subject,
      unit: 'ledgers/s',
      higherIsBetter: true,
      baseline: { name: 'same list, merges inline on the calling thread', value: baseline, unit: 'ledgers/s' },
    },
    {
      note: `${LEDGERS} ledgers × ${PER_LEDGER} entries (half SAC-balance CONTRACT_DATA, half TTL) from ${KEYS / 1e6} M keys, protocol 23, fsync off, one run each`,
    },
  );
});
