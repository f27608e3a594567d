// The pager's calls into the source and its readers, checked against the EventChunkSource / ChunkReader contracts
// (errors as src/reader-calls.ts reports them).
import { describeValue } from '@strata/base';
import {
  type ChunkReader,
  FIRST_LEDGER,
  type LedgerOffsets,
  MAX_LEDGER,
  type PayloadView,
  viewPayload,
} from '@strata/events';
import { MatchError, MatchErrorCode } from '../errors.js';
import { readerCall, storeInconsistent } from '../reader-calls.js';
import type { EventChunkSource, LedgerRange } from './event-source.js';

/** The reader `openChunk` gave, checked for the methods the pager and engine call and for its chunk id. */
export function checkReader(reader: ChunkReader, chunkId: number): ChunkReader {
  if (typeof reader !== 'object' || reader === null) {
    storeInconsistent(`openChunk answered ${describeValue(reader)}, not a ChunkReader`, chunkId);
  }
  for (const method of ['eventCount', 'ledgerOffsets', 'lookupTerms', 'fetchEvents', 'fetchRange'] as const) {
    if (typeof reader[method] !== 'function') storeInconsistent(`the chunk's reader has no ${method} method`, chunkId);
  }
  if (reader.chunkId !== chunkId)
    storeInconsistent(`openChunk answered the reader of chunk ${describeValue(reader.chunkId)}`, chunkId);
  return reader;
}

/**
 * The reader's offsets snapshot (taken once per chunk per request), checked to cover ledgers from..to and to fit
 * the reader's event count.
 */
export async function offsetsCovering(reader: ChunkReader, from: number, to: number): Promise<LedgerOffsets> {
  const { chunkId } = reader;
  const offsets = await readerCall('ledgerOffsets', chunkId, () => reader.ledgerOffsets());
  // Duck-typed rather than instanceof: a store may be built against another copy of @strata/events.
  const methods = ['windowForLedgers', 'firstOrdinal', 'countOf', 'ledgerOfOrdinal'] as const;
  if (typeof offsets !== 'object' || offsets === null || methods.some((m) => typeof offsets[m] !== 'function')) {
    storeInconsistent(`ledgerOffsets answered ${describeValue(offsets)}, not a LedgerOffsets`, chunkId);
  }
  if (offsets.ledgerCount === 0 || offsets.startLedger > from || offsets.lastLedger < to) {
    const covered = offsets.ledgerCount === 0 ? 'no ledger' : `ledgers ${offsets.startLedger}..${offsets.lastLedger}`;
    storeInconsistent(`the reader's offsets cover ${covered}, the page needs ${from}..${to}`, chunkId);
  }
  const count = await readerCall('eventCount', chunkId, () => reader.eventCount());
  if (!(count >= offsets.eventCount)) {
    storeInconsistent(`the offsets count ${offsets.eventCount} events, the reader ${describeValue(count)}`, chunkId);
  }
  return offsets;
}

/** One event by ordinal, for re-entry checks (the engine fetches everything else). */
export async function fetchOne(reader: ChunkReader, ordinal: number): Promise<PayloadView> {
  const { chunkId } = reader;
  const payloads = await readerCall('fetchEvents', chunkId, () => reader.fetchEvents([ordinal]));
  if (!Array.isArray(payloads) || payloads.length !== 1) {
    storeInconsistent(`fetchEvents answered ${describeValue(payloads)} for one ordinal`, chunkId);
  }
  return viewOf(payloads[0], ordinal, chunkId);
}

/** A view over a stored payload; a payload that is not one is STORE_INCONSISTENT (its EventsError the cause). */
export function viewOf(payload: unknown, ordinal: number, chunkId: number): PayloadView {
  try {
    return viewPayload(payload as Uint8Array);
  } catch (error) {
    return storeInconsistent(`the payload of ordinal ${ordinal} is not a stored event`, chunkId, error);
  }
}

/** The source argument: an object with the two methods. */
export function checkSource(source: EventChunkSource): void {
  if (
    typeof source !== 'object' ||
    source === null ||
    typeof source.ledgerRange !== 'function' ||
    typeof source.openChunk !== 'function'
  ) {
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, 'expected an EventChunkSource (ledgerRange, openChunk)', {
      field: 'source',
    });
  }
}

/** The served range, read once for the request and checked against EventChunkSource's contract. */
export async function servedRange(source: EventChunkSource): Promise<LedgerRange> {
  const range = await readerCall('ledgerRange', undefined, () => source.ledgerRange());
  const oldest: unknown = range?.oldestLedger;
  const latest: unknown = range?.latestLedger;
  const valid =
    Number.isInteger(oldest) &&
    Number.isInteger(latest) &&
    (oldest as number) >= FIRST_LEDGER &&
    (oldest as number) <= (latest as number) + 1 &&
    (latest as number) <= MAX_LEDGER;
  if (!valid) storeInconsistent(`ledgerRange answered ${String(oldest)} - ${String(latest)}`, undefined);
  return { oldestLedger: oldest as number, latestLedger: latest as number };
}
