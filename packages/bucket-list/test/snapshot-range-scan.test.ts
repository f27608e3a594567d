// The snapshot's byte-range reads of a live bucket (what stellar-core's eviction scan does): liveBucketProtocolVersion
// and scanLiveBucketFrom, checked against the records parsed by hand from the same file.
//  1. From every record boundary (and 0, the METAENTRY) with every budget, the records read are the file's records
//     from that boundary up to and including the first one that reaches the budget, with their offsets, and the
//     returned offset is the end of the last record read.
//  2. A budget of 0, an offset at or past the end, and the empty bucket read nothing and return the offset.
//  3. The protocol version is the METAENTRY's (0 without META and for the empty bucket).
//  4. Bad arguments are BucketError INVALID_ARGUMENT; a released snapshot is CLOSED.
//  Negative control: a scan that stops before the record crossing the budget (the other reading of "at most
//  maxBytes") disagrees with what the method returns.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { encodeLedgerEntry } from '@strata/ledger-key';
import { errorOf, hex, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type BucketFile, emptyBucket, writeBucket } from '../src/bucket-file.js';
import { openBucketIndex } from '../src/bucket-index/bucket-index.js';
import { BucketError } from '../src/errors.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';
import { BucketListSnapshot, type SnapshotBucket } from '../src/snapshot.js';

interface FileRecord {
  start: number;
  end: number;
  payload: string;
}

/** The file's records, parsed by hand: a 4-byte big-endian mark (top bit set) and its payload. */
function recordsOf(path: string): FileRecord[] {
  const bytes = readFileSync(path);
  const records: FileRecord[] = [];
  for (let p = 0; p < bytes.length; ) {
    const length = bytes.readUInt32BE(p) & 0x7fffffff;
    records.push({ start: p, end: p + 4 + length, payload: hex(bytes.subarray(p + 4, p + 4 + length)) });
    p += 4 + length;
  }
  return records;
}

const id = (n: number): Uint8Array => new Uint8Array(createHash('sha256').update(`range-scan:${n}`).digest());
/** CONTRACT_DATA entries of varying sizes, so records are of different lengths. */
const entry = (n: number): Uint8Array =>
  encodeLedgerEntry({
    lastModifiedLedgerSeq: 3,
    data: {
      type: 'contractData',
      contract: { type: 'contract', contractId: id(n) },
      key: { type: 'bytes', value: new Uint8Array(n % 9) },
      durability: n % 2 === 0 ? 'persistent' : 'temporary',
      val: { type: 'u32', value: n },
    },
  });

function bucketOf(dir: string, protocol: number, count: number): BucketFile {
  const init = protocol >= 11 ? Array.from({ length: count }, (_, n) => entry(n)) : [];
  const live = protocol >= 11 ? [] : Array.from({ length: count }, (_, n) => entry(n));
  return writeBucket(dir, 'live', protocol, freshLiveEntries(protocol, { init, live, dead: [] }), { fsync: false });
}

/** A snapshot whose live slots 0, 1, 2 hold `buckets` (the rest empty). */
function viewOf(buckets: BucketFile[]): BucketListSnapshot {
  const slots: SnapshotBucket[] = [];
  for (let slot = 0; slot < 22; slot++) {
    const file = buckets[slot] ?? emptyBucket('live');
    slots.push({ file, index: file.path === undefined ? undefined : openBucketIndex(file) });
  }
  const hot = Array.from({ length: 22 }, () => ({ file: emptyBucket('hot-archive'), index: undefined }));
  return new BucketListSnapshot(5, slots, hot, () => undefined);
}

function scan(view: BucketListSnapshot, slot: number, offset: number, maxBytes: number) {
  const read: FileRecord[] = [];
  const end = view.scanLiveBucketFrom(slot, offset, maxBytes, (payload, start, recordEnd) => {
    read.push({ start, end: recordEnd, payload: hex(payload) });
  });
  return { read, end };
}

/** What the method must read: records from `offset` through the first whose end reaches offset + maxBytes. */
function expected(records: FileRecord[], offset: number, maxBytes: number, stopBefore = false) {
  const read: FileRecord[] = [];
  if (maxBytes > 0) {
    for (const record of records) {
      if (record.start < offset) continue;
      if (stopBefore && record.end - offset > maxBytes) break;
      read.push(record);
      if (record.end - offset >= maxBytes) break;
    }
  }
  return { read, end: read.at(-1)?.end ?? offset };
}

