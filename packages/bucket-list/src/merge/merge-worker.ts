// Worker-thread entry: runs file merges for the main thread's WorkerMerger and indexes their outputs. One job at a
// time per worker; results and errors go back as plain data.
import { parentPort } from 'node:worker_threads';
import { assert } from '@strata/base';
import { type MergeJob, runMergeJob, serializeError } from './worker-merger.js';

const port = parentPort;
assert(port !== null, 'merge-worker.ts must run in a worker thread');

port.on('message', (message: { id: number; job: MergeJob }) => {
  try {
    port.postMessage({ id: message.id, result: runMergeJob(message.job) });
  } catch (error) {
    port.postMessage({ id: message.id, error: serializeError(error) });
  }
});
