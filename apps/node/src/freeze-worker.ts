// The freeze worker thread (see freezer.ts): freezes one hot chunk into its cold folder and posts one FreezeOutcome.
import { parentPort, workerData } from 'node:worker_threads';
import { assert } from '@strata/base';
import { freezeChunk, LocalStorage } from '@strata/cold-store';
import { hotTermOrdinals, openHotReader } from '@strata/hot-store';
import type { FreezeOutcome, FreezeRequest } from './freezer.js';

async function freeze(request: FreezeRequest): Promise<FreezeOutcome> {
  const hot = openHotReader(request.hotPath, { chunkId: request.chunkId });
  try {
    const frozen = await freezeChunk({
      hot,
      storage: new LocalStorage(`${request.coldDir}/packs`),
      indexStorage: new LocalStorage(`${request.coldDir}/index`),
      // index.pack from the hot index's own term lists (the chunk is complete; freezeChunk checks them)
      termOrdinals: hotTermOrdinals(hot),
    });
    await frozen.reader.close();
    return { ok: true, frozenNow: frozen.frozenNow, eventCount: frozen.eventCount, termCount: frozen.termCount };
  } catch (error) {
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;
    return { ok: false, message: error instanceof Error ? error.message : String(error), code };
  } finally {
    await hot.close();
  }
}

assert(parentPort !== null, 'freeze-worker runs as a worker thread');
const port = parentPort;
port.postMessage(await freeze(workerData as FreezeRequest));
