// The contract suite every ChunkReader implementation must pass (hot tier, cold tier, the in-memory reference).
// Each check builds readers through the caller's harness from generated chunks and compares them with a plain
// model of the same input. The checks are plain async functions so a negative control can run them directly.
import {
  type ChunkReader,
  chunkFirstLedger,
  deriveTerms,
  EventsError,
  encodeContractEvent,
  encodePayload,
  type TermKey,
  termKeyHex,
} from '@strata/events';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkInput } from './in-memory-chunk-reader.js';

/** What a harness returns: the reader and how to dispose of whatever it created (temp dirs, files). */
export interface ChunkReaderHarness {
  reader: ChunkReader;
  cleanup?: () => Promise<void>;
}
export type MakeHarness = (input: ChunkInput) => Promise<ChunkReaderHarness>;

const SYMBOLS = ['alpha', 'beta', 'gamma', 'delta'].map((s) => {
  const b = Buffer.alloc(8 + Math.ceil(s.length / 4) * 4);
  b.writeUInt32BE(15, 0);
  b.writeUInt32BE(s.length, 4);
  b.write(s, 8);
  return new Uint8Array(b);
});
const CONTRACT_IDS = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));

const eventArb = fc.record({
  contract: fc.option(fc.constantFrom(...CONTRACT_IDS), { nil: undefined }),
  type: fc.constantFrom(0 as const, 1 as const),
  topics: fc.array(fc.constantFrom(...SYMBOLS), { maxLength: 5 }),
});

/** Chunks of up to 40 ledgers (some empty) starting anywhere in a random chunk. */
export const chunkInputArb: fc.Arbitrary<ChunkInput> = fc
  .record({
    chunk: fc.integer({ min: 0, max: 6000 }),
    shift: fc.integer({ min: 0, max: 9_950 }),
    ledgers: fc.array(fc.array(eventArb, { maxLength: 6 }), { minLength: 1, maxLength: 40 }),
  })
  .map(({ chunk, shift, ledgers }) => {
    const startLedger = chunkFirstLedger(chunk) + shift;
    return {
      startLedger,
      ledgers: ledgers.map((events, li) =>
        events.map((e, ei) =>
          encodePayload({
            txHash: new Uint8Array(32).fill(li),
            ledger: startLedger + li,
            txIndex: 1,
            opIndex: 0,
            ledgerClosedAt: 1_700_000_000 + li,
            eventIndex: ei,
            contractEvent: encodeContractEvent({
              ...(e.contract === undefined ? {} : { contractId: e.contract }),
              type: e.type,
              topics: e.topics,
              value: SYMBOLS[0]!,
            }),
          }),
        ),
      ),
    };
  });

const windowArb = fc.tuple(fc.nat(), fc.nat());

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

async function withReader(
  make: MakeHarness,
  input: ChunkInput,
  body: (reader: ChunkReader, all: Uint8Array[]) => Promise<void>,
): Promise<void> {
  const harness = await make(input);
  try {
    await body(harness.reader, input.ledgers.flat() as Uint8Array[]);
  } finally {
    await harness.reader.close();
    await harness.cleanup?.();
  }
}

function pickWindow(total: number, [a, b]: [number, number]): { start: number; end: number } {
  const start = total === 0 ? 0 : a % (total + 1);
  return { start, end: start + (total - start === 0 ? 0 : b % (total - start + 1)) };
}

async function expectEventsError(p: Promise<unknown>): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(EventsError);
}

/** One named check of the suite. */
export interface ChunkReaderCheck {
  name: string;
  run: (make: MakeHarness) => Promise<void>;
}

const runs = (): { numRuns: number } => ({ numRuns: propertyParams().numRuns ?? 100 });

