// Bytes allocated by one call, as the engine bench counts them. Node 20 has no allocation counter
// (v8.getHeapStatistics has no total_allocated_bytes), so the call runs right after a full collection and the count is
// the growth of three meters across it, each corrected by what collections during the call gave back (v8.GCProfiler
// reports every collection's before/after figures synchronously):
// - heap: V8's used_heap_size (JS objects, strings, on-heap typed arrays);
// - external: V8's external_memory (ArrayBuffer backing stores: payload bytes, result Uint32Arrays);
// - native: CRoaring's own counter (roaring's getRoaringUsedMemory; its allocator reports every malloc and free).
// Native and external memory come back only through finalizers, which may run after a collection's "after" figure,
// and CRoaring memory freed inside a call (an AND in place that converts a container) never shows at all: so native
// is CRoaring memory still held when the call returns, and both are exact only when no collection ran during the
// call. The bench therefore measures in a child started with a young generation far larger than any request
// allocates (see engine.bench.ts) and reports how many collections ran; calibrate() checks the meters on known
// allocations first.
import v8 from 'node:v8';
import { assert } from '@strata/base';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;

/** Bytes one call allocated, by meter, and the collections that ran while it did. */
export interface AllocatedBytes {
  heap: number;
  external: number;
  native: number;
  total: number;
  collections: number;
}

/**
 * A full collection whose frees have all been counted: V8 sweeps ArrayBuffer backing stores after the collection
 * returns (external_memory drops later), so a second collection after a turn of the event loop finishes the first.
 */
async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  assert(gc !== undefined, 'the bytes meter needs node --expose-gc (strata-bench run passes it)');
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

/** The bytes `call` allocates (one call, after a full collection). */
export async function allocatedBy(call: () => Promise<unknown>): Promise<AllocatedBytes> {
  await collect();
  const before = v8.getHeapStatistics();
  const nativeBefore = RoaringBitmap32.getRoaringUsedMemory();
  const profiler = new v8.GCProfiler();
  profiler.start();
  await call();
  const collections = profiler.stop()?.statistics ?? [];
  const after = v8.getHeapStatistics();
  let heap = after.used_heap_size - before.used_heap_size;
  let external = after.external_memory - before.external_memory;
  for (const gc of collections) {
    heap += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    external += gc.beforeGC.heapStatistics.externalMemory - gc.afterGC.heapStatistics.externalMemory;
  }
  const native = RoaringBitmap32.getRoaringUsedMemory() - nativeBefore;
  return { heap, external, native, total: heap + external + native, collections: collections.length };
}

/** The median call of `samples` (by total), each measured alone. */
export async function medianAllocation(call: () => Promise<unknown>, samples: number): Promise<AllocatedBytes> {
  const measured: AllocatedBytes[] = [];
  for (let i = 0; i < samples; i++) measured.push(await allocatedBy(call));
  measured.sort((a, b) => a.total - b.total);
  return measured[Math.floor((measured.length - 1) / 2)]!;
}

/**
 * Checks the meters on allocations of known size (1,000 × 1 KiB ArrayBuffer-backed arrays; 16 roaring bitmaps of
 * one 8 KiB bitset container each) and returns a line saying what they read. Throws AssertionError when a meter
 * misses by more than 10 %.
 */
export async function calibrate(): Promise<string> {
  let keep: unknown;
  const arrays = await allocatedBy(async () => {
    keep = Array.from({ length: 1000 }, () => new Uint8Array(1024));
  });
  const evens = Uint32Array.from({ length: 32_768 }, (_, i) => 2 * i);
  const bitmaps = await allocatedBy(async () => {
    keep = Array.from({ length: 16 }, () => new RoaringBitmap32(evens));
  });
  void keep;
  const near = (value: number, expected: number) => Math.abs(value - expected) <= expected / 10;
  assert(near(arrays.external, 1_024_000), () => `external meter read ${arrays.external} for 1,024,000 bytes`);
  assert(near(bitmaps.native, 16 * 8192), () => `native meter read ${bitmaps.native} for ${16 * 8192} bytes`);
  return (
    `calibration: 1,000 × 1 KiB arrays read external ${arrays.external}, heap ${arrays.heap} ` +
    `(${arrays.collections} collections); 16 bitset bitmaps read native ${bitmaps.native} (expected ≥ 131,072)`
  );
}

/** A figure for a note: bytes with their split, and a warning when collections ran during the call. */
export function describeAllocation(bytes: AllocatedBytes): string {
  const parts = `heap ${bytes.heap}, external ${bytes.external}, roaring ${bytes.native}`;
  return bytes.collections === 0
    ? parts
    : `${parts}; ${bytes.collections} collections during the call (external and roaring are lower bounds)`;
}
