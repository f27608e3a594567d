// Population of the in-memory Soroban state from a real BucketList (InMemorySorobanState::
// initializeStateFromSnapshot): random ledgers are written both into a BucketManager (temp dir, inline merges) and
// into a state kept ledger by ledger; after enough ledgers that keys have versions on several levels (updates,
// deletes, re-creations, TTL-only rewrites), a state populated from the snapshot must equal the maintained one —
// every entry, its TTL, counts, sizes — with no TTL left waiting (code TTLs are scanned before their code). Negative
// controls: a population without the TTL pass, and one that stops a ledger early, must fail the comparison.
import { BucketManager } from '@strata/bucket-list';
import { LEDGER_ENTRY_TYPE } from '@strata/ledger-key';
import { seededRandom, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import { type LiveEntrySource, SorobanState } from '../src/soroban-state/soroban-state.js';
import {
  costParams,
  dataKey,
  expectStatesEqual,
  LedgerScript,
  ttlEntry,
  v21MemoryParams,
} from './soroban-state-support.js';

const PARAMS = costParams(v21MemoryParams());
const PROTOCOL = 23;

/** Writes `ledgers` random ledgers into a fresh list and a maintained state; returns both (the list still open). */
async function build(seed: number, ledgers: number) {
  const manager = await BucketManager.open(tempDir('soroban-population'), {
    create: true,
    merger: 'inline',
    fsync: false,
  });
  const script = new LedgerScript(seededRandom(seed), {
    dataIds: 150,
    codeIds: 10,
    maxChanges: 10,
    largeValueChance: 0.02,
    shuffleInit: false,
  });
  const maintained = new SorobanState();
  for (let ledger = 1; ledger <= ledgers; ledger++) {
    const changes = script.next(ledger);
    await manager.addLedger(ledger, PROTOCOL, changes);
    maintained.apply(changes, { ledgerSeq: ledger, protocolVersion: PROTOCOL, memCostParams: PARAMS });
  }
  return { manager, maintained, script };
}

/** How many live buckets hold CONTRACT_DATA records, and how many such records (every version) they hold. */
function dataRecords(manager: BucketManager): { slots: number; records: number } {
  const view = manager.snapshot();
  try {
    let slots = 0;
    let total = 0;
    for (let slot = 0; slot < view.live.length; slot++) {
      let records = 0;
      view.scanBucketType(slot, LEDGER_ENTRY_TYPE.CONTRACT_DATA, () => {
        records++;
      });
      if (records > 0) slots++;
      total += records;
    }
    return { slots, records: total };
  } finally {
    view.release();
  }
}

describe('SorobanState.populate from a BucketList', () => {
  for (const seed of [1, 2, 3]) {
    it(`equals the state kept ledger by ledger (seed ${seed})`, async () => {
      const { manager, maintained } = await build(seed, 300);
      try {
        // keys have versions spread over several buckets: more records than live entries
        const { slots, records } = dataRecords(manager);
        expect(slots).toBeGreaterThanOrEqual(4);
        expect(records).toBeGreaterThan(1.5 * maintained.dataCount);
        const view = manager.snapshot();
        try {
          const populated = new SorobanState();
          const report = populated.populate(view, { protocolVersion: PROTOCOL, memCostParams: PARAMS });
          expect([report.data, report.code]).toEqual([maintained.dataCount, maintained.codeCount]);
          expect(maintained.dataCount).toBeGreaterThan(40);
          expect(maintained.codeCount).toBeGreaterThan(2);
          expect(populated.entriesWithoutTtl).toBe(0); // every waiting code TTL was adopted
          expect(populated.ledgerSeq).toBe(300);
          expectStatesEqual(populated, maintained);

          // the old scan (newest-first raw scans + seen-key set) gives the same state, in another order
          const baseline: LiveEntrySource = {
            ledger: view.ledger,
            scanCurrentLiveEntries: (type, callback) => view.scanCurrentLiveEntriesBaseline(type, callback),
          };
          const fromBaseline = new SorobanState();
          fromBaseline.populate(baseline, { protocolVersion: PROTOCOL, memCostParams: PARAMS });
          expectStatesEqual(fromBaseline, maintained);
        } finally {
          view.release();
        }
      } finally {
        await manager.close();
      }
    });
  }

  it('negative controls: without the TTL pass, or a ledger early, the comparison fails', async () => {
    const { manager, maintained, script } = await build(4, 120);
    try {
      const view = manager.snapshot();
      try {
        const skipTtl: LiveEntrySource = {
          ledger: view.ledger,
          scanCurrentLiveEntries: (type, callback) => {
            if (type !== LEDGER_ENTRY_TYPE.TTL) view.scanCurrentLiveEntries(type, callback);
          },
        };
        const withoutTtls = new SorobanState();
        withoutTtls.populate(skipTtl, { protocolVersion: PROTOCOL, memCostParams: PARAMS });
        expect(withoutTtls.entriesWithoutTtl).toBeGreaterThan(0);
        expect(() => expectStatesEqual(withoutTtls, maintained)).toThrow();
      } finally {
        view.release();
      }
      // close ledgers until one changes Soroban entries (the script also writes ACCOUNT-only and empty ledgers),
      // keeping the snapshot from just before it
      const soroban = (entry: Uint8Array) =>
        [6, 7, 9].includes(new DataView(entry.buffer, entry.byteOffset).getUint32(4));
      let before: ReturnType<BucketManager['snapshot']> | undefined;
      for (let ledger = 121; before === undefined; ledger++) {
        const changes = script.next(ledger);
        if ([...changes.init, ...changes.live].some(soroban)) before = manager.snapshot();
        await manager.addLedger(ledger, PROTOCOL, changes);
        maintained.apply(changes, { ledgerSeq: ledger, protocolVersion: PROTOCOL, memCostParams: PARAMS });
      }
      try {
        const early = new SorobanState();
        early.populate(before, { protocolVersion: PROTOCOL, memCostParams: PARAMS });
        expect(() => expectStatesEqual(early, maintained)).toThrow();
      } finally {
        before.release();
      }
    } finally {
      await manager.close();
    }
  });

  it('fails when the BucketList holds a TTL without its entry (stellar-core asserts)', async () => {
    const manager = await BucketManager.open(tempDir('soroban-orphan'), {
      create: true,
      merger: 'inline',
      fsync: false,
    });
    try {
      await manager.addLedger(1, PROTOCOL, { init: [ttlEntry(dataKey(1), 50, 1)], live: [], dead: [] });
      const view = manager.snapshot();
      try {
        const state = new SorobanState();
        let error: unknown;
        try {
          state.populate(view, { protocolVersion: PROTOCOL, memCostParams: PARAMS });
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(LedgerStateError);
        expect((error as LedgerStateError).code).toBe('INCONSISTENT_STATE');
        expect((error as LedgerStateError).message).toMatch(/1 TTL entry without/);
      } finally {
        view.release();
      }
    } finally {
      await manager.close();
    }
  });
});
