// The loser tree (src/loser-tree.ts) against an oracle over random buckets: keys of every type, many of them near
// neighbours (siblings sharing a contract, an account, a prefix of an SCVal), each bucket holding a random subset of
// them as INIT / LIVE / DEAD records. The oracle reads the buckets newest first and keeps the first record of each
// key, then sorts the live ones of a type by compareLedgerKeys: it shares nothing with the tree. Properties checked:
//  1. For every LedgerEntryType, the tree in its wasm arena returns exactly the oracle's entries: each key once, its
//     newest version, tombstoned keys absent, ascending.
//  2. The same with cursor regions so small that records outgrow them (those cursors move to buffers of their own and
//     their comparisons take the JavaScript comparator, mixed with arena comparisons), and with no arena at all.
//  3. The snapshot's scanCurrentLiveEntries and liveEntries give the same entries, and the count it returns.
// Negative control: a tree whose comparator never reports two keys equal (so no match notes a tie) emits older
// versions, and property 1's comparison catches it.
import type { xdr } from '@stellar/stellar-base';
import { compareLedgerKeys, encodeLedgerEntry, ledgerKeyOfEntry } from '@strata/ledger-key';
import { hex, propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketEntryForKeyArb, ledgerKeyObjectArb, siblingKeyArb, toBytes } from '../../ledger-key/test/arbitraries.js';
import { type BucketFile, emptyBucket, writeBucket } from '../src/bucket-file.js';
import { openBucketIndex } from '../src/bucket-index/bucket-index.js';
import { DEAD_ENTRY, kindOps, recordType } from '../src/kind.js';
import { LoserTree, type LoserTreeInput, type LoserTreeOptions } from '../src/loser-tree.js';
import { BucketListSnapshot, type SnapshotBucket } from '../src/snapshot.js';
import { notMeta } from './support.js';

const TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const ops = kindOps('live');

/** A pool of distinct keys: random ones and a sibling of each (keys that share most of their structure). */
const keyPoolArb = fc
  .array(
    ledgerKeyObjectArb.chain((key) => fc.tuple(fc.constant(key), siblingKeyArb(key))),
    { minLength: 1, maxLength: 25 },
  )
  .map((pairs) => {
    const byHex = new Map<string, xdr.LedgerKey>();
    for (const pair of pairs) for (const key of pair) byHex.set(hex(toBytes(key)), key);
    return [...byHex.values()];
  });

/** Buckets newest first, each a random subset of the pool as records (payloads: discriminant, then the XDR). */
const bucketsArb: fc.Arbitrary<Uint8Array[][]> = keyPoolArb.chain((pool) =>
  fc.array(
    fc.subarray(pool).chain((keys) => fc.tuple(...keys.map((key) => bucketEntryForKeyArb(key).filter(notMeta)))),
    { minLength: 1, maxLength: 8 },
  ),
);

const keyOfRecord = (payload: Uint8Array): Uint8Array =>
  recordType(payload) === DEAD_ENTRY ? payload.subarray(4) : ledgerKeyOfEntry(payload.subarray(4));

/** The oracle: per type, the live newest entries ascending by key, as hex. */
function oracle(buckets: readonly Uint8Array[][]): Map<number, string[]> {
  const newest = new Map<string, { key: Uint8Array; payload: Uint8Array }>();
  for (const records of buckets) {
    for (const payload of records) {
      const key = keyOfRecord(payload);
      if (!newest.has(hex(key))) newest.set(hex(key), { key, payload });
    }
  }
  const byType = new Map<number, { key: Uint8Array; payload: Uint8Array }[]>(TYPES.map((type) => [type, []]));
  for (const found of newest.values()) {
    if (recordType(found.payload) === DEAD_ENTRY) continue;
    byType.get(new DataView(found.key.buffer, found.key.byteOffset).getInt32(0))!.push(found);
  }
  return new Map(
    [...byType].map(([type, list]) => [
      type,
      list.sort((a, b) => compareLedgerKeys(a.key, b.key)).map(({ payload }) => hex(payload.subarray(4))),
    ]),
  );
}

