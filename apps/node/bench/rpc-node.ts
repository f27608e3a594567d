// The JSON-RPC bench's node process (run in a child of its own by measurePeakRss, so its peak RSS is a serving
// node's): the generated chunk's hot store (a read-only reader, its index rebuilt as a restarted node's is) and its
// frozen copy, and the ledger state (a BucketList of population bench data and the in-memory Soroban state built from
// it), each behind the strata JSON-RPC server (createRpcServer, defaults but for the port): `hot` and `cold` serve
// the chunk from one tier each, their pages in the default events worker (which opens its own reader of the tier:
// benchChunkOpener; STRATA_RPC_BENCH_WORKERS sets how many, 0 = the server's thread); `entries` answers getLedgerEntries from the Soroban state, as nodeRpcBackend does,
// and `entriesBaseline` the same keys from BucketList snapshot point loads (the node's path for classic entries).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BucketManager } from '@strata/bucket-list';
import { LocalStorage, openChunk } from '@strata/cold-store';
import type { ChunkReader, LedgerOffsets } from '@strata/events';
import { openHotReader } from '@strata/hot-store';
import { LEDGER_ENTRY_TYPE, ledgerKeyOfEntry } from '@strata/ledger-key';
import { SorobanState } from '@strata/ledger-state';
import {
  type ChunkOpener,
  type ChunkTier,
  createRpcServer,
  type FoundLedgerEntry,
  type RpcBackend,
} from '../src/rpc/index.js';
import { untilStopped } from './rpc-v1-server.js';

export interface NodeServeArgs {
  readonly hotPath: string;
  readonly chunkId: number;
  readonly coldDir: string;
  readonly stateDir: string;
  /** Keys sampled for the getLedgerEntries requests. */
  readonly sampleKeys: number;
  readonly controlFile: string;
}

export interface NodeControl {
  readonly ports: { hot: number; cold: number; entries: number; entriesBaseline: number };
  /** Base64 LedgerKeys of live CONTRACT_DATA entries. */
  readonly keys: string[];
  readonly liveEntries: number;
}

/** Where the bench chunk of one tier is opened: `hotPath` (a read-only hot reader) or `coldDir`'s frozen files. */
export interface BenchChunkArgs {
  readonly tier: ChunkTier;
  readonly hotPath: string;
  readonly coldDir: string;
  readonly chunkId: number;
}

/** The bench chunk's reader of one tier, opened once: the events workers' opener (RpcBackend.eventsWorkerOpener). */
export async function benchChunkOpener(args: BenchChunkArgs): Promise<ChunkOpener & { close(): Promise<void> }> {
  let reader: Promise<ChunkReader> | undefined;
  const open = async (): Promise<ChunkReader> => {
    if (args.tier === 'hot') return openHotReader(args.hotPath, { chunkId: args.chunkId });
    const opened = await openChunk({
      chunkId: args.chunkId,
      storage: new LocalStorage(join(args.coldDir, 'packs')),
      indexStorage: new LocalStorage(join(args.coldDir, 'index')),
    });
    if (opened.tier !== 'cold') throw new Error('the bench chunk is not frozen');
    return opened.reader;
  };
  return {
    async openChunk(chunkId) {
      if (chunkId !== args.chunkId) throw new Error(`chunk ${chunkId} is not the bench chunk`);
      reader ??= open();
      return { tier: args.tier, reader: await reader };
    },
    async warm() {
      reader ??= open();
      await reader;
    },
    async close() {
      await (await reader)?.close();
    },
  };
}

/**
 * The events server of one tier: pages in the events workers (benchChunkOpener), or through `chunks` on the server's
 * thread with `events-workers` 0; the served range from `offsets` (the frozen chunk's: the same ledgers).
 */
function eventsBackend(offsets: LedgerOffsets, chunks: ChunkOpener, tier: ChunkTier, args: NodeServeArgs): RpcBackend {
  return {
    eventsWorkerOpener: {
      module: import.meta.url,
      exportName: 'benchChunkOpener',
      args: { tier, hotPath: args.hotPath, coldDir: args.coldDir, chunkId: args.chunkId } satisfies BenchChunkArgs,
    },
    networkPassphrase: 'Strata bench network',
    protocolVersion: () => 23,
    servedRange: () => ({
      oldestLedger: offsets.startLedger,
      oldestLedgerCloseTime: 0,
      latestLedger: offsets.lastLedger,
      latestLedgerCloseTime: 0,
    }),
    latestLedger: () => undefined,
    openChunk: (chunkId) => chunks.openChunk(chunkId),
    chunkCounts: () => ({ hot: tier === 'hot' ? 1 : 0, cold: tier === 'cold' ? 1 : 0 }),
    ledgerEntries: (keys) => ({ latestLedger: offsets.lastLedger, entries: keys.map(() => undefined) }),
  };
}

