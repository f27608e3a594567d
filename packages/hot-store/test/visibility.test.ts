// What a reader in the writer's thread sees between the publication steps of an ingest (the store's test seam
// calls back after the commit, after the index, after the offsets and after the latest ledger). At every step:
// 1. the offsets cover the latest ledger (a router that trusts latestLedger finds its events);
// 2. every ledger the offsets show has all its terms: for each of its events, lookupTerms over the ledger's window
//    holds the event's ordinal for each of its terms, and fetchRange returns exactly its payloads.
// Negative control: a store that publishes the latest ledger and offsets before the index fails both checks.
import { join } from 'node:path';
import { deriveTerms } from '@strata/events';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type HotStore, type HotStoreSeams, openHotStoreWith, type PublishStep } from '../src/hot-store.js';
import { syntheticLedger } from './support.js';

const CHUNK = 8;
const FIRST = CHUNK * 10_000 + 2;

/** Ingests ledgers and checks the reader's view after every step; returns the failures found. */
async function checkSteps(seams: Omit<HotStoreSeams, 'onStep'>): Promise<string[]> {
  const path = join(tempDir('visibility'), 'chunk.db');
  const failures: string[] = [];
  const pending: Promise<void>[] = [];
  const expected = new Map<number, Uint8Array[]>();
  let store: HotStore | undefined;
  const onStep = (step: PublishStep | 'counts-committed') => {
    const reader = store!.reader();
    const latest = store!.latestLedger;
    const offsets = reader.ledgerOffsets();
    if (latest !== undefined && offsets.lastLedger < latest) failures.push(`${step}: latest ${latest} past offsets`);
    if (offsets.ledgerCount === 0) return;
    // The newest ledger the offsets show; lookups run synchronously up to their first await, i.e. now.
    const ledger = offsets.lastLedger;
    const window = offsets.windowForLedgers(ledger, ledger);
    const payloads = expected.get(ledger)!;
    const keys = payloads.flatMap((p) => deriveTerms(p));
    const lookup = reader.lookupTerms(keys, window);
    const range = reader.fetchRange(window);
    pending.push(
      (async () => {
        const bitmaps = await lookup;
        let k = 0;
        payloads.forEach((payload, i) => {
          for (const _ of deriveTerms(payload)) {
            if (bitmaps[k++]?.has(window.start + i) !== true)
              failures.push(`${step}: ledger ${ledger} event ${i} term missing`);
          }
        });
        const events = await range;
        if (events.length !== payloads.length) failures.push(`${step}: ledger ${ledger} fetch of ${events.length}`);
      })(),
    );
  };
  store = openHotStoreWith(path, { chunkId: CHUNK, create: true, synchronous: 'normal' }, { ...seams, onStep });
  try {
    let ledger = FIRST;
    for (let i = 0; i < 30; i++) {
      const batch = Array.from({ length: 1 + (i % 3) }, () => {
        const payloads = syntheticLedger(5, ledger, 10, 1);
        expected.set(ledger, payloads);
        return { ledger: ledger++, payloads };
      });
      store.ingestLedgers(batch);
    }
    await Promise.all(pending);
  } finally {
    store.close();
  }
  return failures;
}

describe('reader visibility between publication steps', () => {
  it('a correct store: offsets cover the latest ledger and every visible ledger has its terms, at every step', async () => {
    expect(await checkSteps({})).toEqual([]);
  });

  it('negative control: publishing latest ledger and offsets before the index is caught', async () => {
    const failures = await checkSteps({ publishLatestFirst: true });
    expect(failures.some((f) => f.startsWith('latest:') && f.includes('past offsets'))).toBe(true);
    expect(failures.some((f) => f.startsWith('offsets:') && f.includes('term missing'))).toBe(true);
  });
});
