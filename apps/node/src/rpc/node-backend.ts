// nodeRpcBackend: the RpcBackend of a StrataNode, built only from what the node exposes (its layout, node.json,
// LedgerState, hotLedger, oldestEventLedger, latestLedger) plus a RecentLedgers log the ingest loop feeds with each
// committed ledger's meta (the node does not keep LedgerCloseMeta or headers itself). Chunks are read through their
// own readers (layoutChunkOpener): on the server's thread, or in each events worker (workerLayoutChunkOpener).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { xdr } from '@stellar/stellar-base';
import { LocalStorage, openChunk } from '@strata/cold-store';
import type { ChunkReader } from '@strata/events';
import { openHotReader } from '@strata/hot-store';
import { LEDGER_ENTRY_TYPE, readLedgerKey } from '@strata/ledger-key';
import type { LedgerHeaderInfo } from '@strata/ledger-meta';
import { type DataDirLayout, hotChunkIds, hotChunkPath } from '../data-dir.js';
import { coldChunkDir } from '../freezer.js';
import type { StrataNode } from '../node.js';
import type { ChunkOpener, ChunkTier, FoundLedgerEntry, LatestLedgerInfo, RpcBackend } from './backend.js';

/** How many ledgers' meta RecentLedgers keeps by default (getLatestLedger needs only the newest). */
const DEFAULT_KEPT_METAS = 4;

/**
 * The recent ledgers' LedgerCloseMeta and every recorded ledger's close time. `record` is called by whoever
 * ingests, once per committed ledger, in order; the header XDR is cut out of the meta only when asked for.
 */
export class RecentLedgers {
  readonly #metas = new Map<number, { meta: Uint8Array; header: LedgerHeaderInfo; headerXdr?: Uint8Array }>();
  readonly #closeTimes = new Map<number, number>();
  readonly #kept: number;

  constructor(kept = DEFAULT_KEPT_METAS) {
    this.#kept = kept;
  }

  /** Records ledger `header.ledgerSeq`'s meta bytes (kept by reference: do not mutate them afterwards). */
  record(meta: Uint8Array, header: LedgerHeaderInfo): void {
    this.#metas.set(header.ledgerSeq, { meta, header });
    this.#closeTimes.set(header.ledgerSeq, Number(header.closeTime));
    for (const seq of this.#metas.keys()) if (seq <= header.ledgerSeq - this.#kept) this.#metas.delete(seq);
  }

  closeTime(ledger: number): number | undefined {
    return this.#closeTimes.get(ledger);
  }

  /** getLatestLedger's answer for `ledger`, when its meta is kept. */
  ledger(ledger: number): LatestLedgerInfo | undefined {
    const kept = this.#metas.get(ledger);
    if (kept === undefined) return undefined;
    kept.headerXdr ??= headerXdrOf(kept.meta);
    return {
      sequence: ledger,
      hash: Buffer.from(kept.header.ledgerHash).toString('hex'),
      protocolVersion: kept.header.protocolVersion,
      closeTime: Number(kept.header.closeTime),
      headerXdr: kept.headerXdr,
      metadataXdr: kept.meta,
    };
  }
}

/** The LedgerHeader XDR inside a LedgerCloseMeta (v0, v1 and v2 all start with their LedgerHeaderHistoryEntry). */
function headerXdrOf(meta: Uint8Array): Uint8Array {
  const lcm = xdr.LedgerCloseMeta.fromXDR(Buffer.from(meta.buffer, meta.byteOffset, meta.byteLength));
  const arm = lcm.switch() === 0 ? lcm.v0() : lcm.switch() === 1 ? lcm.v1() : lcm.v2();
  return new Uint8Array(arm.ledgerHeader().header().toXDR());
}

interface OpenedReader {
  readonly tier: ChunkTier;
  readonly reader: ChunkReader;
}

export interface NodeRpcBackend extends RpcBackend {
  /** Closes the readers this backend opened. */
  close(): Promise<void>;
}

/** A ChunkOpener that also closes what it opened. */
export interface ClosableChunkOpener extends ChunkOpener {
  close(): Promise<void>;
}

/**
 * The chunks of a data dir: a hot chunk through a read-only connection of @strata/hot-store (it catches up on every
 * ledgerOffsets()), a frozen one through @strata/cold-store, switching to cold as soon as a chunk's cold manifest
 * appears. One reader per chunk however many requests ask at once.
 */
export function layoutChunkOpener(layout: DataDirLayout): ClosableChunkOpener {
  /** Each chunk's reader (being) opened. */
  const opening = new Map<number, Promise<OpenedReader>>();
  const retired: ChunkReader[] = [];

  const locationOf = (chunkId: number) => {
    const dir = coldChunkDir(layout, chunkId);
    return {
      chunkId,
      storage: new LocalStorage(join(dir, 'packs')),
      indexStorage: new LocalStorage(join(dir, 'index')),
    };
  };

  async function openReader(chunkId: number): Promise<OpenedReader> {
    const current = opening.get(chunkId);
    if (current !== undefined) {
      const entry = await current;
      // A hot chunk whose cold files appeared (the index folder comes before the manifest) is reopened once.
      if (entry.tier === 'cold' || !existsSync(join(coldChunkDir(layout, chunkId), 'index'))) return entry;
      if (opening.get(chunkId) !== current) return openReader(chunkId);
    }
    const next = (async (): Promise<OpenedReader> => {
      const previous = current === undefined ? undefined : await current;
      const opened = await openChunk({
        ...locationOf(chunkId),
        hot: () => previous?.reader ?? openHotReader(hotChunkPath(layout, chunkId), { chunkId }),
      });
      if (previous !== undefined && opened.reader !== previous.reader) retired.push(previous.reader);
      return { tier: opened.tier, reader: opened.reader };
    })();
    opening.set(chunkId, next);
    // A chunk that cannot be opened now (its files not there yet) is tried again by the next request.
    next.catch(() => {
      if (opening.get(chunkId) === next) {
        if (current === undefined) opening.delete(chunkId);
        else opening.set(chunkId, current);
      }
    });
    return next;
  }

  return {
    openChunk: openReader,
    async warm() {
      // The hot chunks (not frozen yet): their readers rebuild an index at open.
      const cold = new Set(existsSync(layout.coldDir) ? readdirSync(layout.coldDir) : []);
      for (const chunkId of hotChunkIds(layout)) {
        if (!cold.has(String(chunkId))) await openReader(chunkId).catch(() => undefined);
      }
    },
    async close() {
      const opened = await Promise.allSettled(opening.values());
      const all = [...opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value.reader] : [])), ...retired];
      opening.clear();
      retired.length = 0;
      await Promise.all(all.map((reader) => reader.close().catch(() => undefined)));
    },
  };
}

