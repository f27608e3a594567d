// Every contract event of the stellar-core captures, extracted by ledger-meta, through @strata/events' model: the
// stored payload round-trips, its view reads the extracted fields, and terms and post-filter results equal the
// stellar-base oracle. It lives here because extraction is ledger-meta's and the model is events'.

import {
  type ContractEventType,
  compilePostFilter,
  compileV1Filters,
  decodePayload,
  deriveTerms,
  deriveTermsInto,
  encodePayload,
  MAX_TERMS_PER_EVENT,
  type StorageFilter,
  TERM_KEY_BYTES,
  termKeyHex,
  viewPayload,
} from '@strata/events';
import { describeWithFixtures, hex, lcmFixtureStreams } from '@strata/test-kit';
import { expect, it } from 'vitest';
// The stellar-base oracles of @strata/events' own tests (events cannot depend on ledger-meta, which imports it).
import { type OracleEvent, oracleDecode, oracleTerms } from '../../events/test/arbitraries.js';
import { extractLedger, readLedgerCloseMetaStream } from '../src/index.js';

const TYPES: Record<string, ContractEventType> = { system: 0, contract: 1, diagnostic: 2 };

function naiveMatch(f: StorageFilter, ev: OracleEvent): boolean {
  return (
    (f.eventType === undefined || f.eventType === ev.type) &&
    (f.contractId === undefined || (ev.contractId !== undefined && hex(f.contractId) === hex(ev.contractId))) &&
    (f.topicCount.exact ? ev.topics.length === f.topicCount.count : ev.topics.length >= f.topicCount.count) &&
    f.topics.every((t, i) => t === undefined || (ev.topics[i] !== undefined && hex(t) === hex(ev.topics[i])))
  );
}

interface Stored {
  payload: Uint8Array;
  /** stellar-base's decode, or ledger-meta's fields when stellar-base cannot decode the event. */
  ev: OracleEvent;
}

