// Property tests of the key order against the oracle (test/oracle.ts: decode with @stellar/stellar-base, compare
// structurally per spec §2.2–2.4). Keys come from test/arbitraries.ts, built with stellar-base, never with the
// engine's writers. Properties:
//
//  1. Sign agreement: sign(compareLedgerKeys(a, b)) == sign(oracle(a, b)) on random pairs of any type, on pairs of
//     one type, on sibling pairs (one field changed, deep in an SCVal if need be) and on CONTRACT_DATA pairs
//     sharing the contract, and on CONTRACT_DATA pairs around an SCVal of each of the 22 arms and a sibling of it
//     (same arm, nearby payload: one limb of an int128 changed, a vec one element off...); the engine reads its
//     inputs from inside larger buffers at odd offsets.
//  2. Antisymmetry: sign(compare(a, b)) == -sign(compare(b, a)), and compare(a, a) == 0.
//  3. Transitivity: sorting clusters of related keys with compareLedgerKeys gives the same order as sorting them
//     with the oracle, every adjacent pair is ordered by the oracle, and compare is transitive on triples.
//  4. Equality: compareLedgerKeys(a, b) == 0 iff the canonical XDR bytes are equal, and ledgerKeysEqual agrees.
//  5. Entries: ledgerKeyOfEntry(e) == the oracle's key of e (byte for byte), and compareEntryToKey /
//     compareLedgerEntries have the sign of compareLedgerKeys on the keys (and of the oracle).
//  6. Bucket entries: compareBucketEntries (and compareHotArchiveBucketEntries) agree with the oracle: METAENTRY
//     sorts first, INIT/LIVE/DEAD of one key compare 0, otherwise the key order; the key-only variants and
//     compareKeyedRecordsAt (records in place inside larger buffers) give the same order.
//  8. In place in wasm: KeyedRecordArena.compareAt, on keys, entries and bucket entries copied into an arena between
//     junk bytes, has the sign of the oracle (properties 1, 5 and 6 check it alongside the JavaScript paths).
//  7. TTL keys: ttlKeyOf(k) == the oracle's TTL key (SHA-256 of the key XDR) for CONTRACT_DATA / CONTRACT_CODE,
//     and throws LedgerKeyError NOT_SOROBAN_KEY for every other type.
//
// Negative control: the same sign-agreement property run with a plain byte comparison of the XDR must find a
// counterexample, so property 1 can fail.
import { xdr } from '@stellar/stellar-base';
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareBucketEntries,
  compareBucketEntryKeys,
  compareEntryToKey,
  compareHotArchiveBucketEntries,
  compareHotArchiveBucketEntryKeys,
  compareKeyedRecordsAt,
  compareLedgerEntries,
  compareLedgerKeys,
  KeyedRecordArena,
  LedgerKeyError,
  ledgerKeyOfEntry,
  ledgerKeysEqual,
  ttlKeyOf,
} from '../src/index.js';
import {
  bucketEntryPairArb,
  embeddedArb,
  hotArchiveBucketEntryPairArb,
  keyClusterArb,
  LEDGER_ENTRY_TYPES,
  ledgerEntryArb,
  ledgerKeyArb,
  ledgerKeyOfTypeArb,
  nearEntryPairArb,
  nearKeyPairArb,
  SCVAL_ARM_NAMES,
  sameTypeKeyPairArb,
  scValArmKeyPairArb,
  sharedContractKeyPairArb,
} from './arbitraries.js';
import {
  oracleCompareBucketEntries,
  oracleCompareEntryToKey,
  oracleCompareHotArchiveBucketEntries,
  oracleCompareLedgerEntries,
  oracleCompareLedgerKeys,
  oracleLedgerKeyOfEntry,
  oracleTtlKey,
  signOf,
} from './oracle.js';

type Pair = [Uint8Array, Uint8Array];

/** -order without producing -0 (toBe compares with Object.is). */
const negate = (order: -1 | 0 | 1): -1 | 0 | 1 => (order === 0 ? 0 : order === 1 ? -1 : 1);
const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Every kind of pair property 1 draws from. */
const keyPairArb: fc.Arbitrary<Pair> = fc.oneof(
  fc.tuple(ledgerKeyArb, ledgerKeyArb),
  sameTypeKeyPairArb,
  { weight: 3, arbitrary: nearKeyPairArb },
  sharedContractKeyPairArb,
);

