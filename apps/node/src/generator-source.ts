// The synthetic generator as a ledger source (`--source generator`): @strata/ledger-meta's generateNetwork from
// ledger 2 on a test genesis of the node's own (protocol 23, the generator's passphrase unless another is given).
// Generated ledgers have no real headers: their bucketListHash is not the one the state computes, so the node
// turns hash verification off for this source (the header chain is still checked: the generator chains its
// headers). The same options give the same bytes, so a restart regenerates from ledger 2 and skips what the stores
// already hold; give the same --seed (and counts) on every run of one data directory.
//
// Evictions: the generator evicts every TEMPORARY entry as soon as its TTL lapses, a model of its own; stellar-core
// evicts what its incremental scan of the BucketList finds, and @strata/ledger-state checks a ledger's evictedKeys
// against that scan (EVICTION_MISMATCH, not a header check: `verify: false` does not lift it). So right before the
// node applies a generated ledger L it rewrites L's evictedKeys to what the scan finds on the node's own state at
// L - 1 (@strata/ledger-state's withScannedEvictions, re-exported here; the state's own scan then checks the
// rewrite). An entry the scan has not reached yet stays live, as on a real node; the generator never touches an
// entry again after evicting it.
import { spawnWorker } from '@strata/base';
import {
  GENERATOR_LIMITS,
  type GeneratorOptions,
  generateNetwork,
  type LedgerCloseMetaRecord,
  resolveGeneratorOptions,
  SYNTHETIC_NETWORK_PASSPHRASE,
} from '@strata/ledger-meta';
import { type GenesisLedger, genesisEntries } from '@strata/ledger-state';
import type { GeneratorWorkerData, GeneratorWorkerMessage } from './generator-worker.js';

/** The protocol of generated networks. */
export const GENERATOR_PROTOCOL = 23;

/**
 * The genesis eviction parameters: at most 1,000 entries a ledger as on testnet/pubnet, scanning from level 1 (a
 * network of thousands of ledgers has nothing below level 4), but 64 kB a ledger instead of 500 kB: the scan runs
 * twice per ledger here (the rewrite, then the state's check), and TTLs lapse far slower than it catches up.
 */
export const GENERATOR_EVICTION_PARAMS = {
  scanSize: 64_000,
  maxEntriesToArchive: 1_000,
  startingScanLevel: 1,
} as const;

/** `--source generator`: what to generate (the same values give the same ledgers). */
export interface GeneratorSource {
  readonly kind: 'generator';
  /** Seed (default 1). */
  readonly seed?: string | number;
  /** Ledgers to generate from ledger 2 (the last is 1 + ledgers). */
  readonly ledgers: number;
  /** Mean contract events a ledger (default 100). */
  readonly eventsPerLedger?: number;
  readonly accounts?: number;
  readonly contracts?: number;
  /**
   * Keep closing ledgers after the first `ledgers`: one every `closeEveryMs` milliseconds, as a network does, until
   * the ingest's signal aborts (`strata start`'s demo network). Without it the source ends after `ledgers`.
   */
  readonly closeEveryMs?: number;
}

/** What the node reads ledgers from: a path (stream file, folder of stream files, SEP-54 lake) or the generator. */
export type NodeSource = string | GeneratorSource;

export function isGeneratorSource(source: NodeSource | undefined): source is GeneratorSource {
  return typeof source === 'object' && source !== null && source.kind === 'generator';
}

/** A short name of a source for logs and errors. */
export function sourceName(source: NodeSource): string {
  return isGeneratorSource(source) ? `generator(seed ${source.seed ?? 1})` : source;
}

/** The generator options of `source` on `networkPassphrase`. */
export function generatorOptions(source: GeneratorSource, networkPassphrase: string): GeneratorOptions {
  return {
    seed: source.seed ?? 1,
    ledgers: source.ledgers,
    startLedger: 2,
    protocolVersion: GENERATOR_PROTOCOL,
    networkPassphrase,
    record: false,
    ...(source.eventsPerLedger === undefined ? {} : { eventsPerLedger: source.eventsPerLedger }),
    ...(source.accounts === undefined ? {} : { accounts: source.accounts }),
    ...(source.contracts === undefined ? {} : { contracts: source.contracts }),
  };
}

/** The passphrase a generated network uses unless one is given. */
export const GENERATOR_PASSPHRASE = SYNTHETIC_NETWORK_PASSPHRASE;

