// Damaged packfiles are detected, never served: every byte of a pack is under some CRC32C (records, offset index,
// app data, trailer), so a changed byte fails open or the read of its record with a ColdStoreError naming the file —
// never a wrong item, a crash or a hang. Cases: each byte of small packs flipped (three patterns), random multi-byte
// damage of a larger pack, truncation at every length, and well-formed trailers of the wrong magic, version or id.
// Packs with a dictionary (codec 2) take every test too: its bytes are under their own CRC32C in the trailer.
// Each damaged pack is read both ways a reader reads records: from the file's mapping and with storage reads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { rejectionOf, seededRandom, tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { ColdStoreError, ColdStoreErrorCode } from '../src/errors.ts';
import { PACKFILE_VERSION, TRAILER_BYTES, TrailerField } from '../src/packfile/format.ts';
import { __faults, PackfileReader } from '../src/packfile/reader.ts';
import { __dictionaryFaults } from '../src/packfile/record.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import { FORMAT_ID, makeItems, withoutMapping, writeBytes, writePack } from './packfile-support.ts';

const DETECTED: readonly string[] = [
  ColdStoreErrorCode.BAD_MAGIC,
  ColdStoreErrorCode.BAD_VERSION,
  ColdStoreErrorCode.BAD_FORMAT,
  ColdStoreErrorCode.CHECKSUM_MISMATCH,
  ColdStoreErrorCode.CORRUPT,
  ColdStoreErrorCode.TRUNCATED,
];

/**
 * Opens `name` (`mapped`: as LocalStorage maps it; else without its mapping, so fetches read) and reads every item
 * (readRange, then itemView for an uncompressed pack). Returns the error thrown, or undefined when everything read
 * back equal to `items` (a wrong item fails the test at once).
 */
async function readAll(
  dir: string,
  name: string,
  items: readonly Uint8Array[],
  mapped = true,
): Promise<ColdStoreError | undefined> {
  const storage = new LocalStorage(dir);
  const local = await storage.open(name);
  const file = mapped ? local : withoutMapping(local);
  let reader: PackfileReader | undefined;
  try {
    reader = await PackfileReader.open(file, FORMAT_ID, { maxBatchBytes: 1 });
    const got = await reader.readRange(0, reader.itemCount);
    expect(got.length).toBe(items.length);
    for (let i = 0; i < items.length; i++) expect(got[i]).toEqual(items[i]);
    for (let i = 0; i < items.length; i++) {
      const view = reader.itemView(i);
      if (view !== undefined) expect(view).toEqual(items[i]);
    }
    return undefined;
  } catch (error) {
    if (!(error instanceof ColdStoreError)) throw error;
    return error;
  } finally {
    expect(reader?.stats.pooledBuffersInUse ?? 0).toBe(0);
    await (reader ?? file).close();
  }
}

function expectDetected(error: ColdStoreError | undefined, what: string, file: string): void {
  expect(error, `${what} was not detected`).toBeInstanceOf(ColdStoreError);
  expect(DETECTED, `${what}: ${error?.message}`).toContain(error?.code);
  expect(error?.file).toBe(file);
}

