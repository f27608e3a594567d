// The crash test's child: ingests synthetic ledgers into a hot store until it is killed (or reaches the last
// ledger), announcing each call on stdout synchronously — "A <last ledger>" before the call, "C <last ledger>"
// once it returned (committed) — so the parent knows exactly which commits may have happened when it kills.
// It loads its modules first and opens the store only when the parent writes a line to its stdin, so the parent
// can keep children warm while another one runs. It checkpoints every CHECKPOINT_EVERY payload bytes (in its
// checkpoint worker, started from better-sqlite3's entry the parent passes), so kills land in checkpoints too.
// argv: path, chunkId, seed, lastLedger, maxEvents, better-sqlite3 entry.
import { writeSync } from 'node:fs';
import { chunkFirstLedger } from '@strata/events';
import { seededRandom } from '@strata/test-kit/random';
import { openHotStoreWith } from '../../src/hot-store.js';
import { syntheticLedger } from '../support.js';

const [path, chunkArg, seedArg, lastArg, maxArg, sqliteEntry] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const CHECKPOINT_EVERY = 16 * 1024;
const chunkId = Number(chunkArg);
const seed = Number(seedArg);
const last = Number(lastArg);
const maxEvents = Number(maxArg);
/** Writes a whole line to the stdout pipe before returning (retrying while the pipe is full: it is non-blocking). */
function say(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
process.stdin.pause();
const store = openHotStoreWith(path, { chunkId, create: true }, { checkpointBytes: CHECKPOINT_EVERY, sqliteEntry });
let next = (store.latestLedger ?? chunkFirstLedger(chunkId) - 1) + 1;
say(`R ${next - 1}`);
const random = seededRandom(seed ^ next);
while (next <= last) {
  const size = Math.min(last - next + 1, random() < 0.2 ? 1 + Math.floor(random() * 4) : 1);
  const batch = Array.from({ length: size }, (_, i) => ({
    ledger: next + i,
    payloads: syntheticLedger(seed, next + i, maxEvents),
  }));
  say(`A ${next + size - 1}`);
  store.ingestLedgers(batch);
  say(`C ${next + size - 1}`);
  next += size;
}
store.close();
say('D');
