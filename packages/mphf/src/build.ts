// Builds a function from a key set: hash every key once (part, bucket, slot hash) straight into its part's region
// of two typed arrays, group each part's slot hashes by bucket with a counting sort that stays in cache, run the
// pilot search part by part (placement.ts; on this thread, or shared with worker threads in `buildMphfAsync`), send
// the keys that landed in a part's spare slots to its free slots (remap), optionally store fingerprints, and write
// the flat layout. Memory is about 13 bytes per key, all typed arrays; nothing per key is an object. The result
// depends only on the key set, the options and the seed: not on key order, thread count, timing or the machine.
import { availableParallelism } from 'node:os';
import { assert } from '@strata/base';
import { describeValue, MphfError } from './errors.js';
import {
  bucketOf,
  fmix32,
  hash128,
  hash128OfWords,
  LITTLE_ENDIAN,
  partOf,
  pilotHashes,
  slotOf,
  slotScaleOf,
} from './hash.js';
import { FixedWidthKeyStore, type KeyStore, keyStoreOf, type MphfKeys } from './keys.js';
import { type Layout, MAX_PART_KEYS, planLayout, sealChecksum, writeHeader, writeU16, writeU32 } from './layout.js';
import { openMphf } from './mphf.js';
import { PlaceStatus } from './pilot-search.js';
import { Control, outcomeOf, type PlacementState, placeParts, startRound } from './placement.js';
import { PlacementPool } from './placement-pool.js';
import { checkStore } from './verify.js';

/** Build parameters. Every field is optional; the defaults give about 2.83 bits per key. */
export interface BuildOptions {
  /** Key hash seed (u32, default 0). A build that fails with one seed retries with seeds derived from it. */
  seed?: number;
  /** Average keys per bucket, λ in [1, 8] (default 3). Pilots cost 8/λ bits per key; a larger λ builds slower. */
  lambda?: number;
  /**
   * Load factor α in [0.5, 1] (default 0.99): each part has ceil(keys/α) slots. The spare slots' remap entries
   * cost 16·(1/α − 1) bits per key; an α closer to 1 builds slower.
   */
  alpha?: number;
  /** Target keys per part, in [256, 60000] (default 32768). Parts keep the build's working set in cache. */
  partKeys?: number;
  /** Fingerprint bits per key: 0 (default, none), 8, 16 or 32. Non-members pass `lookup` at 2^-bits. */
  fingerprintBits?: 0 | 8 | 16 | 32;
  /** Seeds tried before the build gives up with BUILD_FAILED (default 16). */
  maxAttempts?: number;
  /** Debug switch: open the result and check it is a bijection on the keys (one more pass; off by default). */
  selfCheck?: boolean;
}

/** Options of `buildMphfAsync`: the build options and how many threads place parts. */
export interface AsyncBuildOptions extends BuildOptions {
  /**
   * Threads placing parts, this one included, in [1, 64] (default: the machine's available parallelism, at most
   * 4). Builds under 2^20 keys use one thread: starting workers would cost more than they save.
   */
  threads?: number;
}

export const DEFAULT_LAMBDA = 3;
export const DEFAULT_ALPHA = 0.99;
export const DEFAULT_PART_KEYS = 32768;
/** Part size cap: a part's key count must stay ≤ 65536 (16-bit remap targets) with room for its random spread. */
const MAX_TARGET_PART_KEYS = 60000;
const DEFAULT_MAX_ATTEMPTS = 16;
/** Key count limit: key and slot numbers are u32 in the format, and the build's working positions too. */
const MAX_KEYS = 2 ** 31;
/** Smallest build `buildMphfAsync` spreads over threads. */
const PARALLEL_MIN_KEYS = 1 << 20;

interface Params {
  seed: number;
  lambda: number;
  alpha: number;
  partKeys: number;
  fingerprintBits: 0 | 8 | 16 | 32;
  maxAttempts: number;
  selfCheck: boolean;
}

