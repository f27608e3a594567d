// A persisted page index is a set of claims about its bucket; a wrong claim gives stale answers with no error (issue
// 15). Forgeries that pass every structural check, each with a correct trailer, and what must happen to them:
//  1. Fingerprints zeroed (the forgery): refused when loaded, reported as BAD_INDEX, rebuilt; every lookup
//     right, through a BucketManager too (`load`, `loadKeys` return the newest version, not an older bucket's).
//  2. Another bucket's index copied over, its header rebound to this bucket: the same.
//  3. A filter missing one key no load-time check reads: a scan reading that key reports it and the index is rebuilt,
//     after which the key is found (negative control: before the scan a lookup misses it — the limit of a filter).
//  4. A page table claiming a wrong last key for a page no load-time check reads: the first lookup that reads the page
//     reports it, rebuilds, and answers from the rebuilt index (point and bulk lookups).
// The forgeries write the trailer by FORMAT.md's rule for the version the file says, as anyone can.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { xxh3 } from '@node-rs/xxhash';
import { compareLedgerKeys, encodeLedgerEntry, LEDGER_ENTRY_TYPE, ledgerKeyOfEntry } from '@strata/ledger-key';
import { hex, tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type BucketFile, emptyBucket, writeBucket } from '../src/bucket-file.js';
import { type BucketIndex, type IndexOptions, indexPathOf, openBucketIndex } from '../src/bucket-index/bucket-index.js';
import { FuseHashCollector } from '../src/bucket-index/fuse-filter.js';
import { decodeIndexFile, encodeIndexFile } from '../src/bucket-index/index-file.js';
import { indexChecks, type PageIndex } from '../src/bucket-index/page-index.js';
import { BucketManager } from '../src/bucket-manager.js';
import type { BucketError } from '../src/errors.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';
import { BucketListSnapshot } from '../src/snapshot.js';
import { poolEntry, poolKey } from './support.js';

/** The trailer FORMAT.md prescribes for the file's version: XXH3-64 of the body, seeded from version 2 on. */
function resign(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  const seed = view.getUint32(8, true) >= 2 ? Buffer.from(out.subarray(16, 24)).readBigUInt64LE(0) : 0n;
  view.setBigUint64(out.length - 8, xxh3.xxh64(out.subarray(0, out.length - 8), seed), true);
  return out;
}

/** The forgery: every fingerprint set to zero, trailer recomputed. */
function zeroFingerprints(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  const typeCount = view.getUint32(64, true);
  const pageCount = view.getUint32(68, true);
  expect(view.getUint32(76, true)).toBe(1); // the bucket has a filter to forge
  const keyBytesAt = 84 + 16 * typeCount + 16 * pageCount;
  const filterAt = (keyBytesAt + view.getUint32(72, true) + 7) & ~7;
  out.fill(0, filterAt + 24, out.length - 8);
  return resign(out);
}

/** Another bucket's index with its header made to name `bucket`: hash, size, kind and entry count. */
function reboundTo(bytes: Uint8Array, bucket: BucketFile): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  out.set(Buffer.from(bucket.hash, 'hex'), 16);
  view.setUint32(48, bucket.size, true);
  view.setUint32(52, 0, true);
  view.setUint32(56, bucket.kind === 'live' ? 0 : 1, true);
  view.setUint32(60, bucket.entries, true);
  return resign(out);
}

/** A live bucket of pool entries `from` ≤ n < `to` at `version`, and each key's payload (hex → hex). */
function poolBucket(dir: string, numbers: number[], version: number) {
  const entries = numbers.map((n) => poolEntry(n, version));
  const bucket = writeBucket(dir, 'live', 23, freshLiveEntries(23, { init: entries, live: [], dead: [] }), {
    fsync: false,
  });
  return { bucket, entries };
}

