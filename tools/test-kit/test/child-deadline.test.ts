// runChildWithDeadline: a child's report comes back; a hanging child is killed and the failure names the input that
// was in flight; a child that exits without a report is a failure too.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runChildWithDeadline, seededRandom, tempDir } from '../src/index.js';

const child = (name: string) => fileURLToPath(new URL(`./children/${name}`, import.meta.url));

describe('runChildWithDeadline', () => {
  it('resolves with the report of a child that finishes', async () => {
    const report = await runChildWithDeadline<{ ok: boolean; argv: string[] }>({
      script: child('report.mjs'),
      args: ['a', 'b'],
      killAfterMs: 30_000,
    });
    expect(report).toEqual({ ok: true, argv: ['a', 'b'] });
  });

  it('kills a hanging child and names the input in flight', async () => {
    const progressFile = join(tempDir('deadline'), 'progress');
    await expect(
      runChildWithDeadline({
        script: child('hang.mjs'),
        args: [progressFile],
        killAfterMs: 1500,
        progressFile,
        label: 'hang child',
      }),
    ).rejects.toThrow(/hang child did not finish within 1500 ms.*input #42/);
  });

  it('fails when the child exits without a report', async () => {
    await expect(
      runChildWithDeadline({ script: child('hang.mjs'), args: ['/nonexistent-dir/progress'], killAfterMs: 30_000 }),
    ).rejects.toThrow(/exited \(code 1/);
  });
});

describe('seededRandom', () => {
  it('repeats for a seed, differs across seeds, stays in [0, 1)', () => {
    const a = Array.from({ length: 1000 }, seededRandom(7));
    expect(Array.from({ length: 1000 }, seededRandom(7))).toEqual(a);
    expect(Array.from({ length: 1000 }, seededRandom(8))).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
