// BucketIndex against an oracle (a Map from key hex to payload and record offset) over random buckets of both kinds,
// written with writeBucket from random entries of every type. Properties checked:
//  1. Every present key is found with its exact payload, by lookup and by lookupSorted, for the in-memory index, the
//     page index (pages of 64–1024 bytes, so many pages and records crossing page ends), the page index reloaded
//     from its file, and the index built incrementally during verification (cutoff anywhere in the file).
//  2. Absent keys — random ones and near neighbours of present keys — are not found; lookupSorted over present and
//     absent keys together reports exactly the present ones, with their payloads.
//  3. Type ranges equal the oracle's: each type's [first record offset, next type's first offset or file size).
//  4. A persisted index reloads identically (same page table and filter, no rebuild); a flipped byte, a truncation,
//     another version, another page size, another bucket's index, an oversized file, and a structurally forged file
//     with a valid checksum are each detected, reported as BAD_INDEX (never thrown) and rebuilt, and lookups stay
//     right.
//  5. Negative control: the oracle comparison catches a deliberately wrong index.
import { existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { xdr } from '@stellar/stellar-base';
import { compareLedgerKeys, encodeLedgerEntry, encodeLedgerKey, ledgerKeyOfEntry } from '@strata/ledger-key';
import { propertyParams, seededRandom, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketEntryForKeyArb,
  hotArchiveBucketEntryForKeyArb,
  ledgerKeyArb,
  ledgerKeyObjectArb,
  ledgerKeyObjectOfTypeArb,
  siblingKeyArb,
  toBytes,
} from '../../ledger-key/test/arbitraries.js';
import { type BucketFile, verifyBucketFile, writeBucket } from '../src/bucket-file.js';
import {
  type BucketIndex,
  BucketIndexBuilder,
  INDEX_VERSION,
  type IndexOptions,
  indexPathOf,
  openBucketIndex,
} from '../src/bucket-index/bucket-index.js';
import { indexChecksum } from '../src/bucket-index/index-file.js';
import { PageIndex } from '../src/bucket-index/page-index.js';
import { BucketError } from '../src/errors.js';
import { type BucketKind, encodeMeta, FIRST_PROTOCOL_INIT_AND_META, kindOps, META, recordType } from '../src/kind.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A generated record: its key (decoded, for neighbours), its payload, and a near neighbour key. */
type GeneratedRecord = [key: xdr.LedgerKey, payload: Uint8Array, neighbour: Uint8Array];

const notMeta = (payload: Uint8Array): boolean => recordType(payload) !== META;

const liveRecordArb: fc.Arbitrary<GeneratedRecord> = ledgerKeyObjectArb.chain((key) =>
  fc.tuple(fc.constant(key), bucketEntryForKeyArb(key).filter(notMeta), siblingKeyArb(key).map(toBytes)),
);

const sorobanKeyArb = fc.oneof(ledgerKeyObjectOfTypeArb(6), ledgerKeyObjectOfTypeArb(7));
const hotRecordArb: fc.Arbitrary<GeneratedRecord> = sorobanKeyArb.chain((key) =>
  fc.tuple(fc.constant(key), hotArchiveBucketEntryForKeyArb(key).filter(notMeta), siblingKeyArb(key).map(toBytes)),
);

interface Scenario {
  kind: BucketKind;
  protocol: number;
  records: GeneratedRecord[];
  absent: Uint8Array[];
  pageSize: number;
  /** Fraction of the file size at which the incremental builder's cutoff sits (0 → page index, > 1 → in memory). */
  cutoffFraction: number;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.constantFrom<BucketKind>('live', 'hot-archive').chain((kind) =>
  fc.record({
    kind: fc.constant(kind),
    protocol: kind === 'live' ? fc.constantFrom(10, 23) : fc.constant(23),
    // Mostly buckets of dozens to a hundred-odd records (many pages); sometimes tiny ones (0, 1, 2 records).
    records: fc.oneof(
      { weight: 1, arbitrary: fc.array(kind === 'live' ? liveRecordArb : hotRecordArb, { maxLength: 3 }) },
      {
        weight: 4,
        arbitrary: fc.array(kind === 'live' ? liveRecordArb : hotRecordArb, {
          minLength: 20,
          maxLength: 150,
          size: 'max',
        }),
      },
    ),
    absent: fc.array(ledgerKeyArb, { maxLength: 20 }),
    pageSize: fc.constantFrom(64, 256, 1024),
    cutoffFraction: fc.double({ min: 0, max: 1.5, noNaN: true }),
  }),
);

interface Oracle {
  /** key hex → payload and the offset of its record mark. */
  present: Map<string, { key: Uint8Array; payload: Uint8Array; offset: number }>;
  absent: Uint8Array[];
  /** LedgerEntryType → [start, end). */
  typeRanges: Map<number, { start: number; end: number }>;
}

/** Writes the scenario's bucket and computes, independently of the index code, what its index must answer. */
function makeBucket(dir: string, scenario: Scenario): { bucket: BucketFile; oracle: Oracle } {
  const ops = kindOps(scenario.kind);
  const byKey = new Map<string, Uint8Array>();
  const neighbours: Uint8Array[] = [];
  for (const [keyObject, generated, neighbour] of scenario.records) {
    let payload = generated;
    // INIT does not exist before protocol 11: make it LIVE.
    if (scenario.kind === 'live' && scenario.protocol < FIRST_PROTOCOL_INIT_AND_META && recordType(payload) === 2) {
      payload = new Uint8Array(payload);
      payload[3] = 0;
    }
    const key = toBytes(keyObject);
    if (!byKey.has(hex(key))) byKey.set(hex(key), payload);
    neighbours.push(neighbour);
  }
  const payloads = [...byKey.values()].sort(ops.compare);
  return bucketWithOracle(dir, scenario.kind, scenario.protocol, payloads, [...scenario.absent, ...neighbours]);
}

/** Writes sorted, distinct-key payloads as a bucket and works out its oracle; `absent` keys that are present are dropped. */
function bucketWithOracle(
  dir: string,
  kind: BucketKind,
  protocol: number,
  payloads: Uint8Array[],
  absent: Uint8Array[],
): { bucket: BucketFile; oracle: Oracle } {
  const ops = kindOps(kind);
  const bucket = writeBucket(dir, kind, protocol, payloads, { fsync: false });
  const present: Oracle['present'] = new Map();
  const typeStarts: [number, number][] = [];
  let offset = protocol >= FIRST_PROTOCOL_INIT_AND_META ? 4 + encodeMeta(kind, protocol).length : 0;
  for (const payload of payloads) {
    const tombstone = ops.isTombstone(recordType(payload));
    const key = tombstone ? payload.slice(4) : ledgerKeyOfEntry(payload.subarray(4));
    present.set(hex(key), { key, payload, offset });
    const type = new DataView(key.buffer, key.byteOffset).getInt32(0);
    if (typeStarts.length === 0 || typeStarts[typeStarts.length - 1]![0] !== type) typeStarts.push([type, offset]);
    offset += 4 + payload.length;
  }
  const typeRanges = new Map<number, { start: number; end: number }>();
  typeStarts.forEach(([type, start], i) => {
    typeRanges.set(type, { start, end: i + 1 < typeStarts.length ? typeStarts[i + 1]![1] : bucket.size });
  });
  return { bucket, oracle: { present, absent: absent.filter((key) => !present.has(hex(key))), typeRanges } };
}

/** Every disagreement between `index` and the oracle, as text (empty when they agree). */
function disagreements(index: BucketIndex, oracle: Oracle): string[] {
  const problems: string[] = [];
  for (const [keyHex, { key, payload }] of oracle.present) {
    const got = index.lookup(key);
    if (got === undefined || hex(got) !== hex(payload)) problems.push(`lookup ${keyHex}: ${got && hex(got)}`);
  }
  for (const key of oracle.absent) {
    const got = index.lookup(key);
    if (got !== undefined) problems.push(`absent ${hex(key)} found`);
  }
  // lookupSorted over present and absent keys together (sorted, with a repeated key).
  const keys = [...[...oracle.present.values()].map((entry) => entry.key), ...oracle.absent].sort(compareLedgerKeys);
  if (keys.length > 0) keys.push(keys[keys.length - 1]!);
  const found = new Map<number, string>();
  index.lookupSorted(keys, (i, payload) => {
    if (found.has(i)) problems.push(`lookupSorted reported ${i} twice`);
    found.set(i, hex(payload));
  });
  keys.forEach((key, i) => {
    const expected = oracle.present.get(hex(key));
    const got = found.get(i);
    if ((expected === undefined ? undefined : hex(expected.payload)) !== got) {
      problems.push(`lookupSorted ${i} ${hex(key)}: ${got}`);
    }
  });
  const ranges = [...index.typeRanges].map(([type, range]) => [type, range.start, range.end]);
  const expectedRanges = [...oracle.typeRanges].map(([type, range]) => [type, range.start, range.end]);
  if (JSON.stringify(ranges) !== JSON.stringify(expectedRanges)) {
    problems.push(`type ranges ${JSON.stringify(ranges)} != ${JSON.stringify(expectedRanges)}`);
  }
  return problems;
}

function withIndex<T>(index: BucketIndex, body: (index: BucketIndex) => T): T {
  try {
    return body(index);
  } finally {
    index.close();
  }
}

describe('BucketIndex against an oracle', () => {
  it('finds every present key, no absent key, and the type ranges, in every kind of index', () => {
    const root = tempDir('bucket-index');
    let run = 0;
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        // A directory per run: the same entries give the same bucket, whose index another run may have persisted.
        const dir = join(root, String(run++));
        mkdirSync(dir);
        const { bucket, oracle } = makeBucket(dir, scenario);
        const problems: string[] = [];
        const options = {
          pageSize: scenario.pageSize,
          onIndexProblem: (problem: BucketError) => problems.push(problem.message),
        };

        const inMemory = openBucketIndex(bucket, { ...options, inMemoryCutoff: Number.POSITIVE_INFINITY });
        expect(inMemory.kind).toBe('in-memory');
        expect(withIndex(inMemory, (index) => disagreements(index, oracle))).toEqual([]);
        if (bucket.path === undefined) return;

        const built = openBucketIndex(bucket, { ...options, inMemoryCutoff: 0 });
        expect(built.kind).toBe('page');
        expect(existsSync(indexPathOf(bucket.path))).toBe(true);
        expect(withIndex(built, (index) => disagreements(index, oracle))).toEqual([]);

        const reloaded = openBucketIndex(bucket, { ...options, inMemoryCutoff: 0 });
        expect(withIndex(reloaded, (index) => disagreements(index, oracle))).toEqual([]);
        // Loaded, not rebuilt: the filter seed is random per build.
        expect(samePageIndex(built, reloaded)).toBe(true);

        const cutoff = Math.floor(bucket.size * scenario.cutoffFraction);
        const builder = new BucketIndexBuilder(
          { path: bucket.path, kind: bucket.kind },
          { ...options, inMemoryCutoff: cutoff },
        );
        const verified = verifyBucketFile(bucket.path, bucket.kind, bucket.hash, (payload, offset) =>
          builder.add(payload, offset),
        );
        const incremental = builder.finish(verified);
        expect(incremental.kind).toBe(bucket.size < cutoff ? 'in-memory' : 'page');
        expect(withIndex(incremental, (index) => disagreements(index, oracle))).toEqual([]);
        expect(problems).toEqual([]);
      }),
      propertyParams({ numRuns: 60 }),
    );
  });

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

function scenarioOf(kind: BucketKind, records: GeneratedRecord[], pageSize = 256): Scenario {
  return { kind, protocol: 23, records, absent: [], pageSize, cutoffFraction: 0 };
}

function samePageIndex(a: BucketIndex, b: BucketIndex): boolean {
  if (!(a instanceof PageIndex) || !(b instanceof PageIndex)) return false;
  const same = (x: ArrayBufferView | undefined, y: ArrayBufferView | undefined) =>
    x === undefined || y === undefined
      ? x === y
      : Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  return (
    a.table.pageCount === b.table.pageCount &&
    same(a.table.pageOffsets, b.table.pageOffsets) &&
    same(a.table.keyStarts, b.table.keyStarts) &&
    same(a.table.keyBytes, b.table.keyBytes) &&
    a.filter?.hashSeed === b.filter?.hashSeed &&
    a.filter?.mixSeed === b.filter?.mixSeed &&
    same(a.filter?.fingerprints, b.filter?.fingerprints)
  );
}

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
