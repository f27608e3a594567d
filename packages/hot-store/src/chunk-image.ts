// What readers of one hot chunk see, and how it is rebuilt from the database: the term index, the per-ledger
// counts (LedgerOffsets) and the latest ledger. The writer and every worker reader hold one image each; both fill
// it at open from one read transaction (sealed slabs, then the open slab's events) and grow it in the same
// publication order: index first, then offsets, then the latest ledger.
import {
  chunkFirstLedger,
  chunkIdOfLedger,
  deriveTermsInto,
  EventsError,
  eventTypeTermKey,
  LedgerOffsets,
  MAX_TERMS_PER_EVENT,
  TERM_KEY_BYTES,
} from '@strata/events';
import type Database from 'better-sqlite3';
import { corrupt, HotStoreError, HotStoreErrorCode } from './errors.js';
import { loadSlab } from './slab-postings.js';
import { SLAB_SHIFT, TermIndex } from './term-index.js';

/** The published state of one chunk. Mutated only by its owner (the writer, or one worker reader's refresh). */
export class ChunkImage {
  readonly chunkId: number;
  readonly index: TermIndex;
  /** First stored ledger; the chunk's first ledger while nothing is stored. */
  private start: number;
  private readonly counts: number[] = [];
  private published = 0;
  private latest: number | undefined;
  private offsets: LedgerOffsets | undefined;
  /** Slabs whose postings are in sealed_slabs. */
  sealedSlabs = 0;

  constructor(chunkId: number, threshold?: number) {
    this.chunkId = chunkId;
    this.start = chunkFirstLedger(chunkId);
    this.index = new TermIndex(threshold);
  }

  /** Events readers may fetch: the total of the published offsets. */
  get eventCount(): number {
    return this.published;
  }
  /** The newest published ledger, undefined while none is. */
  get latestLedger(): number | undefined {
    return this.latest;
  }
  /** The ledger an ingest must bring next, undefined while the chunk is empty (any ledger of the chunk). */
  get nextLedger(): number | undefined {
    return this.counts.length === 0 ? undefined : this.start + this.counts.length;
  }

  /** Published offsets; one LedgerOffsets per publication, built on first use and shared. */
  ledgerOffsets(): LedgerOffsets {
    if (this.offsets === undefined) this.offsets = LedgerOffsets.fromCounts(this.start, this.counts);
    return this.offsets;
  }

  /** Publication step 2: ledgers `first`.. with `counts` (consecutive to what is published). */
  publishOffsets(first: number, counts: readonly number[]): void {
    if (this.counts.length === 0) this.start = first;
    for (const count of counts) {
      this.counts.push(count);
      this.published += count;
    }
    this.offsets = undefined;
  }

  /** Publication step 3: the latest ledger. */
  publishLatest(ledger: number): void {
    this.latest = ledger;
  }
}

/** Stored events whose terms indexStoredEvents derives before adding them in one TermIndex.addEvents call. */
const INDEX_BATCH_EVENTS = 4096;
const termScratch = new Uint8Array(INDEX_BATCH_EVENTS * MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);
const countScratch = new Uint8Array(INDEX_BATCH_EVENTS);

/**
 * Adds the terms of the events with ordinals [from, to) to `index`, reading them from the database (inside the
 * caller's read transaction), INDEX_BATCH_EVENTS events per addEvents call. A payload that does not derive is
 * CORRUPT: it was valid when it was ingested.
 */
export function indexStoredEvents(db: Database.Database, file: string, index: TermIndex, from: number, to: number) {
  if (from >= to) return;
  const rows = db
    .prepare('SELECT ordinal, payload FROM events WHERE ordinal >= ? AND ordinal < ? ORDER BY ordinal')
    .raw()
    .iterate(from, to) as IterableIterator<[number, Uint8Array]>;
  let expected = from;
  let batched = 0;
  let at = 0;
  const flush = () => {
    index.addEvents(termScratch, countScratch, batched, expected - batched);
    batched = 0;
    at = 0;
  };
  for (const [ordinal, payload] of rows) {
    if (ordinal !== expected) throw corrupt(file, `event ${expected} is missing`, 'events');
    let n: number;
    try {
      n = deriveTermsInto(payload, termScratch, at);
    } catch (error) {
      if (!(error instanceof EventsError)) throw error;
      throw new HotStoreError(HotStoreErrorCode.CORRUPT, `stored event ${ordinal}: ${error.message}`, {
        file,
        field: 'events',
        cause: error,
      });
    }
    countScratch[batched++] = n;
    at += n * TERM_KEY_BYTES;
    expected++;
    if (batched === INDEX_BATCH_EVENTS) flush();
  }
  if (batched > 0) flush();
  if (expected !== to) throw corrupt(file, `events ${expected}..${to - 1} are missing`, 'events');
}

