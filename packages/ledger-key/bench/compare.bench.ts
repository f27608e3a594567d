// Benchmarks of the key order and key extraction, each against the oracle path measured in the same run: decode
// with @stellar/stellar-base and compare structurally (test/oracle.ts). Inputs mix real keys (mainnet CONTRACT_DATA
// from the shared fixtures, every key of the stellar-core-lcm streams) with generated ones (test/arbitraries.ts).
// Pairs are half neighbours in sorted order (long shared prefixes: the comparison runs deep, as in a merge) and
// half random pairs (usually decided early), so the figure is neither best nor worst case.
import { readFileSync } from 'node:fs';
import { runBench } from '@strata/bench';
import { fixturePath, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import { compareLedgerKeys, ledgerKeyOfEntry } from '../src/index.js';
import { ledgerEntryArb, ledgerKeyArb, ledgerKeyOfTypeArb } from '../test/arbitraries.js';
import { harvestLcmKeys } from '../test/lcm-keys.js';
import { compareOracleKeys, oracleCompareLedgerKeys, oracleDecodeKey, oracleLedgerKeyOfEntry } from '../test/oracle.js';

const PAIRS = 4096;
const SEED = 20260805;

/** PAIRS pairs over `keys`: half adjacent in sorted order, half random. Returned as two parallel arrays. */
function buildPairs(keys: readonly Uint8Array[]): { left: Uint8Array[]; right: Uint8Array[] } {
  const decoded = keys.map((bytes) => ({ bytes, key: oracleDecodeKey(bytes) }));
  decoded.sort((a, b) => compareOracleKeys(a.key, b.key));
  const sorted = decoded.map(({ bytes }) => bytes);
  const random = seededRandom(SEED);
  const pick = (): Uint8Array => sorted[Math.floor(random() * sorted.length)] as Uint8Array;
  const left: Uint8Array[] = [];
  const right: Uint8Array[] = [];
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2 === 0) {
      const at = Math.floor(random() * (sorted.length - 1));
      const [a, b] = [sorted[at] as Uint8Array, sorted[at + 1] as Uint8Array];
      // Either argument order, so both signs occur.
      const swap = random() < 0.5;
      left.push(swap ? b : a);
      right.push(swap ? a : b);
    } else {
      left.push(pick());
      right.push(pick());
    }
  }
  return { left, right };
}

/** Copies each key into its own buffer, as a reader slicing records out of a file would hand them over. */
const own = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

let sink = 0;

function compareAll(
  compare: (a: Uint8Array, b: Uint8Array) => number,
  left: Uint8Array[],
  right: Uint8Array[],
): number {
  let total = 0;
  for (let i = 0; i < left.length; i++) total += compare(left[i] as Uint8Array, right[i] as Uint8Array);
  sink += total;
  return total;
}

