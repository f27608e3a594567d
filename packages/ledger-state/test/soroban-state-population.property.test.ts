// Population of the in-memory Soroban state (SorobanState.populate) against a Map oracle, whatever order its source
// gives the entries in. Population appends the CONTRACT_DATA records and indexes them once at the end, then links
// each TTL to its entry by a merge with the data's key-hash order while the TTLs come in that order (as the
// loser-tree scan gives them: TTL keys are the hashes), and through the index otherwise. Over random sets of data
// entries (among them pairs whose key hashes share their first 32 bits), code entries and TTLs (some entries have
// none; code TTLs wait for their code), given in key order, shuffled, or in sorted runs (as the old newest-first
// bucket scans give them):
//   1. the populated state equals the oracle: every entry with its TTL, the counts, the data and code sizes;
//   2. the order the source gives does not change the state (each order is compared with the same oracle);
//   3. a TTL given twice fails INCONSISTENT_STATE (an entry that has one), whether the copies are neighbours in hash
//      order or not; a data entry given twice fails INCONSISTENT_STATE (created twice); both leave the state CLOSED.
// Negative control: a source that drops one TTL gives a state the comparison rejects.
import { LEDGER_ENTRY_TYPE } from '@strata/ledger-key';
import { propertyParams, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import { type LiveEntrySource, SorobanState } from '../src/soroban-state/soroban-state.js';
import {
  codeEntry,
  codeKey,
  costParams,
  dataEntry,
  dataKey,
  expectStateEquals,
  keyHashOf,
  memoryCostOracle,
  type OracleEntry,
  ttlEntry,
  v21MemoryParams,
} from './soroban-state-support.js';

const PARAMS = v21MemoryParams();
const PARAMS_XDR = costParams(PARAMS);
const { CONTRACT_DATA, CONTRACT_CODE, TTL } = LEDGER_ENTRY_TYPE;
/** Data ids whose key hashes share their first 32 bits, pair by pair (found by search; checked below). */
const SHARED_PREFIX_PAIRS: [number, number][] = [
  [47035, 82405],
  [64309, 112996],
  [14442, 166249],
];

type Order = 'key' | 'shuffled' | 'runs';

interface Population {
  readonly entries: Map<number, Uint8Array[]>;
  readonly oracle: Map<string, OracleEntry>;
  readonly codeSize: number;
}

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const compareBytes = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);

/** A random population: its entries by type in key order (TTLs in hash order), and the oracle of its state. */
function population(random: () => number, dataIds: number[], codeIds: number[]): Population {
  const oracle = new Map<string, OracleEntry>();
  const data: Uint8Array[] = [];
  const code: Uint8Array[] = [];
  const ttls: Uint8Array[] = [];
  let codeSize = 0;
  const add = (key: Uint8Array, entry: Uint8Array, list: Uint8Array[]) => {
    list.push(entry);
    // a few entries have no TTL (stellar-core never holds such a state, but population must count them)
    const withTtl = random() < 0.95;
    const liveUntil = 1000 + Math.floor(random() * 1e6);
    const lastModified = 1 + Math.floor(random() * 900);
    if (withTtl) ttls.push(ttlEntry(key, liveUntil, lastModified));
    oracle.set(hexOf(keyHashOf(key)), {
      entry,
      liveUntil: withTtl ? liveUntil : undefined,
      lastModified: withTtl ? lastModified : undefined,
    });
  };
  for (const n of dataIds) add(dataKey(n), dataEntry(n, 1 + (n % 7), 4 + Math.floor(random() * 40)), data);
  for (const n of codeIds) {
    const length = 16 + Math.floor(random() * 64);
    add(codeKey(n), codeEntry(n, 3, length), code);
    codeSize += codeEntry(n, 3, length).length + Number(memoryCostOracle(PARAMS, { codeLength: length }));
  }
  // key order as the loser tree gives it: data and code by their XDR keys here (any fixed order will do for the
  // state), TTLs by key hash (bytes 8..40 of the entry, after lastModifiedLedgerSeq and the type)
  data.sort(compareBytes);
  code.sort(compareBytes);
  ttls.sort((a, b) => compareBytes(a.subarray(8, 40), b.subarray(8, 40)));
  return {
    entries: new Map([
      [CONTRACT_DATA, data],
      [TTL, ttls],
      [CONTRACT_CODE, code],
    ]),
    oracle,
    codeSize,
  };
}

