// Concurrent fetches through ColdChunkReader (spec §4.8, upstream's TestColdReader_FetchEventsFansOutSafely at the
// chunk level): a frozen chunk of 4,096+ events over 32+ records of events.pack, every event fetched at once with
// concurrency 8 (one record per batch, so eight reads are in flight), every payload compared whole; and the same
// while other fetches and lookups run. The fan-out is the path of files that are read (storages that cannot map,
// files over the mapping limit, pages not in memory); mapped files serve the same fetch from the mapping. Negative
// control: the packfile reader's shared-arena fault (one arena per fetch, space claimed before each batch's read is
// awaited) fails the read fetch at concurrency 8 and not at 1.
import { tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { ColdChunkReader } from '../src/index.js';
import { __faults } from '../src/packfile/reader.js';
import { type ChunkInput, freezeInto, InMemoryChunkReader, storagesIn, UnmappedStorage } from './chunk-support.js';

/** The chunk's two storages, mapped (LocalStorage) or read only (as an object store). */
function storages(dir: string, mapped: boolean) {
  const local = storagesIn(dir);
  if (mapped) return local;
  return { storage: new UnmappedStorage(local.storage), indexStorage: new UnmappedStorage(local.indexStorage) };
}

const CHUNK = 15;
const FIRST = CHUNK * 10_000 + 2;

const input: ChunkInput = {
  startLedger: FIRST,
  ledgers: Array.from({ length: 140 }, (_, i) => syntheticLedger(8, FIRST + i, 40, 20)),
};
const payloads = input.ledgers.flat();

async function wrongPayloads(reader: ColdChunkReader): Promise<number> {
  const got = await reader.fetchEvents(payloads.map((_, i) => i));
  return got.filter((payload, i) => Buffer.compare(payload, payloads[i]!) !== 0).length;
}

describe('concurrent fetch through ColdChunkReader', () => {
  afterEach(() => {
    __faults.sharedArena = false;
  });

  it.each([
    ['read', false],
    ['mapped', true],
  ] as const)('returns every payload whole with concurrency 8, alone and among other calls (%s)', async (_, mapped) => {
    const dir = tempDir('fanout');
    await (await freezeInto(dir, new InMemoryChunkReader(input))).reader.close();
    const reader = await ColdChunkReader.open({
      chunkId: CHUNK,
      ...storages(dir, mapped),
      read: { concurrency: 8, maxBatchBytes: 1 },
    });
    expect(payloads.length).toBeGreaterThanOrEqual(4_096);
    expect(await wrongPayloads(reader)).toBe(0);
    expect(reader.stats.events.batches).toBeGreaterThanOrEqual(32);
    expect(reader.stats.events.mappedBatches).toBe(mapped ? reader.stats.events.batches : 0);
    const together = await Promise.all([
      wrongPayloads(reader),
      wrongPayloads(reader),
      reader.fetchRange({ start: 100, end: 3_000 }).then((events) => events.length),
    ]);
    expect(together).toEqual([0, 0, 2_900]);
    expect(reader.stats.events.pooledBuffersInUse).toBe(0);
    await reader.close();
  });

  it('negative control: a shared arena fails it at concurrency 8, not at 1', async () => {
    const dir = tempDir('fanout');
    await (await freezeInto(dir, new InMemoryChunkReader(input))).reader.close();
    __faults.sharedArena = true;
    const serial = await ColdChunkReader.open({
      chunkId: CHUNK,
      ...storages(dir, false),
      read: { concurrency: 1, maxBatchBytes: 1 },
    });
    expect(await wrongPayloads(serial)).toBe(0);
    const fanned = await ColdChunkReader.open({
      chunkId: CHUNK,
      ...storages(dir, false),
      read: { concurrency: 8, maxBatchBytes: 1 },
    });
    expect(await wrongPayloads(fanned)).toBeGreaterThan(0);
    await Promise.all([serial.close(), fanned.close()]);
  });
});