/** Index of the first differing byte (or the shorter length): the floor any byte-reading comparator pays. */
function byteScan(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

// ---- inputs -------------------------------------------------------------------------------------------------

interface MainnetFixture {
  correctEntries: string[];
  corruptedEntries: string[];
}
const mainnet = JSON.parse(readFileSync(fixturePath('mainnet-contract-data.json'), 'utf8')) as MainnetFixture;
const mainnetEntries = [...mainnet.correctEntries, ...mainnet.corruptedEntries].map(
  (base64) => new Uint8Array(Buffer.from(base64, 'base64')),
);
const mainnetKeys = [
  ...new Set(mainnetEntries.map((entry) => Buffer.from(oracleLedgerKeyOfEntry(entry)).toString('hex'))),
].map((hex) => new Uint8Array(Buffer.from(hex, 'hex')));
const generatedContractKeys = fc.sample(ledgerKeyOfTypeArb(6), { seed: SEED, numRuns: 1000 });
const contractData = buildPairs([...mainnetKeys, ...generatedContractKeys].map(own));

const lcm = harvestLcmKeys();
const generatedKeys = fc.sample(ledgerKeyArb, { seed: SEED + 1, numRuns: 1000 });
const mixed = buildPairs([...lcm.keys, ...mainnetKeys, ...generatedKeys].map(own));

const lcmEntrySample = lcm.entries.filter((_, i) => i % 4 === 0);
const entries = [
  ...mainnetEntries,
  ...lcmEntrySample,
  ...fc.sample(ledgerEntryArb, { seed: SEED + 2, numRuns: 1000 }),
].map(own);

// Sanity before timing: the engine and the oracle agree on every pair (a benchmark of a wrong answer is useless).
for (const { left, right } of [contractData, mixed]) {
  for (let i = 0; i < left.length; i++) {
    const a = left[i] as Uint8Array;
    const b = right[i] as Uint8Array;
    if (Math.sign(compareLedgerKeys(a, b)) !== oracleCompareLedgerKeys(a, b)) {
      throw new Error(
        `engine and oracle disagree on ${Buffer.from(a).toString('hex')} vs ${Buffer.from(b).toString('hex')}`,
      );
    }
  }
}

await runBench(async (bench) => {
  await bench.throughput('compare.contract-data', {
    subject: {
      name: 'compareLedgerKeys',
      fn: () => compareAll(compareLedgerKeys, contractData.left, contractData.right),
      opsPerCall: PAIRS,
    },
    baseline: {
      name: 'decode both with @stellar/stellar-base, compare structurally',
      fn: () => compareAll(oracleCompareLedgerKeys, contractData.left, contractData.right),
      opsPerCall: PAIRS,
    },
    target: { value: 5_000_000, ratio: 20 },
    note: `compares/s, one core; ${PAIRS} CONTRACT_DATA key pairs (half sorted neighbours, half random) over ${mainnetKeys.length} mainnet keys and ${generatedContractKeys.length} generated ones`,
  });

  // Context for the figure above: the cheapest possible pass over the same pairs (a plain byte loop to the first
  // difference, no validation, no structure). No comparator that reads its inputs can beat it; compareLedgerKeys
  // also validates both keys whole on every call, as its contract requires.
  await bench.throughput('compare.contract-data.byte-scan-floor', {
    subject: {
      name: 'compareLedgerKeys',
      fn: () => compareAll(compareLedgerKeys, contractData.left, contractData.right),
      opsPerCall: PAIRS,
    },
    baseline: {
      name: 'byte loop to the first difference (no validation)',
      fn: () => compareAll(byteScan, contractData.left, contractData.right),
      opsPerCall: PAIRS,
    },
    note: 'same pairs as compare.contract-data; ratio near 1 means the comparator runs at the cost of reading its inputs',
  });

  await bench.throughput('compare.mixed', {
    subject: {
      name: 'compareLedgerKeys',
      fn: () => compareAll(compareLedgerKeys, mixed.left, mixed.right),
      opsPerCall: PAIRS,
    },
    baseline: {
      name: 'decode both with @stellar/stellar-base, compare structurally',
      fn: () => compareAll(oracleCompareLedgerKeys, mixed.left, mixed.right),
      opsPerCall: PAIRS,
    },
    target: { ratio: 20 },
    note: `compares/s, one core; ${PAIRS} pairs over ${lcm.keys.length} stellar-core-lcm keys (9 types), ${mainnetKeys.length} mainnet and ${generatedKeys.length} generated keys of all 10 types`,
  });

  await bench.throughput('key-of-entry', {
    subject: {
      name: 'ledgerKeyOfEntry',
      fn: () => {
        for (const entry of entries) sink += ledgerKeyOfEntry(entry).length;
      },
      opsPerCall: entries.length,
    },
    baseline: {
      name: '@stellar/stellar-base decode entry, build LedgerKey, toXDR',
      fn: () => {
        for (const entry of entries) sink += oracleLedgerKeyOfEntry(entry).length;
      },
      opsPerCall: entries.length,
    },
    note: `keys extracted per second; ${entries.length} entries: ${mainnetEntries.length} mainnet CONTRACT_DATA, ${lcmEntrySample.length} from stellar-core-lcm (all types there), 1000 generated`,
  });
});

if (sink === 0.5) console.log('unreachable; keeps the results alive');
