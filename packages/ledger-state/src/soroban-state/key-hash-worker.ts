// Population's key hashing on a second core. SorobanState.populate copies each CONTRACT_DATA key into a batch of a
// ring of batches in shared memory; a worker thread takes published batches in order and writes their SHA-256 next
// to them (KeyHasher: the same code, from its source), while the populating thread goes on scanning. When the
// populating thread needs a batch's hashes (its slot is wanted for a new batch, or the scan is over) it takes them
// from the ring if the worker has finished the batch, and otherwise hashes the batch itself: a batch the worker has
// not claimed is taken from it, one it is working on is waited for briefly (a batch is ~0.1 ms of work), then taken
// too. So a worker that starts late, runs slowly, fails or never starts changes nothing but speed: hashes are
// deterministic, a batch hashed by both gives the same hashes, and the worker's results for a batch taken from it
// are never read (each slot's state names its batch, and the worker only finishes a batch it still holds). The
// worker writes nothing but hashes and the slot's state: it hashes copies of the keys (never padding them in the
// ring, which the populating thread may already be refilling with a batch taken from the worker).
//
// Measured (Node 20, 1 M keys): hashing is ~0.45 s of a ~2.2 s population on one core; a worker started from a
// source string costs ~9.5 MiB and ~22 ms to start (one that loads the package through tsx, as spawnWorker does from
// source, ~26 MiB and ~200 ms), hence the eval'd source (keyHasherSource) rather than an entry file.
import { Worker } from 'node:worker_threads';
import { assert } from '@strata/base';
import { type KeyHasher, keyHasherSource, SHA256_PADDING_BYTES } from './key-hash.js';

/** Keys in one batch, and the bytes a batch may take (each key with room for its padding, 8-aligned). */
export const KEY_BATCH = 256;
export const KEY_BATCH_BYTES = 1 << 16;
/** Batches in the ring: how far the worker may fall behind before the populating thread hashes for it. */
const SLOTS = 16;
/**
 * The worker is woken once every this many batches (it then hashes all there are): woken for each, it preempted the
 * populating thread on a machine whose cores were busy, costing it more than the hashing saved.
 */
const NOTIFY_EVERY = 4;
/** A slot of the ring: its keys, then each key's start and length (i32), then their hashes (32 bytes each). */
const STARTS_AT = KEY_BATCH_BYTES;
const LENGTHS_AT = STARTS_AT + 4 * KEY_BATCH;
const HASHES_AT = LENGTHS_AT + 4 * KEY_BATCH;
const SLOT_BYTES = HASHES_AT + 32 * KEY_BATCH;

/** The control words (an Int32Array over their own SharedArrayBuffer). */
const C_PUBLISHED = 0; // batches published so far (the next batch's number)
const C_STOP = 1; // 1: the worker is to return
const C_WORKER = 2; // 0 not in its loop yet, 1 in it, 2 out of it (returned or failed)
const C_HASHED = 3; // keys whose hashes the worker delivered
const C_STATE = 4; // + slot: 4 * batch + phase, for the batch the slot holds
const C_COUNT = C_STATE + SLOTS; // + slot: keys in that batch
const CONTROL_WORDS = C_COUNT + SLOTS;
/** A slot's phases: its batch is taken (its hashes read, or hashed by the populating thread), ready, claimed, done. */
const TAKEN = 0;
const READY = 1;
const CLAIMED = 2;
const DONE = 3;
/** Longest wait for a batch the worker is hashing, and the most waiting a population may do in all, in ms. */
const WAIT_MS = 0.25;
const WAIT_BUDGET_MS = 20;

/** What the worker gets (its workerData): the shared memory and the ring's layout. */
export interface KeyHashWorkerData {
  readonly control: SharedArrayBuffer;
  readonly ring: SharedArrayBuffer;
  readonly layout: {
    readonly slots: number;
    readonly slotBytes: number;
    readonly startsAt: number;
    readonly lengthsAt: number;
    readonly hashesAt: number;
    readonly paddingBytes: number;
    readonly words: {
      readonly published: number;
      readonly stop: number;
      readonly worker: number;
      readonly hashed: number;
      readonly state: number;
      readonly count: number;
    };
  };
}

/** Starts the worker from its source and data, or gives undefined (no worker). Tests pass slow or broken ones. */
export type KeyHashWorkerStart = (source: string, workerData: KeyHashWorkerData) => Worker | undefined;

