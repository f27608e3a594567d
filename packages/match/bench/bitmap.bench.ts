// The bitmap layer of the slab stepper, each figure against a baseline measured in the same run, over one chunk of
// 8,388,608 ordinals (128 slabs of 65,536) whose term bitmaps are frozen portable views, as the cold tier serves them:
//
// - probe.{next,previous}.<shape>.<strategy>: ns per probe of WindowTerm (constructed inside the timed call, so the
//   per-window setup is amortized over the probes) against the emulation `select(rank(x - 1))` (next) and
//   `select(rank(x) - 1)` (previous), both clipped to the window. 1,024 probes per window, monotone as the
//   stepper's are (ascending for next, descending for previous), uniform over the whole-chunk window.
//   `auto` is the strategy WindowTerm picks by itself; the others are forced.
// - probe.array-copy.dense-prefix: the array strategy's copy of a window whose prefix is dense, against the naive
//   `rangeUint32Array(rank(lo - 1), count)` copy (CRoaring walks bitset containers value by value to an offset).
// - slab-and.<shape>: ns per slab of SlabAnd.slab over all 128 slabs, against the Go engine's evalSlab as roaring
//   2.7.0 allows it (a fromRange bitmap, a chain of allocating `and`s per plan, `orInPlace` across plans, then
//   toUint32Array so both produce the same sorted array); slab-and.<shape>.count-first against the same scratch AND
//   without counting first; slab-and.allocations.<shape>: objects allocated per slab by each.
import { runBench } from '@strata/bench';
import { seededRandom } from '@strata/test-kit';
import roaring from 'roaring';
import { type PlanTerms, rarestFirst, SlabAnd } from '../src/bitmap/slab-and.js';
import { type ProbeStrategy, WindowTerm } from '../src/bitmap/window-term.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const SLAB = 65_536;
const SLABS = 128;
const CHUNK = SLAB * SLABS;
const LO = 0;
const HI = CHUNK - 1;
const PROBES = 128;
const random = seededRandom(20260805);

/** Serialized portable, then a frozen view over the bytes: canonical container kinds, read-only, as a reader gives. */
function frozen(values: Iterable<number> | RoaringBitmap32): RoaringBitmap32 {
  const bitmap = values instanceof RoaringBitmap32 ? values : new RoaringBitmap32(values);
  bitmap.runOptimize();
  return RoaringBitmap32.unsafeFrozenView(bitmap.serialize('portable'), 'unsafe_frozen_portable');
}

function sample(probability: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < CHUNK; i++) if (random() < probability) out.push(i);
  return out;
}

function everyNth(n: number, offset = 0): RoaringBitmap32 {
  const out = new Uint32Array(Math.ceil((CHUNK - offset) / n)).map((_, i) => offset + i * n);
  return new RoaringBitmap32(out);
}

/** Every ordinal of the chunk for which `keep` holds. */
function where(keep: (ordinal: number) => boolean): RoaringBitmap32 {
  const out = new Uint32Array(CHUNK);
  let count = 0;
  for (let i = 0; i < CHUNK; i++) if (keep(i)) out[count++] = i;
  return new RoaringBitmap32(out.subarray(0, count));
}

function runs(length: number, gap: number): RoaringBitmap32 {
  const bitmap = new RoaringBitmap32();
  for (let start = 0; start < CHUNK; start += length + gap) bitmap.addRange(start, Math.min(CHUNK, start + length));
  return bitmap;
}

const shapes: Record<string, RoaringBitmap32> = {
  dense: frozen(everyNth(2)), // bitset containers, 32,768 per slab
  dense12: frozen(sample(1 / 12)), // bitset containers, ~5,461 per slab
  sparse: frozen(sample(1 / 64)), // array containers, ~1,024 per slab
  rare: frozen(Array.from({ length: 200 }, () => Math.floor(random() * CHUNK))), // 200 in the chunk
  runs: frozen(runs(500, 500)), // run containers
};

function shapeNote(bitmap: RoaringBitmap32): string {
  const s = bitmap.statistics();
  return `${s.size} values; containers: ${s.arrayContainers} array, ${s.bitsetContainers} bitset, ${s.runContainers} run`;
}

const ascending = Array.from({ length: PROBES }, () => Math.floor(random() * CHUNK)).sort((a, b) => a - b);
const descending = [...ascending].reverse();

let sink = 0;

function emulatedNext(bitmap: RoaringBitmap32, x: number): number {
  const value = bitmap.select(x === 0 ? 0 : bitmap.rank(x - 1));
  return value === undefined || value > HI ? -1 : value;
}

