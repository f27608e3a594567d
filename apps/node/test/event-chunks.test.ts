// The event chunks across both tiers (event-chunks.ts), over real hot and cold files at arbitrary chunk ids. Checks:
// 1. the swap: after a freeze, dropFrozenHot checks the cold chunk and deletes the hot database; openEventsChunk
//    then serves the chunk from cold, with the hot chunk's events byte for byte; a chunk not frozen is served hot;
// 2. a cold chunk that does not check out (a damaged events.pack) keeps its hot database (EVENTS_FAILED);
// 3. retention: the floor of a window, and dropChunksBelow removing manifest, cold folder and hot database of every
//    chunk below it but the live one.
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFileNames } from '@strata/cold-store';
import { chunkFirstLedger, chunkLastLedger } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { dataDirLayout, hotChunkPath } from '../src/data-dir.js';
import { NodeError } from '../src/errors.js';
import {
  dropChunksBelow,
  dropFrozenHot,
  eventChunkIds,
  isFrozen,
  newestFrozenLedger,
  openEventsChunk,
  retentionFloor,
} from '../src/event-chunks.js';
import { coldChunkDir, freezeInBackground } from '../src/freezer.js';
import { writeHotChunk } from './support/hot-chunks.js';

async function payloadsHex(layout: ReturnType<typeof dataDirLayout>, chunkId: number) {
  const opened = await openEventsChunk(layout, chunkId);
  try {
    const events = await opened.reader.fetchRange({ start: 0, end: opened.reader.eventCount() });
    return { tier: opened.tier, events: events.map((event) => Buffer.from(event.payload).toString('hex')) };
  } finally {
    await opened.reader.close();
  }
}

describe('event chunks across the tiers', () => {
  it('swaps a frozen chunk to cold and drops its hot database only then', async () => {
    const layout = dataDirLayout(join(tempDir('node-chunks'), 'data'));
    const count = writeHotChunk(layout, 4, 10);
    writeHotChunk(layout, 5, 3);
    const hot = await payloadsHex(layout, 4);
    expect(hot).toMatchObject({ tier: 'hot' });
    expect(hot.events).toHaveLength(count);
    expect(isFrozen(layout, 4)).toBe(false);

    await freezeInBackground(layout, 4);
    expect(isFrozen(layout, 4)).toBe(true);
    // Cold wins as soon as the manifest exists, before the hot database is gone.
    expect(await payloadsHex(layout, 4)).toEqual({ tier: 'cold', events: hot.events });
    expect(existsSync(hotChunkPath(layout, 4))).toBe(true);
    await dropFrozenHot(layout, 4);
    expect(existsSync(hotChunkPath(layout, 4))).toBe(false);
    expect(await payloadsHex(layout, 4)).toEqual({ tier: 'cold', events: hot.events });
    expect(eventChunkIds(layout)).toEqual([4, 5]);
    expect(newestFrozenLedger(layout)).toBe(chunkLastLedger(4));
    expect((await payloadsHex(layout, 5)).tier).toBe('hot');
    const missing = await rejectionOf(NodeError, () => openEventsChunk(layout, 6));
    expect(missing.code).toBe('EVENTS_FAILED');
  });

  it('keeps the hot database of a cold chunk that does not check out', async () => {
    const layout = dataDirLayout(join(tempDir('node-chunks'), 'data'));
    writeHotChunk(layout, 2, 6);
    await freezeInBackground(layout, 2);
    appendFileSync(join(coldChunkDir(layout, 2), 'packs', chunkFileNames(2).eventsPack), Buffer.from([0]));
    const error = await rejectionOf(NodeError, () => dropFrozenHot(layout, 2));
    expect(error.code).toBe('EVENTS_FAILED');
    expect(existsSync(hotChunkPath(layout, 2))).toBe(true);
    const hot = HotStore.open(hotChunkPath(layout, 2), { chunkId: 2 });
    expect(hot.frozen).toBe(false);
    hot.close();
  });

  it('computes the retention floor and drops every chunk below it but the live one', async () => {
    expect(retentionFloor(chunkLastLedger(20), 0)).toBe(0);
    expect(retentionFloor(100, 120_960)).toBe(0);
    // A window of 10,000 ledgers ending at chunk 3's first ledger still holds chunk 2's last ledgers.
    expect(retentionFloor(chunkFirstLedger(3), 10_000)).toBe(2);
    expect(retentionFloor(chunkLastLedger(3), 10_000)).toBe(3);

    const layout = dataDirLayout(join(tempDir('node-chunks'), 'data'));
    for (const chunkId of [1, 2, 3]) writeHotChunk(layout, chunkId, 2);
    await freezeInBackground(layout, 1);
    await dropFrozenHot(layout, 1);
    await freezeInBackground(layout, 2); // frozen, its hot database still there
    expect(eventChunkIds(layout)).toEqual([1, 2, 3]);
    expect(dropChunksBelow(layout, 3)).toEqual([1, 2]);
    expect(eventChunkIds(layout)).toEqual([3]);
    expect(readdirSync(layout.coldDir)).toEqual([]);
    expect(readdirSync(layout.hotDir)).toEqual(['3.db']);
    expect(dropChunksBelow(layout, 9, 3)).toEqual([]);
    expect(eventChunkIds(layout)).toEqual([3]);
  });
});
