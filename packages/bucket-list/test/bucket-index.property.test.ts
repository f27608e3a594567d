// BucketIndex against an oracle (a Map from key hex to payload and record offset) over random buckets of both kinds,
// written with writeBucket from random entries of every type. Properties checked:
//  1. Every present key is found with its exact payload, by lookup and by lookupSorted, for the in-memory index, the
//     page index (pages of 64–1024 bytes, so many pages and records crossing page ends), the page index reloaded
//     from its file (loaded, not rebuilt), and the index built incrementally during verification (cutoff anywhere
//     in the file).
//  2. Absent keys — random ones and near neighbours of present keys — are not found; lookupSorted over present and
//     absent keys together reports exactly the present ones, with their payloads.
//  3. Type ranges equal the oracle's: each type's [first record offset, next type's first offset or file size).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hotArchiveBucketEntryForKeyArb,
  ledgerKeyArb,
  ledgerKeyObjectOfTypeArb,
  siblingKeyArb,
  toBytes,
} from '../../ledger-key/test/arbitraries.js';
import { verifyBucketFile } from '../src/bucket-file.js';
import { BucketIndexBuilder, indexPathOf, openBucketIndex } from '../src/bucket-index/bucket-index.js';
import type { BucketError } from '../src/errors.js';
import type { BucketKind } from '../src/kind.js';
import {
  disagreements,
  type GeneratedRecord,
  liveRecordArb,
  makeBucket,
  notMeta,
  type Scenario,
  samePageIndex,
  withIndex,
} from './support.js';

const sorobanKeyArb = fc.oneof(ledgerKeyObjectOfTypeArb(6), ledgerKeyObjectOfTypeArb(7));
const hotRecordArb: fc.Arbitrary<GeneratedRecord> = sorobanKeyArb.chain((key) =>
  fc.tuple(fc.constant(key), hotArchiveBucketEntryForKeyArb(key).filter(notMeta), siblingKeyArb(key).map(toBytes)),
);

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
});
