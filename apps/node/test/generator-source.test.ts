// The generator as a ledger source (generator-source.ts), in-process. Checks:
// 1. generatorRecords yields the range asked for, the same bytes on every call;
// 2. prefetchedGeneratorRecords yields the same records from its worker thread.
// (The eviction rewrite, withScannedEvictions, is @strata/ledger-state's and tested there.)
import { type LedgerCloseMetaRecord, LedgerMetaError, SYNTHETIC_NETWORK_PASSPHRASE } from '@strata/ledger-meta';
import { rejectionOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type GeneratorSource, generatorRecords, prefetchedGeneratorRecords } from '../src/generator-source.js';

const SOURCE: GeneratorSource = {
  kind: 'generator',
  seed: 3,
  ledgers: 120,
  eventsPerLedger: 20,
  accounts: 50,
  contracts: 3,
};

describe('the generator source', () => {
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
