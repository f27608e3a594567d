// The store against a simple oracle (a list of ledgers and an index rebuilt with deriveTerms). Properties:
// 1. Random sequences of ingest calls (single ledgers and batches, some deliberately invalid: a duplicate, a gap, a
//    malformed payload, a payload of another ledger) leave the store equal to the oracle of the valid calls: the
//    same offsets, byte-identical events, the same index; a failed call changes nothing (in memory or on disk).
// 2. Reopening at any point (close, open) gives the same store, and its index equals one rebuilt from the events
//    table from scratch.
// 3. A reader with its own connection opened at any point, refreshed after later ingests, equals the oracle.
// 4. Across slab boundaries (more than 65,536 events: sealed slabs written and reloaded), the same holds, and the
//    sealed form is what a reopen loads.
import { join } from 'node:path';
import { deriveTerms, type LedgerOffsets, termKeyHex } from '@strata/events';
import { propertyParams, tempDir } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HotStore, HotStoreError, MAX_FETCH_EVENTS, openHotReader } from '../src/index.js';
import { firstIndexDifference, indexFromEventsTable, syntheticLedger } from './support.js';

const CHUNK = 3;
const FIRST = CHUNK * 10_000 + 2;

/** The oracle: the ledgers accepted so far. */
class Model {
  start: number | undefined;
  readonly ledgers: Uint8Array[][] = [];
  get next(): number | undefined {
    return this.start === undefined ? undefined : this.start + this.ledgers.length;
  }
  index(): Map<string, number[]> {
    const index = new Map<string, number[]>();
    this.ledgers.flat().forEach((payload, ordinal) => {
      for (const key of deriveTerms(payload)) {
        const hex = termKeyHex(key);
        if (!index.has(hex)) index.set(hex, []);
        index.get(hex)!.push(ordinal);
      }
    });
    return index;
  }
}

async function expectEqual(
  view: { ledgerOffsets(): LedgerOffsets; fetchRange(w: { start: number; end: number }): Promise<unknown> },
  model: Model,
) {
  const offsets = view.ledgerOffsets();
  expect(offsets.counts()).toEqual(model.ledgers.map((l) => l.length));
  if (model.start !== undefined) expect(offsets.startLedger).toBe(model.start);
  const all = model.ledgers.flat();
  const got: { payload: Uint8Array }[] = [];
  for (let start = 0; start < all.length; start += MAX_FETCH_EVENTS) {
    const end = Math.min(all.length, start + MAX_FETCH_EVENTS);
    got.push(...((await view.fetchRange({ start, end })) as { payload: Uint8Array }[]));
  }
  expect(got.map((e) => Buffer.from(e.payload).toString('hex'))).toEqual(
    all.map((p) => Buffer.from(p).toString('hex')),
  );
}

type Step =
  | { kind: 'ingest'; ledgers: number; events: number }
  | { kind: 'bad'; fault: 'duplicate' | 'gap' | 'malformed' | 'foreign' }
  | { kind: 'reopen' }
  | { kind: 'reader' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('ingest' as const),
      ledgers: fc.integer({ min: 1, max: 4 }),
      events: fc.integer({ min: 0, max: 30 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bad' as const),
      fault: fc.constantFrom('duplicate' as const, 'gap' as const, 'malformed' as const, 'foreign' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reader' as const }) },
);

describe('HotStore against the oracle', () => {
  it('properties 1-3: random ingest sequences with invalid calls, reopens and worker-style readers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 9_000 }),
        fc.array(stepArb, { minLength: 1, maxLength: 14 }),
        async (shift, steps) => {
          const path = join(tempDir('prop'), 'chunk.db');
          const open = () => HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
          let store = open();
          const model = new Model();
          const readers: { reader: ReturnType<typeof openHotReader> }[] = [];
          let seed = shift;
          try {
            for (const step of steps) {
              if (step.kind === 'ingest') {
                const first = model.next ?? FIRST + shift;
                const batch = Array.from({ length: step.ledgers }, (_, i) => ({
                  ledger: first + i,
                  payloads: syntheticLedger(seed++, first + i, step.events),
                }));
                if (step.ledgers === 1) store.ingestLedger(batch[0]!.ledger, batch[0]!.payloads);
                else store.ingestLedgers(batch);
                model.start ??= first;
                for (const { payloads } of batch) model.ledgers.push(payloads);
              } else if (step.kind === 'bad') {
                const next = model.next ?? FIRST + shift;
                const good = syntheticLedger(seed++, next, 6);
                let call: () => void;
                if (step.fault === 'duplicate') {
                  if (model.start === undefined) continue;
                  call = () =>
                    store.ingestLedgers([
                      { ledger: next, payloads: good },
                      { ledger: next - 1, payloads: [] },
                    ]);
                } else if (step.fault === 'gap')
                  call = () => store.ingestLedger(model.start === undefined ? 40_002 : next + 1, good);
                else if (step.fault === 'malformed') {
                  const broken = syntheticLedger(seed++, next + 1, 6);
                  broken.push(new Uint8Array([1, 2, 3]));
                  call = () =>
                    store.ingestLedgers([
                      { ledger: next, payloads: good },
                      { ledger: next + 1, payloads: broken },
                    ]);
                } else call = () => store.ingestLedger(next, syntheticLedger(seed++, next + 1, 3, 1));
                const before = store.eventCount;
                expect(call).toThrow(HotStoreError);
                expect(store.eventCount).toBe(before);
              } else if (step.kind === 'reopen') {
                store.close();
                store = open();
                expect(firstIndexDifference(store.dumpIndex(), indexFromEventsTable(path))).toBeUndefined();
              } else {
                readers.push({ reader: openHotReader(path, { chunkId: CHUNK }) });
              }
              await expectEqual(store.reader(), model);
            }
            expect(firstIndexDifference(store.dumpIndex(), model.index())).toBeUndefined();
            for (const { reader } of readers) await expectEqual(reader, model);
          } finally {
            for (const { reader } of readers) await reader.close();
            store.close();
          }
        },
      ),
      propertyParams({ numRuns: 40 }),
    );
  });

  it('property 4: across slab boundaries, sealed slabs reload to the same index', async () => {
    const path = join(tempDir('slabs'), 'chunk.db');
    const open = () => HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
    let store = open();
    const model = new Model();
    const early = openHotReader(path, { chunkId: CHUNK });
    try {
      let ledger = FIRST;
      // ~150,000 events: two sealed slabs and an open one; batches of varying size, reopens in between.
      for (let round = 0; round < 30; round++) {
        const batch = Array.from({ length: 1 + (round % 5) }, () => {
          const payloads = syntheticLedger(round, ledger, 3_000);
          return { ledger: ledger++, payloads };
        });
        store.ingestLedgers(batch);
        model.start ??= FIRST;
        for (const { payloads } of batch) model.ledgers.push(payloads);
        if (round % 7 === 6) {
          store.close();
          store = open();
        }
      }
      expect(store.eventCount).toBeGreaterThan(2 * 65_536);
      store.ingestLedger(ledger++, []); // seals every full slab
      model.ledgers.push([]);
      store.close();
      store = open();
      const expected = model.index();
      expect(firstIndexDifference(store.dumpIndex(), expected)).toBeUndefined();
      expect(firstIndexDifference(indexFromEventsTable(path), expected)).toBeUndefined();
      await expectEqual(store.reader(), model);
      await expectEqual(early, model); // caught up across the seals
      const late = openHotReader(path, { chunkId: CHUNK });
      await expectEqual(late, model);
      await late.close();
    } finally {
      await early.close();
      store.close();
    }
  });
});
