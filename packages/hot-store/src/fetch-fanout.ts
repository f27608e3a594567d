// The fan-out of large scattered fetches: a worker thread with its own read-only connection answers some of a
// fetchEvents call's groups while the calling thread answers the others. Scattered reads of a large chunk are B-tree
// seeks (~1.3 µs each of a 9 M-event chunk, mostly cache misses through its interior and leaf pages), and the
// calling thread is synchronous, so a second connection on a second core halves the wait of a large call.
//
// The two threads share memory only (no messages: the call is synchronous and never yields to its event loop). A call
// publishes its ordinals and a state word per group; the worker claims groups from the bottom, the caller from the
// top, each by a compare-and-swap on the group's word, so they meet wherever their speeds put the split. When they
// meet, the group the worker is reading is waited for at most as long as the caller's own groups took, then read by
// the caller too (its word taken from the worker, whose answer is then discarded): a call is never slower than the
// caller alone by more than that, however slowly the worker runs. The worker only runs the group statement and copies
// each group's aggregated row (its count and payload blob) into shared memory; the caller copies those rows out and
// checks and splits every group itself (splitGroupRow, and on failure the row-by-row read on its own connection that
// names what is wrong), so what the worker returns is checked exactly as the caller's own rows are. A group the worker
// could not answer (its row did not fit the shared region, SQLite failed) is read by the caller.
//
// A group's word is 4 × the call's sequence number + its phase (pending, claimed by the worker, answered by the
// worker, taken by the caller): every claim and answer of the worker names the call it belongs to, so one that
// arrives after its call ended (a worker descheduled mid-group) fails and is dropped.
//
// What the worker sees: every statement it runs is its own read transaction over the newest committed state. The
// caller asks only for ordinals its image holds, which were committed before they were published and never change
// (ingest appends; nothing rewrites an event), so the worker's newer snapshot holds the same payloads.
//
// Failure: a worker that cannot start, fails or exits is given up for good (the caller answers everything from then
// on, as with the fan-out off), and so is one that answered nothing in GIVE_UP_CALLS fanned-out calls in a row.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Slots of the control words. */
const C = { STATE: 0, STOP: 1, REQUEST: 2, COUNT: 3 } as const;
const CONTROL_WORDS = 4;
/** Values of C.STATE. */
const STATE = { STARTING: 0, RUNNING: 1, EXITED: 2, FAILED: 3 } as const;
/**
 * Per group: its state word (4 × call + phase), the row's count, the blob's offset and length in the byte region
 * (length -1: the row's blob was null).
 */
const INFO_WORDS = 4;
/** Phases of a group's state word. */
const PHASE = { PENDING: 0, CLAIMED: 1, ANSWERED: 2, TAKEN: 3 } as const;
/** Call sequence numbers wrap below 2^29, so 4 × call + phase stays a positive int32. */
const CALL_MASK = (1 << 29) - 1;

/**
 * A call is fanned out from this many groups on (measured on the real requests of query.pubnet-mix: 2, 3 and 4 within
 * noise of each other, 2 best; the caller takes a group the worker has not claimed yet, so a worker slow to wake costs
 * nothing).
 */
export const FANOUT_MIN_GROUPS = 2;
/** Bytes of payload blobs one call's worker share may return; groups past it are read by the caller. */
export const FANOUT_REGION_BYTES = 4 << 20;
/** How long a stopped worker may take to return before it is terminated. */
const STOP_GRACE_MS = 1_000;
/** A worker that answered no group in this many fanned-out calls in a row is given up (stuck, or starved of a core). */
const GIVE_UP_CALLS = 32;

/** What the fan-out needs to know about the fetch statements (hot-reader.ts ReadStatements). */
export interface FanoutStatements {
  /** SQL of the aggregated row of FETCH_ARITY scattered ordinals (`?` each). */
  readonly pickGroupSql: string;
  /** SQL of the aggregated row of a run of consecutive ordinals (`?` = first, `?` = one past the last). */
  readonly rangeGroupSql: string;
  readonly arity: number;
  /** Most ordinals one call holds. */
  readonly maxOrdinals: number;
}

