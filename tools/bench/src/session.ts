// The API a `bench/*.bench.ts` file uses: measure a subject and its baseline in the same process, alternating
// between them so machine noise hits both, and record the result with its ratio. Timing uses mitata's
// `measure` (batched, warmed-up, per-call nanoseconds); the figure is the median over every round.
import { writeFileSync } from 'node:fs';
import { measure } from 'mitata';
import { type BenchResult, judgeTarget } from './results.js';

/** Something to time: `fn` is called repeatedly; `opsPerCall` says how many operations one call performs. */
export interface Subject {
  name: string;
  fn: () => unknown;
  opsPerCall?: number;
}

export interface CompareOptions {
  subject: Subject;
  baseline?: Subject;
  target?: { value?: number; ratio?: number };
  note?: string;
}

interface Timing {
  /** nanoseconds per operation, one entry per sample */
  perOp: number[];
}

/** Quick mode (STRATA_BENCH_QUICK=1): a short run that checks a bench file works, not a figure to quote. */
export const quickMode = process.env.STRATA_BENCH_QUICK === '1';

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** Median and p99 of a list of numbers (nearest-rank). */
export function summarize(values: readonly number[]): { median: number; p99: number; count: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), count: sorted.length };
}

async function timeRound(subject: Subject, into: Timing): Promise<void> {
  const ops = subject.opsPerCall ?? 1;
  const stats = await measure(subject.fn, {
    min_cpu_time: quickMode ? 20e6 : 400e6,
    max_samples: quickMode ? 200 : 10_000,
  });
  for (const sample of stats.samples) into.perOp.push(sample / ops);
}

function defaultRounds(): number {
  const fromEnv = Number(process.env.STRATA_BENCH_ROUNDS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 3;
}

/** Collects the results of one bench file. */
export class BenchSession {
  readonly results: BenchResult[] = [];
  readonly rounds: number;

  /**
   * `rounds` alternations of subject and baseline (default 3, or STRATA_BENCH_ROUNDS). More rounds ride out the
   * seconds-long phases of host contention our shared VMs show; every sample of every round goes into the median.
   */
  constructor(rounds = quickMode ? 1 : defaultRounds()) {
    this.rounds = rounds;
  }

  /** Times subject and baseline alternately for `rounds` rounds; returns per-op samples (ns) of each. */
  private async timeBoth(options: CompareOptions): Promise<{ subject: Timing; baseline?: Timing }> {
    const subject: Timing = { perOp: [] };
    const baseline: Timing | undefined = options.baseline ? { perOp: [] } : undefined;
    for (let round = 0; round < this.rounds; round++) {
      await timeRound(options.subject, subject);
      if (options.baseline && baseline) await timeRound(options.baseline, baseline);
    }
    return baseline ? { subject, baseline } : { subject };
  }

  /** A latency figure: median ns per operation (lower is better), with p99 beside it. */
  async latency(id: string, options: CompareOptions): Promise<BenchResult> {
    const timing = await this.timeBoth(options);
    const mine = summarize(timing.subject.perOp);
    const result: BenchResult = { id, value: mine.median, unit: 'ns/op', higherIsBetter: false, p99: mine.p99 };
    result.samples = mine.count;
    if (options.baseline && timing.baseline) {
      const theirs = summarize(timing.baseline.perOp);
      result.baseline = { name: options.baseline.name, value: theirs.median, unit: 'ns/op', p99: theirs.p99 };
      result.ratio = mine.median / theirs.median;
    }
    return this.record(result, options);
  }

  /** A throughput figure: operations per second at the median sample (higher is better). */
  async throughput(id: string, options: CompareOptions): Promise<BenchResult> {
    const timing = await this.timeBoth(options);
    const mine = summarize(timing.subject.perOp);
    const result: BenchResult = { id, value: 1e9 / mine.median, unit: 'ops/s', higherIsBetter: true };
    result.samples = mine.count;
    if (options.baseline && timing.baseline) {
      const theirs = summarize(timing.baseline.perOp);
      result.baseline = { name: options.baseline.name, value: 1e9 / theirs.median, unit: 'ops/s' };
      result.ratio = result.value / result.baseline.value;
    }
    return this.record(result, options);
  }

  /**
   * Records a figure measured by the caller (bits per key, bytes, peak RSS, a whole-run time). When a baseline
   * is given without a ratio, the ratio is computed.
   */
  record(result: BenchResult, options: Pick<CompareOptions, 'target' | 'note'> = {}): BenchResult {
    const complete: BenchResult = { ...result };
    if (complete.baseline && complete.ratio === undefined) complete.ratio = complete.value / complete.baseline.value;
    if (options.target) complete.target = judgeTarget(complete, options.target);
    if (options.note !== undefined) complete.note = options.note;
    this.results.push(complete);
    console.log(formatResult(complete));
    return complete;
  }
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });

export function formatNumber(value: number): string {
  return Number.isFinite(value) ? numberFormat.format(value) : String(value);
}

/** One human-readable line for a result. */
export function formatResult(result: BenchResult): string {
  let line = `${result.id}: ${formatNumber(result.value)} ${result.unit}`;
  if (result.p99 !== undefined) line += ` (p99 ${formatNumber(result.p99)})`;
  if (result.baseline && result.ratio !== undefined) {
    line += ` | baseline "${result.baseline.name}" ${formatNumber(result.baseline.value)} ${result.baseline.unit}`;
    line += ` | ratio ${formatNumber(result.ratio)}`;
  }
  if (result.target) line += result.target.met ? ' | target met' : ' | TARGET MISSED';
  return line;
}

/**
 * Runs a bench file's body. Under `strata-bench run` the results go to the file named by STRATA_BENCH_OUT;
 * run directly (`tsx bench/x.bench.ts`) they are only printed.
 */
export async function runBench(body: (bench: BenchSession) => Promise<void>): Promise<BenchResult[]> {
  const session = new BenchSession();
  await body(session);
  const out = process.env.STRATA_BENCH_OUT;
  if (out !== undefined && out !== '') writeFileSync(out, JSON.stringify(session.results));
  return session.results;
}