function emulatedPrevious(bitmap: RoaringBitmap32, x: number): number {
  const rank = bitmap.rank(x);
  if (rank === 0) return -1;
  const value = bitmap.select(rank - 1) as number;
  return value < LO ? -1 : value;
}

/** The Go engine's evalSlab with roaring 2.7.0's API: everything allocates. Counts the bitmaps it makes. */
let baselineBitmaps = 0;
function goStyleSlab(plans: readonly PlanTerms[], lo: number, hi: number): Uint32Array | undefined {
  const range = RoaringBitmap32.fromRange(lo, hi + 1);
  baselineBitmaps++;
  let union: RoaringBitmap32 | undefined;
  for (const terms of plans) {
    let result = range;
    for (const term of terms) {
      result = RoaringBitmap32.and(result, term.bitmap);
      baselineBitmaps++;
    }
    if (result.isEmpty) continue;
    if (union === undefined) union = result;
    else union.orInPlace(result);
  }
  return union?.toUint32Array();
}

/** SlabAnd's scratch AND without the count-first steps: AND in place, then look at what is left. */
const plainScratch = new RoaringBitmap32();
function inPlaceSlab(plans: readonly PlanTerms[], lo: number, hi: number): Uint32Array | undefined {
  let union: RoaringBitmap32 | undefined;
  for (const terms of plans) {
    plainScratch.clear();
    plainScratch.addRange(lo, hi + 1);
    for (const term of terms) plainScratch.andInPlace(term.bitmap);
    if (plainScratch.isEmpty) continue;
    union ??= new RoaringBitmap32();
    union.orInPlace(plainScratch);
  }
  return union?.toUint32Array();
}

function window(bitmap: RoaringBitmap32): WindowTerm {
  return new WindowTerm(bitmap, LO, HI);
}

const even = shapes.dense!;
const odd = frozen(everyNth(2, 1));
const thirds = [0, 1, 2].map((r) => frozen(where((i) => i % 3 !== r)));
const multiplesOf3 = frozen(everyNth(3));
const sparseTerms = Array.from({ length: 8 }, () => frozen(sample(1 / 64)));
const oddBuckets = [1, 3, 5, 7, 9].map((r) => frozen(everyNth(10, r)));
const mid = frozen(Array.from({ length: 4000 }, () => Math.floor(random() * CHUNK))); // array strategy, ~31 per slab

/** Plans per shape, as bitmaps; the terms are built once per window (per timed call), as a stage would. */
const slabShapes: Record<string, { plans: RoaringBitmap32[][]; note: string }> = {
  'never-co-occur': { plans: [[even, odd]], note: 'even ∧ odd (bitset), empty on every slab' },
  'jointly-empty-triple': { plans: [thirds], note: 'three dense terms, pairwise overlapping, jointly empty' },
  'topic-count-never': {
    plans: oddBuckets.map((bucket) => [even, bucket]),
    note: 'v1 topic-count ranges: even ∧ one of 5 odd buckets per plan, all empty',
  },
  'rare-and-dense': { plans: [[shapes.rare!, even]], note: '200-value term ∧ even (filter path)' },
  'mid-and-dense': { plans: [[mid, even]], note: '4,000-value term ∧ even (filter path, ~31 per slab)' },
  'dense-and-dense': { plans: [[even, multiplesOf3]], note: 'even ∧ multiples of 3: 10,923 per slab' },
  'wide-or': { plans: sparseTerms.map((term) => [term, even]), note: 'OR of 8 plans sparse ∧ even' },
};

function planTerms(plans: RoaringBitmap32[][]): PlanTerms[] {
  const terms = new Map<RoaringBitmap32, WindowTerm>();
  const termOf = (bitmap: RoaringBitmap32): WindowTerm => {
    let term = terms.get(bitmap);
    if (term === undefined) {
      term = window(bitmap);
      terms.set(bitmap, term);
    }
    return term;
  };
  return plans.map((plan) => rarestFirst(plan.map(termOf)));
}

function walkSlabs(evaluate: (lo: number, hi: number) => Uint32Array | undefined): number {
  let candidates = 0;
  for (let slab = 0; slab < SLABS; slab++) candidates += evaluate(slab * SLAB, slab * SLAB + SLAB - 1)?.length ?? 0;
  sink += candidates;
  return candidates;
}

const STRATEGIES: readonly (ProbeStrategy | 'auto')[] = ['auto', 'array', 'gallop', 'clip', 'rank'];

/** How one direction of probing is run: WindowTerm's probe, the emulation, and the probe order. */
const DIRECTIONS = {
  next: {
    probe: (term: WindowTerm, x: number) => term.nextValue(x),
    emulated: emulatedNext,
    emulation: 'select(rank(x - 1))',
    order: ascending,
  },
  previous: {
    probe: (term: WindowTerm, x: number) => term.previousValue(x),
    emulated: emulatedPrevious,
    emulation: 'select(rank(x) - 1)',
    order: descending,
  },
} as const;

