// Order keys against the comparator (itself checked against the stellar-base oracle): for random keys of every
// type, every SCVal arm, near pairs and shared-contract pairs, memcmp of the order keys has the sign of
// compareLedgerKeys, and equal order keys mean equal keys; an entry's order key is its key's; the spec §2.5
// counterexamples; malformed input throws LedgerKeyError.
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareLedgerKeys,
  encodeLedgerKey,
  LedgerKeyError,
  ledgerKeyOfEntry,
  OrderKey,
  orderKeyOf,
} from '../src/index.js';
import {
  ledgerEntryArb,
  ledgerKeyArb,
  nearKeyPairArb,
  SCVAL_ARM_NAMES,
  sameTypeKeyPairArb,
  scValArmKeyPairArb,
  sharedContractKeyPairArb,
} from './arbitraries.js';

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

function orderOf(a: Uint8Array, b: Uint8Array): number {
  return sign(Buffer.compare(orderKeyOf(a), orderKeyOf(b)));
}

function agrees([a, b]: [Uint8Array, Uint8Array]): void {
  const context = `${hex(a)} vs ${hex(b)}`;
  expect(orderOf(a, b), context).toBe(sign(compareLedgerKeys(a, b)));
  expect(hex(orderKeyOf(a)) === hex(orderKeyOf(b)), context).toBe(hex(a) === hex(b));
}

describe('order keys sort as compareLedgerKeys', () => {
  it('random keys of every type', () => {
    fc.assert(fc.property(fc.tuple(ledgerKeyArb, ledgerKeyArb), agrees), propertyParams({ numRuns: 1500 }));
  });
  it('same-type, near and shared-contract pairs (long common prefixes)', () => {
    for (const arb of [sameTypeKeyPairArb, nearKeyPairArb, sharedContractKeyPairArb]) {
      fc.assert(fc.property(arb, agrees), propertyParams({ numRuns: 800 }));
    }
  });
  for (const arm of SCVAL_ARM_NAMES) {
    it(`CONTRACT_DATA keys differing in an ${arm} SCVal`, () => {
      fc.assert(fc.property(scValArmKeyPairArb(arm), agrees), propertyParams({ numRuns: 150 }));
    });
  }
  it("an entry's order key is its key's", () => {
    fc.assert(
      fc.property(ledgerEntryArb, (entry) => {
        expect(new OrderKey().setFromEntry(entry).toBytes()).toEqual(orderKeyOf(ledgerKeyOfEntry(entry)));
      }),
      propertyParams({ numRuns: 800 }),
    );
  });
});

describe('order keys: the spec §2.5 counterexamples (byte order differs, order keys do not)', () => {
  const account = new Uint8Array(32).fill(1);
  const contract = { type: 'contract' as const, contractId: new Uint8Array(32).fill(2) };
  const data = (name: string) => encodeLedgerKey({ type: 'data', accountId: account, dataName: name });
  const cd = (
    key: Parameters<typeof encodeLedgerKey>[0] extends infer K
      ? K extends { type: 'contractData'; key: infer V }
        ? V
        : never
      : never,
  ) => encodeLedgerKey({ type: 'contractData', contract, key, durability: 'persistent' });
  it('DATA "ab" < "b"', () => expect(orderOf(data('ab'), data('b'))).toBe(-1));
  it('SCV_I64 -1 < 1', () => expect(orderOf(cd({ type: 'i64', value: -1n }), cd({ type: 'i64', value: 1n }))).toBe(-1));
  it('SYMBOL "Allowance" < "Balance"', () =>
    expect(orderOf(cd({ type: 'symbol', value: 'Allowance' }), cd({ type: 'symbol', value: 'Balance' }))).toBe(-1));
  it('VEC [Symbol "a", U32 1] < [Symbol "b"]', () =>
    expect(
      orderOf(
        cd({
          type: 'vec',
          value: [
            { type: 'symbol', value: 'a' },
            { type: 'u32', value: 1 },
          ],
        }),
        cd({ type: 'vec', value: [{ type: 'symbol', value: 'b' }] }),
      ),
    ).toBe(-1));
  it('I128 hi -1 < hi 0', () =>
    expect(orderOf(cd({ type: 'i128', value: -1n }), cd({ type: 'i128', value: 1n << 64n }))).toBe(-1));
  it('bytes with zero bytes: "a" < "a\\0" < "a\\0\\0" < "a\\1"', () => {
    const bytes = (...values: number[]) => cd({ type: 'bytes', value: new Uint8Array(values) });
    const ordered = [bytes(0x61), bytes(0x61, 0), bytes(0x61, 0, 0), bytes(0x61, 1)];
    for (let i = 1; i < ordered.length; i++) expect(orderOf(ordered[i - 1]!, ordered[i]!)).toBe(-1);
  });
  it('negative control: raw XDR bytes get these wrong', () => {
    expect(sign(Buffer.compare(data('ab'), data('b')))).toBe(1);
  });
});

describe('order keys: malformed input', () => {
  it('throws LedgerKeyError, never anything else', () => {
    fc.assert(
      fc.property(ledgerKeyArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (key, at, flip) => {
        const broken = new Uint8Array(key);
        broken[at % broken.length]! ^= flip;
        try {
          new OrderKey().setFromKey(broken);
        } catch (error) {
          expect(error).toBeInstanceOf(LedgerKeyError);
        }
        expect(() => new OrderKey().setFromKey(key.subarray(0, key.length - 4))).toThrow(LedgerKeyError);
      }),
      propertyParams({ numRuns: 500 }),
    );
  });
});