/** A pair plus copies of both sides placed inside larger junk-filled buffers, for the engine to read. */
const embeddedPairArb = keyPairArb.chain(([a, b]) =>
  fc.tuple(fc.constant<Pair>([a, b]), embeddedArb(a), embeddedArb(b)),
);

/** One arena for the file (property 8): each comparison copies its two records in, with junk bytes around them. */
const arena = new KeyedRecordArena(1 << 20);

/** arena.compareAt of `a` and `b` (each a LedgerEntry when its flag is set, else a LedgerKey) placed in the arena. */
function compareInArena(a: Uint8Array, aIsEntry: boolean, b: Uint8Array, bIsEntry: boolean): number {
  const bytes = arena.bytes;
  const pa = 8;
  const pb = pa + a.length + 12; // records are word multiples: both stay 4-aligned
  expect(pb + b.length + 16).toBeLessThanOrEqual(bytes.length);
  bytes.fill(0xa5, 0, pb + b.length + 16);
  bytes.set(a, pa);
  bytes.set(b, pb);
  return arena.compareAt(pa, aIsEntry, pb, bIsEntry);
}

function typeOfKey(key: Uint8Array): number {
  return Buffer.from(key).readInt32BE(0);
}

describe('compareLedgerKeys against the oracle', () => {
  it('1. has the sign of the oracle on every kind of pair', () => {
    fc.assert(
      fc.property(embeddedPairArb, ([[a, b], aInside, bInside]) => {
        const expected = oracleCompareLedgerKeys(a, b);
        expect(signOf(compareLedgerKeys(aInside, bInside)), `${hex(a)} vs ${hex(b)}`).toBe(expected);
        expect(signOf(compareInArena(a, false, b, false)), `in an arena: ${hex(a)} vs ${hex(b)}`).toBe(expected);
      }),
      propertyParams({ numRuns: 10_000 }),
    );
  });

  it('1. has the sign of the oracle on pairs of every LedgerEntryType', () => {
    for (const type of LEDGER_ENTRY_TYPES) {
      fc.assert(
        fc.property(ledgerKeyOfTypeArb(type), ledgerKeyOfTypeArb(type), (a, b) => {
          expect(signOf(compareLedgerKeys(a, b)), `type ${type}: ${hex(a)} vs ${hex(b)}`).toBe(
            oracleCompareLedgerKeys(a, b),
          );
        }),
        propertyParams({ numRuns: 400 }),
      );
    }
  });

  it('1. has the sign of the oracle on sibling SCVals of each of the 22 arms', () => {
    expect(SCVAL_ARM_NAMES).toHaveLength(22);
    for (const arm of SCVAL_ARM_NAMES) {
      fc.assert(
        fc.property(scValArmKeyPairArb(arm), ([a, b]) => {
          expect(signOf(compareLedgerKeys(a, b)), `${arm}: ${hex(a)} vs ${hex(b)}`).toBe(oracleCompareLedgerKeys(a, b));
        }),
        propertyParams({ numRuns: 400 }),
      );
    }
  });

  it('2. is antisymmetric and reflexive', () => {
    fc.assert(
      fc.property(keyPairArb, ([a, b]) => {
        expect(signOf(compareLedgerKeys(a, b)), `${hex(a)} vs ${hex(b)}`).toBe(negate(signOf(compareLedgerKeys(b, a))));
        expect(compareLedgerKeys(a, a)).toBe(0);
        expect(compareLedgerKeys(a, new Uint8Array(a))).toBe(0);
      }),
      propertyParams({ numRuns: 3000 }),
    );
  });

  it('3. sorts clusters of related keys exactly as the oracle does', () => {
    fc.assert(
      fc.property(fc.array(keyClusterArb, { minLength: 1, maxLength: 4 }), (clusters) => {
        const keys = clusters.flat();
        const byEngine = [...keys].sort(compareLedgerKeys);
        for (let i = 1; i < byEngine.length; i++) {
          const previous = byEngine[i - 1] as Uint8Array;
          const current = byEngine[i] as Uint8Array;
          expect(
            oracleCompareLedgerKeys(previous, current),
            `${hex(previous)} before ${hex(current)}`,
          ).toBeLessThanOrEqual(0);
        }
        const byOracle = [...keys].sort(oracleCompareLedgerKeys);
        // Keys that compare equal are byte-identical (property 4), so the two orders must match byte for byte.
        expect(byEngine.map(hex)).toEqual(byOracle.map(hex));
      }),
      propertyParams({ numRuns: 800 }),
    );
  });

  it('3. is transitive on triples of related keys', () => {
    fc.assert(
      fc.property(keyClusterArb, fc.nat(), fc.nat(), fc.nat(), (cluster, i, j, k) => {
        const pick = (n: number): Uint8Array => cluster[n % cluster.length] as Uint8Array;
        const [a, b, c] = [pick(i), pick(j), pick(k)].sort(compareLedgerKeys) as [Uint8Array, Uint8Array, Uint8Array];
        expect(compareLedgerKeys(a, b)).toBeLessThanOrEqual(0);
        expect(compareLedgerKeys(b, c)).toBeLessThanOrEqual(0);
        expect(compareLedgerKeys(a, c), `${hex(a)} / ${hex(b)} / ${hex(c)}`).toBeLessThanOrEqual(0);
      }),
      propertyParams({ numRuns: 1500 }),
    );
  });

  it('4. compares 0 exactly when the canonical bytes are equal, and ledgerKeysEqual agrees', () => {
    fc.assert(
      fc.property(keyPairArb, ([a, b]) => {
        const same = bytesEqual(a, b);
        expect(compareLedgerKeys(a, b) === 0, `${hex(a)} vs ${hex(b)}`).toBe(same);
        expect(ledgerKeysEqual(a, b)).toBe(same);
        expect(oracleCompareLedgerKeys(a, b) === 0).toBe(same);
      }),
      propertyParams({ numRuns: 3000 }),
    );
  });
});

