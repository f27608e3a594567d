// extract.events.fixtures: contract events extracted per second from the stellar-core-lcm fixture ledgers that carry
// events and that @stellar/stellar-base can decode (so both sides do equal work), against decoding them with
// stellar-base and walking the objects, in one run.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';
import { runBench } from '@strata/bench';
import { lcmFixtureStreams } from '@strata/test-kit';
import { extractLedger, iterateLedgerCloseMetaRecords } from '../src/index.js';
import { decodeAndWalk } from './stellar-base-walk.js';

// Every fixture ledger with at least one contract event that stellar-base can decode (so both sides do equal work).
const ledgers: Uint8Array[] = [];
let eventCount = 0;
for (const file of lcmFixtureStreams()) {
  for (const record of iterateLedgerCloseMetaRecords(new Uint8Array(readFileSync(file)))) {
    const events = extractLedger(record.bytes).events.length;
    if (events === 0) continue;
    try {
      xdr.LedgerCloseMeta.fromXDR(Buffer.from(record.bytes));
    } catch {
      continue;
    }
    ledgers.push(record.bytes);
    eventCount += events;
  }
}

await runBench(async (bench) => {
  await bench.throughput('extract.events.fixtures', {
    subject: {
      name: 'extractLedger',
      fn: () => {
        for (const bytes of ledgers) extractLedger(bytes);
      },
      opsPerCall: eventCount,
    },
    baseline: {
      name: '@stellar/stellar-base LedgerCloseMeta.fromXDR + object walk to the events',
      fn: () => {
        for (const bytes of ledgers) decodeAndWalk(bytes);
      },
      opsPerCall: eventCount,
    },
    note: `events/s; ${ledgers.length} stellar-core-lcm fixture ledgers with ${eventCount} events (test-network shape: few events per ledger, so this mostly measures whole-ledger validation)`,
  });
});
