// The generator on a worker thread (generator-source.ts, prefetchedGeneratorRecords): generates the records the
// parent asks for, at most as many ahead as the credits it granted, each posted with its bytes' buffer transferred
// (no copy). Generating a pubnet-like ledger is ~4 ms of CPU: here it runs on the other core, beside the ingest.
import { parentPort, workerData } from 'node:worker_threads';
import { assert } from '@strata/base';
import { type GeneratorSource, generatorRecords } from './generator-source.js';

export interface GeneratorWorkerData {
  readonly source: GeneratorSource;
  readonly networkPassphrase: string;
  readonly range: { readonly from?: number; readonly to?: number };
}

/** What the worker posts: a record, or the end of the range. */
export type GeneratorWorkerMessage =
  | { readonly kind: 'record'; readonly ledgerSeq: number; readonly record: number; readonly buffer: ArrayBuffer }
  | { readonly kind: 'done' };

assert(parentPort !== null, 'generator-worker runs as a worker thread');
const port = parentPort;
const { source, networkPassphrase, range } = workerData as GeneratorWorkerData;
let credits = 0;
let wake: (() => void) | undefined;
port.on('message', (granted: number) => {
  credits += granted;
  wake?.();
});
for (const record of generatorRecords(source, networkPassphrase, range)) {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  const bytes = record.bytes;
  const buffer =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : (bytes.slice().buffer as ArrayBuffer);
  const message: GeneratorWorkerMessage = {
    kind: 'record',
    ledgerSeq: record.ledgerSeq,
    record: record.record,
    buffer,
  };
  port.postMessage(message, [buffer]);
}
port.postMessage({ kind: 'done' } satisfies GeneratorWorkerMessage);
port.close();
