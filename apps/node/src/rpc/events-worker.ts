// An events worker thread (see events-workers.ts): opens chunks through the backend's opener module and answers page
// requests with the same methods the server runs in-process, over a backend of that request's served range.
import { parentPort, workerData } from 'node:worker_threads';
import { assert } from '@strata/base';
import type { ChunkOpener, RpcBackend, ServedRange } from './backend.js';
import type { EventsWorkerData, EventsWorkerReply, EventsWorkerRequest } from './events-workers.js';
import { RawJson } from './json.js';
import { errorBodyOf, type MethodContext, rpcMethods } from './methods.js';

assert(parentPort !== null, 'events-worker runs as a worker thread');
const port = parentPort;
const data = workerData as EventsWorkerData;
const module = (await import(data.opener.module)) as Record<string, (args: unknown) => Promise<ChunkOpener>>;
const factory = module[data.opener.exportName];
assert(typeof factory === 'function', `${data.opener.exportName} is not a function of ${data.opener.module}`);
const chunks = await factory(data.opener.args);
await chunks.warm?.().catch(() => undefined); // a failing open is reported by the request that needs it
port.postMessage({ ready: true });

/** The backend of one request: its served range, the worker's chunks; nothing else is read by the events methods. */
function backendFor(range: ServedRange): RpcBackend {
  const unused = (): never => {
    throw new Error('not served by an events worker');
  };
  return {
    networkPassphrase: '',
    protocolVersion: unused,
    servedRange: () => range,
    latestLedger: unused,
    openChunk: (chunkId) => chunks.openChunk(chunkId),
    chunkCounts: unused,
    ledgerEntries: unused,
  };
}

port.on('message', (request: EventsWorkerRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});

async function answer(request: EventsWorkerRequest): Promise<EventsWorkerReply> {
  const context: MethodContext = { tiers: new Set() };
  try {
    const method = rpcMethods(backendFor(request.range), data.config, data.version).get(request.method);
    assert(method !== undefined, `no method ${request.method}`);
    const { events, ...result } = (await method(request.params, context)) as Record<string, unknown>;
    assert(events instanceof RawJson, 'a page result holds its events as JSON bytes');
    return { id: request.id, ok: true, result, events: events.bytes, tiers: [...context.tiers] };
  } catch (error) {
    const { body, internal } = errorBodyOf(error);
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { id: request.id, ok: false, body, internal, message, tiers: [...context.tiers] };
  }
}
