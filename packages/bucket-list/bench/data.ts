// Inputs for the bucket-list benchmarks: large sorted buckets built from the test pool's entry shapes (accounts,
// trustlines, SAC-balance contract data, TTLs, contract code, data entries), deterministic for a seed.
import { compareBucketEntryKeys } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';
import { bucketRecord, DEAD_ENTRY, INIT_ENTRY, LIVE_ENTRY } from '../src/kind.js';
import { poolEntry, poolIdentity, poolKey } from '../test/support.js';

/**
 * Two buckets as a level merge sees them: `older` holds keys 0..count-1 (INIT), `newer` updates a random half of them
 * (LIVE), deletes a few (DEAD) and creates as many new keys (INIT), so the two interleave across the whole key space.
 */
export function mergeInputs(count: number, seed: number): { older: Uint8Array[]; newer: Uint8Array[] } {
  const random = seededRandom(seed);
  const older: Uint8Array[] = [];
  for (let n = 0; n < count; n++) older.push(bucketRecord(INIT_ENTRY, poolEntry(n, 1)));
  const newer: Uint8Array[] = [];
  for (let n = 0; n < count; n++) {
    const r = random();
    if (r < 0.45) newer.push(bucketRecord(LIVE_ENTRY, poolEntry(n, 2)));
    else if (r < 0.5) newer.push(bucketRecord(DEAD_ENTRY, poolKey(n)));
  }
  for (let n = count; n < count + count / 2; n++) newer.push(bucketRecord(INIT_ENTRY, poolEntry(n, 2)));
  older.sort(compareBucketEntryKeys);
  newer.sort(compareBucketEntryKeys);
  return { older, newer };
}

/**
 * Ledger batches for `add-batch`: `perLedger` changes per ledger drawn uniformly from `keySpace` keys, half
 * SAC-balance CONTRACT_DATA entries (148 bytes) and half TTL entries (48 bytes), as on a Soroban-heavy network. An
 * absent key is created (INIT); a present one is updated (LIVE, 90%) or deleted (DEAD, 10%). Entries are stamped
 * from two templates, so generating a ledger costs far less than adding it.
 */
export class LedgerBatches {
  private readonly present: Uint8Array;
  private readonly random: () => number;
  private readonly dataTemplate = poolEntry(2, 1);
  private readonly ttlTemplate = poolEntry(4, 1);
  private readonly dataKeyTemplate = poolKey(2);
  private readonly ttlKeyTemplate = poolKey(4);

  private readonly dataIdentity = offsetOf(this.dataTemplate, poolIdentity(2));
  private readonly ttlIdentity = offsetOf(this.ttlTemplate, poolIdentity(4));
  private readonly dataKeyIdentity = offsetOf(this.dataKeyTemplate, poolIdentity(2));
  private readonly ttlKeyIdentity = offsetOf(this.ttlKeyTemplate, poolIdentity(4));

  constructor(
    private readonly keySpace: number,
    private readonly perLedger: number,
    seed: number,
  ) {
    this.present = new Uint8Array(keySpace);
    this.random = seededRandom(seed);
  }

  next(ledger: number): { init: Uint8Array[]; live: Uint8Array[]; dead: Uint8Array[] } {
    const init: Uint8Array[] = [];
    const live: Uint8Array[] = [];
    const dead: Uint8Array[] = [];
    const seen = new Set<number>();
    while (seen.size < this.perLedger) {
      const n = Math.floor(this.random() * this.keySpace);
      if (seen.has(n)) continue;
      seen.add(n);
      if (this.present[n] === 0) {
        init.push(this.entry(n, ledger));
        this.present[n] = 1;
      } else if (this.random() < 0.9) {
        live.push(this.entry(n, ledger));
      } else {
        dead.push(this.key(n));
        this.present[n] = 0;
      }
    }
    return { init, live, dead };
  }

  /** Entry `n` at `ledger`: the template with its identity (4 bytes of the account id or key hash) and version set. */
  private entry(n: number, ledger: number): Uint8Array {
    const data = n % 2 === 0;
    const out = (data ? this.dataTemplate : this.ttlTemplate).slice();
    const view = new DataView(out.buffer);
    view.setUint32(0, ledger); // lastModifiedLedgerSeq
    view.setUint32(data ? this.dataIdentity : this.ttlIdentity, n);
    if (!data) view.setUint32(out.length - 8, ledger + 100_000); // liveUntilLedgerSeq, before the entry's ext
    return out;
  }

  private key(n: number): Uint8Array {
    const data = n % 2 === 0;
    const out = (data ? this.dataKeyTemplate : this.ttlKeyTemplate).slice();
    new DataView(out.buffer).setUint32(data ? this.dataKeyIdentity : this.ttlKeyIdentity, n);
    return out;
  }
}

/** Offset of `needle` in `haystack` (the templates' identity fields are found, not hand-counted). */
export function offsetOf(haystack: Uint8Array, needle: Uint8Array): number {
  const at = Buffer.from(haystack).indexOf(Buffer.from(needle));
  if (at < 0) throw new Error('template field not found');
  return at;
}
