// The reference ChunkReader: every event of one chunk in memory, an index of frozen whole-term bitmaps built with
// deriveTerms. Simple enough to be obviously right; the contract suite is checked against it.
import {
  type ChunkReader,
  chunkIdOfLedger,
  deriveTerms,
  EventsError,
  EventsErrorCode,
  type FetchedEvent,
  LedgerOffsets,
  type OrdinalWindow,
  type ReadonlyBitmap,
  type TermKey,
  termKeyHex,
} from '@strata/events';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;

/** The input every harness builds a reader from: consecutive ledgers of one chunk, each with its payloads. */
export interface ChunkInput {
  startLedger: number;
  /** payloads[i] = the stored payloads of ledger startLedger + i, in event-id order. */
  ledgers: readonly (readonly Uint8Array[])[];
}

function bad(detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field: 'ChunkReader' });
}

/** Checks a window against the current event count (shared by the reference and tests of other readers). */
export function checkWindow(window: OrdinalWindow, eventCount: number): void {
  if (
    !Number.isInteger(window.start) ||
    !Number.isInteger(window.end) ||
    window.start < 0 ||
    window.end < window.start
  ) {
    bad(`bad window [${window.start}, ${window.end})`);
  }
  if (window.end > eventCount) bad(`window end ${window.end} beyond event count ${eventCount}`);
}

export class InMemoryChunkReader implements ChunkReader {
  readonly chunkId: number;
  private readonly payloads: Uint8Array[];
  private readonly offsets: LedgerOffsets;
  private readonly index = new Map<string, ReadonlyBitmap>();
  private closed = false;

  constructor(input: ChunkInput) {
    this.chunkId = chunkIdOfLedger(input.startLedger);
    this.payloads = input.ledgers.flat();
    this.offsets = LedgerOffsets.fromCounts(
      input.startLedger,
      input.ledgers.map((l) => l.length),
    );
    const building = new Map<string, number[]>();
    this.payloads.forEach((payload, ordinal) => {
      for (const key of deriveTerms(payload)) {
        const hex = termKeyHex(key);
        let list = building.get(hex);
        if (list === undefined) {
          list = [];
          building.set(hex, list);
        }
        list.push(ordinal);
      }
    });
    for (const [hex, ordinals] of building) {
      const bitmap = new RoaringBitmap32(ordinals);
      bitmap.freeze(); // read-only for callers: add() throws
      this.index.set(hex, bitmap);
    }
  }

  private open(): void {
    if (this.closed) bad('reader is closed');
  }

  eventCount(): number {
    this.open();
    return this.payloads.length;
  }

  ledgerOffsets(): LedgerOffsets {
    this.open();
    return this.offsets;
  }

  async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    this.open();
    checkWindow(window, this.payloads.length);
    // Whole-term bitmaps are allowed (exact inside the window); a term with nothing in the window is absent.
    return keys.map((key) => {
      const bitmap = this.index.get(termKeyHex(key));
      if (bitmap === undefined || window.end === window.start) return undefined;
      return bitmap.rangeCardinality(window.start, window.end) === 0 ? undefined : bitmap;
    });
  }

  async fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    this.open();
    const out: Uint8Array[] = [];
    for (let i = 0; i < ordinals.length; i++) {
      const o = ordinals[i]!;
      if (!Number.isInteger(o) || o < 0 || o >= this.payloads.length)
        bad(`ordinal ${o} outside [0, ${this.payloads.length})`);
      if (i > 0 && o <= ordinals[i - 1]!) bad('ordinals must be strictly ascending');
      out.push(this.payloads[o]!);
    }
    return out;
  }

  async fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    this.open();
    checkWindow(window, this.payloads.length);
    const out: FetchedEvent[] = [];
    for (let o = window.start; o < window.end; o++) out.push({ ordinal: o, payload: this.payloads[o]! });
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
