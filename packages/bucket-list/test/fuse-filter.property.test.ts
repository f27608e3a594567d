// The 16-bit binary fuse filter over random multisets of keys. Properties checked:
//  1. No false negatives: every key a filter was built from is reported as maybe-present, for any multiset of keys
//     (duplicates and empty keys included) of up to 600 keys, under any 64-bit seed.
//  2. Fewer than two distinct keys give no filter; two or more always give one.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuseFilterOf } from './support.js';

const distinctCount = (keys: readonly Uint8Array[]): number =>
  new Set(keys.map((key) => Buffer.from(key).toString('hex'))).size;

describe('BinaryFuse16', () => {
  it('has no false negatives for any multiset of keys (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 12 }), { maxLength: 600 }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (keys, seed) => {
          const filter = fuseFilterOf(keys, seed);
          if (distinctCount(keys) < 2) {
            expect(filter).toBeUndefined();
            return;
          }
          expect(filter).toBeDefined();
          for (const key of keys) expect(filter!.mayContain(key)).toBe(true);
        },
      ),
      propertyParams({ numRuns: 200 }),
    );
  });
});
