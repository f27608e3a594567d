// Wasm module binaries written byte by byte for the tests of the prepare step: modules built from sections, with
// section sizes encoded as minimal or deliberately padded (valid, non-minimal) LEB128s, and those sizes read back.
import { encodeU32, readU32 } from '../src/wasm-binary.js';

/** Builds a module binary from sections (id, payload), with optional padding of each size LEB to `pad` bytes. */
export function moduleOf(sections: [number, number[]][], pad = 0): Uint8Array {
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  for (const [id, payload] of sections) out.push(id, ...paddedLeb(payload.length, pad), ...payload);
  return Uint8Array.from(out);
}

/** `value` as an unsigned LEB128 of at least `length` bytes (non-minimal when longer than needed). */
export function paddedLeb(value: number, length: number): number[] {
  const minimal = encodeU32(value);
  if (minimal.length >= length) return minimal;
  const bytes: number[] = [];
  let rest = value;
  for (let index = 0; index < length; index++) {
    const last = index === length - 1;
    bytes.push((rest & 0x7f) | (last ? 0 : 0x80));
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

/** A wasm name: its length (one LEB128 byte, for the short names of the tests), then its UTF-8 bytes. */
export const name = (text: string) => [text.length, ...Buffer.from(text)];

/** Re-encodes every section size of a binary with `pad`-byte LEB128s (valid wasm: sizes may be non-minimal). */
export function padSectionSizes(code: Uint8Array, pad: number): Uint8Array {
  const sections: [number, number[]][] = [];
  let offset = 8;
  while (offset < code.length) {
    const id = code[offset]!;
    const size = readU32(code, offset + 1);
    sections.push([id, Array.from(code.subarray(size.next, size.next + size.value))]);
    offset = size.next + size.value;
  }
  return moduleOf(sections, pad);
}

/** Each section's id, payload size and the byte length of its size LEB128. */
export function sectionSizes(code: Uint8Array): { id: number; size: number; lebLength: number }[] {
  const sections: { id: number; size: number; lebLength: number }[] = [];
  let offset = 8;
  while (offset < code.length) {
    const size = readU32(code, offset + 1);
    sections.push({ id: code[offset]!, size: size.value, lebLength: size.next - offset - 1 });
    offset = size.next + size.value;
  }
  return sections;
}
