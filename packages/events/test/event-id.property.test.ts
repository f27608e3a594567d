// Event ids, chunk math and LedgerOffsets against arithmetic oracles. Properties:
// 1. parseEventId(formatEventId(p)) = p, and the id equals sprintf("%019d-%010d", ledger·2^32 + tx·2^12 + op, event).
// 2. String order of ids = numeric (ledger, tx, op, event) order.
// 3. parseEventId rejects every string that is not exactly 19 digits '-' 10 digits within range.
// 4. chunkIdOfLedger / chunkFirstLedger / chunkLastLedger agree with a linear definition; file names follow §3.1.
// 5. LedgerOffsets windows, ledger-of-ordinal and counts equal a linear scan over per-ledger counts.
// 6. LedgerOffsets.decode(encode(x)) = x; truncation, trailing bytes and other versions are rejected.
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunkFirstLedger,
  chunkIdOfLedger,
  chunkLastLedger,
  coldFilePath,
  comparePositions,
  type EventPosition,
  EventsError,
  formatEventId,
  LedgerOffsets,
  parseEventId,
  toid,
} from '../src/index.js';

const positionArb: fc.Arbitrary<EventPosition> = fc.record({
  ledger: fc.oneof(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: 5 })),
  tx: fc.oneof(fc.integer({ min: 0, max: 0xfffff }), fc.constantFrom(0, 1, 0xfffff)),
  op: fc.oneof(fc.integer({ min: 0, max: 0xfff }), fc.constantFrom(0, 0xfff)),
  event: fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 3 })),
});

/** The arithmetic oracle: BigInt maths and zero padding, nothing shared with the implementation. */
function oracleId(p: EventPosition): string {
  const t = BigInt(p.ledger) * 4294967296n + BigInt(p.tx) * 4096n + BigInt(p.op);
  return `${'0'.repeat(19 - t.toString().length)}${t}-${'0'.repeat(10 - String(p.event).length)}${p.event}`;
}

describe('event ids', () => {
  it('1. round trip and arithmetic format', () => {
    fc.assert(
      fc.property(positionArb, (p) => {
        const id = formatEventId(p);
        expect(id).toBe(oracleId(p));
        expect(parseEventId(id)).toEqual(p);
      }),
      propertyParams(),
    );
  });

  it('2. string order = numeric order', () => {
    fc.assert(
      fc.property(positionArb, positionArb, (a, b) => {
        const byString = Math.sign(
          formatEventId(a) < formatEventId(b) ? -1 : formatEventId(a) > formatEventId(b) ? 1 : 0,
        );
        expect(byString).toBe(Math.sign(comparePositions(a, b)));
      }),
      propertyParams({ numRuns: 500 }),
    );
  });

  it('3. strict parse rejects malformed ids', () => {
    const bad = [
      '',
      '5110929477865472-0',
      '0005110929477865472-000000000',
      '0005110929477865472_0000000000',
      '+005110929477865472-0000000000',
      '0005110929477865472-4294967296',
      '9999999999999999999-0000000000', // above int64
      '0005110929477865472-0000000000 ',
    ];
    for (const id of bad) expect(() => parseEventId(id), id).toThrow(EventsError);
    fc.assert(
      fc.property(fc.string(), (s) => {
        if (/^\d{19}-\d{10}$/.test(s)) return;
        expect(() => parseEventId(s)).toThrow(EventsError);
      }),
      propertyParams(),
    );
  });

  it('golden ids from the spec', () => {
    expect(formatEventId({ ledger: 1189981, tx: 1, op: 0, event: 0 })).toBe('0005110929477865472-0000000000');
    expect(formatEventId({ ledger: 1000, tx: 0xfffff, op: 0xfff, event: 0xffffffff })).toBe(
      '0000004299262263295-4294967295',
    );
    expect(toid(1189981, 1, 0)).toBe(5110929477865472n);
  });
});

