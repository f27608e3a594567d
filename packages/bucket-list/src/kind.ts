// The two kinds of bucket stellar-core keeps since protocol 23: the live list (BucketEntry: META, INIT, LIVE, DEAD)
// and the hot archive (HotArchiveBucketEntry: META, ARCHIVED, LIVE-as-tombstone). Everything kind-specific — order,
// validation, which entry is a tombstone, the equal-key merge rule, what a lookup returns — lives here, so the file,
// merge and list code is written once.
import {
  compareBucketEntries,
  compareBucketEntryKeys,
  compareHotArchiveBucketEntries,
  compareHotArchiveBucketEntryKeys,
  ledgerKeyOfEntry,
  validateBucketEntry,
  validateHotArchiveBucketEntry,
} from '@strata/ledger-key';
import { BucketError } from './errors.js';

export type BucketKind = 'live' | 'hot-archive';

/** BucketEntryType / HotArchiveBucketEntryType discriminants (the first XDR word of every record). */
export const META = -1;
export const LIVE_ENTRY = 0;
export const DEAD_ENTRY = 1;
export const INIT_ENTRY = 2;
export const HOT_ARCHIVED = 0;
export const HOT_LIVE = 1;

/** First protocol whose buckets carry METAENTRY and INITENTRY; first without shadows; first with the hot archive. */
export const FIRST_PROTOCOL_INIT_AND_META = 11;
export const FIRST_PROTOCOL_SHADOWS_REMOVED = 12;
export const FIRST_PROTOCOL_HOT_ARCHIVE = 23;

export interface KindOps {
  readonly kind: BucketKind;
  /** BucketListType in METAENTRY ext v1. */
  readonly listType: number;
  /** Strict total order of two records' payloads (validates both whole). */
  compare(a: Uint8Array, b: Uint8Array): number;
  /**
   * The same order for records already validated whole (read from a verified bucket, or checked when a batch came
   * in): only discriminants and key fields are read, so merges and sorts do not re-validate entry bodies.
   */
  compareKeys(a: Uint8Array, b: Uint8Array): number;
  /** Full structural validation of one payload (throws LedgerKeyError). */
  validate(payload: Uint8Array): void;
  /** True for the kind's tombstone (live DEADENTRY, hot-archive LIVE). */
  isTombstone(type: number): boolean;
  /**
   * For two records of the same key, `older` from the old bucket and `newer` from the new one: the record type to
   * write `newer`'s body with, or ANNIHILATED when nothing is written. Throws MERGE_CONFLICT for pairs the case table
   * forbids. Takes and returns record types: a merge rewrites one discriminant instead of copying the entry.
   */
  mergeEqual(olderType: number, newerType: number): number;
  /** The LedgerKey XDR of a non-META record (a copy for entries, a view for tombstone keys). */
  keyOf(payload: Uint8Array): Uint8Array;
}

/** The record's discriminant (the caller has checked the payload has at least 4 bytes). */
export function recordType(payload: Uint8Array): number {
  return (payload[0]! << 24) | (payload[1]! << 16) | (payload[2]! << 8) | payload[3]!;
}

/** mergeEqual's answer when the two records cancel out (INIT + DEAD). */
export const ANNIHILATED = -2;

/** A record payload: the discriminant `type` (any of the kinds' record types, META included) then `body`. */
export function bucketRecord(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out[0] = type >>> 24;
  out[1] = (type >>> 16) & 0xff;
  out[2] = (type >>> 8) & 0xff;
  out[3] = type & 0xff;
  out.set(body, 4);
  return out;
}

/** A copy of `payload` with its discriminant replaced (INIT ↔ LIVE share the LedgerEntry body). */
export function retyped(payload: Uint8Array, type: number): Uint8Array {
  const out = payload.slice();
  out[0] = type >>> 24;
  out[1] = (type >>> 16) & 0xff;
  out[2] = (type >>> 8) & 0xff;
  out[3] = type & 0xff;
  return out;
}

const live: KindOps = {
  kind: 'live',
  listType: 0,
  compare: compareBucketEntries,
  compareKeys: compareBucketEntryKeys,
  validate: validateBucketEntry,
  isTombstone: (type) => type === DEAD_ENTRY,
  // stellar-core LiveBucket::mergeCasesWithEqualKeys (spec §4.2).
  mergeEqual(o, n) {
    if (n === INIT_ENTRY) {
      if (o !== DEAD_ENTRY) {
        throw new BucketError('MERGE_CONFLICT', 'an INIT entry arrives onto a live entry of the same key');
      }
      return LIVE_ENTRY; // DEAD + INIT=x → LIVE=x
    }
    if (o === INIT_ENTRY) {
      if (n === LIVE_ENTRY) return INIT_ENTRY; // INIT=x + LIVE=y → INIT=y
      return ANNIHILATED; // INIT + DEAD → nothing
    }
    return n; // neither is INIT: the newer wins
  },
  keyOf: (payload) =>
    recordType(payload) === DEAD_ENTRY ? payload.subarray(4) : ledgerKeyOfEntry(payload.subarray(4)),
};

const hotArchive: KindOps = {
  kind: 'hot-archive',
  listType: 1,
  compare: compareHotArchiveBucketEntries,
  compareKeys: compareHotArchiveBucketEntryKeys,
  validate: validateHotArchiveBucketEntry,
  isTombstone: (type) => type === HOT_LIVE,
  mergeEqual: (_older, newer) => newer, // HotArchiveBucket::mergeCasesWithEqualKeys: the newer wins
  keyOf: (payload) => (recordType(payload) === HOT_LIVE ? payload.subarray(4) : ledgerKeyOfEntry(payload.subarray(4))),
};

export function kindOps(kind: BucketKind): KindOps {
  return kind === 'live' ? live : hotArchive;
}

/** Encodes a METAENTRY payload: BucketMetadata with ext v1 (the list type) from protocol 23, ext v0 before. */
export function encodeMeta(kind: BucketKind, protocolVersion: number): Uint8Array {
  const v1 = protocolVersion >= FIRST_PROTOCOL_HOT_ARCHIVE;
  const out = new Uint8Array(v1 ? 16 : 12);
  const view = new DataView(out.buffer);
  view.setInt32(0, META);
  view.setUint32(4, protocolVersion);
  view.setInt32(8, v1 ? 1 : 0);
  if (v1) view.setInt32(12, kindOps(kind).listType);
  return out;
}

/** Decoded METAENTRY payload, or throws BAD_META. */
export function decodeMeta(
  kind: BucketKind,
  payload: Uint8Array,
  where: { file?: string; offset?: number },
): { protocolVersion: number; listType: number | undefined } {
  const fail = (detail: string): never => {
    throw new BucketError('BAD_META', detail, where);
  };
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload.length !== 12 && payload.length !== 16) fail(`METAENTRY of ${payload.length} bytes`);
  const protocolVersion = view.getUint32(4);
  const ext = view.getInt32(8);
  if (ext === 0 && payload.length === 12) {
    if (kind === 'hot-archive') fail('hot-archive METAENTRY without a list type');
    return { protocolVersion, listType: undefined };
  }
  if (ext !== 1 || payload.length !== 16) fail(`METAENTRY ext ${ext}`);
  const listType = view.getInt32(12);
  if (listType !== kindOps(kind).listType) fail(`METAENTRY list type ${listType} in a ${kind} bucket`);
  return { protocolVersion, listType };
}
