// The reopen and memory-per-term measurements of hot-store.bench.ts, each run in a child process of its own
// (measurePeakRss) so nothing the parent holds counts: open a full chunk (the in-memory index rebuilt from the
// durable postings) and report the time and what the index added to the heap and to external memory.
import { HotStore } from '../src/index.js';
import { V1EventsTable } from './v1-baseline.js';

export interface ReopenRun {
  readonly ms: number;
  /** heapUsed + external growth across the open, after a full GC on each side (bytes). */
  readonly indexBytes: number;
  readonly eventCount: number;
}

function settledBytes(): number {
  // `!`: the child runs with --expose-gc
  globalThis.gc!();
  globalThis.gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

export function reopenHot(path: string, chunkId: number): ReopenRun {
  const before = settledBytes();
  const started = performance.now();
  const store = HotStore.open(path, { chunkId });
  const ms = performance.now() - started;
  const indexBytes = settledBytes() - before;
  const eventCount = store.eventCount;
  store.close();
  return { ms, indexBytes, eventCount };
}

export function reopenV1(dir: string): ReopenRun {
  const before = settledBytes();
  const started = performance.now();
  const table = new V1EventsTable(dir, 'full');
  const eventCount = table.eventCount;
  const ms = performance.now() - started;
  const indexBytes = settledBytes() - before;
  table.close();
  return { ms, indexBytes, eventCount };
}