/** Ledger 1 of a generated network: the test genesis with GENERATOR_EVICTION_PARAMS. */
export function generatorGenesis(networkPassphrase: string): GenesisLedger {
  return {
    networkPassphrase,
    protocolVersion: GENERATOR_PROTOCOL,
    entries: genesisEntries({
      networkPassphrase,
      protocolVersion: GENERATOR_PROTOCOL,
      config: { evictionParams: GENERATOR_EVICTION_PARAMS },
    }),
  };
}

/** The generated ledgers from `from` through `to` (or the last), as records of no file. */
export function* generatorRecords(
  source: GeneratorSource,
  networkPassphrase: string,
  range: { readonly from?: number; readonly to?: number } = {},
): Generator<LedgerCloseMetaRecord> {
  let record = 0;
  // An open-ended source generates as far as the generator goes; pacedGeneratorRecords spaces out the ledgers.
  const options = generatorOptions(
    source.closeEveryMs === undefined ? source : { ...source, ledgers: GENERATOR_LIMITS.maxLedger - 1 },
    networkPassphrase,
  );
  for (const generated of generateNetwork(options)) {
    const ledgerSeq = generated.sequence;
    if (range.to !== undefined && ledgerSeq > range.to) return;
    if (range.from === undefined || ledgerSeq >= range.from) {
      yield { file: undefined, record, offset: 0, ledgerSeq, bytes: generated.lcm };
    }
    record++;
  }
}

/**
 * generatorRecords of an open-ended source (`closeEveryMs`): ledgers 2 .. 1 + `ledgers` at once, then one every
 * `closeEveryMs`, measured from when the previous one was handed over (the ingest's own time counts), until `signal`
 * aborts. A closed source (no `closeEveryMs`) is generatorRecords as it is.
 */
export async function* pacedGeneratorRecords(
  source: GeneratorSource,
  networkPassphrase: string,
  range: { readonly from?: number; readonly to?: number },
  signal: AbortSignal | undefined,
): AsyncGenerator<LedgerCloseMetaRecord> {
  const everyMs = source.closeEveryMs;
  const lastAtOnce = 1 + source.ledgers;
  let handedOver = 0;
  for await (const record of prefetchedGeneratorRecords(source, networkPassphrase, range)) {
    if (everyMs !== undefined && record.ledgerSeq > lastAtOnce) {
      const wait = handedOver + everyMs - performance.now();
      if (wait > 0 && !(await sleepUnlessAborted(wait, signal))) return;
    }
    if (signal?.aborted === true) return;
    handedOver = performance.now();
    yield record;
  }
}

/** Ledgers the generator worker may run ahead of the ingest (each ~0.5 MiB of meta at pubnet-like sizes). */
export const PREFETCH_LEDGERS = 8;

/**
 * generatorRecords generated on a worker thread (generator-worker.ts), at most PREFETCH_LEDGERS ahead: the same
 * records, with the generation's CPU on the other core. The options are checked here first, so a bad one is the
 * same INVALID_ARGUMENT as generatorRecords throws. The worker ends when the range does or the caller returns.
 */
export async function* prefetchedGeneratorRecords(
  source: GeneratorSource,
  networkPassphrase: string,
  range: { readonly from?: number; readonly to?: number } = {},
): AsyncGenerator<LedgerCloseMetaRecord> {
  resolveGeneratorOptions(generatorOptions(source, networkPassphrase));
  const data: GeneratorWorkerData = { source, networkPassphrase, range };
  const worker = spawnWorker(import.meta.url, 'generator-worker', { workerData: data });
  const queue: GeneratorWorkerMessage[] = [];
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: GeneratorWorkerMessage) => {
    queue.push(message);
    notify();
  });
  worker.on('error', (error) => {
    failure = error;
    notify();
  });
  worker.on('exit', () => {
    exited = true;
    notify();
  });
  worker.postMessage(PREFETCH_LEDGERS);
  try {
    for (;;) {
      while (queue.length === 0 && failure === undefined && !exited) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const message = queue.shift();
      if (message === undefined) {
        throw failure ?? new Error('the generator worker exited before the end of its range');
      }
      if (message.kind === 'done') return;
      worker.postMessage(1);
      yield {
        file: undefined,
        record: message.record,
        offset: 0,
        ledgerSeq: message.ledgerSeq,
        bytes: new Uint8Array(message.buffer),
      };
    }
  } finally {
    await worker.terminate();
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export { withScannedEvictions } from '@strata/ledger-state';
