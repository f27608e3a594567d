// What the slab walk must open, computed from the spec and the oracle alone (never recorded from the engine):
// the stages of a window (§4.3), the slabs holding a candidate with the bounds the stepper enters them at (§4.4 "Next
// slab"), and, for a consumer that stops after a page, the candidates the fetch schedule gathers (§4.5 "Batch
// sizes": the first fetch the hint, later ones the batch size, stage 2's hint reduced by what stage 1 yielded).
import type { OrdinalWindow } from '@strata/events';
import type { Direction } from '../../src/engine/types.js';

/** One slab evaluation as onSlab reports it: inclusive [lo, hi] and the candidates it held. */
export interface OpenedSlab {
  readonly lo: number;
  readonly hi: number;
  readonly candidates: number;
}

/**
 * The stages of a window (spec §4.3): stage 1 is `[start, ceil-to-slab(start) + stage1Slabs · slab)` ascending, the
 * mirror `[floor-to-slab(end) - stage1Slabs · slab, end)` descending, clipped to the window; stage 2 is the rest.
 * In walk order.
 */
export function stagesOf(
  window: OrdinalWindow,
  direction: Direction,
  slabShift: number,
  stage1Slabs: number,
): OrdinalWindow[] {
  const slab = 2 ** slabShift;
  if (window.start >= window.end) return [];
  if (direction === 'asc') {
    const seam = Math.min(Math.ceil(window.start / slab) * slab + stage1Slabs * slab, window.end);
    return seam < window.end
      ? [
          { start: window.start, end: seam },
          { start: seam, end: window.end },
        ]
      : [window];
  }
  const seam = Math.max(Math.floor(window.end / slab) * slab - stage1Slabs * slab, window.start);
  return seam > window.start
    ? [
        { start: seam, end: window.end },
        { start: window.start, end: seam },
      ]
    : [window];
}

/**
 * The slabs holding the candidates `inWalkOrder` (inside `window`), as the stepper opens them: ascending from the
 * slab's first candidate to its last id (or the window's), descending from its base (or the window's start) to its
 * last candidate.
 */
export function candidateSlabs(
  inWalkOrder: readonly number[],
  window: OrdinalWindow,
  direction: Direction,
  slabShift: number,
): OpenedSlab[] {
  const slab = 2 ** slabShift;
  const out: OpenedSlab[] = [];
  let current = -1;
  for (const ordinal of inWalkOrder) {
    const index = Math.floor(ordinal / slab);
    if (index === current) {
      const last = out[out.length - 1]!;
      out[out.length - 1] = { ...last, candidates: last.candidates + 1 };
      continue;
    }
    current = index;
    const base = index * slab;
    out.push(
      direction === 'asc'
        ? { lo: ordinal, hi: Math.min(base + slab, window.end) - 1, candidates: 1 }
        : { lo: Math.max(base, window.start), hi: ordinal, candidates: 1 },
    );
  }
  return out;
}

export interface PageWalk {
  /** The stages the walk looked up, in order. */
  readonly stages: OrdinalWindow[];
  /** The candidates gathered into fetches, in walk order. */
  readonly gathered: number[];
  /** Per stage entered: true when the walk ran it out (its last batch came back short), false when the page filled. */
  readonly exhausted: boolean[];
}

/**
 * What a consumer that stops after `limit` matches makes the walk do, when every candidate is a match: per stage
 * (entered only while the consumer still pulls) fetch batches of the hint (firstBatch minus what earlier stages
 * yielded; the batch size when nothing is left of it), then of the batch size, until the stage runs out (a short
 * batch) or the page is full.
 */
export function pageWalk(
  inWalkOrder: readonly number[],
  stages: readonly OrdinalWindow[],
  limit: number,
  firstBatch: number,
  batchSize: number,
): PageWalk {
  const entered: OrdinalWindow[] = [];
  const gathered: number[] = [];
  const exhausted: boolean[] = [];
  let yielded = 0;
  for (const stage of stages) {
    if (yielded >= limit) break;
    entered.push(stage);
    const inStage = inWalkOrder.filter((o) => o >= stage.start && o < stage.end);
    let size = firstBatch - yielded > 0 ? firstBatch - yielded : batchSize;
    let next = 0;
    for (;;) {
      const batch = inStage.slice(next, next + size);
      next += batch.length;
      gathered.push(...batch);
      yielded += batch.length;
      if (batch.length < size) {
        exhausted.push(true);
        break;
      }
      if (yielded >= limit) {
        exhausted.push(false);
        break;
      }
      size = batchSize;
    }
  }
  return { stages: entered, gathered, exhausted };
}
