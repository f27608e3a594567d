// LedgerState's contract on real ledgers: (1) a ledger that does not follow is OUT_OF_ORDER and changes nothing; (2)
// a malformed LedgerCloseMeta is refused (BAD_ENTRY, with the ledger-meta error as cause) and changes nothing; (3) a
// computed hash that differs from the header's is HASH_MISMATCH naming the ledger, both hashes and the buckets the
// ledger changed, recorded in the state file so the state no longer opens; (4) with verification off the same
// ledger is reported as not matching; (5) a state of another network, or a directory without a state, is BAD_STATE;
// (6) create refuses a directory that holds a state.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLedgerSource } from '@strata/ledger-meta';
import { describeWithFixtures, errorOf, fixturePath, rejectionOf, withTempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  genesisEntries,
  genesisLedgerHeader,
  genesisOf,
  genesisState,
  LedgerState,
  LedgerStateError,
} from '../src/index.js';

const STREAM = ['InvokeHostFunctionTests', '416716038d1bf264.xdr'];
const options = { merger: 'inline', fsync: false } as const;

async function records(file: string) {
  const out = [];
  for await (const record of openLedgerSource(file)) out.push(record);
  return out;
}

describeWithFixtures('LedgerState', [['stellar-core-lcm', ...STREAM]], () => {
  it('refuses ledgers out of order and malformed metas without changing anything', async () => {
    const file = fixturePath('stellar-core-lcm', ...STREAM);
    const [first, second] = await records(file);
    await withTempDir(async (dir) => {
      const state = await LedgerState.create(dir, await genesisOf(file, '(V) (;,,;) (V)'), options);
      try {
        const hash = state.bucketListHash();
        const outOfOrder = await rejectionOf(LedgerStateError, () => state.apply(second!.bytes, second));
        expect(outOfOrder).toMatchObject({ code: 'OUT_OF_ORDER', ledger: 3 });
        const truncated = first!.bytes.subarray(0, first!.bytes.length - 7);
        const malformed = await rejectionOf(LedgerStateError, () => state.apply(truncated, first));
        expect(malformed.code).toBe('BAD_ENTRY');
        expect(malformed.cause).toMatchObject({ code: 'TRUNCATED' });
        expect([state.ledger, state.bucketListHash()]).toEqual([1, hash]);
        expect((await state.apply(first!.bytes, first)).matches).toBe(true);
        expect((await rejectionOf(LedgerStateError, () => state.apply(first!.bytes, first))).code).toBe('OUT_OF_ORDER');
      } finally {
        await state.close();
      }
    });
  });

  it('a divergence is HASH_MISMATCH, recorded: the state no longer opens', async () => {
    const file = fixturePath('stellar-core-lcm', ...STREAM);
    const [first, second] = await records(file);
    await withTempDir(async (dir) => {
      const genesis = await genesisOf(file, '(V) (;,,;) (V)');
      // Without the eviction iterator entry ledger 2 (a genesis at protocol 26: a Soroban ledger before it) diverges.
      const state = await LedgerState.create(dir, genesis, { ...options, rules: { evictionIterator: false } });
      try {
        const error = await rejectionOf(LedgerStateError, () => state.apply(first!.bytes, first));
        expect(error).toMatchObject({ code: 'HASH_MISMATCH', ledger: 2, file });
        expect(error.detail).toMatch(
          /^bucketListHash [0-9a-f]{64} computed, the header says [0-9a-f]{64}; the ledger changed live level 0 curr/,
        );
        expect((await rejectionOf(LedgerStateError, () => state.apply(second!.bytes, second))).code).toBe('CLOSED');
      } finally {
        await state.close();
      }
      const recorded = JSON.parse(readFileSync(join(dir, 'ledger-state.json'), 'utf8'));
      expect(recorded.diverged.ledger).toBe(2);
      expect((await rejectionOf(LedgerStateError, () => LedgerState.open(dir, options))).code).toBe('HASH_MISMATCH');
    });
  });

  it('with verification off a divergence is reported, not thrown', async () => {
    const file = fixturePath('stellar-core-lcm', ...STREAM);
    const [first, second] = await records(file);
    await withTempDir(async (dir) => {
      const genesis = await genesisOf(file, '(V) (;,,;) (V)');
      const state = await LedgerState.create(dir, genesis, {
        ...options,
        verify: false,
        rules: { evictionIterator: false },
      });
      try {
        const applied = await state.apply(first!.bytes, first);
        expect(applied.matches).toBe(false);
        expect((await state.apply(second!.bytes, second)).ledger).toBe(3);
        expect(applied.bucketListHash).not.toBe(applied.headerBucketListHash);
      } finally {
        await state.close();
      }
    });
  });

  it('refuses another network, a directory without a state, and create over a state', async () => {
    const file = fixturePath('stellar-core-lcm', ...STREAM);
    await withTempDir(async (dir) => {
      const genesis = await genesisOf(file, '(V) (;,,;) (V)');
      await (await LedgerState.create(dir, genesis, options)).close();
      const other = await rejectionOf(LedgerStateError, () =>
        LedgerState.open(dir, { ...options, networkPassphrase: 'Public Global Stellar Network ; September 2015' }),
      );
      expect(other).toMatchObject({ code: 'BAD_STATE', field: 'networkPassphrase' });
      expect((await rejectionOf(LedgerStateError, () => LedgerState.create(dir, genesis, options))).code).toBe(
        'BAD_STATE',
      );
      expect((await rejectionOf(LedgerStateError, () => LedgerState.open(join(dir, 'nothing'), options))).code).toBe(
        'BAD_STATE',
      );
      const reopened = await LedgerState.open(dir, options);
      expect([reopened.ledger, reopened.protocolVersion, reopened.networkPassphrase]).toEqual([
        1,
        26,
        '(V) (;,,;) (V)',
      ]);
      await reopened.close();
    });
  });
});

describe('genesisState', () => {
  it('is ledger 1 of a test network in the shape LedgerState.create takes', async () => {
    const genesis = genesisState({ passphrase: 'Standalone Network ; February 2017', protocol: 27 });
    expect(genesis.networkPassphrase).toBe('Standalone Network ; February 2017');
    expect(genesis.protocolVersion).toBe(27);
    expect(genesis.entries).toEqual(
      genesisEntries({ networkPassphrase: 'Standalone Network ; February 2017', protocolVersion: 27 }),
    );
    await withTempDir(async (dir) => {
      const state = await LedgerState.create(dir, genesis, options);
      try {
        expect([state.ledger, state.protocolVersion]).toEqual([1, 27]);
        const header = genesisLedgerHeader({
          protocolVersion: 27,
          bucketListHash: Buffer.from(state.bucketListHash(), 'hex'),
        });
        expect(header.length).toBeGreaterThan(0);
      } finally {
        await state.close();
      }
    });
    const error = errorOf(LedgerStateError, () => genesisState({ passphrase: 'x', protocol: 99 }));
    expect(error.code).toBe('BAD_GENESIS');
  });
});
