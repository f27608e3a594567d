// Bucket files and merges: stellar-core's equal-key case table cell by cell (files and in memory), tombstone
// dropping at the bottom level, protocol rules, fresh batches, the exact file format and hash, and the errors.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareBucketEntries,
  compareHotArchiveBucketEntries,
  encodeLedgerEntry,
  ledgerKeyOfEntry,
} from '@strata/ledger-key';
import { hex, seededRandom, tempDir } from '@strata/test-kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { type BucketFile, BucketInput, emptyBucket, verifyBucketFile, writeBucket } from '../src/bucket-file.js';
import { BucketError } from '../src/errors.js';
import { bucketRecord, DEAD_ENTRY, encodeMeta, HOT_ARCHIVED, HOT_LIVE, INIT_ENTRY, LIVE_ENTRY } from '../src/kind.js';
import { freshHotArchiveEntries, freshLiveEntries, mergeArrays, mergeBucketFiles } from '../src/merge/bucket-merge.js';
import { RecordReader, RecordWriter } from '../src/record-io.js';
import { oracleMerge } from './merge-oracle.js';
import { poolEntry, poolKey } from './support.js';

// A fresh directory for each test (test-kit's tempDir, removed when the test finishes).
const dir = { path: '' };
beforeEach(() => {
  dir.path = tempDir('bucket-merge');
});

const tag = bucketRecord;
const init = (n: number, v: number) => tag(INIT_ENTRY, poolEntry(n, v));
const live = (n: number, v: number) => tag(LIVE_ENTRY, poolEntry(n, v));
const dead = (n: number) => tag(DEAD_ENTRY, poolKey(n));
const archived = (n: number, v: number) => tag(HOT_ARCHIVED, poolEntry(n, v));
const restored = (n: number) => tag(HOT_LIVE, poolKey(n));

function bucketOf(kind: 'live' | 'hot-archive', payloads: Uint8Array[], protocol = 23): BucketFile {
  return writeBucket(dir.path, kind, protocol, payloads, { fsync: false });
}

/** File offsets of every record mark of a bucket file's bytes (META included). */
function recordOffsets(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; at += 4 + (view.getUint32(at) & 0x7fffffff)) offsets.push(at);
  return offsets;
}

/** The LedgerKey of a live bucket record (a DEAD record holds the key itself). */
function ledgerKeyOfRecord(record: Uint8Array): Uint8Array {
  return record[3] === DEAD_ENTRY ? record.subarray(4) : ledgerKeyOfEntry(record.subarray(4));
}

function entriesOf(bucket: BucketFile): string[] {
  const out: string[] = [];
  const input = new BucketInput(bucket);
  for (; input.current !== undefined; input.advance()) out.push(hex(input.current));
  input.close();
  return out;
}

/** Merge `older` and `newer` (one record each, same key) both ways the list does: files and in memory. */
function mergeOne(kind: 'live' | 'hot-archive', older: Uint8Array, newer: Uint8Array, keepTombstones = true): string[] {
  const files = mergeBucketFiles(dir.path, bucketOf(kind, [older]), bucketOf(kind, [newer]), {
    maxProtocolVersion: 23,
    keepTombstones,
    fsync: false,
  });
  const memory = mergeArrays(kind, [older], [newer], keepTombstones).map(hex);
  expect(entriesOf(files)).toEqual(memory);
  return memory;
}

