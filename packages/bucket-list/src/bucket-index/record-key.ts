// How an index looks at one record in a buffer of record-marked bytes: its length, its LedgerEntryType, and its order
// against a LedgerKey. Both bucket kinds put a LedgerKey in their tombstone records (live DEAD, hot-archive LIVE;
// both discriminant 1) and a LedgerEntry in every other non-META record, so one set of helpers serves both.
import {
  compareEntryToKey,
  compareKeyedRecordsAt,
  compareLedgerKeys,
  LedgerKeyError,
  validateLedgerKey,
} from '@strata/ledger-key';
import { BucketError } from '../errors.js';

/** The discriminant shared by both kinds' key-only records (live DEADENTRY, hot-archive LIVE). */
export const KEY_RECORD = 1;

/**
 * Big-endian int32 at `at` (the caller has checked the bounds). Not ledger-key's `readU32(bytes, at) | 0`: that is a
 * public function and checks its arguments (a Uint8Array, a safe-integer offset, the bounds) on every call, and this
 * runs several times per record in the JavaScript merge and the index scans.
 */
export function int32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
}

/**
 * The payload length of the record whose mark is at `at` in `bytes[0, end)`, or -1 when the mark is malformed or the
 * record runs past `end` (the same rules as RecordReader).
 */
export function recordLengthAt(bytes: Uint8Array, at: number, end: number): number {
  if (at + 4 > end) return -1;
  const mark = int32At(bytes, at) >>> 0;
  const length = mark & 0x7fffffff;
  if (mark < 0x80000000 || length < 8 || length % 4 !== 0 || at + 4 + length > end) return -1;
  return length;
}

/**
 * LedgerEntryType of the non-META record payload at [start, end): the int32 after the discriminant for key records,
 * after discriminant and lastModifiedLedgerSeq for entry records.
 */
export function recordEntryType(bytes: Uint8Array, start: number, end: number): number {
  const keyRecord = int32At(bytes, start) === KEY_RECORD;
  const at = start + (keyRecord ? 4 : 8);
  return at + 4 <= end ? int32At(bytes, at) : -1;
}

/**
 * Order of two validated record payloads read in place at `a[aStart]` and `b[bStart]` (a merge's read buffers), by
 * their keys: the entry's key for entry records, the key itself for key records. Nothing past the first difference is
 * read, so both records must come from verified buckets.
 */
export function compareRecordsAt(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number): number {
  const aIsEntry = int32At(a, aStart) !== KEY_RECORD;
  return compareKeyedRecordsAt(a, aStart + 4, aIsEntry, b, bStart + 4, int32At(b, bStart) !== KEY_RECORD);
}

/** Order of the record payload at [start, end) against a LedgerKey (stellar-core LedgerEntryIdCmp). */
export function compareRecordToKey(bytes: Uint8Array, start: number, end: number, key: Uint8Array): number {
  const body = bytes.subarray(start + 4, end);
  return int32At(bytes, start) === KEY_RECORD ? compareLedgerKeys(body, key) : compareEntryToKey(body, key);
}

// Key prefixes. The first 12 bytes of a LedgerKey — its type and the first 8 bytes of its first field (an account
// id, SCAddress, hash, balance id or config setting id: non-negative discriminants and fixed opaque bytes) — order
// exactly as the keys do wherever they differ, so comparing three words decides most comparisons of a binary search
// without the full comparator (which validates a whole entry per call). Equal prefixes fall back to the comparator.
// CONFIG_SETTING keys are 8 bytes: their third word is 0, in the key and in the entry alike.

const CONTRACT_DATA = 6;
const CONTRACT_CODE = 7;
const CONFIG_SETTING = 8;

/** Writes the 3-word prefix of a LedgerKey to out[at, at + 3). */
export function keyPrefix(key: Uint8Array, out: Uint32Array, at: number): void {
  out[at] = key.length >= 4 ? int32At(key, 0) >>> 0 : 0;
  out[at + 1] = key.length >= 8 ? int32At(key, 4) >>> 0 : 0;
  out[at + 2] = key.length >= 12 ? int32At(key, 8) >>> 0 : 0;
}

/**
 * Writes the 3-word prefix of the key of the record payload at bytes[start, end) to out[at, at + 3): taken from the
 * key of a key record, from the data arm of an entry record (after the ext of CONTRACT_DATA / CONTRACT_CODE).
 */
