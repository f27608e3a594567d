// LocalStorage, the local-file backend of the storage seam: positioned reads (exact length, TRUNCATED past the end,
// several in flight), maps (empty files, the 2 GiB cap on a sparse file, views alive after close), dropCache, the
// atomic writer (nothing under the name before commit; abort and failures leave no file), names, and errors.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import mmapModule from '@riaskov/mmap-io';
import { isAtomicTempName } from '@strata/base';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { ColdStoreError, ColdStoreErrorCode } from '../src/errors.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import { MAX_MAPPED_FILE_BYTES } from '../src/storage/storage.ts';

// mmap-io's default import is the binding itself (see local-storage.ts).
const mmap = mmapModule as unknown as typeof mmapModule.default;

function bytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + 3) & 0xff);
}

/** A fresh directory holding `f.bin` with `content`, and that file opened. */
async function openWith(prefix: string, content: Uint8Array) {
  const dir = tempDir(prefix);
  writeFileSync(join(dir, 'f.bin'), content);
  return { dir, file: await new LocalStorage(dir).open('f.bin') };
}

describe('LocalStorage reads', () => {
  it('reads exact ranges, in parallel, into a given buffer or a new one', async () => {
    const content = bytes(100_000);
    const { dir, file } = await openWith('storage-read', content);
    expect(file.size).toBe(content.length);
    expect(file.name).toBe(join(dir, 'f.bin'));
    const ranges = Array.from({ length: 32 }, (_, i) => [i * 3000, 1000 + i] as const);
    const got = await Promise.all(ranges.map(([offset, length]) => file.read(offset, length)));
    for (const [i, [offset, length]] of ranges.entries()) {
      expect(got[i]).toEqual(content.subarray(offset, offset + length));
    }
    const into = new Uint8Array(50);
    const view = await file.read(10, 20, into);
    expect(view.buffer).toBe(into.buffer);
    expect(view).toEqual(content.subarray(10, 30));
    expect(await file.read(content.length, 0)).toEqual(new Uint8Array(0));
    await file.close();
  });

  it('rejects reads past the end, bad arguments and use after close', async () => {
    const { dir, file } = await openWith('storage-bad', bytes(10));
    const past = await rejectionOf(ColdStoreError, () => file.read(5, 6));
    expect([past.code, past.file, past.offset]).toEqual([ColdStoreErrorCode.TRUNCATED, join(dir, 'f.bin'), 5]);
    for (const [offset, length, into] of [
      [-1, 1, undefined],
      [0.5, 1, undefined],
      [0, Number.NaN, undefined],
      [0, 4, new Uint8Array(3)],
    ] as const) {
      const error = await rejectionOf(ColdStoreError, () => file.read(offset, length, into));
      expect(error.code).toBe(ColdStoreErrorCode.INVALID_ARGUMENT);
    }
    await file.close();
    await file.close(); // idempotent
    expect((await rejectionOf(ColdStoreError, () => file.read(0, 1))).code).toBe(ColdStoreErrorCode.CLOSED);
    expect(() => file.map()).toThrow(expect.objectContaining({ code: ColdStoreErrorCode.CLOSED }));
  });

  it('reports missing files as NOT_FOUND and refuses names that leave the directory', async () => {
    const dir = tempDir('storage-names');
    const storage = new LocalStorage(dir);
    const missing = await rejectionOf(ColdStoreError, () => storage.open('nope.bin'));
    expect([missing.code, missing.file]).toEqual([ColdStoreErrorCode.NOT_FOUND, join(dir, 'nope.bin')]);
    expect(await storage.exists('nope.bin')).toBe(false);
    await storage.remove('nope.bin'); // idempotent
    for (const name of ['', '/etc/passwd', '../x', 'a/../b', 'a//b', './a', 'a\\b']) {
      const error = await rejectionOf(ColdStoreError, () => storage.open(name));
      expect(error.code, name).toBe(ColdStoreErrorCode.INVALID_ARGUMENT);
    }
    expect(() => new LocalStorage('')).toThrow(expect.objectContaining({ code: ColdStoreErrorCode.INVALID_ARGUMENT }));
  });
});

