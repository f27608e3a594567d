// Damaged packfiles are detected, never served: every byte of a pack is under some CRC32C (records, offset index,
// app data, trailer), so a changed byte fails open or the read of its record with a ColdStoreError naming the file —
// never a wrong item, a crash or a hang. Cases: each byte of small packs flipped (three patterns), random multi-byte
// damage of a larger pack, truncation at every length, and well-formed trailers of the wrong magic, version or id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { rejectionOf, seededRandom, tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { ColdStoreError, ColdStoreErrorCode } from '../src/errors.ts';
import { PACKFILE_VERSION, TRAILER_BYTES, TrailerField } from '../src/packfile/format.ts';
import { __faults, PackfileReader } from '../src/packfile/reader.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import { FORMAT_ID, makeItems, writeBytes, writePack } from './packfile-support.ts';

const DETECTED: readonly string[] = [
  ColdStoreErrorCode.BAD_MAGIC,
  ColdStoreErrorCode.BAD_VERSION,
  ColdStoreErrorCode.BAD_FORMAT,
  ColdStoreErrorCode.CHECKSUM_MISMATCH,
  ColdStoreErrorCode.CORRUPT,
  ColdStoreErrorCode.TRUNCATED,
];

/**
 * Opens `name` and reads every item (readRange, then itemView for an uncompressed pack). Returns the error thrown,
 * or undefined when everything read back equal to `items` (a wrong item fails the test at once).
 */
async function readAll(dir: string, name: string, items: readonly Uint8Array[]): Promise<ColdStoreError | undefined> {
  const storage = new LocalStorage(dir);
  const file = await storage.open(name);
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
  });

  it.each([
    ['zstd', 60],
    ['none', 30],
  ] as const)('detects every single-byte flip of a small %s pack', async (codec, count) => {
    const dir = tempDir('pack-flip');
    const items = makeItems(count, 40, 5);
    await writePack(dir, 'good.pack', items, { codec, itemsPerRecord: 16 }, new Uint8Array([9, 8, 7, 6]));
    expect(await readAll(dir, 'good.pack', items)).toBeUndefined();
    const good = readFileSync(join(dir, 'good.pack'));
    const path = join(dir, 'bad.pack');
    for (let at = 0; at < good.length; at++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = Buffer.from(good);
        bad[at] = (bad[at] as number) ^ mask;
        writeBytes(dir, 'bad.pack', bad);
        expectDetected(await readAll(dir, 'bad.pack', items), `byte ${at} ^ 0x${mask.toString(16)}`, path);
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
  });

  it('detects random damage of a larger pack', async () => {
    const dir = tempDir('pack-random');
    const items = makeItems(5000, 300, 6);
    await writePack(dir, 'good.pack', items, { maxRecordBytes: 16 * 1024 });
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

  it('names a wrong magic, version, format id, flag or codec by its code', async () => {
    const dir = tempDir('pack-trailer');
    const items = makeItems(10, 10, 1);
    await writePack(dir, 'good.pack', items);
    const good = readFileSync(join(dir, 'good.pack'));
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
