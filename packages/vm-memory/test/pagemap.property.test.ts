// The page verdict of the pure-JS pagemap reader against an oracle built from the decoded entry bits. Properties:
//  1. for any 64-bit pagemap entry and either rule, `pageVerdict` (which reads only the entry's high 32 bits, on the
//     reset path) says DIRTY for swapped or present-and-exclusive pages, CHECK for other present pages under the
//     conservative rule, and CLEAN otherwise, as `decodePagemapEntry`'s flags say;
//  2. negative control: a verdict that ignores the swapped bit (the gap of Wasmtime PR #14357) fails the property.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePagemapEntry, type PagemapRule, PageVerdict, pageVerdict } from '../src/pagemap.js';

const high = (entry: bigint) => Number(entry >> 32n);

/** Property 1 for a verdict function. */
const agreesWithOracle = (verdict: (entryHigh: number, rule: PagemapRule) => number) =>
  fc.property(
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    fc.constantFrom<PagemapRule>('conservative', 'exclusive'),
    (entry, rule) => {
      const flags = decodePagemapEntry(entry);
      const expected =
        flags.swapped || (flags.present && flags.exclusive)
          ? PageVerdict.DIRTY
          : flags.present && rule === 'conservative'
            ? PageVerdict.CHECK
            : PageVerdict.CLEAN;
      expect(verdict(high(entry), rule)).toBe(expected);
    },
  );

describe('page verdicts', () => {
  it('1. agree with a BigInt oracle for any 64-bit entry', () => {
    fc.assert(agreesWithOracle(pageVerdict), propertyParams({ numRuns: 2000 }));
  });

  it('2. negative control: a verdict blind to swapped-out pages is caught', () => {
    const swappedBit = 1 << (62 - 32);
    const blind = (entryHigh: number, rule: PagemapRule) => pageVerdict(entryHigh & ~swappedBit, rule);
    expect(fc.check(agreesWithOracle(blind), { numRuns: 2000, seed: 16 }).failed).toBe(true);
  });
});
