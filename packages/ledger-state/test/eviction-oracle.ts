// Test support for the eviction scan: Soroban entries to build histories from, a by-hand reader of bucket files, and
// an oracle of stellar-core's eviction written the plain way — whole bucket files parsed into record lists, the
// visiting order of buckets laid out first, TTLs and newest versions found by walking the parsed buckets newest first
// — so it shares no code with src/eviction beyond @strata/ledger-key's XDR.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  BucketListSnapshot,
  emptyBucket,
  freshLiveEntries,
  openBucketIndex,
  type SnapshotBucket,
  writeBucket,
} from '@strata/bucket-list';
import { encodeLedgerEntry, ledgerKeyOfEntry, ttlKeyOf } from '@strata/ledger-key';
import { hex } from '@strata/test-kit';
import type { EvictionIterator } from '../src/eviction/settings.js';

export type SorobanKind = 'temporary' | 'persistent' | 'code';

const id32 = (label: string, n: number): Uint8Array =>
  new Uint8Array(createHash('sha256').update(`eviction:${label}:${n}`).digest());

/** Soroban entry `n` of `kind` at `version` (lastModifiedLedgerSeq), its body `padding` bytes longer. */
export function sorobanEntry(kind: SorobanKind, n: number, version: number, padding = 0): Uint8Array {
  if (kind === 'code') {
    return encodeLedgerEntry({
      lastModifiedLedgerSeq: version,
      data: { type: 'contractCode', hash: id32('code', n), code: new Uint8Array(8 + padding).fill(version & 0xff) },
    });
  }
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: version,
    data: {
      type: 'contractData',
      contract: { type: 'contract', contractId: id32('contract', n % 3) },
      key: { type: 'u64', value: BigInt(n) },
      durability: kind,
      val: { type: 'bytes', value: new Uint8Array(padding).fill(version & 0xff) },
    },
  });
}

export function keyOf(entry: Uint8Array): Uint8Array {
  return ledgerKeyOfEntry(entry);
}

/** The TTL entry of a Soroban entry's key. */
export function ttlEntryOf(key: Uint8Array, liveUntilLedgerSeq: number, version: number): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: version,
    data: { type: 'ttl', keyHash: ttlKeyOf(key).subarray(4), liveUntilLedgerSeq },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Bucket files read by hand.

export interface ParsedRecord {
  start: number;
  end: number;
  /** BucketEntryType: -1 META, 0 LIVE, 1 DEAD, 2 INIT. */
  type: number;
  /** LedgerKey XDR (hex) of an entry or tombstone; '' for META. */
  key: string;
  /** The LedgerEntry XDR of INIT/LIVE records. */
  entry: Uint8Array | undefined;
}

export interface ParsedBucket {
  /** undefined: the empty bucket (no file). */
  records: ParsedRecord[] | undefined;
  protocol: number;
}