describe('LocalStorage maps', () => {
  it('maps a file read-only as a plain Uint8Array that outlives close', async () => {
    const content = bytes(70_000);
    const { file } = await openWith('storage-map', content);
    const mapping = file.map() ?? new Uint8Array(0);
    expect(mapping).toEqual(content);
    expect(Buffer.isBuffer(mapping)).toBe(false);
    expect(file.map()).toBe(mapping); // one mapping per file
    const tail = mapping.subarray(60_000);
    await file.close();
    expect(tail).toEqual(content.subarray(60_000)); // still mapped: the view holds it
  });

  it('maps an empty file to an empty array', async () => {
    const dir = tempDir('storage-empty');
    writeFileSync(join(dir, 'empty.bin'), new Uint8Array(0));
    const file = await new LocalStorage(dir).open('empty.bin');
    expect(file.map()).toEqual(new Uint8Array(0));
    expect(file.dropCache()).toBe(process.platform === 'linux');
    await file.close();
  });

  it('refuses to map a file over MAX_MAPPED_FILE_BYTES (sparse, nothing written)', async () => {
    const dir = tempDir('storage-large');
    for (const size of [MAX_MAPPED_FILE_BYTES + 1, 2 ** 31, 2 ** 32 + 10]) {
      const handle = await open(join(dir, 'sparse.bin'), 'w');
      await handle.truncate(size);
      await handle.close();
      const file = await new LocalStorage(dir).open('sparse.bin');
      expect(file.size).toBe(size);
      const error = (() => {
        try {
          file.map();
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ColdStoreError);
      expect((error as ColdStoreError).code).toBe(ColdStoreErrorCode.FILE_TOO_LARGE);
      expect((error as ColdStoreError).file).toBe(join(dir, 'sparse.bin'));
      expect(file.dropCache()).toBe(false);
      // Reads are not limited: the far end of the sparse file reads as zeros.
      expect(await file.read(size - 8, 8)).toEqual(new Uint8Array(8));
      await file.close();
    }
  });

  it.runIf(process.platform === 'linux')('drops a file from the page cache, mapped or not', async () => {
    const dir = tempDir('storage-drop');
    const storage = new LocalStorage(dir);
    const size = 4 << 20;
    const writer = await storage.createWriter('f.bin'); // committed files are fsynced: clean pages
    await writer.write(bytes(size));
    await writer.commit();
    const file = await storage.open('f.bin');
    const mapping = file.map() ?? new Uint8Array(0);
    const pages = Math.ceil(size / mmap.PAGESIZE);
    // mincore: pages of the file in the page cache. A few recently read pages may stay (dropCache's comment).
    const resident = () => mmap.incore(mapping as Buffer)[1];
    // Best effort with a 20 ms budget a call: on a loaded machine the kernel may need a few calls.
    const drop = () => {
      for (let call = 0; call < 10 && resident() >= pages / 16; call++) expect(file.dropCache()).toBe(true);
      return resident();
    };
    await file.read(0, size);
    expect(resident()).toBe(pages);
    expect(drop()).toBeLessThan(pages / 16);
    // Read through the mapping this time, then drop again.
    let sum = 0;
    for (let at = 0; at < size; at += 4096) sum += mapping[at] as number;
    expect(sum).toBeGreaterThan(0);
    expect(resident()).toBe(pages);
    expect(drop()).toBeLessThan(pages / 16);
    expect(await file.read(1000, 10)).toEqual(bytes(1010).subarray(1000)); // content unchanged
    await file.close();
  });
});

describe('LocalStorage writers', () => {
  it('shows nothing under the name until commit, then the whole file', async () => {
    const dir = tempDir('storage-write');
    const storage = new LocalStorage(dir);
    const writer = await storage.createWriter('sub/dir/out.bin');
    await writer.write(bytes(1000));
    await writer.write(bytes(5));
    expect(writer.bytesWritten).toBe(1005);
    expect(await storage.exists('sub/dir/out.bin')).toBe(false);
    const temps = readdirSync(join(dir, 'sub/dir'));
    expect(temps.length).toBe(1);
    expect(isAtomicTempName(temps[0] as string)).toBe(true);
    await writer.commit();
    expect(readdirSync(join(dir, 'sub/dir'))).toEqual(['out.bin']);
    expect(new Uint8Array(readFileSync(join(dir, 'sub/dir/out.bin')))).toEqual(
      Uint8Array.from([...bytes(1000), ...bytes(5)]),
    );
    await writer.abort(); // a no-op after commit
    expect(await storage.exists('sub/dir/out.bin')).toBe(true);
    expect((await rejectionOf(ColdStoreError, () => writer.write(bytes(1)))).code).toBe(ColdStoreErrorCode.CLOSED);
    await storage.remove('sub/dir/out.bin');
    expect(existsSync(join(dir, 'sub/dir/out.bin'))).toBe(false);
  });

  it('leaves nothing behind on abort, and abort is idempotent', async () => {
    const dir = tempDir('storage-abort');
    const storage = new LocalStorage(dir);
    const writer = await storage.createWriter('out.bin');
    await writer.write(bytes(100));
    await writer.abort();
    await writer.abort();
    expect(readdirSync(dir)).toEqual([]);
    expect((await rejectionOf(ColdStoreError, () => writer.commit())).code).toBe(ColdStoreErrorCode.CLOSED);
  });
});
