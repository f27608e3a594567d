// CopyBlocks: copies of byte strings packed into shared blocks. Checked against the oracle of one fresh copy each:
// 1. every copy equals its source, for any sequence of lengths (empty, tiny, around and above the block sizes);
// 2. copies are copies: changing a source afterwards changes no copy, and no two copies share a byte (the check a
//    block handing out the same bytes twice fails);
// 3. blocks grow from the first size, doubling up to the largest; a string larger than the free room starts a new
//    block, one larger than a block gets one of its own;
// 4. bad sizes are refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CopyBlocks } from '../src/index.js';

function overlaps(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.buffer === b.buffer &&
    a.length > 0 &&
    b.length > 0 &&
    a.byteOffset < b.byteOffset + b.length &&
    b.byteOffset < a.byteOffset + a.length
  );
}

describe('CopyBlocks', () => {
  it('1-2. copies equal their sources, stay unchanged and never share bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 700 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 4096 }),
        fc.integer({ min: 1, max: 4096 }),
        (sources, a, b) => {
          const [first, largest] = a <= b ? [a, b] : [b, a];
          const blocks = new CopyBlocks(largest, first);
          const copies = sources.map((source) => blocks.copy(source));
          const expected = sources.map((source) => Uint8Array.from(source));
          for (const source of sources) source.fill(0xa5);
          expect(copies).toEqual(expected);
          for (let i = 0; i < copies.length; i++) {
            for (let j = i + 1; j < copies.length; j++) expect(overlaps(copies[i]!, copies[j]!)).toBe(false);
          }
        },
      ),
    );
  });

  it('3. blocks double from the first size up to the largest; a large string gets its own', () => {
    const blocks = new CopyBlocks(64, 16);
    const buffers = new Set<ArrayBufferLike>();
    const sizes: number[] = [];
    const take = (length: number) => {
      const copy = blocks.copy(new Uint8Array(length).fill(length));
      if (!buffers.has(copy.buffer)) {
        buffers.add(copy.buffer);
        sizes.push(copy.buffer.byteLength);
      }
      return copy;
    };
    for (let i = 0; i < 8; i++) take(10); // 16 (one copy), 32 (three), 64 (the other four)
    expect(sizes).toEqual([16, 32, 64]);
    take(100); // larger than a block: its own
    expect(sizes.at(-1)).toBe(100);
    take(10);
    expect(sizes.at(-1)).toBe(64);
  });

  it('4. refuses bad sizes', () => {
    expect(() => new CopyBlocks(0)).toThrow(RangeError);
    expect(() => new CopyBlocks(16, 32)).toThrow(RangeError);
    expect(() => new CopyBlocks(16, 0)).toThrow(RangeError);
    expect(() => new CopyBlocks(1.5)).toThrow(RangeError);
  });
});
