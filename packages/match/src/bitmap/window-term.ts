// One term bitmap restricted to a query window, with the next-value / previous-value probes the slab stepper proves
// its bounds with (spec §4.4 "Bounds": inclusive, -1 for none). roaring 2.7.0 has no nextValue/previousValue, and
// emulating one with `select(rank(x - 1))` costs 2.6-3.0 µs on bitset and run containers (both calls walk the
// container), so each term picks, once per window, the probe that measured fastest for its shape.
//
// Measured with bench/bitmap.bench.ts (figures at PROBE_FIGURES below). Windows are inclusive [lo, hi] ordinals;
// an empty window is hi = lo - 1.
import { assert } from '@strata/base';
import type { ReadonlyBitmap } from '@strata/events';
import roaring from 'roaring';
import { MatchError, MatchErrorCode } from '../errors.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** The largest ordinal a RoaringBitmap32 holds (2^32 - 1). */
export const MAX_ORDINAL = 0xffff_ffff;

/** Ordinals one roaring container spans (2^16): the unit the gallop and clip probes stay inside. */
const CONTAINER_SPAN = 0x1_0000;

/**
 * How a WindowTerm answers probes.
 * - `array`: the window's part of the term copied once into a sorted Uint32Array; probes gallop from the previous
 *   answer (O(1) amortized for the stepper's monotone probes), else binary-search.
 * - `gallop`: `has(x)`, then exponentially growing `intersectsWithRange` windows and a bisection inside the first
 *   one that hits, up to GALLOP_REACH ordinals away; farther, one rank + select. Fastest on bitset containers.
 * - `clip`: `has(x)`, then the AND of the term with [x, end of x's container] in a scratch bitmap and its
 *   minimum; past the container, one rank + select. Fastest on run containers.
 * - `rank`: `select(rank(x - 1))` (the emulation), which is already cheap on array containers.
 */
export type ProbeStrategy = 'array' | 'gallop' | 'clip' | 'rank';

/** A window's part of a term at most this large is copied into an array (`array` strategy). */
export const ARRAY_STRATEGY_LIMIT = 4096;

/**
 * The array copy uses `rangeUint32Array(offset, limit)` (indexes, not values: offset = rank(lo - 1)) only when the
 * offset is at most this; CRoaring walks bitset containers value by value to reach the offset (147 µs for an offset of
 * 2.1 M), so past it the copy is the AND of the term with the window in a scratch bitmap (O(window containers)).
 */
const RANGE_COPY_OFFSET_LIMIT = 65_536;

/** How far the gallop strategy searches before it falls back to rank + select. */
const GALLOP_REACH = 64;

/**
 * Chooses a strategy for one term and window (tests and benchmarks force one); `cardinality`, the window's exact
 * count of values when the caller has it already (the engine's resolvePlans), spares counting them again
 * (rangeCardinality costs about 2.5 µs on a frozen view of bitset containers).
 */
export interface WindowTermOptions {
  readonly strategy?: ProbeStrategy;
  readonly cardinality?: number;
}

function badRange(detail: string, field: string): never {
  throw new MatchError(MatchErrorCode.INVALID_ORDINAL_RANGE, detail, { field });
}

function isOrdinal(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_ORDINAL;
}

/**
 * Checks an inclusive ordinal range [lo, hi] from a caller: integers, 0 ≤ lo ≤ hi + 1, hi ≤ 2^32 - 1 (hi = lo - 1 is
 * the empty range). Throws MatchError INVALID_ORDINAL_RANGE naming `field`.
 */
export function checkOrdinalRange(lo: number, hi: number, field: string): void {
  if (!isOrdinal(lo)) badRange(`lo ${lo} is not an ordinal in [0, 2^32 - 1]`, field);
  if (!Number.isInteger(hi) || hi < lo - 1 || hi > MAX_ORDINAL) {
    badRange(`hi ${hi} is not an ordinal in [lo - 1, 2^32 - 1] for lo ${lo}`, field);
  }
}

