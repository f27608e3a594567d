// The background freeze of a finished hot chunk (freezer.ts), on a real worker thread over real files. Checks:
// 1. the cold chunk it writes opens as tier 'cold' (@strata/cold-store openChunk) and holds exactly the hot chunk's
//    events, byte for byte, in ordinal order;
// 2. the main thread keeps running while the worker freezes (a ledger is ingested into the next chunk meanwhile);
// 3. freezing again finds the manifest (frozenNow false); a chunk without a hot database is EVENTS_FAILED.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStorage, openChunk } from '@strata/cold-store';
import { chunkFirstLedger } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { dataDirLayout, hotChunkPath } from '../src/data-dir.js';
import { NodeError } from '../src/errors.js';
import { coldChunkDir, freezeInBackground } from '../src/freezer.js';
import { payloadsOf } from './support/hot-chunks.js';

describe('freezeInBackground', () => {
  it('freezes a finished hot chunk on a worker while the main thread ingests the next chunk', async () => {
    const layout = dataDirLayout(join(tempDir('node-freeze'), 'data'));
    mkdirSync(layout.hotDir, { recursive: true });
    const chunkId = 3;
    const hot = HotStore.open(hotChunkPath(layout, chunkId), { chunkId, create: true });
    hot.ingestLedgers(payloadsOf(chunkFirstLedger(chunkId), 12));
    hot.sync();
    const count = hot.eventCount;
    expect(count).toBeGreaterThan(0);
    const hotEvents = await hot.reader().fetchRange({ start: 0, end: count });

    const freezing = freezeInBackground(layout, chunkId);
    // Ingest goes on into the next chunk while the worker freezes this one.
    const next = HotStore.open(hotChunkPath(layout, chunkId + 1), { chunkId: chunkId + 1, create: true });
    next.ingestLedgers(payloadsOf(chunkFirstLedger(chunkId + 1), 2));
    next.close();
    const outcome = await freezing;
    expect(outcome).toMatchObject({ ok: true, frozenNow: true, eventCount: count });

    const coldDir = coldChunkDir(layout, chunkId);
    const opened = await openChunk({
      chunkId,
      storage: new LocalStorage(join(coldDir, 'packs')),
      indexStorage: new LocalStorage(join(coldDir, 'index')),
    });
    try {
      expect(opened.tier).toBe('cold');
      const coldEvents = await opened.reader.fetchRange({ start: 0, end: opened.reader.eventCount() });
      expect(coldEvents.map((e) => Buffer.from(e.payload).toString('hex'))).toEqual(
        hotEvents.map((e) => Buffer.from(e.payload).toString('hex')),
      );
    } finally {
      await opened.reader.close();
    }
    expect(await freezeInBackground(layout, chunkId)).toMatchObject({ ok: true, frozenNow: false });
    hot.close();
  });

  it('reports a chunk without a hot database as EVENTS_FAILED', async () => {
    const layout = dataDirLayout(join(tempDir('node-freeze'), 'data'));
    const error = await rejectionOf(NodeError, () => freezeInBackground(layout, 5));
    expect(error).toMatchObject({ code: 'EVENTS_FAILED' });
    expect(error.message).toMatch(/NOT_FOUND/);
  });
});