describe('live merge case table (LiveBucket::mergeCasesWithEqualKeys)', () => {
  const cases: [string, () => Uint8Array, () => Uint8Array, (() => Uint8Array) | 'nothing' | 'error'][] = [
    ['INIT + INIT → error', () => init(2, 1), () => init(2, 2), 'error'],
    ['LIVE + INIT → error', () => live(2, 1), () => init(2, 2), 'error'],
    ['DEAD + INIT=x → LIVE=x', () => dead(2), () => init(2, 2), () => live(2, 2)],
    ['INIT=x + LIVE=y → INIT=y', () => init(2, 1), () => live(2, 2), () => init(2, 2)],
    ['LIVE + LIVE=y → LIVE=y', () => live(2, 1), () => live(2, 2), () => live(2, 2)],
    ['DEAD + LIVE=y → LIVE=y', () => dead(2), () => live(2, 2), () => live(2, 2)],
    ['INIT + DEAD → nothing (annihilated)', () => init(2, 1), () => dead(2), 'nothing'],
    ['LIVE + DEAD → DEAD', () => live(2, 1), () => dead(2), () => dead(2)],
    ['DEAD + DEAD → DEAD', () => dead(2), () => dead(2), () => dead(2)],
  ];
  for (const [name, older, newer, expected] of cases) {
    it(name, () => {
      if (expected === 'error') {
        expect(() => mergeOne('live', older(), newer())).toThrow(expect.objectContaining({ code: 'MERGE_CONFLICT' }));
      } else if (expected === 'nothing') {
        expect(mergeOne('live', older(), newer())).toEqual([]);
      } else {
        expect(mergeOne('live', older(), newer())).toEqual([hex(expected())]);
      }
    });
  }

  it('merges into the bottom level drop tombstones (LIVE + DEAD → nothing), and keep INIT as INIT', () => {
    expect(mergeOne('live', live(2, 1), dead(2), false)).toEqual([]);
    expect(mergeOne('live', init(2, 1), live(2, 2), false)).toEqual([hex(init(2, 2))]);
  });

  it('different keys interleave in key order, and the result is a valid sorted bucket', () => {
    const older = [init(1, 1), live(3, 1), dead(5), live(7, 1)].sort(compareBucketEntries);
    const newer = [live(2, 2), dead(3), init(5, 2), live(8, 2)].sort(compareBucketEntries);
    const merged = mergeBucketFiles(dir.path, bucketOf('live', older), bucketOf('live', newer), {
      maxProtocolVersion: 23,
      fsync: false,
    });
    const expected = [init(1, 1), live(2, 2), dead(3), live(5, 2), live(7, 1), live(8, 2)].sort(compareBucketEntries);
    expect(entriesOf(merged)).toEqual(expected.map(hex));
    expect(verifyBucketFile(merged.path!, 'live', merged.hash).entries).toBe(6);
  });
});

describe('hot archive merges (HotArchiveBucket: the newer entry wins)', () => {
  const cases: [string, () => Uint8Array, () => Uint8Array][] = [
    ['ARCHIVED + ARCHIVED=y → ARCHIVED=y', () => archived(2, 1), () => archived(2, 2)],
    ['ARCHIVED + LIVE → LIVE', () => archived(2, 1), () => restored(2)],
    ['LIVE + ARCHIVED=y → ARCHIVED=y', () => restored(2), () => archived(2, 2)],
    ['LIVE + LIVE → LIVE', () => restored(2), () => restored(2)],
  ];
  for (const [name, older, newer] of cases) {
    it(name, () => expect(mergeOne('hot-archive', older(), newer())).toEqual([hex(newer())]));
  }
  it('merges into the bottom level drop HOT_ARCHIVE_LIVE tombstones', () => {
    expect(mergeOne('hot-archive', archived(2, 1), restored(2), false)).toEqual([]);
  });
});

/**
 * Two valid inputs of `size` keys drawn from `space` (so the case table is legal: no INIT onto a live entry). `skew`
 * is the share of the older bucket's keys the newer one touches: low values give long runs from the older input.
 */
