// compareLedgerKeys has two implementations (src/compare.ts header): the WebAssembly comparator of src/key-order.wat
// and the JavaScript lockstep walker, which also owns every error. These properties check them against each other
// (the walker itself is checked against the stellar-base oracle in compare.property.test.ts):
//
//  1. Same order: compareKeysInWasm(a, b) equals the walker's result exactly (-1 / 0 / 1) on random pairs of any
//     type, pairs of each of the ten LedgerEntryTypes, sibling pairs, CONTRACT_DATA pairs sharing the contract, and
//     CONTRACT_DATA pairs around an SCVal of each of the 22 arms; inputs are subarrays at odd offsets of larger
//     junk-filled buffers.
//  2. Same verdict on malformed input: after one to three random mutations of either key or both (bit flips,
//     overwritten bytes, words overwritten with lengths, counts and discriminants at and around their bounds,
//     inserted, deleted, truncated and appended bytes), the wasm says MALFORMED exactly when the walker throws, and
//     otherwise returns the walker's order; the public compareLedgerKeys returns that order or throws a
//     LedgerKeyError with the walker's code, offset, field and message.
//  3. Nesting: SCVals nested 126..130 levels deep through vecs, maps and contract-instance storage, with a leaf or
//     an empty container innermost: both paths agree, and the wasm says MALFORMED exactly at TOO_DEEP.
//  4. Size: a key of exactly KEY_ORDER_CAPACITY bytes is ordered in wasm; a longer one is left to the walker
//     (TOO_LARGE) and compareLedgerKeys still orders it.
//  5. Bounds: for every bounded field (each discriminant and enum, bools and optional flags, the symbol and data
//     name lengths) a hand-built key with the largest legal value and one with the next value: the wasm accepts
//     exactly the first, and both paths agree on every pair of them (random mutations rarely hit a bound exactly).
//
// Negative control: property 2 run against a comparator that skips validation (the wasm with MALFORMED read as
// "equal") must find a counterexample, so the mutations do reach inputs that only validation rejects.
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareLedgerKeys, compareLedgerKeysByWalker } from '../src/compare.js';
import { LedgerKeyError } from '../src/errors.js';
import {
  compareKeysInWasm,
  KEY_ORDER_CAPACITY,
  KEY_ORDER_MALFORMED,
  KEY_ORDER_TOO_LARGE,
} from '../src/wasm-key-comparator.js';
import {
  embeddedArb,
  LEDGER_ENTRY_TYPES,
  ledgerKeyArb,
  ledgerKeyOfTypeArb,
  nearKeyPairArb,
  SCVAL_ARM_NAMES,
  sameTypeKeyPairArb,
  scValArmKeyPairArb,
  sharedContractKeyPairArb,
} from './arbitraries.js';

type Pair = [Uint8Array, Uint8Array];

/** A comparator's outcome: its order, or the LedgerKeyError it threw (anything else is a bug and propagates). */
function outcomeOf(comparator: (a: Uint8Array, b: Uint8Array) => number, a: Uint8Array, b: Uint8Array) {
  try {
    return comparator(a, b);
  } catch (error) {
    if (error instanceof LedgerKeyError) return error;
    throw error;
  }
}

/** The walker's outcome. */
const walk = (a: Uint8Array, b: Uint8Array): number | LedgerKeyError => outcomeOf(compareLedgerKeysByWalker, a, b);
/** The public compareLedgerKeys' outcome. */
const compare = (a: Uint8Array, b: Uint8Array): number | LedgerKeyError => outcomeOf(compareLedgerKeys, a, b);

const describeError = (error: LedgerKeyError): object => ({
  code: error.code,
  offset: error.offset,
  field: error.field,
  message: error.message,
});

/** Asserts properties 1 and 2 for one pair: the wasm status and order, and the public function's outcome. */
function expectSameOutcome(
  a: Uint8Array,
  b: Uint8Array,
  wasmCompare: (a: Uint8Array, b: Uint8Array) => number = compareKeysInWasm,
): void {
  const label = `${hex(a)} vs ${hex(b)}`;
  const expected = walk(a, b);
  const status = wasmCompare(a, b);
  if (expected instanceof LedgerKeyError) {
    expect(status, `${label}: the walker throws ${expected.message}`).toBe(KEY_ORDER_MALFORMED);
    const outcome = compare(a, b);
    expect(outcome, label).toBeInstanceOf(LedgerKeyError);
    expect(describeError(outcome as LedgerKeyError), label).toEqual(describeError(expected));
  } else {
    expect(status, label).toBe(expected);
    expect(compare(a, b), label).toBe(expected);
  }
}

