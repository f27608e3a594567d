// Pool statistics: counters by reason and path, and distributions of recent values (a ring of the last 1,024, so a
// snapshot describes current behaviour and memory stays bounded; count, sum and max cover the pool's whole life).

/** Why a memory left the pool. */
export type RetireReason =
  /** It grew during the execution (memory.size would not be `initial` for the next tenant). */
  | 'grew'
  /** Its buffer had another size than `initial` pages without growing (or the reset changed it). */
  | 'size-mismatch'
  /** The reset threw. */
  | 'reset-error'
  /** Verification found a non-zero byte after the reset: a bug or a broken backend, worth an alert. */
  | 'verify-failed'
  /** Keeping it would exceed `keepResidentBytes` and nothing can decommit it. */
  | 'over-budget'
  /** `maxIdle` memories were already idle. */
  | 'idle-full'
  /** Its resident set went stale and, without the native helper, dropping it is the only way to shrink it. */
  | 'relearn'
  /** Dropped by `trim()`. */
  | 'trimmed'
  /** The pool was closed. */
  | 'closed'
  /** Never reused by design: the `fresh` strategy, or an unpooled memory handed out when the pool was exhausted. */
  | 'no-reuse';

export const RETIRE_REASONS: readonly RetireReason[] = [
  'grew',
  'size-mismatch',
  'reset-error',
  'verify-failed',
  'over-budget',
  'idle-full',
  'relearn',
  'trimmed',
  'closed',
  'no-reuse',
];

/** A summary of recent values. Quantiles are nearest-rank over the last `window` values; NaN when empty. */
export interface DistributionSnapshot {
  count: number;
  mean: number;
  max: number;
  /** Values the quantiles describe (at most 1,024, the most recent). */
  window: number;
  p50: number;
  p90: number;
  p99: number;
}

const WINDOW = 1024;

export class Distribution {
  private readonly ring = new Float64Array(WINDOW);
  private count = 0;
  private sum = 0;
  private max = Number.NaN;

  add(value: number): void {
    this.ring[this.count % WINDOW] = value;
    this.count++;
    this.sum += value;
    if (!(value <= this.max)) this.max = value;
  }

  snapshot(): DistributionSnapshot {
    const window = Math.min(this.count, WINDOW);
    const sorted = this.ring.slice(0, window).sort();
    const quantile = (q: number) =>
      window === 0 ? Number.NaN : sorted[Math.min(window - 1, Math.max(0, Math.ceil(q * window) - 1))]!;
    return {
      count: this.count,
      mean: this.count === 0 ? Number.NaN : this.sum / this.count,
      max: this.max,
      window,
      p50: quantile(0.5),
      p90: quantile(0.9),
      p99: quantile(0.99),
    };
  }
}
