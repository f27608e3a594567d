// freezeChunk and openChunk: the switch, idempotence, recovery from what an interrupted or damaged freeze leaves,
// the bounded-memory path (spilled postings, partitioned index.pack), determinism under a fixed secret, and the
// verification, each check with a freeze defect it must catch (negative controls).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChunkReader, compilePostFilter, eventTypeTermKey, termKeyHex, viewPayload } from '@strata/events';
import { matchEvents, planQuery } from '@strata/match';
import { errorOf, rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { IndexItemWriter } from '../src/chunk/index-item.js';
import { DEFAULT_EVENTS_PER_RECORD, EVENTS_PACK_FORMAT_ID } from '../src/chunk/layout.js';
import { ColdChunkReader, ColdStoreError, chunkFileNames, openChunk } from '../src/index.js';
import { TRAILER_BYTES, TrailerField } from '../src/packfile/format.js';
import { PackfileReader } from '../src/packfile/index.js';
import {
  type ChunkInput,
  freezeInto,
  hotStoreOf,
  InMemoryChunkReader,
  storagesIn,
  termsOfPayloads,
} from './chunk-support.js';

const CHUNK = 12;
const FIRST = CHUNK * 10_000 + 2;

function inputOf(ledgers: number, maxEvents = 30, seed = 5): ChunkInput {
  return {
    startLedger: FIRST + 100,
    ledgers: Array.from({ length: ledgers }, (_, i) => syntheticLedger(seed, FIRST + 100 + i, maxEvents)),
  };
}

/** Every term of the input with its ordinals (the oracle). */
function termsOf(input: ChunkInput): Map<string, { key: Uint8Array; ordinals: number[] }> {
  return termsOfPayloads(input.ledgers.flat());
}

/** Checks `reader` answers every event and every term of `input` exactly. */
async function expectServes(reader: ChunkReader, input: ChunkInput): Promise<void> {
  const all = input.ledgers.flat();
  expect(reader.eventCount()).toBe(all.length);
  const got = await reader.fetchRange({ start: 0, end: all.length });
  expect(got.findIndex((e, i) => Buffer.compare(e.payload, all[i]!) !== 0)).toBe(-1);
  const terms = [...termsOf(input).values()];
  const bitmaps = await reader.lookupTerms(
    terms.map((t) => t.key),
    { start: 0, end: all.length },
  );
  terms.forEach((term, i) => {
    expect([...bitmaps[i]!]).toEqual(term.ordinals);
  });
}

/** A 60-ledger chunk frozen (from the reference reader) into a fresh directory. */
async function frozenOnDisk() {
  const dir = tempDir('freeze');
  const input = inputOf(60);
  const hot = new InMemoryChunkReader(input);
  await (await freezeInto(dir, hot)).reader.close();
  return { dir, input, hot, names: chunkFileNames(CHUNK), ...storagesIn(dir) };
}

describe('freezeChunk / openChunk', () => {
  it('switches a chunk from hot to cold by its manifest, and a second freeze opens instead of building', async () => {
    const dir = tempDir('freeze');
    const input = inputOf(120);
    const store = hotStoreOf(input, join(dir, 'hot.db'));
    try {
      const location = { chunkId: CHUNK, ...storagesIn(dir) };
      const before = await openChunk({ ...location, hot: () => store.reader() });
      expect(before.tier).toBe('hot');
      const noHot = await rejectionOf(ColdStoreError, () => openChunk(location));
      expect(noHot.code).toBe('NOT_FOUND');

      const first = await freezeInto(dir, store.reader());
      expect(first.frozenNow).toBe(true);
      expect(first.eventCount).toBe(input.ledgers.flat().length);
      expect(first.termCount).toBe(termsOf(input).size);
      await expectServes(first.reader, input);

      const after = await openChunk({ ...location, hot: () => store.reader() });
      expect(after.tier).toBe('cold');
      await expectServes(after.reader, input);
      const again = await freezeInto(dir, store.reader());
      expect(again.frozenNow).toBe(false);
      expect(again.reader.identity).toEqual(first.reader.identity);
      await Promise.all([first.reader.close(), after.reader.close(), again.reader.close()]);
    } finally {
      store.close();
    }
  });

  it('rebuilds over leftovers of an interrupted freeze, which never serve: stale files, garbage, temp files', async () => {
    const { dir, input, hot, names, storage, indexStorage } = await frozenOnDisk();
    // A complete freeze, then its manifest gone (as if killed just before the rename): hot serves.
    await storage.remove(names.manifest);
    expect((await openChunk({ chunkId: CHUNK, storage, indexStorage, hot })).tier).toBe('hot');
    // Garbage in one file and the temp files interrupted writers leave.
    writeFileSync(indexStorage.pathOf(names.indexHash), 'garbage');
    writeFileSync(`${storage.pathOf(names.eventsPack)}.tmp-99-0-1`, 'partial');
    writeFileSync(`${indexStorage.pathOf(names.indexPack)}.tmp-99-0-2`, 'partial');
    const rebuilt = await freezeInto(dir, hot);
    expect(rebuilt.frozenNow).toBe(true);
    await expectServes(rebuilt.reader, input);
    await rebuilt.reader.close();
    const leftovers = [join(dir, 'data'), join(dir, 'index')].flatMap((d) =>
      readdirSync(join(d, '00000')).filter((f) => f.includes('.tmp-')),
    );
    expect(leftovers).toEqual([]);
  });

  it('a manifest whose files are damaged is reported by openChunk, and withdrawn then rebuilt by a freeze', async () => {
    const { dir, input, hot, names, storage, indexStorage } = await frozenOnDisk();
    const path = storage.pathOf(names.eventsPack);
    const bytes = readFileSync(path);
    bytes[bytes.length - 10]! ^= 0x40; // inside the trailer
    writeFileSync(path, bytes);
    const opened = await rejectionOf(ColdStoreError, () => openChunk({ chunkId: CHUNK, storage, indexStorage, hot }));
    expect(opened.code).toBe('CHECKSUM_MISMATCH');
    const rebuilt = await freezeInto(dir, hot);
    expect(rebuilt.frozenNow).toBe(true);
    await expectServes(rebuilt.reader, input);
    await rebuilt.reader.close();
    // Files of another freeze put beside a manifest: refused (the manifest binds its files).
    const other = tempDir('freeze');
    await (await freezeInto(other, hot)).reader.close();
    for (const name of [names.indexPack, names.indexHash]) {
      writeFileSync(indexStorage.pathOf(name), readFileSync(storagesIn(other).indexStorage.pathOf(name)));
    }
    const mixed = await rejectionOf(ColdStoreError, () => openChunk({ chunkId: CHUNK, storage, indexStorage }));
    expect(mixed.code).toBe('CORRUPT');
    expect(mixed.detail).toMatch(/different freezes/);
  });

  it('bounded memory: a tiny budget spills the postings and writes index.pack in many partitions, same index', async () => {
    const input = inputOf(400, 40);
    const hot = new InMemoryChunkReader(input);
    const secret = new Uint8Array(16).fill(7);
    const roomy = await freezeInto(tempDir('freeze'), hot, { secret });
    const dir = tempDir('freeze');
    const tight = await freezeInto(
      dir,
      hot,
      { secret, postingsMemoryBytes: 64 * 1024, scratchDir: dir },
      { logBlockEntries: 1024 },
    );
    expect(roomy.spilledBytes).toBe(0);
    expect(roomy.partitions).toBe(1);
    expect(tight.spilledBytes).toBeGreaterThan(0);
    expect(tight.partitions).toBeGreaterThan(3);
    // The same secret gives the same slots: index.pack holds the same items (its content hash), events.pack too.
    expect(tight.reader.identity.indexContentHash).toEqual(roomy.reader.identity.indexContentHash);
    expect(tight.reader.identity.eventsContentHash).toEqual(roomy.reader.identity.eventsContentHash);
    await expectServes(tight.reader, input);
    expect(readdirSync(dir).filter((f) => f.endsWith('.postings'))).toEqual([]); // scratch removed
    await Promise.all([roomy.reader.close(), tight.reader.close()]);
  });

  it('terms past 65,536 ordinals (compared as roaring sets) verify, and a wrong one is caught', async () => {
    // 2,000 ledgers of 40 events: the contract-event type term holds about 72,000 ordinals.
    const ledgers = Array.from({ length: 2_000 }, (_, i) => syntheticLedger(9, FIRST + i, 40, 40));
    const input = { startLedger: FIRST, ledgers };
    const hot = new InMemoryChunkReader(input);
    // Term ids are given in order of first appearance (the Map's insertion order).
    const terms = termsOf(input);
    const dense = termKeyHex(eventTypeTermKey(1));
    const denseId = [...terms.keys()].indexOf(dense);
    expect(terms.get(dense)!.ordinals.length).toBeGreaterThan(65_536);
    const good = await freezeInto(tempDir('freeze'), hot);
    const [bitmap] = await good.reader.lookupTerms([eventTypeTermKey(1)], { start: 0, end: hot.eventCount() });
    expect([...bitmap!]).toEqual(terms.get(dense)!.ordinals);
    await good.reader.close();
    const error = await rejectionOf(ColdStoreError, () =>
      freezeInto(tempDir('freeze'), hot, {}, { dropOrdinalOfTerm: denseId }),
    );
    expect(error.code).toBe('VERIFY_FAILED');
  });

  it('verification catches a wrong bitmap or list, a wrong fingerprint and a wrong payload; nothing is left behind', async () => {
    const input = inputOf(80);
    const hot = new InMemoryChunkReader(input);
    const names = chunkFileNames(CHUNK);
    // A term stored as a delta list and one stored as a bitmap (term ids are in order of first appearance), each
    // with more than one ordinal so one can be dropped.
    const terms = [...termsOf(input).values()];
    const storedAsList = (ordinals: number[]) => {
      const values = Uint32Array.from(ordinals);
      const writer = new IndexItemWriter();
      const out = new Uint8Array(writer.plan(values, 0, values.length));
      writer.write(values, 0, values.length, out, 0);
      return out[0] !== 0;
    };
    const listTerm = terms.findIndex((t) => t.ordinals.length > 1 && storedAsList(t.ordinals));
    const bitmapTerm = terms.findIndex((t) => t.ordinals.length > 1 && !storedAsList(t.ordinals));
    expect(listTerm).toBeGreaterThanOrEqual(0);
    expect(bitmapTerm).toBeGreaterThanOrEqual(0);
    const cases = [
      { seams: { dropOrdinalOfTerm: listTerm }, code: 'VERIFY_FAILED' },
      { seams: { dropOrdinalOfTerm: bitmapTerm }, code: 'VERIFY_FAILED' },
      { seams: { wrongFingerprintOfTerm: 3 }, code: 'FINGERPRINT_MISMATCH' },
      { seams: { writtenMphfSeed: 99 }, code: 'VERIFY_FAILED' }, // index.hash routes terms to other slots
      { seams: { flipPayload: 17 }, code: 'VERIFY_FAILED' },
      { seams: { flipPayload: 17, dictionaryBytes: 1024 }, code: 'VERIFY_FAILED' },
    ] as const;
    for (const { seams, code } of cases) {
      const dir = tempDir('freeze');
      const error = await rejectionOf(ColdStoreError, () => freezeInto(dir, hot, {}, seams));
      expect(error.code, JSON.stringify(seams)).toBe(code);
      const { storage, indexStorage } = storagesIn(dir);
      for (const [s, name] of [
        [storage, names.manifest],
        [storage, names.eventsPack],
        [indexStorage, names.indexPack],
        [indexStorage, names.indexHash],
      ] as const) {
        expect(await s.exists(name), name).toBe(false);
      }
      expect((await openChunk({ chunkId: CHUNK, storage, indexStorage, hot })).tier).toBe('hot');
    }
  });

  it("a chunk frozen with a dictionary in events.pack serves whole, from the freeze's reader and a reopened one", async () => {
    const input = inputOf(120);
    const hot = new InMemoryChunkReader(input);
    const plain = await freezeInto(tempDir('freeze'), hot, {}, { dictionaryBytes: 0 });
    const dir = tempDir('freeze');
    const withDictionary = await freezeInto(dir, hot, {}, { dictionaryBytes: 2048 });
    await expectServes(withDictionary.reader, input);
    // The same payloads (content hash), and the dictionary is in the file: 2 KiB more, less what it saves.
    expect(withDictionary.reader.identity.eventsContentHash).toEqual(plain.reader.identity.eventsContentHash);
    const pack = readFileSync(storagesIn(dir).storage.pathOf(chunkFileNames(CHUNK).eventsPack));
    expect(pack.readUInt32LE(pack.length - TRAILER_BYTES + TrailerField.dictionarySize)).toBe(2048);
    await Promise.all([plain.reader.close(), withDictionary.reader.close()]);
    // A reopen reads it back (a fresh reader, not the freeze's).
    const reopened = await openChunk({ chunkId: CHUNK, ...storagesIn(dir) });
    await expectServes(reopened.reader, input);
    await reopened.reader.close();
  });

  it('negative control: without verification a wrong bitmap or MPHF is switched to, and the engine answers differently', async () => {
    const input = inputOf(80);
    const hot = new InMemoryChunkReader(input);
    // Term id 0 is the first term of event 0: its type term. Dropping that term's first ordinal loses event 0 from
    // every query on its type.
    const dir = tempDir('freeze');
    const broken = await freezeInto(dir, hot, {}, { dropOrdinalOfTerm: 0, skipVerify: true });
    const type = viewPayload(input.ledgers.flat()[0]!).type;
    const filters = [{ eventType: type, topics: [], topicCount: { count: 0, exact: false } }];
    const window = { start: 0, end: hot.eventCount() };
    const run = async (reader: ChunkReader) => {
      const out: number[] = [];
      for await (const m of matchEvents(reader, planQuery(filters), compilePostFilter(filters), window, {
        direction: 'asc',
        firstBatch: 1000,
      })) {
        out.push(m.ordinal);
      }
      return out;
    };
    const want = await run(hot);
    const got = await run(broken.reader);
    expect(want[0]).toBe(0);
    expect(got).toEqual(want.slice(1));
    expect((await openChunk({ chunkId: CHUNK, ...storagesIn(dir), hot })).tier).toBe('cold');
    await broken.reader.close();
    // An index.hash of another MPHF than the slots were computed with, unverified: terms route to other slots,
    // whose fingerprints do not match, so the engine finds nothing (or something else) where the hot chunk answers.
    const misrouted = await freezeInto(tempDir('freeze'), hot, {}, { writtenMphfSeed: 99, skipVerify: true });
    expect(await run(misrouted.reader)).not.toEqual(want);
    await misrouted.reader.close();
  });

  it('writes events.pack records of eventsPerRecord events (default DEFAULT_EVENTS_PER_RECORD), each serving alike', async () => {
    const input = inputOf(40);
    const hot = new InMemoryChunkReader(input);
    const events = input.ledgers.flat().length;
    const sizes = new Map<number, number>();
    for (const eventsPerRecord of [undefined, 1, 7, 128]) {
      const dir = tempDir('freeze-epr');
      const { reader, bytes } = await freezeInto(dir, hot, eventsPerRecord === undefined ? {} : { eventsPerRecord });
      await expectServes(reader, input);
      await reader.close();
      const pack = await PackfileReader.open(
        await storagesIn(dir).storage.open(chunkFileNames(CHUNK).eventsPack),
        EVENTS_PACK_FORMAT_ID,
      );
      const want = eventsPerRecord ?? DEFAULT_EVENTS_PER_RECORD;
      expect(pack.itemsPerRecord).toBe(want);
      expect(pack.recordCount).toBe(Math.ceil(events / want));
      await pack.close();
      sizes.set(want, bytes.eventsPack);
    }
    // One event a record stores a frame and a footer per event: larger than records of 128.
    expect(sizes.get(1)).toBeGreaterThan(sizes.get(128)!);
  });

  it('checks its options (INVALID_ARGUMENT) and reports the hot reader answering the wrong events', async () => {
    const dir = tempDir('freeze');
    const hot = new InMemoryChunkReader(inputOf(10));
    const { storage } = storagesIn(dir);
    for (const bad of [
      { hot: {} },
      { hot, storage: {} },
      { hot, storage, secret: new Uint8Array(15) },
      { hot, storage, postingsMemoryBytes: 1024 },
      { hot, storage, compressionLevel: 99 },
      { hot, storage, eventsPerRecord: 0 },
      { hot, storage, eventsPerRecord: 65_537 },
      { hot, storage, eventsPerRecord: 2.5 },
      { hot, storage, scratchDir: '' },
    ]) {
      const error = await rejectionOf(ColdStoreError, () =>
        freezeInto(dir, (bad as { hot: ChunkReader }).hot, bad as never),
      );
      expect(error.code, JSON.stringify(Object.keys(bad))).toBe('INVALID_ARGUMENT');
    }
    const liar: ChunkReader = Object.assign(Object.create(hot) as ChunkReader, {
      fetchRange: async () => [],
    });
    const lied = await rejectionOf(ColdStoreError, () => freezeInto(dir, liar));
    expect(lied.code).toBe('VERIFY_FAILED');
    expect(errorOf(ColdStoreError, () => chunkFileNames(-1)).code).toBe('INVALID_ARGUMENT');
    await expect(ColdChunkReader.open({ chunkId: CHUNK, ...storagesIn(dir) })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
