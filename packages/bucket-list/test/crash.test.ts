// Crash safety: a child closing ledgers (real fsyncs, worker-thread merges) is killed with SIGKILL at random moments,
// during addLedger and while background merges run. Every reopen must come back at a ledger at least as new as the
// last one the child reported durable, with every bucket the HAS names verifying (BucketManager.open checks each
// SHA-256), and the run must end at the same list hash as one that was never interrupted.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from '@strata/bench';
import { seededRandom, withTempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { BucketManager } from '../src/bucket-manager.js';
import { BatchStream } from './support.js';

const LAST = 600;
const POOL = 400;
const SEED = 77;
const child = fileURLToPath(new URL('./children/crash-writer.ts', import.meta.url));
const protocolAt = (ledger: number): number => (ledger < 150 ? 22 : 23);

/** Runs the child until it reports `killAtLedger` durable (or finishes), then SIGKILLs it after `extraMs`. */
function runChild(dir: string, killAtLedger: number, extraMs: number): Promise<{ durable: number; finished: boolean }> {
  return new Promise((resolve, reject) => {
    const proc = fork(child, [dir, String(LAST), String(SEED), String(POOL)], {
      execArgv: typeScriptExecArgv(),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let durable = 0;
    let finished = false;
    let killTimer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.on('message', (message: { durable?: number; done?: boolean }) => {
      if (message.durable !== undefined) durable = message.durable;
      if (message.done === true) finished = true;
      if (durable >= killAtLedger && killTimer === undefined) {
        killTimer = setTimeout(() => proc.kill('SIGKILL'), extraMs);
      }
    });
    proc.on('error', reject);
    proc.on('exit', () => {
      clearTimeout(deadline);
      if (killTimer !== undefined) clearTimeout(killTimer);
      resolve({ durable, finished });
    });
  });
}

async function uninterruptedHash(): Promise<string> {
  return withTempDir(async (dir) => {
    const stream = new BatchStream(POOL, SEED, 40);
    const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false, create: true });
    try {
      for (let ledger = 1; ledger <= LAST; ledger++) {
        const { live, hot } = stream.next(ledger, protocolAt(ledger));
        await manager.addLedger(ledger, protocolAt(ledger), live, hot);
      }
      return manager.bucketListHash();
    } finally {
      await manager.close();
    }
  });
}

describe('crash safety', () => {
  it('SIGKILL at random moments reopens to the last durable ledger and ends at the uninterrupted hash', async () => {
    const expected = await uninterruptedHash();
    const random = seededRandom(SEED);
    await withTempDir(async (dir) => {
      let lastDurable = 0;
      let kills = 0;
      for (let round = 0; round < 12; round++) {
        const target = Math.min(LAST, lastDurable + 1 + Math.floor(random() * 80));
        const { durable, finished } = await runChild(dir, target, Math.floor(random() * 40));
        if (!finished) kills++;
        // Reopen: every bucket verifies, and no durable ledger was lost.
        // create: the child may have been killed before its open created the state.
        const manager = await BucketManager.open(dir, {
          merger: 'inline',
          fsync: false,
          restartMerges: false,
          create: true,
        });
        try {
          expect(manager.ledger).toBeGreaterThanOrEqual(Math.max(durable, lastDurable));
          lastDurable = manager.ledger;
        } finally {
          await manager.close();
        }
        if (finished) break;
      }
      expect(kills).toBeGreaterThan(3);
      // Finish the run (in a last child, uninterrupted) and compare.
      const { finished } = await runChild(dir, Number.POSITIVE_INFINITY, 0);
      expect(finished).toBe(true);
      const manager = await BucketManager.open(dir, { merger: 'inline', fsync: false });
      try {
        expect(manager.ledger).toBe(LAST);
        expect(manager.bucketListHash()).toBe(expected);
      } finally {
        await manager.close();
      }
    });
  }, 300_000);
});
