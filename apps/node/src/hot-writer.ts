// The node's live hot chunk, written on a worker thread of its own (hot-writer-worker.ts), so that a ledger's events
// go into SQLite and the in-memory term index on the other core while the main thread applies the next ledger to
// the ledger state. The main thread posts each ledger's payloads (one buffer, transferred, not copied) and reads the
// worker's replies in the order it posted; at most `maxInFlight` ledgers are posted and not yet answered (the node
// waits for the oldest before posting more), so the hot chunk runs behind the state by at most that many ledgers.
//
// Readers never go through this thread: the RPC's readers and the freeze open their own (openHotReader), and see a
// ledger once the worker's transaction committed it, which is before its reply is posted.
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '@strata/base';
import { HotStoreError, type HotStoreErrorCode } from '@strata/hot-store';
import type { DataDirLayout } from './data-dir.js';
import { NodeError } from './errors.js';
import type { HotWriterData } from './hot-writer-worker.js';

/** Ledgers posted to the writer and not yet answered, at most (the hot chunk's lag behind the state). */
export const HOT_WRITER_MAX_IN_FLIGHT = 16;

/** An error as it crosses the thread boundary: its name and message, and StrataError's fields when it has them. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly detail?: string;
  readonly file?: string;
  readonly field?: string;
}

/** What the main thread posts. */
export type HotWriterRequest =
  | { readonly op: 'ingest'; readonly ledger: number; readonly buffer: ArrayBuffer; readonly ends: Uint32Array }
  | { readonly op: 'sync' }
  | { readonly op: 'close' };

/** What the worker answers: one reply per request, in order, after the first (`opened` or `open-failed`). */
export type HotWriterReply =
  | { readonly op: 'opened'; readonly chunkId: number | undefined; readonly hotLedger: number }
  | { readonly op: 'open-failed'; readonly error: SerializedError }
  | {
      readonly op: 'ingested';
      readonly ledger: number;
      readonly events: number;
      /** The chunk now live (the ledger's). */
      readonly chunkId: number;
      /** The chunk this ledger's ingest closed (a boundary), and whether it holds its last ledger. */
      readonly finished?: { readonly chunkId: number; readonly complete: boolean };
    }
  | { readonly op: 'failed'; readonly ledger: number; readonly error: SerializedError }
  | { readonly op: 'synced'; readonly durable: number | undefined }
  | { readonly op: 'sync-failed'; readonly error: SerializedError }
  | { readonly op: 'closed' }
  | { readonly op: 'close-failed'; readonly error: SerializedError };

/** The replies the node acts on, in order: a ledger written, or a sync's durable ledger. */
export type HotWriterEvent =
  | Extract<HotWriterReply, { op: 'ingested' }>
  | { readonly op: 'synced'; readonly durable: number | undefined };

/**
 * The hot writer thread as the node sees it. Use from one async caller at a time. Failures reach the caller as
 * NodeError EVENTS_FAILED (naming the ledger where there is one) from `take`, `waitForRoom`, `sync` or `close`; after
 * an ingest failed, later posts are ignored by the worker, and `sync` still reports what is durable.
 */
export class HotWriter {
  readonly #worker: Worker;
  readonly #layout: DataDirLayout;
  /** Replies not yet taken, in order. */
  #events: HotWriterEvent[] = [];
  /** Ingests posted and not yet answered. */
  #inFlight = 0;
  /** The first failure (an ingest or the thread itself); thrown by every later call. */
  #failure: NodeError | undefined;
  /** Wakes the caller waiting for a reply. */
  #wake: (() => void) | undefined;
  #closed = false;
  #exited = false;
  /** Syncs posted, and sync replies received (a sync() waits for its own). */
  #syncsPosted = 0;
  #syncsAnswered = 0;
  /** Resolves close() with the worker's close error, if any. */
  #onClose: ((error: SerializedError | undefined) => void) | undefined;

