// Read-only access to a hot chunk's term index as term → ordinals lists, for building a frozen chunk's index
// straight from what the hot tier already holds (instead of deriving every event's terms again and regrouping them).
// Nothing here writes: it reads the TermIndex of a reader's image (sparse terms' arena runs, dense terms' bitmaps).
import { TERM_KEY_BYTES } from '@strata/events';
import { HotStoreError, HotStoreErrorCode } from './errors.js';
import { HotChunkReader } from './hot-reader.js';
import type { TermIndex } from './term-index.js';

/**
 * The terms of a hot chunk's events [0, eventCount) with their ordinals, in the hot index's term order.
 *
 * Valid while the index does not change: take it from a reader of a chunk whose ingest is complete (as a freeze
 * does), and do not refresh the reader (its `eventCount()`, `ledgerOffsets()`, `refresh()`) while using it. The
 * arrays `ordinals` returns may be views into the index: copy what you keep.
 */
export interface HotTermOrdinals {
  /** The window's end: every ordinal answered is below it. */
  readonly eventCount: number;
  /** Terms with at least one ordinal below eventCount, numbered 0 .. termCount − 1. */
  readonly termCount: number;
  /** Copies term `term`'s 16-byte key into out[at, at + 16). */
  keyInto(term: number, out: Uint8Array, at: number): void;
  /** Term `term`'s ordinals below eventCount, ascending, at least one (a view valid until the index changes). */
  ordinals(term: number): Uint32Array;
}

/**
 * The term → ordinals lists of `reader`'s chunk as of `eventCount` (default: the reader's event count now, after a
 * refresh). Exact: each term's list is the ordinals below eventCount that `reader.lookupTerms` answers for it, and
 * the terms are exactly the keys of the events [0, eventCount). O(terms) to set up (one pass over the index to skip
 * terms with no ordinal in the window), then O(ordinals) per list.
 *
 * Errors (HotStoreError): INVALID_ARGUMENT (not a HotChunkReader, or eventCount past the reader's), CLOSED.
 */
export function hotTermOrdinals(reader: HotChunkReader, eventCount?: number): HotTermOrdinals {
  if (!(reader instanceof HotChunkReader)) {
    throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, 'expected a HotChunkReader', { field: 'reader' });
  }
  const published = reader.eventCount();
  const end = eventCount ?? published;
  if (!Number.isInteger(end) || end < 0 || end > published) {
    throw new HotStoreError(
      HotStoreErrorCode.INVALID_ARGUMENT,
      `eventCount ${end} outside [0, ${published}] (the reader's events)`,
      { field: 'eventCount' },
    );
  }
  const index: TermIndex = reader.imageForTermOrdinals().index;
  // The index and the event count are published together (one synchronous step of an ingest or a refresh): at the
  // reader's own count every term of the index has an ordinal below it. Below that count, terms whose ordinals all
  // lie at or past `end` (posted by the ledgers after it) are left out.
  let all = end === published;
  let termCount = index.size;
  const ids = new Uint32Array(all ? 0 : index.size);
  if (!all) {
    termCount = 0;
    for (let id = 0; id < index.size; id++) if (index.ordinalsIn(id, 0, end).length > 0) ids[termCount++] = id;
    all = termCount === index.size;
  }
  return {
    eventCount: end,
    termCount,
    keyInto(term, out, at) {
      checkTerm(term, termCount);
      if (!(out instanceof Uint8Array) || !Number.isInteger(at) || at < 0 || at + TERM_KEY_BYTES > out.length) {
        throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, 'no room for a term key', { field: 'out' });
      }
      index.keyInto(all ? term : ids[term]!, out, at);
    },
    ordinals(term) {
      checkTerm(term, termCount);
      return index.ordinalsIn(all ? term : ids[term]!, 0, end);
    },
  };
}

function checkTerm(term: number, termCount: number): void {
  if (!Number.isInteger(term) || term < 0 || term >= termCount) {
    throw new HotStoreError(HotStoreErrorCode.INVALID_ARGUMENT, `term ${term} outside [0, ${termCount})`, {
      field: 'term',
    });
  }
}