describe('BucketListSnapshot.scanLiveBucketFrom', () => {
  it('1. reads whole records from every boundary under every budget, METAENTRY included', () => {
    const dir = tempDir('range-scan');
    const bucket = bucketOf(dir, 23, 12);
    const view = viewOf([bucket]);
    const records = recordsOf(bucket.path!);
    const size = records.at(-1)!.end;
    expect(records[0]!.payload.startsWith('ffffffff')).toBe(true); // META is the record at 0
    for (const boundary of [0, ...records.map((record) => record.end)]) {
      for (let maxBytes = 0; maxBytes <= size - boundary + 8; maxBytes += 4) {
        expect(scan(view, 0, boundary, maxBytes), `from ${boundary}, ${maxBytes} bytes`).toEqual(
          expected(records, boundary, maxBytes),
        );
      }
    }
  });

  it('2. a zero budget, an offset at or past the end, and the empty bucket read nothing', () => {
    const dir = tempDir('range-scan');
    const bucket = bucketOf(dir, 23, 3);
    const view = viewOf([bucket]);
    const size = recordsOf(bucket.path!).at(-1)!.end;
    expect(scan(view, 0, 0, 0)).toEqual({ read: [], end: 0 });
    expect(scan(view, 0, size, 1000)).toEqual({ read: [], end: size });
    expect(scan(view, 0, size + 400, 1000)).toEqual({ read: [], end: size + 400 });
    expect(scan(view, 5, 0, 1000)).toEqual({ read: [], end: 0 });
    expect(scan(view, 5, 24, 1000)).toEqual({ read: [], end: 24 });
  });

  it('3. the protocol version is the METAENTRY ledgerVersion, 0 without one', () => {
    const dir = tempDir('range-scan');
    const view = viewOf([bucketOf(dir, 23, 2), bucketOf(dir, 20, 2), bucketOf(dir, 10, 2), bucketOf(dir, 19, 0)]);
    expect([0, 1, 2, 3, 4].map((slot) => view.liveBucketProtocolVersion(slot))).toEqual([23, 20, 0, 19, 0]);
    // The pre-11 bucket has no METAENTRY: its first record is an entry, read like any other.
    const pre11 = scan(view, 2, 0, 1);
    expect(pre11.read).toHaveLength(1);
    expect(pre11.read[0]!.payload.startsWith('00000000')).toBe(true);
  });

  it('4. bad arguments are INVALID_ARGUMENT, a released snapshot CLOSED', () => {
    const dir = tempDir('range-scan');
    const view = viewOf([bucketOf(dir, 23, 2)]);
    const callback = () => undefined;
    const bad: [string, () => unknown][] = [
      ['slot -1', () => view.scanLiveBucketFrom(-1, 0, 10, callback)],
      ['slot 22', () => view.scanLiveBucketFrom(22, 0, 10, callback)],
      ['slot 1.5', () => view.scanLiveBucketFrom(1.5, 0, 10, callback)],
      ['offset -4', () => view.scanLiveBucketFrom(0, -4, 10, callback)],
      ['offset "0"', () => view.scanLiveBucketFrom(0, '0' as never, 10, callback)],
      ['maxBytes NaN', () => view.scanLiveBucketFrom(0, 0, Number.NaN, callback)],
      ['maxBytes 2^53', () => view.scanLiveBucketFrom(0, 0, 2 ** 53, callback)],
      ['callback null', () => view.scanLiveBucketFrom(0, 0, 10, null as never)],
      ['protocol slot 22', () => view.liveBucketProtocolVersion(22)],
      ['protocol slot null', () => view.liveBucketProtocolVersion(null as never)],
    ];
    for (const [what, call] of bad) expect(errorOf(BucketError, call).code, what).toBe('INVALID_ARGUMENT');
    view.release();
    expect(errorOf(BucketError, () => view.scanLiveBucketFrom(0, 0, 10, callback)).code).toBe('CLOSED');
    expect(errorOf(BucketError, () => view.liveBucketProtocolVersion(0)).code).toBe('CLOSED');
  });

  it('negative control: stopping before the record that crosses the budget is caught', () => {
    const dir = tempDir('range-scan');
    const bucket = bucketOf(dir, 23, 6);
    const view = viewOf([bucket]);
    const records = recordsOf(bucket.path!);
    const boundary = records[1]!.start;
    const maxBytes = records[1]!.end - boundary + 4; // ends inside the next record
    expect(scan(view, 0, boundary, maxBytes)).not.toEqual(expected(records, boundary, maxBytes, true));
    expect(scan(view, 0, boundary, maxBytes)).toEqual(expected(records, boundary, maxBytes));
  });
});
