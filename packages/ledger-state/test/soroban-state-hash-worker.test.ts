// Population's key hashing on a worker thread (src/soroban-state/key-hash-worker.ts), against node:crypto's SHA-256
// as the oracle:
//   1. with the real worker, every key's hash arrives exactly once and equals the oracle's, the worker hashes keys
//      (its results are the ones used), and it exits when the pipeline is finished;
//   2. whatever the worker does, the hashes are the same: a worker that cannot be started, one that never reaches
//      its loop, one that is slow (the populating thread waits, then takes the batches it holds), one that fails at
//      once; `finish` returns in each case and the worker exits;
//   3. populate with the worker gives the state the Map oracle expects (the same as without one), reports the keys
//      the worker hashed, and a population that fails (a data entry given twice) still stops the worker.
// Negative control: a worker that writes a wrong hash for one key of each batch is caught by the comparison (so the
// comparison does see the worker's results).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { LEDGER_ENTRY_TYPE } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import { KeyHasher, SHA256_PADDING_BYTES } from '../src/soroban-state/key-hash.js';
import {
  KEY_BATCH,
  KeyHashPipeline,
  type KeyHashWorkerStart,
  keyHashWorkerSource,
  startKeyHashWorker,
} from '../src/soroban-state/key-hash-worker.js';
import { type LiveEntrySource, SorobanState } from '../src/soroban-state/soroban-state.js';
import * as support from './soroban-state-support.js';

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Random keys: lengths from 4 to 300 bytes (a few longer than two blocks), runs sharing long prefixes. */
function randomKeys(seed: number, count: number): Uint8Array[] {
  const random = seededRandom(seed);
  const keys: Uint8Array[] = [];
  let previous = new Uint8Array(0);
  for (let i = 0; i < count; i++) {
    const length = random() < 0.9 ? 100 + Math.floor(random() * 40) : 4 + Math.floor(random() * 296);
    const key = new Uint8Array(length);
    const shared = random() < 0.7 ? Math.min(previous.length, length, Math.floor(random() * 130)) : 0;
    key.set(previous.subarray(0, shared));
    for (let j = shared; j < length; j++) key[j] = Math.floor(random() * 256);
    keys.push(key);
    previous = key;
  }
  return keys;
}

/** Runs every key through a pipeline with `start`; returns the hashes by key (hex), delivery counts and the stats. */
async function hashAll(
  keys: Uint8Array[],
  start: KeyHashWorkerStart | null,
  afterFirstBatch?: (pipeline: KeyHashPipeline) => Promise<void>,
) {
  const hashes: (string | undefined)[] = new Array(keys.length).fill(undefined);
  let deliveries = 0;
  const pipeline = new KeyHashPipeline(
    new KeyHasher(),
    (tags, tagAt, count, words, wordAt) => {
      for (let i = 0; i < count; i++) {
        const tag = tags[tagAt + i]!;
        expect(hashes[tag], `key ${tag} delivered once`).toBeUndefined();
        hashes[tag] = hexOf(new Uint8Array(words.buffer, words.byteOffset + 4 * (wordAt + 8 * i), 32));
        deliveries++;
      }
    },
    start,
  );
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const room = (key.length + SHA256_PADDING_BYTES + 7) & ~7;
    if (!pipeline.fits(room)) pipeline.publish();
    pipeline.bytes.set(key, pipeline.base + pipeline.used);
    pipeline.add(key.length, room, i);
    if (i === KEY_BATCH && afterFirstBatch !== undefined) await afterFirstBatch(pipeline);
  }
  pipeline.finish();
  await pipeline.closed;
  return { hashes, deliveries, stats: pipeline.stats };
}

function expectOracle(keys: Uint8Array[], hashes: (string | undefined)[]): void {
  const wrong = keys.findIndex((key, i) => hashes[i] !== createHash('sha256').update(key).digest('hex'));
  expect(wrong, `first key with a wrong hash`).toBe(-1);
}

/** A start that runs `source` (or the given one) and hands the worker to `started`. */
function startWith(source: string | undefined, started?: (worker: Worker) => void): KeyHashWorkerStart {
  return (given, workerData) => {
    const worker = startKeyHashWorker(source ?? given, workerData);
    if (worker !== undefined) started?.(worker);
    return worker;
  };
}