function randomInputs(
  kind: 'live' | 'hot-archive',
  seed: number,
  size: number,
  skew: number,
): { older: Uint8Array[]; newer: Uint8Array[] } {
  const random = seededRandom(seed);
  const older: Uint8Array[] = [];
  const newer: Uint8Array[] = [];
  const pick = <T>(options: T[]): T => options[Math.floor(random() * options.length)]!;
  // The hot archive takes Soroban entries only: pool kinds 2, 3 (contract data) and 5 (contract code).
  const keys: number[] = [];
  for (let n = 0; keys.length < size; n++) if (kind === 'live' || [2, 3, 5].includes(n % 7)) keys.push(n);
  for (const n of keys) {
    const inOld = random() < 0.7;
    const inNew = inOld ? random() < skew : true;
    let oldType = -1;
    if (inOld) {
      oldType = kind === 'live' ? pick([INIT_ENTRY, LIVE_ENTRY, DEAD_ENTRY]) : pick([HOT_ARCHIVED, HOT_LIVE]);
      older.push(
        kind === 'live'
          ? tag(oldType, oldType === DEAD_ENTRY ? poolKey(n) : poolEntry(n, 1))
          : oldType === HOT_LIVE
            ? restored(n)
            : archived(n, 1),
      );
    }
    if (inNew) {
      if (kind === 'live') {
        const liveOld = oldType === INIT_ENTRY || oldType === LIVE_ENTRY;
        const type = pick(liveOld ? [LIVE_ENTRY, DEAD_ENTRY] : [INIT_ENTRY, LIVE_ENTRY, DEAD_ENTRY]);
        newer.push(tag(type, type === DEAD_ENTRY ? poolKey(n) : poolEntry(n, 2)));
      } else {
        newer.push(random() < 0.5 ? restored(n) : archived(n, 2));
      }
    }
  }
  const order = kind === 'live' ? compareBucketEntries : compareHotArchiveBucketEntries;
  older.sort(order);
  newer.sort(order);
  return { older, newer };
}