/** What the loader expects of the index of `bucket`. */
const expectationOf = (bucket: BucketFile, pageSize: number) => ({
  hash: bucket.hash,
  kind: bucket.kind,
  fileSize: bucket.size,
  entries: bucket.entries,
  pageSize,
});

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** Keys whose lookup (point and bulk, in the order given) disagrees with `entries` (each key must give its entry). */
function wrongAnswers(index: BucketIndex, entries: Uint8Array[], first: 'point' | 'bulk' = 'point'): string[] {
  const wrong: string[] = [];
  const point = (): void => {
    for (const entry of entries) {
      const got = index.lookup(ledgerKeyOfEntry(entry));
      if (got === undefined || hex(got.subarray(4)) !== hex(entry)) wrong.push(hex(ledgerKeyOfEntry(entry)));
    }
  };
  const bulk = (): void => {
    const byKey = new Map(entries.map((entry) => [hex(ledgerKeyOfEntry(entry)), hex(entry)]));
    const keys = entries.map((entry) => ledgerKeyOfEntry(entry)).sort(compareLedgerKeys);
    const found = new Set<number>();
    index.lookupSorted(keys, (i, payload) => {
      if (byKey.get(hex(keys[i]!)) === hex(payload.subarray(4))) found.add(i);
    });
    if (found.size !== keys.length) wrong.push(`lookupSorted found ${found.size} of ${keys.length}`);
  };
  if (first === 'point') {
    point();
    bulk();
  } else {
    bulk();
    point();
  }
  return wrong;
}

function openReporting(bucket: BucketFile, options: IndexOptions): { index: BucketIndex; problems: BucketError[] } {
  const problems: BucketError[] = [];
  const index = openBucketIndex(bucket, { ...options, onIndexProblem: (problem) => problems.push(problem) });
  return { index, problems };
}

const PAGES: IndexOptions = { pageSize: 512, inMemoryCutoff: 0 };

/** Opening `bucket`'s (forged) index reports one BAD_INDEX, and the index then answers every key right. */
function expectRefusedAndRight(bucket: BucketFile, entries: Uint8Array[]): void {
  const { index, problems } = openReporting(bucket, PAGES);
  try {
    expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
    expect(wrongAnswers(index, entries)).toEqual([]);
  } finally {
    index.close();
  }
}

describe('a forged index file is refused when loaded', () => {
  it('1. zeroed fingerprints with a recomputed trailer: reported, rebuilt, every lookup right', () => {
    const dir = tempDir('index-trust');
    const { bucket, entries } = poolBucket(dir, range(0, 200), 1);
    openBucketIndex(bucket, PAGES).close();
    const indexPath = indexPathOf(bucket.path!);
    writeFileSync(indexPath, zeroFingerprints(readFileSync(indexPath)));
    expectRefusedAndRight(bucket, entries);
    // Rebuilt and persisted: the next open loads it without a report.
    const again = openReporting(bucket, PAGES);
    again.index.close();
    expect(again.problems).toEqual([]);
  });

  it("2. another bucket's index copied over, header rebound to this bucket: reported, rebuilt, every lookup right", () => {
    const dir = tempDir('index-trust');
    const { bucket, entries } = poolBucket(dir, range(0, 300), 1);
    const donor = poolBucket(dir, range(300, 450), 2).bucket;
    openBucketIndex(bucket, PAGES).close();
    openBucketIndex(donor, PAGES).close();
    const forged = reboundTo(readFileSync(indexPathOf(donor.path!)), bucket);
    // The forgery passes every check of the file itself: only the bucket can refute it.
    const decoded = decodeIndexFile(forged, expectationOf(bucket, 512));
    expect(decoded).not.toBeTypeOf('string');
    writeFileSync(indexPathOf(bucket.path!), forged);
    expectRefusedAndRight(bucket, entries);
  });
});