/** Options of the worker's connection (the store's). */
export interface FanoutConnection {
  readonly cacheSizeKiB: number;
  readonly mmapSizeMiB: number;
}

/** Test seams of the fan-out. */
export interface FanoutSeams {
  /** Groups a call needs to be fanned out (default FANOUT_MIN_GROUPS). */
  readonly minGroups?: number;
  /** Bytes of the worker's region (default FANOUT_REGION_BYTES). */
  readonly regionBytes?: number;
  /** Fanned-out calls in a row without a group from the worker before it is given up (default GIVE_UP_CALLS). */
  readonly giveUpCalls?: number;
  /**
   * JavaScript the worker runs on each group it read, before it returns the row (tests: a stuck, failing or wrong
   * worker); it sees `from`, `to`, `row`, `ordinals` and the statements `pick` and `range`.
   */
  readonly workerHook?: string;
}

/** One group's row as the fetch statements give it. */
export type FanoutRow = readonly [number, Uint8Array | null];

/** The worker: plain CommonJS run from a string (eval), the same in the workspace, in dist and in bundles. */
function workerSource(hook: string): string {
  return `
const { workerData } = require('node:worker_threads');
const c = new Int32Array(workerData.control);
const ordinals = new Uint32Array(workerData.ordinals);
const info = new Int32Array(workerData.info);
const bytes = new Uint8Array(workerData.bytes);
const arity = workerData.arity;
let db;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.path, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = -' + workerData.cacheSizeKiB);
  db.pragma('mmap_size = ' + workerData.mmapSizeMiB * 1024 * 1024);
  const pick = db.prepare(workerData.pickGroupSql).raw();
  const range = db.prepare(workerData.rangeGroupSql).raw();
  const args = new Array(arity).fill(0);
  Atomics.store(c, ${C.STATE}, ${STATE.RUNNING});
  Atomics.notify(c, ${C.STATE});
  let seen = 0;
  for (;;) {
    Atomics.wait(c, ${C.REQUEST}, seen);
    if (Atomics.load(c, ${C.STOP}) === 1) break;
    seen = Atomics.load(c, ${C.REQUEST});
    // A newer call may be published meanwhile: then every compare-and-swap below fails (its words name that call).
    const call = 4 * (seen & ${CALL_MASK});
    const count = Atomics.load(c, ${C.COUNT});
    const groups = Math.ceil(count / arity);
    let used = 0;
    for (let g = 0; g < groups; g++) {
      const word = ${INFO_WORDS} * g;
      if (Atomics.compareExchange(info, word, call + ${PHASE.PENDING}, call + ${PHASE.CLAIMED}) !== call) break;
      const from = g * arity;
      const to = Math.min(count, from + arity);
      let row;
      try {
        if (ordinals[to - 1] - ordinals[from] === to - from - 1) {
          row = range.get(ordinals[from], ordinals[to - 1] + 1);
        } else {
          for (let i = 0; i < arity; i++) args[i] = ordinals[Math.min(from + i, to - 1)];
          row = pick.get(args);
        }
      } catch {
        continue; // left claimed: the caller takes it, and its own read names the failure
      }
      ${hook}
      const blob = row[1];
      const length = blob === null ? 0 : blob.length;
      if (length > bytes.length - used) break; // left claimed: this group and the rest are the caller's
      if (blob !== null) bytes.set(blob, used);
      info[word + 1] = row[0];
      info[word + 2] = used;
      info[word + 3] = blob === null ? -1 : length;
      if (Atomics.compareExchange(info, word, call + ${PHASE.CLAIMED}, call + ${PHASE.ANSWERED}) !== call + ${PHASE.CLAIMED}) break;
      Atomics.notify(info, word);
      used += length;
    }
  }
  db.close();
  Atomics.store(c, ${C.STATE}, ${STATE.EXITED});
} catch {
  try { db?.close(); } catch {}
  Atomics.store(c, ${C.STATE}, ${STATE.FAILED});
}
Atomics.notify(c, ${C.STATE});
`;
}

/** better-sqlite3's entry, resolved from this module; undefined where it cannot be (bundles). */
export function sqliteEntry(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return undefined;
  }
}