describe('file merges against an independent concat-sort-dedupe oracle (runs of records, buffer refills, tombstones)', () => {
  // Read buffers from smaller than one record (every record grows or refills the buffer, every run is flushed
  // before a refill) to larger than both files (whole-file runs, the tail of one input in one copy).
  const bufferSizes = [4, 60, 256, 1024, 1 << 20];
  const shapes: [string, number][] = [
    ['interleaved', 1],
    ['long runs from the older input', 0.1],
  ];
  for (const kind of ['live', 'hot-archive'] as const) {
    for (const [shape, skew] of shapes) {
      for (const keepTombstones of [true, false]) {
        it(`${kind}, ${shape}, ${keepTombstones ? 'tombstones kept' : 'bottom level: tombstones dropped'}`, () => {
          const { older, newer } = randomInputs(kind, 11 + skew * 10 + (kind === 'live' ? 0 : 100), 160, skew);
          const olderFile = bucketOf(kind, older);
          const newerFile = bucketOf(kind, newer);
          const expected = oracleMerge(kind, older, newer, keepTombstones);
          expect(mergeArrays(kind, older, newer, keepTombstones).map(hex)).toEqual(expected.map(hex));
          // The same records through BucketOutput.put one by one: the bytes a file merge must reproduce.
          const reference = writeBucket(dir.path, kind, 23, expected, { fsync: false, keepTombstones });
          for (const readBufferSize of bufferSizes) {
            const merged = mergeBucketFiles(dir.path, olderFile, newerFile, {
              maxProtocolVersion: 23,
              keepTombstones,
              fsync: false,
              readBufferSize,
            });
            expect(merged.hash, `read buffer ${readBufferSize}`).toBe(reference.hash);
            expect(merged.entries).toBe(expected.length);
            expect(merged.size).toBe(reference.size);
          }
          expect(entriesOf(reference)).toEqual(expected.map(hex));
          expect(verifyBucketFile(reference.path!, kind, reference.hash).entries).toBe(expected.length);
        });
      }
    }
  }

  it('negative control: deliberately wrong merges fail the oracle check', () => {
    // Hot archive: the inputs swapped, so the older record wins each equal key.
    const hot = randomInputs('hot-archive', 23, 120, 1);
    const swapped = mergeBucketFiles(dir.path, bucketOf('hot-archive', hot.newer), bucketOf('hot-archive', hot.older), {
      maxProtocolVersion: 23,
      keepTombstones: true,
      fsync: false,
    });
    expect(entriesOf(swapped)).not.toEqual(oracleMerge('hot-archive', hot.older, hot.newer, true).map(hex));
    // Live: newest wins but without the INIT/DEAD rules (INIT + DEAD not annihilated, INIT + LIVE not kept INIT).
    const { older, newer } = randomInputs('live', 23, 120, 1);
    const newest = new Map<string, Uint8Array>();
    for (const record of [...older, ...newer]) newest.set(hex(ledgerKeyOfRecord(record)), record);
    const naive = [...newest.values()].sort(compareBucketEntries);
    expect(entriesOf(bucketOf('live', naive))).not.toEqual(oracleMerge('live', older, newer, true).map(hex));
  });

  it('one empty input: the other is copied whole (tombstones dropped at the bottom level)', () => {
    const { older } = randomInputs('live', 5, 60, 0);
    const olderFile = bucketOf('live', older);
    for (const keepTombstones of [true, false]) {
      const expected = oracleMerge('live', older, [], keepTombstones);
      const reference = writeBucket(dir.path, 'live', 23, expected, { fsync: false, keepTombstones });
      for (const [a, b] of [
        [olderFile, emptyBucket('live')],
        [emptyBucket('live'), olderFile],
      ] as const) {
        const merged = mergeBucketFiles(dir.path, a, b, {
          maxProtocolVersion: 23,
          keepTombstones,
          fsync: false,
          readBufferSize: 64,
        });
        expect(merged.hash).toBe(reference.hash);
      }
    }
  });

  it('pre-11 buckets (no META, no INIT) merge record by record through the checked path', () => {
    const older = [live(1, 1), dead(3), live(5, 1), live(8, 1)].sort(compareBucketEntries);
    const newer = [dead(1), live(2, 2), live(3, 2), live(8, 2)].sort(compareBucketEntries);
    for (const keepTombstones of [true, false]) {
      const merged = mergeBucketFiles(dir.path, bucketOf('live', older, 10), bucketOf('live', newer, 10), {
        maxProtocolVersion: 10,
        keepTombstones,
        fsync: false,
        readBufferSize: 32,
      });
      const expected = oracleMerge('live', older, newer, keepTombstones);
      expect(merged.protocolVersion).toBe(0); // no META to say which: as stellar-core, the version is 0
      expect(entriesOf(merged)).toEqual(expected.map(hex));
      expect(merged.hash).toBe(writeBucket(dir.path, 'live', 0, expected, { fsync: false }).hash);
    }
  });

  it('a conflict names the newer file and the offset of its record; a truncated input is TRUNCATED at its record', () => {
    const newerFile = bucketOf('live', [init(2, 2)]);
    expect(() =>
      mergeBucketFiles(dir.path, bucketOf('live', [live(2, 1)]), newerFile, { maxProtocolVersion: 23, fsync: false }),
    ).toThrow(expect.objectContaining({ code: 'MERGE_CONFLICT', file: newerFile.path, offset: 20 }));

    const { older, newer } = randomInputs('live', 9, 40, 1);
    const olderFile = bucketOf('live', older);
    const bytes = readFileSync(olderFile.path!);
    const cutPath = join(dir.path, 'truncated.xdr');
    writeFileSync(cutPath, bytes.subarray(0, bytes.length - 6));
    const newerFile2 = bucketOf('live', newer);
    const before = readdirSync(dir.path).length;
    for (const readBufferSize of [16, 1 << 20]) {
      expect(() =>
        mergeBucketFiles(dir.path, { ...olderFile, path: cutPath }, newerFile2, {
          maxProtocolVersion: 23,
          fsync: false,
          readBufferSize,
        }),
      ).toThrow(expect.objectContaining({ code: 'TRUNCATED', file: cutPath }));
    }
    expect(readdirSync(dir.path).length).toBe(before); // no temporary output left behind
  });

  it('the WebAssembly loop: a record larger than its read buffers makes the merge start over in JavaScript', () => {
    const { older, newer } = randomInputs('live', 21, 120, 1);
    // A 3 KB contract code entry (pool kind 5) in the middle of the older input; the read buffers hold 1 KiB.
    const big = tag(
      INIT_ENTRY,
      encodeLedgerEntry({
        lastModifiedLedgerSeq: 1,
        data: { type: 'contractCode', hash: new Uint8Array(32).fill(0x5a), code: new Uint8Array(3000).fill(7) },
      }),
    );
    older.push(big);
    older.sort(compareBucketEntries);
    expect(older.indexOf(big)).toBeGreaterThan(5);
    expect(older.indexOf(big)).toBeLessThan(older.length - 5);
    const olderFile = bucketOf('live', older);
    const newerFile = bucketOf('live', newer);
    const reference = writeBucket(dir.path, 'live', 23, mergeArrays('live', older, newer), { fsync: false });
    const before = readdirSync(dir.path).length;
    for (const readBufferSize of [1024, 1 << 20]) {
      const merged = mergeBucketFiles(dir.path, olderFile, newerFile, {
        maxProtocolVersion: 23,
        fsync: false,
        readBufferSize,
      });
      expect(merged.hash, `read buffer ${readBufferSize}`).toBe(reference.hash);
    }
    expect(readdirSync(dir.path).length).toBe(before); // the abandoned attempt left no temporary file
  });

  it('a malformed record mark inside an input is BAD_RECORD_MARK at its offset, on every path', () => {
    const { older, newer } = randomInputs('live', 23, 200, 1);
    const olderFile = bucketOf('live', older);
    const newerFile = bucketOf('live', newer);
    const bytes = new Uint8Array(readFileSync(olderFile.path!));
    const marks = recordOffsets(bytes);
    const at = marks[marks.length - 20]!; // past the first 1 KiB: found after refills with small buffers
    bytes[at] = bytes[at]! & 0x7f; // the last-fragment bit cleared
    const badPath = join(dir.path, 'bad-mark.xdr');
    writeFileSync(badPath, bytes);
    const before = readdirSync(dir.path).length;
    for (const readBufferSize of [60, 256, 1024, 1 << 20]) {
      expect(() =>
        mergeBucketFiles(dir.path, { ...olderFile, path: badPath }, newerFile, {
          maxProtocolVersion: 23,
          fsync: false,
          readBufferSize,
        }),
      ).toThrow(expect.objectContaining({ code: 'BAD_RECORD_MARK', file: badPath, offset: at }));
    }
    expect(readdirSync(dir.path).length).toBe(before);
  });

  it('a record that is not an entry among the entries is BAD_ENTRY at its record (WebAssembly loop)', () => {
    const { older, newer } = randomInputs('live', 25, 60, 1);
    const newerFile = bucketOf('live', newer);
    const bytes = new Uint8Array(readFileSync(bucketOf('live', older).path!));
    const at = recordOffsets(bytes)[10]!;
    bytes.set([0, 0, 0, 3], at + 4); // discriminant 3: no BucketEntryType
    const badPath = join(dir.path, 'bad-type.xdr');
    writeFileSync(badPath, bytes);
    const olderFile = verifyBucketFile(bucketOf('live', older).path!, 'live', undefined);
    expect(() =>
      mergeBucketFiles(dir.path, { ...olderFile, path: badPath }, newerFile, { maxProtocolVersion: 23, fsync: false }),
    ).toThrow(expect.objectContaining({ code: 'BAD_ENTRY', file: badPath, offset: at }));
  });

  it('readBufferSize outside [4, 2^26] is INVALID_ARGUMENT', () => {
    const bucket = bucketOf('live', [live(1, 1)]);
    for (const readBufferSize of [0, 3, 1.5, 2 ** 27]) {
      expect(() => mergeBucketFiles(dir.path, bucket, bucket, { maxProtocolVersion: 23, readBufferSize })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'readBufferSize' }),
      );
    }
  });
});

