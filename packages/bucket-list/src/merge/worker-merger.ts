// Where merges of levels ≥ 1 run: `WorkerMerger` (the default) sends them to a pool of worker threads so that a long
// merge never blocks later ledgers; `InlineMerger` runs them on the calling thread (deterministic tests, tools).
// A job is plain data (paths and options) and its result a BucketFile descriptor; the output is indexed in the
// worker too, so the main thread only loads the index.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '@strata/base';
import {
  requireBoolean,
  requireBucketFile,
  requireInteger,
  requireObject,
  requireString,
  requireUint32,
} from '../arguments.js';
import type { BucketFile } from '../bucket-file.js';
import {
  DEFAULT_IN_MEMORY_CUTOFF,
  type IndexOptions,
  openBucketIndex,
  resolveOptions,
} from '../bucket-index/bucket-index.js';
import { BucketError, type BucketErrorCode } from '../errors.js';
import { mergeBucketFiles } from './bucket-merge.js';

/** Most worker threads a pool may have (a sanity bound: merges are I/O- and memory-heavy). */
export const MAX_WORKERS = 64;

export interface MergeJob {
  dir: string;
  older: BucketFile;
  newer: BucketFile;
  keepTombstones: boolean;
  maxProtocolVersion: number;
  fsync: boolean;
  index: IndexOptions;
  /** The ledger by which the result is needed; earlier deadlines run first. */
  deadline: number;
}

export interface Merger {
  merge(job: MergeJob): Promise<BucketFile>;
  close(): Promise<void>;
}

/**
 * Runs one merge and builds (and persists, for large outputs) its index. The output keeps its temporary name (and
 * its index the matching temporary name): only the thread that owns the list renames files to their final names and
 * deletes unused ones, so a merge finishing at any moment can never race a deletion of an equal bucket.
 */
export function runMergeJob(job: MergeJob): BucketFile {
  checkMergeJob(job);
  const output = mergeBucketFiles(job.dir, job.older, job.newer, {
    keepTombstones: job.keepTombstones,
    maxProtocolVersion: job.maxProtocolVersion,
    fsync: job.fsync,
    publish: false,
  });
  // Only a page index outlives this call (persisted beside the bucket, loaded by the owner); an in-memory index would
  // be thrown away here and built again by the thread that adopts the bucket.
  const cutoff = job.index.inMemoryCutoff ?? DEFAULT_IN_MEMORY_CUTOFF;
  if (output.path !== undefined && output.size >= cutoff) openBucketIndex(output, job.index).close();
  return output;
}

/** A MergeJob's shape (INVALID_ARGUMENT): a custom Merger's caller, or a test, may hand over anything. */
function checkMergeJob(job: unknown): asserts job is MergeJob {
  requireObject(job, 'job');
  requireString(job.dir, 'job.dir');
  requireBucketFile(job.older, 'job.older');
  requireBucketFile(job.newer, 'job.newer');
  requireBoolean(job.keepTombstones, 'job.keepTombstones');
  requireUint32(job.maxProtocolVersion, 'job.maxProtocolVersion');
  requireBoolean(job.fsync, 'job.fsync');
  resolveOptions(job.index as IndexOptions, 'job.index');
  requireInteger(job.deadline, 'job.deadline', 0, Number.MAX_SAFE_INTEGER);
}

interface SerializedError {
  name: string;
  message: string;
  code?: BucketErrorCode;
  detail?: string;
  file?: string;
  offset?: number;
  field?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof BucketError) {
    return {
      name: error.name,
      message: error.message,
      code: error.code,
      detail: error.detail,
      ...(error.file === undefined ? {} : { file: error.file }),
      ...(error.offset === undefined ? {} : { offset: error.offset }),
      ...(error.field === undefined ? {} : { field: error.field }),
    };
  }
  return error instanceof Error
    ? { name: error.name, message: error.stack ?? error.message }
    : { name: 'Error', message: String(error) };
}

function deserializeError(error: SerializedError): Error {
  if (error.code !== undefined) {
    return new BucketError(error.code, error.detail ?? error.message, {
      ...(error.file === undefined ? {} : { file: error.file }),
      ...(error.offset === undefined ? {} : { offset: error.offset }),
      ...(error.field === undefined ? {} : { field: error.field }),
    });
  }
  return new Error(`merge worker: ${error.message}`);
}

/** Merges on the calling thread, one at a time, in call order. */
export class InlineMerger implements Merger {
  async merge(job: MergeJob): Promise<BucketFile> {
    return runMergeJob(job);
  }
  async close(): Promise<void> {}
}

interface Pending {
  id: number;
  job: MergeJob;
  resolve: (file: BucketFile) => void;
  reject: (error: Error) => void;
}

/**
 * A fixed pool of merge workers (default: one per spare core, at least one, at most four). Jobs queue by deadline,
 * so a small merge needed in two ledgers never waits behind a bottom-level merge needed in a month. A worker that
 * dies fails its job and is replaced.
 */
export class WorkerMerger implements Merger {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private workers = 0;
  private nextId = 0;
  private closed = false;

  constructor(private readonly size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    requireInteger(size, 'size', 1, MAX_WORKERS);
  }

  merge(job: MergeJob): Promise<BucketFile> {
    if (this.closed) return Promise.reject(new BucketError('CLOSED', 'the merge pool is closed'));
    try {
      checkMergeJob(job);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<BucketFile>((resolve, reject) => {
      const pending: Pending = { id: this.nextId++, job, resolve, reject };
      // Insert after every job with an earlier or equal deadline (stable among equals).
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.job.deadline > job.deadline) at--;
      this.queue.splice(at, 0, pending);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const failure = new BucketError('CLOSED', 'the merge pool was closed before the merge ran');
    for (const pending of this.queue.splice(0)) pending.reject(failure);
    for (const [, pending] of this.busy) pending.reject(failure);
    const all = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(all.map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      if (worker === undefined) {
        if (this.workers >= this.size) return;
        worker = this.start();
      }
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref(); // a running merge keeps the process alive; an idle worker does not
      // Functions do not cross to a worker (a structured clone would throw): the index callback stays here.
      const { onIndexProblem: _, ...index } = pending.job.index;
      worker.postMessage({ id: pending.id, job: { ...pending.job, index } });
    }
  }

  private start(): Worker {
    // From the built package the worker is the compiled merge-worker.js; from TypeScript sources (tests, benchmarks
    // under tsx) merge-worker.ts through tsx's loader.
    const worker = spawnWorker(import.meta.url, 'merge-worker');
    this.workers++;
    worker.on('message', (message: { id: number; result?: BucketFile; error?: SerializedError }) => {
      const pending = this.busy.get(worker);
      if (pending === undefined || pending.id !== message.id) return;
      this.busy.delete(worker);
      if (message.error !== undefined) pending.reject(deserializeError(message.error));
      else pending.resolve(message.result!);
      if (!this.closed) {
        worker.unref();
        this.idle.push(worker);
        this.pump();
      }
    });
    const lost = (reason: string): void => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.workers--;
      if (this.closed) return;
      pending?.reject(new BucketError('IO', `merge worker failed: ${reason}`));
      this.pump();
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => {
      if (this.busy.has(worker) || this.idle.includes(worker)) lost(`exited with code ${code}`);
    });
    return worker;
  }
}
