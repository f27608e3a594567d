// Every error code the chunk layer reports, each from the smallest input that causes it: damaged, foreign or
// mismatched chunk files (crafted with the format's own encoders so only the one fault is present), files over the
// mapping limit, missing files, use after close, bad arguments, and freezes that cannot build or do not verify.
// Reader methods keep the ChunkReader contract: bad arguments are EventsError INVALID_ARGUMENT.
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { deriveTerms, EventsError, LedgerOffsets } from '@strata/events';
import { errorOf, rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { encodeEventsAppData, encodeIndexAppData } from '../src/chunk/app-data.js';
import { freezeChunkWith } from '../src/chunk/freeze.js';
import { decodeManifest, encodeManifest } from '../src/chunk/manifest.js';
import {
  ColdChunkReader,
  ColdStoreError,
  chunkFileNames,
  EVENTS_PACK_FORMAT_ID,
  INDEX_PACK_FORMAT_ID,
  LocalStorage,
  MAX_FETCH_EVENTS,
  MAX_LOOKUP_TERMS,
  MAX_MAPPED_FILE_BYTES,
  openChunk,
  PackfileReader,
  PackfileWriter,
  type Storage,
} from '../src/index.js';
import { type ChunkInput, copyToDisk, InMemoryChunkReader, MemoryStorage } from './chunk-support.js';

const CHUNK = 14;
const FIRST = CHUNK * 10_000 + 2 + 7;
const NAMES = chunkFileNames(CHUNK);

const input: ChunkInput = {
  startLedger: FIRST,
  ledgers: Array.from({ length: 10 }, (_, i) => syntheticLedger(3, FIRST + i, 8)),
};

interface Chunk {
  storage: MemoryStorage;
  indexStorage: MemoryStorage;
}

async function frozen(): Promise<Chunk> {
  const chunk = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
  await (await freezeChunkWith({ hot: new InMemoryChunkReader(input), ...chunk }, {})).reader.close();
  return chunk;
}

const open = (chunk: Chunk, chunkId = CHUNK) => ColdChunkReader.open({ chunkId, ...chunk });
const codeOf = async (call: () => Promise<unknown>) => (await rejectionOf(ColdStoreError, call)).code;

/** A copy of file `name` with `edit` applied; `recrc` recomputes index.hash's header CRC (bytes 0..60 → 60). */
function edited(storage: MemoryStorage, name: string, edit: (bytes: Uint8Array) => void, recrc = false): void {
  const bytes = new Uint8Array(storage.files.get(name)!);
  edit(bytes);
  if (recrc) new DataView(bytes.buffer).setUint32(60, crc32c(bytes.subarray(0, 60)), true);
  storage.files.set(name, bytes);
}

/** Rewrites a pack with the same items and app data except what `change` replaces (and its format id). */
async function rewritePack(
  storage: Storage,
  name: string,
  formatId: number,
  change: (items: Uint8Array[], appData: Uint8Array) => { items?: Uint8Array[]; appData?: Uint8Array },
  codec: 'zstd' | 'none',
  newFormatId = formatId,
): Promise<void> {
  const reader = await PackfileReader.open(await storage.open(name), formatId);
  const items = await reader.readRange(0, reader.itemCount);
  const appData = reader.appData.slice();
  await reader.close();
  const next = change(items, appData);
  const writer = await PackfileWriter.create(storage, name, { formatId: newFormatId, codec });
  for (const item of next.items ?? items) await writer.add(item);
  await writer.finish(next.appData ?? appData);
}

describe('chunk errors', () => {
  it('BAD_MAGIC, BAD_VERSION, BAD_FORMAT of index.hash, the manifest and the packs', async () => {
    let chunk = await frozen();
    edited(chunk.indexStorage, NAMES.indexHash, (b) => {
      b[0] = 0x58;
    });
    expect(await codeOf(() => open(chunk))).toBe('BAD_MAGIC');
    chunk = await frozen();
    edited(chunk.indexStorage, NAMES.indexHash, (b) => {
      b[4] = 2;
    });
    expect(await codeOf(() => open(chunk))).toBe('BAD_VERSION');
    chunk = await frozen();
    edited(
      chunk.indexStorage,
      NAMES.indexHash,
      (b) => {
        b[44] = 9; // term schema
      },
      true,
    );
    expect(await codeOf(() => open(chunk))).toBe('BAD_VERSION');
    chunk = await frozen();
    edited(
      chunk.indexStorage,
      NAMES.indexHash,
      (b) => {
        b[6] = 1; // flags
      },
      true,
    );
    expect(await codeOf(() => open(chunk))).toBe('BAD_FORMAT');
    // A pack of the other kind under events.pack's name: its format id.
    chunk = await frozen();
    chunk.storage.files.set(NAMES.eventsPack, chunk.indexStorage.files.get(NAMES.indexPack)!);
    expect(await codeOf(() => open(chunk))).toBe('BAD_FORMAT');
    // An index.pack of the first item layout (format id 0x53544901: no codec byte), which this build no longer reads.
    chunk = await frozen();
    await rewritePack(chunk.indexStorage, NAMES.indexPack, INDEX_PACK_FORMAT_ID, () => ({}), 'none', 0x5354_4901);
    const oldIndex = await rejectionOf(ColdStoreError, () => open(chunk));
    expect([oldIndex.code, oldIndex.field]).toEqual(['BAD_FORMAT', 'trailer.formatId']);
    // App data of another version, or another term schema.
    chunk = await frozen();
    await rewritePack(
      chunk.storage,
      NAMES.eventsPack,
      EVENTS_PACK_FORMAT_ID,
      (_, app) => ({
        appData: Uint8Array.of(9, ...app.subarray(1)),
      }),
      'zstd',
    );
    expect(await codeOf(() => open(chunk))).toBe('BAD_VERSION');
    chunk = await frozen();
    await rewritePack(
      chunk.indexStorage,
      NAMES.indexPack,
      INDEX_PACK_FORMAT_ID,
      (_, app) => {
        const next = app.slice();
        next[9] = 2; // term schema u16 LE after version and build id
        return { appData: next };
      },
      'none',
    );
    expect(await codeOf(() => open(chunk))).toBe('BAD_VERSION');
    // The manifest.
    for (const [at, value, code] of [
      [0, 0x00, 'BAD_MAGIC'],
      [4, 0x07, 'BAD_VERSION'],
      [100, 0x01, 'CHECKSUM_MISMATCH'],
    ] as const) {
      chunk = await frozen();
      edited(chunk.storage, NAMES.manifest, (b) => {
        b[at]! ^= value === 0 ? 0xff : value;
      });
      expect(await codeOf(() => openChunk({ chunkId: CHUNK, ...chunk })), `manifest byte ${at}`).toBe(code);
    }
  });

  it('CHECKSUM_MISMATCH and TRUNCATED of index.hash; TRUNCATED manifests', async () => {
    for (const at of [30, 64, 70]) {
      const chunk = await frozen();
      edited(chunk.indexStorage, NAMES.indexHash, (b) => {
        b[at]! ^= 0x10; // the secret (header CRC), the MPHF's first and seventh byte (its CRC)
      });
      expect(await codeOf(() => open(chunk)), `byte ${at}`).toBe('CHECKSUM_MISMATCH');
    }
    let chunk = await frozen();
    const whole = chunk.indexStorage.files.get(NAMES.indexHash)!;
    for (const length of [0, 10, 63, whole.length - 1]) {
      chunk.indexStorage.files.set(NAMES.indexHash, whole.subarray(0, length));
      expect(await codeOf(() => open(chunk)), `cut to ${length}`).toBe('TRUNCATED');
    }
    chunk.indexStorage.files.set(NAMES.indexHash, Uint8Array.of(...whole, 0));
    expect(await codeOf(() => open(chunk))).toBe('CORRUPT');
    chunk = await frozen();
    chunk.storage.files.set(NAMES.manifest, chunk.storage.files.get(NAMES.manifest)!.subarray(0, 100));
    expect(await codeOf(() => openChunk({ chunkId: CHUNK, ...chunk }))).toBe('TRUNCATED');
  });

  it('CORRUPT: files that contradict each other or the chunk, a manifest of other files, a damaged bitmap', async () => {
    // Another chunk's files under this chunk's names: its LedgerOffsets lie outside.
    let chunk = await frozen();
    const other = chunkFileNames(CHUNK + 1);
    const moved = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
    moved.storage.files.set(other.eventsPack, chunk.storage.files.get(NAMES.eventsPack)!);
    moved.indexStorage.files.set(other.indexPack, chunk.indexStorage.files.get(NAMES.indexPack)!);
    moved.indexStorage.files.set(other.indexHash, chunk.indexStorage.files.get(NAMES.indexHash)!);
    const outside = await rejectionOf(ColdStoreError, () => open(moved, CHUNK + 1));
    expect(outside.code).toBe('CORRUPT');
    expect(outside.detail).toMatch(/outside chunk/);
    // An index.hash that names another chunk (its header CRC recomputed).
    chunk = await frozen();
    edited(
      chunk.indexStorage,
      NAMES.indexHash,
      (b) => {
        b[8]! ^= 1;
      },
      true,
    );
    expect((await rejectionOf(ColdStoreError, () => open(chunk))).detail).toMatch(/holds chunk/);
    // Two freezes mixed: the build ids differ.
    chunk = await frozen();
    const second = await frozen();
    chunk.indexStorage.files.set(NAMES.indexHash, second.indexStorage.files.get(NAMES.indexHash)!);
    expect((await rejectionOf(ColdStoreError, () => open(chunk))).detail).toMatch(/different freezes/);
    // One index.pack item more than the MPHF has keys.
    chunk = await frozen();
    await rewritePack(
      chunk.indexStorage,
      NAMES.indexPack,
      INDEX_PACK_FORMAT_ID,
      (items) => ({
        items: [...items, items[0]!],
      }),
      'none',
    );
    expect((await rejectionOf(ColdStoreError, () => open(chunk))).detail).toMatch(/items for an MPHF/);
    // Events but an empty index: the index of an eventless freeze, given this chunk's build id.
    chunk = await frozen();
    const reader = await open(chunk);
    const buildId = reader.identity.buildId;
    await reader.close();
    const empty = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
    const emptyInput = { startLedger: FIRST, ledgers: [[], []] };
    await (await freezeChunkWith({ hot: new InMemoryChunkReader(emptyInput), ...empty }, {})).reader.close();
    const emptyHash = empty.indexStorage.files.get(NAMES.indexHash)!.slice();
    emptyHash.set(buildId, 16);
    new DataView(emptyHash.buffer).setUint32(60, crc32c(emptyHash.subarray(0, 60)), true);
    chunk.indexStorage.files.set(NAMES.indexHash, emptyHash);
    await rewritePack(chunk.indexStorage, NAMES.indexPack, INDEX_PACK_FORMAT_ID, () => ({ items: [] }), 'none');
    expect((await rejectionOf(ColdStoreError, () => open(chunk))).detail).toMatch(/empty exactly when/);
    // LedgerOffsets counting other events than the pack holds.
    chunk = await frozen();
    await rewritePack(
      chunk.storage,
      NAMES.eventsPack,
      EVENTS_PACK_FORMAT_ID,
      (items, app) => ({
        appData: encodeEventsAppData(app.subarray(1, 9), LedgerOffsets.fromCounts(FIRST, [items.length + 1])),
      }),
      'zstd',
    );
    expect((await rejectionOf(ColdStoreError, () => open(chunk))).detail).toMatch(/the pack holds/);
    // A manifest of other sizes: the files are not the manifest's.
    chunk = await frozen();
    const manifest = decodeManifest(chunk.storage.files.get(NAMES.manifest)!, 'm', CHUNK);
    chunk.storage.files.set(
      NAMES.manifest,
      encodeManifest({ ...manifest, eventsPackBytes: manifest.eventsPackBytes + 1 }),
    );
    const mismatch = await rejectionOf(ColdStoreError, () => openChunk({ chunkId: CHUNK, ...chunk }));
    expect(mismatch.code).toBe('CORRUPT');
    expect(mismatch.detail).toMatch(/do not match its manifest/);
    // A bitmap whose headers run past its item, and a delta list of an unknown codec (their records' CRCs
    // recomputed by the rewrite): reported by the lookup of the term that lands there, never handed to a frozen view.
    const keys = input.ledgers.flat().flatMap((p) => deriveTerms(p));
    for (const [codec, field] of [
      ['bitmap', 'bitmap'],
      ['list', 'ordinal list'],
    ] as const) {
      chunk = await frozen();
      const probe = await open(chunk);
      const items = await probe.readIndexItems(0, probe.identity.termCount);
      const slot = items.findIndex((item) => (item[4] === 0) === (codec === 'bitmap')); // byte 4: the item codec
      const key = keys.find((k) => probe.route(k).slot === slot)!;
      await probe.close();
      await rewritePack(
        chunk.indexStorage,
        NAMES.indexPack,
        INDEX_PACK_FORMAT_ID,
        (all) => {
          const item = all[slot]!.slice();
          // A bitmap: its first container's cardinality, far more values than the item holds. A list: a codec byte
          // no writer writes (the first ordinal's width is 1 to 4 bytes).
          if (codec === 'bitmap') item[5 + 4 + 1 + 2] = 0xff;
          else item[4] = 5;
          return { items: all.map((other, i) => (i === slot ? item : other)) };
        },
        'none',
      );
      const damaged = await open(chunk);
      const error = await rejectionOf(ColdStoreError, () => damaged.lookupTerms([key], { start: 0, end: 1 }));
      expect(error.code).toBe('CORRUPT');
      expect(error.field).toBe(field);
      await damaged.close();
    }
    expect(encodeIndexAppData(buildId).length).toBe(19);
  });

  it('FILE_TOO_LARGE, NOT_FOUND and IO from local files', async () => {
    const dir = tempDir('errors');
    const chunk = await frozen();
    copyToDisk(chunk.storage, join(dir, 'data'));
    copyToDisk(chunk.indexStorage, join(dir, 'index'));
    const location = {
      chunkId: CHUNK,
      storage: new LocalStorage(join(dir, 'data')),
      indexStorage: new LocalStorage(join(dir, 'index')),
    };
    const hashPath = location.indexStorage.pathOf(NAMES.indexHash);
    truncateSync(hashPath, MAX_MAPPED_FILE_BYTES + 1); // sparse: nothing written
    expect(await codeOf(() => ColdChunkReader.open(location))).toBe('FILE_TOO_LARGE');
    await location.indexStorage.remove(NAMES.indexHash);
    expect(await codeOf(() => ColdChunkReader.open(location))).toBe('NOT_FOUND');
    mkdirSync(hashPath);
    expect(await codeOf(() => ColdChunkReader.open(location))).toBe('IO');
    expect(await codeOf(() => openChunk({ chunkId: CHUNK + 5, storage: location.storage }))).toBe('NOT_FOUND');
    writeFileSync(join(dir, 'unused'), '');
  });

  it('CLOSED after close; INVALID_ARGUMENT for options; EventsError for bad reader arguments', async () => {
    const chunk = await frozen();
    const reader = await open(chunk);
    const key = deriveTerms(input.ledgers.flat()[0]!)[0]!;
    await expect(reader.lookupTerms([new Uint8Array(15)], { start: 0, end: 1 })).rejects.toBeInstanceOf(EventsError);
    await expect(reader.lookupTerms('x' as never, { start: 0, end: 1 })).rejects.toBeInstanceOf(EventsError);
    await expect(
      reader.lookupTerms(new Array(MAX_LOOKUP_TERMS + 1).fill(key), { start: 0, end: 1 }),
    ).rejects.toBeInstanceOf(EventsError);
    await expect(reader.fetchEvents(new Array(MAX_FETCH_EVENTS + 1).fill(0))).rejects.toBeInstanceOf(EventsError);
    await expect(reader.fetchEvents([0.5])).rejects.toBeInstanceOf(EventsError);
    await expect(reader.fetchRange({ start: 1, end: 0 })).rejects.toBeInstanceOf(EventsError);
    await reader.close();
    await reader.close(); // idempotent
    expect(errorOf(ColdStoreError, () => reader.eventCount()).code).toBe('CLOSED');
    expect(errorOf(ColdStoreError, () => reader.ledgerOffsets()).code).toBe('CLOSED');
    expect(await codeOf(() => reader.lookupTerms([key], { start: 0, end: 1 }))).toBe('CLOSED');
    expect(await codeOf(() => reader.fetchEvents([0]))).toBe('CLOSED');
    for (const bad of [
      { chunkId: -1, ...chunk },
      { chunkId: 1.5, ...chunk },
      { chunkId: CHUNK, storage: {} },
      { chunkId: CHUNK, ...chunk, indexStorage: 'dir' },
      { chunkId: CHUNK, ...chunk, read: { concurrency: 0 } },
      { chunkId: CHUNK, ...chunk, read: { concurrency: 65 } },
      { chunkId: CHUNK, ...chunk, read: { maxBatchBytes: 0 } },
      { chunkId: CHUNK, ...chunk, read: 'fast' },
    ]) {
      expect(await codeOf(() => ColdChunkReader.open(bad as never)), JSON.stringify(bad)).toBe('INVALID_ARGUMENT');
    }
    expect(await codeOf(() => ColdChunkReader.open(null as never))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(() => openChunk({ chunkId: CHUNK, ...chunk, hot: 5 as never }))).toBe('INVALID_ARGUMENT');
  });

  it('BUILD_FAILED, VERIFY_FAILED and FINGERPRINT_MISMATCH from freezes', async () => {
    const hot = new InMemoryChunkReader(input);
    const freeze = (seams: Parameters<typeof freezeChunkWith>[1]) =>
      codeOf(() => freezeChunkWith({ hot, storage: new MemoryStorage(), indexStorage: new MemoryStorage() }, seams));
    expect(await freeze({ mphfOptions: { alpha: 1, lambda: 8, maxAttempts: 1 } })).toBe('BUILD_FAILED');
    expect(await freeze({ dropOrdinalOfTerm: 2 })).toBe('VERIFY_FAILED');
    expect(await freeze({ flipPayload: 0 })).toBe('VERIFY_FAILED');
    expect(await freeze({ wrongFingerprintOfTerm: 1 })).toBe('FINGERPRINT_MISMATCH');
  });
});
