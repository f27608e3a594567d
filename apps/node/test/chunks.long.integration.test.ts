// A generated network of three event chunks (20,100 ledgers: chunks 0 and 1 complete, chunk 2 live), as real
// `strata` processes. Long (minutes): runs only with STRATA_NODE_LONG=1 (README "Tests"). Checks:
// 1. at each chunk boundary the finished chunk freezes in the background while ingest goes on into the next chunk
//    (ledgers of the next chunk are committed before the freeze reports), and its hot database is dropped;
// 2. SIGKILLs at random moments while a chunk freezes: each restart keeps every committed ledger, resumes or redoes
//    the freeze, and in the end every chunk is frozen exactly once;
// 3. every event of every chunk is readable from the tier that serves it (cold for 0 and 1, hot for 2) and equal
//    to the generator's record; the position carries the generator's hash; `strata verify` passes;
// 4. retention: a restart with --retention-ledgers 10000 drops chunk 0 and keeps 1 and 2.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFirstLedger, chunkLastLedger } from '@strata/events';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { dataDirLayout, hotChunkPath } from '../src/data-dir.js';
import type { GeneratorSource } from '../src/generator-source.js';
import { nodeFileOf } from './support/data-dir-reads.js';
import { generatedOracle, generatorArgs, storedChunks } from './support/generated.js';
import { ramTempDir } from './support/ram-dir.js';
import { logLines, runStrata } from './support/strata-process.js';

const SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 1,
  ledgers: 20_100,
  eventsPerLedger: 2,
  accounts: 20,
  contracts: 2,
};
const LAST = SOURCE.ledgers + 1;
const FREEZE_KILLS = Number(process.env.STRATA_NODE_FREEZE_KILLS ?? 4);

function ingestArgs(dataDir: string, ...extra: string[]): string[] {
  return ['ingest', '--data-dir', dataDir, ...generatorArgs(SOURCE), '--retention-ledgers', '0', ...extra];
}

describe.skipIf(process.env.STRATA_NODE_LONG !== '1')('a generated network of three chunks', () => {
  it('freezes chunks while ingest goes on, survives kills mid-freeze, serves every event, applies retention', async () => {
    const oracle = generatedOracle(SOURCE);
    const dataDir = join(ramTempDir('node-chunks-long'), 'data');
    const layout = dataDirLayout(dataDir);
    const random = seededRandom(33);
    const logs: Record<string, unknown>[] = [];

    // To the end of chunk 0, then across the boundary with SIGKILLs while chunk 0 (then chunk 1) freezes.
    const first = await runStrata(ingestArgs(dataDir, '--to', String(chunkLastLedger(0) - 50)));
    expect(first.code, first.stderr).toBe(0);
    let kills = 0;
    for (const chunkId of [0, 1]) {
      const to = String(chunkLastLedger(chunkId + 1) - 50);
      for (let i = 0; i < FREEZE_KILLS; i++) {
        // Within the freeze of a chunk this size (~1–2 s): ingest goes on faster than the freeze, and a kill after
        // the run ended would not count.
        const delay = Math.floor(random() * 1500);
        let armed = false;
        const run = await runStrata(ingestArgs(dataDir, '--to', to), {
          onStderr: (stderr, child) => {
            if (armed || !stderr.includes(`freezing chunk ${chunkId} to cold`)) return;
            armed = true;
            setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), delay);
          },
        });
        logs.push(...logLines(run.stderr));
        if (run.signal === 'SIGKILL') kills++;
        else expect(run.code, run.stderr).toBe(0);
        const position = nodeFileOf(dataDir).position;
        expect(position?.hash).toBe(oracle.hashes.get(position?.ledger ?? 0));
        const events = (await storedChunks(dataDir)).flatMap((chunk) => chunk.events);
        const newest = Number(events.at(-1)?.split('/')[0]);
        expect(newest).toBeGreaterThanOrEqual(position?.ledger ?? 0);
        expect(events).toEqual(oracle.events.filter((event) => Number(event.split('/')[0]) <= newest));
      }
      // Complete this stretch: the freeze (resumed at startup, or redone) finishes, ingest goes on meanwhile.
      const rest = await runStrata(ingestArgs(dataDir, '--to', to));
      expect(rest.code, rest.stderr).toBe(0);
      logs.push(...logLines(rest.stderr));
      // The freeze that succeeded reported after ingest had committed ledgers of the next chunk.
      const froze = logs.filter((line) => line.chunkId === chunkId && String(line.msg).startsWith('froze chunk'));
      expect(froze).toHaveLength(1);
      expect(Number(froze[0]?.nextLedger)).toBeGreaterThan(chunkFirstLedger(chunkId + 1));
      expect(existsSync(hotChunkPath(layout, chunkId))).toBe(false);
    }
    expect(kills).toBeGreaterThanOrEqual(2); // a freeze that completed before its kill leaves nothing to kill
    process.stdout.write(`SIGKILLs while freezing: ${kills}\n`);

    // The rest uninterrupted: ingest continues past chunk 1's freeze; every chunk readable and equal to the oracle.
    const last = await runStrata(ingestArgs(dataDir));
    expect(last.code, last.stderr).toBe(0);
    expect(nodeFileOf(dataDir).position).toEqual({ ledger: LAST, hash: oracle.hashes.get(LAST) });
    const chunks = await storedChunks(dataDir);
    expect(chunks.map((chunk) => [chunk.chunkId, chunk.tier])).toEqual([
      [0, 'cold'],
      [1, 'cold'],
      [2, 'hot'],
    ]);
    expect(chunks.flatMap((chunk) => chunk.events)).toEqual(oracle.events);
    const verified = await runStrata(['verify', '--data-dir', dataDir]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ coldChunks: 2, unfrozenColdFolders: 0 });

    // Retention: a window of 10,000 ledgers ending at ledger 20,101 no longer holds any ledger of chunk 0.
    const kept = await runStrata([...ingestArgs(dataDir).slice(0, -2), '--retention-ledgers', '10000']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(logLines(kept.stderr).find((line) => line.msg === 'retention dropped chunks')).toMatchObject({
      dropped: [0],
    });
    expect((await storedChunks(dataDir)).map((chunk) => chunk.chunkId)).toEqual([1, 2]);
  }, 3_600_000);
});
