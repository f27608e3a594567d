import { describe, expect, it } from 'vitest';
import { BenchSession, formatResult, judgeTarget, summarize } from '../src/index.js';

describe('summarize', () => {
  it('takes the nearest-rank median and p99', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
    expect(summarize(values)).toEqual({ median: 50, p99: 99, count: 100 });
    expect(summarize([7])).toEqual({ median: 7, p99: 7, count: 1 });
  });

  it('is NaN for no samples rather than a made-up number', () => {
    expect(summarize([]).median).toBeNaN();
  });
});

describe('judgeTarget', () => {
  it('reads the goal in the direction of the figure', () => {
    expect(judgeTarget({ value: 6e6, higherIsBetter: true, ratio: 25 }, { value: 5e6, ratio: 20 }).met).toBe(true);
    expect(judgeTarget({ value: 6e6, higherIsBetter: true, ratio: 19 }, { value: 5e6, ratio: 20 }).met).toBe(false);
    expect(judgeTarget({ value: 70, higherIsBetter: false }, { value: 60 }).met).toBe(false);
    expect(judgeTarget({ value: 40, higherIsBetter: false }, { value: 60 }).met).toBe(true);
  });

  it('fails a ratio goal when there is no ratio', () => {
    expect(judgeTarget({ value: 1, higherIsBetter: true }, { ratio: 2 }).met).toBe(false);
  });
});

describe('BenchSession', () => {
  it('records a figure with its baseline, ratio and target', () => {
    const session = new BenchSession(1);
    const result = session.record(
      {
        id: 'x.bits-per-key',
        value: 2.5,
        unit: 'bits/key',
        higherIsBetter: false,
        baseline: { name: 'Map', value: 500, unit: 'bits/key' },
      },
      { target: { value: 3 }, note: 'n = 10' },
    );
    expect(result.ratio).toBe(0.005);
    expect(result.target).toEqual({ value: 3, met: true });
    expect(session.results).toEqual([result]);
    expect(formatResult(result)).toContain('ratio 0.005');
  });

  it('times a subject against its baseline and reports their ratio', async () => {
    const session = new BenchSession(1);
    const small = new Float64Array(16);
    const large = new Float64Array(16_384);
    const result = await session.latency('x.fill', {
      subject: { name: 'fill 16', fn: () => small.fill(1) },
      baseline: { name: 'fill 16k', fn: () => large.fill(1) },
    });
    expect(result.unit).toBe('ns/op');
    expect(result.samples).toBeGreaterThan(0);
    expect(result.p99).toBeGreaterThanOrEqual(result.value);
    expect(result.ratio).toBeCloseTo(result.value / (result.baseline?.value ?? Number.NaN), 12);
  });
});
