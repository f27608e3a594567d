// KeyedRecordArena: WebAssembly memory in which a caller keeps records it has already validated (a merge's read
// buffers) and has them ordered where they lie, by its own instance of the key-order module (src/key-order.wat).
// Another wasm module may run in the same memory and call the comparator directly (`arena.imports`): that contract is
// versioned by KEYED_RECORD_ARENA_ABI_VERSION, so such a module can refuse an arena whose layout it was not written
// for instead of misreading it.
import type {} from '@strata/base';
import { describeValue, invalidArgument } from './errors.js';
import { instantiateKeyOrder, type KeyOrderExports } from './wasm-key-comparator.js';
import { checkFlag } from './xdr-cursor.js';

/**
 * Version of the contract between a KeyedRecordArena and a WebAssembly module that runs in it through
 * `arena.imports` (bucket-list's merge loop). It covers, and changes whenever any of these changes:
 *   - the memory layout: addresses [0, 65536) (the first page) are the comparator's own (lookup tables, the SCVal
 *     walkers' stack) and must not be written by the guest; `arena.bytes` starts at address 65536
 *     (= `bytes.byteOffset`) and spans the `byteLength` the arena was created with; the memory has exactly
 *     1 + ceil(byteLength / 65536) pages and no maximum, and growing it detaches `arena.bytes`;
 *   - `compareKeyedAt(addressA: i32, aIsEntry: i32, addressB: i32, bIsEntry: i32) -> i32`: absolute addresses of two
 *     records validated whole beforehand, each a LedgerEntry (flag 1) or a LedgerKey (flag 0), ordered by their keys
 *     exactly as compareKeyedRecordsAt (stellar-core's LedgerEntryIdCmp): -1, 0 or 1. It validates nothing, reads
 *     nothing past the first difference, writes only the first page, and traps (RuntimeError) rather than read
 *     outside the memory; records that are not valid give a meaningless order. Not reentrant (one call at a time per
 *     arena, which single-threaded wasm guarantees);
 *   - the names in `arena.imports`: `memory`, `compareKeyedAt` and `abiVersion` (an immutable i32 global holding
 *     this number).
 *
 * Versions: 1, the layout and comparator above (bucket-list's merge loop from its first version on).
 */
export const KEYED_RECORD_ARENA_ABI_VERSION = 1;

/** Address of `arena.bytes[0]` in the arena's memory: the key-order module's own page comes first. */
const ARENA_BASE = 65536;
/** Largest arena: its memory (one module page plus the arena) must stay within wasm32's signed 2 GiB. */
const MAX_ARENA_BYTES = 2 ** 31 - ARENA_BASE;
const WASM_PAGE = 65536;

/**
 * What a module that runs in an arena imports (see KEYED_RECORD_ARENA_ABI_VERSION for the contract). A type alias, not
 * an interface, so that it fits WebAssembly.Imports (`{ arena: arena.imports }`) as it is.
 */
export type KeyedRecordArenaImports = {
  readonly memory: WebAssembly.Memory;
  readonly compareKeyedAt: (pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number;
  /** An immutable i32 global holding KEYED_RECORD_ARENA_ABI_VERSION, for `(import "…" "abiVersion" (global i32))`. */
  readonly abiVersion: WebAssembly.Global<number>;
};

/**
 * WebAssembly memory in which a caller keeps records it has already validated (a merge's read buffers) and has them
 * ordered where they lie: `compareAt` is compareKeyedRecordsAt for positions in `bytes`, run by the wasm comparator
 * without copying either record (in JavaScript, ordering two CONTRACT_DATA keys that share a contract is a walk over
 * many small SCVal nodes; in wasm each node is a few instructions). Each arena is its own instance of the key-order
 * module, so arenas in one thread do not share bytes; like compareKeyedRecordsAt it validates nothing: records that
 * are not valid give a meaningless order, or INVALID_ARGUMENT when reading them would leave the arena's memory, never
 * a read outside it. One thread; nothing is persisted.
 */
export class KeyedRecordArena {
  /** The caller's bytes: `byteLength` of them, zeroed at creation, positions 4-aligned from its start. */
  readonly bytes: Uint8Array;
  /**
   * The version of the contract a module running in this arena relies on (KEYED_RECORD_ARENA_ABI_VERSION of the
   * ledger-key that made it). A module written for another version must refuse the arena.
   */
  readonly abiVersion: number = KEYED_RECORD_ARENA_ABI_VERSION;
  /**
   * What a WebAssembly module that runs in this arena imports (bucket-list's merge loop): the memory, where `bytes[0]`
   * is at address `bytes.byteOffset` (65536), the comparator on absolute addresses,
   * `compareKeyedAt(addressA, aIsEntry, addressB, bIsEntry)` with the flags as 0 / 1, and `abiVersion`. A module that
   * grows the memory invalidates `bytes`.
   */
  readonly imports: KeyedRecordArenaImports;
  private readonly compareKeyedAt: KeyOrderExports['compareKeyedAt'];

  /** `byteLength`: an integer in [1, 2 GiB - 64 KiB]; anything else is LedgerKeyError INVALID_ARGUMENT. */
  constructor(byteLength: number) {
    if (!Number.isSafeInteger(byteLength) || byteLength <= 0 || byteLength > MAX_ARENA_BYTES) {
      invalidArgument('byteLength', `arena size ${describeValue(byteLength)} is not in [1, 2 GiB - 64 KiB]`);
    }
    const exports = instantiateKeyOrder();
    exports.memory.grow(Math.ceil(byteLength / WASM_PAGE));
    this.bytes = new Uint8Array(exports.memory.buffer, ARENA_BASE, byteLength);
    this.compareKeyedAt = exports.compareKeyedAt;
    this.imports = {
      memory: exports.memory,
      compareKeyedAt: exports.compareKeyedAt,
      abiVersion: new WebAssembly.Global({ value: 'i32', mutable: false }, KEYED_RECORD_ARENA_ABI_VERSION),
    };
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
      return this.compareKeyedAt(pa + ARENA_BASE, aIsEntry ? 1 : 0, pb + ARENA_BASE, bIsEntry ? 1 : 0);
    } catch (error) {
      // A trap: a record that is not valid ran the walk off the end of the memory.
      if (error instanceof WebAssembly.RuntimeError) {
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
