// The driver of src/slab-bitsets.wat: dense terms' parts of one slab loaded as bitsets into WebAssembly
// memory, plans' ANDs counted there (count-first, nothing allocated) and their values extracted only when there are
// some. One module instance per thread, shared by every walk on it: each use is synchronous and starts over with
// `begin`, so nothing survives from one slab evaluation to the next.
import { assert } from '@strata/base';
import type { ReadonlyBitmap } from '@strata/events';
import type roaring from 'roaring';
import { SLAB_BITSETS_WASM_BASE64 } from '../slab-bitsets-wasm.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  load(src: number, len: number, dst: number): number;
  count(list: number, k: number): number;
  orAndInto(list: number, k: number, acc: number): void;
  setBits(values: number, n: number, acc: number): void;
  extract(src: number, base: number, out: number): number;
  clear(dst: number): void;
  loadContainer(data: number, card: number, kind: number, dst: number): number;
  runProgram(prog: number, end: number): void;
  anyInRange(src: number, a: number, b: number): number;
}

/** Bytes of one bitset: 65,536 bits, one roaring container's span. */
const BITSET_BYTES = 8192;
/** Terms of one plan the list holds at most (a plan has at most 7: contract, type, 4 topics, a count bucket). */
export const MAX_KERNEL_TERMS = 64;
/** At most this many term bitsets per slab (4 MiB); plans needing more take the roaring path. */
export const MAX_KERNEL_SLOTS = 512;

// Layout (byte addresses, 16-aligned): the list of a plan's slot addresses, the accumulator bitset, the output area
// (65,536 values), the staging area (a portable serialization of at most one container: a run container of 32,768
// runs is the largest, 9 + 2 + 4 × 32,768 bytes), then the term slots.
const LIST = 0;
const ACC = 256;
const OUT = ACC + BITSET_BYTES;
/** The group proof's program area (the output area, which only SlabBitsets uses): 65,536 u32 words. */
export const PROGRAM = OUT;
export const PROGRAM_WORDS = 65_536;
export const STAGING = OUT + 4 * 65_536;
export const STAGING_BYTES = 131_088;
const SLOTS = STAGING + STAGING_BYTES;
const PAGE = 65_536;

/**
 * A kernel instance: the module, its memory and views over it (renewed when the memory grows). The thread has two:
 * one for SlabBitsets, one for the group proof (plan-group.ts), so neither evicts the other's slots.
 */
export class Kernel {
  readonly exports: KernelExports;
  private slotCapacity = 0;
  private views!: { u32: Uint32Array; staging: Uint8Array; data: DataView };

  constructor() {
    const module = new WebAssembly.Module(Buffer.from(SLAB_BITSETS_WASM_BASE64, 'base64'));
    this.exports = new WebAssembly.Instance(module).exports as unknown as KernelExports;
    this.ensureSlots(32);
  }

  ensureSlots(slots: number): void {
    if (slots <= this.slotCapacity) return;
    const memory = this.exports.memory;
    const needed = Math.ceil((SLOTS + slots * BITSET_BYTES) / PAGE);
    const pages = memory.buffer.byteLength / PAGE;
    if (needed > pages) memory.grow(needed - pages);
    this.slotCapacity = Math.floor((memory.buffer.byteLength - SLOTS) / BITSET_BYTES);
    this.views = {
      u32: new Uint32Array(memory.buffer),
      staging: new Uint8Array(memory.buffer, STAGING, STAGING_BYTES),
      data: new DataView(memory.buffer),
    };
  }

  /** The byte address of slot `index`. */
  slotAddress(index: number): number {
    return SLOTS + index * BITSET_BYTES;
  }

  /** The whole memory, for reading what roaring serialized into the staging area (little-endian). */
  get data(): DataView {
    return this.views.data;
  }

  get u32(): Uint32Array {
    return this.views.u32;
  }

  get staging(): Uint8Array {
    return this.views.staging;
  }
}

let threadKernel: Kernel | undefined;
let threadGroupKernel: Kernel | undefined;

/** The thread's kernel instance of the group proof (created on first use). */
export function groupKernel(): Kernel {
  threadGroupKernel ??= new Kernel();
  return threadGroupKernel;
}

/**
 * Bitsets of terms over one range inside one container, for one slab evaluation. `begin(lo, hi)` starts a slab;
 * `slot(bitmap, scratch)` loads a term's part of it once (later plans naming the term reuse it); `count` and the
 * accumulator calls work on slot lists.
 */
