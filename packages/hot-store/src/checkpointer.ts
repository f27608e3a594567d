// The writer's WAL checkpoints, off the ingest thread: a worker thread with its own connection runs PASSIVE
// checkpoints when the writer asks (every CHECKPOINT_BYTES of committed payloads), so the copy of the WAL into the
// database file and its two fsyncs never stall an ingest call. The two threads talk through one SharedArrayBuffer
// only (no messages: the writer is synchronous and never yields to its event loop between ingest calls).
//
// Durability bookkeeping: before each request the writer stores its latest committed ledger; the worker reads it
// before it starts the checkpoint, so that ledger's frames are in the WAL the checkpoint sees. When the checkpoint
// copies every frame (WAL fsynced, frames copied, database file fsynced), that ledger survives a power cut and the
// worker publishes it as the durable ledger.
//
// Where no worker can be started (better-sqlite3 not resolvable from this module, e.g. in a bundle, or the worker
// failed), the writer checkpoints inline, in the ingest call, as before.
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { sqliteEntry } from './fetch-fanout.js';

/** Slots of the shared Int32Array. */
const SLOT = { REQUESTS: 0, STOP: 1, REQUESTED_LEDGER: 2, DURABLE_LEDGER: 3, DONE: 4, STATE: 5 } as const;
const SLOTS = 6;
/** Values of SLOT.STATE. */
const WORKER = { STARTING: 0, RUNNING: 1, EXITED: 2, FAILED: 3 } as const;
/** Longest wait for the worker to finish a checkpoint or to stop (a checkpoint copies at most ~CHECKPOINT_BYTES). */
const WAIT_MS = 60_000;

// Plain CommonJS: the worker runs from a string (eval), the same in the workspace (tsx), in dist and in bundles.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
let db;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('wal_autocheckpoint = 0');
  Atomics.store(state, ${SLOT.STATE}, ${WORKER.RUNNING});
  Atomics.notify(state, ${SLOT.STATE});
  let seen = 0;
  for (;;) {
    Atomics.wait(state, ${SLOT.REQUESTS}, seen);
    if (Atomics.load(state, ${SLOT.STOP}) === 1) break;
    seen = Atomics.load(state, ${SLOT.REQUESTS});
    const ledger = Atomics.load(state, ${SLOT.REQUESTED_LEDGER});
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)');
      if (result.checkpointed === result.log) Atomics.store(state, ${SLOT.DURABLE_LEDGER}, ledger);
    } catch {
      // left to the next request or the writer's sync()
    }
    Atomics.store(state, ${SLOT.DONE}, seen);
    Atomics.notify(state, ${SLOT.DONE});
  }
  db.close();
  Atomics.store(state, ${SLOT.STATE}, ${WORKER.EXITED});
} catch {
  try { db?.close(); } catch {}
  Atomics.store(state, ${SLOT.STATE}, ${WORKER.FAILED});
}
Atomics.notify(state, ${SLOT.STATE});
`;

/**
 * Checkpoints of one writer's database. Used from the writer's thread only. Ledgers are stored as int32 bit
 * patterns (read back unsigned); 0 means none (ledger 0 and 1 are never stored).
 */
export class Checkpointer {
  private readonly state = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private worker: Worker | undefined;
  private inline: boolean;
  private requests = 0;
  /** The durable ledger of inline checkpoints. */
  private inlineDurable = 0;

  constructor(
    private readonly path: string,
    private readonly db: Database.Database,
    background: boolean,
    /** better-sqlite3's entry for the worker (default: resolved from this module). */
    private readonly sqlite: string | undefined = sqliteEntry(),
  ) {
    this.inline = !background;
  }

  /** The newest ledger a completed checkpoint made durable, undefined when none did. */
  get durableLedger(): number | undefined {
    const ledger = Math.max(this.inlineDurable, Atomics.load(this.state, SLOT.DURABLE_LEDGER) >>> 0);
    return ledger === 0 ? undefined : ledger;
  }

  /** Asks for a PASSIVE checkpoint covering `latest` (the newest committed ledger); returns at once. */
  request(latest: number): void {
    const worker = this.inline ? undefined : this.started();
    if (worker === undefined) {
      this.inlineCheckpoint(latest);
      return;
    }
    if (Atomics.load(this.state, SLOT.DONE) !== this.requests) return; // one in flight: the next request covers more
    Atomics.store(this.state, SLOT.REQUESTED_LEDGER, latest | 0);
    this.requests = Atomics.add(this.state, SLOT.REQUESTS, 1) + 1;
    Atomics.notify(this.state, SLOT.REQUESTS);
  }

  /** Waits until no checkpoint of the worker is in flight (the writer's own checkpoint needs the lock). */
  idle(): void {
    if (this.worker === undefined) return;
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const done = Atomics.load(this.state, SLOT.DONE);
      if (done === this.requests || this.stopped() || Date.now() > deadline) return;
      Atomics.wait(this.state, SLOT.DONE, done, 100);
    }
  }

  /** Stops the worker and waits until it closed its connection. Idempotent. */
  close(): void {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    Atomics.store(this.state, SLOT.STOP, 1);
    Atomics.add(this.state, SLOT.REQUESTS, 1);
    Atomics.notify(this.state, SLOT.REQUESTS);
    const deadline = Date.now() + WAIT_MS;
    while (!this.stopped() && Date.now() < deadline) {
      Atomics.wait(this.state, SLOT.STATE, Atomics.load(this.state, SLOT.STATE), 100);
    }
  }

  private stopped(): boolean {
    const state = Atomics.load(this.state, SLOT.STATE);
    return state === WORKER.EXITED || state === WORKER.FAILED;
  }

  /** The worker, started on first use and waited for until it runs; undefined when it cannot run. */
  private started(): Worker | undefined {
    if (this.worker !== undefined) {
      if (!this.stopped()) return this.worker;
      this.worker = undefined;
      this.inline = true;
      return undefined;
    }
    const sqlite = this.sqlite;
    if (sqlite === undefined) {
      this.inline = true;
      return undefined;
    }
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { state: this.state.buffer, sqlite, path: this.path },
      execArgv: [],
    });
    worker.unref();
    worker.on('error', () => Atomics.store(this.state, SLOT.STATE, WORKER.FAILED));
    const deadline = Date.now() + WAIT_MS;
    while (Atomics.load(this.state, SLOT.STATE) === WORKER.STARTING && Date.now() < deadline) {
      Atomics.wait(this.state, SLOT.STATE, WORKER.STARTING, 100);
    }
    if (Atomics.load(this.state, SLOT.STATE) !== WORKER.RUNNING) {
      void worker.terminate();
      this.inline = true;
      return undefined;
    }
    this.worker = worker;
    return worker;
  }

  private inlineCheckpoint(latest: number): void {
    try {
      const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as [{ log: number; checkpointed: number }];
      if (result.checkpointed === result.log) this.inlineDurable = latest;
    } catch {
      // not the ingest's failure (it committed): the next checkpoint or sync() retries, and sync() reports it
    }
  }
}
