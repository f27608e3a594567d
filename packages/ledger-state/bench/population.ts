// One population run of population.bench.ts, in a process of its own (peak RSS is the process's): open the state
// without merges, then build the in-memory Soroban state from the snapshot — data, TTL, code — with the loser-tree
// scan, with the old approach (newest-first raw scans + a set of seen keys) into the same state, or scan with the
// loser tree into nothing (to tell the scan's share of the time from the state's).
import { BucketManager } from '@strata/bucket-list';
import { LEDGER_ENTRY_TYPE } from '@strata/ledger-key';
import { type LiveEntrySource, SorobanState } from '../src/soroban-state/soroban-state.js';

export type PopulationMode = 'loser-tree' | 'baseline' | 'scan-only';

export interface PopulationRun {
  ms: number;
  data: number;
  code: number;
  stateSizeBytes: number;
  entriesWithoutTtl: number;
  /** Entries the scans handed over (data + TTL + code). */
  scanned: number;
  /** Data keys the state's hash worker hashed (0 for scan-only). */
  keysHashedByWorker: number;
  /** The process's resident set when the population started (after the open: Node, the modules, the indexes). */
  rssBeforeBytes: number;
}

export async function populate(dir: string, mode: PopulationMode, memCostParamsHex: string): Promise<PopulationRun> {
  const manager = await BucketManager.open(dir, { merger: 'inline', restartMerges: false, fsync: false });
  const view = manager.snapshot();
  try {
    let scanned = 0;
    const source: LiveEntrySource = {
      ledger: view.ledger,
      scanCurrentLiveEntries: (type, callback) => {
        const counted = (entry: Uint8Array) => {
          scanned++;
          callback(entry);
        };
        return mode === 'baseline'
          ? view.scanCurrentLiveEntriesBaseline(type, counted)
          : view.scanCurrentLiveEntries(type, counted);
      },
    };
    const rssBeforeBytes = process.memoryUsage.rss();
    const started = performance.now();
    if (mode === 'scan-only') {
      let bytes = 0;
      for (const type of [LEDGER_ENTRY_TYPE.CONTRACT_DATA, LEDGER_ENTRY_TYPE.TTL, LEDGER_ENTRY_TYPE.CONTRACT_CODE]) {
        source.scanCurrentLiveEntries(type, (entry) => {
          bytes += entry.length;
        });
      }
      const ms = performance.now() - started;
      return {
        ms,
        data: 0,
        code: 0,
        stateSizeBytes: bytes,
        entriesWithoutTtl: 0,
        scanned,
        keysHashedByWorker: 0,
        rssBeforeBytes,
      };
    }
    const state = new SorobanState();
    const report = state.populate(source, {
      protocolVersion: 23,
      memCostParams: new Uint8Array(Buffer.from(memCostParamsHex, 'hex')),
    });
    const ms = performance.now() - started;
    return {
      ms,
      data: report.data,
      code: report.code,
      stateSizeBytes: state.stateSizeBytes,
      entriesWithoutTtl: state.entriesWithoutTtl,
      scanned,
      keysHashedByWorker: report.keysHashedByWorker,
      rssBeforeBytes,
    };
  } finally {
    view.release();
    await manager.close();
  }
}
