// What the JSON-RPC server reads: the interface between the server and whatever holds the data (a StrataNode
// through nodeRpcBackend, or a test's fake over real stores). The server never reaches past it.
//
// Concurrency: every method may be called at any time from the server's thread, concurrently with ingest on the same
// thread between awaits; answers must be internally consistent (a range whose ledgers the chunk readers cover).
import type { ChunkReader } from '@strata/events';

/** The ledgers served, both inclusive, with their close times (unix seconds; 0 when not known). */
export interface ServedRange {
  readonly oldestLedger: number;
  readonly oldestLedgerCloseTime: number;
  readonly latestLedger: number;
  readonly latestLedgerCloseTime: number;
}

/** The newest ledger as getLatestLedger returns it. */
export interface LatestLedgerInfo {
  readonly sequence: number;
  /** Header hash, hex. */
  readonly hash: string;
  readonly protocolVersion: number;
  /** Unix seconds. */
  readonly closeTime: number;
  /** LedgerHeader XDR (not the history entry), as stellar-rpc's headerXdr. */
  readonly headerXdr: Uint8Array;
  /** The whole LedgerCloseMeta XDR. */
  readonly metadataXdr: Uint8Array;
}

/** One found ledger entry. */
export interface FoundLedgerEntry {
  /** The whole LedgerEntry XDR (lastModifiedLedgerSeq, data, ext). */
  readonly entry: Uint8Array;
  /** Soroban entries' TTL; undefined for classic entries. */
  readonly liveUntilLedgerSeq?: number | undefined;
}

export type ChunkTier = 'hot' | 'cold';

/** Chunk readers of the served chunks, opened and cached by their owner (the server never closes them). */
export interface ChunkOpener {
  /** The reader of one chunk holding served ledgers, and its tier (see RpcBackend.openChunk). */
  openChunk(chunkId: number): Promise<{ readonly tier: ChunkTier; readonly reader: ChunkReader }>;
  /**
   * Opens ahead what the first pages will read (a hot reader rebuilds its index at open: seconds for a full
   * chunk); an events worker calls it once at start, before it takes requests. Failures are left to openChunk.
   */
  warm?(): Promise<void>;
}

/**
 * A module whose export `exportName`, called with `args` (structured-cloneable) in a worker thread, resolves with a
 * ChunkOpener over the same chunks as the backend's: how events workers (events-workers.ts) open their own readers.
 * `module` is a URL or path a worker can import (a module's own import.meta.url, typically).
 */
export interface ChunkOpenerModule {
  readonly module: string;
  readonly exportName: string;
  readonly args: unknown;
}

export interface RpcBackend extends ChunkOpener {
  readonly networkPassphrase: string;
  /**
   * Where events workers open these chunks; without it (or with `events-workers` 0) getEvents and getEventsV2 run
   * on the server's thread through openChunk.
   */
  readonly eventsWorkerOpener?: ChunkOpenerModule;
  /** Protocol version of the latest ledger. */
  protocolVersion(): number;
  /** The served range now; latestLedger < oldestLedger means nothing served yet. */
  servedRange(): ServedRange;
  /** The newest ledger's header and meta, or undefined when the backend does not hold them. */
  latestLedger(): LatestLedgerInfo | undefined;
  /**
   * The reader of one chunk holding served ledgers, and its tier. The backend owns and caches readers (the server
   * never closes them); a hot reader must cover every served ledger of its chunk.
   */
  openChunk(chunkId: number): Promise<{ readonly tier: ChunkTier; readonly reader: ChunkReader }>;
  /** Chunks present per tier (for /metrics). */
  chunkCounts(): { readonly hot: number; readonly cold: number };
  /**
   * Entries of validated LedgerKey XDRs (never TTL keys), aligned with `keys` (undefined = absent), and the ledger
   * they are current at.
   */
  ledgerEntries(keys: readonly Uint8Array[]): {
    readonly latestLedger: number;
    readonly entries: readonly (FoundLedgerEntry | undefined)[];
  };
}
