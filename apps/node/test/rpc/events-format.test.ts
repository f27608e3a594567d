// EventFormatter (one page's events, with what they share formatted once) against eventInfo, the reference that
// formats every field of every event on its own. Payloads are generated ledgers' events (contract and system
// events, many contracts, ledgers with their own close times), in shuffled orders so the formatter's per-ledger and
// per-contract caches are hit and missed, in both XDR formats and both API versions.

import { encodeContractEvent, encodePayload, formatEventId } from '@strata/events';
import { extractLedger, generateNetwork } from '@strata/ledger-meta';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { eventPayloads } from '../../src/node.js';
import {
  CloseTimeFormatter,
  EventFormatter,
  EventIdFormatter,
  eventInfo,
  formatEventsJson,
  JsonBytes,
  rfc3339,
} from '../../src/rpc/events-format.js';
import { encodeJson, RawJson } from '../../src/rpc/json.js';

function generatedPayloads(): Uint8Array[] {
  const payloads: Uint8Array[] = [];
  for (const generated of generateNetwork({
    seed: 'format',
    ledgers: 60,
    eventsPerLedger: 40,
    contracts: 8,
    accounts: 60,
    record: false,
  })) {
    const extract = extractLedger(generated.lcm);
    payloads.push(...eventPayloads(generated.sequence, extract));
  }
  return payloads;
}

describe('EventFormatter', () => {
  const payloads = generatedPayloads();

  it('has payloads of many ledgers and contracts, system events among them', () => {
    const infos = payloads.map((p) => eventInfo(p, 'base64', false));
    expect(new Set(infos.map((i) => i.ledger)).size).toBeGreaterThan(8);
    expect(new Set(infos.map((i) => i.contractId)).size).toBeGreaterThan(4);
    expect(infos.some((i) => i.type === 'system' || i.contractId === '')).toBe(true);
  });

  for (const [xdrFormat, v1] of [
    ['base64', true],
    ['base64', false],
    ['json', true],
    ['json', false],
  ] as const) {
    it(`formats every event as eventInfo does (${xdrFormat}, ${v1 ? 'v1' : 'v2'}), in page order and shuffled`, () => {
      const random = seededRandom(v1 ? 1 : 2);
      const shuffled = [...payloads];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
      }
      for (const order of [payloads, shuffled, [...payloads].reverse()]) {
        const formatter = new EventFormatter(xdrFormat, v1);
        const mine = order.map((p) => {
          const out = new JsonBytes(16); // grown on the way
          formatter.write(out, p);
          return out.written.toString('utf8');
        });
        const reference = order.map((p) => eventInfo(p, xdrFormat, v1));
        // Same fields in the same order, same values: the same JSON text.
        expect(mine).toEqual(reference.map((r) => JSON.stringify(r)));
        const page = JSON.stringify(reference);
        expect(formatEventsJson(order, xdrFormat, v1).toString('utf8')).toBe(page);
        expect(
          formatEventsJson(
            order.map((payload) => ({ payload })),
            xdrFormat,
            v1,
          ).toString('utf8'),
        ).toBe(page);
      }
    });
  }
});

/** An integer in [min, max] (inclusive), uniform enough for the ranges below. */
const between = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));

describe('formatEventsJson', () => {
  it('names the right contract for thousands of contracts (past the strkey cache, which starts over)', () => {
    const random = seededRandom(15);
    const symbol = Uint8Array.from([0, 0, 0, 15, 0, 0, 0, 1, 97, 0, 0, 0]); // ScVal symbol "a"
    const payloads = Array.from({ length: 9000 }, (_, i) => {
      const contractId = Uint8Array.from({ length: 32 }, () => between(random, 0, 255));
      if (i % 3 === 1) contractId.set([7, 7, 7, 7]); // many hashes sharing their first four bytes
      return encodePayload({
        txHash: new Uint8Array(32).fill(i & 255),
        ledger: 100 + i,
        txIndex: 1,
        opIndex: 0,
        ledgerClosedAt: 1_700_000_000 + i * 5,
        eventIndex: i,
        contractEvent: encodeContractEvent({ contractId, type: 1, topics: [symbol], value: symbol }),
      });
    });
    const page = [...payloads, ...payloads.slice(0, 500)];
    const reference = JSON.stringify(page.map((p) => eventInfo(p, 'base64', true)));
    expect(formatEventsJson(page, 'base64', true).toString('utf8')).toBe(reference);
    expect(formatEventsJson(page, 'base64', true).toString('utf8')).toBe(reference);
  });
});

