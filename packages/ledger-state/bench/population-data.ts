// The population benchmarks' BucketList: `dataKeys` live CONTRACT_DATA entries (SAC-balance shape, 148 bytes), their
// TTLs and `codes` CONTRACT_CODE entries with theirs, about 5 versions of every key spread over the levels (the
// bottom level holds every key; each higher level a newer version of a random fraction; level 1 deletes a few keys
// — entry and TTL — and level 0 recreates half of those). Unlike @strata/bucket-list's population bench (which
// scans only), each TTL's key hash is the SHA-256 of its entry's key, so the in-memory Soroban state can be built
// from it. Written directly as bucket files plus a HAS; entries are stamped from templates in key order.
import { hash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BucketOutput, serializeHistoryArchiveState, ZERO_HASH } from '@strata/bucket-list';
import { BUCKET_ENTRY_TYPE, encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';

export interface PopulationShape {
  dataKeys: number;
  codes: number;
  seed: number;
}

export interface PopulationState {
  /** Bucket entries of the three types in all buckets (every version, DEAD ones included). */
  bucketEntries: number;
  /** What a population must find. */
  liveData: number;
  liveCodes: number;
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
  [0, 0],
];
/** In level 1, this fraction of the keys it touches is deleted (DEAD); level 0 recreates half of those (INIT). */
const DELETED = 0.05;
const { INITENTRY, LIVEENTRY, DEADENTRY } = BUCKET_ENTRY_TYPE;

/** 32 bytes of `tag` with big-endian `n` first: keys built from it ascend with n. */
function id32(n: number, tag: number): Uint8Array {
  const out = new Uint8Array(32).fill(tag);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function offsetOf(haystack: Uint8Array, needle: Uint8Array): number {
  const at = Buffer.from(haystack).indexOf(Buffer.from(needle));
  if (at < 0) throw new Error('template field not found');
  return at;
}

/** A BucketEntry template (type word + XDR) whose identity and version fields are stamped in place. */
class Stamp {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  constructor(
    xdr: Uint8Array,
    private readonly identityAt: number,
    private readonly versionAt: number,
  ) {
    this.bytes = new Uint8Array(4 + xdr.length);
    this.bytes.set(xdr, 4);
    this.view = new DataView(this.bytes.buffer);
  }
  stamp(type: number, n: number, version: number): Uint8Array {
    this.view.setInt32(0, type);
    if (this.identityAt >= 0) this.view.setUint32(4 + this.identityAt, n);
    if (this.versionAt >= 0) this.view.setUint32(4 + this.versionAt, version);
    return this.bytes;
  }
  /** The stamped XDR after the type word (a LedgerKey or LedgerEntry). */
  get xdr(): Uint8Array {
    return this.bytes.subarray(4);
  }
}

function templates() {
  const contract = { type: 'contract' as const, contractId: new Uint8Array(32).fill(0xc0) };
  const balanceKey = {
    type: 'vec' as const,
    value: [
      { type: 'symbol' as const, value: 'Balance' },
      { type: 'address' as const, value: { type: 'account' as const, accountId: id32(0, 0xaa) } },
    ],
  };
  const keyFields = { contract, key: balanceKey, durability: 'persistent' as const };
  const data = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'contractData', ...keyFields, val: { type: 'i128', value: 10_000_000n } },
  });
  const dataKey = encodeLedgerKey({ type: 'contractData', ...keyFields });
  const code = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'contractCode', hash: id32(0, 0xcc), code: new Uint8Array(8192).fill(0x61) },
  });
  const codeKey = encodeLedgerKey({ type: 'contractCode', hash: id32(0, 0xcc) });
  const ttl = encodeLedgerEntry({
    lastModifiedLedgerSeq: 1,
    data: { type: 'ttl', keyHash: new Uint8Array(32), liveUntilLedgerSeq: 1 },
  });
  const ttlKey = encodeLedgerKey({ type: 'ttl', keyHash: new Uint8Array(32) });
  return {
    data: new Stamp(data, offsetOf(data, id32(0, 0xaa)), 0),
    dataKey: new Stamp(dataKey, offsetOf(dataKey, id32(0, 0xaa)), -1),
    code: new Stamp(code, offsetOf(code, id32(0, 0xcc)), 0),
    codeKey: new Stamp(codeKey, offsetOf(codeKey, id32(0, 0xcc)), -1),
    // TTL: key hash at 8 (written per entry), liveUntilLedgerSeq at 40, lastModifiedLedgerSeq at 0
    ttl: new Stamp(ttl, -1, 0),
    ttlKey: new Stamp(ttlKey, -1, -1),
  };
}

