// Write-behind for large bucket outputs: the thread that merges fills 1 MiB chunks of a SharedArrayBuffer ring, and
// a helper thread SHA-256-hashes each chunk and writes it to the output file, so the merge loop, the hash and the
// kernel's copy into the page cache run on two cores instead of one after the other. The helper is plain JavaScript
// evaluated from a string (node builtins only), so it starts the same from src and from dist; one helper per thread
// that writes (a merge worker, or the main thread), started on first use and kept (unref'd) for later outputs.
//
// Protocol (all Int32 words of `control`, Atomics only): the producer publishes chunk k into slot k % SLOTS by
// storing its length, then PRODUCED = k + 1, then bumps SIGNAL and notifies it; on close it sets CLOSED and bumps
// SIGNAL (an event count: the helper reads SIGNAL before it looks for work and waits on the value it read, so no
// wake-up is lost). The helper processes chunks in order, stores CONSUMED and notifies it (the producer waits there
// for a free slot), and when CLOSED and drained stores the digest and sets STATUS (OK or FAILED with a message). A
// failed write makes the helper discard the remaining chunks (so the producer never blocks) and report at close.
// The producer never closes the file while the helper may still write to it: close waits for STATUS.
import { Worker } from 'node:worker_threads';
import { BucketError } from './errors.js';

/** Bytes per chunk; the ring holds SLOTS of them. */
export const WRITE_BEHIND_CHUNK = 1 << 20;
const SLOTS = 4;

// Control words.
const SIGNAL = 0;
const PRODUCED = 1;
const CONSUMED = 2;
const CLOSED = 3;
const STATUS = 4;
const FD = 5;
const ERROR = 7; // set to 1 as soon as a write fails (the producer stops early; STATUS says FAILED at close)
const LENGTHS = 8; // SLOTS words
const DIGEST_BYTE = (LENGTHS + SLOTS) * 4; // 32 bytes of SHA-256
const MESSAGE_BYTE = DIGEST_BYTE + 32; // UTF-8 error message, length in word MESSAGE_LENGTH
const MESSAGE_LENGTH = 6;
const MESSAGE_CAPACITY = 1024;
const CONTROL_BYTES = MESSAGE_BYTE + MESSAGE_CAPACITY;

const RUNNING = 0;
const OK = 1;
const FAILED = 2;

/** How long the producer waits for the helper without progress before it gives up (a wedged disk, a dead thread). */
const STALL_MS = 120_000;

/** The protocol constants the helper's source uses, declared in it under the same names. */
const HELPER_CONSTANTS = {
  SIGNAL,
  PRODUCED,
  CONSUMED,
  CLOSED,
  STATUS,
  FD,
  ERROR,
  LENGTHS,
  DIGEST_BYTE,
  MESSAGE_BYTE,
  MESSAGE_LENGTH,
  MESSAGE_CAPACITY,
  OK,
  FAILED,
};

const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { writeSync } = require('node:fs');
${Object.entries(HELPER_CONSTANTS)
  .map(([name, value]) => `const ${name} = ${value};`)
  .join('\n')}
