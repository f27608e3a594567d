// Stored payload and its views against @stellar/stellar-base. Properties:
// 1. decodePayload(encodePayload(p)) returns every header field and the exact ContractEvent bytes.
// 2. encodeContractEvent equals stellar-base's own encoding of the same event.
// 3. PayloadView (type, contract id, topic count, topic i, value) equals the stellar-base decode.
// 4. Any other version byte is UNKNOWN_VERSION at offset 0; any length change is TRUNCATED or LENGTH_MISMATCH with
//    the offset of the problem; any single changed byte inside the XDR either throws EventsError (never another
//    error type) or decodes to a valid event: stellar-base decodes the ContractEvent and re-encodes exactly its
//    bytes, and encodePayload of the decode gives back the changed payload.
// 5. encodeLedgerPayloads(ledger, closedAt, events) = encodePayload of each event, byte for byte, each payload a view
//    of one buffer; a bad event i is refused with field events[i].<name> and nothing returned.
// Negative control: 4c run against a decoder that reads the header and accepts any XDR must find a counterexample
// (before, 4c only looked at what was thrown, so a decoder accepting garbage passed it).
import { errorOf, hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePayload,
  type EventPayload,
  EventsError,
  encodeContractEvent,
  encodeLedgerPayloads,
  encodePayload,
  PAYLOAD_HEADER_LENGTH,
  viewPayload,
} from '../src/index.js';
import { eventPartsArb, oracleDecode, oracleEncode, oracleReencode, payloadArb } from './arbitraries.js';

/**
 * Property 4c for `decode`: a payload with one byte of its ContractEvent XDR changed either is refused with an
 * EventsError or decodes to a valid event (stellar-base agrees on its bytes, and it encodes back to the input).
 */
function changedByteProperty(decode: (bytes: Uint8Array) => EventPayload) {
  return fc.property(payloadArb, fc.nat(), fc.integer({ min: 1, max: 255 }), ({ bytes }, at, delta) => {
    const bad = bytes.slice();
    const i = PAYLOAD_HEADER_LENGTH + (at % (bytes.length - PAYLOAD_HEADER_LENGTH));
    bad[i] = (bad[i]! + delta) & 0xff;
    let decoded: EventPayload;
    try {
      decoded = decode(bad);
    } catch (error) {
      expect(error).toBeInstanceOf(EventsError);
      return;
    }
    expect(hex(oracleReencode(decoded.contractEvent)), 'stellar-base re-encodes the accepted event').toBe(
      hex(decoded.contractEvent),
    );
    expect(hex(encodePayload(decoded)), 'the decode encodes back to the payload').toBe(hex(bad));
  });
}

/** A decoder that reads the header fields and accepts any ContractEvent bytes: what 4c must catch. */
function decodeHeaderOnly(bytes: Uint8Array): EventPayload {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    txHash: bytes.subarray(1, 33),
    ledger: view.getUint32(33),
    txIndex: view.getUint32(37),
    opIndex: view.getUint32(41),
    ledgerClosedAt: Number(view.getBigInt64(45)),
    eventIndex: view.getUint32(53),
    contractEvent: bytes.subarray(PAYLOAD_HEADER_LENGTH),
  };
}