describe('keys of entries', () => {
  it('5. ledgerKeyOfEntry is the oracle key, byte for byte, for entries of every type', () => {
    fc.assert(
      fc.property(ledgerEntryArb, (entry) => {
        expect(hex(ledgerKeyOfEntry(entry)), hex(entry)).toBe(hex(oracleLedgerKeyOfEntry(entry)));
      }),
      propertyParams({ numRuns: 2000 }),
    );
  });

  it('5. compareEntryToKey and compareLedgerEntries order entries by their keys', () => {
    fc.assert(
      fc.property(nearEntryPairArb, ([entryA, entryB]) => {
        const keyA = oracleLedgerKeyOfEntry(entryA);
        const keyB = oracleLedgerKeyOfEntry(entryB);
        const expected = oracleCompareLedgerKeys(keyA, keyB);
        const context = `${hex(entryA)} vs ${hex(entryB)}`;
        expect(signOf(compareLedgerKeys(keyA, keyB)), context).toBe(expected);
        expect(signOf(compareEntryToKey(entryA, keyB)), context).toBe(expected);
        expect(signOf(compareEntryToKey(entryB, keyA)), context).toBe(negate(expected));
        expect(signOf(compareLedgerEntries(entryA, entryB)), context).toBe(expected);
        expect(signOf(compareInArena(entryA, true, entryB, true)), context).toBe(expected);
        expect(signOf(compareInArena(entryA, true, keyB, false)), context).toBe(expected);
        expect(signOf(compareInArena(keyA, false, entryB, true)), context).toBe(expected);
        expect(oracleCompareEntryToKey(entryA, keyB)).toBe(expected);
        expect(oracleCompareLedgerEntries(entryA, entryB)).toBe(expected);
      }),
      propertyParams({ numRuns: 2000 }),
    );
  });
});

