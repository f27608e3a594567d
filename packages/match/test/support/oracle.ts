// The answer without the index (spec §6): the exact post-filter over every ordinal of the window, in direction
// order, cut to the page limit. It never touches a term or a bitmap, so it cannot share a defect with the engine.
import { compilePostFilter, type OrdinalWindow, type StorageFilter } from '@strata/events';
import type { Direction } from '../../src/engine/types.js';
import type { Corpus } from './corpus.js';

/**
 * Every ordinal of the corpus the filters accept, ascending. The post-filter reads only an event's contract event,
 * which a corpus shares between the ordinals of one template, so it runs once per template: the same answer as
 * running it per ordinal, at the cost of a few dozen calls instead of 70,000 (a 256-clause filter costs microseconds
 * per event).
 */
export function oracleMatches(corpus: Corpus, filters: readonly StorageFilter[]): Uint32Array {
  const postFilter = compilePostFilter(filters);
  const accepts = new Int8Array(corpus.templates.length).fill(-1);
  const out: number[] = [];
  for (let ordinal = 0; ordinal < corpus.eventCount; ordinal++) {
    const template = corpus.templateOf[ordinal]!;
    let verdict = accepts[template]!;
    if (verdict === -1) {
      verdict = postFilter(corpus.payloads[ordinal]!) ? 1 : 0;
      accepts[template] = verdict;
    }
    if (verdict === 1) out.push(ordinal);
  }
  return Uint32Array.from(out);
}

/** First index of `sorted` holding a value ≥ x. */
function lowerBound(sorted: Uint32Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The whole-corpus answer clipped to one query: the window, the direction, then the first `limit` (all: Infinity). */
export function expectedStream(
  matches: Uint32Array,
  window: OrdinalWindow,
  direction: Direction,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const inside = matches.subarray(lowerBound(matches, window.start), lowerBound(matches, window.end));
  const n = Math.min(inside.length, limit);
  if (direction === 'asc') return Array.from(inside.subarray(0, n));
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = inside[inside.length - 1 - i]!;
  return out;
}
