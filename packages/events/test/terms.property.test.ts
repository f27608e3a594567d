// Index terms against an oracle that decodes with @stellar/stellar-base and hashes the same bytes. Properties:
// 1. deriveTerms(payload) = [type, contract?, count bucket, topic0..3] computed from the stellar-base decode, each
//    key = XXH3-128([field] ++ value) laid out low-64 LE then high-64 LE (serialized here by a separate loop).
// 2. Keys of the same value bytes at different positions differ (the field byte separates them).
// 3. topicCountAtLeastTermKeys(n) = the bucket keys n..5.
// 4. deriveTermsIntoChecked accepts exactly what decodePayload accepts (intact payloads and corrupted ones: a flipped
//    XDR byte, the value cut short or followed by bytes the header's length covers, a close time outside the safe
//    range), with deriveTerms's keys and decodePayload's error code; deriveTermsInto alone accepts some of the
//    refused ones (the negative control: the property tells the two apart).
// Golden vectors pin the layout: XXH3-128 of "" is the reference value from the xxHash test suite.
import { xxh3 } from '@node-rs/xxhash';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePayload,
  deriveTerms,
  deriveTermsInto,
  deriveTermsIntoChecked,
  EventsError,
  eventTypeTermKey,
  MAX_TERMS_PER_EVENT,
  PAYLOAD_FIELD_OFFSETS,
  PAYLOAD_HEADER_LENGTH,
  TERM_FIELD,
  TERM_KEY_BYTES,
  termKey,
  termKeyHex,
  topicCountAtLeastTermKeys,
  topicCountTermKey,
} from '../src/index.js';
import { oracleDecode, oracleTerms, payloadArb } from './arbitraries.js';

describe('terms', () => {
  it('1. deriveTerms = stellar-base decode + hash', () => {
    fc.assert(
      fc.property(payloadArb, ({ bytes }) => {
        expect(deriveTerms(bytes).map(termKeyHex)).toEqual(
          oracleTerms(oracleDecode(bytes.subarray(PAYLOAD_HEADER_LENGTH))),
        );
      }),
      propertyParams({ numRuns: 300 }),
    );
  });

  it('2. the field byte separates positions', () => {
    const v = Uint8Array.of(0, 0, 0, 15, 0, 0, 0, 1, 0x61, 0, 0, 0);
    const keys = [TERM_FIELD.TOPIC0, TERM_FIELD.TOPIC1, TERM_FIELD.TOPIC2, TERM_FIELD.TOPIC3].map((f) =>
      termKeyHex(termKey(f, v)),
    );
    expect(new Set(keys).size).toBe(4);
  });

  it('3. at-least buckets', () => {
    for (let n = 0; n <= 6; n++) {
      const want: string[] = [];
      for (let b = Math.min(n, 5); b <= 5; b++) want.push(termKeyHex(topicCountTermKey(b)));
      expect(topicCountAtLeastTermKeys(n).map(termKeyHex)).toEqual(want);
    }
    expect(termKeyHex(topicCountTermKey(9))).toBe(termKeyHex(topicCountTermKey(5)));
  });

  it('golden vectors', () => {
    // Reference XXH3-128("") (xxHash sanity tests): 0x99aa06d3014798d86001c324468d497f.
    expect(xxh3.xxh128(new Uint8Array(0)).toString(16)).toBe('99aa06d3014798d86001c324468d497f');
    // The type term of CONTRACT events: XXH3-128(05 00000001), stored low half first, each half little-endian.
    const h = xxh3
      .xxh128(Uint8Array.of(5, 0, 0, 0, 1))
      .toString(16)
      .padStart(32, '0');
    const le = (s: string) => Buffer.from(s, 'hex').reverse().toString('hex');
    expect(termKeyHex(eventTypeTermKey(1))).toBe(le(h.slice(16)) + le(h.slice(0, 16)));
    expect(termKeyHex(eventTypeTermKey(1))).toBe('092967d65ec25b057c6a54e627dec4e6');
  });

  it('4. deriveTermsIntoChecked accepts what decodePayload accepts, with the same keys and error codes', () => {
    const out = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES + 3);
    const outcome = (derive: () => string[]) => {
      try {
        return { keys: derive() };
      } catch (error) {
        if (!(error instanceof EventsError)) throw error;
        return { code: error.code };
      }
    };
    const checked = (bytes: Uint8Array) =>
      outcome(() => {
        const n = deriveTermsIntoChecked(bytes, out, 3);
        return Array.from({ length: n }, (_, i) =>
          termKeyHex(out.subarray(3 + i * TERM_KEY_BYTES, 3 + (i + 1) * TERM_KEY_BYTES)),
        );
      });
    const oracle = (bytes: Uint8Array) =>
      outcome(() => {
        decodePayload(bytes);
        return deriveTerms(bytes).map(termKeyHex);
      });
    /** The payload with its ContractEvent replaced by `xdr` and the header's length set to match. */
    const withXdr = (bytes: Uint8Array, xdr: Uint8Array) => {
      const next = new Uint8Array(PAYLOAD_HEADER_LENGTH + xdr.length);
      next.set(bytes.subarray(0, PAYLOAD_HEADER_LENGTH));
      next.set(xdr, PAYLOAD_HEADER_LENGTH);
      new DataView(next.buffer).setUint32(PAYLOAD_FIELD_OFFSETS.contractEventLength, xdr.length);
      return next;
    };
    const corruptionArb = fc.oneof(
      fc.constant({ kind: 'intact' as const }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bits: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant('cut' as const), bytes: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('extend' as const), tail: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant('closed-at' as const), hi: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }),
    );
    let refusedByCheckedOnly = 0;
    let refused = 0;
    fc.assert(
      fc.property(payloadArb, corruptionArb, ({ bytes }, corruption) => {
        const xdr = bytes.subarray(PAYLOAD_HEADER_LENGTH);
        let subject = bytes;
        if (corruption.kind === 'flip') {
          subject = bytes.slice();
          subject[PAYLOAD_HEADER_LENGTH + (corruption.at % xdr.length)]! ^= corruption.bits;
        } else if (corruption.kind === 'cut') {
          subject = withXdr(bytes, xdr.subarray(0, Math.max(0, xdr.length - corruption.bytes)));
        } else if (corruption.kind === 'extend') {
          subject = withXdr(bytes, Uint8Array.of(...xdr, ...corruption.tail));
        } else if (corruption.kind === 'closed-at') {
          subject = bytes.slice();
          new DataView(subject.buffer).setInt32(PAYLOAD_FIELD_OFFSETS.ledgerClosedAt, corruption.hi);
        }
        const want = oracle(subject);
        expect(checked(subject)).toEqual(want);
        if (want.code !== undefined) {
          refused++;
          if (outcome(() => [String(deriveTermsInto(subject, out, 0))]).code === undefined) refusedByCheckedOnly++;
        }
      }),
      propertyParams({ numRuns: 2_000 }),
    );
    expect(refused).toBeGreaterThan(200);
    expect(refusedByCheckedOnly).toBeGreaterThan(50);
  });
});
