// The BucketList's evolution (stellar-core BucketListBase::addBatchInternal, BucketLevel::{snap,commit,prepare},
// restartMerges; spec §5.2-5.4), written once over an abstract bucket type B. The real list (BucketManager, in
// bucket-manager.ts) plugs in bucket files and worker-thread merges; the spill-schedule test (test/schedule.test.ts)
// plugs in ledger ranges. Nothing here does I/O.

import { assert } from '@strata/base';
import { requireFunction, requireObject, requireUint32 } from './arguments.js';
import { BucketError } from './errors.js';
import { FIRST_PROTOCOL_SHADOWS_REMOVED } from './kind.js';
import { floorTo, half, mergeDeadline, mergesWithEmptyCurr, NUM_LEVELS, spills } from './levels.js';

/** A level's pending next curr (stellar-core FutureBucket). */
export type Future<B> =
  | { readonly state: 'clear' }
  /** Inputs known (from a saved state), merge not started yet: `restartMerges` starts it. */
  | { readonly state: 'inputs'; readonly older: B; readonly newer: B; readonly protocolVersion: number }
  /** Merge running (or finished but not yet committed: then `output` is set). */
  | {
      readonly state: 'merging';
      readonly older: B;
      readonly newer: B;
      readonly result: Promise<B>;
      output: B | undefined;
    }
  /** Output known: the level's next curr. */
  | { readonly state: 'output'; readonly output: B };

export interface Level<B> {
  curr: B;
  snap: B;
  next: Future<B>;
}

export interface ScheduleOps<B, Prepared> {
  readonly empty: B;
  isEmpty(bucket: B): boolean;
  protocolOf(bucket: B): number;
  /** Starts the merge that builds `level`'s next curr; settles with its result (levels ≥ 1). */
  startMerge(level: number, older: B, newer: B, maxProtocolVersion: number, deadline: number): Promise<B>;
  /** Level 0's new curr: the prepared batch merged into `curr` (synchronous, in memory). */
  mergeIntoLevel0(curr: B, prepared: Prepared, protocolVersion: number): B;
}

/** The 11 levels and the rules that move buckets between them. */
export class Schedule<B, Prepared> {
  readonly levels: Level<B>[];
  /** True once every saved pending merge has been started (see `restartMerges`). */
  mergesRunning = true;
  private adding = false;

  constructor(private readonly ops: ScheduleOps<B, Prepared>) {
    requireObject(ops, 'ops');
    if (!('empty' in ops)) throw new BucketError('INVALID_ARGUMENT', 'ops.empty is missing', { field: 'ops.empty' });
    for (const name of ['isEmpty', 'protocolOf', 'startMerge', 'mergeIntoLevel0'] as const) {
      requireFunction(ops[name], `ops.${name}`);
    }
    this.levels = Array.from({ length: NUM_LEVELS }, () => ({ curr: ops.empty, snap: ops.empty, next: clear }));
  }

  /**
   * Closes `ledger`: spills every level whose boundary it is (oldest first), committing pending merges and starting
   * new ones, then merges the batch into level 0. Waits only for the merges whose results this ledger commits, and
   * waits for all of them before changing anything, so a failed merge leaves the list as it was.
   */
  async addBatch(ledger: number, protocolVersion: number, prepared: Prepared): Promise<void> {
    requireUint32(ledger, 'ledger', 1);
    requireUint32(protocolVersion, 'protocolVersion');
    if (!this.mergesRunning) throw new BucketError('PROTOCOL', 'restartMerges() must run before the next ledger');
    if (this.adding) throw new BucketError('INVALID_ARGUMENT', 'addBatch called again before the previous one settled');
    this.adding = true;
    try {
      await this.apply(ledger, protocolVersion, prepared);
    } finally {
      this.adding = false;
    }
  }