function checkProbe(x: number): void {
  if (!Number.isInteger(x)) {
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, `probe ${x} is not an integer`, { field: 'x' });
  }
}

/** True when `bitmap` holds a value in the inclusive [a, b] (a ≤ b), working around intersectsWithRange's [a, b-1). */
function intersectsInclusive(bitmap: ReadonlyBitmap, a: number, b: number): boolean {
  // intersectsWithRange(s, e) tests [s, e - 1), so [a, b] is (a, b + 2); at b = 2^32 - 1 the end clamps to 2^32 and
  // the top ordinal is never tested, so it is checked on its own.
  if (b < MAX_ORDINAL) return bitmap.intersectsWithRange(a, b + 2);
  return bitmap.has(MAX_ORDINAL) || (a < MAX_ORDINAL && bitmap.intersectsWithRange(a, MAX_ORDINAL + 1));
}

/** First value > `after` (rank + select), or -1. */
function selectAfter(bitmap: ReadonlyBitmap, after: number): number {
  const value = bitmap.select(bitmap.rank(after));
  return value === undefined ? -1 : value;
}

/** Last value < `before` (rank + select), or -1. */
function selectBefore(bitmap: ReadonlyBitmap, before: number): number {
  if (before === 0) return -1;
  const below = bitmap.rank(before - 1);
  if (below === 0) return -1;
  const value = bitmap.select(below - 1);
  assert(value !== undefined, 'select(rank - 1) exists when rank > 0');
  return value;
}

