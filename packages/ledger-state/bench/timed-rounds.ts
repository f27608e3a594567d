// Whole-run timing for benches whose subject is a state moved ledger by ledger (it cannot be called again on the same
// input, so mitata's repeated calls do not apply): each round runs the subject once, then the baseline once, so noise
// on the shared machine hits both; the figure is the median of the rounds' rates and the ratio that of the medians.
import type { BenchResult, BenchSession, Target } from '@strata/bench';
import { summarize } from '@strata/bench';

/** One timed run: how many operations it did and in how many seconds. */
export interface TimedRun {
  readonly ops: number;
  readonly seconds: number;
}

export interface RoundsOptions {
  readonly id: string;
  readonly unit: string;
  readonly subject: () => Promise<TimedRun>;
  readonly baseline: { readonly name: string; readonly run: () => Promise<TimedRun> };
  readonly target?: Omit<Target, 'met'>;
  /** What was measured; a function is called after the rounds (for facts the runs find out). */
  readonly note: string | (() => string);
}

/** Times `subject` and `baseline` alternately for `bench.rounds` rounds and records the medians of their rates. */
export async function recordRounds(bench: BenchSession, options: RoundsOptions): Promise<BenchResult> {
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let round = 1; round <= bench.rounds; round++) {
    const subject = await timed(options.subject);
    const baseline = await timed(options.baseline.run);
    mine.push(subject.ops / subject.seconds);
    theirs.push(baseline.ops / baseline.seconds);
    console.log(
      `  round ${round}/${bench.rounds}: ${rate(subject)} (${subject.ops} in ${subject.seconds.toFixed(2)} s), ` +
        `baseline ${rate(baseline)} (${baseline.ops} in ${baseline.seconds.toFixed(2)} s)`,
    );
  }
  const result: BenchResult = {
    id: options.id,
    value: summarize(mine).median,
    unit: options.unit,
    higherIsBetter: true,
    samples: mine.length,
    baseline: { name: options.baseline.name, value: summarize(theirs).median, unit: options.unit },
  };
  return bench.record(result, {
    ...(options.target === undefined ? {} : { target: options.target }),
    note: `${typeof options.note === 'string' ? options.note : options.note()}; median of ${mine.length} alternating round(s)`,
  });
}

/** Runs one side after a garbage collection (with --expose-gc, as strata-bench runs files), so neither pays for the other's. */
async function timed(run: () => Promise<TimedRun>): Promise<TimedRun> {
  globalThis.gc?.();
  return run();
}

function rate(run: TimedRun): string {
  return `${(run.ops / run.seconds).toFixed(1)}/s`;
}