describe('packfile corruption', () => {
  afterEach(() => {
    __faults.skipRecordCrc = false;
    __dictionaryFaults.skipCrc = false;
  });

  /** A dictionary of 48 distinct bytes, and items that each start with it: every record references it. */
  const DICTIONARY = new Uint8Array(48).map((_, i) => i * 13 + 1);
  const itemsOverDictionary = (count: number) =>
    makeItems(count, 40, 5).map((noise) => new Uint8Array(Buffer.concat([DICTIONARY, noise])));

  it.each([
    ['zstd', 'zstd', 60, undefined],
    ['none', 'none', 30, undefined],
    ['zstd + dictionary', 'zstd', 60, DICTIONARY],
  ] as const)('detects every single-byte flip of a small %s pack', async (_name, codec, count, dictionary) => {
    const dir = tempDir('pack-flip');
    const items = dictionary === undefined ? makeItems(count, 40, 5) : itemsOverDictionary(count);
    const options = { codec, itemsPerRecord: 16, ...(dictionary === undefined ? {} : { dictionary }) };
    await writePack(dir, 'good.pack', items, options, new Uint8Array([9, 8, 7, 6]));
    expect(await readAll(dir, 'good.pack', items)).toBeUndefined();
    expect(await readAll(dir, 'good.pack', items, false)).toBeUndefined();
    const good = readFileSync(join(dir, 'good.pack'));
    const path = join(dir, 'bad.pack');
    for (let at = 0; at < good.length; at++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = Buffer.from(good);
        bad[at] = (bad[at] as number) ^ mask;
        writeBytes(dir, 'bad.pack', bad);
        for (const mapped of [true, false]) {
          const what = `byte ${at} ^ 0x${mask.toString(16)}${mapped ? '' : ', read'}`;
          expectDetected(await readAll(dir, 'bad.pack', items, mapped), what, path);
        }
      }
    }
  });

  it('negative control: a reader that skips record CRCs fails the flip test', async () => {
    const dir = tempDir('pack-flip-control');
    const items = makeItems(30, 40, 5);
    await writePack(dir, 'good.pack', items, { codec: 'none', itemsPerRecord: 16 });
    const bad = readFileSync(join(dir, 'good.pack'));
    bad[10] = (bad[10] as number) ^ 0x01; // inside item 0's payload
    writeBytes(dir, 'bad.pack', bad);
    __faults.skipRecordCrc = true;
    // The wrong item is served: readAll's own comparison fails (an assertion, not a ColdStoreError).
    await expect(readAll(dir, 'bad.pack', items)).rejects.toThrow(/expected/);
    await expect(readAll(dir, 'bad.pack', items, false)).rejects.toThrow(/expected/);
  });

  it('negative control: a reader that trusts the dictionary without its CRC serves wrong items', async () => {
    const dir = tempDir('pack-dictionary-control');
    const items = itemsOverDictionary(60);
    await writePack(dir, 'good.pack', items, { itemsPerRecord: 16, dictionary: DICTIONARY });
    const good = readFileSync(join(dir, 'good.pack'));
    const trailer = good.subarray(good.length - TRAILER_BYTES);
    const dictionarySize = trailer.readUInt32LE(TrailerField.dictionarySize);
    const indexSize = trailer.readUInt32LE(TrailerField.indexSize);
    const appDataSize = trailer.readUInt32LE(TrailerField.appDataSize);
    expect(dictionarySize).toBe(DICTIONARY.length);
    const dictionaryAt = good.length - TRAILER_BYTES - appDataSize - indexSize - dictionarySize;
    expect(good.subarray(dictionaryAt, dictionaryAt + dictionarySize)).toEqual(Buffer.from(DICTIONARY));
    // Every record's first item copies the dictionary: with the CRC skipped, a flipped dictionary byte inflates
    // those records into other bytes of the same size.
    const bad = Buffer.from(good);
    bad[dictionaryAt + 20] = (bad[dictionaryAt + 20] as number) ^ 0x01;
    writeBytes(dir, 'bad.pack', bad);
    expect((await readAll(dir, 'bad.pack', items))?.code).toBe(ColdStoreErrorCode.CHECKSUM_MISMATCH);
    __dictionaryFaults.skipCrc = true;
    await expect(readAll(dir, 'bad.pack', items)).rejects.toThrow(/expected/);
  });

  it('detects random damage of a larger pack', async () => {
    const dir = tempDir('pack-random');
    const items = makeItems(5000, 300, 6);
    // Without a dictionary, and with one of a few items' bytes (which the pack's records reference).
    for (const dictionary of [undefined, Buffer.concat(items.slice(0, 40))]) {
      await writePack(dir, 'good.pack', items, { maxRecordBytes: 16 * 1024, ...(dictionary ? { dictionary } : {}) });
      const good = readFileSync(join(dir, 'good.pack'));
      const random = seededRandom(99);
      const path = join(dir, 'bad.pack');
      for (let trial = 0; trial < 60; trial++) {
        const bad = Buffer.from(good);
        const flips = 1 + Math.floor(random() * 4);
        for (let f = 0; f < flips; f++) {
          const at = Math.floor(random() * bad.length);
          bad[at] = (bad[at] as number) ^ (1 + Math.floor(random() * 255));
        }
        writeBytes(dir, 'bad.pack', bad);
        expectDetected(await readAll(dir, 'bad.pack', items), `trial ${trial}`, path);
        expectDetected(await readAll(dir, 'bad.pack', items, false), `trial ${trial}, read`, path);
      }
    }
  });

  it('detects truncation at every length', async () => {
    const dir = tempDir('pack-trunc');
    const items = makeItems(100, 30, 8);
    await writePack(dir, 'good.pack', items, { itemsPerRecord: 8 }, new Uint8Array(10).fill(3));
    const good = readFileSync(join(dir, 'good.pack'));
    const path = join(dir, 'cut.pack');
    for (let length = 0; length < good.length; length++) {
      writeBytes(dir, 'cut.pack', good.subarray(0, length));
      expectDetected(await readAll(dir, 'cut.pack', items), `length ${length}`, path);
      expectDetected(await readAll(dir, 'cut.pack', items, false), `length ${length}, read`, path);
    }
  });

  /** A copy of `good` with trailer field `field` (u8 or u32) set to `value` and the trailer CRC made valid again. */
  function retrailer(good: Uint8Array, field: keyof typeof TrailerField, value: number, width: 1 | 4): Buffer {
    const bad = Buffer.from(good);
    const base = bad.length - TRAILER_BYTES;
    if (width === 1) bad.writeUInt8(value, base + TrailerField[field]);
    else bad.writeUInt32LE(value, base + TrailerField[field]);
    bad.writeUInt32LE(crc32c(bad.subarray(base, base + TrailerField.trailerCrc)), base + TrailerField.trailerCrc);
    return bad;
  }

  /** `good` (a version-2 pack without a dictionary) as version 1 wrote it: the same bytes, a 76-byte trailer. */
  function asVersion1(good: Uint8Array): Buffer {
    const body = good.subarray(0, good.length - TRAILER_BYTES);
    const trailer = Buffer.from(good.subarray(good.length - TRAILER_BYTES, good.length - TRAILER_BYTES + 76));
    trailer.writeUInt8(1, TrailerField.version);
    trailer.writeUInt32LE(crc32c(trailer.subarray(0, 72)), 72); // v1: the trailer CRC at 72 over bytes 0..71
    return Buffer.concat([body, trailer]);
  }

  it('names a wrong magic, version, format id, flag, codec or dictionary by its code', async () => {
    const dir = tempDir('pack-trailer');
    const items = makeItems(10, 10, 1);
    await writePack(dir, 'good.pack', items);
    const good = readFileSync(join(dir, 'good.pack'));
    await writePack(dir, 'dict.pack', items, { dictionary: DICTIONARY });
    const withDictionary = readFileSync(join(dir, 'dict.pack'));
    const cases: [string, Buffer, string][] = [
      ['magic', retrailer(good, 'magic', 0x4b505454, 4), ColdStoreErrorCode.BAD_MAGIC],
      ['version', retrailer(good, 'version', PACKFILE_VERSION + 1, 1), ColdStoreErrorCode.BAD_VERSION],
      ['format id', retrailer(good, 'formatId', FORMAT_ID + 1, 4), ColdStoreErrorCode.BAD_FORMAT],
      ['flags', retrailer(good, 'flags', 0x81, 1), ColdStoreErrorCode.BAD_FORMAT],
      ['codec', retrailer(good, 'codec', 9, 1), ColdStoreErrorCode.BAD_FORMAT],
      ['item count', retrailer(good, 'itemCount', 2 ** 32 - 1, 4), ColdStoreErrorCode.CORRUPT],
      ['record count', retrailer(good, 'recordCount', 2 ** 32 - 1, 4), ColdStoreErrorCode.CORRUPT],
      ['index size', retrailer(good, 'indexSize', 2 ** 32 - 1, 4), ColdStoreErrorCode.TRUNCATED],
      ['app data size', retrailer(good, 'appDataSize', 2 ** 31, 4), ColdStoreErrorCode.TRUNCATED],
      ['largest record', retrailer(good, 'maxRecordRawBytes', 2 ** 32 - 1, 4), ColdStoreErrorCode.CORRUPT],
      ['a foreign file', Buffer.alloc(500, 0x41), ColdStoreErrorCode.BAD_MAGIC],
      ['a version-1 pack', asVersion1(good), ColdStoreErrorCode.BAD_VERSION],
      ['a dictionary without codec 2', retrailer(good, 'dictionarySize', 8, 4), ColdStoreErrorCode.CORRUPT],
      ['codec 2 without a dictionary', retrailer(good, 'codec', 2, 1), ColdStoreErrorCode.CORRUPT],
      ['a dictionary CRC without one', retrailer(good, 'dictionaryCrc', 1, 4), ColdStoreErrorCode.CORRUPT],
      [
        'a dictionary over 16 MiB',
        retrailer(withDictionary, 'dictionarySize', 2 ** 24 + 1, 4),
        ColdStoreErrorCode.CORRUPT,
      ],
      [
        'a dictionary past the file',
        retrailer(withDictionary, 'dictionarySize', 2 ** 24, 4),
        ColdStoreErrorCode.TRUNCATED,
      ],
      [
        'a dictionary of another CRC',
        retrailer(withDictionary, 'dictionaryCrc', 1, 4),
        ColdStoreErrorCode.CHECKSUM_MISMATCH,
      ],
    ];
    for (const [what, bytes, code] of cases) {
      writeBytes(dir, 'bad.pack', bytes);
      const file = await new LocalStorage(dir).open('bad.pack');
      const error = await rejectionOf(ColdStoreError, () => PackfileReader.open(file, FORMAT_ID));
      expect(error.code, `${what}: ${error.message}`).toBe(code);
      expect(error.file).toBe(join(dir, 'bad.pack'));
      expect(error.offset).toBeTypeOf('number');
      await file.close();
    }
  });

  it('bounds what a lying trailer can make the reader allocate', async () => {
    // A trailer whose CRC is valid but whose largest-record field is smaller than a real record: the record is
    // refused (CORRUPT) before anything of the claimed size is allocated or inflated.
    const dir = tempDir('pack-lie');
    const items = makeItems(300, 100, 2);
    await writePack(dir, 'good.pack', items);
    writeBytes(dir, 'bad.pack', retrailer(readFileSync(join(dir, 'good.pack')), 'maxRecordRawBytes', 10, 4));
    const error = await readAll(dir, 'bad.pack', items);
    expect(error?.code).toBe(ColdStoreErrorCode.CORRUPT);
  });
});
