// The eviction scan against the oracle (test/eviction-oracle.ts) over random histories on a real BucketManager.
// Properties:
//  1. At every ledger N of a random history (Soroban entries created, rewritten, bumped, deleted; the scan's own
//     evictions applied as DEAD keys; protocols and settings upgraded part-way), scanForEviction agrees with the
//     oracle on the evicted entries (key and entry as found), the meta's evictedKeys order and the new iterator, and
//     iteratorBody encodes that iterator.
//  2. The histories exercise the rules: evictions, the maxEntriesToArchive cut, offsets reset after a spill, moves to
//     another bucket and level, wraps to the starting level, TTL-modified entries skipped, buckets below protocol 20
//     and p23/p24 persistent eviction (each counted over the run and required to happen).
// Negative controls: oracles without the reset rule, with the iterator always at the end of the scan region, or
// taking the scanned version of persistent entries at protocol 24, each disagree with the module on some history.
import { hex, propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvictionIterator } from '../src/eviction/settings.js';
import { type HistoryPlan, type LedgerScan, runHistory } from './eviction-history.js';
import { type OracleInput, oracleEviction, parseSnapshot } from './eviction-oracle.js';

const settingsArb = fc.record({
  evictionScanSize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
  startingEvictionScanLevel: fc.integer({ min: 1, max: 3 }),
  maxEntriesToArchive: fc.integer({ min: 0, max: 4 }),
});

const protocolPlans = [
  [19, 20],
  [20, 20],
  [22, 23],
  [23, 23],
  [23, 24],
  [24, 25],
] as const;

const planArb: fc.Arbitrary<HistoryPlan> = fc
  .record({
    seed: fc.integer(),
    ledgers: fc.integer({ min: 12, max: 72 }),
    protocols: fc.constantFrom(...protocolPlans),
    upgradeLedger: fc.integer({ min: 2, max: 40 }),
    settings: settingsArb,
    settingsLedger: fc.integer({ min: 2, max: 90 }),
    laterSettings: settingsArb,
    perLedger: fc.integer({ min: 1, max: 5 }),
  })
  .map(({ protocols, ...plan }) => ({ ...plan, protocol: protocols[0], upgradedProtocol: protocols[1] }));

type Broken = OracleInput['broken'];
/** The ledger where a broken oracle first disagreed (negative controls). */
let firstDisagreement = 0;

function oracleOf(scan: LedgerScan, broken?: Broken) {
  return oracleEviction(parseSnapshot(scan.snapshot), {
    ledgerSeq: scan.ledgerSeq,
    protocol: scan.protocol,
    iterator: scan.iterator,
    scanSize: scan.settings.evictionScanSize,
    startLevel: scan.settings.startingEvictionScanLevel,
    maxEntries: scan.settings.maxEntriesToArchive,
    ttlModified: scan.ttlModified,
    ...(broken === undefined ? {} : { broken }),
  });
}

function moduleAnswer(scan: LedgerScan) {
  return {
    evicted: scan.result.evicted.map((e): [string, string] => [hex(e.key), hex(e.entry)]),
    evictedKeys: scan.result.evictedKeys.map(hex),
    iterator: scan.result.iterator,
  };
}

/** What the histories hit (property 2). */
const coverage = {
  evictions: 0,
  cuts: 0,
  resets: 0,
  bucketMoves: 0,
  levelMoves: 0,
  wraps: 0,
  ttlModifiedSkips: 0,
  below20Buckets: 0,
  persistentP23: 0,
  persistentP24: 0,
};

const spilled = (ledger: number, level: number): boolean => level < 10 && ledger % 2 ** (2 * level + 1) === 0;

