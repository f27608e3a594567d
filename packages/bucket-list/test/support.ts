// Test support for bucket-list: a pool of realistic ledger entries of several types (keyed by a small integer so a
// test can talk about "key 17"), versions of an entry (same key, other contents), and an oracle that replays
// batches into plain Maps — the simple model every list test compares against.
import { createHash } from 'node:crypto';
import type { xdr } from '@stellar/stellar-base';
import { compareLedgerKeys, encodeLedgerEntry, type LedgerEntry, ledgerKeyOfEntry } from '@strata/ledger-key';
import { hex, seededRandom, withTempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { bucketEntryForKeyArb, ledgerKeyObjectArb, siblingKeyArb, toBytes } from '../../ledger-key/test/arbitraries.js';
import { type BucketFile, writeBucket } from '../src/bucket-file.js';
import type { BucketIndex } from '../src/bucket-index/bucket-index.js';
import { type BinaryFuse16, FuseHashCollector } from '../src/bucket-index/fuse-filter.js';
import { PageIndex } from '../src/bucket-index/page-index.js';
import { type BucketKind, encodeMeta, FIRST_PROTOCOL_INIT_AND_META, kindOps, META, recordType } from '../src/kind.js';
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
 * (init), a present one updated (live) or deleted (dead), so histories are I L* (D I L*)* D?. On ledgers that start
 * at protocol 23 or later (every one but the first drawn and the upgrade ledger), a hot-archive batch archives or
 * restores a few archivable keys.
 */
export class BatchStream {
  private readonly present = new Set<number>();
  private readonly random: () => number;
  /** The protocol of the previous ledger drawn, undefined before the first. */
  private previousProtocol: number | undefined;

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
    // Like stellar-core: a hot-archive batch only on a ledger that started at protocol 23 (not the first, not the
    // upgrade ledger).
    const withHot = this.previousProtocol !== undefined && this.previousProtocol >= 23;
    this.previousProtocol = protocolVersion;
    if (withHot) {
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

/**
 * A temporary directory (test-kit's withTempDir) held for a whole test file whose module-level material lives in it:
 * created now, removed by `release` (call it from afterAll).
 */
export async function holdTempDir(prefix: string): Promise<{ dir: string; release: () => Promise<void> }> {
  let resolveDir!: (dir: string) => void;
  let done!: () => void;
  const created = new Promise<string>((resolve) => {
    resolveDir = resolve;
  });
  const held = withTempDir((dir) => {
    resolveDir(dir);
    return new Promise<void>((resolve) => {
      done = resolve;
    });
  }, prefix);
  const dir = await created;
  return {
    dir,
    release: async () => {
      done();
      await held;
    },
  };
}

/** The binary fuse filter of `keys` built through the collector, or undefined when fewer than two are distinct. */
export function fuseFilterOf(keys: readonly Uint8Array[], seed = 0x1234_5678_9abc_def0n): BinaryFuse16 | undefined {
  const collector = new FuseHashCollector(seed);
  for (const key of keys) collector.add(key);
  return collector.build();
}

// ---- BucketIndex against an oracle: random buckets of both kinds and what their index must answer (used by
// bucket-index.test.ts and bucket-index.property.test.ts).

/** A generated record: its key (decoded, for neighbours), its payload, and a near neighbour key. */
export type GeneratedRecord = [key: xdr.LedgerKey, payload: Uint8Array, neighbour: Uint8Array];

export const notMeta = (payload: Uint8Array): boolean => recordType(payload) !== META;

export const liveRecordArb: fc.Arbitrary<GeneratedRecord> = ledgerKeyObjectArb.chain((key) =>
  fc.tuple(fc.constant(key), bucketEntryForKeyArb(key).filter(notMeta), siblingKeyArb(key).map(toBytes)),
);

export interface Scenario {
  kind: BucketKind;
  protocol: number;
  records: GeneratedRecord[];
  absent: Uint8Array[];
  pageSize: number;
  /** Fraction of the file size at which the incremental builder's cutoff sits (0 → page index, > 1 → in memory). */
  cutoffFraction: number;
}

export interface IndexOracle {
  /** key hex → payload and the offset of its record mark. */
  present: Map<string, { key: Uint8Array; payload: Uint8Array; offset: number }>;
  absent: Uint8Array[];
  /** LedgerEntryType → [start, end). */
  typeRanges: Map<number, { start: number; end: number }>;
}

/** Writes the scenario's bucket and computes, independently of the index code, what its index must answer. */
export function makeBucket(dir: string, scenario: Scenario): { bucket: BucketFile; oracle: IndexOracle } {
  const ops = kindOps(scenario.kind);
  const byKey = new Map<string, Uint8Array>();
  const neighbours: Uint8Array[] = [];
  for (const [keyObject, generated, neighbour] of scenario.records) {
    let payload = generated;
    // INIT does not exist before protocol 11: make it LIVE.
    if (scenario.kind === 'live' && scenario.protocol < FIRST_PROTOCOL_INIT_AND_META && recordType(payload) === 2) {
      payload = new Uint8Array(payload);
      payload[3] = 0;
    }
    const key = toBytes(keyObject);
    if (!byKey.has(hex(key))) byKey.set(hex(key), payload);
    neighbours.push(neighbour);
  }
  const payloads = [...byKey.values()].sort(ops.compare);
  return bucketWithOracle(dir, scenario.kind, scenario.protocol, payloads, [...scenario.absent, ...neighbours]);
}

/** Writes sorted, distinct-key payloads as a bucket and works out its oracle; `absent` keys that are present are dropped. */
export function bucketWithOracle(
  dir: string,
  kind: BucketKind,
  protocol: number,
  payloads: Uint8Array[],
  absent: Uint8Array[],
): { bucket: BucketFile; oracle: IndexOracle } {
  const ops = kindOps(kind);
  const bucket = writeBucket(dir, kind, protocol, payloads, { fsync: false });
  const present: IndexOracle['present'] = new Map();
  const typeStarts: [number, number][] = [];
  let offset = protocol >= FIRST_PROTOCOL_INIT_AND_META ? 4 + encodeMeta(kind, protocol).length : 0;
  for (const payload of payloads) {
    const tombstone = ops.isTombstone(recordType(payload));
    const key = tombstone ? payload.slice(4) : ledgerKeyOfEntry(payload.subarray(4));
    present.set(hex(key), { key, payload, offset });
    const type = new DataView(key.buffer, key.byteOffset).getInt32(0);
    if (typeStarts.length === 0 || typeStarts[typeStarts.length - 1]![0] !== type) typeStarts.push([type, offset]);
    offset += 4 + payload.length;
  }
  const typeRanges = new Map<number, { start: number; end: number }>();
  typeStarts.forEach(([type, start], i) => {
    typeRanges.set(type, { start, end: i + 1 < typeStarts.length ? typeStarts[i + 1]![1] : bucket.size });
  });
  return { bucket, oracle: { present, absent: absent.filter((key) => !present.has(hex(key))), typeRanges } };
}

/** Every disagreement between `index` and the oracle, as text (empty when they agree). */
export function disagreements(index: BucketIndex, oracle: IndexOracle): string[] {
  const problems: string[] = [];
  for (const [keyHex, { key, payload }] of oracle.present) {
    const got = index.lookup(key);
    if (got === undefined || hex(got) !== hex(payload)) problems.push(`lookup ${keyHex}: ${got && hex(got)}`);
  }
  for (const key of oracle.absent) {
    const got = index.lookup(key);
    if (got !== undefined) problems.push(`absent ${hex(key)} found`);
  }
  // lookupSorted over present and absent keys together (sorted, with a repeated key).
  const keys = [...[...oracle.present.values()].map((entry) => entry.key), ...oracle.absent].sort(compareLedgerKeys);
  if (keys.length > 0) keys.push(keys[keys.length - 1]!);
  const found = new Map<number, string>();
  index.lookupSorted(keys, (i, payload) => {
    if (found.has(i)) problems.push(`lookupSorted reported ${i} twice`);
    found.set(i, hex(payload));
  });
  keys.forEach((key, i) => {
    const expected = oracle.present.get(hex(key));
    const got = found.get(i);
    if ((expected === undefined ? undefined : hex(expected.payload)) !== got) {
      problems.push(`lookupSorted ${i} ${hex(key)}: ${got}`);
    }
  });
  const ranges = [...index.typeRanges].map(([type, range]) => [type, range.start, range.end]);
  const expectedRanges = [...oracle.typeRanges].map(([type, range]) => [type, range.start, range.end]);
  if (JSON.stringify(ranges) !== JSON.stringify(expectedRanges)) {
    problems.push(`type ranges ${JSON.stringify(ranges)} != ${JSON.stringify(expectedRanges)}`);
  }
  return problems;
}

export function withIndex<T>(index: BucketIndex, body: (index: BucketIndex) => T): T {
  try {
    return body(index);
  } finally {
    index.close();
  }
}

export function scenarioOf(kind: BucketKind, records: GeneratedRecord[], pageSize = 256): Scenario {
  return { kind, protocol: 23, records, absent: [], pageSize, cutoffFraction: 0 };
}

export function samePageIndex(a: BucketIndex, b: BucketIndex): boolean {
  if (!(a instanceof PageIndex) || !(b instanceof PageIndex)) return false;
  const same = (x: ArrayBufferView | undefined, y: ArrayBufferView | undefined) =>
    x === undefined || y === undefined
      ? x === y
      : Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  return (
    a.table.pageCount === b.table.pageCount &&
    same(a.table.pageOffsets, b.table.pageOffsets) &&
    same(a.table.keyStarts, b.table.keyStarts) &&
    same(a.table.keyBytes, b.table.keyBytes) &&
    a.filter?.hashSeed === b.filter?.hashSeed &&
    a.filter?.mixSeed === b.filter?.mixSeed &&
    same(a.filter?.fingerprints, b.filter?.fingerprints)
  );
}
