// BucketEntry and HotArchiveBucketEntry writers: metadata, and entries or keys given as model objects or as XDR
// that is validated and copied verbatim.
import { invalidArgument } from '../errors.js';
import { validateLedgerEntry } from '../ledger-entry.js';
import { validateLedgerKey } from '../ledger-key.js';
import type { BucketEntry, BucketMetadataInput, HotArchiveBucketEntry, LedgerEntry, LedgerKey } from '../model.js';
import { BUCKET_LIST_TYPE } from '../xdr-constants.js';
import { checkedXdr, tagOf, u32Of } from './input-checks.js';
import { writeLedgerEntry } from './ledger-entry.js';
import { writeLedgerKey } from './ledger-key.js';
import { encodeWith, type XdrWriter } from './xdr-writer.js';

/** The METAENTRY discriminant (-1 in both bucket kinds) and BucketMetadata (ext v1 when a list type is given). */
function writeBucketMetadata(w: XdrWriter, meta: BucketMetadataInput, field: string): void {
  w.i32(-1); // METAENTRY / HOT_ARCHIVE_METAENTRY
  w.u32(u32Of(meta.ledgerVersion, `${field}.ledgerVersion`));
  if (meta.bucketListType === undefined) {
    w.u32(0);
    return;
  }
  if (meta.bucketListType !== 'live' && meta.bucketListType !== 'hotArchive') {
    invalidArgument(`${field}.bucketListType`, `expected 'live' or 'hotArchive'`);
  }
  w.u32(1);
  w.u32(meta.bucketListType === 'live' ? BUCKET_LIST_TYPE.LIVE : BUCKET_LIST_TYPE.HOT_ARCHIVE);
}

/** A LedgerEntry given as a model object, or as XDR that is validated and copied verbatim. */
function writeEntryOrBytes(w: XdrWriter, entry: LedgerEntry | Uint8Array, field: string): void {
  if (entry instanceof Uint8Array) w.fixed(checkedXdr(entry, validateLedgerEntry, field));
  else writeLedgerEntry(w, entry, field);
}

/** A LedgerKey given as a model object, or as XDR that is validated and copied verbatim. */
function writeKeyOrBytes(w: XdrWriter, key: LedgerKey | Uint8Array, field: string): void {
  if (key instanceof Uint8Array) w.fixed(checkedXdr(key, validateLedgerKey, field));
  else writeLedgerKey(w, key, field);
}

/** How a bucket kind tags its records: the discriminant of each arm holding an entry, and of each holding a key. */
interface BucketArms {
  readonly name: string;
  readonly entryArms: ReadonlyMap<unknown, number>;
  readonly keyArms: ReadonlyMap<unknown, number>;
}

const LIVE_BUCKET_ARMS: BucketArms = {
  name: 'BucketEntry',
  entryArms: new Map([
    ['live', 0],
    ['init', 2],
  ]),
  keyArms: new Map([['dead', 1]]),
};

const HOT_ARCHIVE_BUCKET_ARMS: BucketArms = {
  name: 'HotArchiveBucketEntry',
  entryArms: new Map([['archived', 0]]),
  keyArms: new Map([['live', 1]]),
};

/** One bucket record of either kind: METAENTRY, or its arm's discriminant and then the entry or key. */
function writeBucketRecord(
  w: XdrWriter,
  record: BucketEntry | HotArchiveBucketEntry,
  arms: BucketArms,
  field: string,
): void {
  if (record?.type === 'meta') {
    writeBucketMetadata(w, record, field);
    return;
  }
  const type: unknown = record?.type;
  const entryArm = arms.entryArms.get(type);
  if (entryArm !== undefined) {
    w.i32(entryArm);
    writeEntryOrBytes(w, (record as { entry: LedgerEntry | Uint8Array }).entry, `${field}.entry`);
    return;
  }
  const keyArm = arms.keyArms.get(type);
  if (keyArm !== undefined) {
    w.i32(keyArm);
    writeKeyOrBytes(w, (record as { key: LedgerKey | Uint8Array }).key, `${field}.key`);
    return;
  }
  invalidArgument(field, `unknown ${arms.name} type ${tagOf(record)}`);
}

/** Canonical XDR of a live-bucket BucketEntry (meta / live / init / dead). */
export function encodeBucketEntry(entry: BucketEntry): Uint8Array {
  return encodeWith(entry, (w, e, field) => writeBucketRecord(w, e, LIVE_BUCKET_ARMS, field), 'BucketEntry');
}

/** Canonical XDR of a HotArchiveBucketEntry (meta / archived / live). */
export function encodeHotArchiveBucketEntry(entry: HotArchiveBucketEntry): Uint8Array {
  return encodeWith(
    entry,
    (w, e, field) => writeBucketRecord(w, e, HOT_ARCHIVE_BUCKET_ARMS, field),
    'HotArchiveBucketEntry',
  );
}
