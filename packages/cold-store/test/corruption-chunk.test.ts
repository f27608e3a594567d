// Damaged cold files are reported, never answered. For a small frozen chunk, every byte of each of its four files
// (events.pack, index.pack, index.hash, the manifest) is flipped in turn (one bit, a different one per offset) and
// the chunk opened through openChunk and read whole: every payload (fetchRange, fetchEvents), every term and some
// absent ones (lookupTerms over several windows). Each trial must either reject with ColdStoreError (at open or at
// the read that meets the damage) or answer exactly what the undamaged chunk answers — never another answer, never
// another error, never a crash or a hang. With every byte under a checksum, every flip is in fact detected.
// For a larger chunk, random bytes of each file are flipped the same way, through real files and mappings, and
// truncations and extensions of each file are refused. Both chunks' events.pack carry a zstd dictionary (forced: the
// default rule gives one to chunks of 4,096 events and more), so its bytes are flipped too.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChunkReader } from '@strata/events';
import { seededRandom, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { syntheticLedger } from '../../hot-store/test/support.js';
import { freezeChunkWith } from '../src/chunk/freeze.js';
import { ColdChunkReader, ColdStoreError, chunkFileNames, openChunk, type Storage } from '../src/index.js';
import { PackCodec, TRAILER_BYTES, TrailerField } from '../src/packfile/format.js';
import {
  type ChunkInput,
  copyToDisk,
  InMemoryChunkReader,
  MemoryStorage,
  storagesIn,
  termsOfPayloads,
} from './chunk-support.js';

const CHUNK = 13;
const FIRST = CHUNK * 10_000 + 2 + 40;
const NAMES = chunkFileNames(CHUNK);

function inputOf(ledgers: number, maxEvents: number): ChunkInput {
  return {
    startLedger: FIRST,
    ledgers: Array.from({ length: ledgers }, (_, i) => syntheticLedger(41, FIRST + i, maxEvents)),
  };
}

interface Oracle {
  readonly payloads: Uint8Array[];
  readonly keys: Uint8Array[];
  /** For each key, its ordinals (empty for the absent keys at the end). */
  readonly ordinals: number[][];
}

function oracleOf(input: ChunkInput): Oracle {
  const payloads = input.ledgers.flat();
  const terms = termsOfPayloads(payloads);
  const absent = [0x11, 0xee, 0x5a].map((b) => new Uint8Array(16).fill(b));
  return {
    payloads,
    keys: [...[...terms.values()].map((t) => t.key), ...absent],
    ordinals: [...[...terms.values()].map((t) => t.ordinals), ...absent.map(() => [])],
  };
}

/** Reads everything; throws on the first answer that differs from the oracle. */
async function readWhole(reader: ChunkReader, oracle: Oracle): Promise<void> {
  const n = oracle.payloads.length;
  if (reader.eventCount() !== n) throw new Error(`eventCount ${reader.eventCount()}`);
  const all = await reader.fetchRange({ start: 0, end: n });
  all.forEach((e, i) => {
    if (e.ordinal !== i || Buffer.compare(e.payload, oracle.payloads[i]!) !== 0) throw new Error(`event ${i}`);
  });
  const picks = Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 === 1);
  const fetched = await reader.fetchEvents(picks);
  picks.forEach((o, i) => {
    if (Buffer.compare(fetched[i]!, oracle.payloads[o]!) !== 0) throw new Error(`fetched ${o}`);
  });
  for (const window of [
    { start: 0, end: n },
    { start: Math.floor(n / 3), end: Math.floor((2 * n) / 3) },
  ]) {
    const bitmaps = await reader.lookupTerms(oracle.keys, window);
    oracle.keys.forEach((_, k) => {
      const want = oracle.ordinals[k]!.filter((o) => o >= window.start && o < window.end);
      const bitmap = bitmaps[k];
      const got = bitmap === undefined ? [] : [...bitmap].filter((o) => o >= window.start && o < window.end);
      if (got.length !== want.length || got.some((o, i) => o !== want[i])) throw new Error(`term ${k}`);
    });
  }
}

/** One trial: open and read all; 'detected' (a ColdStoreError), or 'correct'; anything else fails the test. */
async function trial(
  location: { chunkId: number; storage: Storage; indexStorage: Storage },
  oracle: Oracle,
): Promise<'detected' | 'correct'> {
  let reader: ChunkReader | undefined;
  try {
    const opened = await openChunk(location);
    expect(opened.tier).toBe('cold');
    reader = opened.reader;
    await readWhole(reader, oracle);
    return 'correct';
  } catch (error) {
    if (error instanceof ColdStoreError) return 'detected';
    throw error;
  } finally {
    await reader?.close();
  }
}

/** Freezes `input` into memory storages with a dictionary of `dictionaryBytes` in events.pack (checked there). */
async function frozenWithDictionary(input: ChunkInput, dictionaryBytes: number) {
  const storages = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
  const frozen = await freezeChunkWith({ hot: new InMemoryChunkReader(input), ...storages }, { dictionaryBytes });
  await frozen.reader.close();
  const pack = storages.storage.files.get(NAMES.eventsPack)!;
  const trailer = pack.length - TRAILER_BYTES;
  expect(pack[trailer + TrailerField.codec]).toBe(PackCodec.zstdDictionary);
  expect(new DataView(pack.buffer, pack.byteOffset).getUint32(trailer + TrailerField.dictionarySize, true)).toBe(
    dictionaryBytes,
  );
  return storages;
}

