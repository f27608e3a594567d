// The BucketList's arithmetic (stellar-core BucketListBase, spec §5.1): level sizes, when a level spills, and when a
// level's next curr is built from the incoming snap alone. All ledger numbers are uint32, so no bitwise tricks on
// values that may exceed 2^31.

export const NUM_LEVELS = 11;
export const BOTTOM_LEVEL = NUM_LEVELS - 1;

/** Ledgers a full level covers: 4^(level+1). */
export function levelSize(level: number): number {
  return 4 ** (level + 1);
}

/** Half of levelSize: the ledgers a level's curr holds before it spills. */
export function levelHalf(level: number): number {
  return levelSize(level) / 2;
}

/** `value` rounded down to a multiple of the power of two `multiple`. */
export function roundDown(value: number, multiple: number): number {
  return value - (value % multiple);
}

/** Whether `level` spills (curr → snap, into level+1) when `ledger` closes. The bottom level never spills. */
export function levelShouldSpill(ledger: number, level: number): boolean {
  if (level === BOTTOM_LEVEL) return false;
  return ledger === roundDown(ledger, levelHalf(level)) || ledger === roundDown(ledger, levelSize(level));
}

/** Merges into the bottom level drop tombstones; every other level keeps them. */
export function keepTombstoneEntries(level: number): boolean {
  return level < BOTTOM_LEVEL;
}

/**
 * Whether the merge started at `ledger` for `level` uses an empty curr instead of the level's curr: true when the
 * level itself spills at the ledger where this merge's result is committed, so its curr will have moved to snap.
 */
export function shouldMergeWithEmptyCurr(ledger: number, level: number): boolean {
  if (level === 0) return false;
  const mergeStart = roundDown(ledger, levelHalf(level - 1));
  return levelShouldSpill(mergeStart + levelHalf(level - 1), level);
}

/** The ledger at which a merge for `level` started at `ledger` is committed (the next spill of level - 1). */
export function mergeDeadline(ledger: number, level: number): number {
  return roundDown(ledger, levelHalf(level - 1)) + levelHalf(level - 1);
}
