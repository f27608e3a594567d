// The 16-bit binary fuse filter on chosen inputs (random multisets of keys: fuse-filter.property.test.ts). Checked:
//  1. No false negatives: every key a filter was built from is reported as maybe-present, for every size from 2 to
//     400, for repeated keys, and for hash sets with adversarial structure (consecutive integers, one bit apart).
//  2. Fewer than two distinct keys give no filter; construction terminates on every structured hash set.
//  3. False-positive rate over 100 000 absent keys is below 0.1 % (the design rate is 2^-16 ≈ 0.0015 %).
//  4. Size: about 1.125 × 2 bytes per key for large sets (the paper's 3-wise figure).
//  5. fromParts accepts what a built filter holds and refuses shapes that cannot be a filter.
//  6. Negative control: a filter with a damaged fingerprint loses a member, which property 1 would catch.
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { BinaryFuse16, buildFuseFilter, fuseDimensions } from '../src/bucket-index/fuse-filter.js';
import { fuseFilterOf } from './support.js';

function randomKeys(count: number, seed: number, length = 36): Uint8Array[] {
  const random = seededRandom(seed);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const key = new Uint8Array(length);
    for (let j = 0; j < length; j++) key[j] = Math.floor(random() * 256);
    keys.push(key);
  }
  return keys;
}

describe('BinaryFuse16', () => {
  it('builds for every size from 2 to 400 and for repeated keys', () => {
    const keys = randomKeys(400, 1);
    for (let size = 2; size <= 400; size++) {
      const filter = fuseFilterOf(keys.slice(0, size));
      expect(filter, `size ${size}`).toBeDefined();
      for (const key of keys.slice(0, size)) expect(filter!.mayContain(key)).toBe(true);
    }
    // Each key many times over: duplicates are one member.
    const repeated = [...keys.slice(0, 5), ...keys.slice(0, 5), ...keys.slice(0, 5)];
    const filter = fuseFilterOf(repeated)!;
    for (const key of repeated) expect(filter.mayContain(key)).toBe(true);
    expect(fuseFilterOf([keys[0]!, keys[0]!, keys[0]!])).toBeUndefined();
    expect(fuseFilterOf([])).toBeUndefined();
  });

  it('terminates with no false negatives on structured hash sets', () => {
    // Hash values straight into the builder: consecutive integers, single bits, all-equal.
    const consecutive = new BigUint64Array(5000).map((_, i) => BigInt(i));
    const bits = new BigUint64Array(64).map((_, i) => 1n << BigInt(i));
    for (const hashes of [consecutive, bits]) {
      const members = hashes.slice();
      const filter = buildFuseFilter(hashes, 0n)!;
      expect(filter).toBeDefined();
      const words = new Uint32Array(members.buffer);
      const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
      for (let i = 0; i < members.length; i++) {
        const hi = words[2 * i + (little ? 1 : 0)]!;
        const lo = words[2 * i + (little ? 0 : 1)]!;
        expect(filter.mayContainHash(hi, lo)).toBe(true);
      }
    }
    expect(buildFuseFilter(new BigUint64Array(1000).fill(42n), 0n)).toBeUndefined();
  });

  it('has a false-positive rate below 0.1 % over 100 000 absent keys', () => {
    const members = randomKeys(50_000, 2);
    const filter = fuseFilterOf(members)!;
    const absent = randomKeys(100_000, 3);
    let falsePositives = 0;
    for (const key of absent) if (filter.mayContain(key)) falsePositives++;
    // Expected ≈ 100 000 / 65 536 ≈ 1.5; the bound is 100.
    expect(falsePositives).toBeLessThan(100);
  });

  it('takes about 2.25 bytes per key for large sets', () => {
    const filter = fuseFilterOf(randomKeys(100_000, 4))!;
    expect(filter.fingerprints.byteLength / 100_000).toBeLessThan(2.4);
    expect(fuseDimensions(1_000_000).segmentLength).toBeLessThanOrEqual(1 << 18);
  });

  it('round-trips through fromParts and refuses impossible shapes', () => {
    const keys = randomKeys(1000, 5);
    const filter = fuseFilterOf(keys)!;
    const copy = BinaryFuse16.fromParts(
      filter.hashSeed,
      filter.mixSeed,
      filter.segmentLength,
      filter.segmentCount,
      filter.fingerprints.slice(),
    );
    expect(copy).toBeInstanceOf(BinaryFuse16);
    for (const key of keys) expect((copy as BinaryFuse16).mayContain(key)).toBe(true);
    const { hashSeed, mixSeed, segmentLength, segmentCount, fingerprints } = filter;
    expect(BinaryFuse16.fromParts(hashSeed, mixSeed, segmentLength + 1, segmentCount, fingerprints)).toMatch(
      /segment length/,
    );
    expect(BinaryFuse16.fromParts(hashSeed, mixSeed, 1 << 19, segmentCount, fingerprints)).toMatch(/segment length/);
    expect(BinaryFuse16.fromParts(hashSeed, mixSeed, segmentLength, 0, fingerprints)).toMatch(/segment count/);
    expect(BinaryFuse16.fromParts(hashSeed, mixSeed, segmentLength, segmentCount + 1, fingerprints)).toMatch(
      /fingerprints/,
    );
    expect(BinaryFuse16.fromParts(hashSeed, -1, segmentLength, segmentCount, fingerprints)).toMatch(/mix seed/);
  });

  it('negative control: a damaged fingerprint loses a member', () => {
    const keys = randomKeys(200, 6);
    const filter = fuseFilterOf(keys)!;
    const damaged = filter.fingerprints.slice();
    for (let i = 0; i < damaged.length; i++) damaged[i] = damaged[i]! ^ 0x5a5a;
    const broken = BinaryFuse16.fromParts(
      filter.hashSeed,
      filter.mixSeed,
      filter.segmentLength,
      filter.segmentCount,
      damaged,
    );
    const lost = keys.filter((key) => !(broken as BinaryFuse16).mayContain(key));
    expect(lost.length).toBeGreaterThan(0);
  });
});
