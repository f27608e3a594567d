// freezeChunk from the hot index's term → ordinals lists (FreezeOptions.termOrdinals, hotTermOrdinals of
// @strata/hot-store): the chunk serves exactly what the regrouping freeze serves (every event, every term), with
// the same files for the same secret; lists that disagree with the payloads' terms in any way — a posting dropped,
// added, moved, a term missing or extra, lists of another count — are refused (negative controls: without the
// postings digest each of these would freeze and serve wrong answers), as are the freeze defects verification
// catches with regrouped terms.
import { join } from 'node:path';
import { hotTermOrdinals } from '@strata/hot-store';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import type { ChunkTermOrdinals } from '../src/chunk/freeze.js';
import { ColdStoreError, chunkFileNames, openChunk } from '../src/index.js';
import { freezeInto, hotStoreOf, storagesIn, termsOfPayloads } from './chunk-support.js';

const CHUNK = 14;
const FIRST = CHUNK * 10_000 + 2;
const SECRET = new Uint8Array(16).fill(3);

function chunkInput(ledgers: number) {
  return {
    startLedger: FIRST + 7,
    ledgers: Array.from({ length: ledgers }, (_, i) => syntheticLedger(8, FIRST + 7 + i, 30)),
  };
}

/** `lists` with its answers changed by `edit` (per term: its ordinals; the term count and keys as given). */
function edited(
  lists: ChunkTermOrdinals,
  edit: { termCount?: number; keyOf?: number; ordinals?: (term: number, ordinals: Uint32Array) => Uint32Array },
): ChunkTermOrdinals {
  return {
    eventCount: lists.eventCount,
    termCount: edit.termCount ?? lists.termCount,
    keyInto: (term, out, at) => lists.keyInto(Math.min(term, lists.termCount - 1, edit.keyOf ?? term), out, at),
    ordinals: (term) => {
      const own = lists.ordinals(Math.min(term, lists.termCount - 1));
      return edit.ordinals === undefined ? own : edit.ordinals(term, own);
    },
  };
}

describe('freezeChunk from the hot term lists', () => {
  it('serves every event and term exactly, with the files a regrouping freeze writes for the same secret', async () => {
    const dir = tempDir('lists');
    const input = chunkInput(120);
    const store = hotStoreOf(input, join(dir, 'hot.db'));
    try {
      const hot = store.reader();
      const fromLists = await freezeInto(join(dir, 'a'), hot, {
        termOrdinals: hotTermOrdinals(hot),
        secret: SECRET,
      });
      const regrouped = await freezeInto(join(dir, 'b'), hot, { secret: SECRET });
      const payloads = input.ledgers.flat();
      const terms = [...termsOfPayloads(payloads).values()];
      expect(fromLists.termCount).toBe(terms.length);
      expect(fromLists.eventCount).toBe(payloads.length);
      for (const frozen of [fromLists, regrouped]) {
        const reader = frozen.reader;
        const events = await reader.fetchRange({ start: 0, end: payloads.length });
        expect(events.findIndex((e, i) => Buffer.compare(e.payload, payloads[i]!) !== 0)).toBe(-1);
        const bitmaps = await reader.lookupTerms(
          terms.map((t) => t.key),
          { start: 0, end: payloads.length },
        );
        expect(terms.findIndex((t, i) => [...bitmaps[i]!].join() !== t.ordinals.join())).toBe(-1);
      }
      // The same term set routed by the same secret: the same MPHF, the same slots, the same items.
      expect(fromLists.reader.identity.indexContentHash).toEqual(regrouped.reader.identity.indexContentHash);
      expect(fromLists.bytes).toEqual(regrouped.bytes);
      await fromLists.reader.close();
      await regrouped.reader.close();
    } finally {
      store.close();
    }
  });

  it('refuses lists that differ from the payloads’ terms in any way, and leaves nothing behind', async () => {
    const dir = tempDir('lists');
    const input = chunkInput(60);
    const store = hotStoreOf(input, join(dir, 'hot.db'));
    try {
      const hot = store.reader();
      const lists = hotTermOrdinals(hot);
      // A term of several ordinals with a gap (an ordinal it does not hold, inside the chunk).
      let several = 0;
      const gapOf = (o: Uint32Array) => o.findIndex((v, i) => v !== (i === 0 ? 0 : o[i - 1]! + 1));
      while (lists.ordinals(several).length < 3 || gapOf(lists.ordinals(several)) < 0) several++;
      const withGapFilled = (o: Uint32Array) => {
        const at = gapOf(o);
        const missing = at === 0 ? 0 : o[at - 1]! + 1;
        return Uint32Array.from([...o.subarray(0, at), missing, ...o.subarray(at)]);
      };
      const cases: [string, ChunkTermOrdinals, string][] = [
        ['a posting dropped', edited(lists, { ordinals: (t, o) => (t === several ? o.slice(1) : o) }), 'VERIFY_FAILED'],
        [
          'a posting added',
          edited(lists, { ordinals: (t, o) => (t === several ? withGapFilled(o) : o) }),
          'VERIFY_FAILED',
        ],
        [
          'a posting moved',
          edited(lists, {
            ordinals: (t, o) => (t === several ? withGapFilled(o).filter((v) => v !== o[o.length - 1]) : o),
          }),
          'VERIFY_FAILED',
        ],
        ['a term missing', edited(lists, { termCount: lists.termCount - 1 }), 'VERIFY_FAILED'],
        ['a term twice', edited(lists, { termCount: lists.termCount + 1 }), 'BUILD_FAILED'],
        [
          'ordinals out of order',
          edited(lists, {
            ordinals: (t, o) => (t === several ? Uint32Array.from([o[1]!, o[0]!, ...o.subarray(2)]) : o),
          }),
          'VERIFY_FAILED',
        ],
        ['lists of another count', { ...lists, eventCount: lists.eventCount - 1 }, 'INVALID_ARGUMENT'],
      ];
      for (const [what, termOrdinals, code] of cases) {
        const target = tempDir('lists');
        const error = await freezeInto(target, hot, { termOrdinals }).then(
          (frozen) => frozen.reader.close().then(() => new Error(`${what}: frozen`)),
          (rejected: unknown) => rejected,
        );
        expect(error, what).toBeInstanceOf(ColdStoreError);
        expect((error as ColdStoreError).code, what).toBe(code);
        const { storage, indexStorage } = storagesIn(target);
        const names = chunkFileNames(CHUNK);
        expect(await storage.exists(names.manifest), what).toBe(false);
        expect(await indexStorage.exists(names.indexPack), what).toBe(false);
        expect((await openChunk({ chunkId: CHUNK, storage, indexStorage, hot })).tier, what).toBe('hot');
      }
      // What verification catches with regrouped terms it catches from lists.
      for (const [seams, code] of [
        [{ dropOrdinalOfTerm: several }, 'VERIFY_FAILED'],
        [{ wrongFingerprintOfTerm: 2 }, 'FINGERPRINT_MISMATCH'],
        [{ writtenMphfSeed: 99 }, 'VERIFY_FAILED'],
        [{ flipPayload: 11 }, 'VERIFY_FAILED'],
      ] as const) {
        const error = await rejectionOf(ColdStoreError, () =>
          freezeInto(tempDir('lists'), hot, { termOrdinals: lists }, seams),
        );
        expect(error.code, JSON.stringify(seams)).toBe(code);
      }
    } finally {
      store.close();
    }
  });
});