parentPort.on('message', ({ control, ring, slots, chunkSize }) => {
  const words = new Int32Array(control);
  const bytes = new Uint8Array(control);
  const hash = createHash('sha256');
  const fd = words[FD];
  let consumed = 0;
  let failure;
  for (;;) {
    const signal = Atomics.load(words, SIGNAL);
    if (consumed < Atomics.load(words, PRODUCED)) {
      const slot = consumed % slots;
      const chunk = new Uint8Array(ring, slot * chunkSize, words[LENGTHS + slot]);
      if (failure === undefined) {
        try {
          hash.update(chunk);
          let done = 0;
          while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done);
        } catch (error) {
          failure = (error && error.message) || String(error);
          Atomics.store(words, ERROR, 1);
        }
      }
      consumed++;
      Atomics.store(words, CONSUMED, consumed);
      Atomics.notify(words, CONSUMED);
      continue;
    }
    if (Atomics.load(words, CLOSED) === 1) {
      if (consumed < Atomics.load(words, PRODUCED)) continue;
      if (failure === undefined) {
        bytes.set(hash.digest(), DIGEST_BYTE);
      } else {
        const message = Buffer.from(failure).subarray(0, MESSAGE_CAPACITY);
        bytes.set(message, MESSAGE_BYTE);
        words[MESSAGE_LENGTH] = message.length;
      }
      Atomics.store(words, STATUS, failure === undefined ? OK : FAILED);
      Atomics.notify(words, STATUS);
      return;
    }
    Atomics.wait(words, SIGNAL, signal);
  }
});
`;

/** The helper thread of this thread (one output at a time), started lazily. */
let helper: Worker | undefined;
let helperBusy = false;

/** Waits while `words[index] === value`, failing after STALL_MS without a change. */
function waitWhile(words: Int32Array, index: number, value: number, path: string): void {
  const deadline = Date.now() + STALL_MS;
  while (Atomics.load(words, index) === value) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new BucketError('IO', `the write-behind thread made no progress for ${STALL_MS / 1000} s`, {
        file: path,
      });
    }
    Atomics.wait(words, index, value, Math.min(remaining, 1000));
  }
}

/**
 * One output file's write-behind channel: `chunk` is the buffer to fill; `submit(length)` hands it to the helper
 * and returns the next free chunk (blocking while all are in flight; throwing once a write has failed); `close()`
 * waits until every byte is written and returns the SHA-256 of all of them, or throws the failed write's error. The
 * caller must call `close()` even after an error, before it closes the file: only then is the helper done with it.
 * Exclusive: `WriteBehind.tryOpen` returns undefined while this thread's helper serves another output (the caller
 * then hashes and writes itself).
 */
export class WriteBehind {
  chunk: Uint8Array;
  private readonly words: Int32Array;
  private readonly control: SharedArrayBuffer;
  private readonly ring: SharedArrayBuffer;
  private produced = 0;
  private closed = false;

  private constructor(
    fd: number,
    private readonly path: string,
  ) {
    this.control = new SharedArrayBuffer(CONTROL_BYTES);
    this.ring = new SharedArrayBuffer(SLOTS * WRITE_BEHIND_CHUNK);
    this.words = new Int32Array(this.control);
    this.words[FD] = fd;
    this.chunk = new Uint8Array(this.ring, 0, WRITE_BEHIND_CHUNK);
    helper ??= startHelper();
    helper.postMessage({ control: this.control, ring: this.ring, slots: SLOTS, chunkSize: WRITE_BEHIND_CHUNK });
  }

  /** A channel writing to `fd` (owned by the caller, who closes it after `close()`), or undefined if busy. */
  static tryOpen(fd: number, path: string): WriteBehind | undefined {
    if (helperBusy) return undefined;
    helperBusy = true;
    try {
      return new WriteBehind(fd, path);
    } catch (error) {
      helperBusy = false;
      throw error;
    }
  }

  /** Publishes `chunk[0, length)` and returns the next chunk to fill. */
  submit(length: number): Uint8Array {
    const words = this.words;
    const slot = this.produced % SLOTS;
    words[LENGTHS + slot] = length;
    this.produced++;
    Atomics.store(words, PRODUCED, this.produced);
    Atomics.add(words, SIGNAL, 1);
    Atomics.notify(words, SIGNAL);
    if (Atomics.load(words, ERROR) === 1) {
      throw new BucketError('IO', 'write bucket: the write-behind thread failed (the reason comes at close)', {
        file: this.path,
      });
    }
    // Wait for the slot the next chunk goes into.
    for (;;) {
      const consumed = Atomics.load(words, CONSUMED);
      if (this.produced - consumed < SLOTS) break;
      waitWhile(words, CONSUMED, consumed, this.path);
    }
    const next = this.produced % SLOTS;
    this.chunk = new Uint8Array(this.ring, next * WRITE_BEHIND_CHUNK, WRITE_BEHIND_CHUNK);
    return this.chunk;
  }

  /** Waits until everything submitted is hashed and written; returns the SHA-256 (hex) or throws the write's error. */
  close(): string {
    const words = this.words;
    if (!this.closed) {
      this.closed = true;
      Atomics.store(words, CLOSED, 1);
      Atomics.add(words, SIGNAL, 1);
      Atomics.notify(words, SIGNAL);
      try {
        waitWhile(words, STATUS, RUNNING, this.path);
      } finally {
        helperBusy = false;
      }
    }
    if (Atomics.load(words, STATUS) === FAILED) this.fail();
    return Buffer.from(this.control, DIGEST_BYTE, 32).toString('hex');
  }

  private fail(): never {
    const length = this.words[MESSAGE_LENGTH]!;
    const message = Buffer.from(this.control, MESSAGE_BYTE, length).toString('utf8');
    throw new BucketError('IO', `write bucket: ${message}`, { file: this.path });
  }
}

function startHelper(): Worker {
  // execArgv: [] so a helper of a process started with loaders (tsx, vitest) boots as plain Node: it needs none.
  const worker = new Worker(HELPER_SOURCE, { eval: true, execArgv: [], name: 'strata-bucket-write-behind' });
  worker.unref();
  worker.on('error', () => {
    // A helper that dies leaves its producer waiting until STALL_MS; the next output starts a new one.
    helper = undefined;
  });
  worker.on('exit', () => {
    helper = undefined;
  });
  return worker;
}