describe('a forged index file in a BucketManager (the issue: load and loadKeys returned an older version)', () => {
  const OPTIONS = {
    merger: 'inline',
    fsync: false,
    create: true,
    index: { pageSize: 256, inMemoryCutoff: 0 },
  } as const;

  /** Ledger 1 creates pool keys 0..59; ledger 2 updates 0..29. Level 0 then holds the new versions in curr, the old in snap. */
  async function build(dir: string): Promise<{ curr: string; snap: string; expected: Map<string, string> }> {
    const manager = await BucketManager.open(dir, OPTIONS);
    await manager.addLedger(1, 23, { init: range(0, 60).map((n) => poolEntry(n, 1)), live: [], dead: [] });
    await manager.addLedger(2, 23, { init: [], live: range(0, 30).map((n) => poolEntry(n, 2)), dead: [] });
    const has = manager.historyArchiveState();
    await manager.close();
    const expected = new Map(range(0, 60).map((n) => [hex(poolKey(n)), hex(poolEntry(n, n < 30 ? 2 : 1))]));
    const level0 = has.currentBuckets[0]!;
    const path = (hash: string): string => indexPathOf(join(dir, 'buckets', `bucket-${hash}.xdr`));
    return { curr: path(level0.curr), snap: path(level0.snap), expected };
  }

  async function expectRightAnswers(dir: string, expected: Map<string, string>): Promise<BucketError[]> {
    const problems: BucketError[] = [];
    const manager = await BucketManager.open(dir, {
      ...OPTIONS,
      onEvent: (event) => {
        if (event.type === 'index-problem') problems.push(event.error);
      },
    });
    try {
      const keys = range(0, 60).map(poolKey);
      const loaded = keys.map((key) => manager.load(key));
      const view = manager.snapshot();
      const bulk = view.loadKeys(keys);
      view.release();
      const want = keys.map((key) => expected.get(hex(key)));
      expect(loaded.map((entry) => entry && hex(entry))).toEqual(want);
      expect(bulk.map((entry) => entry && hex(entry))).toEqual(want);
    } finally {
      await manager.close();
    }
    return problems;
  }

  it('zeroed fingerprints in the newest bucket: the newest versions, and a BAD_INDEX report', async () => {
    const dir = tempDir('index-trust');
    const { curr, expected } = await build(dir);
    writeFileSync(curr, zeroFingerprints(readFileSync(curr)));
    const problems = await expectRightAnswers(dir, expected);
    expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
  });

  it("the newer bucket's index copied over the older one's, rebound: right answers, and a BAD_INDEX report", async () => {
    const dir = tempDir('index-trust');
    const { curr, snap, expected } = await build(dir);
    const snapBucket = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8')).currentBuckets[0].snap as string;
    const snapPath = join(dir, 'buckets', `bucket-${snapBucket}.xdr`);
    const target: BucketFile = {
      hash: snapBucket,
      path: snapPath,
      kind: 'live',
      protocolVersion: 23,
      size: readFileSync(snapPath).length,
      entries: 60,
    };
    writeFileSync(snap, reboundTo(readFileSync(curr), target));
    const problems = await expectRightAnswers(dir, expected);
    expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
  });
});