describe('record I/O', () => {
  it('putRun copies whole records verbatim, also runs larger than the write buffer, interleaved with put', () => {
    const records = [live(1, 1), dead(2), init(3, 4), live(4, 1)];
    const marked = Buffer.concat(
      records.map((payload) => {
        const mark = Buffer.alloc(4);
        mark.writeUInt32BE((0x80000000 | payload.length) >>> 0);
        return Buffer.concat([mark, payload]);
      }),
    );
    const path = join(dir.path, 'runs.tmp');
    const writer = new RecordWriter(path, false, { bufferSize: 64 }); // smaller than the run below
    writer.put(records[0]!);
    const firstLength = 4 + records[0]!.length;
    writer.putRun(marked, firstLength, marked.length, 3);
    writer.putRun(marked, 0, firstLength, 1);
    const hash = writer.finish();
    const expected = Buffer.concat([marked, marked.subarray(0, firstLength)]);
    const written = readFileSync(path);
    expect(written.equals(expected)).toBe(true);
    expect(hash).toBe(createHash('sha256').update(expected).digest('hex'));
    expect([writer.records, writer.bytesWritten]).toEqual([5, expected.length]);

    // beforeRefill runs before the reader moves its buffer, while positions of returned records are still valid.
    const reader = new RecordReader(path, { bufferSize: 8 });
    const seen: string[] = [];
    let pending = '';
    reader.beforeRefill = () => {
      seen.push(pending);
      pending = '';
    };
    while (reader.next()) pending += hex(reader.buffer.subarray(reader.payloadStart, reader.payloadEnd));
    reader.close();
    expect(seen.join('') + pending).toBe([...records, records[0]!].map(hex).join(''));
  });
});

