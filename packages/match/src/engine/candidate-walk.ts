// What a stage's two walks share (the slab stepper and the span walk): candidates produced a block at a time (a
// slab's or a span's, each a sorted ascending array, blocks in walk order) and handed out in walk order to the fetch
// schedule, which asks for up to a batch at a time. Synchronous; one walk per stage of one matchEvents call.
import { assert } from '@strata/base';

export abstract class CandidateWalk {
  private readonly descendingWalk: boolean;
  /** The current block's candidates, handed out from `next` on (forward ascending, backward descending). */
  private block: Uint32Array | undefined;
  private next = 0;

  protected constructor(descending: boolean) {
    this.descendingWalk = descending;
  }

  /**
   * The next block in walk order with at least one candidate (ascending values, owned by the walk from then on), or
   * undefined when the stage is exhausted. `wanted` is how many candidates the current take still needs: a hint for
   * how much to evaluate at once, never a limit on what a block may hold.
   */
  protected abstract nextBlock(wanted: number): Uint32Array | undefined;

  /** Fills `dst` from index 0 with up to `count` candidates in walk order; returns how many (fewer: stage done). */
  take(dst: Uint32Array, count: number): number {
    assert(count <= dst.length, 'take fits the destination');
    let filled = 0;
    while (filled < count) {
      const block = this.block;
      if (block === undefined || this.next >= block.length) {
        this.block = this.nextBlock(count - filled);
        this.next = 0;
        if (this.block === undefined) break;
        continue;
      }
      const n = Math.min(count - filled, block.length - this.next);
      if (this.descendingWalk) {
        // The block is ascending; hand it out from its end.
        const top = block.length - 1 - this.next;
        for (let i = 0; i < n; i++) dst[filled + i] = block[top - i]!;
      } else {
        dst.set(block.subarray(this.next, this.next + n), filled);
      }
      this.next += n;
      filled += n;
    }
    return filled;
  }
}
