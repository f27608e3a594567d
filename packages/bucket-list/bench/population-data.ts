// The population benchmark's state: a BucketList holding 1 M live CONTRACT_DATA entries, their 1 M TTLs and 1 k
// contract codes, with about 5 versions of every key spread over the levels (the bottom level holds every key; each
// higher level holds a newer version of a random fraction of them, and a few keys are deleted and recreated), as a
// long-running network's list looks. Written directly as bucket files plus a HAS (building it through 2 million
// ledgers would take longer than the benchmark), with entries stamped from templates in key order.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';
import { BucketOutput } from '../src/bucket-file.js';
import { serializeHistoryArchiveState, ZERO_HASH } from '../src/history-archive-state.js';
import { DEAD_ENTRY, INIT_ENTRY, LIVE_ENTRY } from '../src/kind.js';
import { offsetOf } from './data.js';

export interface PopulationShape {
  dataKeys: number;
  codes: number;
  seed: number;
}

/** Fraction of keys holding a version in each level's curr, bottom level first (sums to 5: five versions a key). */
const LEVEL_FRACTIONS: [level: number, fraction: number][] = [
  [10, 1],
  [9, 0.8],
  [8, 0.7],
  [7, 0.6],
  [6, 0.5],
  [5, 0.4],
  [4, 0.3],
  [3, 0.3],
  [2, 0.2],
  [1, 0.2],
];
/** In level 1, this fraction of the keys it touches is deleted (DEAD); level 0 recreates half of those (INIT). */
const DELETED = 0.05;

const id32 = (n: number, tag: number): Uint8Array => {
  const out = new Uint8Array(32).fill(tag);
  new DataView(out.buffer).setUint32(0, n); // big-endian n first: keys ascend with n
  return out;
};

/** Templates whose identity (4 bytes, big-endian n) and version are stamped per entry, without allocating. */
class Stamp {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  constructor(
    template: Uint8Array,
    private readonly identityAt: number,
    private readonly versionAt: number,
    private readonly extraAt = -1,
  ) {
    this.bytes = new Uint8Array(4 + template.length);
    this.bytes.set(template, 4);
    this.view = new DataView(this.bytes.buffer);
  }
  put(out: BucketOutput, type: number, n: number, version: number): void {
    this.view.setInt32(0, type);
    this.view.setUint32(4 + this.identityAt, n);
    if (this.versionAt >= 0) this.view.setUint32(4 + this.versionAt, version);
    if (this.extraAt >= 0) this.view.setUint32(4 + this.extraAt, version + 100_000);
    out.put(this.bytes);
  }
}

function templates(): { data: Stamp; dataKey: Stamp; ttl: Stamp; ttlKey: Stamp; code: Stamp; codeKey: Stamp } {
  const contract = { type: 'contract' as const, contractId: new Uint8Array(32).fill(0xc0) };
  const balanceKey = (n: number) => ({
    type: 'vec' as const,
    value: [
      { type: 'symbol' as const, value: 'Balance' },
      { type: 'address' as const, value: { type: 'account' as const, accountId: id32(n, 0xaa) } },
    ],
  });
  const data = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: {
      type: 'contractData',
      contract,
      key: balanceKey(0),
      durability: 'persistent',
      val: { type: 'i128', value: 10_000_000n },
    },
  });
  const dataKey = encodeLedgerKey({ type: 'contractData', contract, key: balanceKey(0), durability: 'persistent' });
  const ttl = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'ttl', keyHash: id32(0, 0xbb), liveUntilLedgerSeq: 1 },
  });
  const ttlKey = encodeLedgerKey({ type: 'ttl', keyHash: id32(0, 0xbb) });
  const code = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'contractCode', hash: id32(0, 0xcc), code: new Uint8Array(8192).fill(0x61) },
  });
  const codeKey = encodeLedgerKey({ type: 'contractCode', hash: id32(0, 0xcc) });
  const at = (bytes: Uint8Array, tag: number) => offsetOf(bytes, id32(0, tag));
  return {
    data: new Stamp(data, at(data, 0xaa), 0),
    dataKey: new Stamp(dataKey, at(dataKey, 0xaa), -1),
    ttl: new Stamp(ttl, at(ttl, 0xbb), 0, ttl.length - 8),
    ttlKey: new Stamp(ttlKey, at(ttlKey, 0xbb), -1),
    code: new Stamp(code, at(code, 0xcc), 0),
    codeKey: new Stamp(codeKey, at(codeKey, 0xcc), -1),
  };
}

