// The generated network's oracle (its own record of every event, from @strata/ledger-meta's generateNetwork with
// `record`) and what a data directory holds for it, read through either tier (cold once frozen, else hot), both as
// comparable strings: ledger/tx/op/eventIndex/txHash/contractId/topics/value, the value parts decoded from the stored
// ContractEvent XDR with @stellar/stellar-base (not with the node's own code).
import { xdr } from '@stellar/stellar-base';
import { viewPayload } from '@strata/events';
import { generateNetwork, SYNTHETIC_NETWORK_PASSPHRASE } from '@strata/ledger-meta';
import { dataDirLayout } from '../../src/data-dir.js';
import { eventChunkIds, openEventsChunk } from '../../src/event-chunks.js';
import { GENERATOR_PROTOCOL, type GeneratorSource } from '../../src/generator-source.js';

const hex = (bytes: Uint8Array | null | undefined) => (bytes == null ? '-' : Buffer.from(bytes).toString('hex'));

/** The CLI flags of `source` (with --source generator). */
export function generatorArgs(source: GeneratorSource): string[] {
  return [
    '--source',
    'generator',
    '--seed',
    String(source.seed ?? 1),
    '--ledgers',
    String(source.ledgers),
    ...(source.eventsPerLedger === undefined ? [] : ['--events-per-ledger', String(source.eventsPerLedger)]),
    ...(source.accounts === undefined ? [] : ['--accounts', String(source.accounts)]),
    ...(source.contracts === undefined ? [] : ['--contracts', String(source.contracts)]),
  ];
}

/** Every event the generator records for `source` through ledger `to`, in emission order, and the ledgers' hashes. */
export function generatedOracle(
  source: GeneratorSource,
  to = source.ledgers + 1,
): { events: string[]; hashes: Map<number, string> } {
  const events: string[] = [];
  const hashes = new Map<number, string>();
  for (const ledger of generateNetwork({
    seed: source.seed ?? 1,
    ledgers: Math.min(source.ledgers, to - 1),
    startLedger: 2,
    protocolVersion: GENERATOR_PROTOCOL,
    networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE,
    ...(source.eventsPerLedger === undefined ? {} : { eventsPerLedger: source.eventsPerLedger }),
    ...(source.accounts === undefined ? {} : { accounts: source.accounts }),
    ...(source.contracts === undefined ? {} : { contracts: source.contracts }),
  })) {
    hashes.set(ledger.sequence, hex(ledger.hash));
    for (const event of ledger.events) {
      events.push(
        [
          event.ledger,
          event.tx,
          event.op,
          event.eventIndex,
          hex(event.txHash),
          hex(event.contractId),
          event.topics.map(hex).join(','),
          hex(event.value),
        ].join('/'),
      );
    }
  }
  return { events, hashes };
}

/** Each event chunk of `dataDir` with the tier serving it and its events (as generatedOracle writes them). */
export async function storedChunks(
  dataDir: string,
): Promise<{ chunkId: number; tier: 'hot' | 'cold'; events: string[] }[]> {
  const layout = dataDirLayout(dataDir);
  const chunks: { chunkId: number; tier: 'hot' | 'cold'; events: string[] }[] = [];
  for (const chunkId of eventChunkIds(layout)) {
    const opened = await openEventsChunk(layout, chunkId);
    try {
      const count = opened.reader.eventCount();
      const fetched = count === 0 ? [] : await opened.reader.fetchRange({ start: 0, end: count });
      chunks.push({
        chunkId,
        tier: opened.tier,
        events: fetched.map((stored) => {
          const view = viewPayload(stored.payload);
          const event = xdr.ContractEvent.fromXDR(Buffer.from(view.contractEvent));
          const body = event.body().v0();
          return [
            view.ledger,
            view.txIndex,
            view.opIndex,
            view.eventIndex,
            hex(view.txHash),
            hex((event.contractId() as unknown as Uint8Array | null) ?? null),
            body
              .topics()
              .map((topic) => topic.toXDR('hex'))
              .join(','),
            body.data().toXDR('hex'),
          ].join('/');
        }),
      });
    } finally {
      await opened.reader.close();
    }
  }
  return chunks;
}
