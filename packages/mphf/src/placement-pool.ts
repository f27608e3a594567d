// The worker threads of `buildMphfAsync`: started once per build over the build's shared buffers, so they boot
// while the main thread hashes the keys, then told to join each placement round. A worker that throws or exits
// fails the build with its error; `close` terminates them.
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '@strata/base';
import { MphfError } from './errors.js';
import { buffersOf, type PlacementState } from './placement.js';

interface Round {
  round: number;
  remaining: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class PlacementPool {
  private readonly workers: Worker[] = [];
  private current: Round | undefined;
  private failure: Error | undefined;
  private rounds = 0;

  constructor(size: number, state: PlacementState) {
    const workerData = buffersOf(state);
    for (let i = 0; i < size; i++) {
      // placement-worker.js beside this file, or placement-worker.ts (through tsx) when running from source.
      const worker = spawnWorker(import.meta.url, 'placement-worker', { workerData });
      worker.on('message', (round: number) => {
        const current = this.current;
        if (current === undefined || current.round !== round) return;
        if (--current.remaining === 0) {
          this.current = undefined;
          current.resolve();
        }
      });
      worker.on('error', (error) => this.fail(`a placement worker failed: ${error.message}`, error));
      worker.on('exit', (code) => this.fail(`a placement worker exited with code ${code}`));
      this.workers.push(worker);
    }
  }

  private fail(detail: string, cause?: Error): void {
    this.failure ??= new MphfError('BUILD_FAILED', detail, cause === undefined ? {} : { cause });
    const current = this.current;
    this.current = undefined;
    current?.reject(this.failure);
  }

  /** Tells every worker to join the round the caller has set up; resolves when all of them are done. */
  run(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const round = ++this.rounds;
    return new Promise((resolve, reject) => {
      this.current = { round, remaining: this.workers.length, resolve, reject };
      for (const worker of this.workers) worker.postMessage(round);
    });
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    for (const worker of workers) worker.removeAllListeners('exit');
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
