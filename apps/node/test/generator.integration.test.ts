// The node over the synthetic generator (`--source generator`), as real `strata` processes. Checks:
// 1. a generated network ingests with verification off (its headers are not real) past the point where the
//    generator's own evictions are refused (generator-source.test.ts), its header chain checked; the recorded
//    position is the last ledger with the generator's hash; every event equals the generator's record; a second run
//    with more ledgers continues it;
// 2. SIGKILL at random moments (seeded) over startup (open, population, restartMerges) and ingest (with background
//    merges): after each kill no committed ledger is lost and none is partial — the position is never ahead of
//    either store and carries the generator's hash, the events are exactly the oracle's up to the hot tier's newest
//    ledger — and the run that completes ends with the bucketListHash of an uninterrupted run and all the events.
//    STRATA_NODE_KILLS sets the number of kills (default 4; the full suite is ≥ 100, README "Tests").
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import type { GeneratorSource } from '../src/generator-source.js';
import { nodeFileOf } from './support/data-dir-reads.js';
import { generatedOracle, generatorArgs, storedChunks } from './support/generated.js';
import { ramTempDir } from './support/ram-dir.js';
import { logLines, runStrata } from './support/strata-process.js';

const SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 5,
  ledgers: 60,
  eventsPerLedger: 20,
  accounts: 50,
  contracts: 3,
};
/** The network the kills run over: short, so that each data directory soon completes and the next one starts. */
const KILL_SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 6,
  ledgers: 40,
  eventsPerLedger: 8,
  accounts: 30,
  contracts: 2,
};
const KILLS = Number(process.env.STRATA_NODE_KILLS ?? 4);

function ingestArgs(dataDir: string, source: GeneratorSource, ...extra: string[]): string[] {
  return ['ingest', '--data-dir', dataDir, ...generatorArgs(source), ...extra];
}

function summaryOf(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

function stateLedgerOf(dataDir: string): number {
  return JSON.parse(readFileSync(join(dataDir, 'state', 'ledger-state.json'), 'utf8')).current.ledger;
}

async function allEvents(dataDir: string): Promise<string[]> {
  return (await storedChunks(dataDir)).flatMap((chunk) => chunk.events);
}

describe('strata over the generator', () => {
  it('ingests a generated network with verification off, every event equal to the generator record', async () => {
    const dataDir = join(ramTempDir('node-gen'), 'data');
    const first = await runStrata(ingestArgs(dataDir, { ...SOURCE, ledgers: 40 }));
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ ledgers: 40, applied: 40, matching: 0, position: 41 });
    const oracle = generatedOracle(SOURCE);
    expect(nodeFileOf(dataDir).position).toEqual({ ledger: 41, hash: oracle.hashes.get(41) });
    const upTo41 = oracle.events.filter((event) => Number(event.split('/')[0]) <= 41);
    expect(upTo41.length).toBeGreaterThan(300);
    expect(await allEvents(dataDir)).toEqual(upTo41);

    const more = await runStrata(ingestArgs(dataDir, SOURCE));
    expect(more.code, more.stderr).toBe(0);
    expect(summaryOf(more.stdout)).toMatchObject({ applied: 20, position: 61 });
    expect(logLines(more.stderr).find((line) => line.phase === 'resume')).toMatchObject({ nextLedger: 42 });
    expect(nodeFileOf(dataDir).position).toEqual({ ledger: 61, hash: oracle.hashes.get(61) });
    expect(await allEvents(dataDir)).toEqual(oracle.events);
  }, 120_000);

  it(
    `survives ${KILLS} SIGKILLs at random moments over startup, ingest and merges`,
    async () => {
      const oracle = generatedOracle(KILL_SOURCE);
      const whole = join(ramTempDir('node-gen-whole'), 'data');
      const wholeRun = await runStrata(ingestArgs(whole, KILL_SOURCE));
      expect(wholeRun.code, wholeRun.stderr).toBe(0);
      const wholeHash = summaryOf(wholeRun.stdout).bucketListHash;

      const random = seededRandom(21);
      let kills = 0;
      let rounds = 0;
      const killedIn = new Map<string, number>();
      while (kills < KILLS) {
        rounds++;
        const dataDir = join(ramTempDir('node-gen-kill'), 'data');
        for (;;) {
          // Every other kill counts from the spawn (module loading, opening the state, population), the others from
          // the child's first log line (restartMerges, ingest with merges in the background).
          const fromSpawn = kills % 2 === 0;
          const delay = Math.floor(random() * (fromSpawn ? 3000 : 2500));
          let lastPhase = 'before-open-state-logged';
          let armed = kills >= KILLS; // enough kills: let this data directory complete
          const arm = (child: ChildProcess) => {
            armed = true;
            setTimeout(() => {
              if (child.exitCode === null && child.signalCode === null) {
                killedIn.set(lastPhase, (killedIn.get(lastPhase) ?? 0) + 1);
                child.kill('SIGKILL');
              }
            }, delay);
          };
          const run = await runStrata(ingestArgs(dataDir, KILL_SOURCE), {
            onSpawn: (child) => {
              if (!armed && fromSpawn) arm(child);
            },
            onStderr: (stderr, child) => {
              const phases = [...stderr.matchAll(/"phase":"([a-z-]+)"/g)];
              lastPhase = phases.at(-1)?.[1] ?? lastPhase;
              if (stderr.includes('"msg":"progress"')) lastPhase = 'ingest';
              if (!armed) arm(child);
            },
          });
          // A kill before node.json was first written leaves none (the next run starts the directory afresh).
          const position = existsSync(join(dataDir, 'node.json')) ? nodeFileOf(dataDir).position : null;
          if (run.signal === 'SIGKILL') {
            kills++;
            const chunks = await storedChunks(dataDir).catch(() => []);
            const events = chunks.flatMap((chunk) => chunk.events);
            const hotLatest = events.length === 0 ? 1 : Number(events.at(-1)?.split('/')[0]);
            // No partial ledger: the events are exactly the oracle's through some ledger, at or past the position.
            const through = oracle.events.filter((event) => Number(event.split('/')[0]) <= hotLatest);
            expect(events).toEqual(through);
            if (position !== null) {
              expect(position.hash).toBe(oracle.hashes.get(position.ledger));
              expect(position.ledger).toBeLessThanOrEqual(stateLedgerOf(dataDir));
              expect(position.ledger).toBeLessThanOrEqual(Math.max(hotLatest, position.ledger));
            }
            continue;
          }
          expect(run.code, run.stderr).toBe(0);
          expect(summaryOf(run.stdout).bucketListHash).toBe(wholeHash);
          expect(stateLedgerOf(dataDir)).toBe(41);
          expect(nodeFileOf(dataDir).position).toEqual({ ledger: 41, hash: oracle.hashes.get(41) });
          expect(await allEvents(dataDir)).toEqual(oracle.events);
          break;
        }
      }
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      if (KILLS >= 20) expect([...killedIn.keys()].length).toBeGreaterThanOrEqual(3);
      // For the report: where the kills landed (startup phases, ingest) and over how many data directories.
      process.stdout.write(
        `SIGKILLs: ${kills} over ${rounds} data directories, by phase: ${JSON.stringify(Object.fromEntries(killedIn))}\n`,
      );
    },
    60_000 + KILLS * 15_000,
  );
});