/** What the fan-out did (tests and benchmarks). */
export interface FanoutStats {
  /** Calls fanned out, groups the worker answered in them, and groups the caller took from the worker mid-read. */
  calls: number;
  workerGroups: number;
  takenGroups: number;
}

/**
 * The fan-out of one connection's fetches. Used from the connection's thread only. The worker starts at the first
 * call large enough, in the background: calls made before it runs are answered by the caller alone.
 */
export class FetchFanout {
  readonly stats: FanoutStats = { calls: 0, workerGroups: 0, takenGroups: 0 };
  private readonly control: Int32Array;
  private readonly ordinals: Uint32Array;
  private readonly info: Int32Array;
  private readonly bytes: Uint8Array;
  private worker: Worker | undefined;
  /** Set once the fan-out is given up (or was never possible): every call is the caller's alone. */
  private off: boolean;
  private readonly minGroups: number;
  private readonly giveUpCalls: number;
  private calls = 0;
  /** Fanned-out calls in a row in which the worker answered no group. */
  private idleCalls = 0;

  constructor(
    private readonly path: string,
    private readonly statements: FanoutStatements,
    private readonly connection: FanoutConnection,
    private readonly sqlite: string | undefined,
    private readonly seams: FanoutSeams = {},
  ) {
    this.off = sqlite === undefined;
    this.minGroups = seams.minGroups ?? FANOUT_MIN_GROUPS;
    this.giveUpCalls = seams.giveUpCalls ?? GIVE_UP_CALLS;
    const groups = Math.ceil(statements.maxOrdinals / statements.arity);
    this.control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
    this.ordinals = new Uint32Array(new SharedArrayBuffer(statements.maxOrdinals * 4));
    this.info = new Int32Array(new SharedArrayBuffer(groups * INFO_WORDS * 4));
    this.bytes = new Uint8Array(new SharedArrayBuffer(seams.regionBytes ?? FANOUT_REGION_BYTES));
  }

  /** Whether a worker answers groups now. */
  get running(): boolean {
    return !this.off && this.worker !== undefined && Atomics.load(this.control, C.STATE) === STATE.RUNNING;
  }

  /**
   * The rows of every group of `ordinals` (ascending, unique, at most maxOrdinals), in group order; `own(group)` reads
   * a group on the caller's connection. Undefined when the call is not fanned out (too small, no worker yet, given
   * up): the caller reads it alone.
   */
  rows(ordinals: ArrayLike<number>, own: (group: number) => FanoutRow): FanoutRow[] | undefined {
    const groups = Math.ceil(ordinals.length / this.statements.arity);
    if (this.off || groups < this.minGroups) return undefined;
    if (!this.running) {
      this.start();
      return undefined;
    }
    const { control, info } = this;
    this.calls = (this.calls + 1) & CALL_MASK;
    const call = 4 * this.calls;
    this.ordinals.set(ordinals);
    for (let g = 0; g < groups; g++) Atomics.store(info, INFO_WORDS * g, call + PHASE.PENDING);
    Atomics.store(control, C.COUNT, ordinals.length);
    Atomics.store(control, C.REQUEST, this.calls);
    Atomics.notify(control, C.REQUEST);
    const out: (FanoutRow | undefined)[] = new Array(groups);
    // The caller's share, from the top, until it meets a group the worker claimed.
    const started = performance.now();
    let top = groups;
    while (top > 0) {
      const word = INFO_WORDS * (top - 1);
      if (Atomics.compareExchange(info, word, call + PHASE.PENDING, call + PHASE.TAKEN) !== call + PHASE.PENDING) break;
      top--;
      out[top] = own(top);
    }
    // Below: groups the worker claimed. The one it is reading (the highest) is waited for as long as the caller's
    // own groups took on average, then taken; a group it left claimed (an error, a full region) is taken at once.
    const patience = top < groups ? (performance.now() - started) / (groups - top) : 0;
    const waitedFrom = performance.now();
    for (let g = top - 1; g >= 0; g--) {
      const word = INFO_WORDS * g;
      for (;;) {
        const phase = Atomics.load(info, word) - call;
        if (phase === PHASE.ANSWERED) break;
        if (phase === PHASE.CLAIMED && g === top - 1 && performance.now() - waitedFrom < patience) continue;
        if (Atomics.compareExchange(info, word, call + phase, call + PHASE.TAKEN) !== call + phase) continue;
        if (phase === PHASE.CLAIMED) this.stats.takenGroups++;
        out[g] = own(g);
        break;
      }
    }
    this.stats.calls++;
    // The worker's answers: one copy of its region, then a view per group.
    let end = 0;
    let answered = 0;
    for (let g = 0; g < top; g++) {
      if (out[g] !== undefined) continue;
      answered++;
      end = Math.max(end, info[INFO_WORDS * g + 2]! + Math.max(0, info[INFO_WORDS * g + 3]!));
    }
    const copy = answered === 0 ? this.bytes.subarray(0, 0) : this.bytes.slice(0, end);
    for (let g = 0; g < top; g++) {
      if (out[g] !== undefined) continue;
      const at = info[INFO_WORDS * g + 2]!;
      const length = info[INFO_WORDS * g + 3]!;
      out[g] = [info[INFO_WORDS * g + 1]!, length < 0 ? null : copy.subarray(at, at + length)];
    }
    this.stats.workerGroups += answered;
    this.idleCalls = answered === 0 ? this.idleCalls + 1 : 0;
    if (this.idleCalls >= this.giveUpCalls || Atomics.load(control, C.STATE) !== STATE.RUNNING) this.giveUp();
    return out as FanoutRow[];
  }

