// The freeze measurement of cold-store.bench.ts, run in a child process of its own (measurePeakRss) so its peak RSS
// and CPU time are the freeze's alone: open the hot chunk with a read-only reader (its index rebuilt, as a node's
// freeze finds it), freeze it into two directories, close. Reports wall and CPU time of the freeze itself, and the
// CPU time of each step (on a shared machine wall time includes waiting for a core; CPU time does not). The freeze
// takes the hot index's term → ordinals lists (hotTermOrdinals), as a node's freeze does; `regroup` true freezes
// without them (terms derived and regrouped from the payloads), for comparison.
import { hotTermOrdinals, openHotReader } from '@strata/hot-store';
import { type FreezeStep, freezeChunkWith } from '../src/chunk/freeze.js';
import { LocalStorage } from '../src/index.js';

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
  /** CPU of the process (ms) per step: events, index-hash, index-pack, verify, manifest. */
  readonly stepCpuMs: Readonly<Record<FreezeStep, number>>;
  /** Opening the hot reader before the freeze (index rebuilt from the database), ms. */
  readonly hotOpenMs: number;
}

export async function freezeJob(
  hotPath: string,
  chunkId: number,
  dataDir: string,
  indexDir: string,
  scratchDir: string,
  regroup = false,
): Promise<FreezeRun> {
  const opened = performance.now();
  const hot = openHotReader(hotPath, { chunkId });
  const hotOpenMs = performance.now() - opened;
  const stepCpuMs: Record<FreezeStep, number> = { events: 0, 'index-hash': 0, 'index-pack': 0, verify: 0, manifest: 0 };
  let step: FreezeStep | undefined;
  let stepCpu = process.cpuUsage();
  const stepDone = () => {
    const used = process.cpuUsage(stepCpu);
    if (step !== undefined) stepCpuMs[step] += (used.user + used.system) / 1000;
    stepCpu = process.cpuUsage();
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await freezeChunkWith(
    {
      hot,
      ...(regroup ? {} : { termOrdinals: hotTermOrdinals(hot) }),
      storage: new LocalStorage(dataDir),
      indexStorage: new LocalStorage(indexDir),
      scratchDir,
    },
    {
      onStep: (next) => {
        stepDone();
        step = next;
      },
    },
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  stepDone();
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
    stepCpuMs,
    hotOpenMs,
  };
}
