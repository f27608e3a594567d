// XXH3-128 (seed 0) for term keys: inputs of up to 240 bytes (every term value but an unusually large topic) in
// WebAssembly (src/xxh3.wat, compiled into src/xxh3-wasm.ts), longer ones through @node-rs/xxhash.
//
// Why WebAssembly: the hash is 64-bit multiply arithmetic, which wasm does natively and JavaScript can only emulate
// with split doubles (the previous pure-JS version cost ~170 ns per term here); a napi call costs 350-600 ns per hash
// (argument checks plus a 128-bit BigInt result). The module is instantiated synchronously at import: it is 1.5 KB,
// has no imports, and its memory never grows, so the views below stay valid. test/xxh3.property.test.ts checks
// xxh3128Into against @node-rs/xxhash for every length 0..300.
import { xxh3 } from '@node-rs/xxhash';
import type {} from '@strata/base';
import { XXH3_WASM_BASE64 } from './xxh3-wasm.js';

/** Longest input hashed in WebAssembly (XXH3_MIDSIZE_MAX); longer ones take the napi path (XXH3's stripe loop). */
export const XXH3_WASM_MAX_INPUT = 240;

interface Xxh3Exports {
  readonly memory: WebAssembly.Memory;
  readonly INPUT: WebAssembly.Global<number>;
  readonly OUTPUT: WebAssembly.Global<number>;
  readonly hash128: (len: number) => void;
}

const wasm = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(XXH3_WASM_BASE64, 'base64')))
  .exports as unknown as Xxh3Exports;
const hash128 = wasm.hash128;
const memory = new Uint8Array(wasm.memory.buffer);
const OUTPUT = wasm.OUTPUT.value;

/** The module's input area: callers write up to XXH3_WASM_MAX_INPUT bytes here and call xxh3InputInto. */
export const XXH3_INPUT = memory.subarray(wasm.INPUT.value, wasm.INPUT.value + XXH3_WASM_MAX_INPUT);

/**
 * XXH3-128 (seed 0) of `XXH3_INPUT[0, len)` (len <= XXH3_WASM_MAX_INPUT), written to `out[o, o + 16)` in the TermKey
 * layout: low 64 bits little-endian, then high 64 bits little-endian.
 */
export function xxh3InputInto(len: number, out: Uint8Array, o: number): void {
  hash128(len);
  for (let i = 0; i < 16; i++) out[o + i] = memory[OUTPUT + i]!;
}

const LOW64 = 0xffffffffffffffffn;
const napiView = new DataView(new ArrayBuffer(16));

/** XXH3-128 (seed 0) of `b[p, p + len)` into `out[o, o + 16)` (TermKey layout); any length. */
export function xxh3128Into(b: Uint8Array, p: number, len: number, out: Uint8Array, o: number): void {
  if (len <= XXH3_WASM_MAX_INPUT) {
    XXH3_INPUT.set(b.subarray(p, p + len));
    xxh3InputInto(len, out, o);
    return;
  }
  const h = xxh3.xxh128(b.subarray(p, p + len));
  napiView.setBigUint64(0, h & LOW64, true);
  napiView.setBigUint64(8, h >> 64n, true);
  for (let i = 0; i < 16; i++) out[o + i] = napiView.getUint8(i);
}
