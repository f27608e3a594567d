// The WebAssembly fast path of compareLedgerKeys: the JavaScript side of src/key-order.wat (compiled into
// src/key-order-wasm.ts). Both keys are copied into the module's memory, validated whole and ordered there. It only
// answers for valid keys; anything else comes back as a status and src/compare.ts reruns the JavaScript comparator,
// which throws the exact error. The compiled module is also what each KeyedRecordArena instantiates.
//
// Why WebAssembly: a CONTRACT_DATA key is a tree of small SCVal nodes, and validating both keys node by node in
// JavaScript was two thirds of a comparison (bounds checks, calls and table reads per node that TurboFan does not
// fold away); in wasm a node is a few instructions and equal runs compare eight bytes at a time. The two copies
// (TypedArray#set) and the call cost about 50-65 ns per pair and are the price of it.
//
// The module is instantiated synchronously at import: it is 3.1 KB, has no imports, and this instance's memory never
// grows, so the view below stays valid. The memory is shared by every call: safe because a comparison never calls
// out to user code, so no other comparison can interleave (JavaScript is single-threaded per realm; workers have
// their own module instance).
import type {} from '@strata/base';
import { KEY_ORDER_WASM_BASE64 } from './key-order-wasm.js';

/** What an instance of the key-order module exports. */
export interface KeyOrderExports {
  readonly memory: WebAssembly.Memory;
  readonly KEY_A: WebAssembly.Global<number>;
  readonly KEY_B: WebAssembly.Global<number>;
  readonly KEY_CAPACITY: WebAssembly.Global<number>;
  readonly compare: (lenA: number, lenB: number) => number;
  readonly compareKeyedAt: (pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number;
}

/** The compiled key-order module (one per thread; every arena instantiates it again). */
export const keyOrderModule = new WebAssembly.Module(Buffer.from(KEY_ORDER_WASM_BASE64, 'base64'));

/** A fresh instance of the key-order module: its own one-page memory. */
export function instantiateKeyOrder(): KeyOrderExports {
  return new WebAssembly.Instance(keyOrderModule).exports as unknown as KeyOrderExports;
}

const wasm = instantiateKeyOrder();
const wasmCompare = wasm.compare;
const memory = new Uint8Array(wasm.memory.buffer);
const KEY_A = wasm.KEY_A.value;
const KEY_B = wasm.KEY_B.value;

/**
 * Largest key, in bytes, that the wasm path takes (each of the two). Real keys are far smaller (the network caps a
 * CONTRACT_DATA key at a few hundred bytes); a larger one is ordered by the JavaScript comparator instead.
 */
export const KEY_ORDER_CAPACITY: number = wasm.KEY_CAPACITY.value;

/** compareKeysInWasm's status when either key is not exactly one valid LedgerKey. */
export const KEY_ORDER_MALFORMED = 2;
/** compareKeysInWasm's status when either key is longer than KEY_ORDER_CAPACITY (nothing was read). */
export const KEY_ORDER_TOO_LARGE = 3;

/**
 * stellar-core's order of two XDR LedgerKeys (each filling its array): -1, 0 or 1 when both are valid, otherwise
 * KEY_ORDER_MALFORMED or KEY_ORDER_TOO_LARGE, so any result above 1 means "ask the JavaScript comparator". Never
 * throws and allocates nothing.
 */
export function compareKeysInWasm(a: Uint8Array, b: Uint8Array): number {
  const lenA = a.length;
  const lenB = b.length;
  if (lenA > KEY_ORDER_CAPACITY || lenB > KEY_ORDER_CAPACITY) return KEY_ORDER_TOO_LARGE;
  memory.set(a, KEY_A);
  memory.set(b, KEY_B);
  return wasmCompare(lenA, lenB);
}
