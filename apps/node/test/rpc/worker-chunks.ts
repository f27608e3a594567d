// The events workers' opener of the RPC tests (RpcBackend.eventsWorkerOpener): a read-only reader of one hot chunk
// file, opened in the worker; `fail` makes every open throw, `exitOnOpen` ends the worker thread on its first open
// (a worker crash).
import { openHotReader } from '@strata/hot-store';
import type { ChunkOpener } from '../../src/rpc/index.js';

export interface TestChunkArgs {
  readonly path: string;
  readonly chunkId: number;
  readonly fail?: boolean;
  readonly exitOnOpen?: boolean;
}

export async function openTestChunk(args: TestChunkArgs): Promise<ChunkOpener> {
  let reader: ReturnType<typeof openHotReader> | undefined;
  return {
    async openChunk(chunkId: number) {
      if (args.exitOnOpen === true) process.exit(3);
      if (args.fail === true || chunkId !== args.chunkId) throw new Error(`chunk ${chunkId} is not served here`);
      reader ??= openHotReader(args.path, { chunkId });
      return { tier: 'hot' as const, reader };
    },
  };
}