/**
 * The worker's loop. It runs from its source text (see workerSource), so it may use only its parameters and
 * globals. Takes the published batches in order (skipping any whose slot the populating thread has reused), claims
 * each that is still ready, hashes its keys into the slot and marks it done if it still holds the claim.
 */
function keyHashWorkerLoop(data: KeyHashWorkerData, Hasher: typeof KeyHasher): void {
  const { slots, slotBytes, startsAt, lengthsAt, hashesAt, paddingBytes, words } = data.layout;
  const control = new Int32Array(data.control);
  const bytes = new Uint8Array(data.ring);
  const ring = new Int32Array(data.ring);
  const hasher = new Hasher();
  const batchKeys = (hashesAt - lengthsAt) / 4;
  const scratch = new Uint8Array(startsAt + paddingBytes);
  Atomics.store(control, words.worker, 1);
  try {
    let next = 0;
    while (Atomics.load(control, words.stop) === 0) {
      const published = Atomics.load(control, words.published);
      if (next >= published) {
        // woken by the next publication or by the stop; the timeout only bounds a missed wake-up
        Atomics.wait(control, words.published, published, 100);
        continue;
      }
      if (published - next > slots) next = published - slots;
      const slot = next % slots;
      const ready = (4 * next + 1) | 0;
      if (Atomics.compareExchange(control, words.state + slot, ready, ready + 1) === ready) {
        const base = slot * slotBytes;
        const count = Math.min(Atomics.load(control, words.count + slot), batchKeys);
        for (let i = 0; i < count; i++) {
          const start = ring[(base + startsAt) / 4 + i] as number;
          const length = ring[(base + lengthsAt) / 4 + i] as number;
          // Read only what a consistent batch holds: a batch taken from this worker may be overwritten meanwhile
          // (its hashes are then never read), and what it reads must stay in its slot.
          if (start < 0 || length < 0 || start + length > startsAt) continue;
          // Hashed in a copy: the padding is written after the message, and the ring is the populating thread's.
          scratch.set(bytes.subarray(base + start, base + start + length));
          hasher.hashAt(scratch, 0, length, bytes, base + hashesAt + 32 * i);
        }
        if (Atomics.compareExchange(control, words.state + slot, ready + 1, ready + 2) === ready + 1) {
          Atomics.add(control, words.hashed, count);
        }
        Atomics.notify(control, words.state + slot);
      }
      next++;
    }
  } finally {
    Atomics.store(control, words.worker, 2);
    for (let slot = 0; slot < slots; slot++) Atomics.notify(control, words.state + slot);
  }
}

/**
 * The worker's whole program: KeyHasher's source, then the loop called with the worker's data. Tests put a class of
 * their own in `prelude` and name it as the hasher (a slow or broken one).
 */
export function keyHashWorkerSource(hasher = 'KeyHasher', prelude = ''): string {
  return (
    `${keyHasherSource()}\n${prelude}\n` +
    `(${keyHashWorkerLoop.toString()})(require('node:worker_threads').workerData, ${hasher});\n`
  );
}

/**
 * The default start: an eval'd worker with no Node options of the parent's (execArgv [] keeps a parent's
 * `--import tsx` out of it) and small heap limits (it allocates almost nothing). Undefined when it cannot start.
 */
