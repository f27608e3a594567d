// A temporary directory on tmpfs (/dev/shm) when the machine has one, else test-kit's tempDir. The generated-network
// tests apply thousands of ledgers, each with the ledger state's fsyncs (its state file and HAS); on a loaded disk an
// fsync costs tens of milliseconds, on tmpfs nothing, so these tests exercise the node's logic rather than the disk.
// A SIGKILL keeps the page cache either way; the stellar-core fixture tests keep the real disk.
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { onTestFinished } from 'vitest';

const RAM = '/dev/shm';

function hasRamDisk(): boolean {
  try {
    accessSync(RAM, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A fresh directory for the running test (removed when it finishes), on tmpfs when there is one. */
export function ramTempDir(prefix: string): string {
  if (!hasRamDisk()) return tempDir(prefix);
  const dir = mkdtempSync(join(RAM, `strata-${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
