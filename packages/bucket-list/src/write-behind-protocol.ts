// The shared-memory protocol between a write-behind producer (write-behind.ts, in the thread that writes a bucket)
// and its helper thread (write-behind-helper.ts): the layout of the control block and the ring, in one place that
// both import, so the two sides cannot drift apart.
//
// All words are Int32 of `control` (Word), accessed with Atomics only. The producer publishes chunk k into slot
// k % SLOTS by storing its length at LENGTHS + slot, then PRODUCED = k + 1, then bumps SIGNAL and notifies it; on
// close it sets CLOSED and bumps SIGNAL (an event count: the helper reads SIGNAL before it looks for work and waits
// on the value it read, so no wake-up is lost). The helper processes chunks in order, stores CONSUMED and notifies
// it (the producer waits there for a free slot), and when CLOSED and drained stores the digest and sets STATUS (OK,
// or FAILED with a message). A failed write sets ERROR at once, makes the helper discard the remaining chunks (so
// the producer never blocks) and is reported at close. The producer never closes the file while the helper may
// still write to it: close waits for STATUS.

/** Bytes per chunk; the ring holds SLOTS of them. */
export const WRITE_BEHIND_CHUNK = 1 << 20;
export const SLOTS = 4;

/** The Int32 words of the control block, by index. */
export const Word = {
  /** An event count the producer bumps (and notifies) after each chunk and at close; the helper waits on it. */
  SIGNAL: 0,
  /** Chunks published so far. */
  PRODUCED: 1,
  /** Chunks hashed and written (or discarded after a failure) so far; the producer waits on it for a free slot. */
  CONSUMED: 2,
  /** 1 once the producer has published its last chunk. */
  CLOSED: 3,
  /** A Status, set by the helper once it is done with the output. */
  STATUS: 4,
  /** The output file's descriptor, owned by the producer (the helper only writes to it). */
  FD: 5,
  /** Length in bytes of the UTF-8 error message at MESSAGE_BYTE. */
  MESSAGE_LENGTH: 6,
  /** Set to 1 as soon as a write fails (the producer stops early; STATUS says FAILED at close). */
  ERROR: 7,
  /** SLOTS words from here: the length of the chunk in each slot. */
  LENGTHS: 8,
} as const;

/** 32 bytes of SHA-256, after the words. */
export const DIGEST_BYTE = (Word.LENGTHS + SLOTS) * 4;
/** The failed write's message (UTF-8, at most MESSAGE_CAPACITY bytes), after the digest. */
export const MESSAGE_BYTE = DIGEST_BYTE + 32;
export const MESSAGE_CAPACITY = 1024;
export const CONTROL_BYTES = MESSAGE_BYTE + MESSAGE_CAPACITY;

/** Values of the STATUS word: the helper sets OK (digest written) or FAILED (message written) at close. */
export const Status = { RUNNING: 0, OK: 1, FAILED: 2 } as const;

/** What the producer posts to the helper for each output: the control block and the ring of SLOTS chunks. */
export interface WriteBehindChannel {
  readonly control: SharedArrayBuffer;
  readonly ring: SharedArrayBuffer;
}
