// getEvents and getEventsV2 off the server's thread: a pool of worker threads (events-worker.ts), each with its own
// chunk readers (opened through the backend's `eventsWorkerOpener` module), runs a page request whole (validation,
// the match engine, the JSON bytes of its events) and posts the result back; the server's thread only parses,
// dispatches and writes. So a heavy page (a batch of 5-filter calls: thousands of events) does not hold up the other
// methods, ingest on the node's thread does not hold up pages, and with more than one worker pages run in parallel.
//
// The served range is read on the server's thread when the request starts (as in-process) and sent with it, so a
// worker answers exactly the range the server saw. Errors: a refusal (RpcError / EventsError with a JSON-RPC body) is
// sent back as its body and thrown again here as RpcError, byte-identical to the in-process answer; anything else is
// an internal error (the worker logs nothing; the server logs "events worker failed" with the message). A worker that
// dies fails its pending requests with an internal error and is replaced on the next request.
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '@strata/base';
import type { ChunkOpenerModule, ChunkTier, ServedRange } from './backend.js';
import type { RpcConfig } from './config.js';
import { RpcError, type RpcErrorBody } from './errors.js';
import { RawJson } from './json.js';
import type { VersionInfo } from './methods.js';

/** What a worker is started with. */
export interface EventsWorkerData {
  readonly opener: ChunkOpenerModule;
  readonly config: RpcConfig;
  readonly version: VersionInfo;
}

/** One page request sent to a worker. */
export interface EventsWorkerRequest {
  readonly id: number;
  readonly method: 'getEvents' | 'getEventsV2';
  readonly params: Record<string, unknown>;
  readonly range: ServedRange;
}

/** A worker's answer: the result without its events, and the events' JSON bytes; or the error. */
export type EventsWorkerReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly result: Record<string, unknown>;
      readonly events: Uint8Array;
      readonly tiers: ChunkTier[];
    }
  | {
      readonly id: number;
      readonly ok: false;
      readonly body: RpcErrorBody;
      readonly internal: boolean;
      readonly message: string;
      readonly tiers: ChunkTier[];
    };

/** An internal failure of a worker (its message is logged by the server, never sent). */
export class EventsWorkerFailure extends Error {
  override readonly name = 'EventsWorkerFailure';
}

interface Pending {
  readonly resolve: (value: Record<string, unknown>) => void;
  readonly reject: (error: unknown) => void;
  readonly tiers: Set<ChunkTier>;
}

interface Slot {
  worker: Worker | undefined;
  readonly pending: Map<number, Pending>;
  /** Resolves when the slot's worker has warmed its chunks (or has failed). */
  ready: Promise<void>;
}

export class EventsWorkerPool {
  readonly #slots: Slot[];
  readonly #data: EventsWorkerData;
  #nextId = 1;
  #closed = false;

  constructor(size: number, data: EventsWorkerData) {
    this.#data = data;
    this.#slots = Array.from({ length: size }, () => ({
      worker: undefined,
      pending: new Map(),
      ready: Promise.resolve(),
    }));
    // Started now: module loading and the opener's warm-up run before the first request, not during it.
    for (const slot of this.#slots) this.#workerOf(slot);
  }

  /** Resolves when every worker has started and warmed its chunks (a failed one counts as done). */
  async ready(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.ready));
  }

  /** Runs one page request on the least busy worker; resolves with its result (events as RawJson). */
  run(
    method: 'getEvents' | 'getEventsV2',
    params: Record<string, unknown>,
    range: ServedRange,
    tiers: Set<ChunkTier>,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(new EventsWorkerFailure('the events workers are closed'));
    let slot = this.#slots[0]!;
    for (const candidate of this.#slots) if (candidate.pending.size < slot.pending.size) slot = candidate;
    const worker = this.#workerOf(slot);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, tiers });
      const request: EventsWorkerRequest = { id, method, params, range };
      worker.postMessage(request);
    });
  }

  #workerOf(slot: Slot): Worker {
    if (slot.worker !== undefined) return slot.worker;
    const worker = spawnWorker(import.meta.url, 'events-worker', { workerData: this.#data });
    worker.unref(); // the server's socket keeps the process alive, not an idle worker
    let ready!: () => void;
    slot.ready = new Promise((resolve) => {
      ready = resolve;
    });
    const fail = (message: string) => {
      ready();
      if (slot.worker === worker) slot.worker = undefined;
      for (const pending of slot.pending.values()) pending.reject(new EventsWorkerFailure(message));
      slot.pending.clear();
    };
    worker.on('message', (reply: EventsWorkerReply | { readonly ready: true }) => {
      if ('ready' in reply) {
        ready();
        return;
      }
      const pending = slot.pending.get(reply.id);
      if (pending === undefined) return;
      slot.pending.delete(reply.id);
      for (const tier of reply.tiers) pending.tiers.add(tier);
      if (reply.ok) {
        const events = Buffer.from(reply.events.buffer, reply.events.byteOffset, reply.events.byteLength);
        pending.resolve({ events: new RawJson(events), ...reply.result });
      } else if (reply.internal) {
        pending.reject(new EventsWorkerFailure(reply.message));
      } else {
        pending.reject(new RpcError('RPC_ERROR', reply.body.message, { rpc: reply.body }));
      }
    });
    worker.on('error', (error) => fail(`events worker failed: ${error.message}`));
    worker.on('exit', (code) => fail(`events worker exited with code ${code}`));
    slot.worker = worker;
    return worker;
  }

  /** Stops every worker (pending requests fail). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.#slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        if (worker !== undefined) await worker.terminate();
      }),
    );
  }
}
