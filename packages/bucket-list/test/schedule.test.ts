// The spill schedule (spec §5.2): the level logic of the real list, run over ledger ranges instead of buckets,
// reproduces stellar-core's table of which ledgers each curr and snap hold at ledger 0x11f9ab, and the level
// arithmetic matches the published boundaries.
import { describe, expect, it } from 'vitest';
import { levelHalf, levelShouldSpill, levelSize, shouldMergeWithEmptyCurr } from '../src/levels.js';
import { Schedule, type ScheduleOps } from '../src/schedule.js';

/** A bucket as the range of ledgers whose batches it holds; undefined is the empty bucket. */
type Range = readonly [first: number, last: number] | undefined;

function union(a: Range, b: Range): Range {
  if (a === undefined) return b;
  if (b === undefined) return a;
  // Merged inputs are always adjacent: the older bucket ends right before the newer one starts. (A plain throw:
  // expect() per merge would dominate this 1.2 M-ledger run.)
  if (a[1] + 1 !== b[0]) throw new Error(`merging [${a}] with [${b}]: not adjacent`);
  return [a[0], b[1]];
}

const rangeOps: ScheduleOps<Range, number> = {
  empty: undefined,
  isEmpty: (bucket) => bucket === undefined,
  protocolOf: () => 23,
  startMerge: async (_level, older, newer) => union(older, newer),
  mergeIntoLevel0: (curr, ledger) => union(curr, [ledger, ledger]),
};

function describeLevels(schedule: Schedule<Range, number>): string[] {
  const show = (range: Range): string =>
    range === undefined
      ? 'empty'
      : `0x${(range[1] - range[0] + 1).toString(16)}=[0x${range[0].toString(16)},0x${range[1].toString(16)}]`;
  return schedule.levels.map((level) => `${show(level.curr)} ${show(level.snap)}`);
}

describe('level arithmetic', () => {
  it('levelSize and levelHalf', () => {
    expect(Array.from({ length: 11 }, (_, i) => levelSize(i))).toEqual([
      4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
    ]);
    expect(Array.from({ length: 11 }, (_, i) => levelHalf(i))).toEqual([
      2, 8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152,
    ]);
  });

  it('spill boundaries (BucketListBase.cpp comment table)', () => {
    const firstSpills = (level: number): number[] => {
      const out: number[] = [];
      for (let ledger = 1; out.length < 3; ledger++) if (levelShouldSpill(ledger, level)) out.push(ledger);
      return out;
    };
    expect(firstSpills(0)).toEqual([2, 4, 6]);
    expect(firstSpills(1)).toEqual([8, 16, 24]);
    expect(firstSpills(2)).toEqual([32, 64, 96]);
    expect(levelShouldSpill(524288, 9)).toBe(true);
    expect(levelShouldSpill(1048576, 9)).toBe(true);
    expect(levelShouldSpill(0x100000, 10)).toBe(false);
    expect(levelShouldSpill(0xfffffffe, 0)).toBe(true);
  });

  it('merges with an empty curr exactly at the snap(level) ledgers of the BucketListBase.cpp diagram', () => {
    const emptyCurrAt = (level: number, upTo: number): number[] => {
      const out: number[] = [];
      for (let ledger = 1; ledger <= upTo; ledger++) {
        if (levelShouldSpill(ledger, level - 1) && shouldMergeWithEmptyCurr(ledger, level)) out.push(ledger);
      }
      return out;
    };
    expect(emptyCurrAt(1, 16)).toEqual([6, 14]);
    expect(emptyCurrAt(2, 64)).toEqual([24, 56]);
    expect(emptyCurrAt(3, 256)).toEqual([96, 224]);
    expect(emptyCurrAt(4, 1024)).toEqual([384, 896]);
  });
});

describe('spill schedule', () => {
  it('reproduces the level table at ledger 0x11f9ab (spec §5.2)', async () => {
    const schedule = new Schedule<Range, number>(rangeOps);
    for (let ledger = 1; ledger <= 0x11f9ab; ledger++) await schedule.addBatch(ledger, 23, ledger);
    expect(describeLevels(schedule)).toEqual([
      '0x2=[0x11f9aa,0x11f9ab] 0x2=[0x11f9a8,0x11f9a9]',
      '0x4=[0x11f9a4,0x11f9a7] 0x8=[0x11f99c,0x11f9a3]',
      '0x10=[0x11f98c,0x11f99b] 0x20=[0x11f96c,0x11f98b]',
      '0x40=[0x11f92c,0x11f96b] 0x80=[0x11f8ac,0x11f92b]',
      '0x200=[0x11f6ac,0x11f8ab] 0x200=[0x11f4ac,0x11f6ab]',
      '0x200=[0x11f2ac,0x11f4ab] 0x800=[0x11eaac,0x11f2ab]',
      '0x2000=[0x11caac,0x11eaab] 0x2000=[0x11aaac,0x11caab]',
      '0x8000=[0x112aac,0x11aaab] 0x8000=[0x10aaac,0x112aab]',
      '0x20000=[0xeaaac,0x10aaab] 0x20000=[0xcaaac,0xeaaab]',
      '0x20000=[0xaaaac,0xcaaab] 0x80000=[0x2aaac,0xaaaab]',
      '0x2aaab=[0x1,0x2aaab] empty',
    ]);
  }, 120_000);

  it('negative control: committing without the empty-curr rule breaks the table', async () => {
    // Same ranges, but the merge ignores the empty-curr choice by re-adding the level's curr: the adjacency check in
    // union() or the final table must then differ.
    const schedule = new Schedule<Range, number>(rangeOps);
    const levels = schedule.levels;
    const broken: ScheduleOps<Range, number> = {
      ...rangeOps,
      startMerge: async (level, older, newer) =>
        older === undefined ? union(levels[level]!.curr, newer) : union(older, newer),
    };
    const brokenSchedule = new Schedule<Range, number>(broken);
    const run = async (): Promise<string[]> => {
      for (let ledger = 1; ledger <= 0x1000; ledger++) await brokenSchedule.addBatch(ledger, 23, ledger);
      return describeLevels(brokenSchedule);
    };
    const good = async (): Promise<string[]> => {
      for (let ledger = 1; ledger <= 0x1000; ledger++) await schedule.addBatch(ledger, 23, ledger);
      return describeLevels(schedule);
    };
    const expected = await good();
    await expect(run().then((actual) => expect(actual).toEqual(expected))).rejects.toThrow();
  });

  it('restartMerges rebuilds the pending merges addBatch would have had', async () => {
    const reference = new Schedule<Range, number>(rangeOps);
    for (let ledger = 1; ledger <= 5000; ledger++) await reference.addBatch(ledger, 23, ledger);
    // A copy with only curr/snap and every pending merge forgotten, as after loading a state saved with clear futures.
    const restarted = new Schedule<Range, number>(rangeOps);
    for (let i = 0; i < 11; i++) {
      restarted.levels[i]!.curr = reference.levels[i]!.curr;
      restarted.levels[i]!.snap = reference.levels[i]!.snap;
    }
    restarted.restartMerges(5000);
    for (let ledger = 5001; ledger <= 9000; ledger++) {
      await reference.addBatch(ledger, 23, ledger);
      await restarted.addBatch(ledger, 23, ledger);
    }
    expect(describeLevels(restarted)).toEqual(describeLevels(reference));
  });
});
