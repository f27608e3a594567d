// Startup as stellar-core does it since PR #5252, on real networks: a capture stream is replayed twice, once without
// interruption and once closing the state after every few ledgers and reopening it the way a node starts
// (BucketList without merges, Soroban state populated by the loser-tree scans, then restartMerges). After every
// reopen the populated Soroban state equals the uninterrupted run's entry for entry (entry bytes, TTL, TTL's
// lastModified), with the same size; and every later ledger still reproduces its header's bucketListHash. The same
// holds for a state started from a History Archive State and a bucket directory (fromHistoryArchive), the path a
// real node takes.

import { readFileSync } from 'node:fs';
import { openLedgerSource } from '@strata/ledger-meta';
import { describeWithFixtures, fixturePath, withTempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { genesisOf, LedgerState, type LedgerStateEvent, type SorobanState } from '../src/index.js';

/** Every entry of a Soroban state as text, sorted: `ttlKeyHash entry liveUntil ttlLastModified`. */
function entriesOf(state: SorobanState): string[] {
  const out: string[] = [];
  state.forEachEntry((entry, liveUntil, ttlLastModified, hash) => {
    out.push(
      `${Buffer.from(hash).toString('hex')} ${Buffer.from(entry).toString('hex')} ${liveUntil} ${ttlLastModified}`,
    );
  });
  return out.sort();
}

// Streams with contract data, code, TTL bumps, restores and evictions (InvokeHostFunctionTests, archival).
const STREAMS = ['InvokeHostFunctionTests/416716038d1bf264.xdr', 'InvokeHostFunctionTests/09b571acb76aa819.xdr'];

describeWithFixtures('restart from the buckets', [['stellar-core-lcm']], () => {
  for (const stream of STREAMS) {
    it(`${stream}: reopened every 3 ledgers, the state equals the uninterrupted run's and every hash matches`, async () => {
      const file = fixturePath('stellar-core-lcm', ...stream.split('/'));
      const genesis = await genesisOf(file, '(V) (;,,;) (V)');
      await withTempDir(async (root) => {
        const options = { merger: 'inline', fsync: false } as const;
        const steady = await LedgerState.create(`${root}/steady`, genesis, options);
        let restarted = await LedgerState.create(`${root}/restarted`, genesis, options);
        const events: LedgerStateEvent[] = [];
        let reopened = 0;
        try {
          for await (const record of openLedgerSource(file)) {
            const a = await steady.apply(record.bytes, record);
            const b = await restarted.apply(record.bytes, record);
            expect(a.matches && b.matches, `ledger ${record.ledgerSeq}`).toBe(true);
            if (record.ledgerSeq % 3 !== 0) continue;
            await restarted.close();
            restarted = await LedgerState.open(`${root}/restarted`, {
              ...options,
              restartMerges: false,
              onEvent: (event) => events.push(event),
            });
            reopened++;
            expect(restarted.ledger).toBe(record.ledgerSeq);
            expect(restarted.bucketListHash()).toBe(steady.bucketListHash());
            expect(entriesOf(restarted.sorobanState)).toEqual(entriesOf(steady.sorobanState));
            expect(restarted.sorobanState.stateSizeBytes).toBe(steady.sorobanState.stateSizeBytes);
            expect(restarted.sorobanState.entriesWithoutTtl).toBe(0);
            restarted.restartMerges();
          }
        } finally {
          await steady.close();
          await restarted.close();
        }
        expect(reopened).toBeGreaterThan(5);
        const population = events.filter((event) => event.type === 'population');
        expect(population.length).toBe(reopened);
        expect(population[0]?.message).toMatch(
          /^Populated in-memory Soroban state in [0-9.]+ sec \(\d+ data, \d+ code, peak RSS \d+ MiB\)$/,
        );
      });
    }, 120_000);
  }

  it('a state started from a HAS and its buckets continues the network', async () => {
    const file = fixturePath('stellar-core-lcm', ...STREAMS[0]!.split('/'));
    const genesis = await genesisOf(file, '(V) (;,,;) (V)');
    await withTempDir(async (root) => {
      const options = { merger: 'inline', fsync: false } as const;
      const node = await LedgerState.create(`${root}/node`, genesis, options);
      let joined: LedgerState | undefined;
      let continued = 0;
      try {
        for await (const record of openLedgerSource(file)) {
          if (joined === undefined) {
            expect((await node.apply(record.bytes, record)).matches).toBe(true);
            if (record.ledgerSeq < 20) continue;
            // The archive: the node's HAS and bucket directory at ledger 20.
            joined = await LedgerState.fromHistoryArchive(
              `${root}/joined`,
              {
                has: readFileSync(`${root}/node/has.json`, 'utf8'),
                bucketDir: `${root}/node/buckets`,
                networkPassphrase: '(V) (;,,;) (V)',
                protocolVersion: node.protocolVersion,
              },
              options,
            );
            expect([joined.ledger, joined.bucketListHash()]).toEqual([20, node.bucketListHash()]);
            expect(entriesOf(joined.sorobanState)).toEqual(entriesOf(node.sorobanState));
            continue;
          }
          expect((await joined.apply(record.bytes, record)).matches, `ledger ${record.ledgerSeq}`).toBe(true);
          continued++;
        }
      } finally {
        await node.close();
        await joined?.close();
      }
      expect(continued).toBeGreaterThan(10);
    });
  });
});
