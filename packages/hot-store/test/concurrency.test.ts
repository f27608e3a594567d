// Readers in 2 worker threads (each its own read-only connection) query while the main thread ingests. For every
// ledger a worker sees, it gets exactly that ledger's events (fetchRange against the generator) and every term of
// them with exactly its events (lookupTerms): never a ledger without its events, never a term without its offsets.
// Besides free-running queries, after each commit the main thread blocks (Atomics.wait) until both workers have
// checked the newest ledger, so checks land at known points between ingests.
// Negative control: a store that commits the ledger rows in a transaction before the events (the sync point falls
// between the two commits) is caught: the workers see offsets whose events are not there.
import { join } from 'node:path';
import { spawnWorker } from '@strata/base';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type HotStoreSeams, openHotStoreWith, type PublishStep } from '../src/hot-store.js';
import { syntheticLedger } from './support.js';

const CHUNK = 9;
const FIRST = CHUNK * 10_000 + 2;
const SEED = 31;
const MAX_EVENTS = 40;
const MIN_EVENTS = 1;

interface WorkerReport {
  checks: number;
  failures: string[];
  newestSeen: number;
}

async function run(seams: Omit<HotStoreSeams, 'onStep'>, ledgers: number, syncStep: PublishStep | 'counts-committed') {
  const path = join(tempDir('concurrency'), 'chunk.db');
  const shared = new Int32Array(new SharedArrayBuffer(12));
  let ledger = FIRST;
  let synced = 0;
  const onStep = (step: PublishStep | 'counts-committed') => {
    if (step !== syncStep || workers.length === 0) return;
    // Both workers check the ledger being ingested now; wait (bounded) for their acknowledgements.
    const target = synced + 2;
    Atomics.store(shared, 1, ledger);
    for (let spins = 0; Atomics.load(shared, 2) < target && spins < 2_000; spins++) {
      Atomics.wait(shared, 2, Atomics.load(shared, 2), 5);
    }
    synced = target;
  };
  const store = openHotStoreWith(path, { chunkId: CHUNK, create: true, synchronous: 'normal' }, { ...seams, onStep });
  const workers: ReturnType<typeof spawnWorker>[] = [];
  store.ingestLedger(ledger, syntheticLedger(SEED, ledger, MAX_EVENTS, MIN_EVENTS));
  ledger++;
  const reports = [0, 1].map((id) => {
    const worker = spawnWorker(import.meta.url, 'children/query-worker', {
      workerData: {
        path,
        chunkId: CHUNK,
        seed: SEED,
        maxEvents: MAX_EVENTS,
        minEvents: MIN_EVENTS,
        shared: shared.buffer,
        id,
      },
    });
    workers.push(worker);
    return new Promise<WorkerReport>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  });
  try {
    for (; ledger < FIRST + ledgers; ledger++) {
      const batch = ledger % 7 === 0 ? 3 : 1;
      store.ingestLedgers(
        Array.from({ length: batch }, (_, i) => ({
          ledger: ledger + i,
          payloads: syntheticLedger(SEED, ledger + i, MAX_EVENTS, MIN_EVENTS),
        })),
      );
      ledger += batch - 1;
      await new Promise((resolve) => setImmediate(resolve)); // let worker errors surface
    }
  } finally {
    Atomics.store(shared, 0, 1);
  }
  const results = await Promise.all(reports);
  await Promise.all(workers.map((w) => w.terminate()));
  store.close();
  return results;
}

describe('worker-thread readers during ingest', () => {
  it('2 workers see, for every ledger they see, exactly its events and terms', async () => {
    const reports = await run({}, 150, 'committed');
    for (const report of reports) {
      expect(report.failures).toEqual([]);
      expect(report.checks).toBeGreaterThan(150);
      expect(report.newestSeen).toBeGreaterThan(FIRST + 100);
    }
  });

  it('negative control: ledger rows committed before their events are caught by the workers', async () => {
    const reports = await run({ commitCountsFirst: true }, 20, 'counts-committed');
    expect(reports.flatMap((r) => r.failures).length).toBeGreaterThan(0);
  });
});
