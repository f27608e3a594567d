// Freezing a finished hot chunk into @strata/cold-store's files on a worker thread, so that the CPU-heavy part
// (compression, the MPHF, verification against the hot chunk) does not stall ingest on the main thread. The worker
// opens its own read-only hot reader (readers are not shared between threads) and its own storage; the main thread
// learns the outcome from one message. Cold files become visible only through their manifest, written last by
// freezeChunk, so a crash mid-freeze leaves the chunk hot and the next freeze starts over.
//
// The pipeline starts it when ingest enters the next chunk (node.ts); no integration test crosses a chunk boundary
// yet (README "Status"), so that call is exercised only by freezer.test.ts's direct use.
import { join } from 'node:path';
import { spawnWorker } from '@strata/base';
import { type DataDirLayout, hotChunkPath } from './data-dir.js';
import { NodeError } from './errors.js';

/** What the worker is told. */
export interface FreezeRequest {
  readonly chunkId: number;
  readonly hotPath: string;
  /** The chunk's cold folder (packs and index). */
  readonly coldDir: string;
}

/** What the worker answers. */
export type FreezeOutcome =
  | { readonly ok: true; readonly frozenNow: boolean; readonly eventCount: number; readonly termCount: number }
  | { readonly ok: false; readonly message: string; readonly code: string | undefined };

/** The cold folder of `chunkId`. */
export function coldChunkDir(layout: DataDirLayout, chunkId: number): string {
  return join(layout.coldDir, String(chunkId));
}

/**
 * Freezes the hot chunk `chunkId` of `layout` on a worker thread; resolves when its cold manifest is durable (or
 * was already there: `frozenNow` false). The chunk's ingest must be complete. A failure is NodeError
 * EVENTS_FAILED naming the chunk's database, with the worker's code and message.
 */
export function freezeInBackground(
  layout: DataDirLayout,
  chunkId: number,
): Promise<Extract<FreezeOutcome, { ok: true }>> {
  const request: FreezeRequest = {
    chunkId,
    hotPath: hotChunkPath(layout, chunkId),
    coldDir: coldChunkDir(layout, chunkId),
  };
  return new Promise((resolve, reject) => {
    const worker = spawnWorker(import.meta.url, 'freeze-worker', { workerData: request });
    let settled = false;
    const fail = (detail: string, cause?: unknown) => {
      if (settled) return;
      settled = true;
      reject(
        new NodeError('EVENTS_FAILED', `cannot freeze chunk ${chunkId}: ${detail}`, { file: request.hotPath, cause }),
      );
    };
    worker.once('message', (outcome: FreezeOutcome) => {
      if (outcome.ok) {
        settled = true;
        resolve(outcome);
      } else fail(`${outcome.code ?? 'error'}: ${outcome.message}`);
    });
    worker.once('error', (error) => fail(error.message, error));
    worker.once('exit', (code) => fail(`the freeze worker exited with code ${code} before answering`));
  });
}
