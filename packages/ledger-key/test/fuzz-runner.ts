// The fuzz loop of test/fuzz.test.ts, run in a child process so that a hang in the engine is a killed child and a
// failed test, not a stuck test run. It mutates valid keys, entries, SCVals and bucket entries (built with
// @stellar/stellar-base from the test arbitraries) and checks each mutant against the engine's public API:
//
//  - a validator either accepts the bytes, and then stellar-base decodes them too and re-encodes them to the very
//    same bytes, or throws LedgerKeyError (code string, integer offset within the input); stellar-base accepting
//    bytes the validator rejects is a failure too (the engine refusing valid XDR);
//  - comparisons and key extraction either throw LedgerKeyError or return a result, and when the oracle can
//    decode the inputs the result must be the oracle's;
//  - any other exception (TypeError, RangeError, a stack overflow...) is a failure.
//
// Before each mutant it writes the input to a progress file, so a hang can be reported with the input that hung.
import { writeFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';
import { hex, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import {
  compareBucketEntries,
  compareEntryToKey,
  compareHotArchiveBucketEntries,
  compareLedgerKeys,
  LedgerKeyError,
  ledgerKeyOfEntry,
  ledgerKeysEqual,
  ttlKeyOf,
  validateBucketEntry,
  validateHotArchiveBucketEntry,
  validateLedgerEntry,
  validateLedgerKey,
  validateScVal,
} from '../src/index.js';
import {
  bucketEntryArb,
  hotArchiveBucketEntryArb,
  ledgerEntryArb,
  ledgerKeyArb,
  ledgerKeyOfTypeArb,
  toBytes,
} from './arbitraries.js';
import {
  oracleCompareBucketEntries,
  oracleCompareEntryToKey,
  oracleCompareHotArchiveBucketEntries,
  oracleCompareLedgerKeys,
  oracleLedgerKeyOfEntry,
  oracleTtlKey,
  signOf,
} from './oracle.js';

export interface FuzzOptions {
  seed: number;
  /** Stop after this many mutants... */
  maxIterations: number;
  /** ...or after this much wall time, whichever comes first. */
  budgetMs: number;
  /** File the current input is written to before it is tried. */
  progressFile: string;
}

export interface FuzzFailure {
  kind: string;
  original: string;
  mutated: string;
  problem: string;
}

export interface FuzzReport {
  iterations: number;
  accepted: number;
  rejected: number;
  /** LedgerKeyError codes seen, with counts. */
  codes: Record<string, number>;
  failures: FuzzFailure[];
}

type Kind = 'key' | 'entry' | 'scval' | 'bucket' | 'hot';

/** Values worth writing over a 4-byte word: huge lengths, bounds ± 1, negative and unknown discriminants. */
const INTERESTING_WORDS = [
  0xffffffff, 0x7fffffff, 0x80000000, 0x00010000, 0, 1, 2, 3, 4, 5, 9, 10, 16, 17, 21, 22, 31, 32, 33, 63, 64, 65,
  0xfffffffe,
];

/** One random mutation of `input` (never in place). */
function mutate(input: Uint8Array, random: () => number): Uint8Array {
  const pick = (n: number): number => Math.floor(random() * n);
  const bytes = Uint8Array.from(input);
  switch (pick(8)) {
    case 0: {
      // Flip one bit.
      if (bytes.length === 0) return bytes;
      const at = pick(bytes.length);
      bytes[at] = (bytes[at] as number) ^ (1 << pick(8));
      return bytes;
    }
    case 1: {
      // Overwrite one byte.
      if (bytes.length === 0) return bytes;
      bytes[pick(bytes.length)] = random() < 0.5 ? pick(256) : ([0x00, 0x01, 0x7f, 0x80, 0xff][pick(5)] as number);
      return bytes;
    }
    case 2: {
      // Insert 1..8 bytes (4 or 8 most often, to keep the XDR alignment).
      const at = pick(bytes.length + 1);
      const count = random() < 0.6 ? 4 * (1 + pick(2)) : 1 + pick(8);
      const inserted = Array.from({ length: count }, () => (random() < 0.5 ? 0 : pick(256)));
      return Uint8Array.from([...bytes.subarray(0, at), ...inserted, ...bytes.subarray(at)]);
    }
    case 3: {
      // Delete a run of bytes.
      if (bytes.length === 0) return bytes;
      const at = pick(bytes.length);
      const count = 1 + pick(Math.min(8, bytes.length - at));
      return Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + count)]);
    }
    case 4:
      // Truncate.
      return bytes.subarray(0, pick(bytes.length + 1));
    case 5: {
      // Extend with zeros or junk.
      const count = 1 + pick(12);
      const junk = random() < 0.5;
      return Uint8Array.from([...bytes, ...Array.from({ length: count }, () => (junk ? pick(256) : 0))]);
    }
    default: {
      // Overwrite an aligned 4-byte word (a length, a count, a discriminant) with an interesting value.
      if (bytes.length < 4) return bytes;
      const at = 4 * pick(Math.floor(bytes.length / 4));
      const word = INTERESTING_WORDS[pick(INTERESTING_WORDS.length)] as number;
      new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, word);
      return bytes;
    }
  }
}

