// extract.events: contract events extracted per second from generated pubnet-like ledgers (the figure), and
// extract.events.fixtures from the stellar-core-lcm ledgers that carry events, each against decoding the same ledgers
// with @stellar/stellar-base and walking the objects to the same event fields, measured in one run.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';
import { runBench } from '@strata/bench';
import { lcmFixtureStreams } from '@strata/test-kit';
import { extractLedger, generateNetwork, iterateLedgerCloseMetaRecords } from '../src/index.js';

// Pubnet-like: SAC-dominated events (transfers, mints, burns, fees), many accounts, a few dominant contracts.
const generatedOptions = { seed: 'bench', ledgers: 40, eventsPerLedger: 500, contracts: 50, accounts: 10_000 };
const generated = [...generateNetwork({ ...generatedOptions, record: false })];
const generatedLedgers = generated.map((ledger) => ledger.lcm);
const generatedEvents = generated.reduce((sum, ledger) => sum + ledger.eventCount, 0);

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

/** The baseline's walk: decode, then per event the same fields the engine yields (contract id, topics, value). */
function decodeAndWalk(bytes: Uint8Array): number {
  const lcm = xdr.LedgerCloseMeta.fromXDR(Buffer.from(bytes));
  const body = lcm.switch() === 0 ? lcm.v0() : lcm.switch() === 1 ? lcm.v1() : lcm.v2();
  let seen = 0;
  const visit = (event: xdr.ContractEvent) => {
    const v0 = event.body().v0();
    seen += (event.contractId() ? 1 : 0) + v0.topics().length + (v0.data() ? 1 : 0) > 0 ? 1 : 0;
  };
  for (const tx of body.txProcessing() as xdr.TransactionResultMeta[]) {
    tx.result().transactionHash();
    const meta = tx.txApplyProcessing();
    if (meta.switch() === 3) for (const event of meta.v3().sorobanMeta()?.events() ?? []) visit(event);
    if (meta.switch() === 4) {
      for (const op of meta.v4().operations()) for (const event of op.events()) visit(event);
      for (const txEvent of meta.v4().events()) visit(txEvent.event());
    }
  }
  return seen;
}

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
