// replay.fixtures: ledgers/s replaying the stellar-core capture streams (../shared/fixtures/stellar-core-lcm: 985
// test networks from genesis, every protocol since 19) with replayCaptureFolder — per stream its genesis rebuilt from
// the stream (one extraction pass), then every ledger applied (extraction with wasLive, eviction scan checked against
// the meta, eviction iterator and state-size window, hot archive, Soroban state, both BucketLists) and its
// bucketListHash compared with the header's. Every ledger must match, or the bench fails: a figure of a replay that
// diverges says nothing.
// Baseline, same run: the same streams through @strata/ledger-meta extractLedger (wasLive answered by the list) and
// BucketManager.addLedger of the fold's batch from ledger 2 — a list that follows the metas as they are, without the
// genesis, the eviction scan, the settings stellar-core adds, the Soroban state or the hash check. The ratio is what
// replaying exactly as stellar-core commits costs over feeding the list. Both sides as replaySource runs by default:
// a temporary directory per stream, fsync off, merges inline (the streams are short: a merge is mostly startup).
// STRATA_BENCH_REPLAY_STREAMS=<n> replays n streams spread evenly over the sorted list (quick mode: 40).
// Skipped, with the reason, when the fixtures are absent (STRATA_FIXTURES names their folder).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quickMode, runBench } from '@strata/bench';
import { BucketManager } from '@strata/bucket-list';
import { extractLedger, openLedgerSource } from '@strata/ledger-meta';
import { fixturePath, fixturesMissingReason } from '@strata/test-kit';
import {
  type ReplaySummary,
  replayCaptureFolder,
  replaySource,
  streamFilesUnder,
  TEST_NETWORK_PASSPHRASE,
} from '../src/replay.js';
import { recordRounds, type TimedRun } from './timed-rounds.js';

const ID = 'replay.fixtures';
const missing = fixturesMissingReason(['stellar-core-lcm']);

if (missing !== undefined) {
  console.log(`${ID}: skipped — ${missing}`);
  await runBench(async () => undefined);
} else {
  const folder = fixturePath('stellar-core-lcm');
  const all = await streamFilesUnder(folder);
  const files = subset(all, streamCount(all.length));
  const whole = files.length === all.length;

  const replay = async (): Promise<TimedRun> => {
    const started = performance.now();
    const summary = whole ? await replayCaptureFolder(folder) : await replayEach(files);
    const seconds = (performance.now() - started) / 1000;
    if (summary.matching !== summary.ledgers || summary.files !== files.length) {
      const first = summary.mismatches.slice(0, 5).map((m) => `${m.file} ledger ${m.ledger}`);
      throw new Error(
        `${ID}: ${summary.matching} of ${summary.ledgers} ledgers in ${summary.files} streams match (first: ${first.join('; ')})`,
      );
    }
    return { ops: summary.ledgers, seconds };
  };

  let ledgers = 0;
  const feedList = async (): Promise<TimedRun> => {
    const started = performance.now();
    let count = 0;
    for (const file of files) count += await addStreamToList(file);
    const seconds = (performance.now() - started) / 1000;
    ledgers = count;
    return { ops: count, seconds };
  };

  await runBench(async (bench) => {
    await recordRounds(bench, {
      id: ID,
      unit: 'ledgers/s',
      subject: replay,
      baseline: {
        name: 'extractLedger + BucketManager.addLedger of the fold batch (no genesis, scan, Soroban state or hash check)',
        run: feedList,
      },
      note: () =>
        `ledgers/s; ${whole ? 'all' : `${files.length} of the`} ${all.length} stellar-core-lcm capture streams ` +
        `(${ledgers} ledgers, every one's bucketListHash matching), each from genesis in its own temporary state, ` +
        'fsync off, merges inline',
    });
  });
}

/** replayCaptureFolder's sum over some of the folder's streams. */
async function replayEach(paths: readonly string[]): Promise<ReplaySummary> {
  let ledgers = 0;
  let matching = 0;
  const mismatches: ReplaySummary['mismatches'][number][] = [];
  for (const path of paths) {
    const summary = await replaySource(path);
    ledgers += summary.ledgers;
    matching += summary.matching;
    mismatches.push(...summary.mismatches);
  }
  return { files: paths.length, ledgers, matching, mismatches };
}

/** The baseline for one stream: its fold batches into a fresh list; returns the number of ledgers. */
async function addStreamToList(path: string): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-bench-replay-list-'));
  let ledgers = 0;
  try {
    const list = await BucketManager.open(dir, {
      create: true,
      fsync: false,
      merger: 'inline',
      networkPassphrase: TEST_NETWORK_PASSPHRASE,
    });
    try {
      const wasLive = (key: Uint8Array): boolean => list.load(key) !== undefined;
      for await (const record of openLedgerSource(path)) {
        const { header, changes } = extractLedger(record.bytes, record, { wasLive });
        await list.addLedger(record.ledgerSeq, header.protocolVersion, changes);
        ledgers++;
      }
    } finally {
      await list.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return ledgers;
}

/** STRATA_BENCH_REPLAY_STREAMS, or 40 in quick mode, or every stream. */
function streamCount(total: number): number {
  const given = process.env.STRATA_BENCH_REPLAY_STREAMS;
  if (given === undefined || given === '') return quickMode ? Math.min(40, total) : total;
  const count = Number(given);
  if (!Number.isInteger(count) || count < 1 || count > total) {
    throw new Error(`STRATA_BENCH_REPLAY_STREAMS must be an integer from 1 to ${total}, got ${given}`);
  }
  return count;
}

/** `count` of `paths` spread evenly (the i-th of every total/count), so a subset spans every group and protocol. */
function subset(paths: readonly string[], count: number): string[] {
  if (count === paths.length) return [...paths];
  return Array.from({ length: count }, (_, i) => paths[Math.floor((i * paths.length) / count)] as string);
}