/** layoutChunkOpener for an events worker (RpcBackend.eventsWorkerOpener): `args` is `{ layout }`. */
export async function workerLayoutChunkOpener(args: { readonly layout: DataDirLayout }): Promise<ChunkOpener> {
  return layoutChunkOpener(args.layout);
}

/** The RpcBackend of `node`; `ledgers` is the log its ingest feeds (README "JSON-RPC": the hook). */
export function nodeRpcBackend(node: StrataNode, ledgers: RecentLedgers = new RecentLedgers()): NodeRpcBackend {
  const layout = node.layout;
  const chunks = layoutChunkOpener(layout);
  const latestServed = (): number => Math.min(node.state.ledger, node.hotLedger);

  return {
    networkPassphrase: node.file.networkPassphrase,
    protocolVersion: () => node.state.protocolVersion,
    servedRange() {
      // Retention's floor when the node has removed older chunks, else the first ledger it ingested.
      const oldestLedger = node.oldestEventLedger ?? node.file.firstLedger;
      const latestLedger = latestServed();
      const latest = node.latestLedger;
      return {
        oldestLedger,
        oldestLedgerCloseTime: ledgers.closeTime(oldestLedger) ?? 0,
        latestLedger,
        latestLedgerCloseTime:
          ledgers.closeTime(latestLedger) ?? (latest?.ledger === latestLedger ? latest.closeTime : undefined) ?? 0,
      };
    },
    latestLedger: () => ledgers.ledger(latestServed()),
    openChunk: (chunkId) => chunks.openChunk(chunkId),
    eventsWorkerOpener: { module: import.meta.url, exportName: 'workerLayoutChunkOpener', args: { layout } },
    chunkCounts() {
      const cold = existsSync(layout.coldDir)
        ? readdirSync(layout.coldDir)
            .filter((name) => /^\d+$/.test(name))
            .map(Number)
        : [];
      const coldSet = new Set(cold);
      return { hot: hotChunkIds(layout).filter((id) => !coldSet.has(id)).length, cold: cold.length };
    },
    ledgerEntries(keys) {
      const state = node.state;
      const entries = keys.map((key): FoundLedgerEntry | undefined => {
        const type = readLedgerKey(key).type;
        if (type === LEDGER_ENTRY_TYPE.CONTRACT_DATA || type === LEDGER_ENTRY_TYPE.CONTRACT_CODE) {
          const found = state.sorobanState.get(key);
          return found === undefined ? undefined : { entry: found.entry, liveUntilLedgerSeq: found.liveUntilLedgerSeq };
        }
        const entry = state.bucketList.load(key);
        return entry === undefined ? undefined : { entry };
      });
      return { latestLedger: state.ledger, entries };
    },
    close: () => chunks.close(),
  };
}
