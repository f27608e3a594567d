// Event ids have one implementation, @strata/events' (formatEventId, toid); ledger-meta's extractor keeps only a
// per-ledger cache of TOID text (LedgerToidFormatter) and the generator calls formatEventId. Properties:
// 1. LedgerToidFormatter(ledger).format(tx, op) is toid(ledger, tx, op) as 19 digits for every ledger an id can hold
//    (0 to MAX_LEDGER, tx and op over their masks), and the bigint TOID above it (uint32 ledgers the extractor reads).
// 2. The ids the extractor and the generator give each event are formatEventId of its coordinates, and
//    parseEventId gives the coordinates back (one id per event, whichever side formatted it).
// 3. ledger-meta no longer exports id formatters of its own (eventId, toidString): callers use @strata/events.
import { formatEventId, LedgerToidFormatter, MAX_LEDGER, OP_MASK, parseEventId, TX_MASK, toid } from '@strata/events';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as ledgerMeta from '../src/index.js';
import { extractLedger, generateNetwork } from '../src/index.js';

const digits = (value: bigint) => value.toString().padStart(19, '0');

describe('event ids', () => {
  it('(1) LedgerToidFormatter agrees with @strata/events toid, and with the bigint TOID past MAX_LEDGER', () => {
    expect(new LedgerToidFormatter(1_189_981).format(1, 0)).toBe('0005110929477865472');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          fc.constantFrom(0, 1, MAX_LEDGER, MAX_LEDGER + 1, 2 ** 32 - 1),
        ),
        fc.oneof(fc.integer({ min: 0, max: TX_MASK }), fc.constantFrom(0, TX_MASK)),
        fc.oneof(fc.integer({ min: 0, max: OP_MASK }), fc.constantFrom(0, OP_MASK)),
        (ledger, tx, op) => {
          const text = new LedgerToidFormatter(ledger).format(tx, op);
          if (ledger <= MAX_LEDGER) expect(text).toBe(digits(toid(ledger, tx, op)));
          // No valid id holds these ledgers (an int64 TOID), but the extractor formats what a uint32 header says.
          else expect(text).toBe(digits((BigInt(ledger) << 32n) | BigInt(tx * 4096 + op)));
        },
      ),
      propertyParams({ numRuns: 20_000 }),
    );
  });

  it('(2) extracted and generated events carry formatEventId of their coordinates', () => {
    let events = 0;
    const network = { seed: 'ids', ledgers: 12, eventsPerLedger: 40, accounts: 60, contracts: 5, startLedger: 900 };
    for (const ledger of generateNetwork(network)) {
      const extracted = extractLedger(ledger.lcm).events;
      expect(extracted.map((event) => event.id)).toEqual(ledger.events.map((event) => event.id));
      for (const event of extracted) {
        const position = { ledger: event.ledger, tx: event.tx, op: event.op, event: event.eventIndex };
        expect(event.id).toBe(formatEventId(position));
        expect(parseEventId(event.id)).toEqual(position);
        events++;
      }
    }
    expect(events).toBeGreaterThan(300);
  });

  it('(3) ledger-meta exports no id formatter of its own', () => {
    expect(Object.keys(ledgerMeta)).not.toContain('eventId');
    expect(Object.keys(ledgerMeta)).not.toContain('toidString');
  });
});
