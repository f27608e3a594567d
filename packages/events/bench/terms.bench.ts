// terms.derive: events/s (and terms/s) hashed to index terms from stored payload bytes with deriveTermsInto (the
// non-allocating API the tiers' ingest uses; deriveTerms adds one 16-byte array per key), against the baseline of
// decoding each ContractEvent with @stellar/stellar-base and hashing the re-serialized parts; and postfilter: events/s
// through a 5-filter v1 request, against the same request matched on stellar-base decodes. Same seeded corpus.
// The pubnet-like figure (terms.derive.pubnet-like) needs ledger-meta's generator: it is in
// packages/ledger-meta/bench/event-terms.bench.ts.
import { runBench } from '@strata/bench';
import { encodeContractStrkey } from '@strata/ledger-key';
import fc from 'fast-check';
import {
  compilePostFilter,
  compileV1Filters,
  deriveTerms,
  deriveTermsInto,
  MAX_TERMS_PER_EVENT,
  PAYLOAD_HEADER_LENGTH,
  TERM_KEY_BYTES,
  validateGetEventsV1,
} from '../src/index.js';
import { CONTRACTS, decodeAndHash, oracleDecode, payloadArb, TOPIC_VOCABULARY } from '../test/arbitraries.js';

const EVENTS = 4096;
const payloads = fc.sample(payloadArb, { numRuns: EVENTS, seed: 20260805 }).map((p) => p.bytes);
const termsPerEvent = payloads.reduce((n, p) => n + deriveTerms(p).length, 0) / EVENTS;

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const request = validateGetEventsV1({
  startLedger: 2,
  filters: CONTRACTS.map((c, i) => ({
    contractIds: [encodeContractStrkey(c)],
    topics: [
      [b64(TOPIC_VOCABULARY[i]!), '**'],
      [b64(TOPIC_VOCABULARY[i + 1]!), '*'],
    ],
  })).concat([{ contractIds: [], topics: [[b64(TOPIC_VOCABULARY[6]!)]] }]),
});
const postFilter = compilePostFilter(compileV1Filters(request.filters));
const termsOut = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);
const hexOf = (b: Uint8Array | undefined) => (b === undefined ? '' : Buffer.from(b).toString('hex'));

await runBench(async (bench) => {
  await bench.throughput('terms.derive', {
    subject: {
      name: 'deriveTermsInto over payload bytes (keys written into one reused buffer, as ingest does)',
      fn: () => {
        for (const p of payloads) deriveTermsInto(p, termsOut, 0);
      },
      opsPerCall: EVENTS,
    },
    baseline: {
      name: 'decode with @stellar/stellar-base, then hash',
      fn: () => {
        for (const p of payloads) decodeAndHash(p);
      },
      opsPerCall: EVENTS,
    },
    target: { value: 1_000_000 },
    note: `events/s; test-arbitrary corpus, ${termsPerEvent.toFixed(2)} terms per event (short topics)`,
  });
  await bench.throughput('postfilter.v1-5-filters', {
    subject: {
      name: 'compiled post-filter over payload views',
      fn: () => {
        for (const p of payloads) postFilter(p);
      },
      opsPerCall: EVENTS,
    },
    baseline: {
      name: 'decode with @stellar/stellar-base, SDK-style match',
      fn: () => {
        for (const p of payloads) {
          const ev = oracleDecode(p.subarray(PAYLOAD_HEADER_LENGTH));
          request.filters.some(
            (f) =>
              (f.contractIds.length === 0 || f.contractIds.some((c) => hexOf(c) === hexOf(ev.contractId))) &&
              f.topics.some(
                (t) =>
                  (t.trailingAny ? ev.topics.length >= t.segments.length : ev.topics.length === t.segments.length) &&
                  t.segments.every((s, i) => s === '*' || hexOf(s) === hexOf(ev.topics[i])),
              ),
          );
        }
      },
      opsPerCall: EVENTS,
    },
    target: { value: 1_000_000 },
  });
});