  private start(): void {
    if (this.worker !== undefined) {
      // started and not running: still starting, or it stopped (then it is given up)
      const state = Atomics.load(this.control, C.STATE);
      if (state === STATE.EXITED || state === STATE.FAILED) this.giveUp();
      return;
    }
    let worker: Worker;
    try {
      worker = new Worker(workerSource(this.seams.workerHook ?? ''), {
        eval: true,
        execArgv: [],
        workerData: {
          control: this.control.buffer,
          ordinals: this.ordinals.buffer,
          info: this.info.buffer,
          bytes: this.bytes.buffer,
          arity: this.statements.arity,
          pickGroupSql: this.statements.pickGroupSql,
          rangeGroupSql: this.statements.rangeGroupSql,
          sqlite: this.sqlite,
          path: this.path,
          cacheSizeKiB: this.connection.cacheSizeKiB,
          mmapSizeMiB: this.connection.mmapSizeMiB,
        },
        resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
      });
    } catch {
      this.off = true;
      return;
    }
    worker.unref();
    const control = this.control;
    worker.on('error', () => Atomics.store(control, C.STATE, STATE.FAILED));
    worker.on('exit', () => {
      if (Atomics.load(control, C.STATE) === STATE.RUNNING) Atomics.store(control, C.STATE, STATE.EXITED);
    });
    this.worker = worker;
  }

  /** Stops using the worker for good: later calls are the caller's alone. */
  private giveUp(): void {
    this.off = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) this.stop(worker);
  }

  /**
   * Stops the worker and waits (up to STOP_GRACE_MS) until it closed its connection, so the store's own close is the
   * last one (SQLite then checkpoints and removes the WAL). Idempotent; later calls are the caller's alone.
   */
  close(): void {
    const worker = this.worker;
    this.giveUp();
    if (worker === undefined) return;
    const control = this.control;
    const deadline = performance.now() + STOP_GRACE_MS;
    for (;;) {
      const state = Atomics.load(control, C.STATE);
      const left = deadline - performance.now();
      if ((state !== STATE.STARTING && state !== STATE.RUNNING) || left <= 0) return;
      Atomics.wait(control, C.STATE, state, Math.min(left, 50));
    }
  }

  /**
   * Asks the worker to return (it closes its read-only connection) and lets it go: nothing waits for it, and a
   * worker that does not return (stuck in a read) is terminated, which closes the connection with the thread.
   */
  private stop(worker: Worker): void {
    const control = this.control;
    Atomics.store(control, C.STOP, 1);
    Atomics.add(control, C.REQUEST, 1);
    Atomics.notify(control, C.REQUEST);
    setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
  }
}