function entriesBackend(ledger: number, lookup: (key: Uint8Array) => FoundLedgerEntry | undefined): RpcBackend {
  return {
    networkPassphrase: 'Strata bench network',
    protocolVersion: () => 23,
    servedRange: () => ({
      oldestLedger: ledger,
      oldestLedgerCloseTime: 0,
      latestLedger: ledger,
      latestLedgerCloseTime: 0,
    }),
    latestLedger: () => undefined,
    openChunk: async () => {
      throw new Error('no events here');
    },
    chunkCounts: () => ({ hot: 0, cold: 0 }),
    ledgerEntries: (keys) => ({ latestLedger: ledger, entries: keys.map(lookup) }),
  };
}

/** Serves until told to stop; returns the servers' request counts. */
export async function serveNode(args: NodeServeArgs): Promise<{ liveEntries: number }> {
  // The server thread's own readers, opened when a page runs there (events-workers 0): the workers open theirs.
  const hot = await benchChunkOpener({ ...args, tier: 'hot' });
  const cold = await benchChunkOpener({ ...args, tier: 'cold' });
  const opened = await openChunk({
    chunkId: args.chunkId,
    storage: new LocalStorage(join(args.coldDir, 'packs')),
    indexStorage: new LocalStorage(join(args.coldDir, 'index')),
  });
  if (opened.tier !== 'cold') throw new Error('the bench chunk is not frozen');
  const offsets = opened.reader.ledgerOffsets();
  const manager = await BucketManager.open(args.stateDir, { merger: 'inline', restartMerges: false, fsync: false });
  const snapshot = manager.snapshot();
  const state = new SorobanState();
  // The population data has no CONFIG_SETTING entries: memory cost models of 0 (only code entries' accounted size
  // depends on them; getLedgerEntries does not read it).
  const memCostParams = new Uint8Array(4 + 20 * 45);
  new DataView(memCostParams.buffer).setUint32(0, 45);
  state.populate(snapshot, { protocolVersion: 23, memCostParams });
  const keys: string[] = [];
  let liveEntries = 0;
  snapshot.scanCurrentLiveEntries(LEDGER_ENTRY_TYPE.CONTRACT_DATA, (entry) => {
    liveEntries++;
    // every k-th key, spread over the whole key space
    if (liveEntries % 37 === 0 && keys.length < args.sampleKeys) {
      keys.push(Buffer.from(ledgerKeyOfEntry(entry)).toString('base64'));
    }
  });
  const workers = process.env.STRATA_RPC_BENCH_WORKERS;
  const eventsConfig = { listen: '127.0.0.1:0', ...(workers === undefined ? {} : { eventsWorkers: Number(workers) }) };
  const servers = [
    createRpcServer({ backend: eventsBackend(offsets, hot, 'hot', args), config: eventsConfig }),
    createRpcServer({ backend: eventsBackend(offsets, cold, 'cold', args), config: eventsConfig }),
    createRpcServer({
      backend: entriesBackend(snapshot.ledger, (key) => {
        const found = state.get(key);
        return found === undefined ? undefined : { entry: found.entry, liveUntilLedgerSeq: found.liveUntilLedgerSeq };
      }),
      config: { listen: '127.0.0.1:0' },
    }),
    createRpcServer({
      backend: entriesBackend(snapshot.ledger, (key) => {
        const entry = snapshot.load(key);
        return entry === undefined ? undefined : { entry };
      }),
      config: { listen: '127.0.0.1:0' },
    }),
  ];
  const bound = [];
  for (const server of servers) bound.push(await server.listen());
  for (const server of servers) await server.ready(); // the events workers' readers open before the load
  const control: NodeControl = {
    ports: { hot: bound[0]!.port, cold: bound[1]!.port, entries: bound[2]!.port, entriesBaseline: bound[3]!.port },
    keys,
    liveEntries,
  };
  writeFileSync(args.controlFile, JSON.stringify(control));
  await untilStopped(args.controlFile);
  for (const server of servers) await server.close();
  snapshot.release();
  await manager.close();
  await opened.reader.close();
  await hot.close();
  await cold.close();
  return { liveEntries };
}
