// The engine at the top of the ordinal space, where 2^31 (sign) and 2^32 (uint32 overflow) arithmetic breaks: a
// synthetic chunk of 2^32 - 1 events (support/synthetic-reader.ts), a filler event everywhere but a few special
// ordinals around 2^31, the last slab boundary below 2^32 and the last ordinal. Properties, at slab widths 2^16 and
// 2^10, both directions, pages of 1 and 3 and drains:
// 1. Rare terms there (alone, ANDed with another rare term, ORed with a rare type) give the oracle's stream (the
//    post-filter over every ordinal of the window), drained and paged.
// 2. The filler's dense terms and match-all give the oracle's first pages from both window edges.
import {
  type ContractEventType,
  compilePostFilter,
  encodeContractEvent,
  encodePayload,
  type StorageFilter,
} from '@strata/events';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Direction } from '../src/engine/types.js';
import { CONTRACT, CONTRACTS, DATA_VALUE, SYMBOLS, SYSTEM } from './support/corpus.js';
import { DIRECTIONS } from './support/engine-checks.js';
import { type Query, realEngine, runQuery } from './support/run-engine.js';
import { SyntheticReader } from './support/synthetic-reader.js';

const EVENT_COUNT = 2 ** 32 - 1;
const TOP = EVENT_COUNT - 1;
const SIGN = 2 ** 31;
const LAST_BOUNDARY = 2 ** 32 - 2 ** 16;

const payload = (contract: number, type: ContractEventType, topics: number[]) =>
  encodePayload({
    txHash: new Uint8Array(32),
    ledger: 2,
    txIndex: 1,
    opIndex: 0,
    ledgerClosedAt: 0,
    eventIndex: 0,
    contractEvent: encodeContractEvent({
      contractId: CONTRACTS[contract]!,
      type,
      topics: topics.map((t) => SYMBOLS[t]!),
      value: DATA_VALUE,
    }),
  });

/** Contract 2 with two topics on the special ordinals; a system event of contract 1 on some of them. */
const SPECIAL = new Map<number, Uint8Array>([
  ...[SIGN - 2, SIGN - 1, SIGN, SIGN + 1, SIGN + 3 * 2 ** 16 + 5].map(
    (o) => [o, payload(2, CONTRACT, [0, 1])] as const,
  ),
  ...[LAST_BOUNDARY - 1, LAST_BOUNDARY, TOP - 1, TOP].map((o) => [o, payload(2, CONTRACT, [0, 2])] as const),
  ...[SIGN + 7, LAST_BOUNDARY + 9].map((o) => [o, payload(1, SYSTEM, [3])] as const),
]);

let reader: SyntheticReader;

beforeAll(() => {
  reader = new SyntheticReader(EVENT_COUNT, payload(0, CONTRACT, [0]), SPECIAL);
});

const none = { count: 0, exact: false };
const SHAPES: Record<string, readonly StorageFilter[]> = {
  'rare contract': [{ contractId: CONTRACTS[2]!, topics: [], topicCount: none }],
  'rare and topic1 gamma': [{ contractId: CONTRACTS[2]!, topics: [undefined, SYMBOLS[2]!], topicCount: none }],
  'rare or system': [
    { contractId: CONTRACTS[2]!, topics: [], topicCount: { count: 2, exact: true } },
    { eventType: SYSTEM, topics: [], topicCount: none },
  ],
  'filler contract': [{ contractId: CONTRACTS[0]!, topics: [], topicCount: none }],
  'filler count': [{ topics: [], topicCount: { count: 1, exact: true } }],
  'match-all': [],
};

const WINDOWS = [
  { start: SIGN - 100, end: SIGN + 4 * 2 ** 16 },
  { start: LAST_BOUNDARY - 3 * 2 ** 16 - 7, end: EVENT_COUNT },
  { start: LAST_BOUNDARY, end: LAST_BOUNDARY + 1 },
  { start: TOP, end: EVENT_COUNT },
];

/** The post-filter over every ordinal of the window (the filler's verdict computed once), in walk order. */
function oracle(filters: readonly StorageFilter[], window: Query['window'], direction: Direction, limit: number) {
  const postFilter = compilePostFilter(filters);
  const fillerMatches = postFilter(reader.filler);
  const out: number[] = [];
  const step = direction === 'asc' ? 1 : -1;
  for (let o = direction === 'asc' ? window.start : window.end - 1; o >= window.start && o < window.end; o += step) {
    const special = SPECIAL.get(o);
    if (special === undefined ? fillerMatches : postFilter(special)) out.push(o);
    if (out.length === limit) break;
  }
  return out;
}

describe('the top of the ordinal space', () => {
  for (const [name, filters] of Object.entries(SHAPES)) {
    it(name, async () => {
      const dense = compilePostFilter(filters)(reader.filler);
      for (const window of WINDOWS) {
        for (const direction of DIRECTIONS) {
          // Dense shapes only in pages: their drains are billions of events.
          for (const limit of dense ? [1, 3, 700] : [1, 3, undefined]) {
            for (const slabShift of [16, 10]) {
              const query: Query =
                limit === undefined ? { filters, window, direction } : { filters, window, direction, limit };
              const got = await runQuery(realEngine, reader, query, { slabShift });
              const want = oracle(filters, window, direction, limit ?? Number.POSITIVE_INFINITY);
              const label = `${name} [${window.start}, ${window.end}) ${direction} limit ${limit} 2^${slabShift}`;
              expect(
                got.map((m) => m.ordinal),
                label,
              ).toEqual(want);
              for (const m of got) expect(m.payload, label).toBe(reader.payloadOf(m.ordinal));
            }
          }
        }
      }
    });
  }
});