await runBench(async (bench) => {
  for (const [name, bitmap] of Object.entries(shapes)) {
    const chosen = window(bitmap).strategy;
    for (const [direction, { probe, emulated, emulation, order }] of Object.entries(DIRECTIONS)) {
      for (const strategy of STRATEGIES) {
        const options = strategy === 'auto' ? {} : { strategy };
        await bench.latency(`probe.${direction}.${name}.${strategy}`, {
          subject: {
            name: `WindowTerm ${strategy === 'auto' ? `auto (${chosen})` : strategy}, setup + ${PROBES} probes`,
            fn: () => {
              const term = new WindowTerm(bitmap, LO, HI, options);
              for (const x of order) sink += probe(term, x);
            },
            opsPerCall: PROBES,
          },
          baseline: {
            name: emulation,
            fn: () => {
              for (const x of order) sink += emulated(bitmap, x);
            },
            opsPerCall: PROBES,
          },
          note: `ns/probe; ${shapeNote(bitmap)}`,
        });
      }
    }
  }

  // A term dense in the first half of the chunk and rare in the second, windowed on the second half.
  const densePrefix = new RoaringBitmap32(
    everyNth(2)
      .toUint32Array()
      .filter((v) => v < CHUNK / 2),
  );
  for (let v = CHUNK / 2; v < CHUNK; v += 4099) densePrefix.add(v);
  const prefixed = frozen(densePrefix);
  const halfLo = CHUNK / 2;
  await bench.latency('probe.array-copy.dense-prefix', {
    subject: {
      name: 'WindowTerm array copy (AND with the window past the offset limit)',
      fn: () => {
        sink += new WindowTerm(prefixed, halfLo, HI, { strategy: 'array' }).cardinality;
      },
    },
    baseline: {
      name: 'rangeUint32Array(rank(lo - 1), count)',
      fn: () => {
        const count = prefixed.rangeCardinality(halfLo, HI + 1);
        sink += prefixed.rangeUint32Array(prefixed.rank(halfLo - 1), count).length;
      },
    },
    note: `ns per window copy; ${prefixed.rangeCardinality(halfLo, HI + 1)} values after an offset of ${prefixed.rank(halfLo - 1)}`,
  });

  for (const [name, { plans, note }] of Object.entries(slabShapes)) {
    /** A walk over every slab with an evaluator: terms are built per walk, as a stage builds them. */
    const walkWith = (label: string, evaluator: () => (terms: PlanTerms[], lo: number, hi: number) => unknown) => ({
      name: label,
      fn: () => {
        const terms = planTerms(plans);
        const evaluate = evaluator();
        walkSlabs((lo, hi) => evaluate(terms, lo, hi) as Uint32Array | undefined);
      },
      opsPerCall: SLABS,
    });
    const slabAnd = walkWith('SlabAnd.slab (count first)', () => {
      const evaluator = new SlabAnd();
      return (terms, lo, hi) => evaluator.slab(terms, lo, hi);
    });
    await bench.latency(`slab-and.${name}`, {
      subject: slabAnd,
      baseline: walkWith('fromRange + allocating and chain + orInPlace, toUint32Array', () => goStyleSlab),
      note: `ns/slab; ${note}`,
    });
    await bench.latency(`slab-and.${name}.count-first`, {
      subject: slabAnd,
      baseline: walkWith('scratch AND in place, no counting', () => inPlaceSlab),
      note: `ns/slab; ${note}`,
    });
    const terms = planTerms(plans);
    const evaluator = new SlabAnd();
    const constructed = evaluator.allocations.bitmaps + evaluator.allocations.arrays;
    walkSlabs((lo, hi) => evaluator.slab(terms, lo, hi));
    baselineBitmaps = 0;
    walkSlabs((lo, hi) => goStyleSlab(terms, lo, hi));
    bench.record(
      {
        id: `slab-and.allocations.${name}`,
        value: (evaluator.allocations.bitmaps + evaluator.allocations.arrays - constructed) / SLABS,
        unit: 'objects/slab',
        higherIsBetter: false,
        baseline: {
          name: 'RoaringBitmap32s of the fromRange + and chain',
          value: baselineBitmaps / SLABS,
          unit: 'objects/slab',
        },
      },
      {
        note: `SlabAnd: bitmaps + arrays created per slab (its constructor's 2 scratch bitmaps and buffer not counted); ${note}`,
      },
    );
  }
  if (sink === 0.5) console.log(sink); // keeps the work observable
});