describe('protocol rules', () => {
  it('the output takes the newer input protocol; an input newer than the maximum is an error', () => {
    const a = bucketOf('live', [live(1, 1)], 20);
    const b = bucketOf('live', [live(2, 1)], 22);
    expect(mergeBucketFiles(dir.path, a, b, { maxProtocolVersion: 22, fsync: false }).protocolVersion).toBe(22);
    expect(() => mergeBucketFiles(dir.path, a, b, { maxProtocolVersion: 21, fsync: false })).toThrow(
      expect.objectContaining({ code: 'PROTOCOL' }),
    );
  });

  it('pre-11 buckets have no META and take no INIT; fresh batches write LIVE for created entries', () => {
    const fresh = freshLiveEntries(10, { init: [poolEntry(1, 1)], live: [], dead: [] });
    expect(fresh.map(hex)).toEqual([hex(live(1, 1))]);
    const bucket = writeBucket(dir.path, 'live', 10, fresh, { fsync: false });
    expect(readFileSync(bucket.path!).length).toBe(4 + fresh[0]!.length);
    expect(() => writeBucket(dir.path, 'live', 10, [init(1, 1)], { fsync: false })).toThrow(
      expect.objectContaining({ code: 'PROTOCOL' }),
    );
  });

  it('a pre-11 bucket with no records is the empty bucket: zero hash, no file', () => {
    const before = readdirSync(dir.path).length;
    expect(writeBucket(dir.path, 'live', 10, [], { fsync: false })).toEqual(emptyBucket('live'));
    expect(readdirSync(dir.path).length).toBe(before);
  });
});

