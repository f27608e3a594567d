// The concurrent-fetch test of spec §4.8 (upstream's TestColdReader_FetchEventsFansOutSafely): thousands of items
// over dozens of records, fetched with concurrency 8, every item compared whole. The fan-out is the path of files
// read rather than mapped (a storage that cannot map, a file over the mapping limit, pages not in memory), so the
// pack is opened without its mapping; the mapped path serves the same fetch from the mapping, batch by batch. Its
// negative control turns on the shared-arena fault (one arena per fetch, space claimed before each batch's read is
// awaited): the read fetch must then fail, while it still passes at concurrency 1 — so the test detects exactly the
// concurrent-arena race.
import { tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { __faults, type PackfileReader } from '../src/packfile/reader.ts';
import { makeItems, openPack, openReadPack, writePack } from './packfile-support.ts';

const ITEM_COUNT = 4096 + 37;

/** Every item of `reader`, read in one fetch, compared whole with the oracle; returns how many differ. */
async function mismatches(reader: PackfileReader, items: readonly Uint8Array[]): Promise<number> {
  const positions = items.map((_, i) => i);
  const got = await reader.readItems(positions);
  let wrong = 0;
  for (let i = 0; i < items.length; i++) {
    if (Buffer.compare(got[i] as Uint8Array, items[i] as Uint8Array) !== 0) wrong++;
  }
  return wrong;
}

describe('concurrent fetch', () => {
  afterEach(() => {
    __faults.sharedArena = false;
  });

  async function setUp(codec: 'zstd' | 'none') {
    const dir = tempDir('pack-fanout');
    const items = makeItems(ITEM_COUNT, 120, 11);
    const summary = await writePack(dir, 'fan.pack', items, { codec });
    expect(summary.recordCount).toBeGreaterThanOrEqual(32);
    // A batch cap below one record: every record is a batch of its own, so 8 are in flight at once.
    return { dir, items, recordCount: summary.recordCount };
  }

  it.each(['zstd', 'none'] as const)('returns every item whole with concurrency 8 (%s)', async (codec) => {
    const { dir, items, recordCount } = await setUp(codec);
    for (const open of [openReadPack, openPack]) {
      const reader = await open(dir, 'fan.pack', { concurrency: 8, maxBatchBytes: 1 });
      const mapped = open === openPack;
      expect(await mismatches(reader, items)).toBe(0);
      expect(reader.stats.batches).toBe(recordCount);
      // Read: one storage read per batch (and open's); mapped: every batch from the mapping, no read.
      expect(reader.stats.reads).toBe(mapped ? 1 : 1 + recordCount);
      expect(reader.stats.mappedBatches).toBe(mapped ? recordCount : 0);
      expect(reader.stats.pooledBuffersInUse).toBe(0);
      // Several fetches at once share the reader's pool and must not disturb each other either.
      const again = await Promise.all([mismatches(reader, items), mismatches(reader, items)]);
      expect(again).toEqual([0, 0]);
      await reader.close();
    }
  });

  it('negative control: a shared arena fails the same test at concurrency 8, not at 1', async () => {
    const { dir, items } = await setUp('zstd');
    __faults.sharedArena = true;
    const serial = await openReadPack(dir, 'fan.pack', { concurrency: 1, maxBatchBytes: 1 });
    expect(await mismatches(serial, items)).toBe(0);
    const fanned = await openReadPack(dir, 'fan.pack', { concurrency: 8, maxBatchBytes: 1 });
    expect(await mismatches(fanned, items)).toBeGreaterThan(0);
    await Promise.all([serial.close(), fanned.close()]);
  });
});