/** What a build did besides producing bytes: for benchmarks and tuning. */
export interface BuildReport {
  bytes: Uint8Array;
  /** Seeds tried (1 when the first one worked). */
  attempts: number;
  /** Evictions during the successful attempt, summed over parts. */
  evictions: number;
  /** Threads that placed parts. */
  threads: number;
}

function invalid(field: string, detail: string): MphfError {
  return new MphfError('INVALID_ARGUMENT', detail, { field });
}

/** INVALID_ARGUMENT unless `options` is an options object (not null, an array or a primitive). */
function checkOptionsObject(options: BuildOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid('options', `options must be an object, got ${describeValue(options)}`);
  }
}

function resolveOptions(options: BuildOptions): Params {
  checkOptionsObject(options);
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw invalid('seed', `seed ${describeValue(seed)} is not a u32`);
  }
  const lambda = options.lambda ?? DEFAULT_LAMBDA;
  if (typeof lambda !== 'number' || !(lambda >= 1 && lambda <= 8)) {
    throw invalid('lambda', `lambda ${describeValue(lambda)} is not in [1, 8]`);
  }
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (typeof alpha !== 'number' || !(alpha >= 0.5 && alpha <= 1)) {
    throw invalid('alpha', `alpha ${describeValue(alpha)} is not in [0.5, 1]`);
  }
  const partKeys = options.partKeys ?? DEFAULT_PART_KEYS;
  if (!Number.isInteger(partKeys) || partKeys < 256 || partKeys > MAX_TARGET_PART_KEYS) {
    throw invalid('partKeys', `partKeys ${describeValue(partKeys)} is not in [256, ${MAX_TARGET_PART_KEYS}]`);
  }
  const fingerprintBits = options.fingerprintBits ?? 0;
  if (fingerprintBits !== 0 && fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) {
    throw invalid('fingerprintBits', `fingerprintBits ${describeValue(fingerprintBits)} is not 0, 8, 16 or 32`);
  }
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 1000) {
    throw invalid('maxAttempts', `maxAttempts ${describeValue(maxAttempts)} is not in [1, 1000]`);
  }
  const selfCheck = options.selfCheck ?? false;
  if (typeof selfCheck !== 'boolean')
    throw invalid('selfCheck', `selfCheck ${describeValue(selfCheck)} is not a boolean`);
  return { seed, lambda, alpha, partKeys, fingerprintBits, maxAttempts, selfCheck };
}

/** Seed of attempt k: the caller's seed first, then a fixed sequence derived from it. */
function attemptSeed(seed: number, attempt: number): number {
  return attempt === 0 ? seed : fmix32(seed ^ Math.imul(attempt, 0x9e3779b9));
}

/** A build's input and shape, fixed before the first attempt. */
interface Plan {
  params: Params;
  store: KeyStore;
  n: number;
  parts: number;
  bucketsPerPart: number;
}

function planBuild(keys: MphfKeys, options: BuildOptions): Plan {
  const params = resolveOptions(options);
  const store = keyStoreOf(keys, MAX_KEYS);
  const n = store.count;
  const parts = n <= params.partKeys ? 1 : Math.ceil(n / params.partKeys);
  const bucketsPerPart = n === 0 ? 0 : Math.max(1, Math.ceil(n / parts / params.lambda));
  return { params, store, n, parts, bucketsPerPart };
}

function layoutOf(plan: Plan, seed: number, slotCount: number): Layout {
  return planLayout({
    keyCount: plan.n,
    seed,
    parts: plan.parts,
    bucketsPerPart: plan.bucketsPerPart,
    slotCount,
    lambdaMicros: Math.round(plan.params.lambda * 1e6),
    alphaMicros: Math.round(plan.params.alpha * 1e6),
    fingerprintBits: plan.params.fingerprintBits,
  });
}