  private async apply(ledger: number, protocolVersion: number, prepared: Prepared): Promise<void> {
    const needed: Promise<B>[] = [];
    for (let i = NUM_LEVELS - 1; i >= 1; i--) {
      const next = this.levels[i]!.next;
      if (spills(ledger, i - 1) && next.state === 'merging') needed.push(next.result);
    }
    if (needed.length > 0) await Promise.all(needed);
    // Level 0's input: empty if level 0 spills now (its curr becomes the snap), else its curr.
    const level0 = this.levels[0]!;
    const newCurr0 = this.ops.mergeIntoLevel0(
      spills(ledger, 0) ? this.ops.empty : level0.curr,
      prepared,
      protocolVersion,
    );
    // From here on nothing throws: the ledger is applied as a whole.
    for (let i = NUM_LEVELS - 1; i >= 1; i--) {
      if (!spills(ledger, i - 1)) continue;
      const above = this.levels[i - 1]!;
      const spilled = above.curr;
      above.snap = spilled;
      above.curr = this.ops.empty;
      this.commit(i);
      this.prepare(i, ledger, protocolVersion, spilled);
    }
    level0.curr = newCurr0;
  }

  /**
   * Starts the merges of a state loaded without them (stellar-core restartMerges): saved inputs are merged again; a
   * clear level above a non-empty snap gets the merge `addBatch` would have started at the last spill, evaluated at
   * that spill's ledger. Levels below the first empty snap stay untouched.
   */
  restartMerges(ledger: number): void {
    requireUint32(ledger, 'ledger');
    for (let i = 0; i < NUM_LEVELS; i++) {
      const level = this.levels[i]!;
      const next = level.next;
      if (next.state === 'inputs') {
        level.next = this.merging(i, next.older, next.newer, next.protocolVersion, mergeDeadline(ledger, i));
      } else if (next.state === 'clear' && i > 0) {
        const snap = this.levels[i - 1]!.snap;
        if (this.ops.isEmpty(snap)) break;
        const version = this.ops.protocolOf(snap);
        if (version < FIRST_PROTOCOL_SHADOWS_REMOVED) {
          throw new BucketError(
            'PROTOCOL',
            `level ${i} has no pending merge but level ${i - 1}'s snap is of protocol ${version} (< 12)`,
          );
        }
        this.prepare(i, floorTo(ledger, half(i - 1)), version, snap);
      }
    }
    this.mergesRunning = true;
  }

  /** Settles when every running merge has finished (successfully or not). */
  async drain(): Promise<void> {
    await Promise.allSettled(
      this.levels.map((level) => (level.next.state === 'merging' ? level.next.result : undefined)),
    );
  }

  /** Installs a finished merge as the level's curr; a clear future leaves the level as it is. */
  private commit(i: number): void {
    const level = this.levels[i]!;
    const next = level.next;
    if (next.state === 'merging') {
      // addBatch awaited this merge before getting here.
      assert(next.output !== undefined, `level ${i} merge committed before it finished`);
      level.curr = next.output;
    } else if (next.state === 'output') {
      level.curr = next.output;
    } else if (next.state === 'inputs') {
      assert(false, `level ${i} merge committed before it was restarted`);
    }
    level.next = clear;
  }

  private prepare(i: number, ledger: number, protocolVersion: number, snap: B): void {
    const level = this.levels[i]!;
    const older = mergesWithEmptyCurr(ledger, i) ? this.ops.empty : level.curr;
    level.next = this.merging(i, older, snap, protocolVersion, mergeDeadline(ledger, i));
  }

  private merging(i: number, older: B, newer: B, maxProtocolVersion: number, deadline: number): Future<B> {
    const result = this.ops.startMerge(i, older, newer, maxProtocolVersion, deadline);
    const future: Future<B> & { state: 'merging' } = { state: 'merging', older, newer, result, output: undefined };
    // Record the output as soon as it exists (so a saved state names it), and keep a failure from being an
    // unhandled rejection: it is reported when the ledger that needs the result awaits it.
    result.then(
      (output) => {
        future.output = output;
      },
      () => undefined,
    );
    return future;
  }
}

const clear = { state: 'clear' } as const;
