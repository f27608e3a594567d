// Reads what a finished `strata` process left in a data directory, for the tests to compare with the oracle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { viewPayload } from '@strata/events';
import { HotStore } from '@strata/hot-store';

export function nodeFileOf(dataDir: string): {
  position: { ledger: number; hash: string } | null;
  networkPassphrase: string;
} {
  return JSON.parse(readFileSync(join(dataDir, 'node.json'), 'utf8'));
}

/** Every event of hot chunk 0 as (ledger, ContractEvent hex), in ordinal order, and the chunk's latest ledger. */
export async function hotEventsOf(
  dataDir: string,
): Promise<{ latest: number | undefined; events: [number, string][] }> {
  const store = HotStore.open(join(dataDir, 'events', 'hot', '0.db'), { chunkId: 0 });
  try {
    const reader = store.reader();
    const count = reader.eventCount();
    const fetched = count === 0 ? [] : await reader.fetchRange({ start: 0, end: count });
    const events = fetched.map((event): [number, string] => {
      const view = viewPayload(event.payload);
      return [view.ledger, Buffer.from(view.contractEvent).toString('hex')];
    });
    return { latest: store.latestLedger, events };
  } finally {
    store.close();
  }
}
