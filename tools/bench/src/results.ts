// The benchmark result schema (what `pnpm bench` writes to bench-results/<package>.json and what
// `pnpm bench:report` renders), and the facts about the run recorded beside every result.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Version of the bench-results file layout. 1: the first layout. */
export const RESULTS_SCHEMA_VERSION = 1;

/** A figure measured in the same run as the result it is compared with. */
export interface BaselineFigure {
  /** What the baseline is, e.g. "decode both with @stellar/stellar-base, compare structurally". */
  name: string;
  value: number;
  unit: string;
  p99?: number;
}

/** A goal from the issue that asked for the figure; `met` is judged from `higherIsBetter`. */
export interface Target {
  /** Absolute goal for `value`, in the result's unit. */
  value?: number;
  /** Goal for `ratio` (value ÷ baseline value). */
  ratio?: number;
  met: boolean;
}

export interface BenchResult {
  /** Stable id named by the issue, e.g. `compare.contract-data`. */
  id: string;
  /** The figure: the median for latencies and throughputs. */
  value: number;
  unit: string;
  higherIsBetter: boolean;
  /** 99th percentile beside a median latency, same unit as `value`. */
  p99?: number;
  /** How many timed samples the median comes from. */
  samples?: number;
  baseline?: BaselineFigure;
  /** `value ÷ baseline.value`: 0.5 for a time means twice as fast; 2 for a throughput means twice as fast. */
  ratio?: number;
  target?: Target;
  note?: string;
}

export interface RunEnvironment {
  commit: string;
  /** True when the working tree had uncommitted changes: the figure is not reproducible from `commit` alone. */
  dirty: boolean;
  date: string;
  node: string;
  cpu: { model: string; cores: number };
}

export interface BenchResultsFile extends RunEnvironment {
  schema: typeof RESULTS_SCHEMA_VERSION;
  package: string;
  /** The command that reproduces these results. */
  command: string;
  results: BenchResult[];
  /** Bench files that failed, with their error; their results are missing. */
  failures: { file: string; error: string }[];
}

/** Judges a target against a result's value and ratio. */
export function judgeTarget(
  result: Pick<BenchResult, 'value' | 'ratio' | 'higherIsBetter'>,
  goal: { value?: number; ratio?: number },
): Target {
  const meets = (actual: number | undefined, wanted: number) =>
    actual !== undefined && (result.higherIsBetter ? actual >= wanted : actual <= wanted);
  let met = true;
  if (goal.value !== undefined) met &&= meets(result.value, goal.value);
  if (goal.ratio !== undefined) met &&= meets(result.ratio, goal.ratio);
  return { ...goal, met };
}

/** The workspace root: the nearest folder upwards holding pnpm-workspace.yaml. */
export function findWorkspaceRoot(from: string = process.cwd()): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function runEnvironment(root: string): RunEnvironment {
  const cpuList = cpus();
  return {
    commit: git(root, ['rev-parse', 'HEAD']) ?? 'unknown',
    dirty: (git(root, ['status', '--porcelain', '--untracked-files=no']) ?? '') !== '',
    date: new Date().toISOString(),
    node: process.version,
    cpu: { model: cpuList[0]?.model.trim() ?? 'unknown', cores: availableParallelism() },
  };
}

/** bench-results file name for a package: `@strata/ledger-key` → `ledger-key.json`. */
export function resultsFileName(packageName: string): string {
  return `${packageName.replace(/^@[^/]+\//, '').replace(/[^a-zA-Z0-9._-]/g, '_')}.json`;
}
