// withScannedEvictions (src/eviction/scanned-evictions.ts): generated ledgers, whose own evictions LedgerState
// refuses (EVICTION_MISMATCH, the negative control), apply one after another once rewritten, with the extract passed
// in or parsed here giving the same bytes.
import { join } from 'node:path';
import { extractLedger, generateNetwork, SYNTHETIC_NETWORK_PASSPHRASE } from '@strata/ledger-meta';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { genesisEntries, LedgerState, LedgerStateError, withScannedEvictions } from '../src/index.js';

const GENERATED = { seed: 3, ledgers: 120, eventsPerLedger: 20, accounts: 50, contracts: 3, record: false } as const;

function freshState(): Promise<LedgerState> {
  const networkPassphrase = SYNTHETIC_NETWORK_PASSPHRASE;
  const entries = genesisEntries({
    networkPassphrase,
    protocolVersion: 23,
    config: { evictionParams: { scanSize: 64_000, maxEntriesToArchive: 1_000, startingScanLevel: 1 } },
  });
  return LedgerState.create(
    join(tempDir('scanned-evictions'), 'state'),
    { networkPassphrase, protocolVersion: 23, entries },
    {
      verify: false,
      fsync: false,
      merger: 'inline',
    },
  );
}

const ledgers = () => generateNetwork({ ...GENERATED, startLedger: 2, protocolVersion: 23 });

describe('withScannedEvictions', () => {
  it("is needed: the generator's own evictions are refused", async () => {
    const state = await freshState();
    try {
      const error = await rejectionOf(LedgerStateError, async () => {
        for (const generated of ledgers()) await state.apply(generated.lcm);
      });
      expect(error.code).toBe('EVICTION_MISMATCH');
    } finally {
      await state.close();
    }
  });

  it('makes every ledger acceptable, changing only evictedKeys', async () => {
    const state = await freshState();
    try {
      let rewritten = 0;
      for (const generated of ledgers()) {
        const before = extractLedger(generated.lcm);
        const bytes = withScannedEvictions(state, generated.lcm, before);
        expect(Buffer.from(withScannedEvictions(state, generated.lcm)).equals(Buffer.from(bytes))).toBe(true);
        const after = extractLedger(bytes);
        expect(after.header).toEqual(before.header);
        expect(after.events.length).toBe(before.events.length);
        if (after.evictedKeys.length !== before.evictedKeys.length) rewritten++;
        await state.apply(bytes);
      }
      expect(state.ledger).toBe(GENERATED.ledgers + 1);
      expect(rewritten).toBeGreaterThan(0);
    } finally {
      await state.close();
    }
  });
});