interface Written {
  files: BucketFile[];
  view: BucketListSnapshot;
}

/** Writes the buckets (each sorted, as a bucket is) and a snapshot with them in its first slots, newest first. */
function write(dir: string, buckets: readonly Uint8Array[][]): Written {
  const files = buckets.map((records) =>
    writeBucket(dir, 'live', 23, [...records].sort(ops.compare), { fsync: false }),
  );
  const slots: SnapshotBucket[] = Array.from({ length: 22 }, (_, slot) => {
    const file = files[slot] ?? emptyBucket('live');
    return { file, index: file.path === undefined ? undefined : openBucketIndex(file) };
  });
  const empty = Array.from({ length: 22 }, () => ({ file: emptyBucket('hot-archive'), index: undefined }));
  return { files, view: new BucketListSnapshot(1, slots, empty, () => undefined) };
}

/** One input per bucket that holds the type, newest first (what the snapshot hands the tree). */
function inputsOf(view: BucketListSnapshot, type: number): LoserTreeInput[] {
  const inputs: LoserTreeInput[] = [];
  for (const bucket of view.live) {
    const range = bucket.index?.typeRanges.get(type);
    if (range !== undefined && bucket.file.path !== undefined) {
      inputs.push({ path: bucket.file.path, start: range.start, end: range.end, check: undefined });
    }
  }
  return inputs;
}

/** How the trees drained so far ran: from start to end in wasm or JavaScript, or switching on the way. */
const engines = { wasm: 0, javascript: 0, switched: 0 };

function drain(inputs: LoserTreeInput[], options?: LoserTreeOptions): string[] {
  const tree = new LoserTree(inputs, options);
  const started = tree.engine;
  const out: string[] = [];
  try {
    for (let entry = tree.next(); entry !== undefined; entry = tree.next()) out.push(hex(entry));
  } finally {
    tree.close();
  }
  if (started !== tree.engine) engines.switched++;
  else engines[started]++;
  return out;
}

