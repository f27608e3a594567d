// The hot writer thread (see hot-writer.ts): owns the node's live hot chunk (a HotStore: its SQLite connection and
// in-memory index) and writes each ledger's events the main thread posts, in the order posted, answering each
// message with one reply in the same order. At a chunk boundary it syncs and closes the finished chunk and creates
// the next one; the main thread starts the finished chunk's freeze when it reads that reply.
//
// A HotStoreError (or any other failure) of an ingest is answered with `failed` and leaves the store as it was (an
// ingest call that throws writes nothing); later ingests are then dropped unanswered, while sync and close are still
// served, so the main thread can record what is durable before the error propagates.
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { assert } from '@strata/base';
import { chunkIdOfLedger, chunkLastLedger } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { type DataDirLayout, hotChunkIds, hotChunkPath } from './data-dir.js';
import type { HotWriterReply, HotWriterRequest, SerializedError } from './hot-writer.js';

export interface HotWriterData {
  readonly layout: DataDirLayout;
  /** The events tiers' newest ledger before any hot database is read (firstLedger - 1, or the newest frozen one). */
  readonly baseLedger: number;
}

assert(parentPort !== null, 'hot-writer-worker runs as a worker thread');
const port = parentPort;
const { layout, baseLedger } = workerData as HotWriterData;
let hot: HotStore | undefined;
/** The newest ledger found at reopen: durable (a chunk is synced at open and before it is closed). */
let reopenedLedger = baseLedger;
let failed = false;

const reply = (message: HotWriterReply) => port.postMessage(message);

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) {
    const { code, detail, file, field } = error as Error & Record<string, unknown>;
    return {
      name: error.name,
      message: error.message,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof detail === 'string' ? { detail } : {}),
      ...(typeof file === 'string' ? { file } : {}),
      ...(typeof field === 'string' ? { field } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

/**
 * Opens the newest hot chunk and finds the newest ledger the events tiers hold: the newest hot chunk's latest ledger,
 * or `baseLedger` when that is newer (or no chunk holds a ledger).
 */
function reopen(): { chunkId: number | undefined; hotLedger: number } {
  const ids = hotChunkIds(layout);
  let hotLedger = baseLedger;
  try {
    for (let i = ids.length - 1; i >= 0; i--) {
      // `!`: i is an index of ids
      const chunkId = ids[i]!;
      const store = HotStore.open(hotChunkPath(layout, chunkId), { chunkId });
      const latest = store.latestLedger;
      if (hot === undefined) hot = store;
      else store.close();
      if (latest !== undefined) {
        hotLedger = Math.max(hotLedger, latest);
        break;
      }
    }
  } catch (error) {
    hot?.close();
    hot = undefined;
    throw error;
  }
  return { chunkId: hot?.chunkId, hotLedger };
}

/** Ingests one ledger into its chunk, switching chunks at a boundary. */
function ingest(ledger: number, buffer: ArrayBuffer, ends: Uint32Array): HotWriterReply {
  const chunkId = chunkIdOfLedger(ledger);
  let finished: { chunkId: number; complete: boolean } | undefined;
  if (hot === undefined || hot.chunkId !== chunkId) {
    const previous = hot;
    previous?.sync();
    const previousLast = previous?.latestLedger;
    previous?.close();
    hot = undefined;
    mkdirSync(layout.hotDir, { recursive: true });
    hot = HotStore.open(hotChunkPath(layout, chunkId), { chunkId, create: true });
    if (previous !== undefined) {
      finished = { chunkId: previous.chunkId, complete: previousLast === chunkLastLedger(previous.chunkId) };
    }
  }
  const bytes = new Uint8Array(buffer);
  const payloads = new Array<Uint8Array>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    // `!`: i < ends.length
    const end = ends[i]!;
    payloads[i] = bytes.subarray(start, end);
    start = end;
  }
  hot.ingestLedger(ledger, payloads);
  return { op: 'ingested', ledger, events: payloads.length, chunkId, ...(finished === undefined ? {} : { finished }) };
}

port.on('message', (request: HotWriterRequest) => {
  switch (request.op) {
    case 'ingest': {
      if (failed) return; // the main thread has the failure; what follows it is not written
      try {
        reply(ingest(request.ledger, request.buffer, request.ends));
      } catch (error) {
        failed = true;
        reply({ op: 'failed', ledger: request.ledger, error: serialize(error) });
      }
      return;
    }
    case 'sync': {
      try {
        // An empty live chunk (made just before a crash) holds nothing newer than what reopen found.
        reply({ op: 'synced', durable: hot?.sync() ?? reopenedLedger });
      } catch (error) {
        reply({ op: 'sync-failed', error: serialize(error) });
      }
      return;
    }
    case 'close': {
      try {
        hot?.close();
        hot = undefined;
        reply({ op: 'closed' });
      } catch (error) {
        reply({ op: 'close-failed', error: serialize(error) });
      }
      port.close();
      return;
    }
  }
});

try {
  const opened = reopen();
  reopenedLedger = opened.hotLedger;
  reply({ op: 'opened', ...opened });
} catch (error) {
  reply({ op: 'open-failed', error: serialize(error) });
  port.close();
}