describe('chunk math', () => {
  it('4. chunks of 10,000 ledgers from ledger 2', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 0xffffffff - 20_000 }), (ledger) => {
        const c = chunkIdOfLedger(ledger);
        expect(chunkFirstLedger(c)).toBeLessThanOrEqual(ledger);
        expect(chunkLastLedger(c)).toBeGreaterThanOrEqual(ledger);
        expect(chunkLastLedger(c) - chunkFirstLedger(c)).toBe(9_999);
        expect(chunkFirstLedger(c + 1)).toBe(chunkLastLedger(c) + 1);
      }),
      propertyParams(),
    );
    expect([chunkFirstLedger(5999), chunkLastLedger(5999)]).toEqual([59_990_002, 60_000_001]);
    expect([chunkFirstLedger(6410), chunkLastLedger(6410)]).toEqual([64_100_002, 64_110_001]);
    expect(chunkIdOfLedger(2)).toBe(0);
    expect(chunkIdOfLedger(10_001)).toBe(0);
    expect(chunkIdOfLedger(10_002)).toBe(1);
    expect(coldFilePath(5999, 'events.pack')).toBe('00005/00005999-events.pack');
    expect(coldFilePath(6410, 'index.hash')).toBe('00006/00006410-index.hash');
    expect(() => chunkIdOfLedger(1)).toThrow(EventsError);
  });
});

const offsetsArb = fc.record({
  chunk: fc.integer({ min: 0, max: 7000 }),
  shift: fc.integer({ min: 0, max: 9_000 }),
  counts: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 2_000_000 })), {
    maxLength: 300,
  }),
});

describe('LedgerOffsets', () => {
  it('5. windows and ledger-of-ordinal = linear scan', () => {
    fc.assert(
      fc.property(offsetsArb, fc.nat(), fc.nat(), ({ chunk, shift, counts }, x, y) => {
        const start = chunkFirstLedger(chunk) + Math.min(shift, 10_000 - counts.length);
        const ofs = LedgerOffsets.fromCounts(start, counts);
        // Linear oracle: the ledger of every ordinal and the first ordinal of every ledger.
        const first: number[] = [];
        let total = 0;
        for (const c of counts) {
          first.push(total);
          total += c;
        }
        expect(ofs.eventCount).toBe(total);
        expect(ofs.counts()).toEqual(counts);
        if (counts.length === 0) return;
        const a = x % counts.length;
        const b = a + (y % (counts.length - a));
        expect(ofs.windowForLedgers(start + a, start + b)).toEqual({ start: first[a], end: first[b]! + counts[b]! });
        if (total > 0) {
          const ord = (x * 7919 + y) % total;
          let ledgerIndex = 0;
          while (first[ledgerIndex]! + counts[ledgerIndex]! <= ord) ledgerIndex++;
          expect(ofs.ledgerOfOrdinal(ord)).toBe(start + ledgerIndex);
        }
        expect(() => ofs.ledgerOfOrdinal(total)).toThrow(EventsError);
      }),
      propertyParams(),
    );
  });

  it('6. encode/decode round trip and strict rejection', () => {
    fc.assert(
      fc.property(offsetsArb, fc.nat(), ({ chunk, counts }, cut) => {
        const ofs = LedgerOffsets.fromCounts(chunkFirstLedger(chunk), counts);
        const bytes = ofs.encode();
        const back = LedgerOffsets.decode(bytes);
        expect(back.startLedger).toBe(ofs.startLedger);
        expect(back.counts()).toEqual(counts);
        expect(() => LedgerOffsets.decode(bytes.subarray(0, cut % bytes.length))).toThrow(EventsError);
        expect(() => LedgerOffsets.decode(Uint8Array.from([...bytes, 0]))).toThrow(EventsError);
        const other = bytes.slice();
        other[0] = 2;
        expect(() => LedgerOffsets.decode(other)).toThrow(/UNKNOWN_VERSION/);
      }),
      propertyParams(),
    );
    // Golden: start 2, counts [0, 1, 300] → 01 | 00000002 | 00000003 | 00 01 ac02.
    expect(hex(LedgerOffsets.fromCounts(2, [0, 1, 300]).encode())).toBe('01000000020000000300' + '01ac02');
    // Offsets never span two chunks.
    expect(() => LedgerOffsets.fromCounts(10_001, [1, 1])).toThrow(EventsError);
  });
});
