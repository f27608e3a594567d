// The BucketList's arithmetic (stellar-core BucketListBase, spec §5.1): level sizes, when a level spills, and when a
// level's next curr is built from the incoming snap alone. All ledger numbers are uint32, so no bitwise tricks on
// values that may exceed 2^31. The exported functions check their arguments (INVALID_ARGUMENT); the list itself
// uses the unchecked forms below, whose intermediate ledgers may pass 2^32 near the end of the ledger range.
import { invalidArgument, requireInteger, requireUint32 } from './arguments.js';

export const NUM_LEVELS = 11;
export const BOTTOM_LEVEL = NUM_LEVELS - 1;

/** INVALID_ARGUMENT unless `level` is a level number, 0 to BOTTOM_LEVEL. */
function requireLevel(level: number): void {
  requireInteger(level, 'level', 0, BOTTOM_LEVEL);
}

const size = (level: number): number => 4 ** (level + 1);

/** levelHalf, unchecked (for the list's own arguments). */
export function half(level: number): number {
  return size(level) / 2;
}

/** roundDown, unchecked. */
export function floorTo(value: number, multiple: number): number {
  return value - (value % multiple);
}

/** levelShouldSpill, unchecked. */
export function spills(ledger: number, level: number): boolean {
  if (level === BOTTOM_LEVEL) return false;
  return ledger === floorTo(ledger, half(level)) || ledger === floorTo(ledger, size(level));
}

/** Ledgers a full level covers: 4^(level+1). */
export function levelSize(level: number): number {
  requireLevel(level);
  return size(level);
}

/** Half of levelSize: the ledgers a level's curr holds before it spills. */
export function levelHalf(level: number): number {
  requireLevel(level);
  return half(level);
}

/** `value` (a non-negative integer) rounded down to a multiple of the power of two `multiple`. */
export function roundDown(value: number, multiple: number): number {
  requireInteger(value, 'value', 0, Number.MAX_SAFE_INTEGER);
  requireInteger(multiple, 'multiple', 1, 2 ** 52);
  if (!Number.isInteger(Math.log2(multiple))) invalidArgument('multiple', 'a power of two', multiple);
  return floorTo(value, multiple);
}

/** Whether `level` spills (curr → snap, into level+1) when `ledger` closes. The bottom level never spills. */
export function levelShouldSpill(ledger: number, level: number): boolean {
  requireUint32(ledger, 'ledger');
  requireLevel(level);
  return spills(ledger, level);
}

/** Merges into the bottom level drop tombstones; every other level keeps them. */
export function keepTombstoneEntries(level: number): boolean {
  requireLevel(level);
  return level < BOTTOM_LEVEL;
}

/**
 * Whether the merge started at `ledger` for `level` uses an empty curr instead of the level's curr: true when the
 * level itself spills at the ledger where this merge's result is committed, so its curr will have moved to snap.
 */
export function shouldMergeWithEmptyCurr(ledger: number, level: number): boolean {
  requireUint32(ledger, 'ledger');
  requireLevel(level);
  return mergesWithEmptyCurr(ledger, level);
}

/** shouldMergeWithEmptyCurr, unchecked. */
export function mergesWithEmptyCurr(ledger: number, level: number): boolean {
  if (level === 0) return false;
  const mergeStart = floorTo(ledger, half(level - 1));
  return spills(mergeStart + half(level - 1), level);
}

/** The ledger at which a merge for `level` started at `ledger` is committed (the next spill of level - 1). */
export function mergeDeadline(ledger: number, level: number): number {
  return floorTo(ledger, half(level - 1)) + half(level - 1);
}