describe('claims no load-time check reads are checked where the bucket is read', () => {
  const saved = { ...indexChecks };
  afterEach(() => Object.assign(indexChecks, saved));

  const accountEntry = (n: number): Uint8Array =>
    encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'account', accountId: new Uint8Array(createHash('sha256').update(`account ${n}`).digest()) },
    });

  /** One type only (so the type ranges put no page among those always read), many pages of several records. */
  function accountsBucket(dir: string) {
    const entries = range(0, 400).map(accountEntry);
    const bucket = writeBucket(dir, 'live', 23, freshLiveEntries(23, { init: entries, live: [], dead: [] }), {
      fsync: false,
    });
    const options: IndexOptions = { pageSize: 4096, inMemoryCutoff: 0 };
    const built = openBucketIndex(bucket, options) as PageIndex;
    const table = built.table;
    built.close();
    expect(table.pageCount).toBeGreaterThan(4);
    const indexPath = indexPathOf(bucket.path!);
    const contents = decodeIndexFile(readFileSync(indexPath), expectationOf(bucket, 4096));
    if (typeof contents === 'string') throw new Error(contents);
    const key = (k: number) => table.keyBytes.slice(table.keyStarts[k]!, table.keyStarts[k + 1]!);
    return { bucket, entries, options, indexPath, contents, key, middle: table.pageCount >> 1 };
  }

  it('3. a filter missing one key: a scan reading the key reports it and the index is rebuilt', () => {
    const dir = tempDir('index-trust');
    const { bucket, entries, options, indexPath, contents, key, middle } = accountsBucket(dir);
    // A key inside the middle page (neither its first nor its last), left out of an otherwise true filter.
    const firstOfMiddle = key(2 * middle);
    const inner = entries
      .map((entry) => ledgerKeyOfEntry(entry))
      .sort(compareLedgerKeys)
      .find((candidate) => compareLedgerKeys(candidate, firstOfMiddle) > 0)!;
    const collector = new FuseHashCollector(contents.filter!.hashSeed);
    for (const entry of entries) {
      const entryKey = ledgerKeyOfEntry(entry);
      if (compareLedgerKeys(entryKey, inner) !== 0) collector.add(entryKey);
    }
    const filter = collector.build()!;
    expect(filter.mayContain(inner)).toBe(false);
    writeFileSync(indexPath, encodeIndexFile({ ...contents, filter }));

    indexChecks.samplePages = 0; // so that only a scan can read the page the key is on
    indexChecks.filterSampleBits = 0; // and the scan tests every record it reads
    const { index, problems } = openReporting(bucket, options);
    try {
      expect(problems).toEqual([]); // nothing the loader reads contradicts the forgery
      expect(index.lookup(inner)).toBeUndefined(); // negative control: the forged filter hides the key
      const empty = { file: emptyBucket('live'), index: undefined };
      const slots = [{ file: bucket, index }, ...Array.from({ length: 21 }, () => empty)];
      const view = new BucketListSnapshot(
        1,
        slots,
        slots.map(() => ({ file: emptyBucket('hot-archive'), index: undefined })),
        () => {},
      );
      expect(view.scanCurrentLiveEntries(LEDGER_ENTRY_TYPE.ACCOUNT, () => {})).toBe(entries.length);
      expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
      expect(problems[0]!.detail).toMatch(/filter rejects/);
      expect(index.lookup(inner)).toBeDefined();
      expect(wrongAnswers(index, entries)).toEqual([]);
    } finally {
      index.close();
    }
  });

  for (const how of ['point', 'bulk'] as const) {
    it(`4. a page table with a wrong last key: the ${how} lookup that reads the page reports, rebuilds and answers right`, () => {
      const dir = tempDir('index-trust');
      const { bucket, entries, options, indexPath, contents, key, middle } = accountsBucket(dir);
      // The middle page's last key replaced by its first: still ordered, still in the filter, but the page's real
      // last key now falls in a gap between pages, where the table says nothing is.
      const table = contents.table;
      const keys = Array.from({ length: 2 * table.pageCount }, (_, k) =>
        k === 2 * middle + 1 ? key(2 * middle) : key(k),
      );
      const keyStarts = new Uint32Array(keys.length + 1);
      keys.forEach((k, i) => {
        keyStarts[i + 1] = keyStarts[i]! + k.length;
      });
      const keyBytes = Buffer.concat(keys);
      writeFileSync(indexPath, encodeIndexFile({ ...contents, table: { ...table, keyStarts, keyBytes } }));

      indexChecks.samplePages = 0;
      const { index, problems } = openReporting(bucket, options);
      try {
        expect(problems).toEqual([]);
        if (how === 'point') expect(index.lookup(key(2 * middle))).toBeDefined(); // reads the middle page
        expect(wrongAnswers(index, entries, how)).toEqual([]);
        expect(problems.map((problem) => problem.code)).toEqual(['BAD_INDEX']);
        expect(problems[0]!.detail).toMatch(/last record/);
      } finally {
        index.close();
      }
    });
  }
});
