import { describe, expect, it } from 'vitest';
import { type BenchResultsFile, RESULTS_SCHEMA_VERSION, renderReport } from '../src/index.js';

function resultsFile(pkg: string, value: number): BenchResultsFile {
  return {
    schema: RESULTS_SCHEMA_VERSION,
    package: pkg,
    command: `pnpm --filter ${pkg} bench`,
    commit: '0123456789abcdef0123',
    dirty: false,
    date: '2026-11-29T00:00:00.000Z',
    node: 'v20.20.2',
    cpu: { model: 'Test CPU', cores: 2 },
    results: [
      {
        id: 'compare.mixed',
        value,
        unit: 'ops/s',
        higherIsBetter: true,
        baseline: { name: 'stellar-base | decode', value: value / 25, unit: 'ops/s' },
        ratio: 25,
        target: { ratio: 20, met: true },
      },
    ],
    failures: [],
  };
}

describe('renderReport', () => {
  it('renders command, commit, Node, CPU and each result with its baseline and ratio', () => {
    const markdown = renderReport([resultsFile('@strata/a', 5_000_000)]);
    expect(markdown).toContain('## @strata/a');
    expect(markdown).toContain('`pnpm --filter @strata/a bench`');
    expect(markdown).toContain('`0123456789ab`');
    expect(markdown).toContain('Node v20.20.2 · Test CPU, 2 cores');
    expect(markdown).toContain(
      '| `compare.mixed` | 5,000,000 ops/s ↑ |  | stellar-base \\| decode | 200,000 ops/s | 25 |',
    );
    expect(markdown).toContain('ratio ≥ 20: met');
  });

  it('keeps sections of packages without fresh results and replaces the others', () => {
    const first = renderReport([resultsFile('@strata/a', 1), resultsFile('@strata/b', 2)]);
    const second = renderReport([resultsFile('@strata/b', 3)], first);
    expect(second).toContain('## @strata/a');
    expect(second).toContain('| `compare.mixed` | 3 ops/s');
    expect(second).not.toContain('| `compare.mixed` | 2 ops/s');
    expect(second.indexOf('@strata/a')).toBeLessThan(second.indexOf('@strata/b'));
  });

  it('refuses a results file of another schema', () => {
    const wrong = { ...resultsFile('@strata/a', 1), schema: 99 } as unknown as BenchResultsFile;
    expect(() => renderReport([wrong])).toThrow(/schema 99/);
  });
});
