// The app data of the two packs of a chunk (FORMAT.md § "events.pack", § "index.pack"): events.pack carries
// the chunk's LedgerOffsets, index.pack the term schema it was built under; both carry the freeze's build id, so a
// reader refuses files of different freezes put side by side.
import { chunkIdOfLedger, EventsError, INDEXED_FIELD_MASK, LedgerOffsets, TERM_SCHEMA_VERSION } from '@strata/events';
import { ColdStoreErrorCode } from '../errors.js';
import {
  BUILD_ID_BYTES,
  copyOf,
  corrupt,
  EVENTS_APP_DATA_VERSION,
  formatError,
  INDEX_APP_DATA_VERSION,
  readU16,
  readU32,
  writeU16,
  writeU32,
} from './layout.js';

/** events.pack app data: version ‖ build id ‖ LedgerOffsets.encode(). */
export function encodeEventsAppData(buildId: Uint8Array, offsets: LedgerOffsets): Uint8Array {
  const encoded = offsets.encode();
  const out = new Uint8Array(1 + BUILD_ID_BYTES + encoded.length);
  out[0] = EVENTS_APP_DATA_VERSION;
  out.set(buildId, 1);
  out.set(encoded, 1 + BUILD_ID_BYTES);
  return out;
}

/**
 * Decodes events.pack's app data and checks it against the pack and the chunk: the offsets' events must be the
 * pack's items and their first ledger must lie in `chunkId` (CORRUPT otherwise; BAD_VERSION for another version).
 */
export function decodeEventsAppData(
  bytes: Uint8Array,
  file: string,
  chunkId: number,
  itemCount: number,
): { buildId: Uint8Array; offsets: LedgerOffsets } {
  if (bytes.length < 1 + BUILD_ID_BYTES) corrupt(file, `app data of ${bytes.length} bytes`, 'app data');
  if (bytes[0] !== EVENTS_APP_DATA_VERSION) {
    formatError(ColdStoreErrorCode.BAD_VERSION, file, `app data version ${bytes[0]}`, undefined, 'app data');
  }
  let offsets: LedgerOffsets;
  try {
    offsets = LedgerOffsets.decode(bytes.subarray(1 + BUILD_ID_BYTES));
  } catch (error) {
    if (!(error instanceof EventsError)) throw error;
    formatError(ColdStoreErrorCode.CORRUPT, file, `LedgerOffsets: ${error.message}`, undefined, 'app data', error);
  }
  if (offsets.eventCount !== itemCount) {
    corrupt(file, `LedgerOffsets count ${offsets.eventCount} events, the pack holds ${itemCount}`, 'app data');
  }
  if (chunkIdOfLedger(offsets.startLedger) !== chunkId) {
    corrupt(file, `LedgerOffsets start at ledger ${offsets.startLedger}, outside chunk ${chunkId}`, 'app data');
  }
  return { buildId: copyOf(bytes, 1, 1 + BUILD_ID_BYTES), offsets };
}

const INDEX_APP_DATA_BYTES = 1 + BUILD_ID_BYTES + 2 + 8;

/** index.pack app data: version ‖ build id ‖ TERM_SCHEMA_VERSION u16 LE ‖ INDEXED_FIELD_MASK u64 LE. */
export function encodeIndexAppData(buildId: Uint8Array): Uint8Array {
  const out = new Uint8Array(INDEX_APP_DATA_BYTES);
  out[0] = INDEX_APP_DATA_VERSION;
  out.set(buildId, 1);
  writeU16(out, 1 + BUILD_ID_BYTES, TERM_SCHEMA_VERSION);
  writeU32(out, 3 + BUILD_ID_BYTES, INDEXED_FIELD_MASK);
  writeU32(out, 7 + BUILD_ID_BYTES, 0);
  return out;
}

/** Decodes index.pack's app data; BAD_VERSION for another version, term schema or field mask (no reader maps them). */
export function decodeIndexAppData(bytes: Uint8Array, file: string): { buildId: Uint8Array } {
  if (bytes.length !== INDEX_APP_DATA_BYTES) corrupt(file, `app data of ${bytes.length} bytes`, 'app data');
  if (bytes[0] !== INDEX_APP_DATA_VERSION) {
    formatError(ColdStoreErrorCode.BAD_VERSION, file, `app data version ${bytes[0]}`, undefined, 'app data');
  }
  const schema = readU16(bytes, 1 + BUILD_ID_BYTES);
  const maskLow = readU32(bytes, 3 + BUILD_ID_BYTES);
  const maskHigh = readU32(bytes, 7 + BUILD_ID_BYTES);
  if (schema !== TERM_SCHEMA_VERSION || maskLow !== INDEXED_FIELD_MASK || maskHigh !== 0) {
    formatError(
      ColdStoreErrorCode.BAD_VERSION,
      file,
      `built for term schema ${schema} with field mask 0x${maskHigh.toString(16)}${maskLow.toString(16).padStart(8, '0')}; this build reads schema ${TERM_SCHEMA_VERSION}, mask 0x${INDEXED_FIELD_MASK.toString(16)}`,
      undefined,
      'app data',
    );
  }
  return { buildId: copyOf(bytes, 1, 1 + BUILD_ID_BYTES) };
}