describe('payload', () => {
  it('1. round trip', () => {
    fc.assert(
      fc.property(payloadArb, ({ fields, parts, bytes }) => {
        const d = decodePayload(bytes);
        expect({ ...d, txHash: hex(d.txHash), contractEvent: hex(d.contractEvent) }).toEqual({
          ...fields,
          txHash: hex(fields.txHash),
          contractEvent: hex(encodeContractEvent(parts)),
        });
      }),
      propertyParams(),
    );
  });

  it('2. encodeContractEvent == stellar-base encoding', () => {
    fc.assert(
      fc.property(eventPartsArb, (parts) => {
        expect(hex(encodeContractEvent(parts))).toBe(hex(oracleEncode(parts)));
      }),
      propertyParams(),
    );
  });

  it('3. views == stellar-base decode', () => {
    fc.assert(
      fc.property(payloadArb, ({ fields, bytes }) => {
        const view = viewPayload(bytes);
        expect(view.ledgerClosedAt).toBe(fields.ledgerClosedAt);
        expect(hex(bytes.subarray(view.txHashOffset, view.txHashOffset + 32))).toBe(hex(fields.txHash));
        const oracle = oracleDecode(bytes.subarray(PAYLOAD_HEADER_LENGTH));
        expect(view.type).toBe(oracle.type);
        expect(view.contractId && hex(view.contractId)).toBe(oracle.contractId && hex(oracle.contractId));
        expect(view.topicCount).toBe(oracle.topics.length);
        // Random access order: later topics first, to exercise the cached walk.
        for (let i = oracle.topics.length - 1; i >= 0; i--) expect(hex(view.topic(i)!)).toBe(hex(oracle.topics[i]!));
        expect(view.topic(oracle.topics.length)).toBeUndefined();
        expect(hex(view.value())).toBe(hex(oracle.value));
        // The parts in place: [partOffset(i), partOffset(i + 1)) is topic i, then the value, ending the payload.
        const parts = [...oracle.topics, oracle.value];
        for (let i = parts.length - 1; i >= 0; i--) {
          expect(hex(bytes.subarray(view.partOffset(i), view.partOffset(i + 1)))).toBe(hex(parts[i]!));
        }
        expect(view.partOffset(parts.length)).toBe(bytes.length);
        expect(() => view.partOffset(parts.length + 1)).toThrow(/part index/);
        expect(() => view.partOffset(-1)).toThrow(/part index/);
        const contractAt = view.contractIdOffset;
        expect(contractAt < 0 ? undefined : hex(bytes.subarray(contractAt, contractAt + 32))).toBe(
          oracle.contractId && hex(oracle.contractId),
        );
      }),
      propertyParams(),
    );
  });

  it('4a. unknown version → UNKNOWN_VERSION at offset 0', () => {
    fc.assert(
      fc.property(
        payloadArb,
        fc.integer({ min: 0, max: 255 }).filter((v) => v !== 1),
        ({ bytes }, version) => {
          const bad = bytes.slice();
          bad[0] = version;
          const error = errorOf(EventsError, () => decodePayload(bad));
          expect(error.code).toBe('UNKNOWN_VERSION');
          expect(error.offset).toBe(0);
        },
      ),
      propertyParams(),
    );
  });

  it('4b. length mismatch and truncation carry the offset', () => {
    fc.assert(
      fc.property(payloadArb, fc.integer({ min: 1, max: 8 }), ({ bytes }, extra) => {
        const longer = new Uint8Array(bytes.length + extra);
        longer.set(bytes);
        const e1 = errorOf(EventsError, () => decodePayload(longer));
        expect(e1.code).toBe('LENGTH_MISMATCH');
        expect(e1.offset).toBe(bytes.length);
        const shorter = bytes.subarray(0, bytes.length - Math.min(extra, bytes.length - PAYLOAD_HEADER_LENGTH));
        const e2 = errorOf(EventsError, () => decodePayload(shorter));
        expect(e2.code).toBe('TRUNCATED');
        expect(e2.offset).toBe(57);
        expect(errorOf(EventsError, () => decodePayload(bytes.subarray(0, 30))).code).toBe('TRUNCATED');
      }),
      propertyParams(),
    );
  });

  it('4c. a changed XDR byte is refused with EventsError or decodes to a valid event', () => {
    fc.assert(changedByteProperty(decodePayload), propertyParams({ numRuns: 300 }));
  });

  it('4c. negative control: a decoder that accepts any XDR after the header is caught', () => {
    // A fixed seed and run count (not propertyParams): the control must not depend on STRATA_FC_RUNS.
    expect(() => fc.assert(changedByteProperty(decodeHeaderOnly), { seed: 16, numRuns: 300 })).toThrow(
      /Property failed/,
    );
  });

  it('golden: a fixed payload has the fixed bytes', () => {
    const contractEvent = encodeContractEvent({ type: 1, topics: [], value: Uint8Array.of(0, 0, 0, 1) });
    const bytes = decodePayload(
      Uint8Array.from([
        1,
        ...new Array(32).fill(0xab),
        0,
        0,
        0,
        5,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        2,
        0,
        0,
        0,
        0,
        0x66,
        0x2a,
        0x99,
        0x9e,
        0,
        0,
        0,
        3,
        0,
        0,
        0,
        contractEvent.length,
        ...contractEvent,
      ]),
    );
    expect({ ...bytes, txHash: hex(bytes.txHash), contractEvent: hex(bytes.contractEvent) }).toEqual({
      txHash: 'ab'.repeat(32),
      ledger: 5,
      txIndex: 1,
      opIndex: 2,
      ledgerClosedAt: 0x662a999e,
      eventIndex: 3,
      // ext 0, no contract, type CONTRACT, body v0, 0 topics, value SCV_VOID.
      contractEvent: '00000000' + '00000000' + '00000001' + '00000000' + '00000000' + '00000001',
    });
  });

  it('5. encodeLedgerPayloads = encodePayload of each event, in one buffer', () => {
    const eventArb = payloadArb.map(({ fields, bytes }) => ({
      txHash: fields.txHash,
      tx: fields.txIndex,
      op: fields.opIndex,
      eventIndex: fields.eventIndex,
      xdr: bytes.subarray(PAYLOAD_HEADER_LENGTH),
    }));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.maxSafeInteger(),
        fc.array(eventArb, { maxLength: 12 }),
        (ledger, closedAt, events) => {
          const payloads = encodeLedgerPayloads(ledger, closedAt, events);
          expect(payloads.map(hex)).toEqual(
            events.map((e) =>
              hex(
                encodePayload({
                  txHash: e.txHash,
                  ledger,
                  txIndex: e.tx,
                  opIndex: e.op,
                  ledgerClosedAt: closedAt,
                  eventIndex: e.eventIndex,
                  contractEvent: e.xdr,
                }),
              ),
            ),
          );
          expect(new Set(payloads.map((p) => p.buffer)).size).toBeLessThanOrEqual(1);
          if (events.length === 0) return;
          // One event's XDR cut short: refused, naming that event.
          const bad = events.length - 1;
          const broken = events.map((e, i) => (i === bad ? { ...e, xdr: e.xdr.subarray(0, e.xdr.length - 1) } : e));
          const error = errorOf(EventsError, () => encodeLedgerPayloads(ledger, closedAt, broken));
          expect(error.code).toBe('BAD_XDR');
          expect(error.field).toBe(`events[${bad}].xdr`);
        },
      ),
      propertyParams({ numRuns: 200 }),
    );
  });
});