/** Every kind of valid pair property 1 draws from. */
const keyPairArb: fc.Arbitrary<Pair> = fc.oneof(
  fc.tuple(ledgerKeyArb, ledgerKeyArb),
  sameTypeKeyPairArb,
  { weight: 3, arbitrary: nearKeyPairArb },
  { weight: 2, arbitrary: sharedContractKeyPairArb },
);

/** Values worth writing over a 4-byte word: huge lengths, bounds ± 1, negative and unknown discriminants. */
const INTERESTING_WORDS = [
  0xffffffff, 0x7fffffff, 0x80000000, 0x00010000, 0, 1, 2, 3, 4, 5, 9, 10, 16, 17, 19, 20, 21, 22, 31, 32, 33, 64, 65,
  0xfffffffe,
];

interface Mutation {
  kind: number;
  /** Where: a byte (or word) index modulo the length. */
  at: number;
  value: number;
  count: number;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  // Byte edits (0, 1) most often: inside ids and payloads they leave a valid key, so the orders get compared too.
  kind: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 1 }) }, fc.integer({ min: 2, max: 6 })),
  // Unbiased: fast-check's default bias towards small values would hit the type word far too often.
  at: fc.noBias(fc.nat()),
  value: fc.nat({ max: 0xffff }),
  count: fc.integer({ min: 1, max: 12 }),
});

/** One mutation of `input` (never in place); the same kinds as test/fuzz-runner.ts. */
function mutate(input: Uint8Array, { kind, at, value, count }: Mutation): Uint8Array {
  const bytes = Uint8Array.from(input);
  const index = bytes.length === 0 ? 0 : at % bytes.length;
  switch (kind) {
    case 0:
      // Flip one bit.
      if (bytes.length > 0) bytes[index] = bytes[index]! ^ (1 << (value & 7));
      return bytes;
    case 1:
      // Overwrite one byte.
      if (bytes.length > 0) bytes[index] = value & 0x100 ? value & 0xff : [0x00, 0x01, 0x7f, 0x80, 0xff][value % 5]!;
      return bytes;
    case 2: {
      // Insert bytes: a word or two at a word boundary most often (keeps the XDR alignment), else 1..12 anywhere.
      const aligned = (value & 3) !== 0;
      const length = aligned ? 4 * (1 + (count & 1)) : count;
      const where = aligned ? index & ~3 : index;
      const inserted = new Uint8Array(length).fill(value & 4 ? value >> 8 : 0);
      return Uint8Array.from([...bytes.subarray(0, where), ...inserted, ...bytes.subarray(where)]);
    }
    case 3:
      // Delete a run of bytes.
      return Uint8Array.from([...bytes.subarray(0, index), ...bytes.subarray(index + count)]);
    case 4:
      // Truncate.
      return bytes.subarray(0, index);
    case 5:
      // Append zeros or junk.
      return Uint8Array.from([...bytes, ...new Uint8Array(count).fill(value & 1 ? value >> 8 : 0)]);
    default: {
      // Overwrite an aligned word (a length, a count, a discriminant) with an interesting value.
      const words = Math.floor(bytes.length / 4);
      if (words === 0) return bytes;
      const word = INTERESTING_WORDS[value % INTERESTING_WORDS.length]!;
      new DataView(bytes.buffer).setUint32(4 * (at % words), word);
      return bytes;
    }
  }
}

/** A valid pair with one to three mutations applied to a random side each (the other side may stay valid). */
const mutatedPairArb: fc.Arbitrary<Pair> = fc
  .tuple(keyPairArb, fc.array(fc.tuple(fc.boolean(), mutationArb), { minLength: 1, maxLength: 3 }))
  .map(([[a, b], mutations]) => {
    let [left, right] = [a, b];
    for (const [onLeft, mutation] of mutations) {
      if (onLeft) left = mutate(left, mutation);
      else right = mutate(right, mutation);
    }
    return [left, right];
  });

