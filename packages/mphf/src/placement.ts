// One attempt's pilot search over all parts, shareable between threads: the grouped hashes, the outputs (pilots,
// taken slots) and a small control block live in typed arrays that may sit on SharedArrayBuffers. Any number of
// threads call `placeParts` on the same state; each takes the next part from an atomic counter, so parts are
// handed out in increasing order and every part is placed by exactly one thread. Parts are independent (disjoint
// pilots and slots), so the result is the same whichever thread placed which part. After a failure no new part is
// started; because parts start in order, every part below the first failing one has still been placed, and
// `outcome` reports the lowest failing part: the same answer a single thread gives.
import { pilotHashes } from './hash.js';
import { PartPlacer, PlaceStatus } from './pilot-search.js';

/** Slots in the control block. */
export const Control = {
  /** Next part to hand out (atomic counter). */
  NEXT_PART: 0,
  /** Set once a part failed: no thread starts another part. */
  ABORT: 1,
  /** Threads that finished their share of the round (atomic; also orders their writes before the reader's). */
  DONE: 2,
  SEED: 3,
  PARTS: 4,
  BUCKETS_PER_PART: 5,
  MAX_PART_SLOTS: 6,
  MAX_BUCKET_SIZE: 7,
  EVICTION_LIMIT: 8,
  LENGTH: 9,
} as const;

/** The arrays an attempt's placement reads and writes. Buffers may be shared with worker threads. */
export interface PlacementState {
  /** Slot hashes grouped by bucket: bucket g (part·B + b) is slotHashes[bucketStarts[g], bucketStarts[g + 1]). */
  readonly slotHashes: Int32Array;
  readonly bucketStarts: Uint32Array;
  /** [firstKey(p), firstSlot(p)] of every part and the closing (n, slotCount). */
  readonly table: Uint32Array;
  readonly pilots: Uint8Array;
  /** 1 for every slot a key occupies. */
  readonly slotTaken: Uint8Array;
  /** PlaceStatus of every part (OK until placed). */
  readonly partStatus: Int32Array;
  readonly partEvictions: Int32Array;
  /** [bucket, slot hash] of the clash of a part that ended INDISTINGUISHABLE. */
  readonly partClash: Int32Array;
  readonly control: Int32Array;
}

/** The buffers of a state, for `workerData`, and the state rebuilt from them on the other side. */
export type PlacementBuffers = { [K in keyof PlacementState]: ArrayBufferLike };

export function buffersOf(state: PlacementState): PlacementBuffers {
  return {
    slotHashes: state.slotHashes.buffer,
    bucketStarts: state.bucketStarts.buffer,
    table: state.table.buffer,
    pilots: state.pilots.buffer,
    slotTaken: state.slotTaken.buffer,
    partStatus: state.partStatus.buffer,
    partEvictions: state.partEvictions.buffer,
    partClash: state.partClash.buffer,
    control: state.control.buffer,
  };
}

export function stateOf(buffers: PlacementBuffers): PlacementState {
  return {
    slotHashes: new Int32Array(buffers.slotHashes),
    bucketStarts: new Uint32Array(buffers.bucketStarts),
    table: new Uint32Array(buffers.table),
    pilots: new Uint8Array(buffers.pilots),
    slotTaken: new Uint8Array(buffers.slotTaken),
    partStatus: new Int32Array(buffers.partStatus),
    partEvictions: new Int32Array(buffers.partEvictions),
    partClash: new Int32Array(buffers.partClash),
    control: new Int32Array(buffers.control),
  };
}

/** Places parts until none is left (or one failed); call from every thread taking part in the round. */
export function placeParts(state: PlacementState): void {
  const { control, table } = state;
  const parts = control[Control.PARTS]!;
  const seed = control[Control.SEED]!;
  let placer: PartPlacer | undefined;
  try {
    for (;;) {
      if (Atomics.load(control, Control.ABORT) !== 0) return;
      const part = Atomics.add(control, Control.NEXT_PART, 1);
      if (part >= parts) return;
      placer ??= new PartPlacer(
        state,
        pilotHashes(seed),
        control[Control.BUCKETS_PER_PART]!,
        control[Control.MAX_PART_SLOTS]!,
        control[Control.MAX_BUCKET_SIZE]!,
        control[Control.EVICTION_LIMIT]!,
      );
      const firstSlot = table[2 * part + 1]!;
      const status = placer.place(
        part,
        firstSlot,
        table[2 * part + 3]! - firstSlot,
        state.pilots,
        state.slotTaken,
        seed,
      );
      state.partStatus[part] = status;
      state.partEvictions[part] = placer.evictions;
      if (status === PlaceStatus.INDISTINGUISHABLE) {
        state.partClash[2 * part] = placer.clashBucket;
        state.partClash[2 * part + 1] = placer.clashHash;
      }
      if (status !== PlaceStatus.OK) Atomics.store(control, Control.ABORT, 1);
    }
  } finally {
    Atomics.add(control, Control.DONE, 1);
  }
}

/** What a round of `placeParts` came to: the lowest failing part's status (or OK) and the evictions made. */
export interface PlacementOutcome {
  status: PlaceStatus;
  evictions: number;
  /** For INDISTINGUISHABLE: the global bucket and the slot hash two of its keys share. */
  clashBucket: number;
  clashHash: number;
}

export function outcomeOf(state: PlacementState): PlacementOutcome {
  const { control, partStatus, partEvictions, partClash } = state;
  Atomics.load(control, Control.DONE); // orders every thread's writes (each ended with an atomic add) before ours
  const parts = control[Control.PARTS]!;
  let evictions = 0;
  for (let part = 0; part < parts; part++) {
    const status = partStatus[part]! as PlaceStatus;
    evictions += partEvictions[part]!;
    if (status !== PlaceStatus.OK) {
      return { status, evictions, clashBucket: partClash[2 * part]!, clashHash: partClash[2 * part + 1]! };
    }
  }
  return { status: PlaceStatus.OK, evictions, clashBucket: -1, clashHash: 0 };
}

/** Resets the control block and statuses for a new round with these parameters. */
export function startRound(
  state: PlacementState,
  round: { seed: number; parts: number; bucketsPerPart: number; maxPartSlots: number; maxBucketSize: number },
): void {
  const { control } = state;
  control[Control.NEXT_PART] = 0;
  control[Control.ABORT] = 0;
  control[Control.DONE] = 0;
  control[Control.SEED] = round.seed | 0;
  control[Control.PARTS] = round.parts;
  control[Control.BUCKETS_PER_PART] = round.bucketsPerPart;
  control[Control.MAX_PART_SLOTS] = round.maxPartSlots;
  control[Control.MAX_BUCKET_SIZE] = round.maxBucketSize;
  // PtrHash's bound: a part may evict up to 10 buckets per slot before the attempt is abandoned.
  control[Control.EVICTION_LIMIT] = 10 * round.maxPartSlots + 1000;
  state.partStatus.fill(PlaceStatus.OK);
  state.partEvictions.fill(0);
  state.pilots.fill(0);
  // Seq-cst store last: a thread that sees this round's NEXT_PART through an atomic also sees the fields above.
  Atomics.store(control, Control.NEXT_PART, 0);
}