const u32 = (bytes: Uint8Array, p: number): number =>
  ((bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!) >>> 0;

export function parseBucketFile(path: string | undefined): ParsedBucket {
  if (path === undefined) return { records: undefined, protocol: 0 };
  const bytes = new Uint8Array(readFileSync(path));
  const records: ParsedRecord[] = [];
  let protocol = 0;
  for (let p = 0; p < bytes.length; ) {
    const length = u32(bytes, p) & 0x7fffffff;
    const payload = bytes.subarray(p + 4, p + 4 + length);
    const type = u32(payload, 0) | 0;
    let key = '';
    let entry: Uint8Array | undefined;
    if (type === -1) protocol = u32(payload, 4);
    else if (type === 1) key = hex(payload.subarray(4));
    else {
      entry = payload.slice(4);
      key = hex(ledgerKeyOfEntry(entry));
    }
    records.push({ start: p, end: p + 4 + length, type, key, entry });
    p += 4 + length;
  }
  return { records, protocol };
}

/** Parsed buckets by file (a bucket file is named by its hash, so its contents never change). */
const parsedFiles = new Map<string, ParsedBucket>();

/** The 22 live slots of a snapshot, parsed. */
export function parseSnapshot(snapshot: BucketListSnapshot): ParsedBucket[] {
  if (parsedFiles.size > 2000) parsedFiles.clear();
  return snapshot.live.map((slot) => {
    const path = slot.file.path;
    if (path === undefined) return parseBucketFile(undefined);
    let parsed = parsedFiles.get(path);
    if (parsed === undefined) {
      parsed = parseBucketFile(path);
      parsedFiles.set(path, parsed);
    }
    return parsed;
  });
}

/** Newest record of `keyHex` in the parsed list (slots newest first): its entry, or undefined (absent or DEAD). */
export function newestOf(slots: ParsedBucket[], keyHex: string): Uint8Array | undefined {
  for (const bucket of slots) {
    const record = bucket.records?.find((r) => r.type !== -1 && r.key === keyHex);
    if (record !== undefined) return record.entry;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle.

export interface OracleInput {
  ledgerSeq: number;
  /** Ledger N-1's protocol. */
  protocol: number;
  iterator: EvictionIterator;
  scanSize: number;
  startLevel: number;
  maxEntries: number;
  /** TTL keys (hex of the 36-byte LedgerKey) ledger N modified. */
  ttlModified: ReadonlySet<string>;
  /** Deliberately broken variants, for the negative controls. */
  broken?: 'no-reset' | 'iterator-at-region-end' | 'scanned-version' | 'no-dedup';
}

export interface OracleResult {
  /** [key hex, entry hex] per evicted entry, in order. */
  evicted: [string, string][];
  evictedKeys: string[];
  iterator: EvictionIterator;
}

const spills = (ledger: number, level: number): boolean => level < 10 && ledger % 2 ** (2 * level + 1) === 0;

/** stellar-core's eviction for ledger N over the parsed buckets of ledger N-1. */
export function oracleEviction(slots: ParsedBucket[], input: OracleInput): OracleResult {
  const { ledgerSeq, protocol } = input;
  // Where the scan starts.
  let { bucketListLevel: level, isCurrBucket: curr, bucketFileOffset: offset } = input.iterator;
  if (level < input.startLevel) [level, curr, offset] = [input.startLevel, true, 0];
  const changed = curr ? spills(ledgerSeq - 1, level - 1) : spills(ledgerSeq - 1, level);
  if (changed && input.broken !== 'no-reset') offset = 0;

  // Buckets in visiting order: the start, then curr → snap → next level, wrapping to the start level, until back.
  const order: [number, boolean][] = [[level, curr]];
  for (;;) {
    let [l, c] = order.at(-1)!;
    if (c && l !== 10) c = false;
    else [l, c] = [l + 1 === 11 ? input.startLevel : l + 1, true];
    if (l === level && c === curr) break;
    order.push([l, c]);
  }

  const evictable = (record: ParsedRecord): boolean => {
    if (record.type !== 0 && record.type !== 2) return false;
    const keyType = u32(Buffer.from(record.key.slice(0, 8), 'hex'), 0);
    if (keyType === 7) return protocol >= 23; // CONTRACT_CODE
    if (keyType !== 6) return false;
    const temporary = record.key.endsWith('00000000');
    return temporary || protocol >= 23;
  };
  const persistentKey = (keyHex: string): boolean => keyHex.startsWith('00000007') || keyHex.endsWith('00000001');

  interface Found {
    key: string;
    entry: string;
    ttlKey: string;
    after: EvictionIterator;
  }
  const found: Found[] = [];
  let budget = input.scanSize;
  let end: EvictionIterator | undefined;
  for (let i = 0; i < order.length && end === undefined; i++) {
    const [l, c] = order[i]!;
    const bucket = slots[2 * l + (c ? 0 : 1)]!;
    if (bucket.records === undefined || bucket.protocol < 20) continue;
    const from = i === 0 ? offset : 0;
    if (budget === 0) {
      end = { bucketListLevel: l, isCurrBucket: c, bucketFileOffset: from };
      break;
    }
    const keysBefore = new Set(input.broken === 'no-dedup' ? [] : found.map((f) => f.key));
    let used = 0;
    for (const record of bucket.records) {
      if (record.start < from) continue;
      used = record.end - from;
      const after = { bucketListLevel: l, isCurrBucket: c, bucketFileOffset: record.end };
      if (evictable(record) && !keysBefore.has(record.key)) {
        const ttlKey = hex(ttlKeyOf(Buffer.from(record.key, 'hex')));
        const ttl = newestOf(slots, ttlKey);
        const liveUntil = ttl === undefined ? undefined : u32(ttl, ttl.length - 8);
        if (liveUntil !== undefined && liveUntil < ledgerSeq) {
          let entry = record.entry!;
          if (protocol >= 24 && persistentKey(record.key) && input.broken !== 'scanned-version') {
            entry = newestOf(slots, record.key)!;
          }
          found.push({ key: record.key, entry: hex(entry), ttlKey, after });
        }
      }
      if (used >= budget) {
        end = after;
        break;
      }
    }
    if (end === undefined) budget -= used;
  }
  end ??= { bucketListLevel: level, isCurrBucket: curr, bucketFileOffset: 0 };

  const evicted = found.filter((f) => !input.ttlModified.has(f.ttlKey)).slice(0, input.maxEntries);
  const iterator =
    evicted.length === input.maxEntries && evicted.length > 0 && input.broken !== 'iterator-at-region-end'
      ? evicted.at(-1)!.after
      : end;
  const deleted: string[] = [];
  const archived: string[] = [];
  for (const f of evicted) {
    if (persistentKey(f.key)) archived.push(f.key);
    else deleted.push(f.key);
    deleted.push(f.ttlKey);
  }
  return {
    evicted: evicted.map((f) => [f.key, f.entry]),
    evictedKeys: [...deleted, ...archived],
    iterator,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Hand-built snapshots: chosen buckets in chosen slots.

/** A live bucket of `protocol` holding the entries (INIT, or LIVE with `asLive` or before protocol 11) and dead keys. */
export function bucketFile(
  dir: string,
  protocol: number,
  entries: Uint8Array[],
  options: { dead?: Uint8Array[]; asLive?: boolean } = {},
) {
  const asLive = options.asLive === true || protocol < 11;
  const batch = { init: asLive ? [] : entries, live: asLive ? entries : [], dead: options.dead ?? [] };
  return writeBucket(dir, 'live', protocol, freshLiveEntries(protocol, batch), { fsync: false });
}

/** A snapshot at `ledger` whose live slots hold `files` (slot → BucketFile), every other slot empty. */
export function snapshotOf(ledger: number, files: Map<number, ReturnType<typeof bucketFile>>): BucketListSnapshot {
  const live: SnapshotBucket[] = [];
  for (let slot = 0; slot < 22; slot++) {
    const file = files.get(slot) ?? emptyBucket('live');
    live.push({ file, index: file.path === undefined ? undefined : openBucketIndex(file) });
  }
  const hot = Array.from({ length: 22 }, () => ({ file: emptyBucket('hot-archive'), index: undefined }));
  return new BucketListSnapshot(ledger, live, hot, () => undefined);
}

/** Slot of a level's curr or snap. */
export const slotOf = (level: number, curr: boolean): number => 2 * level + (curr ? 0 : 1);