/** What the oracle's strict decoder (stellar-base) makes of bytes of this kind: canonical bytes, or undefined. */
function oracleCanonical(kind: Kind, bytes: Uint8Array): Uint8Array | undefined {
  const buffer = Buffer.from(bytes);
  try {
    switch (kind) {
      case 'key':
        return new Uint8Array(xdr.LedgerKey.fromXDR(buffer).toXDR());
      case 'entry':
        return new Uint8Array(xdr.LedgerEntry.fromXDR(buffer).toXDR());
      case 'scval':
        return new Uint8Array(xdr.ScVal.fromXDR(buffer).toXDR());
      case 'bucket':
        return new Uint8Array(xdr.BucketEntry.fromXDR(buffer).toXDR());
      default:
        return new Uint8Array(xdr.HotArchiveBucketEntry.fromXDR(buffer).toXDR());
    }
  } catch {
    return undefined;
  }
}

/** Runs the fuzz loop and reports; never throws for an engine misbehaviour (that is a failure in the report). */
export function runFuzz(options: FuzzOptions): FuzzReport {
  const random = seededRandom(options.seed);
  const report: FuzzReport = { iterations: 0, accepted: 0, rejected: 0, codes: {}, failures: [] };
  const fail = (kind: string, original: Uint8Array, mutated: Uint8Array, problem: string): void => {
    if (report.failures.length < 25)
      report.failures.push({ kind, original: hex(original), mutated: hex(mutated), problem });
  };

  // Seeds: keys of every type (CONTRACT_DATA over-represented), entries, live and hot-archive bucket entries, and
  // bare SCVals.
  const sampleParams = { seed: options.seed, numRuns: 60 };
  const corpus: { kind: Kind; bytes: Uint8Array }[] = [
    ...fc.sample(ledgerKeyArb, { ...sampleParams, numRuns: 300 }).map((bytes) => ({ kind: 'key' as const, bytes })),
    ...fc.sample(ledgerKeyOfTypeArb(6), sampleParams).map((bytes) => ({ kind: 'key' as const, bytes })),
    ...fc.sample(ledgerEntryArb, { ...sampleParams, numRuns: 200 }).map((bytes) => ({ kind: 'entry' as const, bytes })),
    ...fc
      .sample(bucketEntryArb, { ...sampleParams, numRuns: 100 })
      .map((bytes) => ({ kind: 'bucket' as const, bytes })),
    ...fc
      .sample(hotArchiveBucketEntryArb, { ...sampleParams, numRuns: 50 })
      .map((bytes) => ({ kind: 'hot' as const, bytes })),
    ...fc.sample(ledgerKeyOfTypeArb(6), { ...sampleParams, numRuns: 100 }).map((bytes) => ({
      kind: 'scval' as const,
      bytes: toBytes(xdr.LedgerKey.fromXDR(Buffer.from(bytes)).contractData().key()),
    })),
  ];

  /** Runs `call`; a LedgerKeyError is recorded and returns undefined, anything else thrown is a failure. */
  const guarded = <T>(
    kind: string,
    original: Uint8Array,
    mutated: Uint8Array,
    what: string,
    call: () => T,
  ): T | undefined => {
    try {
      return call();
    } catch (error) {
      if (error instanceof LedgerKeyError) {
        if (
          typeof error.code !== 'string' ||
          error.offset === undefined ||
          !Number.isInteger(error.offset) ||
          error.offset < 0
        ) {
          fail(
            kind,
            original,
            mutated,
            `${what}: LedgerKeyError with bad fields code=${String(error.code)} offset=${String(error.offset)}`,
          );
        }
        report.codes[error.code] = (report.codes[error.code] ?? 0) + 1;
        return undefined;
      }
      const name = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
      fail(kind, original, mutated, `${what} threw ${name}`);
      return undefined;
    }
  };

  const validators: Record<Kind, ((bytes: Uint8Array) => void) | undefined> = {
    key: validateLedgerKey,
    entry: validateLedgerEntry,
    scval: validateScVal,
    bucket: validateBucketEntry,
    hot: validateHotArchiveBucketEntry,
  };

  const started = Date.now();
  while (report.iterations < options.maxIterations && Date.now() - started < options.budgetMs) {
    const seed = corpus[Math.floor(random() * corpus.length)] as { kind: Kind; bytes: Uint8Array };
    const original = seed.bytes;
    let mutated = mutate(original, random);
    const extra = Math.floor(random() * 3);
    for (let i = 0; i < extra; i++) mutated = mutate(mutated, random);
    report.iterations++;
    writeFileSync(options.progressFile, `${seed.kind} ${hex(mutated)}\n`);

    const kind = seed.kind;
    const canonical = oracleCanonical(kind, mutated);
    const oracleAccepts = canonical !== undefined && Buffer.compare(canonical, mutated) === 0;

    // 1. The validator: accepted iff stellar-base decodes the bytes and re-encodes them unchanged.
    const validate = validators[kind];
    if (validate !== undefined) {
      let accepted = false;
      let rejection: unknown;
      try {
        validate(mutated);
        accepted = true;
      } catch (error) {
        rejection = error;
      }
      if (accepted) {
        report.accepted++;
        if (!oracleAccepts) {
          fail(
            kind,
            original,
            mutated,
            `validator accepted bytes stellar-base ${canonical === undefined ? 'cannot decode' : `re-encodes differently (${hex(canonical)})`}`,
          );
        }
      } else if (rejection instanceof LedgerKeyError) {
        report.rejected++;
        report.codes[rejection.code] = (report.codes[rejection.code] ?? 0) + 1;
        const offset = rejection.offset;
        if (offset === undefined || !Number.isInteger(offset) || offset < 0 || offset > mutated.length) {
          fail(
            kind,
            original,
            mutated,
            `LedgerKeyError ${rejection.code} with offset ${rejection.offset} outside the input`,
          );
        }
        if (oracleAccepts)
          fail(kind, original, mutated, `validator rejected valid XDR with ${rejection.code} at ${rejection.offset}`);
      } else {
        const name =
          rejection instanceof Error ? `${rejection.constructor.name}: ${rejection.message}` : String(rejection);
        fail(kind, original, mutated, `validator threw ${name}`);
      }
    }

    // 2. The operations on the mutant: LedgerKeyError or the oracle's answer.
    switch (kind) {
      case 'key': {
        const order = guarded(kind, original, mutated, 'compareLedgerKeys', () => compareLedgerKeys(mutated, original));
        const equal = guarded(kind, original, mutated, 'ledgerKeysEqual', () => ledgerKeysEqual(mutated, original));
        const ttl = guarded(kind, original, mutated, 'ttlKeyOf', () => ttlKeyOf(mutated));
        guarded(kind, original, mutated, 'compareLedgerKeys(self)', () => compareLedgerKeys(mutated, mutated));
        if (oracleAccepts) {
          const expected = oracleCompareLedgerKeys(mutated, original);
          if (order === undefined || signOf(order) !== expected) {
            fail(kind, original, mutated, `compareLedgerKeys gave ${String(order)}, oracle ${expected}`);
          }
          if (equal !== (expected === 0)) fail(kind, original, mutated, `ledgerKeysEqual gave ${String(equal)}`);
          const expectedTtl = oracleTtlKey(mutated);
          if (expectedTtl !== undefined && (ttl === undefined || hex(ttl) !== hex(expectedTtl))) {
            fail(
              kind,
              original,
              mutated,
              `ttlKeyOf gave ${ttl === undefined ? 'an error' : hex(ttl)}, oracle ${hex(expectedTtl)}`,
            );
          }
        }
        break;
      }
      case 'entry': {
        const key = guarded(kind, original, mutated, 'ledgerKeyOfEntry', () => ledgerKeyOfEntry(mutated));
        const originalKey = oracleLedgerKeyOfEntry(original);
        const order = guarded(kind, original, mutated, 'compareEntryToKey', () =>
          compareEntryToKey(mutated, originalKey),
        );
        if (oracleAccepts) {
          const expectedKey = oracleLedgerKeyOfEntry(mutated);
          if (key === undefined || hex(key) !== hex(expectedKey)) {
            fail(
              kind,
              original,
              mutated,
              `ledgerKeyOfEntry gave ${key === undefined ? 'an error' : hex(key)}, oracle ${hex(expectedKey)}`,
            );
          }
          const expected = oracleCompareEntryToKey(mutated, originalKey);
          if (order === undefined || signOf(order) !== expected) {
            fail(kind, original, mutated, `compareEntryToKey gave ${String(order)}, oracle ${expected}`);
          }
        }
        break;
      }
      case 'bucket': {
        const order = guarded(kind, original, mutated, 'compareBucketEntries', () =>
          compareBucketEntries(mutated, original),
        );
        if (oracleAccepts) {
          const expected = oracleCompareBucketEntries(mutated, original);
          if (order === undefined || signOf(order) !== expected) {
            fail(kind, original, mutated, `compareBucketEntries gave ${String(order)}, oracle ${expected}`);
          }
        }
        break;
      }
      case 'hot': {
        const order = guarded(kind, original, mutated, 'compareHotArchiveBucketEntries', () =>
          compareHotArchiveBucketEntries(mutated, original),
        );
        if (oracleAccepts) {
          const expected = oracleCompareHotArchiveBucketEntries(mutated, original);
          if (order === undefined || signOf(order) !== expected) {
            fail(kind, original, mutated, `compareHotArchiveBucketEntries gave ${String(order)}, oracle ${expected}`);
          }
        }
        break;
      }
      default:
    }
  }
  return report;
}

// Child-process entry: `fuzz-runner.ts fuzz-child <json options>`; the report goes back over IPC.
if (process.argv[2] === 'fuzz-child' && process.send !== undefined) {
  const options = JSON.parse(process.argv[3] as string) as FuzzOptions;
  const report = runFuzz(options);
  process.send(report, () => process.exit(0));
}
