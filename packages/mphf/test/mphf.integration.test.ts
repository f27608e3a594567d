// The size the cold tier needs: 10 000 000 random 16-byte keys (about five chunks' worth of index terms), built
// once, checked to be a bijection onto [0, n) with a one-byte-per-slot bitmap, and within the space bound.
// Slow by unit-test standards (a few seconds per step on two cores), so it lives in its own file.
import { describe, expect, it } from 'vitest';
import { buildMphf, checkBijection, openMphf } from '../src/index.js';
import { randomPackedKeys } from './key-sets.js';

describe('10 million keys', () => {
  it('builds a bijection onto [0, 10 000 000) in at most 3 bits per key', () => {
    const count = 10_000_000;
    const packed = randomPackedKeys(count, 2026);
    const bytes = buildMphf({ bytes: packed, keyLength: 16 });
    expect((bytes.length * 8) / count).toBeLessThanOrEqual(3);
    const mphf = openMphf(bytes);
    expect(mphf.size).toBe(count);
    const report = checkBijection(mphf, { bytes: packed, keyLength: 16 });
    expect(report.detail).toBe(`${count} keys map one-to-one onto [0, ${count})`);
    expect(report.ok).toBe(true);
  });
});
