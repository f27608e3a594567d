// BucketEntry (live bucket list) and HotArchiveBucketEntry: validation and zero-copy views. Bucket files are
// sequences of these; the comparator that orders them lives in compare.ts.
import { invalidArgument } from './errors.js';
import { type LedgerEntryView, readLedgerEntry, skipLedgerEntry } from './ledger-entry.js';
import { LedgerKeyView, skipLedgerKey } from './ledger-key.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { BUCKET_ENTRY_TYPE, HOT_ARCHIVE_BUCKET_ENTRY_TYPE } = xdrConstants;
const { expectEnd, i32, readEnum, skipFixed, startOffset, u32 } = xdrCursor;

/** BucketMetadata: the protocol version that wrote the bucket, and (ext v1) which bucket list it belongs to. */
export interface BucketMetadata {
  ledgerVersion: number;
  /** BUCKET_LIST_TYPE (LIVE 0, HOT_ARCHIVE 1); absent for ext v0. */
  bucketListType?: number;
}

/** BucketMetadata {uint32 ledgerVersion; union switch (int v) {case 0: void; case 1: BucketListType}}. */
export function skipBucketMetadata(b: Uint8Array, p: number): number {
  const q = skipFixed(b, p, 4, 'BucketMetadata.ledgerVersion');
  if (readEnum(b, q, 0, 1, 'BucketMetadata.ext.v') === 0) return q + 4;
  readEnum(b, q + 4, 0, 1, 'BucketMetadata.ext.bucketListType');
  return q + 8;
}

function readMetadata(b: Uint8Array, p: number): BucketMetadata {
  const ledgerVersion = u32(b, p);
  return u32(b, p + 4) === 0 ? { ledgerVersion } : { ledgerVersion, bucketListType: u32(b, p + 8) };
}

/** Validates one BucketEntry at `p` (METAENTRY -1, LIVEENTRY 0, DEADENTRY 1, INITENTRY 2). */
export function skipBucketEntry(b: Uint8Array, p: number): number {
  const type = readEnum(b, p, -1, 2, 'BucketEntry.type');
  if (type === BUCKET_ENTRY_TYPE.METAENTRY) return skipBucketMetadata(b, p + 4);
  if (type === BUCKET_ENTRY_TYPE.DEADENTRY) return skipLedgerKey(b, p + 4);
  return skipLedgerEntry(b, p + 4);
}

/** Validates one HotArchiveBucketEntry at `p` (METAENTRY -1, ARCHIVED 0 = entry, LIVE 1 = key). */
export function skipHotArchiveBucketEntry(b: Uint8Array, p: number): number {
  const type = readEnum(b, p, -1, 1, 'HotArchiveBucketEntry.type');
  if (type === HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_METAENTRY) return skipBucketMetadata(b, p + 4);
  if (type === HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_LIVE) return skipLedgerKey(b, p + 4);
  return skipLedgerEntry(b, p + 4);
}

const BUCKET_KINDS = ['meta', 'live', 'dead', 'init'] as const;
export type BucketEntryKind = (typeof BUCKET_KINDS)[number];
const HOT_ARCHIVE_KINDS = ['meta', 'archived', 'live'] as const;
export type HotArchiveBucketEntryKind = (typeof HOT_ARCHIVE_KINDS)[number];

/** Shared shape of the two bucket entry views: a discriminant, then metadata, an entry or a key. */
abstract class BucketRecordView {
  /** The exact XDR bytes of this bucket entry (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** The signed discriminant (-1 for metadata). */
  readonly type: number;

  constructor(xdr: Uint8Array) {
    this.xdr = xdr;
    this.type = i32(xdr, 0);
  }

  get byteLength(): number {
    return this.xdr.length;
  }

  protected abstract holdsEntry(): boolean;
  protected abstract holdsKey(): boolean;

  /** The metadata record's fields (only on the metadata kind). */
  get metadata(): BucketMetadata {
    if (this.type !== -1) invalidArgument('BucketEntry.metadata', 'only a metadata entry has metadata');
    return readMetadata(this.xdr, 4);
  }

  /** The full LedgerEntry of an entry-holding kind. */
  entry(): LedgerEntryView {
    if (!this.holdsEntry()) invalidArgument('BucketEntry.entry', 'this bucket entry holds no LedgerEntry');
    return readLedgerEntry(this.xdr, 4);
  }

  /** The LedgerKey of a key-only kind (DEADENTRY, HOT_ARCHIVE_LIVE), in place. */
  key(): LedgerKeyView {
    if (!this.holdsKey()) invalidArgument('BucketEntry.key', 'this bucket entry holds no bare LedgerKey');
    return new LedgerKeyView(this.xdr.subarray(4));
  }

  /** The LedgerKey bytes of any non-metadata kind: in place for key kinds, a new array for entry kinds. */
  keyBytes(): Uint8Array {
    if (this.holdsKey()) return this.xdr.subarray(4);
    return this.entry().key();
  }
}

/** Zero-copy reader over one validated live-bucket BucketEntry. */
export class BucketEntryView extends BucketRecordView {
  /** 'meta' | 'live' | 'dead' | 'init' */
  get kind(): BucketEntryKind {
    return BUCKET_KINDS[this.type + 1]!;
  }

  protected holdsEntry(): boolean {
    return this.type === BUCKET_ENTRY_TYPE.LIVEENTRY || this.type === BUCKET_ENTRY_TYPE.INITENTRY;
  }

  protected holdsKey(): boolean {
    return this.type === BUCKET_ENTRY_TYPE.DEADENTRY;
  }
}

/** Zero-copy reader over one validated HotArchiveBucketEntry. */
export class HotArchiveBucketEntryView extends BucketRecordView {
  /** 'meta' | 'archived' | 'live' */
  get kind(): HotArchiveBucketEntryKind {
    return HOT_ARCHIVE_KINDS[this.type + 1]!;
  }

  protected holdsEntry(): boolean {
    return this.type === HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_ARCHIVED;
  }

  protected holdsKey(): boolean {
    return this.type === HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_LIVE;
  }
}

/**
 * Reads and validates a BucketEntry. Without `offset` it must fill `bytes`; with `offset` it is read from inside a
 * larger buffer (a bucket file body) and `view.byteLength` says how far to advance.
 */
export function readBucketEntry(bytes: Uint8Array, offset?: number): BucketEntryView {
  const start = startOffset(bytes, offset);
  const end = skipBucketEntry(bytes, start);
  if (offset === undefined) expectEnd(bytes, end, 'BucketEntry');
  return new BucketEntryView(bytes.subarray(start, end));
}

/** Reads and validates a HotArchiveBucketEntry (same offset rules as readBucketEntry). */
export function readHotArchiveBucketEntry(bytes: Uint8Array, offset?: number): HotArchiveBucketEntryView {
  const start = startOffset(bytes, offset);
  const end = skipHotArchiveBucketEntry(bytes, start);
  if (offset === undefined) expectEnd(bytes, end, 'HotArchiveBucketEntry');
  return new HotArchiveBucketEntryView(bytes.subarray(start, end));
}

/** Validates that `bytes` hold exactly one BucketEntry. */
export function validateBucketEntry(bytes: Uint8Array): void {
  startOffset(bytes, undefined);
  expectEnd(bytes, skipBucketEntry(bytes, 0), 'BucketEntry');
}

/** Validates that `bytes` hold exactly one HotArchiveBucketEntry. */
export function validateHotArchiveBucketEntry(bytes: Uint8Array): void {
  startOffset(bytes, undefined);
  expectEnd(bytes, skipHotArchiveBucketEntry(bytes, 0), 'HotArchiveBucketEntry');
}
