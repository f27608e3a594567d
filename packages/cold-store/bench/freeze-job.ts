// The freeze measurement of cold-store.bench.ts, run in a child process of its own (measurePeakRss) so its peak RSS
// and CPU time are the freeze's alone: open the hot chunk with a read-only reader (its index rebuilt, as a node's
// freeze finds it), freeze it into two directories, close. Reports wall and CPU time of the freeze itself.
import { openHotReader } from '@strata/hot-store';
import { freezeChunk, LocalStorage } from '../src/index.js';

export interface FreezeRun {
  readonly ms: number;
  /** User + system CPU of the process during the freeze (ms): above `ms` means more than one core was busy. */
  readonly cpuMs: number;
  readonly eventCount: number;
  readonly termCount: number;
  readonly bytes: { readonly eventsPack: number; readonly indexPack: number; readonly indexHash: number };
  readonly spilledBytes: number;
  readonly partitions: number;
  readonly stepMs: { readonly events: number; readonly index: number; readonly verify: number };
  /** Opening the hot reader before the freeze (index rebuilt from the database), ms. */
  readonly hotOpenMs: number;
}

export async function freezeJob(
  hotPath: string,
  chunkId: number,
  dataDir: string,
  indexDir: string,
  scratchDir: string,
): Promise<FreezeRun> {
  const opened = performance.now();
  const hot = openHotReader(hotPath, { chunkId });
  const hotOpenMs = performance.now() - opened;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await freezeChunk({
    hot,
    storage: new LocalStorage(dataDir),
    indexStorage: new LocalStorage(indexDir),
    scratchDir,
  });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await result.reader.close();
  await hot.close();
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    eventCount: result.eventCount,
    termCount: result.termCount,
    bytes: result.bytes,
    spilledBytes: result.spilledBytes,
    partitions: result.partitions,
    stepMs: result.ms,
    hotOpenMs,
  };
}
