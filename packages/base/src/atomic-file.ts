// Crash-safe file creation: content goes to a temporary sibling, is fsynced, then renamed over the final name, and
// the directory is fsynced. After a crash at any moment a reader finds the old file (or none) or the whole new one,
// never a torn one; a temporary file may be left behind (its name ends in `.tmp-<pid>-<thread>-<n>`, see
// `isAtomicTempName`), for the owner to sweep at open.
//
// Errors are node:fs's own (ErrnoException); each package maps them to its error class with the file in context.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';

/** Options of a commit. */
export interface CommitOptions {
  /**
   * fsync the file before the rename (default true). false keeps the write atomic against a crash of the process
   * (the rename replaces the old file whole, from the page cache) but not against a power cut: for callers whose
   * data can be rebuilt, or that make it durable later themselves. false also skips the directory fsync.
   */
  readonly fsync?: boolean;
  /**
   * fsync the directory after the rename, which makes the new name durable (default true). A writer that commits
   * many files into one directory may pass false and call `fsyncDirectory` once at the end.
   */
  readonly fsyncDirectory?: boolean;
}

let tempSequence = 0;

/** A temporary sibling of `path`, unique across the processes and threads writing into its directory. */
export function atomicTempPath(path: string): string {
  return `${path}.tmp-${process.pid}-${threadId}-${tempSequence++}`;
}

/** True for a name `atomicTempPath` made (a leftover of a crash, when found at open). */
export function isAtomicTempName(name: string): boolean {
  return /\.tmp-\d+-\d+-\d+$/.test(name);
}

/**
 * A file being written, asynchronously. Bytes appended with `write` land in a temporary sibling; `commit()` fsyncs
 * it, renames it to `path` and fsyncs the directory; `abort()` deletes it. One caller at a time.
 */
export class AtomicFile {
  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly handle: FileHandle,
  ) {}

  /** Opens the temporary file (creating the parent directory if needed). */
  static async create(path: string): Promise<AtomicFile> {
    await mkdir(dirname(path), { recursive: true });
    const tempPath = atomicTempPath(path);
    return new AtomicFile(path, tempPath, await open(tempPath, 'wx'));
  }

  async write(bytes: Uint8Array): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
  }

  async commit(options: CommitOptions = {}): Promise<void> {
    const fsync = options.fsync !== false;
    if (fsync) await this.handle.sync();
    await this.handle.close();
    await rename(this.tempPath, this.path);
    if (fsync && options.fsyncDirectory !== false) await fsyncDirectory(dirname(this.path));
  }

  /** Deletes the temporary file; never throws (it is called on paths that are already failing). */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.tempPath, { force: true }).catch(() => undefined);
  }
}

/** The synchronous twin of AtomicFile, for writers that run on a worker thread or inside a synchronous call. */
export class AtomicFileSync {
  private constructor(
    readonly path: string,
    readonly tempPath: string,
    /** The temporary file's descriptor, for positioned writes (`writeSync(fd, bytes, 0, n, position)`). */
    readonly fd: number,
  ) {}

  static create(path: string): AtomicFileSync {
    mkdirSync(dirname(path), { recursive: true });
    const tempPath = atomicTempPath(path);
    return new AtomicFileSync(path, tempPath, openSync(tempPath, 'wx'));
  }

  write(bytes: Uint8Array): void {
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
  }

  commit(options: CommitOptions = {}): void {
    const fsync = options.fsync !== false;
    if (fsync) fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(this.tempPath, this.path);
    if (fsync && options.fsyncDirectory !== false) fsyncDirectorySync(dirname(this.path));
  }

  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed by a failed commit
    }
    rmSync(this.tempPath, { force: true });
  }
}

/** Writes a whole file atomically (temp, fsync, rename, directory fsync; see CommitOptions). */
export async function writeFileAtomic(path: string, bytes: Uint8Array, options: CommitOptions = {}): Promise<void> {
  const file = await AtomicFile.create(path);
  try {
    await file.write(bytes);
    await file.commit(options);
  } catch (error) {
    await file.abort();
    throw error;
  }
}

/** Writes a whole file atomically, synchronously. */
export function writeFileAtomicSync(path: string, bytes: Uint8Array, options: CommitOptions = {}): void {
  const file = AtomicFileSync.create(path);
  try {
    file.write(bytes);
    file.commit(options);
  } catch (error) {
    file.abort();
    throw error;
  }
}

/** Makes renames and creations inside `directory` durable (POSIX: fsync the directory itself). */
export async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The synchronous twin of fsyncDirectory. */
export function fsyncDirectorySync(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
