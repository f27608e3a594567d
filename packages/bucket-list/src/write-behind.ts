// Write-behind for large bucket outputs: the thread that merges fills 1 MiB chunks of a SharedArrayBuffer ring, and
// a helper thread (write-behind-helper.ts) SHA-256-hashes each chunk and writes it to the output file, so the merge
// loop, the hash and the kernel's copy into the page cache run on two cores instead of one after the other. One
// helper per thread that writes (a merge worker, or the main thread), started on first use with base's spawnWorker
// (from dist when built, from the TypeScript sources in the workspace) and kept (unref'd) for later outputs. The two
// sides share the control block's layout and protocol through write-behind-protocol.ts.
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '@strata/base';
import { BucketError } from './errors.js';
import {
  CONTROL_BYTES,
  DIGEST_BYTE,
  MESSAGE_BYTE,
  SLOTS,
  Status,
  Word,
  WRITE_BEHIND_CHUNK,
  type WriteBehindChannel,
} from './write-behind-protocol.js';

export { WRITE_BEHIND_CHUNK };

/** How long the producer waits for the helper without progress before it gives up (a wedged disk, a dead thread). */
const STALL_MS = 120_000;

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
    this.words[Word.FD] = fd;
    this.chunk = new Uint8Array(this.ring, 0, WRITE_BEHIND_CHUNK);
    helper ??= startHelper();
    const channel: WriteBehindChannel = { control: this.control, ring: this.ring };
    helper.postMessage(channel);
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
    words[Word.LENGTHS + slot] = length;
    this.produced++;
    Atomics.store(words, Word.PRODUCED, this.produced);
    Atomics.add(words, Word.SIGNAL, 1);
    Atomics.notify(words, Word.SIGNAL);
    if (Atomics.load(words, Word.ERROR) === 1) {
      throw new BucketError('IO', 'write bucket: the write-behind thread failed (the reason comes at close)', {
        file: this.path,
      });
    }
    // Wait for the slot the next chunk goes into.
    for (;;) {
      const consumed = Atomics.load(words, Word.CONSUMED);
      if (this.produced - consumed < SLOTS) break;
      waitWhile(words, Word.CONSUMED, consumed, this.path);
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
      Atomics.store(words, Word.CLOSED, 1);
      Atomics.add(words, Word.SIGNAL, 1);
      Atomics.notify(words, Word.SIGNAL);
      try {
        waitWhile(words, Word.STATUS, Status.RUNNING, this.path);
      } finally {
        helperBusy = false;
      }
    }
    if (Atomics.load(words, Word.STATUS) === Status.FAILED) this.fail();
    return Buffer.from(this.control, DIGEST_BYTE, 32).toString('hex');
  }

  private fail(): never {
    const length = this.words[Word.MESSAGE_LENGTH]!;
    const message = Buffer.from(this.control, MESSAGE_BYTE, length).toString('utf8');
    throw new BucketError('IO', `write bucket: ${message}`, { file: this.path });
  }
}

function startHelper(): Worker {
  // execArgv: [] so that, from dist, a helper of a process started with loaders or flags boots as plain Node: it
  // needs none (from the sources, spawnWorker adds the tsx loader and the strata-source condition it does need).
  const worker = spawnWorker(import.meta.url, 'write-behind-helper', {
    execArgv: [],
    name: 'strata-bucket-write-behind',
  });
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
