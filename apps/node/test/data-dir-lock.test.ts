// The data directory lock (data-dir-lock.ts): one node per data directory. Checks:
// 1. within one process a second lock (and a second StrataNode.open) of an open directory is DATA_DIR_LOCKED, and
//    the directory opens again once released / closed;
// 2. a lock held by another live process is DATA_DIR_LOCKED naming its pid; once that process is gone (as after a
//    SIGKILL) the stale lock is replaced;
// 3. a lock naming a live pid with another start time (a recycled pid) and a torn or garbage lock are stale.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME, lockDataDir } from '../src/data-dir-lock.js';
import { NodeError } from '../src/errors.js';
import { GENERATOR_PASSPHRASE, type GeneratorSource } from '../src/generator-source.js';
import { StrataNode } from '../src/node.js';

function freshDir(): string {
  const dir = join(tempDir('node-lock'), 'data');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function lockedError(run: () => unknown): NodeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(NodeError);
    expect((error as NodeError).code).toBe('DATA_DIR_LOCKED');
    return error as NodeError;
  }
  throw new Error('expected DATA_DIR_LOCKED');
}

function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

const hasProc = existsSync('/proc/self/stat');

describe('data directory lock', () => {
  it('refuses a second holder in this process until released', () => {
    const dir = freshDir();
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    lockedError(() => lockDataDir(dir));
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    lock.release(); // idempotent
    lockDataDir(dir).release();
  });

  it('refuses a second StrataNode on an open data directory, and opens again after close', async () => {
    const dir = freshDir();
    const source: GeneratorSource = { kind: 'generator', ledgers: 3, eventsPerLedger: 2, accounts: 20, contracts: 2 };
    const node = await StrataNode.open(dir, { networkPassphrase: GENERATOR_PASSPHRASE, source });
    const error = await rejectionOf(NodeError, () => StrataNode.open(dir, { source }));
    expect(error.code).toBe('DATA_DIR_LOCKED');
    await node.close();
    const again = await StrataNode.open(dir, { source });
    await again.close();
  });

  it('refuses while another process holds it, and replaces its lock once that process is gone', async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    const record = { pid, start: hasProc ? startTime(pid) : null };
    writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify(record));
    const error = lockedError(() => lockDataDir(dir));
    expect(error.message).toContain(`process ${pid}`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it.skipIf(!hasProc)('takes a lock naming a recycled pid (another start time) or holding garbage as stale', () => {
    const dir = freshDir();
    // pid 1 is alive, but not with this start time: the process that wrote the lock is gone.
    writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: 1, start: `${startTime(1)}7` }));
    lockDataDir(dir).release();
    writeFileSync(join(dir, LOCK_FILE_NAME), '{"pid": 12');
    lockDataDir(dir).release();
    // The negative control: pid 1 with its real start time is a live holder.
    writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: 1, start: startTime(1) }));
    lockedError(() => lockDataDir(dir));
  });
});
