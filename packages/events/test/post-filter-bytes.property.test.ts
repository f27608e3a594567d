// The compiled byte matcher behind compilePostFilter (src/post-filter.ts) against the reference matcher over
// PayloadView (compileReferencePostFilter) and the naive oracle of post-filter.property.test.ts. Properties:
// 1. For random clause lists (many sharing contracts and topic values, so the per-event result tables are reused)
//    and random events, the compiled matcher = the reference, on bytes and on PayloadViews, and one compiled matcher
//    answers a long sequence of events right (its per-event scratch never leaks from one event to the next).
// 2. Events built from a clause's own values (so clauses with every position set do match) agree too.
// 3. A clause value that is not exactly one ScVal never matches, even where it is a byte prefix of the event's
//    topics (two topics concatenated, a topic with trailing bytes, a truncated topic); a contract id of the wrong
//    length never matches.
// 4. Malformed payloads (bad version, short header, wrong XDR length, bad prefix, corrupt topics) throw the same
//    EventsError code as the reference, or return the same answer.
// 5. Negative control: a matcher that compares only a topic's last 4 bytes is caught by property 1.
// 6. Values are compared a word at a time: an event whose contract id or topic differs from the clause's in any one
//    byte (each byte in turn) does not match, the unchanged event does.

import { xdr } from '@stellar/stellar-base';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileReferencePostFilter } from '../src/filter.js';
import {
  compilePostFilter,
  EventsError,
  encodeContractEvent,
  encodePayload,
  type StorageFilter,
  viewPayload,
} from '../src/index.js';
import { compileBytePostFilter } from '../src/post-filter.js';
import { CONTRACTS, type EventParts, payloadArb, storageFilterArb, topicArb } from './arbitraries.js';

const clauseArb = storageFilterArb;

const header = {
  txHash: new Uint8Array(32),
  ledger: 7,
  txIndex: 1,
  opIndex: 0,
  ledgerClosedAt: 1_700_000_000,
  eventIndex: 0,
};

function payloadOf(parts: EventParts): Uint8Array {
  return encodePayload({ ...header, contractEvent: encodeContractEvent(parts) });
}

/** An event made from a clause's own values (wildcards filled from `fill`), so the clause can match it. */
function eventOfClause(clause: StorageFilter, fill: Uint8Array, extraTopics: number, value: Uint8Array): Uint8Array {
  const n = Math.max(clause.topics.length, clause.topicCount.count) + extraTopics;
  const topics = Array.from({ length: n }, (_, p) => clause.topics[p] ?? fill);
  const parts: EventParts = { type: (clause.eventType ?? 1) as 0 | 1 | 2, topics, value };
  if (clause.contractId !== undefined) parts.contractId = clause.contractId;
  return payloadOf(parts);
}

/** What a matcher does with a payload: its answer, or the code of the EventsError it throws. */
function outcome(match: (p: Uint8Array) => boolean, payload: Uint8Array): string {
  try {
    return String(match(payload));
  } catch (error) {
    if (error instanceof EventsError) return `throws ${error.code}`;
    throw error;
  }
}

const symbol = (s: string) => new Uint8Array(xdr.ScVal.scvSymbol(s).toXDR());