function count(scan: LedgerScan): void {
  const { iterator, result, settings } = scan;
  coverage.evictions += result.evicted.length;
  if (result.evicted.length > 0 && result.evicted.length === settings.maxEntriesToArchive) coverage.cuts++;
  const level = Math.max(iterator.bucketListLevel, settings.startingEvictionScanLevel);
  const curr = iterator.bucketListLevel < settings.startingEvictionScanLevel || iterator.isCurrBucket;
  if (
    iterator.bucketFileOffset > 0 &&
    iterator.bucketListLevel >= settings.startingEvictionScanLevel &&
    (curr ? spilled(scan.ledgerSeq - 1, level - 1) : spilled(scan.ledgerSeq - 1, level))
  ) {
    coverage.resets++;
  }
  if (result.iterator.bucketListLevel !== level || result.iterator.isCurrBucket !== curr) coverage.bucketMoves++;
  if (result.iterator.bucketListLevel !== level) coverage.levelMoves++;
  if (result.iterator.bucketListLevel < level) coverage.wraps++;
  const unfiltered = oracleEviction(parseSnapshot(scan.snapshot), {
    ledgerSeq: scan.ledgerSeq,
    protocol: scan.protocol,
    iterator,
    scanSize: settings.evictionScanSize,
    startLevel: settings.startingEvictionScanLevel,
    maxEntries: Number.MAX_SAFE_INTEGER,
    ttlModified: new Set(),
  });
  if (unfiltered.evictedKeys.some((key) => scan.ttlModified.has(key))) coverage.ttlModifiedSkips++;
  if (scan.snapshot.live.some((_, slot) => scan.snapshot.liveBucketProtocolVersion(slot) === 19)) {
    coverage.below20Buckets++;
  }
  const persistent = result.evicted.filter((e) => e.persistent).length;
  if (scan.protocol === 23) coverage.persistentP23 += persistent;
  if (scan.protocol >= 24) coverage.persistentP24 += persistent;
}

/**
 * Runs `plan`, checking every ledger against the oracle; with `broken`, also against that variant. Returns whether
 * the variant agreed at every ledger (true without one).
 */
async function agrees(plan: HistoryPlan, broken?: Broken, onScan?: (scan: LedgerScan) => void): Promise<boolean> {
  let same = true;
  await runHistory(tempDir('eviction-history'), plan, (scan) => {
    onScan?.(scan);
    const answer = moduleAnswer(scan);
    expect(answer, `ledger ${scan.ledgerSeq}`).toEqual(oracleOf(scan));
    expect(decodeEvictionIterator(scan.result.iteratorBody)).toEqual(scan.result.iterator);
    if (broken !== undefined && same && JSON.stringify(answer) !== JSON.stringify(oracleOf(scan, broken))) {
      same = false;
      firstDisagreement = scan.ledgerSeq;
    }
  });
  return same;
}

describe('scanForEviction against the oracle over random histories', () => {
  it('1. agrees with the oracle at every ledger', async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        await agrees(plan);
      }),
      propertyParams({ numRuns: 20 }),
    );
  }, 120_000);

  it('2. the histories cover the rules (a fixed sample of plans)', async () => {
    for (const plan of fc.sample(planArb, { numRuns: 20, seed: 42 })) await agrees(plan, undefined, count);
    for (const [what, times] of Object.entries(coverage)) expect(times, what).toBeGreaterThan(0);
  }, 120_000);

  for (const broken of ['no-reset', 'iterator-at-region-end', 'scanned-version', 'no-dedup'] as const) {
    it(`negative control: an oracle variant "${broken}" disagrees on some history`, async () => {
      firstDisagreement = 0;
      const run = await fc.check(
        fc.asyncProperty(planArb, async (plan) => agrees(plan, broken)),
        { numRuns: 60, seed: 17, endOnFailure: true },
      );
      // Failed by the variant's disagreement, not by a module/oracle mismatch (which would throw instead).
      expect(run.failed).toBe(true);
      expect(run.errorInstance === undefined || String(run.errorInstance).includes('returning false')).toBe(true);
      expect(firstDisagreement).toBeGreaterThan(1);
    }, 120_000);
  }
});