describe('the wasm comparator and the JavaScript walker', () => {
  it('1. give the same order on every kind of valid pair, read from inside larger buffers', () => {
    fc.assert(
      fc.property(
        keyPairArb.chain(([a, b]) => fc.tuple(embeddedArb(a), embeddedArb(b))),
        ([a, b]) => {
          expectSameOutcome(a, b);
          expectSameOutcome(b, a);
          expectSameOutcome(a, a);
        },
      ),
      propertyParams({ numRuns: 5000 }),
    );
  });

  it('1. give the same order on pairs of each of the ten LedgerEntryTypes', () => {
    for (const type of LEDGER_ENTRY_TYPES) {
      fc.assert(
        fc.property(ledgerKeyOfTypeArb(type), ledgerKeyOfTypeArb(type), (a, b) => expectSameOutcome(a, b)),
        propertyParams({ numRuns: 300 }),
      );
    }
  });

  it('1. give the same order on sibling SCVals of each of the 22 arms', () => {
    expect(SCVAL_ARM_NAMES).toHaveLength(22);
    for (const arm of SCVAL_ARM_NAMES) {
      fc.assert(
        fc.property(scValArmKeyPairArb(arm), ([a, b]) => {
          expectSameOutcome(a, b);
          expectSameOutcome(b, a);
        }),
        propertyParams({ numRuns: 300 }),
      );
    }
  });

  it('2. agree on randomly mutated pairs: the same order, or MALFORMED exactly when the walker throws', () => {
    let valid = 0;
    const codes = new Set<string>();
    fc.assert(
      fc.property(mutatedPairArb, ([a, b]) => {
        expectSameOutcome(a, b);
        const outcome = walk(a, b);
        if (outcome instanceof LedgerKeyError) codes.add(outcome.code);
        else valid++;
      }),
      propertyParams({ numRuns: 20_000 }),
    );
    // The mutants must reach valid keys and every kind of malformation (TOO_DEEP is property 3's), or this property
    // would test little.
    expect(valid).toBeGreaterThan(1000);
    expect([...codes].sort()).toEqual(
      ['BAD_BOOL', 'BAD_DISCRIMINANT', 'BAD_PADDING', 'TOO_LONG', 'TRAILING_BYTES', 'TRUNCATED'].sort(),
    );
  });

  it('2. negative control: a comparator that skips validation is caught', () => {
    const unvalidated = (a: Uint8Array, b: Uint8Array): number => {
      const status = compareKeysInWasm(a, b);
      return status === KEY_ORDER_MALFORMED ? 0 : status;
    };
    const result = fc.check(
      fc.property(mutatedPairArb, ([a, b]) => expectSameOutcome(a, b, unvalidated)),
      propertyParams({ numRuns: 2000 }),
    );
    expect(result.failed).toBe(true);
  });
});

// ---- hand-built deep nesting and large keys ----------------------------------------------------------------------

const word = (value: number): number[] => [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];

/** A CONTRACT_DATA key (a CONTRACT address of 32 `contractByte`s, PERSISTENT) around the SCVal bytes `scVal`. */
function contractDataKey(scVal: readonly number[], contractByte = 7): Uint8Array {
  return Uint8Array.from([...word(6), ...word(1), ...new Array<number>(32).fill(contractByte), ...scVal, ...word(1)]);
}

type Container = 'vec' | 'map' | 'instance';

/**
 * An SCVal of `containers.length` nested containers (the outermost first; each holds one element, a map its nested
 * value as the key of its one entry, an instance in its storage) around `innermost`: a U32 leaf or an empty vec.
 */
function nestedScVal(containers: readonly Container[], innermost: 'leaf' | 'emptyVec', leafValue = 0): number[] {
  let value = innermost === 'leaf' ? [...word(3), ...word(leafValue)] : [...word(16), ...word(1), ...word(0)];
  for (const container of [...containers].reverse()) {
    if (container === 'vec') value = [...word(16), ...word(1), ...word(1), ...value];
    else if (container === 'map') value = [...word(17), ...word(1), ...word(1), ...value, ...word(1)];
    // SCV_CONTRACT_INSTANCE, STELLAR_ASSET executable, storage with one entry (the nested value, then VOID).
    else value = [...word(19), ...word(1), ...word(1), ...word(1), ...value, ...word(1)];
  }
  return value;
}

