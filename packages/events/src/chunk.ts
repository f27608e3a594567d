// Chunk math and cold file naming (spec §3.1; upstream rpcv2/chunk/chunk.go, cold_format.go): 10,000 ledgers per
// chunk from ledger 2, 1,000 chunks per bucket directory.
import { badArgument, describeValue } from './arguments.js';

export const LEDGERS_PER_CHUNK = 10_000;
/** The first ledger of the network (genesis is ledger 1 and holds no events). */
export const FIRST_LEDGER = 2;
export const CHUNKS_PER_BUCKET = 1_000;
/** Largest chunk id whose ledgers all fit a uint32. */
export const MAX_CHUNK_ID = Math.floor((0xffffffff - FIRST_LEDGER) / LEDGERS_PER_CHUNK) - 1;

/** The chunk holding `ledger` (ledger ≥ 2). */
export function chunkIdOfLedger(ledger: number): number {
  if (typeof ledger !== 'number' || !Number.isInteger(ledger) || ledger < FIRST_LEDGER || ledger > 0xffffffff) {
    badArgument('ledger', `ledger ${describeValue(ledger)} is not a stored ledger (≥ ${FIRST_LEDGER})`);
  }
  return Math.floor((ledger - FIRST_LEDGER) / LEDGERS_PER_CHUNK);
}

function checkChunkId(chunkId: number): void {
  if (typeof chunkId !== 'number' || !Number.isInteger(chunkId) || chunkId < 0 || chunkId > MAX_CHUNK_ID)
    badArgument('chunkId', `bad chunk id ${describeValue(chunkId)}`);
}

export function chunkFirstLedger(chunkId: number): number {
  checkChunkId(chunkId);
  return chunkId * LEDGERS_PER_CHUNK + FIRST_LEDGER;
}

/** Last ledger of the chunk, inclusive: (c+1)·10000 + 1. */
export function chunkLastLedger(chunkId: number): number {
  checkChunkId(chunkId);
  return (chunkId + 1) * LEDGERS_PER_CHUNK + FIRST_LEDGER - 1;
}

export function bucketOfChunk(chunkId: number): number {
  checkChunkId(chunkId);
  return Math.floor(chunkId / CHUNKS_PER_BUCKET);
}

/** The three cold files of a chunk. */
export type ColdFileKind = 'events.pack' | 'index.pack' | 'index.hash';
const COLD_FILE_KINDS: readonly unknown[] = ['events.pack', 'index.pack', 'index.hash'] satisfies ColdFileKind[];

/** Relative path `{bucket %05d}/{chunk %08d}-{kind}` of a cold file; join it to the store root. */
export function coldFilePath(chunkId: number, kind: ColdFileKind): string {
  if (!COLD_FILE_KINDS.includes(kind)) badArgument('kind', `${describeValue(kind)} is not a cold file kind`);
  const bucket = bucketOfChunk(chunkId).toString().padStart(5, '0');
  return `${bucket}/${chunkId.toString().padStart(8, '0')}-${kind}`;
}
