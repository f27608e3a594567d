// The generator as a ledger source (generator-source.ts), in-process. Checks:
// 1. the negative control: the generator's own evictedKeys are refused by @strata/ledger-state (EVICTION_MISMATCH,
//    the known problem), even with verification off;
// 2. with withScannedEvictions each ledger is accepted, well past that point, and only evictedKeys change;
// 3. generatorRecords yields the range asked for, the same bytes on every call.
import { join } from 'node:path';
import {
  extractLedger,
  type LedgerCloseMetaRecord,
  LedgerMetaError,
  SYNTHETIC_NETWORK_PASSPHRASE,
} from '@strata/ledger-meta';
import { LedgerState, LedgerStateError } from '@strata/ledger-state';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  type GeneratorSource,
  generatorGenesis,
  generatorRecords,
  prefetchedGeneratorRecords,
  withScannedEvictions,
} from '../src/generator-source.js';

const SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 3,
  ledgers: 120,
  eventsPerLedger: 20,
  accounts: 50,
  contracts: 3,
};

async function freshState(): Promise<LedgerState> {
  return LedgerState.create(join(tempDir('node-gen'), 'state'), generatorGenesis(SYNTHETIC_NETWORK_PASSPHRASE), {
    verify: false,
    fsync: false,
    merger: 'inline',
  });
}

describe('the generator source', () => {
  it("is refused with the generator's own evictions (the negative control)", async () => {
    const state = await freshState();
    try {
      const error = await rejectionOf(LedgerStateError, async () => {
        for (const record of generatorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE)) await state.apply(record.bytes);
      });
      expect(error.code).toBe('EVICTION_MISMATCH');
    } finally {
      await state.close();
    }
  });

  it('is accepted ledger after ledger with the evictions of the scan', async () => {
    const state = await freshState();
    try {
      let rewritten = 0;
      for (const record of generatorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE)) {
        const bytes = withScannedEvictions(state, record.bytes);
        const before = extractLedger(record.bytes);
        const after = extractLedger(bytes);
        expect(after.header).toEqual(before.header);
        expect(after.events.length).toBe(before.events.length);
        if (after.evictedKeys.length !== before.evictedKeys.length) rewritten++;
        await state.apply(bytes);
      }
      expect(state.ledger).toBe(SOURCE.ledgers + 1);
      expect(rewritten).toBeGreaterThan(0);
    } finally {
      await state.close();
    }
  });

  it('yields the range asked for, the same bytes every time', () => {
    const all = [...generatorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE)];
    expect(all.map((record) => record.ledgerSeq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 2));
    const some = [...generatorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE, { from: 50, to: 60 })];
    expect(some.map((record) => record.ledgerSeq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 50));
    expect(Buffer.from(some[0]?.bytes ?? []).equals(Buffer.from(all[48]?.bytes ?? [1]))).toBe(true);
  });

  it('yields the same records from its worker thread (prefetched), and stops it when the caller returns', async () => {
    const all = [...generatorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE)];
    const prefetched: LedgerCloseMetaRecord[] = [];
    for await (const record of prefetchedGeneratorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE))
      prefetched.push(record);
    expect(prefetched.map((r) => [r.ledgerSeq, r.record])).toEqual(all.map((r) => [r.ledgerSeq, r.record]));
    prefetched.forEach((record, i) => {
      expect(Buffer.from(record.bytes).equals(Buffer.from(all[i]!.bytes))).toBe(true);
    });
    // A range, and a caller that stops early (the worker is ended, the loop does not hang).
    const some: number[] = [];
    for await (const record of prefetchedGeneratorRecords(SOURCE, SYNTHETIC_NETWORK_PASSPHRASE, { from: 50, to: 60 })) {
      some.push(record.ledgerSeq);
      if (some.length === 3) break;
    }
    expect(some).toEqual([50, 51, 52]);
    // A bad option is the generator's own error, before any worker starts.
    const error = await rejectionOf(LedgerMetaError, async () => {
      for await (const _ of prefetchedGeneratorRecords({ ...SOURCE, accounts: -1 }, SYNTHETIC_NETWORK_PASSPHRASE)) {
        // never reached
      }
    });
    expect(error.code).toBe('INVALID_ARGUMENT');
  });
});
