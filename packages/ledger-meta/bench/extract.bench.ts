// extract.events: contract events extracted per second from fixture ledgers that carry events, against decoding the
// same ledgers with @stellar/stellar-base and walking the objects to the same event fields, measured in one run.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { xdr } from '@stellar/stellar-base';
import { runBench } from '@strata/bench';
import { fixturePath } from '@strata/test-kit';
import { extractLedger, iterateLedgerCloseMetaRecords } from '../src/index.js';

// Every fixture ledger with at least one contract event that stellar-base can decode (so both sides do equal work).
const ledgers: Uint8Array[] = [];
let eventCount = 0;
const root = fixturePath('stellar-core-lcm');
for (const group of readdirSync(root).sort()) {
  const dir = join(root, group);
  if (!statSync(dir).isDirectory()) continue;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.xdr')) continue;
    for (const record of iterateLedgerCloseMetaRecords(new Uint8Array(readFileSync(join(dir, name))))) {
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
    target: { value: 300_000, ratio: 10 },
    note: `events/s, one core; ${ledgers.length} stellar-core-lcm fixture ledgers with ${eventCount} events (test-network shape: few events per ledger, so this mostly measures whole-ledger validation). The issue's figure must be measured on generated pubnet-like LCM once the generator exists.`,
  });
});
