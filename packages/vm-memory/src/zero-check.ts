// Content checks on a memory: is a range all zero, and where is its first non-zero byte. Used by verification, by
// the self-test, by the pure-JS backend for present-but-shared pages, and by the resident-set sampling. memcmp
// against a zero buffer (Buffer.compare) runs at memory bandwidth; a JS loop over words is 2-3x slower.

const CHUNK = 1 << 16;
const ZEROS = Buffer.alloc(CHUNK);

/** The offset of the first non-zero byte in [start, end) of `buffer`, or -1. */
export function firstNonZero(buffer: ArrayBuffer, start = 0, end = buffer.byteLength): number {
  for (let offset = start; offset < end; offset += CHUNK) {
    const length = Math.min(CHUNK, end - offset);
    const chunk = Buffer.from(buffer, offset, length);
    if (Buffer.compare(chunk, length === CHUNK ? ZEROS : ZEROS.subarray(0, length)) !== 0) {
      for (let index = 0; index < length; index++) if (chunk[index] !== 0) return offset + index;
    }
  }
  return -1;
}

/** Whether [start, end) of `buffer` is all zero. */
export function isZeroRange(buffer: ArrayBuffer, start: number, end: number): boolean {
  return firstNonZero(buffer, start, end) < 0;
}
