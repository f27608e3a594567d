// The ChunkReader contract suite of @strata/test-contracts against both hot readers: the store's own reader (ledgers
// ingested one transaction each) and a worker-style reader with its own read-only connection over a database
// backfilled in one batch and closed.
import { join } from 'node:path';
import { runChunkReaderContract } from '@strata/test-contracts';
import { HotStore, openHotReader } from '../src/index.js';
import { scratchDir } from './support.js';

runChunkReaderContract('HotStore.reader() (one ledger per transaction)', async (input) => {
  const { dir, cleanup } = scratchDir('contract');
  const chunkId = Math.floor((input.startLedger - 2) / 10_000);
  const store = HotStore.open(join(dir, 'chunk.db'), { chunkId, create: true, synchronous: 'normal' });
  input.ledgers.forEach((payloads, i) => {
    store.ingestLedger(input.startLedger + i, payloads);
  });
  return {
    reader: store.reader(),
    cleanup: async () => {
      store.close();
      cleanup();
    },
  };
});

runChunkReaderContract('openHotReader (own read-only connection, batch backfill)', async (input) => {
  const { dir, cleanup } = scratchDir('contract');
  const chunkId = Math.floor((input.startLedger - 2) / 10_000);
  const path = join(dir, 'chunk.db');
  const store = HotStore.open(path, { chunkId, create: true, synchronous: 'normal' });
  store.ingestLedgers(input.ledgers.map((payloads, i) => ({ ledger: input.startLedger + i, payloads })));
  store.close();
  return { reader: openHotReader(path, { chunkId }), cleanup: async () => cleanup() };
});
