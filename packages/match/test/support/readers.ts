// ChunkReader wrappers the engine suite observes and stresses the engine through: a tracer that records every
// call (the fetch tracer of spec §6), a rewriter that changes each lookup's bitmaps outside the window it asked for
// (what the ChunkReader contract leaves unspecified), and a reader whose chosen method rejects.
import type { ChunkReader, FetchedEvent, LedgerOffsets, OrdinalWindow, ReadonlyBitmap, TermKey } from '@strata/events';
import { seededRandom } from '@strata/test-kit';
import roaring from 'roaring';

const { RoaringBitmap32 } = roaring;

/** Passes every call to `inner`; subclasses override what they observe or change. */
class DelegatingReader implements ChunkReader {
  constructor(protected readonly inner: ChunkReader) {}
  get chunkId(): number {
    return this.inner.chunkId;
  }
  eventCount(): number {
    return this.inner.eventCount();
  }
  ledgerOffsets(): LedgerOffsets {
    return this.inner.ledgerOffsets();
  }
  lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    return this.inner.lookupTerms(keys, window);
  }
  fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    return this.inner.fetchEvents(ordinals);
  }
  fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    return this.inner.fetchRange(window);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** One reader call as the tracer saw it, in call order. */
export type TracedCall =
  | { readonly kind: 'lookupTerms'; readonly window: OrdinalWindow; readonly keys: number }
  | { readonly kind: 'fetchEvents'; readonly ordinals: readonly number[] }
  | { readonly kind: 'fetchRange'; readonly window: OrdinalWindow };

/**
 * Records every lookupTerms, fetchEvents and fetchRange call (arguments copied when the call is made, so an
 * engine that reuses its buffer cannot rewrite the record).
 */
export class TracingReader extends DelegatingReader {
  readonly calls: TracedCall[] = [];

  override lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    this.calls.push({ kind: 'lookupTerms', window: { start: window.start, end: window.end }, keys: keys.length });
    return super.lookupTerms(keys, window);
  }
  override fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    this.calls.push({ kind: 'fetchEvents', ordinals: Array.from(ordinals) });
    return super.fetchEvents(ordinals);
  }
  override fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    this.calls.push({ kind: 'fetchRange', window: { start: window.start, end: window.end } });
    return super.fetchRange(window);
  }

  /** The fetchEvents batches, in call order (each as the reader got it: ascending). */
  get fetchBatches(): (readonly number[])[] {
    return this.calls.flatMap((c) => (c.kind === 'fetchEvents' ? [c.ordinals] : []));
  }
  get lookupWindows(): OrdinalWindow[] {
    return this.calls.flatMap((c) => (c.kind === 'lookupTerms' ? [c.window] : []));
  }
  get rangeWindows(): OrdinalWindow[] {
    return this.calls.flatMap((c) => (c.kind === 'fetchRange' ? [c.window] : []));
  }
}

/**
 * How LookupRewritingReader changes a lookup's bitmaps, always outside the window asked for:
 * - `outside`: invents ids (just past each edge of the window, where a probe at the last id lands, and at random up
 *   to `span`, past eventCount too, as a hot index that publishes ids before offsets does), drops a run of the
 *   term's ids on each side, and answers some absent terms with a bitmap holding only invented ids (present, empty
 *   inside the window);
 * - `clip`: the window's ids and nothing else (an index that reads only the window's containers).
 */
export type LookupRewrite = 'outside' | 'clip';

/** The ChunkReader contract's "exact inside the window, anything outside" taken literally. */
export class LookupRewritingReader extends DelegatingReader {
  private readonly random: () => number;

  constructor(
    inner: ChunkReader,
    private readonly rewrite: LookupRewrite,
    seed: number,
    /** Invented ids stay at or below this. */
    private readonly span: number,
  ) {
    super(inner);
    this.random = seededRandom(seed);
  }

  private below(n: number): number {
    return Math.floor(this.random() * n);
  }

  override async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    const bitmaps = await super.lookupTerms(keys, window);
    return bitmaps.map((bitmap) => {
      if (bitmap === undefined && (this.rewrite === 'clip' || this.random() < 0.5)) return undefined;
      const out = bitmap === undefined ? new RoaringBitmap32() : bitmap.clone();
      if (this.rewrite === 'clip') {
        out.removeRange(0, window.start);
        out.removeRange(window.end, 2 ** 32);
      } else {
        this.perturb(out, window);
      }
      return out.freeze();
    });
  }

  private perturb(bitmap: roaring.RoaringBitmap32, window: OrdinalWindow): void {
    const outside = (id: number): boolean => id >= 0 && id <= this.span && (id < window.start || id >= window.end);
    const invented = [window.start - 1, window.start - 2, window.end, window.end + 1];
    for (let i = 0; i < 3; i++) invented.push(this.below(this.span + 1));
    for (const id of invented) if (outside(id)) bitmap.add(id);
    if (window.start > 0) bitmap.removeRange(this.below(window.start), window.start);
    if (window.end < this.span) {
      const to = window.end + this.below(this.span - window.end + 1);
      bitmap.removeRange(window.end, to + 1);
    }
  }
}

/**
 * Answers lookups like an index whose term keys collide (XXH3-128 keys, or a cold index's 4-byte fingerprints): each
 * present term also holds up to `perTerm` invented ids inside the window, and some absent terms come back present
 * holding invented ids only. Exactness inside the window is what this breaks, on purpose: these are the false
 * positives the post-filter exists to remove, so the stream must not change.
 */
export class CollidingReader extends DelegatingReader {
  private readonly random: () => number;

  constructor(
    inner: ChunkReader,
    seed: number,
    private readonly perTerm = 16,
  ) {
    super(inner);
    this.random = seededRandom(seed);
  }

  override async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    const bitmaps = await super.lookupTerms(keys, window);
    const width = window.end - window.start;
    return bitmaps.map((bitmap) => {
      if (width === 0 || (bitmap === undefined && this.random() < 0.5)) return bitmap;
      const out = bitmap === undefined ? new RoaringBitmap32() : bitmap.clone();
      const invented = 1 + Math.floor(this.random() * this.perTerm);
      for (let i = 0; i < invented; i++) out.add(window.start + Math.floor(this.random() * width));
      return out.freeze();
    });
  }
}

export type ReaderMethod = 'eventCount' | 'lookupTerms' | 'fetchEvents' | 'fetchRange';

/**
 * A reader whose `failing` method rejects with `error` (throws, for eventCount) after the first `succeed` calls of
 * it succeed.
 */
export class FailingReader extends DelegatingReader {
  private calls = 0;

  constructor(
    inner: ChunkReader,
    private readonly failing: ReaderMethod,
    private readonly error: unknown,
    private readonly succeed = 0,
  ) {
    super(inner);
  }

  private fails(method: ReaderMethod): boolean {
    return method === this.failing && this.calls++ >= this.succeed;
  }

  override eventCount(): number {
    if (this.fails('eventCount')) throw this.error;
    return super.eventCount();
  }
  override lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    return this.fails('lookupTerms') ? Promise.reject(this.error) : super.lookupTerms(keys, window);
  }
  override fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    return this.fails('fetchEvents') ? Promise.reject(this.error) : super.fetchEvents(ordinals);
  }
  override fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    return this.fails('fetchRange') ? Promise.reject(this.error) : super.fetchRange(window);
  }
}
