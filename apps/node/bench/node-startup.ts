// One startup of node.bench.ts's `startup` figure, in a process of its own (run by measurePeakRss, so the peak RSS is
// this process's): open a prepared data directory as `strata start` does and report the seconds from process start
// (performance.now() counts from this process's time origin: Node and the TypeScript loader boot included) to the
// node's `resume` phase, when it is ready to apply the next ledger; or, the baseline, open the same two stores
// through the packages alone. The job exits right after it reports (rss-job.ts): the merges restartMerges began are
// not waited for, as a node would go on ingesting meanwhile.
import { chunkIdOfLedger } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { LedgerState } from '@strata/ledger-state';
import { dataDirLayout, hotChunkPath, readNodeFile } from '../src/data-dir.js';
import { StrataNode } from '../src/node.js';

export interface StartupRun {
  /** Seconds from process start to the resume phase (or, for the baseline, to both stores open). */
  readonly seconds: number;
  /** Seconds from process start to the first line of this module (boot: Node, loader, imports). */
  readonly bootSeconds: number;
  readonly phases: readonly { readonly phase: string; readonly seconds: number }[];
  readonly nextLedger: number;
  readonly sorobanEntries: number;
}

const bootSeconds = performance.now() / 1000;

/** The node's startup (StrataNode.open: open state → populate → restartMerges → reopen hot → resume). */
export async function startNode(dataDir: string): Promise<StartupRun> {
  const node = await StrataNode.open(dataDir, { fsync: false });
  const seconds = performance.now() / 1000;
  const soroban = node.state.sorobanState;
  return {
    seconds,
    bootSeconds,
    phases: node.phases,
    nextLedger: node.nextLedger,
    sorobanEntries: soroban.dataCount + soroban.codeCount,
  };
}

/** The baseline: the same ledger state (merges restarted) and hot chunk opened by the packages, no node around them. */
export async function startStores(dataDir: string): Promise<StartupRun> {
  const layout = dataDirLayout(dataDir);
  const file = readNodeFile(layout);
  if (file?.position == null) throw new Error(`${dataDir} holds no node with a position`);
  const state = await LedgerState.open(layout.stateDir, { fsync: false, verify: false });
  const chunkId = chunkIdOfLedger(file.position.ledger);
  const hot = HotStore.open(hotChunkPath(layout, chunkId), { chunkId });
  const seconds = performance.now() / 1000;
  const nextLedger = Math.min(state.ledger, hot.latestLedger ?? 0) + 1;
  return {
    seconds,
    bootSeconds,
    phases: [],
    nextLedger,
    sorobanEntries: state.sorobanState.dataCount + state.sorobanState.codeCount,
  };
}
