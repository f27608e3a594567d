// Bad sources, as real `strata` processes: a stream with a gap, a duplicate, two ledgers out of order, a record cut
// short inside its XDR (SOURCE_FAILED), or a header whose bucketListHash does not match. Checks:
// 1. the node stops with the typed error (exit 1, one line `strata: CODE ... ledger N`) naming the ledger;
// 2. everything committed before it is kept: the position, the state and the hot chunk stand at the ledger before;
// 3. with the source fixed (the original stream), the same data dir finishes and equals an uninterrupted run;
// 4. a header hash that does not match stops the node at that ledger with STATE_FAILED (cause HASH_MISMATCH);
// 5. a stream of another network (same passphrase) stops at its first new ledger with HEADER_CHAIN_MISMATCH;
// 6. a live hot chunk that is not a database stops the node at startup with EVENTS_FAILED naming it.
// Negative control: a node that resumes at max(state, hot) + 1 (the BROKEN_RESUME_SEAM) loses the events of a
// removed hot chunk, and the check that catches it fails as it should.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLedgerStream } from '@strata/ledger-meta';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { BROKEN_RESUME_SEAM } from '../src/node.js';
import { hotEventsOf, nodeFileOf } from './support/data-dir-reads.js';
import { oracleLedgers, streamRecords } from './support/oracle.js';
import { messageLines, runStrata } from './support/strata-process.js';

const PASSPHRASE = '(V) (;,,;) (V)';
const PARTS = ['stellar-core-lcm', 'InvokeHostFunctionTests', '1d5bfe4be2ebaacb.xdr'];
const source = () => fixturePath(...PARTS);

function ingestArgs(dataDir: string, path: string): string[] {
  return ['ingest', '--data-dir', dataDir, '--source', path, '--network-passphrase', PASSPHRASE];
}

/** The fixture's records (ledger 2 at index 0) rearranged by `edit`, written as a stream file. */
function editedStream(dir: string, name: string, edit: (records: Buffer[]) => Buffer[]): string {
  const path = join(dir, name);
  writeFileSync(path, encodeLedgerStream(edit(streamRecords(source()))));
  return path;
}

const at = (ledger: number) => ledger - 2;