/** Writes the state into `dir` (`buckets/` and `has.json`). */
export function writePopulationState(dir: string, shape: PopulationShape): PopulationState {
  const buckets = join(dir, 'buckets');
  mkdirSync(buckets, { recursive: true });
  const t = templates();
  const random = seededRandom(shape.seed);
  const { dataKeys, codes } = shape;
  // TTL key hashes: of data key n at n, of code key n at dataKeys + n; TTLs are written in hash order.
  const hashes = new Uint8Array(32 * (dataKeys + codes));
  for (let n = 0; n < dataKeys; n++) {
    hashes.set(hash('sha256', t.dataKey.stamp(0, n, 0).subarray(4), 'buffer'), 32 * n);
  }
  for (let n = 0; n < codes; n++) {
    hashes.set(hash('sha256', t.codeKey.stamp(0, n, 0).subarray(4), 'buffer'), 32 * (dataKeys + n));
  }
  const ttlOrder = Array.from({ length: dataKeys + codes }, (_, i) => i);
  const hashView = new DataView(hashes.buffer);
  ttlOrder.sort((a, b) => {
    for (let w = 0; w < 8; w++) {
      const x = hashView.getUint32(32 * a + 4 * w);
      const y = hashView.getUint32(32 * b + 4 * w);
      if (x !== y) return x - y;
    }
    return 0;
  });

  const state = new Uint8Array(dataKeys); // per data key: 0 live, 1 deleted, 2 deleted and recreated
  const levels = new Map<number, string>();
  let bucketEntries = 0;
  for (const [level, fraction] of LEVEL_FRACTIONS) {
    const out = new BucketOutput(buckets, 'live', 23, { fsync: false });
    const version = 1000 * (11 - level);
    // chosen[i]: key i (data keys, then codes) has a version in this level; codes never in levels 0 and 1
    const chosen = new Uint8Array(dataKeys + codes);
    for (let n = 0; n < dataKeys; n++) {
      if (level === 0) chosen[n] = state[n] === 1 && random() < 0.5 ? 1 : 0;
      else chosen[n] = random() < fraction ? 1 : 0;
      if (level === 1 && chosen[n] === 1 && random() < DELETED) state[n] = 1;
      if (level === 0 && chosen[n] === 1) state[n] = 2;
    }
    for (let n = 0; n < codes; n++) chosen[dataKeys + n] = level > 1 && random() < fraction ? 1 : 0;
    const typeOf = (i: number): number => {
      if (level === 0 || level === 10) return INITENTRY;
      return level === 1 && i < dataKeys && state[i] === 1 ? DEADENTRY : LIVEENTRY;
    };
    // CONTRACT_DATA (6), CONTRACT_CODE (7), TTL (9): the bucket's type order
    for (let n = 0; n < dataKeys; n++) {
      if (chosen[n] === 0) continue;
      const type = typeOf(n);
      out.put(type === DEADENTRY ? t.dataKey.stamp(type, n, 0) : t.data.stamp(type, n, version));
      bucketEntries++;
    }
    for (let n = 0; n < codes; n++) {
      if (chosen[dataKeys + n] === 0) continue;
      out.put(t.code.stamp(typeOf(dataKeys + n), n, version));
      bucketEntries++;
    }
    for (const i of ttlOrder) {
      if (chosen[i] === 0) continue;
      const type = typeOf(i);
      const keyHash = hashes.subarray(32 * i, 32 * i + 32);
      if (type === DEADENTRY) {
        const key = t.ttlKey.stamp(type, 0, 0);
        key.set(keyHash, 8);
        out.put(key);
      } else {
        const entry = t.ttl.stamp(type, 0, version);
        entry.set(keyHash, 12);
        new DataView(entry.buffer).setUint32(4 + 40, version + 100_000);
        out.put(entry);
      }
      bucketEntries++;
    }
    levels.set(level, out.finish().hash);
  }
  let deleted = 0;
  for (let n = 0; n < dataKeys; n++) if (state[n] === 1) deleted++;
  const has = {
    version: 2 as const,
    server: 'strata-bench',
    currentLedger: 5_000_000,
    networkPassphrase: 'Strata Soroban state population benchmark',
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
  return { bucketEntries, liveData: dataKeys - deleted, liveCodes: codes };
}
