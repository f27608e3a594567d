// The load test's RpcBackend: real @strata/hot-store chunks that ledgers are ingested into while the server runs
// (the test's ingest timer), and a chunk frozen into @strata/cold-store mid-load and served cold from then on. Events
// take their contracts and topics from the pubnet fixture's vocabulary (when the fixture is there; else hot-backend's
// synthetic values) so the re-shaped real requests match some: 4 topics [name, from, to, asset] like the fixture's
// filters, over its 4 contracts, plus some 2-topic events of hot-backend's synthetic contracts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStorage, openChunk } from '@strata/cold-store';
import {
  type ChunkReader,
  chunkFirstLedger,
  chunkIdOfLedger,
  encodeContractEvent,
  encodePayload,
  LEDGERS_PER_CHUNK,
} from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { loadPubnetVocabulary } from '../../../../packages/match/bench/pubnet-requests.js';
import { dataDirLayout, hotChunkPath } from '../../src/data-dir.js';
import { coldChunkDir, freezeInBackground } from '../../src/freezer.js';
import type { ChunkTier, RpcBackend } from '../../src/rpc/index.js';
import { CONTRACTS, NAMES, PASSPHRASE, symbol, u32 } from './hot-backend.js';

const CLOSE_TIME_BASE = 1_700_000_000;
const closeTime = (ledger: number) => CLOSE_TIME_BASE + ledger * 5;
/** A 32-bit integer hash (lowbias32). */
function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

interface Chunk {
  readonly id: number;
  readonly store: HotStore;
  readonly hot: ChunkReader;
  cold?: ChunkReader;
}

export interface IngestingBackend {
  readonly backend: RpcBackend;
  readonly oldestLedger: number;
  latestLedger(): number;
  /** The tier chunk `chunkId` is served from now. */
  tierOf(chunkId: number): ChunkTier;
  /** Ingests the next ledger (a new chunk's store opened when it starts one); returns its sequence. */
  ingestNext(): number;
  /**
   * Freezes chunk `chunkId` (every one of its ledgers ingested) as the node does (freezeInBackground: a worker
   * thread reading the chunk's database), then serves it cold.
   */
  freeze(chunkId: number): Promise<void>;
  /** Events ingested so far. */
  readonly events: () => number;
  close(): Promise<void>;
}

export interface IngestingOptions {
  /** The first chunk (default 3). */
  readonly chunkId?: number;
  /** Served ledgers of the first chunk: its last this-many (default 200). */
  readonly firstChunkLedgers?: number;
  /** Of those, ingested before the load (default all). */
  readonly preload?: number;
  /** Events a ledger (default 40). */
  readonly eventsPerLedger?: number;
  /** Take contracts and topics from the pubnet fixture (default true). */
  readonly pubnet?: boolean;
}

/**
 * A backend serving the last `firstChunkLedgers` ledgers of its first chunk, `preload` of them ingested now: the
 * load's ingest writes the rest, then crosses into the next chunk, and the first one can be frozen.
 */