/** Typed arrays on a SharedArrayBuffer when worker threads will read or write them. */
function allocate<T>(make: (buffer: ArrayBufferLike) => T, bytes: number, shared: boolean): T {
  return make(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/** Working arrays of a build, allocated once and reused by every attempt. */
class Scratch implements PlacementState {
  readonly parts: number;
  readonly bucketsPerPart: number;
  /** Room per part in `localBucket` / `partHash`: the mean plus 8 standard deviations (a part never needs more). */
  readonly capacity: number;
  /** Bucket (inside its part) and slot hash of each key, part p's keys in [p·capacity, cursor[p]). */
  readonly localBucket: Uint16Array | Uint32Array;
  readonly partHash: Int32Array;
  readonly cursor: Uint32Array;
  // The placement state (placement.ts); shared with worker threads in a parallel build.
  readonly slotHashes: Int32Array;
  readonly bucketStarts: Uint32Array;
  readonly table: Uint32Array;
  readonly pilots: Uint8Array;
  readonly slotTaken: Uint8Array;
  readonly partStatus: Int32Array;
  readonly partEvictions: Int32Array;
  readonly partClash: Int32Array;
  readonly control: Int32Array;

  constructor(plan: Plan, shared: boolean) {
    const { n, parts, bucketsPerPart } = plan;
    this.parts = parts;
    this.bucketsPerPart = bucketsPerPart;
    const mean = n / parts;
    this.capacity = parts === 1 ? n : Math.ceil(mean + 8 * Math.sqrt(mean) + 64);
    this.localBucket =
      bucketsPerPart <= 0x10000 ? new Uint16Array(parts * this.capacity) : new Uint32Array(parts * this.capacity);
    this.partHash = new Int32Array(parts * this.capacity);
    this.cursor = new Uint32Array(parts);
    this.slotHashes = allocate((b) => new Int32Array(b), 4 * n, shared);
    this.bucketStarts = allocate((b) => new Uint32Array(b), 4 * (parts * bucketsPerPart + 1), shared);
    this.table = allocate((b) => new Uint32Array(b), 8 * (parts + 1), shared);
    this.pilots = allocate((b) => new Uint8Array(b), parts * bucketsPerPart, shared);
    this.slotTaken = allocate((b) => new Uint8Array(b), Math.ceil(n / plan.params.alpha) + parts, shared);
    this.partStatus = allocate((b) => new Int32Array(b), 4 * parts, shared);
    this.partEvictions = allocate((b) => new Int32Array(b), 4 * parts, shared);
    this.partClash = allocate((b) => new Int32Array(b), 8 * parts, shared);
    this.control = allocate((b) => new Int32Array(b), 4 * Control.LENGTH, shared);
  }

  /** Keys that hashed into part p. */
  keysIn(part: number): number {
    return this.cursor[part]! - part * this.capacity;
  }
}

/**
 * Hashes every key with `seed` and appends its (bucket, slot hash) to its part's region, in input order. False when
 * a part outgrew its region (8 standard deviations above the mean: never for real hash values; the caller then
 * tries the next seed).
 */
function hashKeys(store: KeyStore, seed: number, scratch: Scratch): boolean {
  const { parts, capacity, cursor } = scratch;
  for (let p = 0; p < parts; p++) cursor[p] = p * capacity;
  const fixed = store instanceof FixedWidthKeyStore ? store : undefined;
  if (fixed !== undefined && fixed.keyLength === 16 && LITTLE_ENDIAN && fixed.bytes.byteOffset % 4 === 0) {
    // Packed 16-byte keys at a 4-byte aligned address (the main case) are read as words: a quarter of the reads.
    const { bytes } = fixed;
    return hashPackedWords(new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4), seed, scratch);
  }
  const words = new Int32Array(4);
  for (let i = 0; i < store.count; i++) {
    if (fixed !== undefined) hash128(fixed.bytes, i * fixed.keyLength, fixed.keyLength, seed, words);
    else hash128(store.bytesOf(i), store.offsetOf(i), store.lengthOf(i), seed, words);
    if (!appendKey(scratch, words)) return false;
  }
  return true;
}

/** Appends one hashed key to its part's region; false when the region is full. */
function appendKey(scratch: Scratch, words: Int32Array): boolean {
  const { parts, capacity, cursor } = scratch;
  const part = parts === 1 ? 0 : partOf(words[0]!, parts);
  const at = cursor[part]!;
  if (at >= (part + 1) * capacity) return false;
  cursor[part] = at + 1;
  scratch.localBucket[at] = bucketOf(words[1]!, scratch.bucketsPerPart);
  scratch.partHash[at] = words[2]!;
  return true;
}

/** `hashKeys` for packed 16-byte keys given as little-endian words: one tight loop. */
function hashPackedWords(keyWords: Int32Array, seed: number, scratch: Scratch): boolean {
  const { parts, bucketsPerPart: B, capacity, cursor, localBucket, partHash } = scratch;
  const words = new Int32Array(4);
  for (let w = 0; w < keyWords.length; w += 4) {
    hash128OfWords(keyWords[w]!, keyWords[w + 1]!, keyWords[w + 2]!, keyWords[w + 3]!, seed, words);
    const part = parts === 1 ? 0 : partOf(words[0]!, parts);
    const at = cursor[part]!;
    if (at >= (part + 1) * capacity) return false;
    cursor[part] = at + 1;
    localBucket[at] = bucketOf(words[1]!, B);
    partHash[at] = words[2]!;
  }
  return true;
}

/**
 * Groups each part's slot hashes by bucket (a stable counting sort inside the part, whose counts and hashes fit in
 * cache) and returns the largest bucket size.
 */
function groupByBucket(scratch: Scratch): number {
  const { parts, bucketsPerPart: B, capacity, localBucket, partHash, slotHashes, bucketStarts } = scratch;
  bucketStarts.fill(0);
  let maxBucketSize = 0;
  let firstKey = 0;
  for (let p = 0; p < parts; p++) {
    const regionStart = p * capacity;
    const regionEnd = regionStart + scratch.keysIn(p);
    const base = p * B;
    for (let j = regionStart; j < regionEnd; j++) bucketStarts[base + localBucket[j]!]!++;
    // Inclusive prefix sums give each bucket's end; filling backwards leaves each entry at its bucket's start and
    // keeps input order inside a bucket.
    let end = firstKey;
    for (let g = base; g < base + B; g++) {
      const size = bucketStarts[g]!;
      if (size > maxBucketSize) maxBucketSize = size;
      end += size;
      bucketStarts[g] = end;
    }
    for (let j = regionEnd - 1; j >= regionStart; j--)
      slotHashes[--bucketStarts[base + localBucket[j]!]!] = partHash[j]!;
    firstKey = end;
  }
  bucketStarts[parts * B] = firstKey;
  return maxBucketSize;
}

/**
 * Fills the part table, [firstKey(p), firstSlot(p)] for every part plus a closing (n, slotCount): part p gets
 * max(1, ceil(keys(p) / alpha)) slots, so every part has load alpha whatever its share of the keys. False when
 * a part is empty or holds more than 65536 keys (never for real hash values; the caller tries the next seed).
 */
function fillPartTable(scratch: Scratch, alpha: number): boolean {
  const { parts, table } = scratch;
  for (let p = 0; p < parts; p++) {
    const keys = scratch.keysIn(p);
    if (keys < 1 || keys > MAX_PART_KEYS) return false;
    table[2 * p + 2] = table[2 * p]! + keys;
    table[2 * p + 3] = table[2 * p + 1]! + Math.ceil(keys / alpha);
  }
  return true;
}

function keyBytes(store: KeyStore, index: number): Uint8Array {
  const offset = store.offsetOf(index);
  return store.bytesOf(index).subarray(offset, offset + store.lengthOf(index));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Two keys of one bucket share their slot hash. If two such keys have the same bytes, that is a duplicate key:
 * throw naming it. Otherwise distinct keys collided on (part, bucket, h3), and the next seed will separate them.
 * Rare, so it simply hashes every key again.
 */
function throwIfDuplicate(store: KeyStore, scratch: Scratch, seed: number, bucket: number, slotHash: number): void {
  const { parts, bucketsPerPart: B } = scratch;
  const words = new Int32Array(4);
  const clashing: number[] = [];
  for (let i = 0; i < store.count; i++) {
    hash128(store.bytesOf(i), store.offsetOf(i), store.lengthOf(i), seed, words);
    const part = parts === 1 ? 0 : partOf(words[0]!, parts);
    if (part * B + bucketOf(words[1]!, B) === bucket && words[2] === slotHash) clashing.push(i);
  }
  for (let a = 0; a < clashing.length; a++) {
    for (let b = a + 1; b < clashing.length; b++) {
      const first = keyBytes(store, clashing[a]!);
      const second = keyBytes(store, clashing[b]!);
      if (sameBytes(first, second)) throw duplicateKeyError(store, clashing[a]!, clashing[b]!);
    }
  }
}

/**
 * The remap entries, part after part: part p's spare slot keys(p) + k maps to a free slot below keys(p) (ascending
 * over the taken spare slots). Untaken spare slots repeat the previous target (0 at first): only non-members reach
 * them, and each part's entries stay sorted.
 */
function buildRemap(slotTaken: Uint8Array, table: Uint32Array, parts: number): Uint16Array {
  const remap = new Uint16Array(table[2 * parts + 1]! - table[2 * parts]!);
  let at = 0;
  for (let p = 0; p < parts; p++) {
    const firstSlot = table[2 * p + 1]!;
    const keys = table[2 * p + 2]! - table[2 * p]!;
    const slots = table[2 * p + 3]! - firstSlot;
    let free = 0;
    let last = 0;
    for (let s = keys; s < slots; s++) {
      if (slotTaken[firstSlot + s] === 1) {
        while (slotTaken[firstSlot + free] === 1) free++;
        assert(free < keys, 'more keys in spare slots than free slots in a part');
        last = free++;
      }
      remap[at++] = last;
    }
  }
  return remap;
}

/** Writes each key's fingerprint (low bits of hash word h4) at its index; the same arithmetic as `Mphf.index`. */
function writeFingerprints(
  out: Uint8Array,
  layout: Layout,
  store: KeyStore,
  table: Uint32Array,
  pilots: Uint8Array,
  remap: Uint16Array,
): void {
  const { keyCount: n, parts, bucketsPerPart: B, seed, fingerprintsOffset } = layout;
  const width = layout.fingerprintBits / 8;
  const pilotHash = pilotHashes(seed);
  const words = new Int32Array(4);
  for (let i = 0; i < n; i++) {
    hash128(store.bytesOf(i), store.offsetOf(i), store.lengthOf(i), seed, words);
    const part = parts === 1 ? 0 : partOf(words[0]!, parts);
    const pilot = pilots[part * B + bucketOf(words[1]!, B)]!;
    const firstKey = table[2 * part]!;
    const firstSlot = table[2 * part + 1]!;
    const keys = table[2 * part + 2]! - firstKey;
    const slot = slotOf(words[2]!, pilotHash[pilot]!, slotScaleOf(table[2 * part + 3]! - firstSlot));
    const index = firstKey + (slot < keys ? slot : remap[firstSlot - firstKey + slot - keys]!);
    const fingerprint = words[3]!;
    const at = fingerprintsOffset + index * width;
    if (width === 1) out[at] = fingerprint & 0xff;
    else if (width === 2) writeU16(out, at, fingerprint);
    else writeU32(out, at, fingerprint);
  }
}

function serialize(
  layout: Layout,
  store: KeyStore,
  table: Uint32Array,
  pilots: Uint8Array,
  remap: Uint16Array,
): Uint8Array {
  const out = new Uint8Array(layout.totalLength);
  writeHeader(out, layout);
  for (let i = 0; i < table.length; i++) writeU32(out, layout.partTableOffset + 4 * i, table[i]!);
  out.set(pilots, layout.pilotsOffset);
  for (let k = 0; k < remap.length; k++) writeU16(out, layout.remapOffset + 2 * k, remap[k]!);
  if (layout.fingerprintBits !== 0) writeFingerprints(out, layout, store, table, pilots, remap);
  sealChecksum(out, layout.checksumOffset);
  return out;
}

/**
 * The last resort before BUILD_FAILED: a duplicate in a part that was never reached (an earlier part of every
 * attempt failed for another reason) would otherwise be reported as a failed build. Sorts a 53-bit hash of every
 * key and compares the bytes of keys whose hashes are equal.
 */
function findDuplicate(store: KeyStore): [number, number] | undefined {
  const n = store.count;
  const words = new Int32Array(4);
  const digestOf = (i: number): number => {
    hash128(store.bytesOf(i), store.offsetOf(i), store.lengthOf(i), 0x5eed, words);
    return (words[0]! >>> 0) * 2 ** 21 + (words[1]! >>> 11);
  };
  const digests = new Float64Array(n);
  for (let i = 0; i < n; i++) digests[i] = digestOf(i);
  const sorted = digests.slice().sort();
  const repeated = new Set<number>();
  for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) repeated.add(sorted[i]!);
  if (repeated.size === 0) return undefined;
  const firstWith = new Map<number, number[]>();
  let best: [number, number] | undefined;
  for (let i = 0; i < n; i++) {
    const digest = digests[i]!;
    if (!repeated.has(digest)) continue;
    const earlier = firstWith.get(digest) ?? [];
    for (const j of earlier) {
      if (sameBytes(keyBytes(store, j), keyBytes(store, i)) && (best === undefined || i < best[1])) best = [j, i];
    }
    earlier.push(i);
    firstWith.set(digest, earlier);
  }
  return best;
}

function duplicateKeyError(store: KeyStore, first: number, second: number): MphfError {
  const key = keyBytes(store, second);
  const keyHex = Buffer.from(key.buffer, key.byteOffset, key.length).toString('hex');
  const shown = keyHex.length > 128 ? `${keyHex.slice(0, 128)}… (${key.length} bytes)` : keyHex;
  return new MphfError('DUPLICATE_KEY', `key ${second} (${shown}) repeats key ${first}`, {
    keyHex,
    keyIndex: second,
    otherKeyIndex: first,
  });
}

/** Hashes and groups the keys for an attempt and sets up its placement round; false if the seed cannot work. */
function prepareAttempt(plan: Plan, scratch: Scratch, seed: number): boolean {
  if (!hashKeys(plan.store, seed, scratch)) return false;
  if (!fillPartTable(scratch, plan.params.alpha)) return false;
  const maxBucketSize = groupByBucket(scratch);
  let maxPartSlots = 0;
  const { table, parts } = scratch;
  for (let p = 0; p < parts; p++) maxPartSlots = Math.max(maxPartSlots, table[2 * p + 3]! - table[2 * p + 1]!);
  startRound(scratch, { seed, parts, bucketsPerPart: plan.bucketsPerPart, maxPartSlots, maxBucketSize });
  return true;
}

/** After a round: the finished function, undefined to try the next seed, or DUPLICATE_KEY thrown. */
function finishAttempt(
  plan: Plan,
  scratch: Scratch,
  seed: number,
  attempt: number,
  threads: number,
): BuildReport | undefined {
  const outcome = outcomeOf(scratch);
  if (outcome.status === PlaceStatus.INDISTINGUISHABLE) {
    throwIfDuplicate(plan.store, scratch, seed, outcome.clashBucket, outcome.clashHash);
  }
  if (outcome.status !== PlaceStatus.OK) return undefined;
  const { table, parts } = scratch;
  const slotCount = table[2 * parts + 1]!;
  const slotTaken = scratch.slotTaken.subarray(0, slotCount);
  const bytes = serialize(
    layoutOf(plan, seed, slotCount),
    plan.store,
    table,
    scratch.pilots,
    buildRemap(slotTaken, table, parts),
  );
  if (plan.params.selfCheck) {
    const report = checkStore(openMphf(bytes), plan.store);
    assert(report.ok, `self-check failed: ${report.detail}`);
  }
  return { bytes, attempts: attempt + 1, evictions: outcome.evictions, threads };
}

function buildFailed(plan: Plan): MphfError {
  const duplicate = findDuplicate(plan.store);
  if (duplicate !== undefined) return duplicateKeyError(plan.store, duplicate[0], duplicate[1]);
  const { n, params } = plan;
  return new MphfError(
    'BUILD_FAILED',
    `no function found for ${n} keys in ${params.maxAttempts} seeds (lambda ${params.lambda}, alpha ${params.alpha})`,
  );
}

function emptyFunction(plan: Plan): BuildReport {
  const table = new Uint32Array(4);
  const bytes = serialize(
    layoutOf(plan, plan.params.seed, 0),
    plan.store,
    table,
    new Uint8Array(0),
    new Uint16Array(0),
  );
  return { bytes, attempts: 1, evictions: 0, threads: 1 };
}

/** `buildMphf` with what the build did (attempts, evictions); for benchmarks and tuning. */
export function buildMphfWithReport(keys: MphfKeys, options: BuildOptions = {}): BuildReport {
  return buildOnThisThread(planBuild(keys, options));
}

function buildOnThisThread(plan: Plan): BuildReport {
  if (plan.n === 0) return emptyFunction(plan);
  const scratch = new Scratch(plan, false);
  for (let attempt = 0; attempt < plan.params.maxAttempts; attempt++) {
    const seed = attemptSeed(plan.params.seed, attempt);
    if (!prepareAttempt(plan, scratch, seed)) continue;
    placeParts(scratch);
    const report = finishAttempt(plan, scratch, seed, attempt, 1);
    if (report !== undefined) return report;
  }
  throw buildFailed(plan);
}

/** `buildMphfAsync` with what the build did. */
export async function buildMphfAsyncWithReport(keys: MphfKeys, options: AsyncBuildOptions = {}): Promise<BuildReport> {
  checkOptionsObject(options);
  const threads = options.threads ?? Math.min(4, availableParallelism());
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw invalid('threads', `threads ${describeValue(threads)} is not in [1, 64]`);
  }
  const plan = planBuild(keys, options);
  if (threads === 1 || plan.n < PARALLEL_MIN_KEYS || plan.parts < 2) return buildOnThisThread(plan);
  const scratch = new Scratch(plan, true);
  // Started before hashing, so the workers boot while this thread hashes and groups the keys.
  const pool = new PlacementPool(Math.min(threads, plan.parts) - 1, scratch);
  try {
    for (let attempt = 0; attempt < plan.params.maxAttempts; attempt++) {
      const seed = attemptSeed(plan.params.seed, attempt);
      if (!prepareAttempt(plan, scratch, seed)) continue;
      const workersDone = pool.run();
      placeParts(scratch);
      await workersDone;
      const report = finishAttempt(plan, scratch, seed, attempt, Math.min(threads, plan.parts));
      if (report !== undefined) return report;
    }
  } finally {
    await pool.close();
  }
  throw buildFailed(plan);
}

/**
 * Builds a minimal perfect hash function over distinct byte keys and returns its bytes (the FORMAT.md layout; open
 * them with `openMphf`, from memory or a file). Runs on the calling thread. Deterministic: the same key set (in any
 * order), options and seed give the same bytes. Throws MphfError DUPLICATE_KEY naming a repeated key,
 * INVALID_ARGUMENT for bad keys or options, BUILD_FAILED if no seed in `maxAttempts` works.
 */
export function buildMphf(keys: MphfKeys, options: BuildOptions = {}): Uint8Array {
  return buildMphfWithReport(keys, options).bytes;
}

/**
 * `buildMphf` with the pilot search spread over worker threads (`threads`, default up to 4): the same bytes, in
 * less wall time for large key sets. The keys must not change until the promise settles.
 */
export async function buildMphfAsync(keys: MphfKeys, options: AsyncBuildOptions = {}): Promise<Uint8Array> {
  return (await buildMphfAsyncWithReport(keys, options)).bytes;
}
