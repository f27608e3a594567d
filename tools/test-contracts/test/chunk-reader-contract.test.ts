// Runs the ChunkReader contract suite against the in-memory reference, and proves the suite can fail: a reader
// that drops the last ordinal of every window (negative control) must fail it.
import { EventsError, type FetchedEvent, type OrdinalWindow } from '@strata/events';
import { describe, expect, it } from 'vitest';
import { InMemoryChunkReader, runChunkReaderChecks, runChunkReaderContract } from '../src/index.js';

runChunkReaderContract('InMemoryChunkReader', async (input) => ({ reader: new InMemoryChunkReader(input) }));

/** Deliberately broken: fetchRange loses the last event of each non-empty window. */
class DropsLastOrdinal extends InMemoryChunkReader {
  override async fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    const all = await super.fetchRange(window);
    return all.slice(0, Math.max(0, all.length - 1));
  }
}

/** Deliberately broken: accepts unsorted ordinals instead of rejecting them. */
class AcceptsUnsorted extends InMemoryChunkReader {
  override async fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    const sorted = Array.from(ordinals).sort((a, b) => a - b);
    const dedup = sorted.filter((o, i) => i === 0 || o !== sorted[i - 1]);
    const got = await super.fetchEvents(dedup);
    return Array.from(ordinals, (o) => got[dedup.indexOf(o)]!);
  }
}

describe('negative controls', () => {
  it('a reader that drops the last ordinal of a window fails the suite', async () => {
    const failures = await runChunkReaderChecks(async (input) => ({ reader: new DropsLastOrdinal(input) }));
    expect(failures.map((f) => f.name)).toEqual([
      'fetchRange returns every event of the window, in ordinal order, byte-exact',
    ]);
  });
  it('a reader that accepts unsorted ordinals fails the suite', async () => {
    const failures = await runChunkReaderChecks(async (input) => ({ reader: new AcceptsUnsorted(input) }));
    expect(failures.map((f) => f.name)).toEqual([
      'fetchEvents returns the payloads of sorted ordinals and rejects unsorted, duplicate or out-of-range ids',
    ]);
  });
  it('the reference rejects with EventsError', async () => {
    const reader = new InMemoryChunkReader({ startLedger: 2, ledgers: [[]] });
    await expect(reader.fetchEvents([0])).rejects.toBeInstanceOf(EventsError);
  });
});