/** Until `condition` holds, yields to the event loop (the worker runs meanwhile on its own thread). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('KeyHashPipeline', () => {
  const keys = randomKeys(11, 20 * KEY_BATCH + 17);

  it('with the worker, delivers each hash once, equal to the oracle, some by the worker, which then exits', async () => {
    let pipelineWorker: Worker | undefined;
    let exited = false;
    const { hashes, deliveries, stats } = await hashAll(
      keys,
      startWith(undefined, (worker) => {
        pipelineWorker = worker;
        worker.once('exit', () => {
          exited = true;
        });
      }),
      async (pipeline) => {
        // the worker is up and has hashed a batch before the rest come
        await once(pipelineWorker!, 'online');
        await until(() => pipeline.stats.byWorker > 0);
      },
    );
    expect(deliveries).toBe(keys.length);
    expectOracle(keys, hashes);
    expect(stats.byWorker).toBeGreaterThan(0);
    expect(exited).toBe(true);
  });

  it('without a worker (none asked for, or one that cannot start), hashes everything itself', async () => {
    for (const start of [null, () => undefined] as (KeyHashWorkerStart | null)[]) {
      const { hashes, deliveries, stats } = await hashAll(keys, start);
      expect(deliveries).toBe(keys.length);
      expectOracle(keys, hashes);
      expect(stats.byWorker).toBe(0);
    }
  });

  it('a worker that never reaches its loop, a slow one and a failing one change nothing but who hashes', async () => {
    const workers = {
      // blocks before its loop until terminated
      stuck: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);',
      // each key 0.2 ms: the populating thread waits for batches it holds, then takes them
      slow: keyHashWorkerSource(
        'SlowKeyHasher',
        'class SlowKeyHasher extends KeyHasher { hashAt(...args) { ' +
          'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 0.2); return super.hashAt(...args); } }',
      ),
      failing: keyHashWorkerSource(
        'BrokenKeyHasher',
        "class BrokenKeyHasher { constructor() { throw new Error('no hasher'); } }",
      ),
    };
    for (const [name, source] of Object.entries(workers)) {
      let started: Worker | undefined;
      const { hashes, deliveries, stats } = await hashAll(
        keys,
        startWith(source, (worker) => {
          started = worker;
        }),
        async () => {
          await once(started!, 'online');
        },
      );
      expect(deliveries, name).toBe(keys.length);
      expectOracle(keys, hashes);
      if (name !== 'slow') expect(stats.byWorker, name).toBe(0);
      else expect(stats.taken, name).toBeGreaterThan(0);
    }
  });

  it('negative control: a worker writing one wrong hash a batch is caught by the comparison', async () => {
    const source = keyHashWorkerSource(
      'WrongKeyHasher',
      'class WrongKeyHasher extends KeyHasher { hashAt(buffer, start, length, out, outAt) { ' +
        'super.hashAt(buffer, start, length, out, outAt); if (outAt % 8192 === 0) out[outAt] ^= 1; } }',
    );
    let started: Worker | undefined;
    const { hashes, stats } = await hashAll(
      keys,
      startWith(source, (worker) => {
        started = worker;
      }),
      async () => {
        await once(started!, 'online');
      },
    );
    expect(stats.byWorker).toBeGreaterThan(0);
    expect(() => expectOracle(keys, hashes)).toThrow();
  });
});

describe('SorobanState.populate with the hash worker', () => {
  const PARAMS = support.v21MemoryParams();
  const PARAMS_XDR = support.costParams(PARAMS);
  const { CONTRACT_DATA, CONTRACT_CODE, TTL } = LEDGER_ENTRY_TYPE;
  const compareBytes = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);

  /** 3000 data entries (TTLs in hash order, as the loser tree gives them) and 3 codes, with their oracle. */
  function population(seed: number) {
    const random = seededRandom(seed);
    const oracle = new Map<string, support.OracleEntry>();
    const lists: Uint8Array[][] = [[], [], []];
    let codeSize = 0;
    const add = (key: Uint8Array, entry: Uint8Array, list: Uint8Array[]) => {
      list.push(entry);
      const liveUntil = 1000 + Math.floor(random() * 1e6);
      const lastModified = 1 + Math.floor(random() * 900);
      lists[1]!.push(support.ttlEntry(key, liveUntil, lastModified));
      oracle.set(hexOf(support.keyHashOf(key)), { entry, liveUntil, lastModified });
    };
    for (let n = 0; n < 3000; n++)
      add(support.dataKey(n), support.dataEntry(n, 1 + (n % 7), 4 + Math.floor(random() * 40)), lists[0]!);
    for (let n = 0; n < 3; n++) {
      add(support.codeKey(n), support.codeEntry(n, 3, 40), lists[2]!);
      codeSize += support.codeEntry(n, 3, 40).length + Number(support.memoryCostOracle(PARAMS, { codeLength: 40 }));
    }
    lists[0]!.sort(compareBytes);
    lists[1]!.sort((a, b) => compareBytes(a.subarray(8, 40), b.subarray(8, 40)));
    const entries = new Map([
      [CONTRACT_DATA, lists[0]!],
      [TTL, lists[1]!],
      [CONTRACT_CODE, lists[2]!],
    ]);
    return { entries, oracle, codeSize };
  }

  function sourceOf(entries: ReadonlyMap<number, readonly Uint8Array[]>): LiveEntrySource {
    return {
      ledger: 1000,
      scanCurrentLiveEntries: (type, callback) => {
        for (const entry of entries.get(type) ?? []) callback(entry);
      },
    };
  }

  it('gives the oracle state with the worker and without, and says how many keys the worker hashed', () => {
    const { entries, oracle, codeSize } = population(3);
    for (const hashWorker of [true, false]) {
      const state = new SorobanState({ hashWorker, arenaChunkBytes: 1 << 16 });
      const report = state.populate(sourceOf(entries), { protocolVersion: 23, memCostParams: PARAMS_XDR });
      support.expectStateEquals(state, oracle, codeSize);
      if (!hashWorker) expect(report.keysHashedByWorker).toBe(0);
      expect(report.keysHashedByWorker).toBeLessThanOrEqual(3000);
    }
  });

  it('stops the worker when the population fails part-way (a data entry given twice)', () => {
    const { entries } = population(5);
    const data = entries.get(CONTRACT_DATA)!;
    const given = new Map(entries);
    given.set(CONTRACT_DATA, [...data.slice(0, 2000), data[1999]!, ...data.slice(2000)]);
    const state = new SorobanState();
    let error: unknown;
    try {
      state.populate(sourceOf(given), { protocolVersion: 23, memCostParams: PARAMS_XDR });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LedgerStateError);
    expect((error as LedgerStateError).code).toBe('INCONSISTENT_STATE');
  });

  it('refuses a hashWorker that is not a boolean', () => {
    expect(() => new SorobanState({ hashWorker: 'yes' as unknown as boolean })).toThrow(/hashWorker must be a boolean/);
  });
});
