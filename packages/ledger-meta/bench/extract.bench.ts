// extract.events: contract events extracted per second from generated pubnet-like ledgers (the figure),
// against decoding the same ledgers with @stellar/stellar-base and walking the objects to the same event fields, in
// one run. This process sees only the generated ledgers, as a node following one network sees one protocol era: the
// fixture figure (extract-fixtures.bench.ts, every LCM and meta version since protocol 19) runs in its own process.
import { runBench } from '@strata/bench';
import { extractLedger, generateNetwork } from '../src/index.js';
import { decodeAndWalk } from './stellar-base-walk.js';

// Pubnet-like: SAC-dominated events (transfers, mints, burns, fees), many accounts, a few dominant contracts.
const generatedOptions = { seed: 'bench', ledgers: 40, eventsPerLedger: 500, contracts: 50, accounts: 10_000 };
const generated = [...generateNetwork({ ...generatedOptions, record: false })];
const generatedLedgers = generated.map((ledger) => ledger.lcm);
const generatedEvents = generated.reduce((sum, ledger) => sum + ledger.eventCount, 0);

await runBench(async (bench) => {
  await bench.throughput('extract.events', {
    subject: {
      name: 'extractLedger (one validating pass: header, events, folded entry changes)',
      fn: () => {
        for (const bytes of generatedLedgers) extractLedger(bytes);
      },
      opsPerCall: generatedEvents,
    },
    baseline: {
      name: '@stellar/stellar-base LedgerCloseMeta.fromXDR + object walk to the events',
      fn: () => {
        for (const bytes of generatedLedgers) decodeAndWalk(bytes);
      },
      opsPerCall: generatedEvents,
    },
    target: { value: 300_000, ratio: 10 },
    note: `events/s, one core; ${generatedLedgers.length} generated pubnet-like ledgers (${JSON.stringify(generatedOptions)}) with ${generatedEvents} events`,
  });
});