describe('file format', () => {
  it('META first (ext v1 + list type from 23, v0 before), record marks with the top bit, SHA-256 of the file', () => {
    const entries = freshLiveEntries(23, { init: [poolEntry(3, 5)], live: [poolEntry(1, 5)], dead: [poolKey(2)] });
    const bucket = bucketOf('live', entries, 23);
    const bytes = readFileSync(bucket.path!);
    expect(bucket.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(bucket.path).toBe(join(dir.path, `bucket-${bucket.hash}.xdr`));
    // META record: mark 0x80000010, type -1, ledgerVersion 23, ext v1, LIVE (0): 20 bytes.
    expect(bytes.subarray(0, 20).toString('hex')).toBe('80000010' + 'ffffffff' + '00000017' + '00000001' + '00000000');
    expect(hex(encodeMeta('live', 22))).toBe('ffffffff' + '00000016' + '00000000');
    expect(hex(encodeMeta('hot-archive', 23))).toBe('ffffffff' + '00000017' + '00000001' + '00000001');
    expect(bucket.entries).toBe(3);
    expect(bucket.size).toBe(bytes.length);
  });

  it('deterministic: the same batch gives the same bytes and hash, whatever the input order', () => {
    const a = freshLiveEntries(23, {
      init: [poolEntry(3, 5), poolEntry(9, 5)],
      live: [poolEntry(1, 5)],
      dead: [poolKey(2)],
    });
    const b = freshLiveEntries(23, {
      init: [poolEntry(9, 5), poolEntry(3, 5)],
      live: [poolEntry(1, 5)],
      dead: [poolKey(2)],
    });
    expect(bucketOf('live', a).hash).toBe(bucketOf('live', b).hash);
  });

  it('a key in two lists of one batch is rejected', () => {
    expect(() => freshLiveEntries(23, { init: [poolEntry(3, 5)], live: [poolEntry(3, 6)], dead: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('the hot archive takes only Soroban entries', () => {
    expect(() => freshHotArchiveEntries({ archived: [poolEntry(0, 1)], restored: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(freshHotArchiveEntries({ archived: [poolEntry(2, 1)], restored: [poolKey(5)] })).toHaveLength(2);
  });
});

describe('corrupt bucket files', () => {
  const good = (): { bucket: BucketFile; bytes: Buffer } => {
    const entries = freshLiveEntries(23, {
      init: [0, 1, 2, 3, 4, 5, 6].map((n) => poolEntry(n, 9)),
      live: [],
      dead: [],
    });
    const bucket = bucketOf('live', entries);
    return { bucket, bytes: readFileSync(bucket.path!) };
  };
  const corrupt = (bytes: Uint8Array): string => {
    const path = join(dir.path, 'corrupt.xdr');
    writeFileSync(path, bytes);
    return path;
  };

  it('a hash mismatch is HASH_MISMATCH with the file', () => {
    const { bucket } = good();
    const other = 'f'.repeat(64);
    expect(() => verifyBucketFile(bucket.path!, 'live', other)).toThrow(
      expect.objectContaining({ code: 'HASH_MISMATCH', file: bucket.path }),
    );
  });

  it('every truncation is TRUNCATED at the cut record (or a clean shorter bucket at a record boundary)', () => {
    const { bytes } = good();
    for (let cut = 1; cut < bytes.length; cut++) {
      const path = corrupt(bytes.subarray(0, cut));
      try {
        verifyBucketFile(path, 'live', undefined);
      } catch (error) {
        expect(error).toBeInstanceOf(BucketError);
        expect(['TRUNCATED', 'BAD_RECORD_MARK']).toContain((error as BucketError).code);
        expect((error as BucketError).offset).toBeLessThanOrEqual(cut);
      }
    }
  });

  it('every single-byte flip is a BucketError or a different hash, never another exception', () => {
    const { bucket, bytes } = good();
    for (let at = 0; at < bytes.length; at++) {
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 0x5a;
      const path = corrupt(flipped);
      expect(() => verifyBucketFile(path, 'live', bucket.hash)).toThrow(BucketError);
    }
  });

  it('out-of-order and duplicate entries are OUT_OF_ORDER at the record', () => {
    const swapped = writeBucket(dir.path, 'live', 23, [live(1, 1), live(0, 1)].sort(compareBucketEntries).reverse(), {
      fsync: false,
    });
    expect(() => verifyBucketFile(swapped.path!, 'live', undefined)).toThrow(
      expect.objectContaining({ code: 'OUT_OF_ORDER', offset: expect.any(Number) }),
    );
    const twice = writeBucket(dir.path, 'live', 23, [live(1, 1), dead(1)], { fsync: false });
    expect(() => verifyBucketFile(twice.path!, 'live', undefined)).toThrow(
      expect.objectContaining({ code: 'OUT_OF_ORDER' }),
    );
  });

  it('a bad record mark is BAD_RECORD_MARK; META not first is BAD_META; a live bucket read as hot archive is BAD_META', () => {
    const { bucket, bytes } = good();
    const noTopBit = Buffer.from(bytes);
    noTopBit[0] = 0x00;
    expect(() => verifyBucketFile(corrupt(noTopBit), 'live', undefined)).toThrow(
      expect.objectContaining({ code: 'BAD_RECORD_MARK', offset: 0 }),
    );
    const metaTwice = writeBucket(dir.path, 'live', 23, [encodeMeta('live', 23)], { fsync: false });
    expect(() => verifyBucketFile(metaTwice.path!, 'live', undefined)).toThrow(
      expect.objectContaining({ code: 'BAD_META' }),
    );
    expect(() => verifyBucketFile(bucket.path!, 'hot-archive', undefined)).toThrow(
      expect.objectContaining({ code: 'BAD_META' }),
    );
  });

  it('a missing file is MISSING_BUCKET', () => {
    expect(() => verifyBucketFile(join(dir.path, 'nope.xdr'), 'live', undefined)).toThrow(
      expect.objectContaining({ code: 'MISSING_BUCKET' }),
    );
  });
});
