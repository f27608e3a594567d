// The gec1_ cursor token. Properties:
// 1. decode(encode(x)) = x for every valid envelope.
// 2. encode(decode(t)) = t for every valid token t.
// 3. Mutated tokens (one character changed, inserted or removed; one body byte changed) are either rejected with
//    MALFORMED_CURSOR / UNKNOWN_VERSION, or decode to an envelope that re-encodes to exactly the mutated token.
// Golden: fixed envelopes have fixed tokens (layout checked byte by byte in FORMAT.md).
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCursorV2,
  type EventCursorV2,
  EventsError,
  encodeCursorV2,
  MAX_CURSOR_BYTES,
  type StorageFilter,
} from '../src/index.js';
import { CONTRACTS, topicArb } from './arbitraries.js';

const filterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined }),
    type: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined }),
    topics: fc.array(fc.option(topicArb, { nil: undefined }), { maxLength: 4 }),
    count: fc.oneof(
      fc.constant({ count: 0, exact: false }),
      fc.record({ count: fc.integer({ min: 0, max: 4 }), exact: fc.boolean() }),
    ),
  })
  .map(({ contract, type, topics, count }) => {
    const trimmed = [...topics];
    while (trimmed.length > 0 && trimmed[trimmed.length - 1] === undefined) trimmed.pop();
    const f: StorageFilter = {
      topics: trimmed,
      topicCount: count.count === 0 && !count.exact ? { count: 0, exact: false } : count,
    };
    if (f.topicCount.count === 0 && !f.topicCount.exact) f.topicCount = { count: 0, exact: false };
    if (contract !== undefined) f.contractId = contract;
    if (type !== undefined) f.eventType = type;
    return f;
  });

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const envelopeArb: fc.Arbitrary<EventCursorV2> = fc
  .record({
    minLedger: u32,
    span: fc.option(u32, { nil: undefined }),
    descending: fc.boolean(),
    filters: fc.array(filterArb, { maxLength: 6 }),
    position: fc.option(fc.record({ ledger: u32, tx: u32, op: u32, event: u32, ledgerOrdinal: u32 }), {
      nil: undefined,
    }),
    scannedLedger: u32,
  })
  .map(({ minLedger, span, descending, filters, position, scannedLedger }) => {
    const c: EventCursorV2 = { minLedger, descending, filters, scannedLedger };
    const max = span === undefined ? (descending ? minLedger : undefined) : Math.min(0xffffffff, minLedger + span);
    if (max !== undefined) c.maxLedger = max;
    if (position !== undefined) c.position = position;
    return c;
  });

function normalize(c: EventCursorV2): unknown {
  return JSON.parse(JSON.stringify(c, (_k, v) => (v instanceof Uint8Array ? hex(v) : v)));
}

describe('v2 cursor token', () => {
  it('1. decode(encode(x)) = x', () => {
    fc.assert(
      fc.property(envelopeArb, (c) => {
        const token = encodeCursorV2(c);
        expect(token.startsWith('gec1_')).toBe(true);
        expect(normalize(decodeCursorV2(token))).toEqual(normalize(c));
      }),
      propertyParams(),
    );
  });

  it('2 + 3. re-encoding is byte-identical; mutations are rejected or canonical', () => {
    fc.assert(
      fc.property(
        envelopeArb,
        fc.nat(),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(...'AZaz09_-=+/\n.'),
        (c, at, kind, ch) => {
          const token = encodeCursorV2(c);
          expect(encodeCursorV2(decodeCursorV2(token))).toBe(token);
          const i = at % token.length;
          let mutated: string;
          if (kind === 0) mutated = token.slice(0, i) + ch + token.slice(i + 1);
          else if (kind === 1) mutated = token.slice(0, i) + ch + token.slice(i);
          else if (kind === 2) mutated = token.slice(0, i) + token.slice(i + 1);
          else {
            const body = Buffer.from(token.slice(5), 'base64url');
            if (body.length === 0) return;
            body[at % body.length] = body[at % body.length]! ^ (1 << (at % 8));
            mutated = `gec1_${body.toString('base64url')}`;
          }
          if (mutated === token) return;
          try {
            expect(encodeCursorV2(decodeCursorV2(mutated))).toBe(mutated);
          } catch (error) {
            expect(error).toBeInstanceOf(EventsError);
            expect(['MALFORMED_CURSOR', 'UNKNOWN_VERSION']).toContain((error as EventsError).code);
          }
        },
      ),
      propertyParams({ numRuns: 500 }),
    );
  });

  it('strictness cases', () => {
    const malformed = (t: string) => expect(() => decodeCursorV2(t)).toThrow(/MALFORMED_CURSOR/);
    malformed('');
    malformed('gec_AAAA');
    malformed('gecx_AAAA');
    malformed('xyz1_AAAA');
    malformed('gec1_AAAAAAAAAAAAAA\n');
    malformed(`gec1_${'A'.repeat(MAX_CURSOR_BYTES)}`);
    expect(() => decodeCursorV2('gec2_AAAA')).toThrow(/UNKNOWN_VERSION/);
    // flags=descending without max.
    malformed(`gec1_${Buffer.from([1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]).toString('base64url')}`);
    // reserved flag bit 3.
    malformed(`gec1_${Buffer.from([8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]).toString('base64url')}`);
    // filter: exact without count (0x80), count 0 without exact (0x40, 0), trailing byte.
    const head = [0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1];
    malformed(`gec1_${Buffer.from([...head, 0x80]).toString('base64url')}`);
    malformed(`gec1_${Buffer.from([...head, 0x40, 0]).toString('base64url')}`);
    malformed(`gec1_${Buffer.from([...head.slice(0, -1), 0, 7]).toString('base64url')}`);
    // non-canonical trailing bits: "AAB" decodes like "AAA" in lenient decoders.
    malformed('gec1_AAAAAAAAAAAAAB');
  });

  it('golden token', () => {
    const token = encodeCursorV2({
      minLedger: 2,
      maxLedger: 10,
      descending: true,
      position: { ledger: 9, tx: 1, op: 0, event: 3, ledgerOrdinal: 4 },
      scannedLedger: 0,
      filters: [
        { eventType: 1, topics: [undefined, Uint8Array.of(0, 0, 0, 1)], topicCount: { count: 0, exact: false } },
      ],
    });
    const body = Buffer.from(token.slice(5), 'base64url').toString('hex');
    // flags 07 | min 00000002 | max 0000000a | pos 9,1,0,3,4 | scanned 0 | count 0001 | fflags 0x24 type 01 | topic1 len 4 + 00000001
    expect(body).toBe(
      '07' +
        '00000002' +
        '0000000a' +
        '00000009000000010000000000000003' +
        '00000004' +
        '00000000' +
        '0001' +
        '24' +
        '01' +
        '00000004' +
        '00000001',
    );
  });
});
