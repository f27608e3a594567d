// Copies of many small byte strings packed into shared blocks, as fetches and pages return them: one allocation per
// block instead of one ArrayBuffer per copy (an ArrayBuffer each was measured a large part of copying 1,000 events
// out of a store or into a page). Blocks grow from `firstBlockBytes`, doubling up to `blockBytes`, so a call that
// copies little allocates little; a string larger than a block gets one of its own. The blocks live as long as any
// copy of them is referenced. Not shared between callers that must not keep each other's memory alive.

/** Largest block (bytes) unless told otherwise. */
export const COPY_BLOCK_BYTES = 256 * 1024;
/** First block (bytes) unless told otherwise. */
export const FIRST_COPY_BLOCK_BYTES = 16 * 1024;

export class CopyBlocks {
  private block = new Uint8Array(0);
  private used = 0;
  private nextBytes: number;

  constructor(
    private readonly blockBytes = COPY_BLOCK_BYTES,
    firstBlockBytes = Math.min(FIRST_COPY_BLOCK_BYTES, blockBytes),
  ) {
    if (!Number.isSafeInteger(blockBytes) || blockBytes < 1) throw new RangeError(`block size ${blockBytes}`);
    if (!Number.isSafeInteger(firstBlockBytes) || firstBlockBytes < 1 || firstBlockBytes > blockBytes) {
      throw new RangeError(`first block size ${firstBlockBytes}`);
    }
    this.nextBytes = firstBlockBytes;
  }

  /** A copy of `bytes`, a view into the current block (valid and unchanged for as long as it is referenced). */
  copy(bytes: Uint8Array): Uint8Array {
    const length = bytes.length;
    if (length > this.block.length - this.used) {
      this.block = new Uint8Array(Math.max(this.nextBytes, length));
      this.used = 0;
      this.nextBytes = Math.min(this.blockBytes, this.nextBytes * 2);
    }
    const at = this.used;
    this.block.set(bytes, at);
    this.used = at + length;
    return this.block.subarray(at, this.used);
  }
}
