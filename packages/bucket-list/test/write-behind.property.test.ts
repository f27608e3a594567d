// Write-behind (hashing and writing a bucket's output on a helper thread) against the oracle of the same writer
// hashing and writing inline. Properties:
//   1. Any sequence of `put` (records of 4 bytes to more than a chunk, with and without a retyped discriminant) and
//      `putRun` (runs from a few bytes to several chunks) writes the same bytes, and returns the same SHA-256, with
//      write-behind as without.
//   2. A large merge writes the same bucket (bytes and hash) with write-behind forced on and off.
//   3. Two outputs open at once in one thread: the second hashes and writes inline (the helper serves one), both
//      correct; the helper serves the next output after both finish.
//   4. A failing write (ENOSPC from /dev/full) surfaces as BucketError IO at close, not a hang or a wrong hash, and
//      the helper serves the next output; an aborted output leaves no file and frees the helper.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { mergeInputs } from '../bench/data.js';
import { writeBucket } from '../src/bucket-file.js';
import { BucketError } from '../src/errors.js';
import { mergeBucketFiles } from '../src/merge/bucket-merge.js';
import { RecordWriter } from '../src/record-io.js';
import { WRITE_BEHIND_CHUNK, WriteBehind } from '../src/write-behind.js';

/** The running test's directory (set in beforeEach); nextPath names fresh files in it. */
let dir: string;
let fileCounter = 0;
const nextPath = (): string => join(dir, `out-${fileCounter++}.tmp`);

type Op =
  | { kind: 'put'; length: number; type: number | undefined; seed: number }
  | { kind: 'run'; records: number[]; seed: number };

/** Payload of `length` bytes (a multiple of 4) filled from `seed` (xorshift32: megabyte payloads stay cheap). */
function payloadOf(length: number, seed: number): Uint8Array {
  const words = new Uint32Array(length / 4);
  let x = (seed * 2654435761 + 1) | 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return new Uint8Array(words.buffer);
}

/** Record-marked bytes of payloads of the given lengths, with `pad` leading bytes so runs start mid-buffer. */
function markedRun(lengths: number[], seed: number, pad: number): Uint8Array {
  const total = pad + lengths.reduce((sum, length) => sum + 4 + length, 0);
  const out = new Uint8Array(total);
  let at = pad;
  lengths.forEach((length, i) => {
    new DataView(out.buffer).setUint32(at, (0x80000000 | length) >>> 0);
    out.set(payloadOf(length, seed + i), at + 4);
    at += 4 + length;
  });
  return out;
}

/** Applies `ops` to a writer at a fresh path; returns the file's bytes and the writer's hash. */
function writeOps(ops: Op[], writeBehind: boolean): { bytes: Buffer; hash: string } {
  const path = nextPath();
  const writer = new RecordWriter(path, false, { writeBehind });
  for (const op of ops) {
    if (op.kind === 'put') writer.put(payloadOf(op.length, op.seed), op.type);
    else {
      const pad = op.seed % 3 === 0 ? 0 : 8;
      const run = markedRun(op.records, op.seed, pad);
      writer.putRun(run, pad, run.length, op.records.length);
    }
  }
  const hash = writer.finish();
  const bytes = readFileSync(path);
  rmSync(path);
  return { bytes, hash };
}

const recordLength = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 64 }).map((words) => words * 4) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 * WRITE_BEHIND_CHUNK }).map((n) => n - (n % 4) + 4) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    length: recordLength,
    type: fc.option(fc.integer({ min: -1, max: 2 }), { nil: undefined }),
    seed: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('run' as const),
    records: fc.array(recordLength, { minLength: 1, maxLength: 40 }),
    seed: fc.nat(),
  }),
);

