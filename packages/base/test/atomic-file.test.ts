// Atomic writes: whole files appear at once, failures leave nothing, and a process killed at any moment leaves the
// old or the new file, never a torn one.
//
// Properties checked:
// 1. writeFileAtomic / writeFileAtomicSync / AtomicFile(Sync) write exactly the bytes, and leave no temp file.
// 2. A failed write (abort) leaves the old file as it was and no temp file.
// 3. SIGKILL of a process rewriting a file, at an arbitrary point: the file is always one whole version.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { seededRandom, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  AtomicFile,
  AtomicFileSync,
  atomicTempPath,
  fsyncDirectory,
  fsyncDirectorySync,
  isAtomicTempName,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../src/index.js';

const bytesOf = (text: string) => new TextEncoder().encode(text);
const VERSION_BYTES = 256 * 1024;

/** The property of test 3: `bytes` is one whole version as atomic-writer.ts writes it; returns the version. */
function expectWholeVersion(bytes: Buffer): number {
  expect(bytes.length).toBe(VERSION_BYTES);
  const version = bytes.readUInt32BE(0);
  const fill = version % 251;
  expect(bytes.subarray(4).every((byte) => byte === fill)).toBe(true);
  return version;
}

describe('atomic writes', () => {
  it('1. write exactly the bytes and leave no temporary file', async () => {
    const dir = tempDir('base-atomic');
    await writeFileAtomic(join(dir, 'a'), bytesOf('async'));
    writeFileAtomicSync(join(dir, 'nested', 'b'), bytesOf('sync'));
    const streamed = await AtomicFile.create(join(dir, 'c'));
    await streamed.write(bytesOf('one '));
    await streamed.write(bytesOf('two'));
    await streamed.commit({ fsyncDirectory: false });
    await fsyncDirectory(dir);
    const streamedSync = AtomicFileSync.create(join(dir, 'd'));
    streamedSync.write(bytesOf('sync '));
    streamedSync.write(bytesOf('stream'));
    streamedSync.commit();
    fsyncDirectorySync(dir);
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('async');
    expect(readFileSync(join(dir, 'nested', 'b'), 'utf8')).toBe('sync');
    expect(readFileSync(join(dir, 'c'), 'utf8')).toBe('one two');
    expect(readFileSync(join(dir, 'd'), 'utf8')).toBe('sync stream');
    expect(readdirSync(dir).sort()).toEqual(['a', 'c', 'd', 'nested']);
  });

  it('2. abort keeps the old file and removes the temporary one', async () => {
    const dir = tempDir('base-atomic');
    const path = join(dir, 'kept');
    writeFileSync(path, 'old');
    const file = await AtomicFile.create(path);
    await file.write(bytesOf('new, half written'));
    await file.abort();
    const fileSync = AtomicFileSync.create(path);
    fileSync.write(bytesOf('new'));
    fileSync.abort();
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['kept']);
    // A failure inside writeFileAtomicSync (the target is a directory: rename fails) also cleans up.
    expect(() => writeFileAtomicSync(dir, bytesOf('x'))).toThrow();
    expect(readdirSync(dir)).toEqual(['kept']);
  });

  it('names temporary files so that a sweep recognises them, and no one else', () => {
    const temp = atomicTempPath('/x/bucket-00ab.xdr');
    expect(isAtomicTempName(temp)).toBe(true);
    expect(atomicTempPath('/x/y')).not.toBe(atomicTempPath('/x/y'));
    expect(isAtomicTempName('bucket-00ab.xdr')).toBe(false);
    expect(isAtomicTempName('notes.tmp')).toBe(false);
  });

  for (const mode of ['sync', 'async'] as const) {
    it(`3. a SIGKILL at any point leaves one whole version (${mode})`, async () => {
      const dir = tempDir('base-atomic-kill');
      const path = join(dir, 'state');
      const random = seededRandom(mode === 'sync' ? 11 : 12);
      for (let round = 0; round < 8; round++) {
        const killAfter = 1 + Math.floor(random() * 12);
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', new URL('./workers/atomic-writer.ts', import.meta.url).pathname, path, mode],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const exited = new Promise((resolve) => child.once('exit', resolve));
        let committed = 0;
        for await (const _line of createInterface({ input: child.stdout })) {
          if (++committed === killAfter) child.kill('SIGKILL');
        }
        await exited;
        expect(existsSync(path)).toBe(true);
        expect(expectWholeVersion(readFileSync(path))).toBeGreaterThanOrEqual(killAfter);
        for (const name of readdirSync(dir)) expect(name === 'state' || isAtomicTempName(name)).toBe(true);
      }
    });
  }
});

describe('negative control', () => {
  it('the whole-version check of test 3 rejects a torn file and a mixed one', () => {
    const whole = Buffer.alloc(VERSION_BYTES, 7 % 251);
    whole.writeUInt32BE(7, 0);
    expect(expectWholeVersion(whole)).toBe(7);
    expect(() => expectWholeVersion(whole.subarray(0, VERSION_BYTES / 2))).toThrow();
    const mixed = Buffer.from(whole);
    mixed.fill(8, VERSION_BYTES / 2);
    expect(() => expectWholeVersion(mixed)).toThrow();
  });
});