describe('limits', () => {
  it('3. agree on nesting around MAX_SCVAL_DEPTH, through vecs, maps and instance storage', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Container>('vec', 'map', 'instance'), { minLength: 126, maxLength: 130 }),
        fc.constantFrom<'leaf' | 'emptyVec'>('leaf', 'emptyVec'),
        fc.nat({ max: 2 }),
        fc.nat({ max: 2 }),
        (containers, innermost, leafA, leafB) => {
          const a = contractDataKey(nestedScVal(containers, innermost, leafA));
          const b = contractDataKey(nestedScVal(containers, innermost, leafB));
          expectSameOutcome(a, b);
          // The innermost value is at level containers.length + 1; MAX_SCVAL_DEPTH is 128.
          const tooDeep = containers.length + 1 > 128;
          expect(compareKeysInWasm(a, b) === KEY_ORDER_MALFORMED).toBe(tooDeep);
          if (tooDeep) expect((walk(a, b) as LedgerKeyError).code).toBe('TOO_DEEP');
        },
      ),
      propertyParams({ numRuns: 200 }),
    );
  });

  it('4. orders a key of exactly KEY_ORDER_CAPACITY bytes in wasm and leaves longer ones to the walker', () => {
    // type + address (40) + SCV_BYTES type and length (8) + content + durability (4).
    const bytesKey = (contentLength: number, lastByte: number): Uint8Array => {
      const content = new Array<number>(contentLength).fill(0xab);
      content[contentLength - 1] = lastByte;
      return contractDataKey([...word(13), ...word(contentLength), ...content]);
    };
    const atCapacity = KEY_ORDER_CAPACITY - 52;
    const [a, b] = [bytesKey(atCapacity, 1), bytesKey(atCapacity, 2)];
    expect(a.length).toBe(KEY_ORDER_CAPACITY);
    expect(compareKeysInWasm(a, b)).toBe(-1);
    expectSameOutcome(a, b);
    expectSameOutcome(b, a);

    const [c, d] = [bytesKey(atCapacity + 4, 2), bytesKey(atCapacity + 4, 1)];
    expect(compareKeysInWasm(c, d)).toBe(KEY_ORDER_TOO_LARGE);
    expect(compareKeysInWasm(a, d)).toBe(KEY_ORDER_TOO_LARGE);
    expect(compareLedgerKeys(c, d)).toBe(1);
    expect(compareLedgerKeys(a, d)).toBe(-1); // a's last content byte (1) is below d's at that position (0xab)
    expect(compareLedgerKeys(d, d)).toBe(0);
    expect(() => compareLedgerKeys(c.subarray(0, c.length - 1), d)).toThrow(LedgerKeyError);
  });

  it('5. agree at the bound of every bounded field', () => {
    const hash = (byte: number): number[] => new Array<number>(32).fill(byte);
    const padded = (length: number, byte: number): number[] => [
      ...word(length),
      ...new Array<number>(length).fill(byte),
      ...new Array<number>((4 - (length & 3)) & 3).fill(0),
    ];
    const cdKey = (scVal: number[], durability = 1, address = [...word(1), ...hash(7)]): Uint8Array =>
      Uint8Array.from([...word(6), ...address, ...scVal, ...word(durability)]);
    // [what, bytes, valid]
    const cases: [string, Uint8Array, boolean][] = [];
    const bound = (what: string, build: (value: number) => Uint8Array, largest: number): void => {
      cases.push([`${what} ${largest}`, build(largest), true], [`${what} ${largest + 1}`, build(largest + 1), false]);
    };
    bound('LedgerEntryType', (t) => Uint8Array.from([...word(t), ...hash(1)]), 9);
    bound('ConfigSettingID', (id) => Uint8Array.from([...word(8), ...word(id)]), 20);
    bound('AccountID type', (t) => Uint8Array.from([...word(0), ...word(t), ...hash(1)]), 0);
    bound(
      'TrustLineAsset type',
      (t) => Uint8Array.from([...word(1), ...word(0), ...hash(1), ...word(t), ...hash(2)]),
      3,
    );
    bound('data name length', (n) => Uint8Array.from([...word(3), ...word(0), ...hash(1), ...padded(n, 0x61)]), 64);
    bound('durability', (d) => cdKey([...word(1)], d), 1);
    bound('SCAddress type', (t) => cdKey([...word(1)], 1, [...word(t), ...hash(3)]), 4);
    bound(
      'claimable-balance SCAddress id type',
      (t) => cdKey([...word(1)], 1, [...word(3), ...word(t), ...hash(3)]),
      0,
    );
    bound('SCValType', (t) => cdKey([...word(t), ...word(0), ...word(5)]), 21);
    bound('SCV_BOOL', (v) => cdKey([...word(0), ...word(v)]), 1);
    bound('SCError type', (t) => cdKey([...word(2), ...word(t), ...word(9)]), 9);
    bound('SCErrorCode', (c) => cdKey([...word(2), ...word(9), ...word(c)]), 9);
    cases.push(['SCE_CONTRACT code 0xffffffff', cdKey([...word(2), ...word(0), ...word(0xffffffff)]), true]);
    bound('symbol length', (n) => cdKey([...word(15), ...padded(n, 0x62)]), 32);
    bound('vec flag', (f) => cdKey([...word(16), ...word(f), ...word(0)]), 1);
    bound('map flag', (f) => cdKey([...word(17), ...word(f), ...word(0)]), 1);
    bound('executable type', (t) => cdKey([...word(19), ...word(t), ...word(0)]), 1);
    bound('instance storage flag', (f) => cdKey([...word(19), ...word(1), ...word(f), ...word(0)]), 1);
    for (const [what, key, valid] of cases) {
      expect(compareKeysInWasm(key, key) !== KEY_ORDER_MALFORMED, what).toBe(valid);
      expect(walk(key, key) instanceof LedgerKeyError, what).toBe(!valid);
      for (const [, other] of cases) expectSameOutcome(key, other);
    }
  });
});
