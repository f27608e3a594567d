// Child process of the crash test: creates (or resumes) a state directory and closes ledgers up to `last` with real
// fsyncs and worker-thread merges, reporting each ledger over IPC once addLedger has returned (its HAS is durable).
// The parent kills it with SIGKILL at random moments.
import { BucketManager } from '../../src/bucket-manager.js';
import { BatchStream } from '../support.js';

const [dir, lastText, seedText, poolText] = process.argv.slice(2);
const last = Number(lastText);
const stream = new BatchStream(Number(poolText), Number(seedText), 40);
const protocolAt = (ledger: number): number => (ledger < 150 ? 22 : 23);

const manager = await BucketManager.open(dir!, { merger: 'workers', workers: 1, fsync: true, create: true });
process.send!({ opened: manager.ledger });
for (let ledger = 1; ledger <= last; ledger++) {
  const { live, hot } = stream.next(ledger, protocolAt(ledger));
  if (ledger <= manager.ledger) continue; // replaying the stream up to the saved ledger
  await manager.addLedger(ledger, protocolAt(ledger), live, hot);
  process.send!({ durable: ledger });
}
await manager.close();
process.send!({ done: true });
