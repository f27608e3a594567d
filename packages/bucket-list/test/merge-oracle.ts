// An independent model of a two-bucket merge, for checking file merges: concatenate both inputs, sort by key with the
// newer input first among equal keys, and keep one record per key, with stellar-core's rules for equal keys written
// out plainly here (not the package's case table or mergeArrays). Records are BucketEntry / HotArchiveBucketEntry XDR
// payloads: a 4-byte big-endian type, then a LedgerEntry, or a LedgerKey for the key-only type.
import { compareLedgerKeys, ledgerKeyOfEntry } from '@strata/ledger-key';

// stellar-core's BucketEntryType, and HotArchiveBucketEntryType's key-only type (ARCHIVED is 0).
const LIVEENTRY = 0;
const DEADENTRY = 1;
const INITENTRY = 2;
const HOT_ARCHIVE_LIVE = 1;

function typeOf(record: Uint8Array): number {
  return new DataView(record.buffer, record.byteOffset, 4).getUint32(0);
}

function keyOf(kind: 'live' | 'hot-archive', record: Uint8Array): Uint8Array {
  const keyOnly = kind === 'live' ? DEADENTRY : HOT_ARCHIVE_LIVE;
  return typeOf(record) === keyOnly ? record.subarray(4) : ledgerKeyOfEntry(record.subarray(4));
}

function retyped(record: Uint8Array, type: number): Uint8Array {
  const copy = record.slice();
  new DataView(copy.buffer).setUint32(0, type);
  return copy;
}

/**
 * The record a live merge writes for one key found in both inputs (LiveBucket::mergeCasesWithEqualKeys, protocol
 * 11 on), or undefined for none: INIT then DEAD annihilate; INIT then LIVE stays INIT with the newer entry; DEAD then
 * INIT becomes LIVE; otherwise the newer record as it is. INIT onto INIT or LIVE is a conflict (not generated here).
 */
function liveEqualKeys(older: Uint8Array, newer: Uint8Array): Uint8Array | undefined {
  const olderType = typeOf(older);
  const newerType = typeOf(newer);
  if (newerType === INITENTRY && olderType !== DEADENTRY) throw new Error('oracle: INIT onto a live entry');
  if (olderType === INITENTRY && newerType === DEADENTRY) return undefined;
  if (olderType === INITENTRY && newerType === LIVEENTRY) return retyped(newer, INITENTRY);
  if (olderType === DEADENTRY && newerType === INITENTRY) return retyped(newer, LIVEENTRY);
  return newer;
}

/** What merging `older` and `newer` (each sorted, one record per key) must give. */
export function oracleMerge(
  kind: 'live' | 'hot-archive',
  older: readonly Uint8Array[],
  newer: readonly Uint8Array[],
  keepTombstones: boolean,
): Uint8Array[] {
  const all = [
    ...newer.map((record) => ({ record, key: keyOf(kind, record), newer: true })),
    ...older.map((record) => ({ record, key: keyOf(kind, record), newer: false })),
  ];
  // Array.prototype.sort is stable: among equal keys the newer input's record stays first.
  all.sort((a, b) => compareLedgerKeys(a.key, b.key));
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i++) {
    const first = all[i]!;
    const second = all[i + 1];
    let record: Uint8Array | undefined = first.record;
    if (second !== undefined && compareLedgerKeys(first.key, second.key) === 0) {
      i++;
      record = kind === 'live' ? liveEqualKeys(second.record, first.record) : first.record; // hot archive: newer wins
    }
    if (record === undefined) continue;
    const tombstone = kind === 'live' ? DEADENTRY : HOT_ARCHIVE_LIVE;
    if (!keepTombstones && typeOf(record) === tombstone) continue;
    out.push(record);
  }
  return out;
}