export const startKeyHashWorker: KeyHashWorkerStart = (source, workerData) => {
  try {
    return new Worker(source, {
      eval: true,
      execArgv: [],
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
  } catch {
    return undefined;
  }
};

/** Receives a batch's hashes: key i's tag is `tags[tagAt + i]`, its hash the 8 words `words[wordAt + 8 i, +8)`. */
export type HashedBatch = (tags: Int32Array, tagAt: number, count: number, words: Uint32Array, wordAt: number) => void;

/** How a pipeline's batches were hashed (for tests and measurements). */
export interface KeyHashStats {
  readonly batches: number;
  /** Keys whose hashes came from the worker. */
  readonly byWorker: number;
  /** Batches the populating thread hashed itself because the worker had not finished them. */
  readonly taken: number;
  readonly waits: number;
}

/**
 * Hashes keys a batch at a time, on a worker when one runs. Single-threaded on the caller's side: one population
 * fills it, then `finish`es it. The caller writes each key into `bytes` at `base + used` (`keyRoom` bytes of room),
 * then calls `add`; hashes arrive through `hashed`, batch by batch, in no particular order, each key's exactly once,
 * all of them by the time `finish` returns. The worker starts with the first full batch (a population of fewer keys
 * never starts one) and is stopped by `finish`.
 */
export class KeyHashPipeline {
  /** The ring: the batch being filled begins at `base`, and `used` of its key bytes are taken. */
  readonly bytes: Uint8Array;
  base = 0;
  used = 0;
  readonly #ring: Int32Array;
  readonly #ringWords: Uint32Array;
  readonly #control: Int32Array;
  readonly #controlBuffer: SharedArrayBuffer;
  readonly #ringBuffer: SharedArrayBuffer;
  /** Each slot's keys' tags (the caller's: here, population's record ordinals). */
  readonly #tags = new Int32Array(SLOTS * KEY_BATCH);
  /** Hashes the populating thread computes itself (never in the ring, which a late worker may still write to). */
  readonly #local = new Uint8Array(32 * KEY_BATCH);
  readonly #localWords = new Uint32Array(this.#local.buffer);
  readonly #hasher: KeyHasher;
  readonly #hashed: HashedBatch;
  readonly #start: KeyHashWorkerStart | null;
  #worker: Worker | undefined;
  /** Whether the worker was started (or tried to be: one that cannot start is not tried again). */
  #started = false;
  /** Keys in the batch being filled, its number, and the oldest batch whose hashes are still to be read. */
  #count = 0;
  #batch = 0;
  #oldest = 0;
  #waitLeftMs = WAIT_BUDGET_MS;
  #taken = 0;
  #waits = 0;
  #finished = false;
  /** Settles when the worker has exited (at once when none started). */
  closed: Promise<void> = Promise.resolve();

  /**
   * `hasher` hashes on this thread (the state's own); `start` starts the worker (null: none, every batch is hashed
   * here as soon as it is full).
   */
  constructor(hasher: KeyHasher, hashed: HashedBatch, start: KeyHashWorkerStart | null) {
    this.#hasher = hasher;
    this.#hashed = hashed;
    this.#start = start;
    this.#controlBuffer = new SharedArrayBuffer(4 * CONTROL_WORDS);
    this.#ringBuffer = new SharedArrayBuffer(SLOTS * SLOT_BYTES);
    this.#control = new Int32Array(this.#controlBuffer);
    this.bytes = new Uint8Array(this.#ringBuffer);
    this.#ring = new Int32Array(this.#ringBuffer);
    this.#ringWords = new Uint32Array(this.#ringBuffer);
  }

  /** Whether a key of `room` bytes (its length and padding, 8-aligned) fits the batch being filled. */
  fits(room: number): boolean {
    return this.used + room <= KEY_BATCH_BYTES;
  }

  /**
   * Adds the key of `length` bytes the caller wrote at `base + used`, taking `room` bytes (at most KEY_BATCH_BYTES),
   * with its tag. Publishes the batch when it is full (the next key then goes to the next slot).
   */
  add(length: number, room: number, tag: number): void {
    assert(!this.#finished && this.used + room <= KEY_BATCH_BYTES, 'a key goes into an open batch with room');
    const slot = this.#batch % SLOTS;
    const at = (slot * SLOT_BYTES) >>> 2;
    this.#ring[at + (STARTS_AT >>> 2) + this.#count] = this.used;
    this.#ring[at + (LENGTHS_AT >>> 2) + this.#count] = length;
    this.#tags[slot * KEY_BATCH + this.#count] = tag;
    this.used += room;
    if (++this.#count === KEY_BATCH) this.publish();
  }

  /** Publishes the batch being filled (if it holds any key) and opens the next one. */
  publish(): void {
    if (this.#count === 0) return;
    const batch = this.#batch;
    const slot = batch % SLOTS;
    this.#control[C_COUNT + slot] = this.#count;
    if (!this.#started && this.#start !== null && this.#count === KEY_BATCH) this.#startWorker();
    Atomics.store(this.#control, C_STATE + slot, (4 * batch + READY) | 0);
    Atomics.store(this.#control, C_PUBLISHED, batch + 1);
    if (this.#worker === undefined) this.#take(batch);
    else if ((batch + 1) % NOTIFY_EVERY === 0) Atomics.notify(this.#control, C_PUBLISHED, 1);
    this.#batch = batch + 1;
    this.#count = 0;
    this.used = 0;
    // Hashes the worker has finished are read at once, while their records are still in this core's cache (read a
    // ring later, the records' lines are mostly evicted: ~0.3 µs a key more). The next batch's slot must be free.
    const control = this.#control;
    while (
      this.#oldest < this.#batch &&
      Atomics.load(control, C_STATE + (this.#oldest % SLOTS)) === ((4 * this.#oldest + DONE) | 0)
    ) {
      this.#take(this.#oldest);
    }
    if (this.#batch - this.#oldest === SLOTS) this.#take(this.#oldest);
    this.base = (this.#batch % SLOTS) * SLOT_BYTES;
  }

  /** Publishes the last batch and delivers every hash still due; stops the worker. */
  finish(): void {
    this.publish();
    this.#finished = true;
    // newest first: the worker takes the oldest first, so the two meet rather than wait for each other
    for (let batch = this.#batch - 1; batch >= this.#oldest; batch--) this.#take(batch);
    this.#oldest = this.#batch;
    this.#stop();
  }

  /** Stops the worker without delivering anything (a population that failed part-way). Idempotent. */
  abandon(): void {
    this.#finished = true;
    this.#stop();
  }

  get stats(): KeyHashStats {
    return {
      batches: this.#batch,
      byWorker: Atomics.load(this.#control, C_HASHED),
      taken: this.#taken,
      waits: this.#waits,
    };
  }

  #startWorker(): void {
    this.#started = true;
    const worker = this.#start?.(keyHashWorkerSource(), {
      control: this.#controlBuffer,
      ring: this.#ringBuffer,
      layout: {
        slots: SLOTS,
        slotBytes: SLOT_BYTES,
        startsAt: STARTS_AT,
        lengthsAt: LENGTHS_AT,
        hashesAt: HASHES_AT,
        paddingBytes: SHA256_PADDING_BYTES,
        words: {
          published: C_PUBLISHED,
          stop: C_STOP,
          worker: C_WORKER,
          hashed: C_HASHED,
          state: C_STATE,
          count: C_COUNT,
        },
      },
    });
    if (worker === undefined) return;
    this.#worker = worker;
    // Its errors arrive as events once the populating thread's (synchronous) work is over; the ring does not need
    // them (a failed worker stops claiming batches), but an unheard 'error' event would end the process.
    worker.on('error', () => undefined);
    worker.unref();
    this.closed = new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  #stop(): void {
    Atomics.store(this.#control, C_STOP, 1);
    Atomics.notify(this.#control, C_PUBLISHED);
    const worker = this.#worker;
    this.#worker = undefined;
    // terminate() also ends a worker that never reached its loop; its promise settles with the 'exit' event
    worker?.terminate().catch(() => undefined);
  }

  /** Delivers batch `batch`'s hashes: the worker's when it has finished them, else computed here. */
  #take(batch: number): void {
    const slot = batch % SLOTS;
    const state = C_STATE + slot;
    const control = this.#control;
    for (;;) {
      const value = Atomics.load(control, state);
      if (value === ((4 * batch + DONE) | 0)) {
        Atomics.store(control, state, (4 * batch + TAKEN) | 0);
        this.#deliver(slot, this.#ringWords, ((slot * SLOT_BYTES + HASHES_AT) >>> 2) | 0);
        break;
      }
      if (value === ((4 * batch + CLAIMED) | 0) && this.#waitLeftMs > 0 && Atomics.load(control, C_WORKER) === 1) {
        const waited = performance.now();
        this.#waits++;
        const result = Atomics.wait(control, state, value, WAIT_MS);
        this.#waitLeftMs -= performance.now() - waited;
        if (result !== 'timed-out') continue;
      }
      assert(
        value === ((4 * batch + READY) | 0) || value === ((4 * batch + CLAIMED) | 0),
        'a batch due is ready, claimed or done',
      );
      if (Atomics.compareExchange(control, state, value, (4 * batch + TAKEN) | 0) !== value) continue;
      if (this.#worker !== undefined) this.#taken++;
      this.#hashHere(slot);
      break;
    }
    if (batch === this.#oldest) this.#oldest++;
  }

  #hashHere(slot: number): void {
    const base = slot * SLOT_BYTES;
    const count = this.#control[C_COUNT + slot]!;
    const at = base >>> 2;
    for (let i = 0; i < count; i++) {
      // `!` below: i is below the batch's count
      const start = this.#ring[at + (STARTS_AT >>> 2) + i]!;
      const length = this.#ring[at + (LENGTHS_AT >>> 2) + i]!;
      this.#hasher.hashAt(this.bytes, base + start, length, this.#local, 32 * i);
    }
    this.#deliver(slot, this.#localWords, 0);
  }

  #deliver(slot: number, words: Uint32Array, wordAt: number): void {
    this.#hashed(this.#tags, slot * KEY_BATCH, this.#control[C_COUNT + slot]!, words, wordAt);
  }
}
