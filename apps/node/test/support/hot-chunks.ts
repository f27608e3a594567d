// Hot chunks with real events at any chunk id (generated ledgers' events re-stamped into the chunk's ledgers), for
// the tests of freezing, the swap, retention and verify without ingesting 10,000 ledgers a chunk.
import { mkdirSync } from 'node:fs';
import { chunkFirstLedger, encodePayload } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { extractLedger, generateNetwork } from '@strata/ledger-meta';
import { type DataDirLayout, hotChunkPath } from '../../src/data-dir.js';

/** Generated ledgers' events re-stamped into `ledgers` consecutive ledgers from `first`. */
export function payloadsOf(first: number, ledgers: number): { ledger: number; payloads: Uint8Array[] }[] {
  const out: { ledger: number; payloads: Uint8Array[] }[] = [];
  let ledger = first;
  for (const generated of generateNetwork({ seed: 7, ledgers: ledgers + 1, eventsPerLedger: 30, record: false })) {
    const extract = extractLedger(generated.lcm);
    if (extract.events.length === 0) continue;
    const at = ledger++;
    out.push({
      ledger: at,
      payloads: extract.events.map((event) =>
        encodePayload({
          txHash: event.txHash,
          ledger: at,
          txIndex: event.tx,
          opIndex: event.op,
          ledgerClosedAt: Number(extract.header.closeTime),
          eventIndex: event.eventIndex,
          contractEvent: event.xdr,
        }),
      ),
    });
    if (out.length === ledgers) break;
  }
  return out;
}

/** Hot chunk `chunkId` of `layout` holding `ledgers` ledgers of events from its first ledger, synced and closed. */
export function writeHotChunk(layout: DataDirLayout, chunkId: number, ledgers: number): number {
  mkdirSync(layout.hotDir, { recursive: true });
  const hot = HotStore.open(hotChunkPath(layout, chunkId), { chunkId, create: true });
  try {
    hot.ingestLedgers(payloadsOf(chunkFirstLedger(chunkId), ledgers));
    hot.sync();
    return hot.eventCount;
  } finally {
    hot.close();
  }
}