describe('CloseTimeFormatter', () => {
  it('formats every time as rfc3339 does, across days, years and the range ends', () => {
    const random = seededRandom(11);
    const edges = [0, 86_399, 86_400, 951_782_400, 1_700_000_000, 253_402_300_799, 253_402_300_800, -1, -86_401];
    const ranges: [number, number][] = [
      [0, 253_402_300_799], // through 9999-12-31T23:59:59Z
      [-10_000_000_000, 0],
      [253_402_300_000, 253_402_400_000], // around year 10000
      [1_600_000_000, 1_800_000_000],
    ];
    for (let run = 0; run < 400; run++) {
      const formatter = new CloseTimeFormatter();
      const [min, max] = ranges[run % ranges.length]!;
      const starts = [edges[run % edges.length]!, between(random, min, max)];
      // nearby times (the cached day) and far ones (a new day)
      for (const t of starts.flatMap((t) => [t, t + 1, t + 59, t + 3600, t - 7200])) {
        expect(formatter.format(t)).toBe(rfc3339(t));
      }
    }
  });

  it('is caught by a wrong time of day (negative control)', () => {
    const formatter = new CloseTimeFormatter();
    expect(formatter.format(1_700_000_000)).toBe('2023-11-14T22:13:20Z');
    expect(formatter.format(1_700_000_000 + 1)).not.toBe(rfc3339(1_700_000_000));
  });
});

describe('EventIdFormatter', () => {
  it('formats every position as formatEventId does (ledgers up to int32, every tx, op and event)', () => {
    const random = seededRandom(12);
    const pick = (edges: number[], max: number) =>
      random() < 0.2 ? edges[between(random, 0, edges.length - 1)]! : between(random, 0, max);
    for (let run = 0; run < 300; run++) {
      const formatter = new EventIdFormatter();
      for (let i = 0; i < 10; i++) {
        const p = {
          ledger: pick([0, 1, 232_830, 232_831, 0x7fffffff], 0x7fffffff),
          tx: pick([0, 1, 0xfffff], 0xfffff),
          op: pick([0, 0xfff], 0xfff),
          event: pick([0, 0xffffffff], 0xffffffff),
        };
        expect(formatter.format(p.ledger, p.tx, p.op, p.event)).toBe(formatEventId(p));
        // the same ledger again: its cached base
        const q = { ...p, tx: p.op, op: p.tx & 0xfff };
        expect(formatter.format(q.ledger, q.tx, q.op, q.event)).toBe(formatEventId(q));
      }
    }
  });

  it('refuses what formatEventId refuses', () => {
    const formatter = new EventIdFormatter();
    expect(() => formatter.format(0x80000000, 0, 0, 0)).toThrow(/out of range/);
    expect(() => formatter.format(5, 0x100000, 0, 0)).toThrow(/out of range/);
    expect(() => formatter.format(5, 0, 0x1000, 0)).toThrow(/out of range/);
  });
});

/** A random JSON value of nested arrays and objects (keys that need escaping among them), `depth` levels deep. */
function randomJson(random: () => number, depth: number): unknown {
  const kind = between(random, 0, depth === 0 ? 3 : 5);
  if (kind === 0) return between(random, -1e6, 1e6) / (random() < 0.5 ? 1 : 7);
  if (kind === 1) return ['', 'a', 'quote " and \\ back', 'line\nfeed', '\u2028', 'é'][between(random, 0, 5)];
  if (kind === 2) return random() < 0.5;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: between(random, 0, 4) }, () => randomJson(random, depth - 1));
  const out: Record<string, unknown> = {};
  for (let i = between(random, 0, 4); i > 0; i--)
    out[['k', 'a"b', '\\', '1', 'é'][between(random, 0, 4)]!] = randomJson(random, depth - 1);
  return out;
}

describe('encodeJson', () => {
  it('writes what JSON.stringify writes, with RawJson text spliced in', () => {
    const random = seededRandom(13);
    for (let run = 0; run < 500; run++) {
      const outer = randomJson(random, 3);
      const inner = randomJson(random, 3);
      const batch = random() < 0.5;
      const reply = {
        jsonrpc: '2.0',
        id: 7,
        skipped: undefined,
        result: { events: new RawJson(Buffer.from(JSON.stringify(inner))), other: outer },
      };
      const plain = { jsonrpc: '2.0', id: 7, result: { events: inner, other: outer } };
      expect(encodeJson(batch ? [reply, undefined, plain] : reply).toString('utf8')).toBe(
        JSON.stringify(batch ? [plain, null, plain] : plain),
      );
      expect(encodeJson(outer).toString('utf8')).toBe(JSON.stringify(outer));
    }
  });
});

describe('JsonBytes', () => {
  it('encodes integers, base64 and hex as Node does, growing as it goes', () => {
    const random = seededRandom(14);
    for (let run = 0; run < 300; run++) {
      const out = new JsonBytes(1);
      const source = Buffer.from(Array.from({ length: between(random, 0, 70) }, () => between(random, 0, 255)));
      const start = between(random, 0, source.length);
      const end = between(random, start, source.length);
      const value = random() < 0.3 ? between(random, 0, 9) : Math.floor(random() * 2 ** 53);
      const width = between(random, 1, 20);
      out.base64(source, start, end);
      out.byte(32);
      out.hex(source, start, end);
      out.byte(32);
      out.digits(value, width);
      out.text(' é');
      const part = source.subarray(start, end);
      const expected = `${part.toString('base64')} ${part.toString('hex')} ${String(value).padStart(width, '0')} é`;
      expect(out.written.toString('utf8')).toBe(expected);
    }
  });
});
