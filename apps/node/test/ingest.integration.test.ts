// The node end to end, as real `strata` processes over real files, against stellar-core capture streams
// (../shared/fixtures/stellar-core-lcm; each stream is its own test network from genesis). Checks:
// 1. every ledger of each sampled stream applies with hash verification on and matches its header's bucketListHash;
//    the recorded position is the last ledger with its header hash, and the hot chunk's events equal the
//    @stellar/stellar-base oracle ledger by ledger;
// 2. startup logs each phase (open-state, populate, restart-merges, reopen-hot, resume) with its duration;
// 3. a stop (--to) and SIGKILLs in every startup phase and mid-ingest, then a restart, lose and duplicate nothing: the end state, position
//    and events equal a single uninterrupted run;
// 4. a store that ran ahead skips: with the hot chunk removed the restart rebuilds only the events, with the
//    state rolled back only the state catches up;
// 5. inspect --json reports the position, the state and the hot chunk; a data dir of another network or format
//    version is refused.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { hotEventsOf, nodeFileOf } from './support/data-dir-reads.js';
import { oracleLedgers } from './support/oracle.js';
import { logLines, messageLines, runStrata } from './support/strata-process.js';

const PASSPHRASE = '(V) (;,,;) (V)';
/**
 * A sample: the InvokeHostFunctionTests stream with the most events (44 ledgers, 93 events), a short one with events,
 * a PathPaymentTests stream without contract events (all three decodable by stellar-base 15, the oracle).
 */
const STREAMS = [
  'InvokeHostFunctionTests/21c43b92b819267f.xdr',
  'InvokeHostFunctionTests/1d5bfe4be2ebaacb.xdr',
  'PathPaymentTests/4a5fb7ad61be37b1.xdr',
];
const stream = (name: string) => fixturePath('stellar-core-lcm', ...name.split('/'));

function ingestArgs(dataDir: string, source: string, ...extra: string[]): string[] {
  return ['ingest', '--data-dir', dataDir, '--source', source, '--network-passphrase', PASSPHRASE, ...extra];
}