describeWithFixtures('stellar-core-lcm events', [['stellar-core-lcm']], () => {
  it('terms and post-filter results of every fixture event equal the stellar-base oracle', async () => {
    const counts = {
      files: 0,
      ledgers: 0,
      events: 0,
      oracleDecoded: 0,
      fieldsOnly: 0,
      terms: 0,
      distinctTerms: 0,
      contracts: 0,
      topic0s: 0,
      filters: 0,
      matches: 0,
      v1Filters: 0,
    };
    const events: Stored[] = [];
    const distinct = new Set<string>();
    const out = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);
    for (const file of lcmFixtureStreams()) {
      counts.files++;
      for await (const record of readLedgerCloseMetaStream(file)) {
        counts.ledgers++;
        const { header, events: extracted } = extractLedger(record.bytes, record);
        for (const e of extracted) {
          counts.events++;
          const payload = encodePayload({
            txHash: e.txHash,
            ledger: e.ledger,
            txIndex: e.tx,
            opIndex: e.op,
            ledgerClosedAt: Number(header.closeTime),
            eventIndex: e.eventIndex,
            contractEvent: e.xdr,
          });
          const decoded = decodePayload(payload);
          expect(hex(decoded.contractEvent)).toBe(hex(e.xdr));
          const view = viewPayload(payload);
          expect([view.ledger, view.txIndex, view.opIndex, view.eventIndex, view.type, view.topicCount]).toEqual([
            e.ledger,
            e.tx,
            e.op,
            e.eventIndex,
            TYPES[e.type],
            e.topics.length,
          ]);
          expect(view.contractId && hex(view.contractId)).toBe(e.contractId === null ? undefined : hex(e.contractId));
          for (const [i, t] of e.topics.entries()) expect(hex(view.topic(i)!)).toBe(hex(t));
          expect(hex(view.value())).toBe(hex(e.value));

          let ev: OracleEvent;
          try {
            ev = oracleDecode(e.xdr);
            counts.oracleDecoded++;
          } catch {
            ev = {
              type: TYPES[e.type]!,
              contractId: e.contractId ?? undefined,
              topics: e.topics,
              value: e.value,
            };
            counts.fieldsOnly++;
          }
          const want = oracleTerms(ev);
          expect(deriveTerms(payload).map(termKeyHex), e.id).toEqual(want);
          const n = deriveTermsInto(payload, out, 0);
          const got: string[] = [];
          for (let i = 0; i < n; i++) got.push(termKeyHex(out.subarray(i * 16, i * 16 + 16)));
          expect(got, e.id).toEqual(want);
          counts.terms += n;
          for (const k of want) distinct.add(k);
          events.push({ payload, ev });
        }
      }
    }
    counts.distinctTerms = distinct.size;

    // Filters from the real events.
    const contracts = new Map<string, Uint8Array>();
    const topic0s = new Map<string, Uint8Array>();
    const pairs = new Map<string, [Uint8Array, Uint8Array]>();
    for (const { ev } of events) {
      if (ev.contractId !== undefined) contracts.set(hex(ev.contractId)!, ev.contractId);
      const t0 = ev.topics[0];
      if (t0 !== undefined) topic0s.set(hex(t0)!, t0);
      if (ev.contractId !== undefined && t0 !== undefined)
        pairs.set(`${hex(ev.contractId)}:${hex(t0)}`, [ev.contractId, t0]);
    }
    counts.contracts = contracts.size;
    counts.topic0s = topic0s.size;
    const any = { count: 0, exact: false };
    const filters: StorageFilter[][] = [];
    for (const c of contracts.values()) filters.push([{ contractId: c, topics: [], topicCount: any }]);
    for (const t of topic0s.values()) {
      filters.push([{ topics: [t], topicCount: { count: 1, exact: false } }]); // [t, '**']
      filters.push([{ topics: [t], topicCount: { count: 1, exact: true } }]); // [t]
      filters.push([{ topics: [t, undefined], topicCount: { count: 2, exact: true } }]); // [t, '*']
      filters.push([{ topics: [undefined, undefined, t], topicCount: { count: 3, exact: false } }]); // ['*','*',t,'**']
    }
    for (const [c, t] of pairs.values()) {
      filters.push([{ contractId: c, topics: [t], topicCount: { count: 1, exact: false } }]);
    }
    for (let n = 0; n <= 4; n++) filters.push([{ topics: [], topicCount: { count: n, exact: true } }]);
    for (const type of [0, 1, 2]) filters.push([{ eventType: type, topics: [], topicCount: any }]);
    // Multi-clause requests: up to five clauses OR-ed, from the lists above.
    const singles = filters.map((f) => f[0]!);
    for (let i = 0; i + 5 <= singles.length; i += 7) filters.push(singles.slice(i, i + 5));
    filters.push([{ topics: [], topicCount: any }]); // ['**'] alone: every event
    counts.filters = filters.length;
    for (const f of filters) {
      const match = compilePostFilter(f);
      for (const { payload, ev } of events) {
        const want = f.some((clause) => naiveMatch(clause, ev));
        if (match(payload) !== want)
          expect.fail(`filter ${JSON.stringify(f, (_, v) => (v instanceof Uint8Array ? hex(v) : v))}`);
        if (want) counts.matches++;
      }
    }
    // v1 filters compiled: contract + [topic0, '*', '**'] for each pair, and [topic0] with types system/contract.
    for (const [c, t] of pairs.values()) {
      counts.v1Filters++;
      const v1 = compilePostFilter(
        compileV1Filters([{ types: [], contractIds: [c], topics: [{ segments: [t, '*'], trailingAny: true }] }]),
      );
      const v1Types = compilePostFilter(
        compileV1Filters([
          { types: ['system', 'contract'], contractIds: [], topics: [{ segments: [t], trailingAny: false }] },
        ]),
      );
      for (const { payload, ev } of events) {
        const n = ev.topics.length;
        const t0 = ev.topics[0] !== undefined && hex(ev.topics[0]) === hex(t);
        expect(v1(payload)).toBe(ev.contractId !== undefined && hex(ev.contractId) === hex(c) && n >= 2 && t0);
        expect(v1Types(payload)).toBe(ev.type !== 2 && n === 1 && t0);
      }
    }
    console.warn(`stellar-core-lcm events: ${JSON.stringify(counts)}`);
    expect(counts.files).toBe(985);
    expect(counts.events).toBeGreaterThan(0);
  });
});