describe('bucket entries', () => {
  const META = -1;
  const bucketType = (entry: Uint8Array): number => Buffer.from(entry).readInt32BE(0);

  it('6. compareBucketEntries: META first, INIT/LIVE/DEAD of one key equal, else the key order', () => {
    fc.assert(
      fc.property(bucketEntryPairArb, ([a, b]) => {
        const expected = oracleCompareBucketEntries(a, b);
        const got = signOf(compareBucketEntries(a, b));
        const context = `${hex(a)} vs ${hex(b)}`;
        expect(got, context).toBe(expected);
        expect(signOf(compareBucketEntries(b, a)), context).toBe(negate(expected));
        // The key-only variant for pre-validated records gives the same order.
        expect(signOf(compareBucketEntryKeys(a, b)), context).toBe(expected);
        // So does the in-place variant, on the records embedded at odd places inside larger buffers with junk after.
        const aMetaRecord = bucketType(a) === META;
        const bMetaRecord = bucketType(b) === META;
        if (!aMetaRecord && !bMetaRecord) {
          const embed = (entry: Uint8Array, at: number): Uint8Array => {
            const out = new Uint8Array(at + entry.length + 12).fill(0xa5);
            out.set(entry, at);
            return out;
          };
          const [bufferA, bufferB] = [embed(a, 8), embed(b, 20)];
          const inPlace = compareKeyedRecordsAt(bufferA, 12, bucketType(a) !== 1, bufferB, 24, bucketType(b) !== 1);
          expect(signOf(inPlace), context).toBe(expected);
          const inArena = compareInArena(a.subarray(4), bucketType(a) !== 1, b.subarray(4), bucketType(b) !== 1);
          expect(signOf(inArena), context).toBe(expected);
        }
        // The two rules that are not the key order, spelled out.
        const aMeta = bucketType(a) === META;
        const bMeta = bucketType(b) === META;
        if (aMeta && !bMeta) expect(got, context).toBe(-1);
        if (aMeta && bMeta) expect(got, context).toBe(0);
        if (!aMeta && !bMeta) {
          const keyOf = (entry: Uint8Array): Uint8Array => {
            const decoded = xdr.BucketEntry.fromXDR(Buffer.from(entry));
            return decoded.switch().name === 'deadentry'
              ? new Uint8Array(decoded.deadEntry().toXDR())
              : oracleLedgerKeyOfEntry(new Uint8Array(decoded.liveEntry().toXDR()));
          };
          expect(got, context).toBe(signOf(compareLedgerKeys(keyOf(a), keyOf(b))));
        }
      }),
      propertyParams({ numRuns: 2000 }),
    );
  });

  it('6. compareHotArchiveBucketEntries agrees with the oracle', () => {
    fc.assert(
      fc.property(hotArchiveBucketEntryPairArb, ([a, b]) => {
        const expected = oracleCompareHotArchiveBucketEntries(a, b);
        expect(signOf(compareHotArchiveBucketEntries(a, b)), `${hex(a)} vs ${hex(b)}`).toBe(expected);
        expect(signOf(compareHotArchiveBucketEntries(b, a)), `${hex(b)} vs ${hex(a)}`).toBe(negate(expected));
        expect(signOf(compareHotArchiveBucketEntryKeys(a, b)), `${hex(a)} vs ${hex(b)}`).toBe(expected);
      }),
      propertyParams({ numRuns: 1500 }),
    );
  });
});

describe('TTL keys', () => {
  it('7. ttlKeyOf is the oracle TTL key for Soroban keys and NOT_SOROBAN_KEY for the rest', () => {
    fc.assert(
      fc.property(ledgerKeyArb, (key) => {
        const expected = oracleTtlKey(key);
        if (expected !== undefined) {
          expect(hex(ttlKeyOf(key)), hex(key)).toBe(hex(expected));
          return;
        }
        let thrown: unknown;
        try {
          ttlKeyOf(key);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, `type ${typeOfKey(key)}: ${hex(key)}`).toBeInstanceOf(LedgerKeyError);
        expect((thrown as LedgerKeyError).code).toBe('NOT_SOROBAN_KEY');
      }),
      propertyParams({ numRuns: 1500 }),
    );
  });
});

describe('negative control', () => {
  it('a plain byte comparison of the XDR fails property 1', () => {
    const byteCompare = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);
    const result = fc.check(
      fc.property(keyPairArb, ([a, b]) => signOf(byteCompare(a, b)) === oracleCompareLedgerKeys(a, b)),
      { numRuns: 3000, seed: 42 },
    );
    expect(result.failed).toBe(true);
  });
});
