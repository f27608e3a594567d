// A ChunkReader over a chunk too large to hold: `eventCount` ordinals (up to 2^32 - 1, the most a chunk can count),
// every one a copy of one filler event except a few special ordinals with events of their own. Term bitmaps are
// built from ranges (run containers), so the whole 32-bit ordinal space costs a few megabytes. For the tests at the
// top of the ordinal range, where 2^31 and 2^32 arithmetic goes wrong.
import {
  type ChunkReader,
  deriveTerms,
  EventsError,
  EventsErrorCode,
  type FetchedEvent,
  type LedgerOffsets,
  type OrdinalWindow,
  type ReadonlyBitmap,
  type TermKey,
  termKeyHex,
} from '@strata/events';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;

/** fetchRange serves at most this many events per call (a test's window, not the chunk). */
const MAX_RANGE = 1 << 20;

function bad(detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field: 'SyntheticReader' });
}

export class SyntheticReader implements ChunkReader {
  readonly chunkId = 0;
  private readonly index = new Map<string, ReadonlyBitmap>();

  constructor(
    private readonly count: number,
    /** The payload of every ordinal that is not special. */
    readonly filler: Uint8Array,
    private readonly special: ReadonlyMap<number, Uint8Array>,
  ) {
    const building = new Map<string, roaring.RoaringBitmap32>();
    const termsOf = (payload: Uint8Array) => deriveTerms(payload).map(termKeyHex);
    for (const hex of termsOf(filler)) {
      const all = RoaringBitmap32.fromRange(0, count);
      all.removeMany([...special.keys()]);
      building.set(hex, all);
    }
    for (const [ordinal, payload] of special) {
      for (const hex of termsOf(payload)) {
        let bitmap = building.get(hex);
        if (bitmap === undefined) {
          bitmap = new RoaringBitmap32();
          building.set(hex, bitmap);
        }
        bitmap.add(ordinal);
      }
    }
    for (const [hex, bitmap] of building) {
      bitmap.runOptimize();
      this.index.set(hex, bitmap.freeze());
    }
  }

  /** The payload stored at `ordinal`. */
  payloadOf(ordinal: number): Uint8Array {
    return this.special.get(ordinal) ?? this.filler;
  }

  private checkWindow(window: OrdinalWindow): void {
    if (!(window.start >= 0 && window.end >= window.start && window.end <= this.count)) {
      bad(`bad window [${window.start}, ${window.end}) for ${this.count} events`);
    }
  }

  eventCount(): number {
    return this.count;
  }

  ledgerOffsets(): LedgerOffsets {
    return bad('a synthetic chunk has no ledgers');
  }

  async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    this.checkWindow(window);
    return keys.map((key) => {
      const bitmap = this.index.get(termKeyHex(key));
      if (bitmap === undefined || window.end === window.start) return undefined;
      return bitmap.rangeCardinality(window.start, window.end) === 0 ? undefined : bitmap;
    });
  }

  async fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (let i = 0; i < ordinals.length; i++) {
      const o = ordinals[i]!;
      if (!Number.isInteger(o) || o < 0 || o >= this.count) bad(`ordinal ${o} outside [0, ${this.count})`);
      if (i > 0 && o <= ordinals[i - 1]!) bad('ordinals must be strictly ascending');
      out.push(this.payloadOf(o));
    }
    return out;
  }

  async fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    this.checkWindow(window);
    if (window.end - window.start > MAX_RANGE) bad(`fetchRange of ${window.end - window.start} events`);
    const out: FetchedEvent[] = [];
    for (let o = window.start; o < window.end; o++) out.push({ ordinal: o, payload: this.payloadOf(o) });
    return out;
  }

  async close(): Promise<void> {}
}
