// Temporary directories on the real file system that clean themselves up, so tests can use real files (bucket
// files, SQLite databases, packfiles) without leaking them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

function makeDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `strata-${prefix}-`));
}

/** A fresh directory for the running test, removed when the test finishes (pass or fail). Call inside a test. */
export function tempDir(prefix = 'test'): string {
  const dir = makeDir(prefix);
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `body` with a fresh directory and removes it afterwards, whatever `body` does. Usable outside tests. */
export async function withTempDir<T>(body: (dir: string) => T | Promise<T>, prefix = 'tmp'): Promise<T> {
  const dir = makeDir(prefix);
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
