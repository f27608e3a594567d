// BucketIndex beyond the random-bucket oracle properties (those are in bucket-index.property.test.ts): keys behind an
// ext, the empty and the META-only bucket, bad query keys, and the persisted index file. Checked:
//  1. Entries whose key fields sit behind an ext (CONTRACT_CODE ext v0 and v1, CONTRACT_DATA) are found.
//  2. The empty bucket and a bucket holding only its METAENTRY index and find nothing.
//  3. Query keys that are not LedgerKeys, and unsorted bulk keys, are INVALID_ARGUMENT.
//  4. A persisted index reloads identically (same page table and filter, no rebuild); a flipped byte, a truncation,
//     another version, another page size, another bucket's index, an oversized file, and a structurally forged file
//     with a valid checksum are each detected, reported as BAD_INDEX (never thrown) and rebuilt, and lookups stay
//     right.
//  5. Negative control: the oracle comparison catches a deliberately wrong index.
import { mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { compareLedgerKeys, encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { hex, seededRandom, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ledgerKeyArb, toBytes } from '../../ledger-key/test/arbitraries.js';
import { writeBucket } from '../src/bucket-file.js';
import {
  type BucketIndex,
  INDEX_VERSION,
  type IndexOptions,
  indexPathOf,
  openBucketIndex,
} from '../src/bucket-index/bucket-index.js';
import { indexChecksum } from '../src/bucket-index/index-file.js';
import { BucketError } from '../src/errors.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';
import {
  bucketWithOracle,
  disagreements,
  liveRecordArb,
  makeBucket,
  samePageIndex,
  scenarioOf,
  withIndex,
} from './support.js';

describe('BucketIndex against an oracle', () => {
  it('finds entries whose key fields sit behind an ext (CONTRACT_CODE ext v0 and v1, CONTRACT_DATA)', () => {
    const dir = tempDir('bucket-index');
    const random = seededRandom(31);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
    const count = () => Math.floor(random() * 2 ** 32);
    const entries: Uint8Array[] = [];
    const absent: Uint8Array[] = [];
    for (let i = 0; i < 400; i++) {
      const hash = bytes(32);
      const costInputs =
        i % 2 === 0
          ? undefined
          : {
              nInstructions: count(),
              nFunctions: count(),
              nGlobals: count(),
              nTableEntries: count(),
              nTypes: count(),
              nDataSegments: count(),
              nElemSegments: count(),
              nImports: count(),
              nExports: count(),
              nDataSegmentBytes: count(),
            };
      const code = bytes(4 * Math.floor(random() * 40));
      entries.push(
        encodeLedgerEntry({
          lastModifiedLedgerSeq: i,
          data: { type: 'contractCode', hash, code, ...(costInputs === undefined ? {} : { costInputs }) },
        }),
      );
      entries.push(
        encodeLedgerEntry({
          lastModifiedLedgerSeq: i,
          data: {
            type: 'contractData',
            contract: { type: 'contract', contractId: bytes(32) },
            key: { type: 'u32', value: i },
            durability: 'persistent',
            val: { type: 'bytes', value: bytes(4 * Math.floor(random() * 30)) },
          },
        }),
      );
      absent.push(encodeLedgerKey({ type: 'contractCode', hash: bytes(32) }));
    }
    const payloads = freshLiveEntries(23, { init: entries, live: [], dead: [] });
    const { bucket, oracle } = bucketWithOracle(dir, 'live', 23, payloads, absent);
    for (const inMemoryCutoff of [0, Number.POSITIVE_INFINITY]) {
      const index = openBucketIndex(bucket, { pageSize: 256, inMemoryCutoff });
      expect(withIndex(index, (i) => disagreements(i, oracle))).toEqual([]);
    }
  });

  it('indexes the empty bucket and a bucket holding only its METAENTRY', () => {
    const dir = tempDir('bucket-index');
    const empty = writeBucket(dir, 'live', 10, []);
    expect(empty.path).toBeUndefined();
    const emptyIndex = openBucketIndex(empty);
    expect(emptyIndex.lookup(fc.sample(ledgerKeyArb, { numRuns: 1, seed: 2 })[0]!)).toBeUndefined();
    expect(emptyIndex.typeRanges.size).toBe(0);
    const metaOnly = writeBucket(dir, 'hot-archive', 23, []);
    for (const inMemoryCutoff of [0, Number.POSITIVE_INFINITY]) {
      withIndex(openBucketIndex(metaOnly, { inMemoryCutoff }), (index) => {
        const keys = fc.sample(ledgerKeyArb, { numRuns: 5, seed: 1 });
        expect(keys.map((key) => index.lookup(key))).toEqual(keys.map(() => undefined));
        expect(index.typeRanges.size).toBe(0);
      });
    }
  });

  it('rejects query keys that are not LedgerKeys, and unsorted bulk keys, with INVALID_ARGUMENT', () => {
    const dir = tempDir('bucket-index');
    const [first, second] = fc.sample(liveRecordArb, { numRuns: 2, seed: 7 });
    const { bucket } = makeBucket(dir, scenarioOf('live', [first!, second!]));
    for (const inMemoryCutoff of [0, Number.POSITIVE_INFINITY]) {
      withIndex(openBucketIndex(bucket, { inMemoryCutoff }), (index) => {
        expect(() => index.lookup(new Uint8Array([0, 0, 0, 99]))).toThrow(BucketError);
        const keys = [toBytes(first![0]), toBytes(second![0])].sort(compareLedgerKeys).reverse();
        const unsorted = compareLedgerKeys(keys[0]!, keys[1]!) !== 0;
        if (unsorted) expect(() => index.lookupSorted(keys, () => {})).toThrow(/sorted ascending/);
      });
    }
    expect(() => openBucketIndex(bucket, { pageSize: 1000 })).toThrow(/power of two/);
  });
});

describe('the persisted index file', () => {
  /** A page-indexed bucket of ~150 live records and its oracle. */
  function fixture(dir: string, seed: number) {
    const records = fc.sample(liveRecordArb, { numRuns: 150, seed });
    const { bucket, oracle } = makeBucket(dir, scenarioOf('live', records));
    const options: IndexOptions = { pageSize: 256, inMemoryCutoff: 0 };
    const original = openBucketIndex(bucket, options);
    const indexPath = indexPathOf(bucket.path!);
    return { bucket, oracle, options, original, indexPath, bytes: readFileSync(indexPath) };
  }

  /** Opens the index after `damage`, expecting one BAD_INDEX report matching `reason`, a rebuild, and right answers. */
  function expectRebuilt(f: ReturnType<typeof fixture>, reason: RegExp, options: IndexOptions = f.options): void {
    const problems: BucketError[] = [];
    const index = openBucketIndex(f.bucket, { ...options, onIndexProblem: (problem) => problems.push(problem) });
    expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
    expect(problems[0]!.detail).toMatch(reason);
    expect(samePageIndex(index, f.original)).toBe(false); // a new filter seed: rebuilt
    expect(withIndex(index, (i) => disagreements(i, f.oracle))).toEqual([]);
    // The rebuilt index was persisted again and now loads cleanly.
    const again = openBucketIndex(f.bucket, { ...options, onIndexProblem: (problem) => problems.push(problem) });
    again.close();
    expect(problems).toHaveLength(1);
  }

  /** Rewrites the trailer (for the bucket its header names) so the body's damage is all that is wrong. */
  function withChecksum(bytes: Uint8Array): Uint8Array {
    const out = new Uint8Array(bytes);
    const view = new DataView(out.buffer);
    const hash = Buffer.from(out.subarray(16, 48)).toString('hex');
    view.setBigUint64(out.length - 8, indexChecksum(out.subarray(0, out.length - 8), hash), true);
    return out;
  }

  it('detects any flipped byte and any truncation, and rebuilds', () => {
    const dir = tempDir('bucket-index');
    const f = fixture(dir, 11);
    f.original.close();
    const random = seededRandom(5);
    for (let trial = 0; trial < 40; trial++) {
      const damaged = new Uint8Array(f.bytes);
      const at = Math.floor(random() * damaged.length);
      damaged[at]! ^= 1 + Math.floor(random() * 255);
      writeFileSync(f.indexPath, damaged);
      expectRebuilt(f, /checksum|magic|version/);
    }
    for (const length of [0, 7, 80, f.bytes.length >> 1, f.bytes.length - 8, f.bytes.length - 1]) {
      writeFileSync(f.indexPath, f.bytes);
      truncateSync(f.indexPath, length);
      expectRebuilt(f, /bytes|checksum/);
    }
  });

  it('rebuilds an index of another version, page size or bucket, an oversized one, and a forged one', () => {
    const dir = tempDir('bucket-index');
    const f = fixture(dir, 12);
    f.original.close();

    const otherVersion = new Uint8Array(f.bytes);
    new DataView(otherVersion.buffer).setUint32(8, INDEX_VERSION + 1, true);
    writeFileSync(f.indexPath, withChecksum(otherVersion));
    expectRebuilt(f, /version/);

    expectRebuilt(f, /page size/, { ...f.options, pageSize: 512 });
    // The index now on disk is for 512-byte pages; the 256-byte configuration rebuilds it once more.
    expectRebuilt(f, /page size/);

    const other = fixture(dir, 13);
    other.original.close();
    writeFileSync(f.indexPath, other.bytes);
    expectRebuilt(f, /index of bucket/);

    writeFileSync(f.indexPath, new Uint8Array(3 * f.bucket.size + (1 << 20) + 8));
    expectRebuilt(f, /more than/);

    // Valid checksum, broken structure: the second page offset moved before the first.
    const forged = new Uint8Array(f.bytes);
    const view = new DataView(forged.buffer);
    const typeCount = view.getUint32(64, true);
    const secondPage = 80 + 16 * typeCount + 8;
    view.setUint32(secondPage, 0, true);
    writeFileSync(f.indexPath, withChecksum(forged));
    expectRebuilt(f, /page 1/);

    // Valid checksum, a key swapped for garbage.
    const garbled = new Uint8Array(f.bytes);
    const pageCount = new DataView(garbled.buffer).getUint32(68, true);
    const keyBytesAt = 80 + 16 * typeCount + 8 * pageCount + 4 * (2 * pageCount + 1);
    garbled.fill(0xee, keyBytesAt, keyBytesAt + 4);
    writeFileSync(f.indexPath, withChecksum(garbled));
    expectRebuilt(f, /bad key/);
  });

  it('reports an index it cannot write instead of failing, and works without it', () => {
    const dir = tempDir('bucket-index');
    const records = fc.sample(liveRecordArb, { numRuns: 40, seed: 14 });
    const { bucket, oracle } = makeBucket(dir, scenarioOf('live', records));
    // A directory in the way of the index file: reading it and renaming onto it both fail.
    const indexPath = indexPathOf(bucket.path!);
    mkdirSync(indexPath);
    const problems: BucketError[] = [];
    const index = openBucketIndex(bucket, {
      pageSize: 256,
      inMemoryCutoff: 0,
      onIndexProblem: (p) => problems.push(p),
    });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((problem) => problem.code === 'IO' || problem.code === 'BAD_INDEX')).toBe(true);
    expect(withIndex(index, (i) => disagreements(i, oracle))).toEqual([]);
    expect(statSync(indexPath).isDirectory()).toBe(true);
  });
});

describe('negative control', () => {
  it('the oracle comparison catches an index that answers one key wrongly', () => {
    const dir = tempDir('bucket-index');
    const records = fc.sample(liveRecordArb, { numRuns: 30, seed: 21 });
    const { bucket, oracle } = makeBucket(dir, scenarioOf('live', records));
    const real = openBucketIndex(bucket, { pageSize: 256, inMemoryCutoff: 0 });
    const victim = [...oracle.present.values()][3]!.key;
    // Broken the way an off-by-one page search would be: the victim key is reported absent.
    const broken: BucketIndex = {
      kind: real.kind,
      typeRanges: real.typeRanges,
      memoryBytes: real.memoryBytes,
      lookup: (key) => (compareLedgerKeys(key, victim) === 0 ? undefined : real.lookup(key)),
      lookupSorted: (keys, found) => real.lookupSorted(keys, (i, payload) => found(i, payload)),
      close: () => real.close(),
    };
    expect(disagreements(broken, oracle)).toHaveLength(1);
    // And a bulk lookup that drops the last page's keys.
    const lastOffset = Math.max(...[...oracle.present.values()].map((entry) => entry.offset));
    const truncatedBulk: BucketIndex = {
      ...broken,
      lookup: (key) => real.lookup(key),
      lookupSorted: (keys, found) =>
        real.lookupSorted(keys, (i, payload) => {
          if (oracle.present.get(hex(keys[i]!))?.offset !== lastOffset) found(i, payload);
        }),
    };
    expect(disagreements(truncatedBulk, oracle).length).toBeGreaterThan(0);
    real.close();
  });
});
