// The WebAssembly fast path of compareLedgerKeys (src/key-order.wat, compiled into src/key-order-wasm.ts): both keys
// are copied into the module's memory, validated whole and ordered there. It only answers for valid keys; anything
// else comes back as a status and src/compare.ts reruns the JavaScript comparator, which throws the exact error.
//
// Why WebAssembly: a CONTRACT_DATA key is a tree of small SCVal nodes, and validating both keys node by node in
// JavaScript was two thirds of a comparison (bounds checks, calls and table reads per node that TurboFan does not
// fold away); in wasm a node is a few instructions and equal runs compare eight bytes at a time. The two copies
// (TypedArray#set) and the call cost about 50-65 ns per pair and are the price of it.
//
// The module is instantiated synchronously at import: it is 3.1 KB, has no imports, and its memory never grows, so
// the view below stays valid. The memory is shared by every call: safe because a comparison never calls out to user
// code, so no other comparison can interleave (JavaScript is single-threaded per realm; workers have their own
// module instance).
import { describeValue, invalidArgument } from './errors.js';
import { KEY_ORDER_WASM_BASE64 } from './key-order-wasm.js';
import { checkFlag } from './xdr-cursor.js';

// The slice of the WebAssembly JS API used here: lib ES2023 and @types/node 20 declare no WebAssembly values.
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: unknown };
  /** What a trap (e.g. a read past the end of memory) throws. */
  readonly RuntimeError: new () => Error;
}
interface KeyOrderExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly KEY_A: { readonly value: number };
  readonly KEY_B: { readonly value: number };
  readonly KEY_CAPACITY: { readonly value: number };
  readonly compare: (lenA: number, lenB: number) => number;
  readonly compareKeyedAt: (pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number;
}

const { Module, Instance, RuntimeError } = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
const keyOrderModule = new Module(Buffer.from(KEY_ORDER_WASM_BASE64, 'base64'));
const wasm = new Instance(keyOrderModule).exports as KeyOrderExports;
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

/** The module's own page; an arena's bytes start right after it. */
const WASM_PAGE = 65536;
/** Largest arena: its memory (one module page plus the arena) must stay within wasm32's signed 2 GiB. */
const MAX_ARENA_BYTES = 2 ** 31 - WASM_PAGE;

/**
 * WebAssembly memory in which a caller keeps records it has already validated (a merge's read buffers) and has them
 * ordered where they lie: `compareAt` is compareKeyedRecordsAt for positions in `bytes`, run by the wasm comparator
 * without copying either record (in JavaScript, ordering two CONTRACT_DATA keys that share a contract is a walk over
 * many small SCVal nodes; in wasm each node is a few instructions). Each arena is its own instance of the key-order
 * module, so arenas in one thread do not share bytes; like compareKeyedRecordsAt it validates nothing: records that
 * are not valid give a meaningless order, or INVALID_ARGUMENT when reading them would leave the arena's memory, never
 * a read outside it.
 */
export class KeyedRecordArena {
  /** The caller's bytes: `byteLength` of them, zeroed at creation, positions 4-aligned from its start. */
  readonly bytes: Uint8Array;
  /**
   * What a WebAssembly module that runs in this arena imports (bucket-list's merge loop): the memory, where `bytes[0]`
   * is at address `bytes.byteOffset`, and the comparator on absolute addresses, `compareKeyedAt(addressA, aIsEntry,
   * addressB, bIsEntry)` with the flags as 0 / 1. A module that grows the memory invalidates `bytes`.
   */
  readonly imports: {
    readonly memory: object;
    readonly compareKeyedAt: (pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number;
  };
  private readonly compareKeyedAt: KeyOrderExports['compareKeyedAt'];

  /** `byteLength`: an integer in [1, 2 GiB - 64 KiB]; anything else is LedgerKeyError INVALID_ARGUMENT. */
  constructor(byteLength: number) {
    if (!Number.isSafeInteger(byteLength) || byteLength <= 0 || byteLength > MAX_ARENA_BYTES) {
      invalidArgument('byteLength', `arena size ${describeValue(byteLength)} is not in [1, 2 GiB - 64 KiB]`);
    }
    const exports = new Instance(keyOrderModule).exports as KeyOrderExports;
    exports.memory.grow(Math.ceil(byteLength / WASM_PAGE));
    this.bytes = new Uint8Array(exports.memory.buffer, WASM_PAGE, byteLength);
    this.compareKeyedAt = exports.compareKeyedAt;
    this.imports = { memory: exports.memory, compareKeyedAt: exports.compareKeyedAt };
  }

  /**
   * Order of the keyed records at `bytes[pa]` and `bytes[pb]` (each a LedgerEntry when its flag is set, else a
   * LedgerKey; both validated whole by the caller): -1, 0 or 1, exactly as compareKeyedRecordsAt. Positions outside
   * `bytes`, flags that are not booleans, and records that run past the arena's memory are INVALID_ARGUMENT.
   */
  compareAt(pa: number, aIsEntry: boolean, pb: number, bIsEntry: boolean): number {
    const end = this.bytes.length;
    if (!(Number.isSafeInteger(pa) && pa >= 0 && pa < end)) this.badPosition(pa, 'pa');
    if (!(Number.isSafeInteger(pb) && pb >= 0 && pb < end)) this.badPosition(pb, 'pb');
    checkFlag(aIsEntry, 'aIsEntry');
    checkFlag(bIsEntry, 'bIsEntry');
    try {
      return this.compareKeyedAt(pa + WASM_PAGE, aIsEntry ? 1 : 0, pb + WASM_PAGE, bIsEntry ? 1 : 0);
    } catch (error) {
      // A trap: a record that is not valid ran the walk off the end of the memory.
      if (error instanceof RuntimeError) {
        invalidArgument('records', `the records at ${pa} and ${pb} run past the arena: not valid keyed records`);
      }
      throw error;
    }
  }

  private badPosition(position: number, field: string): never {
    return invalidArgument(
      field,
      `position ${describeValue(position)} is not inside the arena's ${this.bytes.length} bytes`,
    );
  }
}