describe('LoserTree against the newest-first oracle', () => {
  it('arena, small regions (JavaScript comparator mixed in), no arena, and the snapshot scans all agree with the oracle', async () => {
    const dir = tempDir('loser-tree');
    // What the runs exercised: entries returned, and runs where an older version had to be skipped.
    let returned = 0;
    let shadowed = 0;
    await fc.assert(
      fc.asyncProperty(bucketsArb, fc.constantFrom(16, 64, 200, 512, 1024), async (buckets, regionBytes) => {
        const { view } = write(dir, buckets);
        const expected = oracle(buckets);
        if (hasShadowedLiveKey(buckets)) shadowed++;
        for (const type of TYPES) {
          const want = expected.get(type)!;
          const inputs = inputsOf(view, type);
          expect(drain(inputs), `type ${type}, wasm loop`).toEqual(want);
          expect(drain(inputs, { regionBytes }), `type ${type}, regions of ${regionBytes}`).toEqual(want);
          expect(drain(inputs, { loop: false }), `type ${type}, JavaScript tree in the arena`).toEqual(want);
          expect(drain(inputs, { arena: false }), `type ${type}, no arena`).toEqual(want);
          const scanned: string[] = [];
          expect(view.scanCurrentLiveEntries(type, (entry) => scanned.push(hex(entry)))).toBe(want.length);
          expect(scanned, `type ${type}, scanCurrentLiveEntries`).toEqual(want);
          const iterated: string[] = [];
          for await (const entry of view.liveEntries(type)) iterated.push(hex(entry));
          expect(iterated, `type ${type}, liveEntries`).toEqual(want);
          returned += want.length;
        }
      }),
      propertyParams({ numRuns: 60 }),
    );
    expect(returned).toBeGreaterThan(100);
    expect(shadowed).toBeGreaterThan(10);
    // A mid-scan hand-over needs a record that outgrows its region after the first ones fit: most seeds of the runs
    // above take one, not every seed. So, deterministically: fixed-seed samples of the same buckets, every region
    // size, until one hands over (each drain still checked against the oracle).
    for (const buckets of fc.sample(bucketsArb, { seed: 20_261_202, numRuns: 200 })) {
      if (engines.switched > 0) break;
      const { view } = write(dir, buckets);
      const expected = oracle(buckets);
      for (const type of TYPES) {
        for (const regionBytes of [16, 64, 200, 512, 1024]) {
          expect(drain(inputsOf(view, type), { regionBytes }), `type ${type}, regions of ${regionBytes}`).toEqual(
            expected.get(type)!,
          );
        }
      }
    }
    // Every way of running was taken: wasm throughout, JavaScript throughout, and wasm handing over mid-scan.
    expect(engines.wasm).toBeGreaterThan(0);
    expect(engines.javascript).toBeGreaterThan(0);
    expect(engines.switched, JSON.stringify(engines)).toBeGreaterThan(0);
  }, 120_000);

  it('hands over to JavaScript mid-scan when a record outgrows its region, and the scan goes on as if nothing happened', () => {
    const dir = tempDir('loser-tree-hand-over');
    const code = (n: number, version: number, bytes: number): Uint8Array => {
      const hash = new Uint8Array(32);
      new DataView(hash.buffer).setUint32(0, n);
      return encodeLedgerEntry({
        lastModifiedLedgerSeq: version,
        data: { type: 'contractCode', hash, code: new Uint8Array(bytes).fill(version) },
      });
    };
    const live = (entry: Uint8Array) => concat([0, 0, 0, 0], entry);
    const dead = (entry: Uint8Array) => concat([0, 0, 0, 1], ledgerKeyOfEntry(entry));
    // Three buckets, newest first, over keys 0..59: small codes, but keys 20 and 41 grow past a 1 KiB region in
    // the middle bucket; every third key has a newer version, key 30 is deleted in the newest bucket.
    const buckets: Uint8Array[][] = [[], [], []];
    for (let n = 0; n < 60; n++) {
      buckets[2]!.push(live(code(n, 1, 40)));
      buckets[1]!.push(live(code(n, 2, n === 20 || n === 41 ? 3000 : 40)));
      if (n % 3 === 0) buckets[0]!.push(n === 30 ? dead(code(n, 3, 40)) : live(code(n, 3, 24)));
    }
    const { view } = write(dir, buckets);
    const want = oracle(buckets).get(7)!;
    expect(want).toHaveLength(59);
    const tree = new LoserTree(inputsOf(view, 7), { regionBytes: 1024 });
    expect(tree.engine).toBe('wasm');
    const got: string[] = [];
    for (let entry = tree.next(); entry !== undefined; entry = tree.next()) got.push(hex(entry));
    expect(tree.engine).toBe('javascript');
    tree.close();
    expect(got).toEqual(want);
  });

  it('negative control: a comparator that never reports equal keys lets older versions through, and the oracle sees it', () => {
    const dir = tempDir('loser-tree-control');
    const buckets = fc.sample(bucketsArb.filter(hasShadowedLiveKey), { numRuns: 1, seed: 7 })[0]!;
    const { view } = write(dir, buckets);
    const expected = oracle(buckets);
    const prototype = LoserTree.prototype as unknown as { order(a: number, b: number): number };
    const order = prototype.order;
    const got = new Map<number, string[]>();
    prototype.order = function (this: unknown, a: number, b: number): number {
      return order.call(this, a, b) || (a < b ? -1 : 1);
    };
    try {
      for (const type of TYPES) got.set(type, drain(inputsOf(view, type)));
    } finally {
      prototype.order = order;
    }
    expect(got).not.toEqual(expected);
    for (const type of TYPES) expect(drain(inputsOf(view, type))).toEqual(expected.get(type));
  });
});

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/** Some key has a live newest record and an older record in another bucket (an older version to skip). */
function hasShadowedLiveKey(buckets: Uint8Array[][]): boolean {
  const seen = new Map<string, number>();
  for (const records of buckets) {
    for (const payload of records) {
      const key = hex(keyOfRecord(payload));
      const newest = seen.get(key);
      if (newest === undefined) seen.set(key, recordType(payload));
      else if (newest !== DEAD_ENTRY) return true;
    }
  }
  return false;
}
