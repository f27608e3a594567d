// terms.derive.pubnet-like: events/s hashed to index terms by @strata/events' deriveTermsInto over the stored payloads
// of pubnet-like events this package generates and extracts (SAC transfers/mints/burns/fees with CAP-67 topics: four
// topics with account addresses and asset strings, Zipf-dominant contracts, 10k accounts), against decoding each
// ContractEvent with @stellar/stellar-base and hashing the re-serialized parts. Here, not in events, because events
// cannot depend on ledger-meta (ledger-meta imports it).
import { runBench } from '@strata/bench';
import { deriveTerms, deriveTermsInto, encodePayload, MAX_TERMS_PER_EVENT, TERM_KEY_BYTES } from '@strata/events';
import { decodeAndHash } from '../../events/test/arbitraries.js';
import { extractLedger, generateNetwork } from '../src/index.js';

const pubnetOptions = { seed: 'terms', ledgers: 12, eventsPerLedger: 400, contracts: 50, accounts: 10_000 };
const pubnetPayloads: Uint8Array[] = [];
for (const ledger of generateNetwork({ ...pubnetOptions, record: false })) {
  const extract = extractLedger(ledger.lcm);
  for (const event of extract.events) {
    pubnetPayloads.push(
      encodePayload({
        txHash: event.txHash,
        ledger: event.ledger,
        txIndex: event.tx,
        opIndex: event.op,
        ledgerClosedAt: Number(extract.header.closeTime),
        eventIndex: event.eventIndex,
        contractEvent: event.xdr,
      }),
    );
  }
}
const termsPerEvent = pubnetPayloads.reduce((n, p) => n + deriveTerms(p).length, 0) / pubnetPayloads.length;
const termsOut = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);

await runBench(async (bench) => {
  await bench.throughput('terms.derive.pubnet-like', {
    subject: {
      name: 'deriveTermsInto over payload bytes (keys written into one reused buffer, as ingest does)',
      fn: () => {
        for (const p of pubnetPayloads) deriveTermsInto(p, termsOut, 0);
      },
      opsPerCall: pubnetPayloads.length,
    },
    baseline: {
      name: 'decode with @stellar/stellar-base, then hash',
      fn: () => {
        for (const p of pubnetPayloads) decodeAndHash(p);
      },
      opsPerCall: pubnetPayloads.length,
    },
    target: { value: 1_000_000 },
    note: `events/s; ${pubnetPayloads.length} generated pubnet-like events (${JSON.stringify(pubnetOptions)}), ${termsPerEvent.toFixed(2)} terms per event`,
  });
});