describeWithFixtures('strata ingest of a bad source', [PARTS], () => {
  const cases = [
    {
      name: 'a gap',
      edit: (r: Buffer[]) => [...r.slice(0, at(8)), ...r.slice(at(9))],
      code: 'LEDGER_GAP',
      ledger: 8,
      kept: 7,
    },
    {
      name: 'a duplicate',
      edit: (r: Buffer[]) => [...r.slice(0, at(9)), ...r.slice(at(8))],
      code: 'DUPLICATE_LEDGER',
      ledger: 8,
      kept: 8,
    },
    {
      name: 'two ledgers out of order',
      // `!`: indexes inside the 13-ledger stream
      edit: (r: Buffer[]) => [...r.slice(0, at(8)), r[at(9)]!, r[at(8)]!, ...r.slice(at(10))],
      code: 'OUT_OF_ORDER_LEDGER',
      ledger: 9,
      kept: 7,
    },
    {
      // The header reads (the chain check), the rest does not: the state's extract refuses it, and it is the
      // source's fault as when the node extracted first.
      name: 'a record cut short inside its XDR',
      // `!`: an index inside the 13-ledger stream
      edit: (r: Buffer[]) => [...r.slice(0, at(8)), r[at(8)]!.subarray(0, r[at(8)]!.length - 10), ...r.slice(at(9))],
      code: 'SOURCE_FAILED',
      ledger: 8,
      kept: 7,
    },
  ];
  for (const bad of cases) {
    it(`stops at ${bad.name} with ${bad.code} naming ledger ${bad.ledger}, keeps what was committed, then recovers`, async () => {
      const dir = tempDir('node-bad');
      const dataDir = join(dir, 'data');
      const oracle = oracleLedgers(source());
      const failed = await runStrata(ingestArgs(dataDir, editedStream(dir, 'bad.xdr', bad.edit)));
      expect(failed.code).toBe(1);
      expect(messageLines(failed.stderr)).toEqual([
        expect.stringMatching(new RegExp(`^strata: ${bad.code} in .*bad\\.xdr ledger ${bad.ledger}: `)),
      ]);
      expect(nodeFileOf(dataDir).position).toEqual({ ledger: bad.kept, hash: oracle[at(bad.kept)]?.hash });
      const hot = await hotEventsOf(dataDir);
      expect(hot.latest).toBe(bad.kept);
      const expectedUpTo = (last: number) =>
        oracle.filter((l) => l.ledger <= last).flatMap((l) => l.events.map((hex): [number, string] => [l.ledger, hex]));
      expect(hot.events.map(([ledger]) => ledger)).toEqual(expectedUpTo(bad.kept).map(([ledger]) => ledger));

      const fixed = await runStrata(ingestArgs(dataDir, source()));
      expect(fixed.code, fixed.stderr).toBe(0);
      const last = oracle.at(-1);
      const summary = JSON.parse(fixed.stdout);
      expect(summary).toMatchObject({ bucketListHash: last?.bucketListHash });
      expect(summary.applied).toBe(summary.matching);
      expect(nodeFileOf(dataDir).position).toEqual({ ledger: last?.ledger, hash: last?.hash });
      expect((await hotEventsOf(dataDir)).events.length).toBe(expectedUpTo(last?.ledger ?? 0).length);
    });
  }

  it('stops at a header whose bucketListHash does not match, naming the ledger (STATE_FAILED, HASH_MISMATCH)', async () => {
    const dir = tempDir('node-hash');
    const dataDir = join(dir, 'data');
    const oracle = oracleLedgers(source());
    const wanted = Buffer.from(oracle[at(8)]?.bucketListHash ?? '', 'hex');
    const path = editedStream(dir, 'hash.xdr', (records) =>
      records.map((record, i) => {
        if (i !== at(8)) return record;
        const copy = Buffer.from(record);
        const offset = copy.indexOf(wanted);
        expect(offset).toBeGreaterThan(0);
        copy[offset] = (copy[offset] ?? 0) ^ 0xff;
        return copy;
      }),
    );
    const failed = await runStrata(ingestArgs(dataDir, path));
    expect(failed.code).toBe(1);
    expect(messageLines(failed.stderr)).toEqual([
      expect.stringMatching(/^strata: STATE_FAILED .*ledger 8: .*HASH_MISMATCH/),
    ]);
    expect(nodeFileOf(dataDir).position?.ledger).toBe(7);
  });

  it('stops at the first ledger of another network (same passphrase) with HEADER_CHAIN_MISMATCH', async () => {
    const dataDir = join(tempDir('node-chain'), 'data');
    expect((await runStrata(ingestArgs(dataDir, source()).concat('--to', '10'))).code).toBe(0);
    const other = fixturePath('stellar-core-lcm', 'InvokeHostFunctionTests', '21c43b92b819267f.xdr');
    const failed = await runStrata(ingestArgs(dataDir, other));
    expect(failed.code).toBe(1);
    expect(messageLines(failed.stderr)).toEqual([
      expect.stringMatching(/^strata: HEADER_CHAIN_MISMATCH in .*21c43b92b819267f\.xdr ledger 11: /),
    ]);
    expect(nodeFileOf(dataDir).position?.ledger).toBe(10);
    expect((await hotEventsOf(dataDir)).latest).toBe(10);
  });

  it('stops at a hot chunk that is not a database with EVENTS_FAILED naming it, keeping the state and position', async () => {
    const dataDir = join(tempDir('node-hot-damaged'), 'data');
    expect((await runStrata(ingestArgs(dataDir, source()).concat('--to', '8'))).code).toBe(0);
    const hotPath = join(dataDir, 'events', 'hot', '0.db');
    for (const suffix of ['-wal', '-shm']) rmSync(hotPath + suffix, { force: true });
    writeFileSync(hotPath, Buffer.alloc(8192, 0x5a)); // the hot writer thread's reopen refuses it
    const failed = await runStrata(ingestArgs(dataDir, source()));
    expect(failed.code).toBe(1);
    expect(messageLines(failed.stderr)).toEqual([
      expect.stringMatching(/^strata: EVENTS_FAILED in .*0\.db: cannot reopen the hot chunk: /),
    ]);
    expect(nodeFileOf(dataDir).position?.ledger).toBe(8);
    // The lock was released and nothing else changed: the same refusal again, not DATA_DIR_LOCKED.
    const again = await runStrata(ingestArgs(dataDir, source()));
    expect(messageLines(again.stderr)).toEqual(messageLines(failed.stderr));
  });

  it('negative control: a node resuming at max(state, hot) + 1 loses the events of a removed hot chunk', async () => {
    const dataDir = join(tempDir('node-control'), 'data');
    expect((await runStrata(ingestArgs(dataDir, source()))).code).toBe(0);
    const events = (await hotEventsOf(dataDir)).events;
    expect(events.length).toBeGreaterThan(0);
    rmSync(join(dataDir, 'events'), { recursive: true });
    const broken = await runStrata(ingestArgs(dataDir, source()), { env: { [BROKEN_RESUME_SEAM]: '1' } });
    expect(broken.code, broken.stderr).toBe(0);
    // The check the restart tests make (the hot events equal an uninterrupted run's) fails for the broken node.
    expect((await hotEventsOf(dataDir).catch(() => ({ events: [] }))).events).not.toEqual(events);
  });
});
