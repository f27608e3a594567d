// `fsync: false` commits: the bytes still land whole under the final name, and neither the file nor its directory is
// fsynced (counted through a mocked node:fs and node:fs/promises); the default fsyncs both.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ fsync: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    fsyncSync: (fd: number) => {
      calls.fsync++;
      fs.fsyncSync(fd);
    },
  };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fsp,
    open: async (...args: Parameters<typeof fsp.open>) => {
      const handle = await fsp.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        calls.fsync++;
        await sync();
      };
      return handle;
    },
  };
});

const { writeFileAtomic, writeFileAtomicSync } = await import('../src/index.js');

describe('atomic writes without fsync', () => {
  beforeEach(() => {
    calls.fsync = 0;
  });

  it('the default fsyncs the file and the directory (sync and async)', async () => {
    const dir = tempDir('base-atomic-fsync');
    writeFileAtomicSync(join(dir, 'a'), new TextEncoder().encode('one'));
    expect(calls.fsync).toBe(2);
    await writeFileAtomic(join(dir, 'b'), new TextEncoder().encode('two'));
    expect(calls.fsync).toBe(4);
  });

  it('fsync: false writes the same bytes atomically and fsyncs nothing', async () => {
    const dir = tempDir('base-atomic-fsync');
    writeFileAtomicSync(join(dir, 'a'), new TextEncoder().encode('old'));
    calls.fsync = 0;
    writeFileAtomicSync(join(dir, 'a'), new TextEncoder().encode('new sync'), { fsync: false });
    await writeFileAtomic(join(dir, 'b'), new TextEncoder().encode('new async'), { fsync: false });
    expect(calls.fsync).toBe(0);
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('new sync');
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('new async');
    expect(readdirSync(dir).sort()).toEqual(['a', 'b']);
  });
});
