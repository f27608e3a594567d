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

  it('runs a bundled job under plain node, below the TypeScript loader floor', async () => {
    const idle = await measureIdleRss();
    const bundledIdle = await measureIdleRss({ bundled: true });
    const job = await measurePeakRss({ module: memoryJob, exportName: 'allocateAndTouch', args: [64], bundled: true });
    expect(job.result).toBe(64 * 2 ** 20);
    expect(job.peakRssBytes - bundledIdle.peakRssBytes).toBeGreaterThan(50 * 2 ** 20);
    // tsx and its transform cache are not in the bundled child (they are tens of MiB in the plain one)
    expect(bundledIdle.peakRssBytes).toBeLessThan(idle.peakRssBytes);
  });

  it("does not count the parent's memory (a forked child's maxRSS starts at its parent's resident set)", async () => {
    const before = await measureIdleRss({ bundled: true });
    const ballast = new Uint8Array(256 * 2 ** 20);
    for (let offset = 0; offset < ballast.length; offset += 4096) ballast[offset] = 1;
    const after = await measureIdleRss({ bundled: true });
    expect(ballast[4096]).toBe(1);
    expect(after.peakRssBytes).toBeLessThan(before.peakRssBytes + 64 * 2 ** 20);
  });

  it('rejects with the child error when the job fails', async () => {
    await expect(measurePeakRss({ module: memoryJob, exportName: 'missing' })).rejects.toThrow(
      /has no exported function missing/,
    );
    await expect(measurePeakRss({ module: memoryJob, exportName: 'missing', bundled: true })).rejects.toThrow(
      /has no exported function missing/,
    );
  });
});
