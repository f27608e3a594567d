// EventFormatter (one page's events, with what they share formatted once) against eventInfo, the reference that
// formats every field of every event on its own. Payloads are generated ledgers' events (contract and system
// events, many contracts, ledgers with their own close times), in shuffled orders so the formatter's per-ledger and
// per-contract caches are hit and missed, in both XDR formats and both API versions.
import { extractLedger, generateNetwork } from '@strata/ledger-meta';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { eventPayloads } from '../../src/node.js';
import { EventFormatter, eventInfo } from '../../src/rpc/events-format.js';

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
        const mine = order.map((p) => formatter.format(p));
        const reference = order.map((p) => eventInfo(p, xdrFormat, v1));
        // Same fields in the same order (JSON text), same values.
        expect(mine.map((m) => JSON.stringify(m))).toEqual(reference.map((r) => JSON.stringify(r)));
      }
    });
  }
});
