// Runs the real `strata-bench run` and `report` commands on a throwaway workspace and checks the files they
// write: the bench-results schema and the rendered BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type BenchResultsFile, RESULTS_SCHEMA_VERSION, typeScriptExecArgv } from '../src/index.js';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const harness = fileURLToPath(new URL('../src/index.ts', import.meta.url));

function runCli(cwd: string, args: string[]) {
  return spawnSync(process.execPath, [...typeScriptExecArgv(), cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, STRATA_BENCH_QUICK: '1' },
  });
}

describe('strata-bench', () => {
  it('runs a package’s bench files and writes bench-results/<package>.json, then BENCHMARKS.md', () => {
    const root = tempDir('bench-cli');
    const pkg = join(root, 'packages', 'demo');
    mkdirSync(join(pkg, 'bench'), { recursive: true });
    writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@strata/demo', version: '0.0.0', type: 'module' }),
    );
    writeFileSync(
      join(pkg, 'bench', 'sum.bench.ts'),
      `import { runBench } from ${JSON.stringify(harness)};
const xs = Array.from({ length: 1000 }, (_, i) => i);
await runBench(async (bench) => {
  await bench.latency('demo.sum', {
    subject: { name: 'for loop', fn: () => { let s = 0; for (const x of xs) s += x; return s; } },
    baseline: { name: 'reduce', fn: () => xs.reduce((a, b) => a + b, 0) },
    target: { ratio: 1000 },
  });
});
`,
    );
    writeFileSync(join(pkg, 'bench', 'broken.bench.ts'), 'throw new Error("boom");\n');

    const run = runCli(pkg, ['run']);
    expect(run.status, run.stderr).toBe(1); // one bench file failed
    const file = JSON.parse(readFileSync(join(root, 'bench-results', 'demo.json'), 'utf8')) as BenchResultsFile;
    expect(file.schema).toBe(RESULTS_SCHEMA_VERSION);
    expect(file.package).toBe('@strata/demo');
    expect(file.command).toContain('pnpm --filter @strata/demo bench');
    expect(file.node).toBe(process.version);
    expect(file.cpu.cores).toBeGreaterThan(0);
    expect(file.failures).toEqual([{ file: join('bench', 'broken.bench.ts'), error: 'exit 1' }]);
    const [result] = file.results;
    expect(result).toMatchObject({ id: 'demo.sum', unit: 'ns/op', higherIsBetter: false });
    expect(result?.baseline?.name).toBe('reduce');
    expect(result?.ratio).toBeCloseTo((result?.value ?? 0) / (result?.baseline?.value ?? 1), 12);
    expect(result?.p99).toBeGreaterThanOrEqual(result?.value ?? Number.POSITIVE_INFINITY);
    expect(result?.target).toEqual({ ratio: 1000, met: true });

    const report = runCli(pkg, ['report']);
    expect(report.status, report.stderr).toBe(0);
    const markdown = readFileSync(join(root, 'BENCHMARKS.md'), 'utf8');
    expect(markdown).toContain('## @strata/demo');
    expect(markdown).toContain('`demo.sum`');
    expect(markdown).toContain('Failed: `bench/broken.bench.ts`');
  });
});