export function ingestingBackend(dir: string, options: IngestingOptions = {}): IngestingBackend {
  const firstChunk = options.chunkId ?? 3;
  const span = options.firstChunkLedgers ?? 200;
  const preload = options.preload ?? span;
  const perLedger = options.eventsPerLedger ?? 40;
  const vocabulary = options.pubnet === false ? undefined : loadPubnetVocabulary();
  const contracts = vocabulary?.contracts ?? CONTRACTS;
  const topics = vocabulary?.topics ?? [NAMES.map(symbol), [u32(1), u32(2)], [u32(3), u32(4)], [u32(5)]];
  const chunks = new Map<number, Chunk>();
  const layout = dataDirLayout(dir);
  mkdirSync(layout.hotDir, { recursive: true });
  const oldestLedger = chunkFirstLedger(firstChunk) + LEDGERS_PER_CHUNK - span;
  let latest = oldestLedger - 1;
  let n = 0;

  const chunkOf = (chunkId: number): Chunk => {
    let chunk = chunks.get(chunkId);
    if (chunk === undefined) {
      const store = HotStore.open(hotChunkPath(layout, chunkId), { chunkId, create: true });
      chunk = { id: chunkId, store, hot: store.reader() };
      chunks.set(chunkId, chunk);
    }
    return chunk;
  };

  const pick = <T>(values: readonly T[], i: number): T => values[i % values.length]!;

  function ingestNext(): number {
    const ledger = latest + 1;
    const payloads: Uint8Array[] = [];
    for (let i = 0; i < perLedger; i++, n++) {
      // 3 in 4 events: the pubnet shape (contract, then [name, from, to, asset]); the rest 2 synthetic topics.
      const pubnetShape = n % 4 !== 3;
      const contractId = pubnetShape ? pick(contracts, mix(n * 5)) : pick(CONTRACTS, n);
      // Each topic position's value by its own hash of n: one fixture filter (a contract and 4 topic values)
      // matches about one pubnet-shaped event in 216, as in pubnet's traffic most pages are far from full.
      const eventTopics = pubnetShape
        ? topics.map((values, p) => pick(values, mix(n * 5 + p + 1)))
        : [symbol(pick(NAMES, n)), u32(n % 4)];
      payloads.push(
        encodePayload({
          txHash: new Uint8Array(32).fill(n % 251),
          ledger,
          txIndex: 1 + Math.floor(i / 4),
          opIndex: i % 4,
          ledgerClosedAt: closeTime(ledger),
          eventIndex: i,
          contractEvent: encodeContractEvent({ contractId, type: 1, topics: eventTopics, value: u32(n) }),
        }),
      );
    }
    chunkOf(chunkIdOfLedger(ledger)).store.ingestLedger(ledger, payloads);
    latest = ledger;
    return ledger;
  }

  for (let i = 0; i < preload; i++) ingestNext();

  const backend: RpcBackend = {
    networkPassphrase: PASSPHRASE,
    protocolVersion: () => 23,
    servedRange: () => ({
      oldestLedger,
      oldestLedgerCloseTime: closeTime(oldestLedger),
      latestLedger: latest,
      latestLedgerCloseTime: closeTime(latest),
    }),
    latestLedger: () => undefined,
    openChunk: async (chunkId) => {
      const chunk = chunks.get(chunkId);
      if (chunk === undefined) throw new Error(`chunk ${chunkId} is not served`);
      return chunk.cold === undefined ? { tier: 'hot', reader: chunk.hot } : { tier: 'cold', reader: chunk.cold };
    },
    chunkCounts: () => {
      const cold = [...chunks.values()].filter((c) => c.cold !== undefined).length;
      return { hot: chunks.size - cold, cold };
    },
    ledgerEntries: (keys) => ({ latestLedger: latest, entries: keys.map(() => undefined) }),
  };

  return {
    backend,
    oldestLedger,
    latestLedger: () => latest,
    tierOf: (chunkId) => (chunks.get(chunkId)?.cold === undefined ? 'hot' : 'cold'),
    ingestNext,
    async freeze(chunkId) {
      const chunk = chunks.get(chunkId);
      if (chunk === undefined) throw new Error(`chunk ${chunkId} is not served`);
      await freezeInBackground(layout, chunkId);
      const coldDir = coldChunkDir(layout, chunkId);
      const opened = await openChunk({
        chunkId,
        storage: new LocalStorage(join(coldDir, 'packs')),
        indexStorage: new LocalStorage(join(coldDir, 'index')),
      });
      if (opened.tier !== 'cold') throw new Error(`chunk ${chunkId} did not freeze`);
      chunk.cold = opened.reader;
    },
    events: () => n,
    async close() {
      for (const chunk of chunks.values()) {
        await chunk.cold?.close();
        chunk.store.close();
      }
      chunks.clear();
    },
  };
}