/**
 * Writes the state into `dir` (`buckets/` and `has.json`) and returns the number of bucket entries of the three
 * types and the live counts a correct scan must produce.
 */
export function writePopulationState(dir: string, shape: PopulationShape): { bucketEntries: number; live: number } {
  const buckets = join(dir, 'buckets');
  mkdirSync(buckets, { recursive: true });
  const t = templates();
  const random = seededRandom(shape.seed);
  const total = shape.dataKeys;
  // Per key: deleted in level 1? recreated in level 0?
  const state = new Uint8Array(total); // 0 live, 1 deleted, 2 deleted and recreated
  const levels = new Map<number, string>();
  let bucketEntries = 0;
  const layers: [level: number, fraction: number][] = [...LEVEL_FRACTIONS, [0, 0]];
  for (const [level, fraction] of layers) {
    const out = new BucketOutput(buckets, 'live', 23, { fsync: false });
    const version = 1000 * (11 - level);
    const chosen = new Uint8Array(total);
    for (let n = 0; n < total; n++) {
      if (level === 0) chosen[n] = state[n] === 1 && random() < 0.5 ? 1 : 0;
      else chosen[n] = random() < fraction ? 1 : 0;
      if (level === 1 && chosen[n] === 1 && random() < DELETED) state[n] = 1;
      if (level === 0 && chosen[n] === 1) state[n] = 2;
    }
    const typeOf = (n: number): number =>
      level === 0 ? INIT_ENTRY : level === 10 ? INIT_ENTRY : level === 1 && state[n] === 1 ? DEAD_ENTRY : LIVE_ENTRY;
    // CONTRACT_DATA (type 6), then CONTRACT_CODE (7), then TTL (9): the bucket's type order.
    for (let n = 0; n < total; n++) {
      if (chosen[n] === 0) continue;
      const type = typeOf(n);
      if (type === DEAD_ENTRY) t.dataKey.put(out, type, n, 0);
      else t.data.put(out, type, n, version);
      bucketEntries++;
    }
    for (let n = 0; n < shape.codes && level !== 0 && level !== 1; n++) {
      if (chosen[n] === 0) continue;
      t.code.put(out, typeOf(n), n, version);
      bucketEntries++;
    }
    for (let n = 0; n < total; n++) {
      if (chosen[n] === 0) continue;
      const type = typeOf(n);
      if (type === DEAD_ENTRY) t.ttlKey.put(out, type, n, 0);
      else t.ttl.put(out, type, n, version);
      bucketEntries++;
    }
    levels.set(level, out.finish().hash);
  }
  let deleted = 0;
  for (let n = 0; n < total; n++) if (state[n] === 1) deleted++;
  const has = {
    version: 2 as const,
    server: 'strata-bench',
    currentLedger: 5_000_000,
    networkPassphrase: 'Strata population benchmark',
    currentBuckets: Array.from({ length: 11 }, (_, level) => ({
      curr: levels.get(level) ?? ZERO_HASH,
      next: { state: 0 as const },
      snap: ZERO_HASH,
    })),
    hotArchiveBuckets: Array.from({ length: 11 }, () => ({
      curr: ZERO_HASH,
      next: { state: 0 as const },
      snap: ZERO_HASH,
    })),
  };
  writeFileSync(join(dir, 'has.json'), serializeHistoryArchiveState(has));
  return { bucketEntries, live: 2 * (total - deleted) + shape.codes };
}