/** `list` in the given order: as it is, shuffled, or cut into sorted runs given newest run first. */
function ordered(list: readonly Uint8Array[], order: Order, random: () => number): Uint8Array[] {
  if (order === 'key') return [...list];
  if (order === 'shuffled') {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
  // each entry goes to one of four runs; each run keeps the list's order (like one bucket's records)
  const runs: Uint8Array[][] = [[], [], [], []];
  for (const entry of list) runs[Math.floor(random() * runs.length)]!.push(entry);
  return runs.flat();
}

function sourceOf(entries: ReadonlyMap<number, readonly Uint8Array[]>): LiveEntrySource {
  return {
    ledger: 1000,
    scanCurrentLiveEntries: (type, callback) => {
      for (const entry of entries.get(type) ?? []) callback(entry);
    },
  };
}

function populated(entries: ReadonlyMap<number, readonly Uint8Array[]>): SorobanState {
  const state = new SorobanState({ arenaChunkBytes: 4096 });
  state.populate(sourceOf(entries), { protocolVersion: 23, memCostParams: PARAMS_XDR });
  return state;
}

function failureOf(run: () => void): LedgerStateError {
  try {
    run();
  } catch (error) {
    if (error instanceof LedgerStateError) return error;
    throw error;
  }
  throw new Error('expected a LedgerStateError');
}

const ids = fc.uniqueArray(fc.integer({ min: 0, max: 300_000 }), { minLength: 0, maxLength: 120 });

describe('SorobanState.populate whatever order its source gives', () => {
  it('the pairs of data ids share the first 32 bits of their key hashes', () => {
    for (const [a, b] of SHARED_PREFIX_PAIRS) {
      const [x, y] = [keyHashOf(dataKey(a)), keyHashOf(dataKey(b))];
      expect(hexOf(x.subarray(0, 4))).toBe(hexOf(y.subarray(0, 4)));
      expect(hexOf(x)).not.toBe(hexOf(y));
    }
  });

  it('equals the oracle for entries in key order, shuffled, or in sorted runs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        ids,
        fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { maxLength: 8 }),
        fc.subarray(SHARED_PREFIX_PAIRS),
        (seed, dataIds, codeIds, pairs) => {
          const random = seededRandom(seed);
          const withPairs = [...new Set([...dataIds, ...pairs.flat()])];
          const { entries, oracle, codeSize } = population(random, withPairs, codeIds);
          for (const order of ['key', 'shuffled', 'runs'] as const) {
            const given = new Map([...entries].map(([type, list]) => [type, ordered(list, order, random)] as const));
            const state = populated(given);
            expectStateEquals(state, oracle, codeSize);
          }
        },
      ),
      propertyParams({ numRuns: 60 }),
    );
  });

  it('fails INCONSISTENT_STATE on a TTL or a data entry given twice, and is CLOSED afterwards', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        ids.filter((list) => list.length > 0),
        fc.constantFrom<Order>('key', 'shuffled'),
        fc.constantFrom('ttl', 'data'),
        (seed, dataIds, order, repeated) => {
          const random = seededRandom(seed);
          const { entries } = population(random, dataIds, []);
          const type = repeated === 'ttl' ? TTL : CONTRACT_DATA;
          const list = entries.get(type)!;
          if (list.length === 0) return;
          const at = Math.floor(random() * list.length);
          // the copy sits next to the original (in key order) or anywhere (shuffled)
          const given = new Map(entries);
          given.set(type, ordered([...list.slice(0, at + 1), list[at]!, ...list.slice(at + 1)], order, random));
          const state = new SorobanState();
          const error = failureOf(() =>
            state.populate(sourceOf(given), { protocolVersion: 23, memCostParams: PARAMS_XDR }),
          );
          expect(error.code).toBe('INCONSISTENT_STATE');
          expect(error.message).toMatch(repeated === 'ttl' ? /a TTL created for an entry that has one/ : /twice/);
          expect(failureOf(() => state.has(dataKey(dataIds[0]!))).code).toBe('CLOSED');
        },
      ),
      propertyParams({ numRuns: 40 }),
    );
  });

  it('negative control: a source that drops one TTL gives a state the comparison rejects', () => {
    const random = seededRandom(17);
    const { entries, oracle, codeSize } = population(random, [1, 2, 3, 26449, 90408, 500], [4]);
    const withTtl = entries.get(TTL)!;
    const given = new Map(entries);
    given.set(TTL, withTtl.slice(1));
    expect(() => expectStateEquals(populated(given), oracle, codeSize)).toThrow();
    expectStateEquals(populated(entries), oracle, codeSize);
  });
});