export const chunkReaderChecks: readonly ChunkReaderCheck[] = [
  {
    name: 'eventCount and ledgerOffsets describe the input',
    run: (make) =>
      fc.assert(
        fc.asyncProperty(chunkInputArb, (input) =>
          withReader(make, input, async (reader, all) => {
            expect(reader.eventCount()).toBe(all.length);
            const ofs = reader.ledgerOffsets();
            expect(ofs.startLedger).toBe(input.startLedger);
            expect(ofs.counts()).toEqual(input.ledgers.map((l) => l.length));
            expect(reader.chunkId).toBe(Math.floor((input.startLedger - 2) / 10_000));
          }),
        ),
        { ...propertyParams(), ...runs() },
      ),
  },
  {
    name: 'fetchRange returns every event of the window, in ordinal order, byte-exact',
    run: (make) =>
      fc.assert(
        fc.asyncProperty(chunkInputArb, windowArb, (input, w) =>
          withReader(make, input, async (reader, all) => {
            const window = pickWindow(all.length, w);
            const got = await reader.fetchRange(window);
            expect(got.map((e) => e.ordinal)).toEqual(
              Array.from({ length: window.end - window.start }, (_, i) => window.start + i),
            );
            expect(got.map((e) => hex(e.payload))).toEqual(all.slice(window.start, window.end).map(hex));
          }),
        ),
        { ...propertyParams(), ...runs() },
      ),
  },
  {
    name: 'fetchEvents returns the payloads of sorted ordinals and rejects unsorted, duplicate or out-of-range ids',
    run: (make) =>
      fc.assert(
        fc.asyncProperty(chunkInputArb, fc.array(fc.nat(), { maxLength: 20 }), (input, picks) =>
          withReader(make, input, async (reader, all) => {
            const ordinals = [...new Set(picks.map((p) => (all.length === 0 ? 0 : p % all.length)))].sort(
              (a, b) => a - b,
            );
            if (all.length > 0)
              expect((await reader.fetchEvents(ordinals)).map(hex)).toEqual(ordinals.map((o) => hex(all[o]!)));
            await expectEventsError(reader.fetchEvents([all.length]));
            if (ordinals.length >= 2) await expectEventsError(reader.fetchEvents([...ordinals].reverse()));
            if (ordinals.length >= 1) await expectEventsError(reader.fetchEvents([ordinals[0]!, ordinals[0]!]));
          }),
        ),
        { ...propertyParams(), ...runs() },
      ),
  },
  {
    name: 'lookupTerms is exact inside the window, absent terms are undefined, and bitmaps are read-only',
    run: (make) =>
      fc.assert(
        fc.asyncProperty(chunkInputArb, windowArb, (input, w) =>
          withReader(make, input, async (reader, all) => {
            const window = pickWindow(all.length, w);
            // Model: term → ordinals, from deriveTerms over the input.
            const model = new Map<string, { key: TermKey; ordinals: number[] }>();
            all.forEach((payload, o) => {
              for (const key of deriveTerms(payload)) {
                const h = termKeyHex(key);
                if (!model.has(h)) model.set(h, { key, ordinals: [] });
                model.get(h)!.ordinals.push(o);
              }
            });
            const absent = new Uint8Array(16).fill(0xee);
            const keys = [...[...model.values()].map((m) => m.key), absent];
            const bitmaps = await reader.lookupTerms(keys, window);
            expect(bitmaps).toHaveLength(keys.length);
            keys.forEach((key, i) => {
              const want = (model.get(termKeyHex(key))?.ordinals ?? []).filter(
                (o) => o >= window.start && o < window.end,
              );
              const bitmap = bitmaps[i];
              if (want.length === 0) {
                // Absent or empty inside the window are both allowed; what is inside must be empty.
                if (bitmap !== undefined) expect(bitmap.rangeCardinality(window.start, window.end)).toBe(0);
                return;
              }
              expect(bitmap).toBeDefined();
              const inside = [...bitmap!].filter((o) => o >= window.start && o < window.end);
              expect(inside).toEqual(want);
              expect(() => bitmap!.add(window.start)).toThrow();
            });
          }),
        ),
        { ...propertyParams(), ...runs() },
      ),
  },
  {
    name: 'windows past eventCount are rejected; closed readers reject',
    run: async (make) => {
      const input = fc.sample(chunkInputArb, { numRuns: 1, seed: 7 })[0]!;
      await withReader(make, input, async (reader, all) => {
        await expectEventsError(reader.fetchRange({ start: 0, end: all.length + 1 }));
        await expectEventsError(reader.lookupTerms([], { start: 0, end: all.length + 1 }));
      });
      const harness = await make(input);
      await harness.reader.close();
      await expect(harness.reader.fetchRange({ start: 0, end: 0 })).rejects.toThrow();
      await harness.cleanup?.();
    },
  },
];

/** Runs every check against `make`; returns the names of the checks that failed (for negative controls). */
export async function runChunkReaderChecks(make: MakeHarness): Promise<{ name: string; error: unknown }[]> {
  const failures: { name: string; error: unknown }[] = [];
  for (const check of chunkReaderChecks) {
    try {
      await check.run(make);
    } catch (error) {
      failures.push({ name: check.name, error });
    }
  }
  return failures;
}

/** Registers the suite with vitest: one `it` per check inside `describe(name)`. */
export function runChunkReaderContract(name: string, makeHarness: MakeHarness): void {
  describe(`ChunkReader contract: ${name}`, () => {
    for (const check of chunkReaderChecks) it(check.name, () => check.run(makeHarness));
  });
}
