// A worker entry for worker.test.ts: answers each message with the message, its workerData and its file type.
import { parentPort, workerData } from 'node:worker_threads';

parentPort?.on('message', (message: unknown) => {
  parentPort?.postMessage({ message, workerData, from: import.meta.url.endsWith('.ts') ? 'ts' : 'js' });
});
