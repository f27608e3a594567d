// The population run measured by population.bench.ts, in a process of its own (peak RSS is the process's): open the
// state without merges, then scan the current live CONTRACT_DATA, TTL and CONTRACT_CODE entries in stellar-core's
// order, with the loser tree or with the old approach. The consumer keeps counts and byte totals only, so the
// figures are the scan's own (the state structure a node builds from the entries is the same for both).
import { LEDGER_ENTRY_TYPE } from '@strata/ledger-key';
import { BucketManager } from '../src/bucket-manager.js';

export async function populate(
  dir: string,
  mode: 'loser-tree' | 'baseline',
): Promise<{ ms: number; emitted: number; bytes: number }> {
  const manager = await BucketManager.open(dir, { merger: 'inline', restartMerges: false, fsync: false });
  const view = manager.snapshot();
  try {
    let emitted = 0;
    let bytes = 0;
    const consume = (entry: Uint8Array): void => {
      emitted++;
      bytes += entry.length;
    };
    const started = performance.now();
    for (const type of [LEDGER_ENTRY_TYPE.CONTRACT_DATA, LEDGER_ENTRY_TYPE.TTL, LEDGER_ENTRY_TYPE.CONTRACT_CODE]) {
      if (mode === 'loser-tree') view.scanCurrentLiveEntries(type, consume);
      else view.scanCurrentLiveEntriesBaseline(type, consume);
    }
    return { ms: performance.now() - started, emitted, bytes };
  } finally {
    view.release();
    await manager.close();
  }
}
