import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measureIdleRss, measurePeakRss } from '../src/index.js';

const memoryJob = fileURLToPath(new URL('../bench/example-memory.ts', import.meta.url));

describe('measurePeakRss', () => {
  it('sees memory the child allocates and touches, above the idle floor', async () => {
    const idle = await measureIdleRss();
    const job = await measurePeakRss({ module: memoryJob, exportName: 'allocateAndTouch', args: [128] });
    expect(job.result).toBe(128 * 2 ** 20);
    expect(job.peakRssBytes).toBeGreaterThanOrEqual(128 * 2 ** 20);
    expect(job.peakRssBytes - idle.peakRssBytes).toBeGreaterThan(100 * 2 ** 20);
  });

  it('rejects with the child error when the job fails', async () => {
    await expect(measurePeakRss({ module: memoryJob, exportName: 'missing' })).rejects.toThrow(
      /has no exported function missing/,
    );
  });
});
