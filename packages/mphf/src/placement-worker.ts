// Worker-thread entry of `buildMphfAsync`: rebuilds the placement state over the shared buffers it was started
// with, and for every round the main thread announces, places parts alongside it (see placement.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { type PlacementBuffers, placeParts, stateOf } from './placement.js';

const state = stateOf(workerData as PlacementBuffers);
parentPort?.on('message', (round: number) => {
  placeParts(state);
  parentPort?.postMessage(round);
});
