// Index terms against an oracle that decodes with @stellar/stellar-base and hashes the same bytes. Properties:
// 1. deriveTerms(payload) = [type, contract?, count bucket, topic0..3] computed from the stellar-base decode, each
//    key = XXH3-128([field] ++ value) laid out low-64 LE then high-64 LE (serialized here by a separate loop).
// 2. Keys of the same value bytes at different positions differ (the field byte separates them).
// 3. topicCountAtLeastTermKeys(n) = the bucket keys n..5.
// Golden vectors pin the layout: XXH3-128 of "" is the reference value from the xxHash test suite.
import { xxh3 } from '@node-rs/xxhash';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deriveTerms,
  eventTypeTermKey,
  PAYLOAD_HEADER_LENGTH,
  TERM_FIELD,
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
});
