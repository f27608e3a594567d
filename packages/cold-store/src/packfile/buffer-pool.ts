// Read buffers for packfile batches. A buffer belongs to exactly one batch from acquire() to release(): the batch
// reads into it, checks and inflates its records, copies the items out, and gives it back on every path (the
// callers release in `finally`). No buffer is ever handed to two holders at once, which is the property the arena
// race upstream broke (spec §4.8). The pool keeps at most `cap` free buffers; one given back beyond that is dropped
// to the garbage collector and counted.
import { assert } from '@strata/base';

export class BufferPool {
  private readonly free: Uint8Array[] = [];
  private readonly held = new Set<Uint8Array>();
  private dropped = 0;

  /**
   * @param bufferBytes size of every pooled buffer; a request above it gets a buffer of its own size, which is not
   *   kept on release.
   * @param cap most free buffers kept.
   */
  constructor(
    readonly bufferBytes: number,
    readonly cap: number,
  ) {}

  /** A buffer of at least `bytes` bytes, owned by the caller until release(). Its content is unspecified. */
  acquire(bytes: number): Uint8Array {
    const buffer =
      bytes <= this.bufferBytes ? (this.free.pop() ?? new Uint8Array(this.bufferBytes)) : new Uint8Array(bytes);
    this.held.add(buffer);
    return buffer;
  }

  /** Gives a buffer from acquire() back; releasing one twice, or one the pool did not give, is a bug. */
  release(buffer: Uint8Array): void {
    assert(this.held.delete(buffer), 'BufferPool.release of a buffer not held');
    if (buffer.length !== this.bufferBytes) return;
    if (this.free.length < this.cap) this.free.push(buffer);
    else this.dropped++;
  }

  /** Buffers acquired and not yet released. */
  get inUse(): number {
    return this.held.size;
  }

  /** Buffers released while the pool already held `cap` free ones. */
  get droppedByCap(): number {
    return this.dropped;
  }
}