/** First index i with values[i] ≥ x, galloping out from `hint` (either direction), then bisecting. */
function lowerBound(values: Uint32Array, x: number, hint: number): number {
  const n = values.length;
  let lo: number;
  let hi: number;
  if (hint < n && values[hint]! < x) {
    // The answer is past hint: probe hint+1, hint+2, hint+4, ... until a value ≥ x or the end.
    lo = hint + 1;
    let step = 1;
    let probe = lo;
    while (probe < n && values[probe]! < x) {
      lo = probe + 1;
      probe = lo + step;
      step *= 2;
    }
    hi = Math.min(probe, n);
  } else {
    // The answer is at or before hint: probe hint-1, hint-2, hint-4, ... until a value < x or the start.
    hi = Math.min(hint, n);
    let step = 1;
    let probe = hi - 1;
    while (probe >= 0 && values[probe]! >= x) {
      hi = probe;
      probe = hi - step;
      step *= 2;
    }
    lo = Math.max(probe + 1, 0);
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

let probeScratchBitmap: RoaringBitmap32 | undefined;

/** The clip strategy's scratch bitmap: one per thread, used and cleared inside one synchronous probe. */
function probeScratch(): RoaringBitmap32 {
  probeScratchBitmap ??= new RoaringBitmap32();
  return probeScratchBitmap;
}

/** Values of `bitmap` in [lo, hi], `cardinality` of them, as a fresh sorted array (see RANGE_COPY_OFFSET_LIMIT). */
function copyWindow(bitmap: ReadonlyBitmap, lo: number, hi: number, cardinality: number): Uint32Array {
  if (cardinality === 0) return new Uint32Array(0);
  const offset = lo === 0 ? 0 : bitmap.rank(lo - 1);
  let values: Uint32Array;
  if (offset <= RANGE_COPY_OFFSET_LIMIT) {
    values = bitmap.rangeUint32Array(offset, cardinality);
  } else {
    const scratch = probeScratch();
    scratch.clear();
    scratch.addRange(lo, hi + 1);
    scratch.andInPlace(bitmap);
    values = scratch.toUint32Array();
    scratch.clear();
  }
  assert(
    values.length === cardinality && values[0]! >= lo && values[cardinality - 1]! <= hi,
    () => `window copy of [${lo}, ${hi}] has ${values.length} values, ${cardinality} expected`,
  );
  return values;
}

/** The most values a roaring array container holds (more make a bitset or run container). */
export const ARRAY_CONTAINER_MAX = 4096;

// PROBE_FIGURES, the measurements behind chooseStrategy. bench/bitmap.bench.ts (`cd packages/match &&
// STRATA_BENCH_ROUNDS=5 tsx bench/bitmap.bench.ts`; AMD EPYC, 2 cores, Node 20.20.2): one chunk of 8,388,608
// ordinals (128 slabs) of frozen portable views, whole-chunk window, 128 monotone probes per window (about one per
// slab, as the stepper re-proves a bound once per slab it visits) with the WindowTerm's setup included. Median
// ns/probe, nextValue / previousValue:
//
//   shape (containers)          select(rank)  array          gallop       clip           rank           auto
//   every 2nd (128 bitset)      2,646 / 2,650  14,470/23,120  76 / 80      528 / 521      2,674 / 2,680  97 / 100
//   1 in 12 (128 bitset)        2,648 / 2,647  11,330/11,500  326 / 326    3,418 / 1,975  2,679 / 2,675  337 / 343
//   1 in 64 (128 array)         297 / 302      332 / 385      562 / 578    981 / 793      311 / 315      305 / 312
//   200 in the chunk (array)    252 / 247      37 / 37        607 / 607    400 / 431      253 / 260      38 / 39
//   runs of 500 (128 run)       3,316 / 3,037  12,430/10,820  1,346/1,279  260 / 266      3,049 / 3,050  284 / 272
//
// So: array for a small window part (the copy of 148 K values already loses at 128 probes), gallop on bitset
// containers (27-35x the emulation), clip on run containers (11x), rank on array containers (the emulation is
// already ~300 ns there; auto pays ~3 % for its setup). The array copy behind a dense prefix takes 14.8 µs, against
// 147 µs for rangeUint32Array(rank(lo - 1), count) (RANGE_COPY_OFFSET_LIMIT).

/** The strategy a term and window get when the caller does not force one (see PROBE_FIGURES). */
function chooseStrategy(bitmap: ReadonlyBitmap, lo: number, hi: number, cardinality: number): ProbeStrategy {
  if (cardinality <= ARRAY_STRATEGY_LIMIT) return 'array';
  // Few enough values for array containers on average: rank + select is already the cheap probe there.
  const containers = Math.floor(hi / CONTAINER_SPAN) - Math.floor(lo / CONTAINER_SPAN) + 1;
  if (cardinality <= ARRAY_CONTAINER_MAX * containers) return 'rank';
  // Dense: bitset or run containers? Whole-bitmap container counts (3.5 µs for 128 containers), once per window.
  const stats = bitmap.statistics();
  if (stats.runContainers >= stats.bitsetContainers && stats.runContainers >= stats.arrayContainers) return 'clip';
  if (stats.bitsetContainers >= stats.arrayContainers) return 'gallop';
  return 'rank';
}

/**
 * A term bitmap seen through an inclusive ordinal window [lo, hi]: ids outside the window are ignored (a reader's
 * bitmap is exact only inside the window it was asked for), `cardinality` is counted once at construction (the
 * rarity the planner orders a plan's terms by), and `nextValue` / `previousValue` answer the stepper's probes.
 *
 * Concurrency: use from the thread that created it; probes are synchronous and never mutate `bitmap` (which may be
 * a frozen view or shared with other requests). The object holds a reference to `bitmap`, and the `array`
 * strategy a copy of its window part: the bitmap must not change, and its source (reader, mapping) must stay open,
 * while the WindowTerm is in use (ChunkReader bitmaps are frozen and live until close()).
 */
export class WindowTerm {
  readonly bitmap: ReadonlyBitmap;
  readonly lo: number;
  readonly hi: number;
  /** Values of the term inside [lo, hi]. */
  readonly cardinality: number;
  readonly strategy: ProbeStrategy;
  /** The `array` strategy's copy of the window's part, else empty. */
  private readonly values: Uint32Array;
  /** Index the last array probe landed on: the gallop starts there. */
  private hint = 0;
  /**
   * The last native `intersects` answer and its range: the stepper proves every plan's bound from the same cursor, so
   * a term named by 256 plans is asked the same question 256 times a slab (measured: 15 % of a 256-triple request).
   */
  private intersectsFrom = -1;
  private intersectsTo = -1;
  private intersectsAnswer = false;

  constructor(bitmap: ReadonlyBitmap, lo: number, hi: number, options: WindowTermOptions = {}) {
    if (!(bitmap instanceof RoaringBitmap32)) {
      throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, 'bitmap is not a RoaringBitmap32', { field: 'bitmap' });
    }
    checkOrdinalRange(lo, hi, 'window');
    this.bitmap = bitmap;
    this.lo = lo;
    this.hi = hi;
    this.cardinality = options.cardinality ?? (hi < lo ? 0 : bitmap.rangeCardinality(lo, hi + 1));
    this.strategy = options.strategy ?? chooseStrategy(bitmap, lo, hi, this.cardinality);
    this.values = this.strategy === 'array' ? copyWindow(bitmap, lo, hi, this.cardinality) : new Uint32Array(0);
  }

  /** The first value ≥ x inside the window, or -1. Any integer x (below lo means lo). */
  nextValue(x: number): number {
    checkProbe(x);
    const from = Math.max(x, this.lo);
    if (from > this.hi || this.cardinality === 0) return -1;
    let value: number;
    switch (this.strategy) {
      case 'array': {
        const index = lowerBound(this.values, from, this.hint);
        this.hint = index;
        return index < this.values.length ? this.values[index]! : -1;
      }
      case 'gallop':
        value = this.gallopNext(from);
        break;
      case 'clip':
        value = this.clipNext(from);
        break;
      case 'rank':
        value = from === 0 ? selectAfter0(this.bitmap) : selectAfter(this.bitmap, from - 1);
        break;
    }
    return value > this.hi ? -1 : value;
  }

  /** The last value ≤ x inside the window, or -1. Any integer x (above hi means hi). */
  previousValue(x: number): number {
    checkProbe(x);
    const from = Math.min(x, this.hi);
    if (from < this.lo || this.cardinality === 0) return -1;
    let value: number;
    switch (this.strategy) {
      case 'array': {
        const index = lowerBound(this.values, from + 1, this.hint) - 1;
        this.hint = Math.max(index, 0);
        return index >= 0 ? this.values[index]! : -1;
      }
      case 'gallop':
        value = this.gallopPrevious(from);
        break;
      case 'clip':
        value = this.clipPrevious(from);
        break;
      case 'rank':
        value = selectBefore(this.bitmap, from + 1);
        break;
    }
    return value < this.lo ? -1 : value;
  }

  /** True when the term holds `x` inside the window. */
  has(x: number): boolean {
    checkProbe(x);
    if (x < this.lo || x > this.hi) return false;
    if (this.strategy !== 'array') return this.bitmap.has(x);
    const index = lowerBound(this.values, x, this.hint);
    this.hint = index;
    return index < this.values.length && this.values[index] === x;
  }

  /** True when the term holds a value in [lo, hi] ∩ the window. */
  intersects(lo: number, hi: number): boolean {
    const from = Math.max(lo, this.lo);
    const to = Math.min(hi, this.hi);
    if (from > to || this.cardinality === 0) return false;
    if (this.strategy !== 'array') {
      if (from !== this.intersectsFrom || to !== this.intersectsTo) {
        this.intersectsAnswer = intersectsInclusive(this.bitmap, from, to);
        this.intersectsFrom = from;
        this.intersectsTo = to;
      }
      return this.intersectsAnswer;
    }
    const index = lowerBound(this.values, from, this.hint);
    this.hint = index;
    return index < this.values.length && this.values[index]! <= to;
  }

  /**
   * The window's part of the term inside [lo, hi] as a view of the array copy, or undefined when this term does not
   * use the `array` strategy. The view is read-only by contract and valid as long as the WindowTerm.
   */
  arrayPart(lo: number, hi: number): Uint32Array | undefined {
    if (this.strategy !== 'array') return undefined;
    const start = lowerBound(this.values, lo, this.hint);
    const end = lowerBound(this.values, hi + 1, start);
    this.hint = start;
    return this.values.subarray(start, end);
  }

  /** gallop strategy, from inside the window: first value ≥ from (may be past hi), or -1. */
  private gallopNext(from: number): number {
    const bitmap = this.bitmap;
    if (bitmap.has(from)) return from;
    const reach = Math.min(this.hi, from + GALLOP_REACH);
    // Disjoint windows [from+1, from+1], [from+2, from+3], [from+4, from+7], ...: the first that holds a value
    // holds the answer, found by bisection.
    let start = from + 1;
    let width = 1;
    while (start <= reach) {
      const end = Math.min(reach, start + width - 1);
      if (width === 1 ? bitmap.has(start) : intersectsInclusive(bitmap, start, end)) {
        let a = start;
        let b = end;
        while (a < b) {
          const mid = Math.floor((a + b) / 2);
          if (intersectsInclusive(bitmap, a, mid)) b = mid;
          else a = mid + 1;
        }
        return a;
      }
      start = end + 1;
      width *= 2;
    }
    return reach >= this.hi ? -1 : selectAfter(bitmap, reach);
  }

  /** gallop strategy mirrored: last value ≤ from (may be below lo), or -1. */
  private gallopPrevious(from: number): number {
    const bitmap = this.bitmap;
    if (bitmap.has(from)) return from;
    const reach = Math.max(this.lo, from - GALLOP_REACH);
    let end = from - 1;
    let width = 1;
    while (end >= reach) {
      const start = Math.max(reach, end - width + 1);
      if (width === 1 ? bitmap.has(end) : intersectsInclusive(bitmap, start, end)) {
        let a = start;
        let b = end;
        while (a < b) {
          const mid = Math.ceil((a + b) / 2);
          if (intersectsInclusive(bitmap, mid, b)) a = mid;
          else b = mid - 1;
        }
        return a;
      }
      end = start - 1;
      width *= 2;
    }
    return reach <= this.lo ? -1 : selectBefore(bitmap, reach);
  }

  /** clip strategy: first value ≥ from (may be past hi), or -1. */
  private clipNext(from: number): number {
    const bitmap = this.bitmap;
    if (bitmap.has(from)) return from;
    const end = Math.min(from + (CONTAINER_SPAN - 1 - (from % CONTAINER_SPAN)), this.hi);
    const found = extremeOfRange(bitmap, from, end, 'minimum');
    if (found !== -1) return found;
    return end >= this.hi ? -1 : selectAfter(bitmap, end);
  }

  /** clip strategy mirrored: last value ≤ from (may be below lo), or -1. */
  private clipPrevious(from: number): number {
    const bitmap = this.bitmap;
    if (bitmap.has(from)) return from;
    const start = Math.max(from - (from % CONTAINER_SPAN), this.lo);
    const found = extremeOfRange(bitmap, start, from, 'maximum');
    if (found !== -1) return found;
    return start <= this.lo ? -1 : selectBefore(bitmap, start);
  }
}

/** The smallest or largest value of `bitmap` in [a, b], or -1: the range ANDed with it in the thread's scratch. */
function extremeOfRange(bitmap: ReadonlyBitmap, a: number, b: number, which: 'minimum' | 'maximum'): number {
  const scratch = probeScratch();
  scratch.clear();
  scratch.addRange(a, b + 1);
  scratch.andInPlace(bitmap);
  const found = scratch.isEmpty ? -1 : which === 'minimum' ? scratch.minimum() : scratch.maximum();
  scratch.clear();
  return found;
}

/** First value ≥ 0: rank(-1) is not a uint32 call, so the smallest value is select(0). */
function selectAfter0(bitmap: ReadonlyBitmap): number {
  const value = bitmap.select(0);
  return value === undefined ? -1 : value;
}
