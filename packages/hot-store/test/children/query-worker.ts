// A reader in a worker thread for the concurrency test: its own read-only connection (openHotReader) queried in a
// loop while the main thread ingests, each visible ledger checked against the generator (the oracle): fetchRange of
// its window returns exactly its payloads, and for each term of its events, lookupTerms over the window holds
// exactly the events with that term. At each sync point the main thread posts (a ledger number in shared memory,
// then waits), the worker checks that ledger at once and acknowledges, so a check also lands between two commits.
import { parentPort, workerData } from 'node:worker_threads';
import { deriveTerms, termKeyHex } from '@strata/events';
import { seededRandom } from '@strata/test-kit/random';
import { type HotChunkReader, openHotReader } from '../../src/index.js';
import { syntheticLedger } from '../support.js';

interface Data {
  path: string;
  chunkId: number;
  seed: number;
  maxEvents: number;
  minEvents: number;
  /** [0] stop flag, [1] sync ledger, [2] acknowledgements. */
  shared: SharedArrayBuffer;
  id: number;
}

const data = workerData as Data;
const shared = new Int32Array(data.shared);
const failures: string[] = [];
let checks = 0;
let newestSeen = 0;

async function checkLedger(reader: HotChunkReader, ledger: number): Promise<void> {
  const offsets = reader.ledgerOffsets();
  if (ledger < offsets.startLedger || ledger > offsets.lastLedger) return;
  newestSeen = Math.max(newestSeen, offsets.lastLedger);
  const window = offsets.windowForLedgers(ledger, ledger);
  const payloads = syntheticLedger(data.seed, ledger, data.maxEvents, data.minEvents);
  const events = await reader.fetchRange(window);
  if (events.length !== payloads.length || events.some((e, i) => Buffer.compare(e.payload, payloads[i]!) !== 0)) {
    failures.push(`ledger ${ledger}: fetchRange gave ${events.length} events, expected ${payloads.length}`);
  }
  const want = new Map<string, { key: Uint8Array; ordinals: number[] }>();
  payloads.forEach((payload, i) => {
    for (const key of deriveTerms(payload)) {
      const hex = termKeyHex(key);
      if (!want.has(hex)) want.set(hex, { key, ordinals: [] });
      want.get(hex)!.ordinals.push(window.start + i);
    }
  });
  const entries = [...want.values()];
  const bitmaps = await reader.lookupTerms(
    entries.map((e) => e.key),
    window,
  );
  entries.forEach((entry, i) => {
    const inside = bitmaps[i] === undefined ? [] : [...bitmaps[i]!].filter((o) => o >= window.start && o < window.end);
    if (inside.join() !== entry.ordinals.join()) failures.push(`ledger ${ledger}: a term without its events`);
  });
  checks++;
}

async function main(): Promise<void> {
  const random = seededRandom(data.id + 1);
  let reader: HotChunkReader | undefined;
  let acked = 0;
  try {
    reader = openHotReader(data.path, { chunkId: data.chunkId });
    while (Atomics.load(shared, 0) === 0) {
      const sync = Atomics.load(shared, 1);
      if (sync !== 0 && sync !== acked) {
        acked = sync;
        await checkLedger(reader, sync);
        Atomics.add(shared, 2, 1);
        Atomics.notify(shared, 2);
        continue;
      }
      // Free-running: the newest visible ledger and a random older one.
      const offsets = reader.ledgerOffsets();
      if (offsets.ledgerCount > 0) {
        await checkLedger(reader, offsets.lastLedger);
        await checkLedger(reader, offsets.startLedger + Math.floor(random() * offsets.ledgerCount));
      }
    }
  } catch (error) {
    failures.push(`reader failed: ${(error as Error).message}`);
    // Keep acknowledging sync points so the main thread never waits for a dead reader.
    while (Atomics.load(shared, 0) === 0) {
      const sync = Atomics.load(shared, 1);
      if (sync !== 0 && sync !== acked) {
        acked = sync;
        Atomics.add(shared, 2, 1);
        Atomics.notify(shared, 2);
      }
      Atomics.wait(shared, 1, sync, 5);
    }
  } finally {
    await reader?.close();
  }
  parentPort!.postMessage({ checks, failures, newestSeen });
}

void main();
