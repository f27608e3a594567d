// The node's event chunks across both tiers (spec §3.6): which chunks exist, which tier serves each, the swap from
// hot to cold after a freeze, and retention. The truth on disk, with no catalog of its own:
//
//   - a chunk is frozen iff its cold manifest exists (`events/cold/<c>/packs/<bucket>/<c>-manifest`): cold-store's
//     freezeChunk writes it last, after verifying every cold file against the hot chunk, so "cold wins";
//   - its hot database is dropped only after that, once the cold chunk reopens with the files its manifest records
//     and holds as many events as the hot chunk: marked frozen in the hot database (HotStore.freeze), then deleted
//     (HotStore.delete). A crash between the two leaves a hot database beside a frozen chunk; startup drops it;
//   - a chunk whose hot database holds its last ledger and has no manifest is complete but not frozen yet (a crash
//     interrupted the freeze, or it failed): startup freezes it again (the freeze removes what an interrupted one
//     left);
//   - retention removes a chunk whose every ledger is older than the window: its manifest first (the chunk stops
//     being served), then its cold folder, then any hot database. A crash in between leaves a cold folder without a
//     manifest below the floor, removed again on the next pass.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectorySync } from '@strata/base';
import {
  type ColdChunkReader,
  chunkFileNames,
  LocalStorage,
  type OpenedChunk,
  openChunk,
  openFrozenChunk,
} from '@strata/cold-store';
import { chunkIdOfLedger, chunkLastLedger } from '@strata/events';
import { HotStore, openHotReader } from '@strata/hot-store';
import { type DataDirLayout, hotChunkIds, hotChunkPath } from './data-dir.js';
import { NodeError } from './errors.js';
import { coldChunkDir } from './freezer.js';

/** stellar-rpc's default history window, in ledgers (7 days of 5 s ledgers); 0 keeps every chunk. */
export const DEFAULT_RETENTION_LEDGERS = 120_960;

/** The cold-store locations of chunk `chunkId` (packs and index folders). */
export function coldLocation(layout: DataDirLayout, chunkId: number) {
  const dir = coldChunkDir(layout, chunkId);
  return {
    chunkId,
    storage: new LocalStorage(join(dir, 'packs')),
    indexStorage: new LocalStorage(join(dir, 'index')),
  };
}

/** Whether chunk `chunkId` has its cold manifest: frozen, served from cold. */
export function isFrozen(layout: DataDirLayout, chunkId: number): boolean {
  return existsSync(join(coldChunkDir(layout, chunkId), 'packs', chunkFileNames(chunkId).manifest));
}

/** Chunk ids with a cold folder (frozen or not), ascending. */
export function coldChunkIds(layout: DataDirLayout): number[] {
  if (!existsSync(layout.coldDir)) return [];
  return readdirSync(layout.coldDir)
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
}

/** Every chunk id the events tiers hold (a hot database or a frozen cold chunk), ascending. */
export function eventChunkIds(layout: DataDirLayout): number[] {
  const ids = new Set(hotChunkIds(layout));
  for (const id of coldChunkIds(layout)) if (isFrozen(layout, id)) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}

/** The newest frozen chunk's last ledger (a frozen chunk is complete), or undefined when none is frozen. */
export function newestFrozenLedger(layout: DataDirLayout): number | undefined {
  const frozen = coldChunkIds(layout).filter((id) => isFrozen(layout, id));
  const newest = frozen.at(-1);
  return newest === undefined ? undefined : chunkLastLedger(newest);
}

/**
 * The reader serving chunk `chunkId`: cold when frozen, else `hot` (the live chunk's reader, when given) or a
 * read-only reader of its hot database; NOT_FOUND (EVENTS_FAILED) when neither tier holds it. The caller closes it.
 */
export async function openEventsChunk(
  layout: DataDirLayout,
  chunkId: number,
  hot?: () => OpenedChunk['reader'],
): Promise<OpenedChunk> {
  try {
    return await openChunk({
      ...coldLocation(layout, chunkId),
      hot: hot ?? (() => openHotReader(hotChunkPath(layout, chunkId), { chunkId })),
    });
  } catch (error) {
    throw new NodeError('EVENTS_FAILED', `cannot open event chunk ${chunkId}: ${(error as Error).message}`, {
      file: hotChunkPath(layout, chunkId),
      cause: error,
    });
  }
}

/**
 * The swap's second half: checks that frozen chunk `chunkId` reopens with the files its manifest records (sizes,
 * content hashes, index.hash CRC, build id: openFrozenChunk) and holds `expectedEvents` (the hot chunk's count,
 * when it still exists), then marks the hot database frozen and deletes it. Throws EVENTS_FAILED, leaving the hot
 * database, when the cold chunk does not check out.
 */
export async function dropFrozenHot(layout: DataDirLayout, chunkId: number): Promise<void> {
  const path = hotChunkPath(layout, chunkId);
  if (!existsSync(path)) return;
  let hotEvents: number;
  const hot = HotStore.open(path, { chunkId });
  try {
    hotEvents = hot.eventCount;
    let cold: ColdChunkReader | undefined;
    try {
      cold = await openFrozenChunk(coldLocation(layout, chunkId));
    } catch (error) {
      throw new NodeError('EVENTS_FAILED', `frozen chunk ${chunkId} does not open: ${(error as Error).message}`, {
        file: coldChunkDir(layout, chunkId),
        cause: error,
      });
    }
    const coldEvents = cold.eventCount();
    await cold.close();
    if (coldEvents !== hotEvents) {
      throw new NodeError(
        'EVENTS_FAILED',
        `frozen chunk ${chunkId} holds ${coldEvents} events, its hot database ${hotEvents}; the hot one stays`,
        { file: coldChunkDir(layout, chunkId) },
      );
    }
    if (!hot.frozen) hot.freeze();
  } finally {
    hot.close();
  }
  HotStore.delete(path, { chunkId });
  fsyncDirectorySync(layout.hotDir);
}

/**
 * The oldest chunk retention keeps when the newest ledger is `latest`: a chunk goes once every one of its ledgers
 * is older than the window of `retentionLedgers` ledgers ending at `latest` (0: keep all, floor 0).
 */
export function retentionFloor(latest: number, retentionLedgers: number): number {
  if (retentionLedgers === 0) return 0;
  const oldestKept = latest - retentionLedgers + 1;
  if (oldestKept <= 2) return 0;
  return chunkIdOfLedger(oldestKept);
}

/**
 * Removes every chunk below `floor` (see the file comment for the order); never `keep` (the live chunk). Returns
 * the chunk ids removed.
 */
export function dropChunksBelow(layout: DataDirLayout, floor: number, keep?: number): number[] {
  const dropped = new Set<number>();
  for (const chunkId of coldChunkIds(layout)) {
    if (chunkId >= floor || chunkId === keep) continue;
    const dir = coldChunkDir(layout, chunkId);
    rmSync(join(dir, 'packs', chunkFileNames(chunkId).manifest), { force: true });
    rmSync(dir, { recursive: true, force: true });
    dropped.add(chunkId);
  }
  if (dropped.size > 0) fsyncDirectorySync(layout.coldDir);
  let hotDropped = false;
  for (const chunkId of hotChunkIds(layout)) {
    if (chunkId >= floor || chunkId === keep) continue;
    const path = hotChunkPath(layout, chunkId);
    for (const suffix of ['-wal', '-shm', '']) rmSync(path + suffix, { force: true });
    dropped.add(chunkId);
    hotDropped = true;
  }
  if (hotDropped) fsyncDirectorySync(layout.hotDir);
  return [...dropped].sort((a, b) => a - b);
}