function summaryOf(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

/** The oracle's events as (ledger, hex) sorted within each ledger (the node keeps emission order; see below). */
function sortedByLedger(events: [number, string][]): [number, string][] {
  return [...events].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
}

describeWithFixtures(
  'strata ingest over stellar-core capture streams',
  STREAMS.map((name) => ['stellar-core-lcm', ...name.split('/')]),
  () => {
    for (const name of STREAMS) {
      it(`ingests ${name} with every header hash verified, events equal to the oracle`, async () => {
        const dataDir = join(tempDir('node'), 'data');
        const oracle = oracleLedgers(stream(name));
        const result = await runStrata(ingestArgs(dataDir, stream(name)));
        expect(result.code, result.stderr).toBe(0);
        const summary = summaryOf(result.stdout);
        const last = oracle.at(-1);
        expect(summary).toMatchObject({ ledgers: oracle.length, applied: oracle.length, matching: oracle.length });
        expect(summary.bucketListHash).toBe(last?.bucketListHash);
        expect(nodeFileOf(dataDir).position).toEqual({ ledger: last?.ledger, hash: last?.hash });
        // The header chain of the oracle itself (the node checks the same on every record).
        for (let i = 1; i < oracle.length; i++) expect(oracle[i]?.previousHash).toBe(oracle[i - 1]?.hash);
        const hot = await hotEventsOf(dataDir);
        expect(hot.latest).toBe(last?.ledger);
        const expected = oracle.flatMap((ledger) => ledger.events.map((hex): [number, string] => [ledger.ledger, hex]));
        expect(sortedByLedger(hot.events)).toEqual(sortedByLedger(expected));
        expect(hot.events.map(([ledger]) => ledger)).toEqual(expected.map(([ledger]) => ledger));
        // Startup phases, in stellar-core's order since PR #5252, each with a duration.
        const phases = logLines(result.stderr).filter((line) => typeof line.phase === 'string');
        expect(phases.map((line) => line.phase)).toEqual([
          'open-state',
          'populate',
          'restart-merges',
          'reopen-hot',
          'resume',
        ]);
        for (const line of phases) expect(typeof line.seconds).toBe('number');
      });
    }

    it('resumes after a stop (--to) and after SIGKILLs at startup and mid-ingest without losing or repeating a ledger or an event', async () => {
      const source = stream(STREAMS[0] ?? '');
      const oracle = oracleLedgers(source);
      const whole = join(tempDir('node-whole'), 'data');
      const wholeRun = await runStrata(ingestArgs(whole, source));
      expect(wholeRun.code, wholeRun.stderr).toBe(0);

      const dataDir = join(tempDir('node-restart'), 'data');
      const first = await runStrata(ingestArgs(dataDir, source, '--to', '20'));
      expect(first.code, first.stderr).toBe(0);
      expect(nodeFileOf(dataDir).position?.ledger).toBe(20);
      // SIGKILLed at moments the child's own log lines mark (no timers): in each startup phase, right after resuming
      // and after its first ingested ledger; after each kill the stores are consistent prefixes of the whole run.
      const wholeEvents = (await hotEventsOf(whole)).events;
      const markers = ['"phase":"open-state"', '"phase":"populate"', '"phase":"reopen-hot"', '"phase":"resume"'];
      let kills = 0;
      for (const marker of [...markers, '"msg":"progress"']) {
        const killed = await runStrata(ingestArgs(dataDir, source), { killWhen: (stderr) => stderr.includes(marker) });
        if (killed.signal === 'SIGKILL') kills++;
        else expect(killed.code, killed.stderr).toBe(0);
        const position = nodeFileOf(dataDir).position;
        const hot = await hotEventsOf(dataDir);
        expect(position?.ledger).toBeGreaterThanOrEqual(20);
        expect(position?.ledger).toBeLessThanOrEqual(hot.latest ?? 0);
        expect(position?.hash).toBe(oracle[(position?.ledger ?? 0) - 2]?.hash);
        // No event lost, none twice, none partial: the hot chunk is the whole run's events up to its latest ledger.
        expect(hot.events).toEqual(wholeEvents.filter(([ledger]) => ledger <= (hot.latest ?? 0)));
      }
      expect(kills).toBeGreaterThanOrEqual(markers.length);
      const rest = await runStrata(ingestArgs(dataDir, source));
      expect(rest.code, rest.stderr).toBe(0);
      const resumedAt = logLines(rest.stderr).find((line) => line.phase === 'resume');
      expect(Number(resumedAt?.nextLedger)).toBeGreaterThanOrEqual(21);
      expect(summaryOf(rest.stdout).bucketListHash).toBe(summaryOf(wholeRun.stdout).bucketListHash);
      expect(nodeFileOf(dataDir).position).toEqual(nodeFileOf(whole).position);
      expect((await hotEventsOf(dataDir)).events).toEqual((await hotEventsOf(whole)).events);
      expect(nodeFileOf(dataDir).position?.ledger).toBe(oracle.at(-1)?.ledger);
    }, 180_000); // eight child processes: near the 60 s default on a loaded 2-core machine

    it('lets the store that ran ahead skip: only the lagging store replays', async () => {
      const source = stream(STREAMS[0] ?? '');
      const root = tempDir('node-ahead');
      const dataDir = join(root, 'data');
      expect((await runStrata(ingestArgs(dataDir, source, '--to', '10'))).code).toBe(0);
      const stateAt10 = join(root, 'state-10');
      cpSync(join(dataDir, 'state'), stateAt10, { recursive: true });
      const full = await runStrata(ingestArgs(dataDir, source));
      expect(full.code, full.stderr).toBe(0);
      const events = (await hotEventsOf(dataDir)).events;

      // Hot chunk gone (state ahead): the node resumes at ledger 2, the state skips every ledger, the events return.
      rmSync(join(dataDir, 'events'), { recursive: true });
      const hotOnly = await runStrata(ingestArgs(dataDir, source));
      expect(hotOnly.code, hotOnly.stderr).toBe(0);
      expect(summaryOf(hotOnly.stdout)).toMatchObject({
        applied: 0,
        bucketListHash: summaryOf(full.stdout).bucketListHash,
      });
      expect((await hotEventsOf(dataDir)).events).toEqual(events);

      // State rolled back to ledger 10 (hot ahead): the state catches up, the hot chunk skips, no event twice.
      rmSync(join(dataDir, 'state'), { recursive: true });
      cpSync(stateAt10, join(dataDir, 'state'), { recursive: true });
      const stateOnly = await runStrata(ingestArgs(dataDir, source));
      expect(stateOnly.code, stateOnly.stderr).toBe(0);
      const oracle = oracleLedgers(source);
      expect(summaryOf(stateOnly.stdout)).toMatchObject({
        applied: oracle.length - 9,
        matching: oracle.length - 9,
        events: 0,
        bucketListHash: summaryOf(full.stdout).bucketListHash,
      });
      expect((await hotEventsOf(dataDir)).events).toEqual(events);
    });

    it('refuses a data directory of another network or another format version', async () => {
      const source = stream(STREAMS[2] ?? '');
      const dataDir = join(tempDir('node-network'), 'data');
      expect((await runStrata(ingestArgs(dataDir, source, '--to', '5'))).code).toBe(0);
      const other = await runStrata([
        ...ingestArgs(dataDir, source).slice(0, -2),
        '--network-passphrase',
        'Test SDF Network ; September 2015',
      ]);
      expect(other.code).toBe(1);
      expect(messageLines(other.stderr)).toEqual([expect.stringMatching(/^strata: WRONG_NETWORK .*Test SDF Network/)]);

      const inspected = await runStrata(['inspect', '--data-dir', dataDir, '--json']);
      expect(inspected.code, inspected.stderr).toBe(0);
      expect(JSON.parse(inspected.stdout)).toMatchObject({
        formatVersion: 1,
        networkPassphrase: PASSPHRASE,
        position: { ledger: 5 },
        state: { ledger: 5 },
        hotChunks: [{ chunkId: 0, latestLedger: 5 }],
      });

      const nodeFile = join(dataDir, 'node.json');
      const file = JSON.parse(readFileSync(nodeFile, 'utf8'));
      writeFileSync(nodeFile, JSON.stringify({ ...file, formatVersion: 99 }));
      const inspect = await runStrata(['inspect', '--data-dir', dataDir]);
      expect(inspect.code).toBe(1);
      expect(messageLines(inspect.stderr)).toEqual([expect.stringMatching(/^strata: FORMAT_VERSION .*version 99/)]);
    });
  },
);
