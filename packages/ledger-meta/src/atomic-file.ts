// Crash-safe file creation for the writers: content goes to a temporary sibling, is fsynced, then renamed over the
// final name, so a reader sees either no file or the whole file, never a torn one.
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A file being written. Bytes appended with `write` land in `<path>.tmp-<pid>`; `commit()` fsyncs and renames it to
 * `path`; `abort()` deletes it. Not safe for concurrent use. Durability: the rename is durable only after the
 * directory is fsynced (`fsyncDirectory`), which the writers do when they finish.
 */
export class AtomicFile {
  private constructor(
    readonly path: string,
    private readonly tempPath: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(path: string): Promise<AtomicFile> {
    await mkdir(dirname(path), { recursive: true });
    const tempPath = `${path}.tmp-${process.pid}`;
    return new AtomicFile(path, tempPath, await open(tempPath, 'w'));
  }

  async write(bytes: Uint8Array): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
  }

  async commit(): Promise<void> {
    await this.handle.sync();
    await this.handle.close();
    await rename(this.tempPath, this.path);
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.tempPath, { force: true });
  }
}

/** Writes a whole file atomically (temp, fsync, rename). */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const file = await AtomicFile.create(path);
  try {
    await file.write(bytes);
    await file.commit();
  } catch (error) {
    await file.abort();
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