export class SlabBitsets {
  private readonly kernel: Kernel;
  /**
   * Terms seen by this instance, each an entry number for good (the map is never cleared, so it allocates nothing
   * after a term's first slab); per entry, the slab generation its slot was loaded in and the slot.
   */
  private readonly entries = new Map<ReadonlyBitmap, number>();
  private readonly entryGeneration: number[] = [];
  private readonly entrySlot: number[] = [];
  /** Per slot of the current slab: its term's cardinality there. */
  private readonly cardinalities: number[] = [];
  private generation = 0;
  private slotsUsed = 0;
  private lo = 0;
  private hi = -1;

  constructor() {
    threadKernel ??= new Kernel();
    this.kernel = threadKernel;
  }

  /** Starts a slab: [lo, hi] inside one container. Forgets every loaded term. */
  begin(lo: number, hi: number): void {
    assert(Math.floor(lo / 65_536) === Math.floor(hi / 65_536) && lo <= hi, 'a kernel range lies in one container');
    this.lo = lo;
    this.hi = hi;
    this.generation++;
    this.slotsUsed = 0;
  }

  /** True when `n` more distinct terms can be loaded for this slab. */
  roomFor(n: number): boolean {
    return this.slotsUsed + n <= MAX_KERNEL_SLOTS;
  }

  /**
   * The slot index holding `bitmap`'s part of [lo, hi], loading it through `scratch` (cleared, then the range ANDed
   * with the bitmap, then serialized into the staging area) on first use in this slab; -1 when that part is empty.
   */
  slot(bitmap: ReadonlyBitmap, scratch: RoaringBitmap32): number {
    let entry = this.entries.get(bitmap);
    if (entry === undefined) {
      entry = this.entries.size;
      this.entries.set(bitmap, entry);
      this.entryGeneration[entry] = 0;
      this.entrySlot[entry] = 0;
    }
    let index = this.entrySlot[entry]!;
    if (this.entryGeneration[entry] !== this.generation) {
      index = this.slotsUsed++;
      this.kernel.ensureSlots(index + 1);
      scratch.clear();
      scratch.addRange(this.lo, this.hi + 1);
      scratch.andInPlace(bitmap);
      const written = scratch.serialize('portable', this.kernel.staging);
      scratch.clear();
      const cardinality = this.kernel.exports.load(STAGING, written.length, SLOTS + index * BITSET_BYTES);
      assert(cardinality >= 0, 'roaring serialized one container in the portable format');
      this.entryGeneration[entry] = this.generation;
      this.entrySlot[entry] = index;
      this.cardinalities[index] = cardinality;
    }
    return this.cardinalities[index] === 0 ? -1 : index;
  }

  /** Writes slot indexes as the kernel's list (their addresses). */
  private list(slots: readonly number[], k: number): void {
    assert(k <= MAX_KERNEL_TERMS, 'a plan fits the kernel list');
    const u32 = this.kernel.u32;
    for (let i = 0; i < k; i++) u32[LIST / 4 + i] = SLOTS + slots[i]! * BITSET_BYTES;
  }

  /** Values in the AND of the first k slots of `slots`. */
  count(slots: readonly number[], k: number): number {
    this.list(slots, k);
    return this.kernel.exports.count(LIST, k);
  }

  /** Clears the accumulator. */
  clearAccumulator(): void {
    this.kernel.exports.clear(ACC);
  }

  /** ORs the AND of the first k slots into the accumulator. */
  orAnd(slots: readonly number[], k: number): void {
    this.list(slots, k);
    this.kernel.exports.orAndInto(LIST, k, ACC);
  }

  /** Sets `values` (ordinals inside the slab's container) in the accumulator. */
  orValues(values: ArrayLike<number>): void {
    const u32 = this.kernel.u32;
    for (let start = 0; start < values.length; start += 65_536) {
      const n = Math.min(65_536, values.length - start);
      for (let i = 0; i < n; i++) u32[OUT / 4 + i] = values[start + i]!;
      this.kernel.exports.setBits(OUT, n, ACC);
    }
  }

  /**
   * The accumulator's values (ordinals of the slab's container, ascending) as a view of kernel memory, valid until
   * the next kernel call: copy it (slice) to keep it.
   */
  accumulated(): Uint32Array {
    const base = Math.floor(this.lo / 65_536) * 65_536;
    const n = this.kernel.exports.extract(ACC, base | 0, OUT);
    return this.kernel.u32.subarray(OUT / 4, OUT / 4 + n);
  }
}
