// The stream writer on @strata/base's atomic files (one implementation for every package). Properties:
// 1. While a stream is written, the only file is a temporary sibling whose name base's isAtomicTempName recognises
//    (what an owner sweeps after a crash); close() puts the whole stream at its path and leaves nothing else.
// 2. File-system failures are LedgerMetaError IO naming the stream's path, with the system error as `cause`: when
//    the file cannot be created, and when it cannot be committed (its folder went away meanwhile). abort() after
//    either leaves no file and does not throw.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAtomicTempName } from '@strata/base';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { encodeLedgerStream, LedgerMetaError, LedgerStreamWriter, writeLedgerStream } from '../src/index.js';

const records = [new Uint8Array([1, 2, 3, 4]), new Uint8Array([5, 6, 7, 8, 9, 10, 11, 12])];

describe('LedgerStreamWriter', () => {
  it('(1) writes through a temporary that isAtomicTempName recognises, then renames it into place', async () => {
    const dir = tempDir('stream-writer');
    const path = join(dir, 'ledgers.xdr');
    const writer = await LedgerStreamWriter.create(path);
    for (const record of records) await writer.write(record);
    const during = readdirSync(dir);
    expect(during).toHaveLength(1);
    expect(during[0]?.startsWith('ledgers.xdr.tmp-')).toBe(true);
    expect(isAtomicTempName(during[0] ?? '')).toBe(true);
    await writer.close();
    expect(readdirSync(dir)).toEqual(['ledgers.xdr']);
    expect(new Uint8Array(readFileSync(path))).toEqual(new Uint8Array(encodeLedgerStream(records)));
  });

  it('(2) reports a stream that cannot be created as IO with the path and the system error', async () => {
    const dir = tempDir('stream-writer');
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const path = join(file, 'ledgers.xdr');
    for (const call of [() => LedgerStreamWriter.create(path), () => writeLedgerStream(path, records)]) {
      const error = await rejectionOf(LedgerMetaError, call);
      expect([error.code, error.file]).toEqual(['IO', path]);
      expect((error.cause as NodeJS.ErrnoException).code).toMatch(/^(ENOTDIR|EEXIST)$/);
    }
    expect(readdirSync(dir)).toEqual(['a-file']);
  });

  it('(2) reports a commit that fails as IO, and abort() then leaves nothing', async () => {
    const dir = tempDir('stream-writer');
    const folder = join(dir, 'out');
    mkdirSync(folder);
    const path = join(folder, 'ledgers.xdr');
    const writer = await LedgerStreamWriter.create(path);
    await writer.write(records[0] as Uint8Array);
    rmSync(folder, { recursive: true });
    const error = await rejectionOf(LedgerMetaError, () => writer.close());
    expect([error.code, error.file]).toEqual(['IO', path]);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    await writer.abort();
    expect(readdirSync(dir)).toEqual([]);
  });
});