/** Ledger rows after `after` (all when undefined), checked to continue the image's counts. */
export function readLedgerRows(
  db: Database.Database,
  file: string,
  image: ChunkImage,
  after: number | undefined,
  firstOrdinal: number,
): { first: number | undefined; counts: number[] } {
  const rows = db
    .prepare('SELECT ledger, event_count, first_ordinal FROM ledgers WHERE ledger > ? ORDER BY ledger')
    .raw()
    .all(after ?? -1) as [number, number, number][];
  const counts: number[] = [];
  let next = after === undefined ? undefined : after + 1;
  let ordinal = firstOrdinal;
  for (const [ledger, count, first] of rows) {
    if (next !== undefined && ledger !== next) throw corrupt(file, `ledger ${next} is missing`, 'ledgers');
    if (ledger < 2 || chunkIdOfLedger(ledger) !== image.chunkId) {
      throw corrupt(file, `ledger ${ledger} is outside chunk ${image.chunkId}`, 'ledgers');
    }
    if (first !== ordinal || !Number.isInteger(count) || count < 0) {
      throw corrupt(file, `ledger ${ledger}: first ordinal ${first} / count ${count}, expected ${ordinal}`, 'ledgers');
    }
    counts.push(count);
    ordinal += count;
    next = ledger + 1;
  }
  return { first: rows[0]?.[0], counts };
}

/**
 * Fills an empty image from the database in one read transaction: ledger counts, sealed slabs, then the terms of
 * every event past the sealed slabs; then checks the three counts agree (ledgers, events, type-term postings).
 * Publishes in the readers' order (index, offsets, latest).
 */
export function loadImage(db: Database.Database, file: string, image: ChunkImage): void {
  db.transaction(() => {
    const { first, counts } = readLedgerRows(db, file, image, undefined, 0);
    const total = counts.reduce((a, b) => a + b, 0);
    const span = db.prepare('SELECT min(ordinal) AS lo, max(ordinal) AS hi FROM events').get() as {
      lo: number | null;
      hi: number | null;
    };
    if (total === 0 ? span.hi !== null : span.lo !== 0 || span.hi !== total - 1) {
      throw corrupt(file, `ledgers count ${total} events, the events table spans [${span.lo}, ${span.hi}]`, 'events');
    }
    const slabs = db.prepare('SELECT slab, term_count, postings FROM sealed_slabs ORDER BY slab').raw().all() as [
      number,
      number,
      Uint8Array,
    ][];
    if (slabs.length > Math.floor(total / 2 ** SLAB_SHIFT)) {
      throw corrupt(file, `${slabs.length} sealed slabs for ${total} events`, 'sealed_slabs');
    }
    image.index.markSealed(slabs.length);
    slabs.forEach(([slab, termCount, blob], i) => {
      if (slab !== i) throw corrupt(file, `sealed slab ${i} is missing`, 'sealed_slabs');
      loadSlab(image.index, slab, blob, termCount, file);
    });
    image.sealedSlabs = slabs.length;
    indexStoredEvents(db, file, image.index, slabs.length * 2 ** SLAB_SHIFT, total);
    checkTypePostings(image.index, file, total);
    if (first !== undefined) {
      image.publishOffsets(first, counts);
      image.publishLatest(first + counts.length - 1);
    }
  })();
}

/** Every event has exactly one type term: their postings must add up to the event count. */
function checkTypePostings(index: TermIndex, file: string, total: number): void {
  let postings = 0;
  for (let type = 0; type < 3; type++) {
    postings += index.lookup(eventTypeTermKey(type), { start: 0, end: total })?.size ?? 0;
  }
  if (postings !== total) {
    throw corrupt(file, `the index holds ${postings} type postings for ${total} events`, 'sealed_slabs');
  }
}
