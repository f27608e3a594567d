// A reusable list of byte ranges [start, end) in ascending order, stored as pairs in a Float64Array that grows as
// needed and is reused across resets (a reset allocates nothing in the common case).

export class RangeList {
  /** Pairs start, end for ranges 0 .. count - 1. */
  data: Float64Array;
  count = 0;
  /** Sum of the range lengths. */
  bytes = 0;

  constructor(capacity = 256) {
    this.data = new Float64Array(capacity * 2);
  }

  clear(): void {
    this.count = 0;
    this.bytes = 0;
  }

  /** Appends [start, end), merging it into the last range when they touch. Ranges must come in ascending order. */
  push(start: number, end: number): void {
    const count = this.count;
    if (count > 0 && this.data[2 * count - 1] === start) {
      this.data[2 * count - 1] = end;
    } else {
      if (2 * count + 2 > this.data.length) this.grow(count + 1);
      this.data[2 * count] = start;
      this.data[2 * count + 1] = end;
      this.count = count + 1;
    }
    this.bytes += end - start;
  }

  /** Makes room for `ranges` ranges, keeping the current ones. */
  grow(ranges: number): void {
    if (ranges * 2 <= this.data.length) return;
    const next = new Float64Array(Math.max(ranges * 2, this.data.length * 2));
    next.set(this.data.subarray(0, this.count * 2));
    this.data = next;
  }

  start(index: number): number {
    return this.data[2 * index]!;
  }

  end(index: number): number {
    return this.data[2 * index + 1]!;
  }
}