describe('write-behind', () => {
  beforeEach(() => {
    dir = tempDir('write-behind');
  });

  it('1. writes the same bytes and hash as the inline writer for any put/putRun sequence', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const inline = writeOps(ops, false);
        const behind = writeOps(ops, true);
        expect(behind.hash).toBe(inline.hash);
        expect(behind.bytes.equals(inline.bytes)).toBe(true);
        expect(inline.hash).toBe(createHash('sha256').update(inline.bytes).digest('hex'));
      }),
      propertyParams({ numRuns: 40 }),
    );
  });

  it('2. a merge of buckets larger than the write-behind threshold writes the same bucket either way', () => {
    const inputs = mergeInputs(60_000, 3);
    const older = writeBucket(dir, 'live', 23, inputs.older, { fsync: false });
    const newer = writeBucket(dir, 'live', 23, inputs.newer, { fsync: false });
    expect(older.size + newer.size).toBeGreaterThan(4 * WRITE_BEHIND_CHUNK);
    const options = { maxProtocolVersion: 23, fsync: false, publish: false } as const;
    const on = mergeBucketFiles(dir, older, newer, { ...options, writeBehind: true });
    const off = mergeBucketFiles(dir, older, newer, { ...options, writeBehind: false });
    expect(on.hash).toBe(off.hash);
    expect(on.size).toBe(off.size);
    expect(on.entries).toBe(off.entries);
    expect(readFileSync(on.path!).equals(readFileSync(off.path!))).toBe(true);
    expect(createHash('sha256').update(readFileSync(on.path!)).digest('hex')).toBe(on.hash);
  });

  it('3. a second output open in the same thread writes inline; both are correct; the helper is free after', () => {
    const payloads = Array.from({ length: 3000 }, (_, i) => payloadOf(4 * (1 + (i % 200)), i));
    const first = new RecordWriter(nextPath(), false, { writeBehind: true });
    const second = new RecordWriter(nextPath(), false, { writeBehind: true });
    // While `first` holds the helper, another channel cannot be opened.
    const fd = openSync(nextPath(), 'w');
    expect(WriteBehind.tryOpen(fd, 'probe')).toBeUndefined();
    for (const payload of payloads) {
      first.put(payload);
      second.put(payload);
    }
    const hashes = [first.finish(), second.finish()];
    expect(hashes[0]).toBe(hashes[1]);
    expect(readFileSync(first.tempPath).equals(readFileSync(second.tempPath))).toBe(true);
    const channel = WriteBehind.tryOpen(fd, 'probe');
    expect(channel).toBeDefined();
    expect(channel!.close()).toBe(createHash('sha256').digest('hex'));
    closeSync(fd);
  });

  it('4. a failing write is a BucketError IO at close; abort removes the file; the helper serves the next output', () => {
    const fd = openSync('/dev/full', 'w');
    const channel = WriteBehind.tryOpen(fd, '/dev/full');
    expect(channel).toBeDefined();
    let chunk = channel!.chunk;
    chunk.fill(7);
    const errors: unknown[] = [];
    try {
      // More chunks than the ring holds: the failure stops the producer early (or at the latest at close).
      for (let i = 0; i < 64; i++) chunk = channel!.submit(chunk.length);
    } catch (error) {
      errors.push(error);
    }
    try {
      channel!.close();
    } catch (error) {
      errors.push(error);
    }
    closeSync(fd);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).toBeInstanceOf(BucketError);
      expect((error as BucketError).code).toBe('IO');
    }
    expect((errors.at(-1) as BucketError).message).toMatch(/ENOSPC|no space/i);

    const aborted = new RecordWriter(nextPath(), false, { writeBehind: true });
    for (let i = 0; i < 2000; i++) aborted.put(payloadOf(1024, i));
    aborted.abort();
    expect(existsSync(aborted.tempPath)).toBe(false);

    const ops: Op[] = [{ kind: 'run', records: [400, 8, 2 * WRITE_BEHIND_CHUNK], seed: 5 }];
    const [behind, inline] = [writeOps(ops, true), writeOps(ops, false)];
    expect(behind.hash).toBe(inline.hash);
    expect(behind.bytes.equals(inline.bytes)).toBe(true);
  });
});
