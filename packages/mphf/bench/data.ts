// Inputs and baselines shared by the mphf benchmarks: 10 million random 16-byte keys (the setup; 200 000 in
// quick mode), the two structures a JavaScript program would use without an MPHF — a Map from the key's hex
// string to its slot, and the keys sorted into one packed array searched by binary search — and the jobs that the
// peak-RSS figures run in child processes.
import { quickMode } from '@strata/bench';
import { buildMphf } from '../src/index.js';

export const KEY_COUNT = quickMode ? 200_000 : 10_000_000;
export const KEY_SEED = 2026;

/** `count` random 16-byte keys packed back to back (xorshift128+-style words; deterministic). */
export function randomKeys(count: number, seed: number): Uint8Array {
  const words = new Int32Array(count * 4);
  let a = seed | 1;
  let b = 0x9e3779b9 ^ seed;
  for (let i = 0; i < words.length; i++) {
    let t = a ^ (a << 11);
    a = b;
    b = b ^ (b >>> 19) ^ t ^ (t >>> 8);
    t = Math.imul(b ^ (b >>> 16), 0x7feb352d);
    words[i] = t ^ (t >>> 15);
  }
  return new Uint8Array(words.buffer);
}

/** The hex string of every key: what a Map keyed by key would be keyed by. */
export function hexKeys(keys: Buffer): string[] {
  const hex: string[] = new Array(keys.length / 16);
  for (let i = 0; i < hex.length; i++) hex[i] = keys.toString('hex', 16 * i, 16 * i + 16);
  return hex;
}

/** The Map baseline: hex key → slot (the key's position). */
export function buildHexMap(keys: Buffer): Map<string, number> {
  const map = new Map<string, number>();
  const count = keys.length / 16;
  for (let i = 0; i < count; i++) map.set(keys.toString('hex', 16 * i, 16 * i + 16), i);
  return map;
}

/** The keys as big-endian 32-bit words, so that comparing words in order compares bytes in order. */
function bigEndianWords(keys: Uint8Array): Uint32Array {
  const words = new Uint32Array(keys.length / 4);
  for (let i = 0, o = 0; i < words.length; i++, o += 4) {
    words[i] = ((keys[o]! << 24) | (keys[o + 1]! << 16) | (keys[o + 2]! << 8) | keys[o + 3]!) >>> 0;
  }
  return words;
}

/**
 * The sorted-array baseline's build: LSD radix sort of the keys (eight 16-bit digit passes over a permutation),
 * then the keys gathered in sorted order as big-endian words. A key's slot is its rank.
 */
export function sortKeys(keys: Uint8Array): Uint32Array {
  const words = bigEndianWords(keys);
  const count = words.length / 4;
  let order = new Uint32Array(count);
  let next = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const counts = new Uint32Array(65537);
  for (let pass = 0; pass < 8; pass++) {
    const word = 3 - (pass >> 1);
    const shift = pass & 1 ? 16 : 0;
    counts.fill(0);
    for (let i = 0; i < count; i++) counts[((words[4 * order[i]! + word]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 0; d < 65536; d++) counts[d + 1] = counts[d + 1]! + counts[d]!;
    for (let i = 0; i < count; i++) {
      const index = order[i]!;
      next[counts[(words[4 * index + word]! >>> shift) & 0xffff]!++] = index;
    }
    [order, next] = [next, order];
  }
  const sorted = new Uint32Array(words.length);
  for (let i = 0; i < count; i++) {
    const from = 4 * order[i]!;
    sorted[4 * i] = words[from]!;
    sorted[4 * i + 1] = words[from + 1]!;
    sorted[4 * i + 2] = words[from + 2]!;
    sorted[4 * i + 3] = words[from + 3]!;
  }
  return sorted;
}

/** Rank of the 16-byte key at `offset` in the sorted words, or -1: the sorted-array baseline's query. */
export function binarySearch(sorted: Uint32Array, key: Uint8Array, offset: number): number {
  const w0 = ((key[offset]! << 24) | (key[offset + 1]! << 16) | (key[offset + 2]! << 8) | key[offset + 3]!) >>> 0;
  const w1 = ((key[offset + 4]! << 24) | (key[offset + 5]! << 16) | (key[offset + 6]! << 8) | key[offset + 7]!) >>> 0;
  const w2 = ((key[offset + 8]! << 24) | (key[offset + 9]! << 16) | (key[offset + 10]! << 8) | key[offset + 11]!) >>> 0;
  const w3 =
    ((key[offset + 12]! << 24) | (key[offset + 13]! << 16) | (key[offset + 14]! << 8) | key[offset + 15]!) >>> 0;
  let low = 0;
  let high = sorted.length / 4 - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = 4 * middle;
    let order = sorted[at]! - w0;
    if (order === 0) order = sorted[at + 1]! - w1;
    if (order === 0) order = sorted[at + 2]! - w2;
    if (order === 0) order = sorted[at + 3]! - w3;
    if (order === 0) return middle;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Peak-RSS job: the keys plus a hex Map over them; returns the heap in use afterwards. */
export function holdHexMap(count: number, seed: number): number {
  const keys = Buffer.from(randomKeys(count, seed).buffer);
  const map = buildHexMap(keys);
  return map.size;
}

/** Peak-RSS job: the keys plus an MPHF build over them; returns the function's size in bytes. */
export function holdMphfBuild(count: number, seed: number): number {
  const keys = randomKeys(count, seed);
  return buildMphf({ bytes: keys, keyLength: 16 }).length;
}

/** Peak-RSS job: the keys only (the floor both jobs above include). */
export function holdKeys(count: number, seed: number): number {
  return randomKeys(count, seed).length;
}
