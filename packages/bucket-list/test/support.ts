// Test support for bucket-list: a pool of realistic ledger entries of several types (keyed by a small integer so a
// test can talk about "key 17"), versions of an entry (same key, other contents), and an oracle that replays
// batches into plain Maps — the simple model every list test compares against.
import { createHash } from 'node:crypto';
import { encodeLedgerEntry, type LedgerEntry, ledgerKeyOfEntry } from '@strata/ledger-key';
import { hex, seededRandom, withTempDir } from '@strata/test-kit';
import type { HotArchiveBatch, LiveBatch } from '../src/merge/bucket-merge.js';

function id32(label: string, n: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${label}:${n}`).digest());
}

/** The 32-byte identity inside pool entry `n` (its account id, or its TTL key hash), for templates. */
export function poolIdentity(n: number): Uint8Array {
  return n % 7 === 4 ? id32('ttl', n) : id32('account', n);
}

/** Entry `n` of the pool at version `version` (lastModifiedLedgerSeq and the contents vary with it). */
export function poolEntry(n: number, version: number): Uint8Array {
  const account = id32('account', n);
  const kinds = 7;
  let entry: LedgerEntry;
  switch (n % kinds) {
    case 0:
      entry = {
        lastModifiedLedgerSeq: version,
        data: { type: 'account', accountId: account, balance: BigInt(version) * 10n },
      };
      break;
    case 1:
      entry = {
        lastModifiedLedgerSeq: version,
        data: {
          type: 'trustline',
          accountId: account,
          asset: { type: 'alphanum4', code: 'USDC', issuer: id32('issuer', n % 3) },
          balance: BigInt(version),
          limit: 1_000_000n,
        },
      };
      break;
    case 2:
    case 3:
      entry = {
        lastModifiedLedgerSeq: version,
        data: {
          type: 'contractData',
          contract: { type: 'contract', contractId: id32('contract', n % 5) },
          key: {
            type: 'vec',
            value: [
              { type: 'symbol', value: 'Balance' },
              { type: 'address', value: { type: 'account', accountId: account } },
            ],
          },
          durability: n % 2 === 0 ? 'persistent' : 'temporary',
          val: { type: 'i128', value: BigInt(version) * 1_000_000_007n - 5n },
        },
      };
      break;
    case 4:
      entry = {
        lastModifiedLedgerSeq: version,
        data: { type: 'ttl', keyHash: id32('ttl', n), liveUntilLedgerSeq: version + 1000 },
      };
      break;
    case 5:
      entry = {
        lastModifiedLedgerSeq: version,
        data: {
          type: 'contractCode',
          hash: id32('code', n),
          code: new Uint8Array(16 + (version % 7) * 4).fill(n & 0xff),
        },
      };
      break;
    default:
      entry = {
        lastModifiedLedgerSeq: version,
        data: { type: 'data', accountId: account, dataName: `name-${n}`, dataValue: new Uint8Array([version & 0xff]) },
      };
  }
  return encodeLedgerEntry(entry);
}

/** Whether pool entry `n` is one the hot archive may hold (persistent contract data or contract code). */
export function archivable(n: number): boolean {
  return n % 7 === 2 || n % 7 === 5;
}

export function poolKey(n: number): Uint8Array {
  return ledgerKeyOfEntry(poolEntry(n, 1));
}

/** The newest value of every key (live list), and of every archived key (hot archive), by replaying batches. */
export class Oracle {
  readonly live = new Map<string, Uint8Array>();
  readonly hot = new Map<string, Uint8Array | 'restored'>();

  apply(batch: LiveBatch, hot?: HotArchiveBatch): void {
    for (const entry of [...batch.init, ...batch.live]) this.live.set(hex(ledgerKeyOfEntry(entry)), entry);
    for (const key of batch.dead) this.live.delete(hex(key));
    for (const entry of hot?.archived ?? []) this.hot.set(hex(ledgerKeyOfEntry(entry)), entry);
    for (const key of hot?.restored ?? []) this.hot.set(hex(key), 'restored');
  }

  load(key: Uint8Array): Uint8Array | undefined {
    return this.live.get(hex(key));
  }

  loadHotArchive(key: Uint8Array): Uint8Array | undefined {
    const value = this.hot.get(hex(key));
    return value === 'restored' ? undefined : value;
  }
}

/**
 * A stream of valid random batches over `poolSize` keys: each ledger touches a few keys; an absent key is created
 * (init), a present one updated (live) or deleted (dead), so histories are I L* (D I L*)* D?. From protocol 23 a
 * hot-archive batch archives or restores a few archivable keys.
 */
export class BatchStream {
  private readonly present = new Set<number>();
  private readonly random: () => number;

  constructor(
    private readonly poolSize: number,
    seed: number,
    private readonly perLedger = 8,
  ) {
    this.random = seededRandom(seed);
  }

  next(ledger: number, protocolVersion: number): { live: LiveBatch; hot: HotArchiveBatch | undefined } {
    const touched = new Set<number>();
    const count = Math.floor(this.random() * this.perLedger) + 1;
    for (let i = 0; i < count; i++) touched.add(Math.floor(this.random() * this.poolSize));
    const init: Uint8Array[] = [];
    const live: Uint8Array[] = [];
    const dead: Uint8Array[] = [];
    for (const n of touched) {
      if (!this.present.has(n)) {
        init.push(poolEntry(n, ledger));
        this.present.add(n);
      } else if (this.random() < 0.7) {
        live.push(poolEntry(n, ledger));
      } else {
        dead.push(poolKey(n));
        this.present.delete(n);
      }
    }
    let hot: HotArchiveBatch | undefined;
    if (protocolVersion >= 23) {
      const archived: Uint8Array[] = [];
      const restored: Uint8Array[] = [];
      const hotTouched = new Set<number>();
      for (let i = 0; i < 2; i++) {
        const n = Math.floor(this.random() * this.poolSize);
        if (!archivable(n) || hotTouched.has(n)) continue;
        hotTouched.add(n);
        if (this.random() < 0.6) archived.push(poolEntry(n, ledger));
        else restored.push(poolKey(n));
      }
      hot = { archived, restored };
    }
    return { live: { init, live, dead }, hot };
  }
}

/** What `listHashAfter` needs of a BucketManager class (the source one, or the built one from dist/). */
export interface ManagerClass {
  open(
    dir: string,
    options: { merger: 'workers' | 'inline'; fsync: boolean; create: boolean },
  ): Promise<{
    addLedger(ledger: number, protocol: number, batch: LiveBatch, hot?: HotArchiveBatch): Promise<void>;
    bucketListHash(): string;
    close(): Promise<void>;
  }>;
}

/** Closes 300 ledgers of one fixed batch stream (protocol 23) into a fresh list and returns its bucketListHash. */
export async function listHashAfter(Manager: ManagerClass, merger: 'workers' | 'inline'): Promise<string> {
  return withTempDir(async (dir) => {
    const stream = new BatchStream(200, 5, 20);
    const manager = await Manager.open(dir, { merger, fsync: false, create: true });
    try {
      for (let ledger = 1; ledger <= 300; ledger++) {
        const { live, hot } = stream.next(ledger, 23);
        await manager.addLedger(ledger, 23, live, hot);
      }
      return manager.bucketListHash();
    } finally {
      await manager.close();
    }
  });
}
