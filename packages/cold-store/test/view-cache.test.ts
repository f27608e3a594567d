// The cache of frozen views a ColdChunkReader keeps per slot (src/chunk/view-cache.ts). Cases:
// 1. The cache itself: least recently used first out, never above its byte bound, a value larger than the bound not
//    kept, a replaced slot counted once.
// 2. Through a reader, mapped and unmapped, with the default bound, a tiny one (constant eviction) and none: every
//    term answers its exact ordinals and absent keys answer nothing, whatever was cached before; a term looked up
//    again gets the cached view (the same object) when the cache holds it, and close() empties the cache.
// 3. A key routed to a slot whose view is cached is still compared by fingerprint: absent keys stay absent once
//    every slot is cached. Negative control: a cache hit that skips the fingerprint answers absent keys.
import { tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { __lookupFaults } from '../src/chunk/cold-chunk-reader.js';
import { ViewCache } from '../src/chunk/view-cache.js';
import { ColdChunkReader } from '../src/index.js';
import {
  type ChunkInput,
  freezeInto,
  InMemoryChunkReader,
  storagesIn,
  termsOfPayloads,
  UnmappedStorage,
} from './chunk-support.js';

const CHUNK = 17;
const FIRST = CHUNK * 10_000 + 2;
const input: ChunkInput = {
  startLedger: FIRST,
  ledgers: Array.from({ length: 60 }, (_, i) => syntheticLedger(19, FIRST + i, 30)),
};
const payloads = input.ledgers.flat();
const terms = [...termsOfPayloads(payloads).values()];
const absent = Array.from({ length: 64 }, (_, i) => new Uint8Array(16).fill(i * 3 + 1));

describe('ViewCache', () => {
  it('evicts the least recently used, stays within its bound, and skips what cannot fit (case 1)', () => {
    const cache = new ViewCache<string>(250);
    cache.set(1, 'a', 100);
    cache.set(2, 'b', 100);
    expect(cache.get(1)).toBe('a'); // 1 is now the most recent
    cache.set(3, 'c', 100); // 2 goes
    expect([cache.get(2), cache.get(1), cache.get(3)]).toEqual([undefined, 'a', 'c']);
    cache.set(3, 'c2', 150); // replaced, counted once: 100 + 150 = 250
    expect(cache.stats).toMatchObject({ views: 2, bytes: 250, evictions: 1 });
    cache.set(4, 'd', 251); // larger than the bound: not kept, nothing evicted
    expect(cache.get(4)).toBeUndefined();
    expect(cache.stats).toMatchObject({ views: 2, bytes: 250, evictions: 1 });
    cache.set(5, 'e', 10); // 1 (least recent) goes
    expect([cache.get(1), cache.get(3), cache.get(5)]).toEqual([undefined, 'c2', 'e']);
    expect(cache.stats).toMatchObject({ views: 2, bytes: 160, maxBytes: 250, evictions: 2 });
    const none = new ViewCache<string>(0);
    none.set(1, 'a', 0);
    expect(none.stats.views).toBe(1); // a zero-byte value fits a zero bound; real views never count 0
    cache.clear();
    expect(cache.stats).toMatchObject({ views: 0, bytes: 0 });
  });
});

describe('frozen views through the cache', () => {
  afterEach(() => {
    __lookupFaults.skipCachedFingerprint = false;
  });

  async function frozenChunk(): Promise<string> {
    const dir = tempDir('view-cache');
    await (await freezeInto(dir, new InMemoryChunkReader(input))).reader.close();
    return dir;
  }

  async function open(dir: string, mapped: boolean, viewCacheBytes?: number): Promise<ColdChunkReader> {
    const local = storagesIn(dir);
    const storages = mapped
      ? local
      : { storage: new UnmappedStorage(local.storage), indexStorage: new UnmappedStorage(local.indexStorage) };
    return ColdChunkReader.open({
      chunkId: CHUNK,
      ...storages,
      read: viewCacheBytes === undefined ? {} : { viewCacheBytes },
    });
  }

  /** Looks every term and absent key up (one call per key and one for all) over two windows; throws on a wrong answer. */
  async function lookUpAll(reader: ColdChunkReader): Promise<void> {
    const n = payloads.length;
    for (const window of [
      { start: 0, end: n },
      { start: Math.floor(n / 4), end: Math.floor(n / 2) },
    ]) {
      const keys = [...terms.map((t) => t.key), ...absent];
      const together = await reader.lookupTerms(keys, window);
      const alone = await Promise.all(keys.map(async (key) => (await reader.lookupTerms([key], window))[0]));
      keys.forEach((_, k) => {
        const want = (terms[k]?.ordinals ?? []).filter((o) => o >= window.start && o < window.end);
        for (const bitmap of [together[k], alone[k]]) {
          const got = bitmap === undefined ? [] : [...bitmap].filter((o) => o >= window.start && o < window.end);
          expect(got, `key ${k}`).toEqual(want);
        }
      });
    }
  }

  it.each([
    ['mapped', true],
    ['unmapped', false],
  ] as const)('answers exactly with the default bound, a tiny one and none (case 2, %s)', async (_, mapped) => {
    const dir = await frozenChunk();
    expect(terms.length).toBeGreaterThan(50);
    const whole = { start: 0, end: payloads.length };
    const key = terms[0]!.key;

    const cached = await open(dir, mapped);
    await lookUpAll(cached);
    await lookUpAll(cached); // the second pass answers from the cache
    const views = cached.stats.views;
    expect(views.views).toBe(terms.length);
    expect(views.hits).toBeGreaterThan(terms.length);
    expect(views.bytes).toBeLessThanOrEqual(views.maxBytes);
    const [first] = await cached.lookupTerms([key], whole);
    const [second] = await cached.lookupTerms([key], whole);
    expect(second).toBe(first);
    await cached.close();
    expect(cached.stats.views.views).toBe(0);
    expect([...first!]).toEqual(terms[0]!.ordinals); // a view outlives the reader and its cache

    const tiny = await open(dir, mapped, 1000); // two or three views at a time
    await lookUpAll(tiny);
    expect(tiny.stats.views.evictions).toBeGreaterThan(terms.length);
    expect(tiny.stats.views.bytes).toBeLessThanOrEqual(1000);
    await tiny.close();

    const none = await open(dir, mapped, 0);
    await lookUpAll(none);
    expect(none.stats.views).toMatchObject({ views: 0, hits: 0 });
    const [once] = await none.lookupTerms([key], whole);
    const [twice] = await none.lookupTerms([key], whole);
    expect(twice).not.toBe(once);
    await none.close();
  });

  it('compares fingerprints on a cache hit; negative control: skipping that answers absent keys (case 3)', async () => {
    const dir = await frozenChunk();
    const reader = await open(dir, true);
    const whole = { start: 0, end: payloads.length };
    await reader.lookupTerms(
      terms.map((t) => t.key),
      whole,
    );
    expect(reader.stats.views.views).toBe(terms.length); // every slot cached: every absent key hits one
    expect((await reader.lookupTerms(absent, whole)).filter((b) => b !== undefined)).toEqual([]);
    __lookupFaults.skipCachedFingerprint = true;
    expect((await reader.lookupTerms(absent, whole)).filter((b) => b !== undefined).length).toBe(absent.length);
    await reader.close();
  });
});
