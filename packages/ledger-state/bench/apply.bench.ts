// apply.pubnet-like: ledgers/s through LedgerState.apply (verification off) of generated pubnet-like ledgers, about
// 1,000 net entry changes and 750 contract events each (@strata/ledger-meta's generateNetwork: SAC payments, trust
// lines, allowances with nonces, uploads; 10,000 accounts, 50 contracts), on a test genesis at protocol 23 with each
// ledger's evictedKeys those of stellar-core's scan (see apply-data.ts). Every apply extracts and validates the meta,
// runs the eviction scan (500 kB a ledger), writes the eviction iterator and state-size window, adds the ledger to
// both BucketLists and updates the in-memory Soroban state; the header hash is computed but not compared.
// Baseline, same run: BucketManager.addLedger alone of the same ledgers' batches, extracted beforehand — the list's
// own work, so the ratio is what ledger-state adds on top of it (extraction, scan, settings, Soroban state).
// Both sides: a fresh state from the same genesis per round, fsync off, merges in worker threads (the default), the
// ledgers pre-generated in memory, the first WARMUP ledgers applied before the clock starts.
// STRATA_BENCH_LEDGERS=<n> sets the number of generated ledgers (default 300; quick mode 60).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quickMode, runBench } from '@strata/bench';
import { BucketManager, type LiveBatch } from '@strata/bucket-list';
import { compareLedgerKeys, ledgerKeyOfEntry } from '@strata/ledger-key';
import { extractLedger } from '@strata/ledger-meta';
import { LedgerState } from '../src/ledger-state.js';
import { APPLY_EVICTION_PARAMS, APPLY_PROTOCOL, applyGenesis, pubnetLikeLedgers } from './apply-data.js';
import { recordRounds, type TimedRun } from './timed-rounds.js';

const LEDGERS = Number(process.env.STRATA_BENCH_LEDGERS ?? (quickMode ? 60 : 300));
const WARMUP = quickMode ? 10 : 20;
const GENERATOR = { seed: 'apply', eventsPerLedger: 750, contracts: 50, accounts: 10_000 } as const;

if (!Number.isInteger(LEDGERS) || LEDGERS <= WARMUP || LEDGERS > 100_000) {
  throw new Error(`STRATA_BENCH_LEDGERS must be an integer from ${WARMUP + 1} to 100000, got ${LEDGERS}`);
}

const genesis = applyGenesis();
let started = performance.now();
const data = await pubnetLikeLedgers({ ...GENERATOR, ledgers: LEDGERS });
const batches: LiveBatch[] = data.lcms.map((lcm) => extractLedger(lcm).changes);
console.log(
  `generated ${data.lcms.length} ledgers in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
    `${data.changesPerLedger.toFixed(0)} changes, ${data.eventsPerLedger.toFixed(0)} events, ` +
    `${data.evictedKeysPerLedger.toFixed(1)} evicted keys, ${(data.bytesPerLedger / 1024).toFixed(0)} KiB a ledger`,
);

/** The ledgers after the warm-up, timed; `apply(i)` applies data.lcms[i] (ledger i + 2). */
async function timedLedgers(apply: (i: number) => Promise<unknown>): Promise<TimedRun> {
  for (let i = 0; i < WARMUP; i++) await apply(i);
  started = performance.now();
  for (let i = WARMUP; i < data.lcms.length; i++) await apply(i);
  return { ops: data.lcms.length - WARMUP, seconds: (performance.now() - started) / 1000 };
}

async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-bench-apply-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const applyLedgers = (): Promise<TimedRun> =>
  withDir(async (dir) => {
    const state = await LedgerState.create(dir, genesis, { verify: false, fsync: false });
    try {
      return await timedLedgers((i) => state.apply(data.lcms[i] as Uint8Array));
    } finally {
      await state.close();
    }
  });

const addBatches = (): Promise<TimedRun> =>
  withDir(async (dir) => {
    const list = await BucketManager.open(dir, {
      create: true,
      fsync: false,
      networkPassphrase: genesis.networkPassphrase,
    });
    try {
      const init = genesis.entries.slice().sort((a, b) => compareLedgerKeys(ledgerKeyOfEntry(a), ledgerKeyOfEntry(b)));
      await list.addLedger(1, APPLY_PROTOCOL, { init, live: [], dead: [] });
      return await timedLedgers((i) => list.addLedger(i + 2, APPLY_PROTOCOL, batches[i] as LiveBatch));
    } finally {
      await list.close();
    }
  });

await runBench(async (bench) => {
  await recordRounds(bench, {
    id: 'apply.pubnet-like',
    unit: 'ledgers/s',
    subject: applyLedgers,
    baseline: { name: 'BucketManager.addLedger of the pre-extracted batches alone', run: addBatches },
    target: { value: 50 },
    note:
      `ledgers/s, verify off; ${data.lcms.length} generated ledgers (${JSON.stringify(GENERATOR)}) from ledger 2, ` +
      `the first ${WARMUP} untimed; ${data.changesPerLedger.toFixed(0)} net changes, ` +
      `${data.eventsPerLedger.toFixed(0)} events, ${data.evictedKeysPerLedger.toFixed(1)} evicted keys and ` +
      `${(data.bytesPerLedger / 1024).toFixed(0)} KiB of meta a ledger; test genesis at protocol ${APPLY_PROTOCOL}, ` +
      `eviction scan ${APPLY_EVICTION_PARAMS.scanSize / 1000} kB a ledger from level ${APPLY_EVICTION_PARAMS.startingScanLevel}; ` +
      'fsync off, merges in worker threads',
  });
});
