// The two ConfigSettingEntry arms the eviction scan reads and writes, hand-read and hand-written as XDR:
// CONFIG_SETTING_EVICTION_ITERATOR (where the scan stands, rewritten every ledger) and CONFIG_SETTING_STATE_ARCHIVAL
// (its settings). A "body" is the arm after the ConfigSettingID, as @strata/ledger-key's
// `LedgerEntryView.configSettingBody()` returns it and `encodeLedgerEntry` takes it.
import { CONFIG_SETTING_ID, encodeLedgerEntry } from '@strata/ledger-key';
import { bytesOf, integerIn, invalidArgument, optionsRecord } from '../arguments.js';
import { LedgerStateError } from '../errors.js';

/** EvictionIterator { uint32 bucketListLevel; bool isCurrBucket; uint64 bucketFileOffset; } */
export interface EvictionIterator {
  /** 0..10. */
  readonly bucketListLevel: number;
  /** The level's curr bucket, else its snap. */
  readonly isCurrBucket: boolean;
  /** Byte offset of the next record to scan in that bucket file (a record boundary). */
  readonly bucketFileOffset: number;
}

/** The EVICTION_ITERATOR arm is 16 bytes: uint32, bool (a 4-byte 0 or 1), uint64. */
export const EVICTION_ITERATOR_BODY_BYTES = 16;
/** The STATE_ARCHIVAL arm is 48 bytes: 3 × uint32, 2 × int64, 5 × uint32. */
export const STATE_ARCHIVAL_BODY_BYTES = 48;

/**
 * StateArchivalSettings, every field in XDR order (Stellar-contract-config-setting.x). The eviction scan uses
 * `evictionScanSize`, `startingEvictionScanLevel` and `maxEntriesToArchive`.
 */
export interface StateArchivalSettings {
  readonly maxEntryTtl: number;
  readonly minTemporaryTtl: number;
  readonly minPersistentTtl: number;
  readonly persistentRentRateDenominator: bigint;
  readonly tempRentRateDenominator: bigint;
  /** At most this many entries are evicted per ledger. */
  readonly maxEntriesToArchive: number;
  readonly liveSorobanStateSizeWindowSampleSize: number;
  readonly liveSorobanStateSizeWindowSamplePeriod: number;
  /** Bytes of bucket records the scan reads per ledger. */
  readonly evictionScanSize: number;
  /** The lowest level the scan visits (1..10 for a valid network configuration). */
  readonly startingEvictionScanLevel: number;
}

function bodyView(value: unknown, size: number, field: string): DataView {
  const body = bytesOf(value, field);
  if (body.length !== size) {
    throw new LedgerStateError('BAD_ENTRY', `${field} is ${body.length} bytes, expected ${size}`, { field });
  }
  return new DataView(body.buffer, body.byteOffset, body.byteLength);
}

/** Reads the CONFIG_SETTING_EVICTION_ITERATOR arm. Throws BAD_ENTRY for a wrong size, a bool not 0/1, an offset ≥ 2^53. */
export function decodeEvictionIterator(body: Uint8Array): EvictionIterator {
  const field = 'EvictionIterator';
  const view = bodyView(body, EVICTION_ITERATOR_BODY_BYTES, field);
  const isCurr = view.getUint32(4);
  if (isCurr > 1) {
    throw new LedgerStateError('BAD_ENTRY', `isCurrBucket is ${isCurr}, not an XDR bool`, {
      field: `${field}.isCurrBucket`,
      offset: 4,
    });
  }
  const offset = view.getBigUint64(8);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new LedgerStateError('BAD_ENTRY', `bucketFileOffset ${offset} is beyond any bucket file`, {
      field: `${field}.bucketFileOffset`,
      offset: 8,
    });
  }
  return { bucketListLevel: view.getUint32(0), isCurrBucket: isCurr === 1, bucketFileOffset: Number(offset) };
}

/** Checks an EvictionIterator a caller hands in (shape and XDR ranges; the scan checks the level against the list). */
export function requireEvictionIterator(value: unknown, field: string): asserts value is EvictionIterator {
  const iterator = optionsRecord(value, field, false);
  integerIn(iterator.bucketListLevel, `${field}.bucketListLevel`, 0, 0xffff_ffff);
  if (typeof iterator.isCurrBucket !== 'boolean') {
    throw invalidArgument(`${field}.isCurrBucket`, 'true or false', iterator.isCurrBucket);
  }
  integerIn(iterator.bucketFileOffset, `${field}.bucketFileOffset`, 0, Number.MAX_SAFE_INTEGER);
}

/** Writes the CONFIG_SETTING_EVICTION_ITERATOR arm (16 bytes). */
export function encodeEvictionIterator(iterator: EvictionIterator): Uint8Array {
  requireEvictionIterator(iterator, 'iterator');
  const body = new Uint8Array(EVICTION_ITERATOR_BODY_BYTES);
  const view = new DataView(body.buffer);
  view.setUint32(0, iterator.bucketListLevel);
  view.setUint32(4, iterator.isCurrBucket ? 1 : 0);
  view.setBigUint64(8, BigInt(iterator.bucketFileOffset));
  return body;
}

/**
 * The CONFIG_SETTING_EVICTION_ITERATOR LedgerEntry XDR as stellar-core commits it each ledger
 * (SorobanNetworkConfig::updateEvictionIterator: load and commit, so LIVE with `lastModifiedLedgerSeq` = the ledger,
 * ext v0), for the ledger's live batch.
 */
export function evictionIteratorEntry(ledgerSeq: number, iterator: EvictionIterator): Uint8Array {
  integerIn(ledgerSeq, 'ledgerSeq', 0, 0xffff_ffff);
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: ledgerSeq,
    data: {
      type: 'configSetting',
      configSettingId: CONFIG_SETTING_ID.EVICTION_ITERATOR,
      body: encodeEvictionIterator(iterator),
    },
  });
}

/** Reads the CONFIG_SETTING_STATE_ARCHIVAL arm (48 bytes; BAD_ENTRY otherwise). */
export function decodeStateArchivalSettings(body: Uint8Array): StateArchivalSettings {
  const view = bodyView(body, STATE_ARCHIVAL_BODY_BYTES, 'StateArchivalSettings');
  return {
    maxEntryTtl: view.getUint32(0),
    minTemporaryTtl: view.getUint32(4),
    minPersistentTtl: view.getUint32(8),
    persistentRentRateDenominator: view.getBigInt64(12),
    tempRentRateDenominator: view.getBigInt64(20),
    maxEntriesToArchive: view.getUint32(28),
    liveSorobanStateSizeWindowSampleSize: view.getUint32(32),
    liveSorobanStateSizeWindowSamplePeriod: view.getUint32(36),
    evictionScanSize: view.getUint32(40),
    startingEvictionScanLevel: view.getUint32(44),
  };
}