/** The name's storage in a pair of memory storages (events.pack and the manifest in data, the rest in index). */
function holder(storages: { storage: MemoryStorage; indexStorage: MemoryStorage }, name: string): MemoryStorage {
  return name === NAMES.eventsPack || name === NAMES.manifest ? storages.storage : storages.indexStorage;
}

describe('corrupt cold files are detected, never answered', () => {
  it('every byte of every file of a small chunk, flipped', async () => {
    const input = inputOf(12, 6); // 37 events: one of its terms is dense enough to be a bitmap
    const oracle = oracleOf(input);
    const storages = await frozenWithDictionary(input, 200);
    const location = { chunkId: CHUNK, ...storages };
    // Not vacuous: index.pack holds items of both kinds, bitmaps (codec byte 0) and delta lists (1..4).
    const probe = await ColdChunkReader.open(location);
    const codecs = new Set((await probe.readIndexItems(0, probe.identity.termCount)).map((item) => item[4] === 0));
    await probe.close();
    expect([...codecs].sort()).toEqual([false, true]);
    expect(await trial(location, oracle)).toBe('correct');
    const sizes: Record<string, number> = {};
    for (const name of [NAMES.eventsPack, NAMES.indexPack, NAMES.indexHash, NAMES.manifest]) {
      const store = holder(storages, name);
      const original = store.files.get(name)!;
      sizes[name] = original.length;
      let detected = 0;
      for (let at = 0; at < original.length; at++) {
        const damaged = original.slice();
        damaged[at]! ^= 1 << (at % 8);
        store.files.set(name, damaged);
        if ((await trial(location, oracle)) === 'detected') detected++;
      }
      store.files.set(name, original);
      expect(detected, `${name}: flips detected of ${original.length}`).toBe(original.length);
    }
    // Not vacuous: the chunk has events, terms, and files of some size.
    expect(oracle.payloads.length).toBeGreaterThan(10);
    expect(sizes[NAMES.eventsPack]).toBeGreaterThan(500);
    expect(sizes[NAMES.indexPack]).toBeGreaterThan(300);
  }, 120_000);

  it('random bytes of a larger chunk in real mapped files, and truncations and extensions', async () => {
    const input = inputOf(150, 30);
    const oracle = oracleOf(input);
    const dir = tempDir('corrupt');
    const memory = await frozenWithDictionary(input, 4096);
    copyToDisk(memory.storage, join(dir, 'data'));
    copyToDisk(memory.indexStorage, join(dir, 'index'));
    const { storage, indexStorage } = storagesIn(dir);
    const location = { chunkId: CHUNK, storage, indexStorage };
    expect(await trial(location, oracle)).toBe('correct');
    const random = seededRandom(77);
    // Replaced by rename, never rewritten in place: an earlier trial's mapping keeps its own (old) file.
    const replace = (path: string, bytes: Uint8Array) => {
      writeFileSync(`${path}.next`, bytes);
      renameSync(`${path}.next`, path);
    };
    for (const name of [NAMES.eventsPack, NAMES.indexPack, NAMES.indexHash, NAMES.manifest]) {
      const path = (holder(memory, name) === memory.storage ? storage : indexStorage).pathOf(name);
      const original = readFileSync(path);
      const offsets = [
        ...Array.from({ length: 60 }, () => Math.floor(random() * original.length)),
        ...Array.from({ length: 10 }, (_, i) => original.length - 1 - i),
      ];
      for (const at of offsets) {
        const damaged = Uint8Array.from(original);
        damaged[at]! ^= 1 << Math.floor(random() * 8);
        replace(path, damaged);
        expect(await trial(location, oracle), `${name} byte ${at}`).toBe('detected');
      }
      for (const length of [0, 1, original.length - 1, Math.floor(original.length / 2)]) {
        replace(path, original.subarray(0, length));
        expect(await trial(location, oracle), `${name} cut to ${length}`).toBe('detected');
      }
      replace(path, Buffer.concat([original, Buffer.from([0])]));
      expect(await trial(location, oracle), `${name} extended`).toBe('detected');
      replace(path, original);
    }
    expect(await trial(location, oracle)).toBe('correct');
  }, 120_000);

  it('negative control: consistent but wrong files (an unverified freeze that dropped an ordinal) fail a trial', async () => {
    const input = inputOf(8, 6);
    const storages = { storage: new MemoryStorage(), indexStorage: new MemoryStorage() };
    const frozen = await freezeChunkWith(
      { hot: new InMemoryChunkReader(input), ...storages },
      { dropOrdinalOfTerm: 0, skipVerify: true },
    );
    await frozen.reader.close();
    await expect(trial({ chunkId: CHUNK, ...storages }, oracleOf(input))).rejects.toThrow(/term/);
  });
});
