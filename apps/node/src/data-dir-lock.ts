// One node per data directory: `<data-dir>/lock` names the process that holds it (pid and, on Linux, the process's
// start time from /proc/<pid>/stat, so a recycled pid is not mistaken for the holder). Taking it: create the file
// exclusively (O_EXCL); when it exists, a holder that is gone (no such process, or another one under its pid) left it
// stale — a node killed with SIGKILL does — and it is replaced; a live holder is DATA_DIR_LOCKED. Within one process
// the held paths are kept too: a second StrataNode.open of an open directory is refused as well. Released by close.
import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NodeError } from './errors.js';

export const LOCK_FILE_NAME = 'lock';

/** Data directories this process holds (resolved paths). */
const held = new Set<string>();

interface LockRecord {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot), or null where there is no /proc. */
  readonly start: string | null;
}

/** The start time of process `pid` as /proc says it, null without /proc, undefined when there is no such process. */
function startTimeOf(pid: number): string | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    if (existsSync('/proc/self/stat')) return undefined; // /proc is there: no such process
    return aliveWithoutProc(pid) ? null : undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function aliveWithoutProc(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderIsAlive(record: LockRecord): boolean {
  const start = startTimeOf(record.pid);
  if (start === undefined) return false;
  return record.start === null || start === null || start === record.start;
}

function readRecord(path: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockRecord>;
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return { pid: parsed.pid, start: typeof parsed.start === 'string' ? parsed.start : null };
  } catch {
    return undefined; // unreadable or torn (a holder killed while writing it): stale
  }
}

/** A held lock on a data directory; `release` removes it (idempotent). */
export interface DataDirLock {
  release(): void;
}

/** Takes the lock of data directory `root` (which must exist) or throws DATA_DIR_LOCKED naming the holder. */
export function lockDataDir(root: string): DataDirLock {
  const key = resolve(root);
  const path = join(root, LOCK_FILE_NAME);
  if (held.has(key)) {
    throw new NodeError('DATA_DIR_LOCKED', `the data directory is open in this process already`, { file: path });
  }
  const mine: LockRecord = { pid: process.pid, start: startTimeOf(process.pid) ?? null };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new NodeError('IO', 'cannot create the data directory lock', { file: path, cause: error });
      }
    }
    const holder = readRecord(path);
    if (holder !== undefined && holderIsAlive(holder) && holder.pid !== process.pid) {
      throw new NodeError('DATA_DIR_LOCKED', `the data directory is in use by process ${holder.pid}`, { file: path });
    }
    if (attempt > 0) {
      // Replaced twice and still taken: another process is taking the stale lock at the same moment.
      throw new NodeError('DATA_DIR_LOCKED', 'the data directory is being opened by another process', { file: path });
    }
    // Stale: move it aside (one of two racing processes wins the rename's target), then create ours again.
    try {
      renameSync(path, `${path}.stale-${process.pid}`);
      unlinkSync(`${path}.stale-${process.pid}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new NodeError('IO', 'cannot replace a stale data directory lock', { file: path, cause: error });
      }
    }
  }
  held.add(key);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      held.delete(key);
      const holder = readRecord(path);
      if (holder?.pid !== process.pid) return;
      try {
        unlinkSync(path);
      } catch {
        // gone already: nothing to release
      }
    },
  };
}