  private constructor(worker: Worker, layout: DataDirLayout) {
    this.#worker = worker;
    this.#layout = layout;
  }

  /**
   * Starts the writer over `layout`'s hot databases: it reopens the newest one and reports the events tiers' newest
   * ledger (the newest hot chunk's latest, or `baseLedger` when that is newer). EVENTS_FAILED when it cannot.
   */
  static async open(
    layout: DataDirLayout,
    baseLedger: number,
  ): Promise<{ writer: HotWriter; chunkId: number | undefined; hotLedger: number }> {
    const data: HotWriterData = { layout, baseLedger };
    const worker = spawnWorker(import.meta.url, 'hot-writer-worker', { workerData: data });
    const writer = new HotWriter(worker, layout);
    const opened = await new Promise<Extract<HotWriterReply, { op: 'opened' }>>((resolve, reject) => {
      const fail = (error: NodeError) => {
        worker.off('message', first);
        reject(error);
      };
      const first = (message: HotWriterReply) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (message.op === 'opened') resolve(message);
        else if (message.op === 'open-failed') fail(writer.#error('cannot reopen the hot chunk', message.error));
        else fail(new NodeError('EVENTS_FAILED', `the hot writer answered ${message.op} before opening`));
      };
      const onError = (error: Error) => fail(writer.#threadError(error.message, error));
      const onExit = (code: number) => fail(writer.#threadError(`it exited with code ${code} before opening`));
      worker.once('message', first);
      worker.once('error', onError);
      worker.once('exit', onExit);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    writer.#listen();
    return { writer, chunkId: opened.chunkId, hotLedger: opened.hotLedger };
  }

  /** Ingests posted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Posts ledger `ledger`'s payloads (views of one buffer, as encodeLedgerPayloads returns them, in order; that
   * buffer is transferred: the caller must not use the payloads afterwards). Throws the writer's failure, if any.
   */
  post(ledger: number, payloads: readonly Uint8Array[]): void {
    this.#check();
    const ends = new Uint32Array(payloads.length);
    let buffer: ArrayBuffer;
    const first = payloads[0];
    if (first === undefined) buffer = new ArrayBuffer(0);
    else {
      // One buffer, the payloads consecutive from its start: transfer it; anything else is copied into one.
      const shared = first.buffer;
      let contiguous = shared instanceof ArrayBuffer && first.byteOffset === 0;
      let at = 0;
      for (let i = 0; i < payloads.length; i++) {
        // `!`: i < payloads.length
        const payload = payloads[i]!;
        if (payload.buffer !== shared || payload.byteOffset !== at) contiguous = false;
        at += payload.byteLength;
        ends[i] = at;
      }
      if (contiguous && at === shared.byteLength) buffer = shared as ArrayBuffer;
      else {
        const copy = new Uint8Array(at);
        for (let i = 0, offset = 0; i < payloads.length; i++) {
          // `!`: i < payloads.length
          const payload = payloads[i]!;
          copy.set(payload, offset);
          offset += payload.byteLength;
        }
        buffer = copy.buffer;
      }
    }
    const request: HotWriterRequest = { op: 'ingest', ledger, buffer, ends };
    this.#worker.postMessage(request, [buffer, ends.buffer]);
    this.#inFlight++;
  }

  /** The replies received since the last call, in order. Throws the writer's failure, if any. */
  take(): HotWriterEvent[] {
    const events = this.#events;
    this.#events = [];
    if (events.length === 0) this.#check();
    return events;
  }

  /** Resolves once fewer than `limit` ingests are in flight (or the writer failed: then `take` throws it). */
  async waitForRoom(limit: number): Promise<void> {
    while (this.#inFlight >= limit && this.#failure === undefined) await this.#nextReply();
  }

  /** The first failure of the writer, if any (an ingest, a sync, the thread). */
  get failure(): NodeError | undefined {
    return this.#failure;
  }

  /**
   * Asks for a sync of the live chunk once every ingest posted before is written, without waiting: its reply comes
   * through `take` as a `synced` event (`durable`: the newest ledger that survives a power cut).
   */
  requestSync(): void {
    if (this.#exited) return;
    this.#worker.postMessage({ op: 'sync' } satisfies HotWriterRequest);
    this.#syncsPosted++;
  }

  /**
   * requestSync, then waits for its reply; resolves with every reply received meanwhile, in order, the sync's last.
   * After a failure this still syncs what was written and resolves (see `failure`); when the thread is gone it
   * resolves with what it had answered.
   */
  async sync(): Promise<HotWriterEvent[]> {
    this.requestSync();
    const target = this.#syncsPosted;
    const taken: HotWriterEvent[] = [];
    for (;;) {
      taken.push(...this.#events);
      this.#events = [];
      if (this.#syncsAnswered >= target || this.#exited) return taken;
      await this.#nextReply();
    }
  }

  /** Closes the live chunk and ends the thread (idempotent). EVENTS_FAILED when the chunk does not close cleanly. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#exited) return;
    const closed = new Promise<SerializedError | undefined>((resolve) => {
      this.#onClose = resolve;
      this.#worker.once('exit', () => resolve(undefined));
    });
    this.#worker.postMessage({ op: 'close' } satisfies HotWriterRequest);
    const error = await closed;
    await this.#worker.terminate();
    if (error !== undefined) throw this.#error('cannot close the hot chunk', error);
  }

  #listen(): void {
    this.#worker.on('message', (message: HotWriterReply) => {
      switch (message.op) {
        case 'ingested':
          this.#inFlight--;
          this.#events.push(message);
          break;
        case 'failed':
          this.#inFlight = 0; // the worker drops what follows a failure
          this.#failure ??= this.#error(`cannot store the events of ledger ${message.ledger}`, message.error, {
            ledger: message.ledger,
          });
          break;
        case 'synced':
          this.#syncsAnswered++;
          this.#events.push({ op: 'synced', durable: message.durable });
          break;
        case 'sync-failed':
          this.#syncsAnswered++;
          this.#failure ??= this.#error('cannot sync the hot chunk', message.error);
          this.#events.push({ op: 'synced', durable: undefined });
          break;
        case 'closed':
          this.#onClose?.(undefined);
          break;
        case 'close-failed':
          this.#onClose?.(message.error);
          break;
        default:
          this.#failure ??= new NodeError('EVENTS_FAILED', `the hot writer answered ${message.op} out of turn`);
      }
      this.#wakeUp();
    });
    this.#worker.on('error', (error) => {
      this.#failure ??= this.#threadError(error.message, error);
      this.#wakeUp();
    });
    this.#worker.on('exit', (code) => {
      this.#exited = true;
      if (!this.#closed) this.#failure ??= this.#threadError(`it exited with code ${code}`);
      this.#inFlight = 0;
      this.#wakeUp();
    });
  }

  #nextReply(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #check(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new NodeError('EVENTS_FAILED', 'the hot writer is closed');
  }

  /** A worker-side error as EVENTS_FAILED: the cause is a HotStoreError again when it was one. */
  #error(doing: string, error: SerializedError, context: { ledger?: number } = {}): NodeError {
    const cause =
      error.name === 'HotStoreError' && error.code !== undefined
        ? new HotStoreError(error.code as HotStoreErrorCode, error.detail ?? error.message, {
            ...(error.file === undefined ? {} : { file: error.file }),
            ...(error.field === undefined ? {} : { field: error.field }),
          })
        : Object.assign(new Error(error.message), { name: error.name });
    return new NodeError('EVENTS_FAILED', `${doing}: ${error.message}`, {
      ...context,
      ...(error.file === undefined ? {} : { file: error.file }),
      cause,
    });
  }

  #threadError(detail: string, cause?: unknown): NodeError {
    return new NodeError('EVENTS_FAILED', `the hot writer thread failed: ${detail}`, {
      file: this.#layout.hotDir,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