export function recordKeyPrefix(bytes: Uint8Array, start: number, end: number, out: Uint32Array, at: number): void {
  const type = recordTypeAt(bytes, start);
  const field = recordKeyFieldsAt(bytes, start, end);
  const entryType = type + 4 <= end ? int32At(bytes, type) : -1;
  out[at] = entryType >>> 0;
  out[at + 1] = field + 4 <= end ? int32At(bytes, field) >>> 0 : 0;
  out[at + 2] = entryType !== CONFIG_SETTING && field + 8 <= end ? int32At(bytes, field + 4) >>> 0 : 0;
}

/** Offset of the LedgerEntryType word of the key of the non-META record payload at `start`. */
function recordTypeAt(bytes: Uint8Array, start: number): number {
  return int32At(bytes, start) === KEY_RECORD ? start + 4 : start + 8;
}

/**
 * Offset of the key fields (what a LedgerKey holds after its type) of the record payload at bytes[start, end): right
 * after the type in a key record; in an entry record, where the data arm holds them (after the ext of CONTRACT_DATA
 * and CONTRACT_CODE).
 */
function recordKeyFieldsAt(bytes: Uint8Array, start: number, end: number): number {
  if (int32At(bytes, start) === KEY_RECORD) return start + 8;
  const field = start + 12;
  const entryType = start + 12 <= end ? int32At(bytes, start + 8) : -1;
  if (entryType === CONTRACT_DATA) return field + 4;
  if (entryType === CONTRACT_CODE) return field + (field + 4 <= end && int32At(bytes, field) === 1 ? 52 : 4);
  return field;
}

/**
 * Whether the record payload at bytes[start, end) of a verified bucket holds LedgerKey `key` (a validated key), by
 * comparing bytes in place: the key's type word, then its fields where the record holds them. Byte equality is key
 * equality here: XDR is canonical and a key's encoding is prefix-free, so a record whose key fields begin with the
 * whole of a valid key's fields has that key. No allocation and no comparator: cheap enough for every page read.
 */
export function recordHasKey(bytes: Uint8Array, start: number, end: number, key: Uint8Array): boolean {
  const type = recordTypeAt(bytes, start);
  const field = recordKeyFieldsAt(bytes, start, end);
  const fieldsLength = key.length - 4;
  if (key.length < 4 || type + 4 > end || field + fieldsLength > end) return false;
  if (int32At(bytes, start) === KEY_RECORD && end - field !== fieldsLength) return false;
  for (let i = 0; i < 4; i++) if (bytes[type + i] !== key[i]) return false;
  for (let i = 0; i < fieldsLength; i++) if (bytes[field + i] !== key[4 + i]) return false;
  return true;
}

/** The LedgerEntryType of a LedgerKey (its first word). */
export function keyEntryType(key: Uint8Array): number {
  return key.length >= 4 ? int32At(key, 0) : -1;
}

/** Order of the prefixes a[i, i + 3) and b[j, j + 3): -1, 0 (undecided) or 1. */
export function comparePrefixes(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  for (let k = 0; k < 3; k++) {
    const x = a[i + k]!;
    const y = b[j + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Throws INVALID_ARGUMENT unless `key` is one valid LedgerKey. */
export function checkQueryKey(key: Uint8Array, field = 'key'): void {
  try {
    validateLedgerKey(key);
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    throw new BucketError('INVALID_ARGUMENT', `not a LedgerKey: ${error.message}`, { field, cause: error });
  }
}

/** Throws INVALID_ARGUMENT unless `keys` is ascending in stellar-core's order (equal neighbours allowed). */
export function checkAscending(keys: readonly Uint8Array[]): void {
  if (!Array.isArray(keys)) {
    throw new BucketError('INVALID_ARGUMENT', 'keys must be an array of LedgerKeys', { field: 'keys' });
  }
  for (let i = 0; i < keys.length; i++) {
    checkQueryKey(keys[i]!, `keys[${i}]`);
    if (i > 0 && compareLedgerKeys(keys[i - 1]!, keys[i]!) > 0) {
      throw new BucketError('INVALID_ARGUMENT', 'keys must be sorted ascending by compareLedgerKeys', {
        field: `keys[${i}]`,
      });
    }
  }
}
