// The binary encoding the prepare step reads and writes, against the spec's definition. Properties:
//  1. every u32 round-trips through `encodeU32` and `readU32`, which also decodes any valid padded (non-minimal)
//     encoding of up to 5 bytes;
//  2. overlong, out-of-range and truncated encodings are refused (examples at each edge);
//  3. a module whose section sizes are padded LEB128s (valid wasm) is prepared for any pool shape it fits: the
//     result compiles, instantiates over the pool's memory with its data, has a minimal size in the rewritten import
//     section and every other section's size encoded as it was.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeU32, readU32, standardizeMemory } from '../src/wasm-binary.js';
import { compileContract } from './contracts.js';
import { paddedLeb, padSectionSizes, sectionSizes } from './module-binaries.js';

let ownMemory: Uint8Array;
beforeAll(async () => {
  ownMemory = await compileContract('own-memory');
});

describe('LEB128', () => {
  it('1. round-trips every u32 and decodes padded encodings', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.integer({ min: 1, max: 5 }), (value, length) => {
        expect(readU32(Uint8Array.from(encodeU32(value)), 0)).toEqual({ value, next: encodeU32(value).length });
        const padded = paddedLeb(value, length);
        expect(readU32(Uint8Array.from(padded), 0)).toEqual({ value, next: padded.length });
      }),
      propertyParams({ numRuns: 1000 }),
    );
    expect(encodeU32(0)).toEqual([0]);
    expect(encodeU32(127)).toEqual([0x7f]);
    expect(encodeU32(128)).toEqual([0x80, 0x01]);
    expect(encodeU32(1024)).toEqual([0x80, 0x08]);
    expect(encodeU32(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
  });

  it('2. rejects overlong, out-of-range and truncated encodings', () => {
    expect(() => readU32(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), 0)).toThrow(/longer than 5 bytes/);
    expect(() => readU32(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x1f]), 0)).toThrow(/does not fit in 32 bits/);
    expect(() => readU32(Uint8Array.from([0x80, 0x80]), 0)).toThrow(/truncated/);
  });
});

describe('prepare over padded section sizes', () => {
  it('3. reads padded section-size LEB128s and writes minimal ones, copying the other sections as they were', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 4 }), (pad, pages) => {
        const padded = padSectionSizes(ownMemory, pad);
        expect(() => new WebAssembly.Module(padded)).not.toThrow();
        const { bytes, rewritten } = standardizeMemory(padded, { initialPages: 2 + pages, maximumPages: 8 });
        expect(rewritten).toBe(true);
        const memory = new WebAssembly.Memory({ initial: 2 + pages, maximum: 8 });
        const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as {
          load(address: number): number;
          size(): number;
        };
        expect(exports.size()).toBe(2 + pages);
        expect(exports.load(16)).toBe('o'.charCodeAt(0));
        // The rewritten import section has a minimal size LEB; the other sections are copied as they were.
        const sizes = sectionSizes(bytes);
        expect(sizes.find((section) => section.id === 2)?.lebLength).toBe(1);
        for (const section of sizes.filter((entry) => entry.id !== 2))
          expect(section.lebLength).toBe(Math.max(pad, encodeU32(section.size).length));
      }),
      propertyParams({ numRuns: 20 }),
    );
  });
});
