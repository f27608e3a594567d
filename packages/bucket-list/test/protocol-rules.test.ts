// What the list does at protocol boundaries, as stellar-core does (spec ledger-state-replay.md §2-§4): (1) protocol 0
// (GENESIS_LEDGER_VERSION) is accepted and makes a pre-11 bucket, LIVE entries without a METAENTRY; (2) a hot-archive
// batch is added only on a ledger that started at protocol 23 or later: not on the first ledger of a list (genesis),
// not on the 22→23 upgrade ledger — the hot archive's level 0 stays empty there, while bucketListHash already
// combines both lists; (3) a non-empty hot batch on such a ledger is INVALID_ARGUMENT and changes nothing; (4)
// listSize, the bytes of the list's buckets.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { hex, withTempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { BucketManager } from '../src/bucket-manager.js';

const ZERO = '0'.repeat(64);
const empty = { init: [], live: [], dead: [] };
const code = (ledger: number): Uint8Array =>
  encodeLedgerEntry({
    lastModifiedLedgerSeq: ledger,
    data: { type: 'contractCode', hash: new Uint8Array(32).fill(5), code: Uint8Array.of(0, 97, 115, 109) },
  });
const codeKey = encodeLedgerKey({ type: 'contractCode', hash: new Uint8Array(32).fill(5) });
const account = (n: number, ledger: number): Uint8Array =>
  encodeLedgerEntry({
    lastModifiedLedgerSeq: ledger,
    data: { type: 'account', accountId: new Uint8Array(32).fill(n), balance: 10n },
  });

/** The hot archive's 22 slots as `has.json` names them. */
function hotSlots(dir: string): string[] {
  const has = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8'));
  return (has.hotArchiveBuckets ?? []).flatMap((level: { curr: string; snap: string }) => [level.curr, level.snap]);
}

function combined(manager: BucketManager): string {
  return createHash('sha256')
    .update(Buffer.from(manager.listHash('live'), 'hex'))
    .update(Buffer.from(manager.listHash('hot-archive'), 'hex'))
    .digest('hex');
}

describe('protocol boundaries', () => {
  it('protocol 0 makes a pre-11 bucket: LIVE entries, no METAENTRY', async () => {
    await withTempDir(async (dir) => {
      const manager = await BucketManager.open(dir, { create: true, merger: 'inline', fsync: false });
      try {
        await manager.addLedger(1, 0, { init: [account(1, 1)], live: [], dead: [] });
        const has = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8'));
        const bytes = readFileSync(join(dir, 'buckets', `bucket-${has.currentBuckets[0].curr}.xdr`));
        // One record: the mark, then BucketEntryType LIVEENTRY (0), not METAENTRY (-1) or INITENTRY (2).
        expect(bytes.readUInt32BE(0)).toBe((0x8000_0000 | (bytes.length - 4)) >>> 0);
        expect(bytes.readInt32BE(4)).toBe(0);
        const key = encodeLedgerKey({ type: 'account', accountId: new Uint8Array(32).fill(1) });
        expect(hex(manager.load(key) ?? new Uint8Array())).toBe(hex(account(1, 1)));
        expect(manager.bucketListHash()).toBe(manager.listHash('live'));
        await manager.addLedger(2, 0, { init: [], live: [account(1, 2)], dead: [] });
        await manager.addLedger(3, 23, empty);
      } finally {
        await manager.close();
      }
    });
  });

  it('no hot-archive batch on the first ledger of a list, even at protocol 23', async () => {
    await withTempDir(async (dir) => {
      const manager = await BucketManager.open(dir, { create: true, merger: 'inline', fsync: false });
      try {
        await expect(manager.addLedger(1, 23, empty, { archived: [code(1)], restored: [] })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          field: 'hotBatch',
        });
        expect(manager.ledger).toBe(0);
        await manager.addLedger(1, 23, empty, { archived: [], restored: [] });
        expect(hotSlots(dir).every((hash) => hash === ZERO)).toBe(true);
        expect(manager.bucketListHash()).toBe(combined(manager));
        // The next ledger started at 23: its (empty) batch is a METAENTRY-only bucket in the hot archive's level 0.
        await manager.addLedger(2, 23, empty, { archived: [], restored: [] });
        expect(hotSlots(dir)[0]).not.toBe(ZERO);
      } finally {
        await manager.close();
      }
    });
  });

  it('no hot-archive batch on the 22→23 upgrade ledger; bucketListHash combines both lists from it on', async () => {
    await withTempDir(async (dir) => {
      const manager = await BucketManager.open(dir, { create: true, merger: 'inline', fsync: false });
      try {
        await manager.addLedger(1, 22, empty);
        expect(manager.bucketListHash()).toBe(manager.listHash('live'));
        await expect(manager.addLedger(2, 23, empty, { archived: [code(2)], restored: [] })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          field: 'hotBatch',
        });
        await manager.addLedger(2, 23, empty);
        expect(hotSlots(dir).every((hash) => hash === ZERO)).toBe(true);
        expect(manager.bucketListHash()).toBe(combined(manager));
        await manager.addLedger(3, 23, empty, { archived: [code(3)], restored: [] });
        expect(hex(manager.loadHotArchive(codeKey) ?? new Uint8Array())).toBe(hex(code(3)));
        expect(hotSlots(dir)[0]).not.toBe(ZERO);
      } finally {
        await manager.close();
      }
    });
  });

  it('listSize is the bytes of the bucket files the list names (the Soroban state size before protocol 23)', async () => {
    await withTempDir(async (dir) => {
      const manager = await BucketManager.open(dir, { create: true, merger: 'inline', fsync: false });
      try {
        for (let ledger = 1; ledger <= 9; ledger++) {
          await manager.addLedger(ledger, 22, { init: [account(ledger, ledger)], live: [], dead: [] });
        }
        const has = JSON.parse(readFileSync(join(dir, 'has.json'), 'utf8'));
        const named = has.currentBuckets.flatMap((level: { curr: string; snap: string }) => [level.curr, level.snap]);
        const bytes = named
          .filter((hash: string) => hash !== ZERO)
          .reduce((sum: number, hash: string) => sum + statSync(join(dir, 'buckets', `bucket-${hash}.xdr`)).size, 0);
        expect(bytes).toBeGreaterThan(0);
        expect(manager.listSize('live')).toBe(bytes);
        expect(manager.listSize('hot-archive')).toBe(0);
      } finally {
        await manager.close();
      }
    });
  });
});
