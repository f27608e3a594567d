// Property tests of the in-memory Soroban state against a Map oracle (LedgerScript in soroban-state-support.ts).
// Over random runs of ledgers — creates, updates, deletes and evictions (dead entry + dead TTL), TTL extensions,
// restores (re-created entries, expired entries whose TTL alone is rewritten), code creates and updates with ext v0
// and v1, ACCOUNT changes, init lists whose TTLs come before their entries, large values, memory-params upgrades:
//   1. after every ledger the state holds exactly the oracle's entries, each with the oracle's TTL (iteration,
//      get / has / liveUntilOf by data key, code key and TTL key);
//   2. the counts and the data size equal the oracle's, and the code size is the sum of the oracle's own
//      memory-cost formula over the code entries under the current params;
//   3. after all ledgers, compaction has kept the arena within a bounded multiple of the live record bytes;
//   4. the keys the oracle does not hold are absent (has, get, liveUntilOf).
// A negative control runs the same comparison on a state fed one ledger less and expects it to fail.
import { propertyParams, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SorobanState } from '../src/soroban-state/soroban-state.js';
import {
  codeKey,
  costParams,
  dataKey,
  expectStateEquals,
  keyHashOf,
  LedgerScript,
  v21MemoryParams,
} from './soroban-state-support.js';

const DATA_IDS = 60;
const CODE_IDS = 8;

function paramsVariant(random: () => number): [bigint, bigint][] {
  const params = v21MemoryParams();
  params[11] = [BigInt(Math.floor(random() * 200_000)), BigInt(Math.floor(random() * 8000))];
  params[23] = [BigInt(Math.floor(random() * 30_000)), BigInt(Math.floor(random() * 9000))];
  params[32] = [0n, BigInt(Math.floor(random() * 600))];
  return params;
}

function run(
  seed: number,
  ledgers: number,
  chunkBytes: number,
  check: (state: SorobanState, script: LedgerScript, params: [bigint, bigint][]) => void,
): void {
  const random = seededRandom(seed);
  const script = new LedgerScript(random, {
    dataIds: DATA_IDS,
    codeIds: CODE_IDS,
    maxChanges: 12,
    largeValueChance: 0.05,
    shuffleInit: true,
  });
  const state = new SorobanState({ ledgerSeq: 1, arenaChunkBytes: chunkBytes });
  let params = v21MemoryParams();
  for (let ledger = 2; ledger < 2 + ledgers; ledger++) {
    if (random() < 0.05) {
      // a memory cost params upgrade: stellar-core reprices every code entry before the ledger's changes
      params = paramsVariant(random);
      state.recomputeContractCodeSizes(costParams(params));
    }
    const changes = script.next(ledger);
    state.apply(changes, { ledgerSeq: ledger, protocolVersion: 23, memCostParams: costParams(params) });
    check(state, script, params);
  }
}

describe('SorobanState against a Map oracle', () => {
  it('holds what the oracle holds after every ledger', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(4096, 1 << 16, 1 << 22),
        (seed, chunkBytes) => {
          let last: { state: SorobanState; script: LedgerScript } | undefined;
          run(seed, 60, chunkBytes, (state, script, params) => {
            expectStateEquals(state, script.oracle, script.codeSize(params));
            last = { state, script };
          });
          const { state, script } = last!;
          for (let n = 0; n < DATA_IDS; n++) {
            const hash = keyHashOf(dataKey(n));
            if (script.oracle.has(Buffer.from(hash).toString('hex'))) continue;
            expect([state.has(dataKey(n)), state.get(dataKey(n)), state.liveUntilOf(hash)]).toEqual([
              false,
              undefined,
              undefined,
            ]);
          }
          for (let n = 0; n < CODE_IDS; n++) {
            if (!script.oracle.has(Buffer.from(keyHashOf(codeKey(n))).toString('hex'))) {
              expect(state.get(codeKey(n))).toBeUndefined();
            }
          }
          // Live record bytes: a 44-byte header (48 for code, with its rent size), the entry, padded to 8. After
          // compaction at most an eighth of the arena is dead (or less than a chunk), plus each store's append chunk.
          let liveRecordBytes = 0;
          for (const hash of script.oracle.keys()) {
            const header = script.codeInputs.has(hash) ? 48 : 44;
            liveRecordBytes += (header + script.oracle.get(hash)!.entry.length + 7) & ~7;
          }
          expect(state.memory().arenaBytes).toBeLessThanOrEqual((8 / 7) * liveRecordBytes + 4 * chunkBytes);
        },
      ),
      propertyParams({ numRuns: 25 }),
    );
  });

  it('negative control: a state one ledger behind the oracle fails the comparison', () => {
    const random = seededRandom(7);
    const script = new LedgerScript(random, {
      dataIds: DATA_IDS,
      codeIds: CODE_IDS,
      maxChanges: 12,
      largeValueChance: 0,
      shuffleInit: true,
    });
    const state = new SorobanState({ ledgerSeq: 1 });
    const params = costParams(v21MemoryParams());
    for (let ledger = 2; ledger < 30; ledger++)
      state.apply(script.next(ledger), { ledgerSeq: ledger, protocolVersion: 23, memCostParams: params });
    // advance the oracle without the state: some ledger of the next few changes something
    for (let ledger = 30; ledger < 35; ledger++) script.next(ledger);
    expect(() => expectStateEquals(state, script.oracle, script.codeSize(v21MemoryParams()))).toThrow();
  });
});