describe('compiled post-filter', () => {
  it('1. = the reference on random clauses and events (bytes and views, one matcher for many events)', () => {
    fc.assert(
      fc.property(
        fc.array(clauseArb, { minLength: 1, maxLength: 12 }),
        fc.array(payloadArb, { minLength: 1, maxLength: 60 }),
        (clauses, events) => {
          const fast = compilePostFilter(clauses);
          const reference = compileReferencePostFilter(clauses);
          for (const { bytes } of events) {
            const expected = reference(bytes);
            expect(fast(bytes)).toBe(expected);
            expect(fast(viewPayload(bytes))).toBe(expected);
          }
        },
      ),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('2. = the reference on events built from the clauses’ own values', () => {
    fc.assert(
      fc.property(
        fc.array(clauseArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), topicArb, fc.integer({ min: 0, max: 2 }), topicArb), {
          minLength: 1,
          maxLength: 20,
        }),
        (clauses, picks) => {
          const fast = compilePostFilter(clauses);
          const reference = compileReferencePostFilter(clauses);
          for (const [pick, fill, extra, value] of picks) {
            const payload = eventOfClause(clauses[pick % clauses.length]!, fill, extra, value);
            expect(fast(payload)).toBe(reference(payload));
          }
        },
      ),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('3. a clause value that is not exactly one ScVal, or a contract of the wrong length, never matches', () => {
    const a = symbol('transfer');
    const b = symbol('mint');
    const contract = CONTRACTS[0]!;
    const event = payloadOf({ contractId: contract, type: 1, topics: [a, b], value: b });
    const concat = new Uint8Array([...a, ...b]);
    const truncated = a.subarray(0, a.length - 4);
    const trailing = new Uint8Array([...a, 0, 0, 0, 0]);
    const clause = (topics: (Uint8Array | undefined)[], contractId?: Uint8Array): StorageFilter => ({
      topics,
      topicCount: { count: 0, exact: false },
      ...(contractId === undefined ? {} : { contractId }),
    });
    // Controls: the well-formed clauses match.
    expect(compilePostFilter([clause([a])])(event)).toBe(true);
    expect(compilePostFilter([clause([a, b], contract)])(event)).toBe(true);
    for (const bad of [clause([concat]), clause([truncated]), clause([trailing]), clause([undefined, b, b])]) {
      expect(compilePostFilter([bad])(event)).toBe(false);
      expect(compileReferencePostFilter([bad])(event)).toBe(false);
    }
    const shortContract = clause([a], contract.subarray(0, 31));
    expect(compilePostFilter([shortContract])(event)).toBe(false);
    // A dead clause does not hide a live one after it.
    expect(compilePostFilter([clause([concat]), clause([undefined, b])])(event)).toBe(true);
  });

  it('4. malformed payloads fail as the reference fails', () => {
    fc.assert(
      fc.property(
        fc.array(clauseArb, { minLength: 1, maxLength: 5 }),
        payloadArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -8, max: 8 }),
        (clauses, { bytes }, edits, cut) => {
          const fast = compilePostFilter(clauses);
          const reference = compileReferencePostFilter(clauses);
          const corrupt = bytes.slice();
          // Edits land in the header and the fixed prefix most of the time (offsets 0..120), else anywhere.
          for (const [at, value] of edits) corrupt[at % Math.min(corrupt.length, at % 2 === 0 ? 121 : 1 << 30)] = value;
          const sized =
            cut < 0
              ? corrupt.subarray(0, Math.max(0, corrupt.length + cut))
              : new Uint8Array([...corrupt, ...new Uint8Array(cut)]);
          const mine = outcome(fast, sized);
          const theirs = outcome(reference, sized);
          // The reference walks a constrained topic whole before it compares, so it may report corrupt bytes the
          // compiled matcher never reads (a mismatch found in the topic's first bytes, then maybe a later clause
          // that matches): only then may the two differ.
          if (mine !== theirs) {
            expect(theirs).toBe('throws BAD_XDR');
            expect(['true', 'false']).toContain(mine);
          }
        },
      ),
      propertyParams({ numRuns: 500 }),
    );
  });

  it('5. negative control: comparing only a topic’s last 4 bytes is caught', () => {
    const result = fc.check(
      fc.property(
        fc.array(clauseArb, { minLength: 1, maxLength: 6 }),
        fc.array(payloadArb, { minLength: 1, maxLength: 30 }),
        (clauses, events) => {
          const reference = compileReferencePostFilter(clauses);
          const broken = compileBytePostFilter(clauses, reference, { topicTailOnly: true });
          return events.every(({ bytes }) => broken(bytes) === reference(bytes));
        },
      ),
      propertyParams({ numRuns: 300 }),
    );
    expect(result.failed).toBe(true);
  });

  it('6. a contract id or topic that differs in any one byte does not match', () => {
    const address = new Uint8Array(
      xdr.ScVal.scvAddress(
        xdr.ScAddress.scAddressTypeContract(Buffer.from(CONTRACTS[1]!) as unknown as xdr.Hash),
      ).toXDR(),
    );
    const topics = [symbol('transfer'), address, new Uint8Array(xdr.ScVal.scvString('USDC:GA5Z').toXDR())];
    const contractId = CONTRACTS[0]!;
    const clause: StorageFilter = { contractId, topics, topicCount: { count: 3, exact: true } };
    const match = compilePostFilter([clause]);
    const value = symbol('v');
    expect(match(payloadOf({ type: 1, contractId, topics, value }))).toBe(true);
    for (let i = 0; i < contractId.length; i++) {
      const other = contractId.slice();
      other[i] = other[i]! ^ 0x01;
      expect(match(payloadOf({ type: 1, contractId: other, topics, value })), `contract byte ${i}`).toBe(false);
    }
    topics.forEach((topic, t) => {
      for (let i = 0; i < topic.length; i++) {
        const changed = topic.slice();
        changed[i] = changed[i]! ^ 0x01;
        // a flipped tag or length byte makes the event's XDR malformed or another value: either way, no match
        let answer: boolean | string;
        try {
          answer = match(payloadOf({ type: 1, contractId, topics: topics.with(t, changed), value }));
        } catch (error) {
          answer = error instanceof Error ? error.name : 'thrown';
        }
        expect(answer, `topic ${t} byte ${i}`).not.toBe(true);
      }
    });
  });
});
