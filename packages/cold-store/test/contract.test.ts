// The ChunkReader contract suite of @strata/test-contracts against ColdChunkReader, over chunks frozen from the
// in-memory reference reader (freezing from a real hot store is the differential test's): read from memory storages
// (packs and indexes apart), from local files through LocalStorage (mapped), and through storages that cannot map
// (every lookup then reads its index.pack items instead of viewing the mapping) with one batch in flight. Freezes
// write to memory storages: a suite of 1,500 freezes cannot pay four fsyncs each.
import { join } from 'node:path';
import { runChunkReaderContract } from '@strata/test-contracts';
import { ColdChunkReader } from '../src/index.js';
import {
  chunkIdOf,
  copyToDisk,
  frozenInMemory,
  MemoryStorage,
  scratchDir,
  storagesIn,
  UnmappedStorage,
} from './chunk-support.js';

runChunkReaderContract('ColdChunkReader (frozen from the reference reader, memory storage)', async (input) => ({
  reader: await frozenInMemory(input),
}));

runChunkReaderContract('ColdChunkReader (local files, mapped; packs and indexes in two directories)', async (input) => {
  const { dir, cleanup } = scratchDir('contract');
  const storages = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
  await (await frozenInMemory(input, storages)).close();
  copyToDisk(storages.storage, join(dir, 'data'));
  copyToDisk(storages.indexStorage, join(dir, 'index'));
  return {
    reader: await ColdChunkReader.open({ chunkId: chunkIdOf(input), ...storagesIn(dir) }),
    cleanup: async () => cleanup(),
  };
});

runChunkReaderContract('ColdChunkReader (storages that cannot map, concurrency 1)', async (input) => {
  const storages = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
  await (await frozenInMemory(input, storages)).close();
  const reader = await ColdChunkReader.open({
    chunkId: chunkIdOf(input),
    storage: new UnmappedStorage(storages.storage),
    indexStorage: new UnmappedStorage(storages.indexStorage),
    read: { concurrency: 1 },
  });
  return { reader };
});
