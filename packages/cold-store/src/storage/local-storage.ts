// The local-file backend of the storage seam: a directory on this machine. Reads are positioned fs.read calls on a
// FileHandle's descriptor (the libuv pool, so several run in parallel); maps come from @riaskov/mmap-io (read-only,
// MAP_SHARED), one mapping per file however many times it is opened; residency is mincore(2); writes go through
// @strata/base's AtomicFile (temp sibling, fsync, rename, directory fsync).
import { constants as fsConstants, read as fsRead } from 'node:fs';
import { access, type FileHandle, open, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import mmapModule from '@riaskov/mmap-io';
import { AtomicFile, assert } from '@strata/base';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument, ioError } from '../errors.js';
import { MAX_MAPPED_FILE_BYTES, type Storage, type StorageFile, type StorageWriter } from './storage.js';

// The package's .d.ts declares an ES default export on a CommonJS module whose module.exports is the binding itself
// (its `exports.default` is lost when module.exports is replaced): a default import is the binding at run time, and
// the type checker needs telling.
const mmap = mmapModule as unknown as typeof mmapModule.default;

/** Linux's MADV_PAGEOUT (5.4+): reclaims the pages of the range that only this mapping maps. mmap-io passes any int
 * through to madvise(2) but does not name this one. */
const MADV_PAGEOUT = 21 as Parameters<typeof mmap.advise>[1];

/**
 * One positioned read into target[at, end) on the libuv pool. The callback form of fs.read: with several reads in
 * flight it costs the JS thread about half what FileHandle.read does (measured: ~11 vs ~25 µs per 4 KiB read).
 */
function preadOnce(fd: number, target: Uint8Array, at: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fsRead(fd, target, at, target.length - at, position, (error, bytesRead) => {
      if (error === null) resolve(bytesRead);
      else reject(error);
    });
  });
}

/**
 * The live mapping of each file, by identity (device, inode, size, mtime), so that every LocalFile of one file shares
 * one mapping: a reader opened per request maps nothing new, and dropCache() through any handle reaches pages the
 * others read (MADV_PAGEOUT skips a page that two mappings map, even two of one process). Weak: a mapping is still
 * unmapped when the last view of it dies, and its entry goes with it. An entry cannot name another file: a live
 * mapping keeps its inode allocated, so no other file can take the inode number while the entry resolves.
 */
const sharedMappings = new Map<string, WeakRef<ArrayBuffer>>();
const forgetMapping = new FinalizationRegistry<string>((key) => {
  if (sharedMappings.get(key)?.deref() === undefined) sharedMappings.delete(key);
});

/** How long dropCache() keeps retrying pages the kernel did not reclaim yet (it blocks the JS thread meanwhile). */
const DROP_CACHE_BUDGET_MS = 20;

/** Pages of `view` (page-aligned, inside a mapping) that are in the page cache. */
function residentPages(view: Uint8Array): number {
  return mmap.incore(view as Buffer)[1];
}

/**
 * Reads one byte of every page of `view` that is in the page cache, entering it in this mapping's page table
 * (MADV_PAGEOUT only reclaims those); pages not in the cache are skipped, which would be read from disk only to be
 * evicted. Residency comes from mincore (mmap-io's incore) on page-aligned subviews, a 1 MiB span at a time.
 */
function touchResidentPages(view: Uint8Array): void {
  const page = mmap.PAGESIZE;
  const span = 256 * page;
  let touched = 0;
  for (let start = 0; start < view.length; start += span) {
    const chunk = view.subarray(start, Math.min(view.length, start + span));
    if (residentPages(chunk) === 0) continue;
    for (let at = 0; at < chunk.length; at += page) {
      if (residentPages(chunk.subarray(at, at + page)) > 0) touched ^= chunk[at] as number;
    }
  }
  assert(touched >= 0 && touched < 256, 'a byte xor of bytes');
}

/** Checks a storage name: a relative path with `/` separators, no empty, `.` or `..` segments. */
function checkName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name === '' || isAbsolute(name) || name.includes('\\')) {
    invalidArgument('name', `expected a relative file name, got ${JSON.stringify(name)}`);
  }
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      invalidArgument('name', `expected a relative file name without empty, . or .. segments, got ${name}`);
    }
  }
}

/**
 * Files in one directory on local disk.
 *
 * `dropCache()` on its files: Linux 5.4+ only. The file is mapped (map()), its pages that are in the page cache are
 * touched through the mapping, and `madvise(MADV_PAGEOUT)` reclaims them (clean pages only — committed files are
 * fsynced — and only pages no other mapping shares); a few recently read pages may stay (see the method).
 * `MADV_DONTNEED` would not do: on a shared file mapping it only drops this process's page-table entries, and
 * `posix_fadvise` is not reachable from Node. Returns false elsewhere, on older kernels, and for files above
 * MAX_MAPPED_FILE_BYTES.
 */
export class LocalStorage implements Storage {
  constructor(readonly dir: string) {
    if (typeof dir !== 'string' || dir === '') invalidArgument('dir', 'expected a directory path');
  }

  /** The path of `name` on disk. */
  pathOf(name: string): string {
    checkName(name);
    return join(this.dir, name);
  }

  async open(name: string): Promise<StorageFile> {
    const path = this.pathOf(name);
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, 'r');
      const stat = await handle.stat({ bigint: true });
      if (!stat.isFile()) throw new ColdStoreError(ColdStoreErrorCode.IO, 'not a regular file', { file: path });
      const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
      return new LocalFile(path, Number(stat.size), handle, identity);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      throw ioError(error, path, 'open');
    }
  }

  async createWriter(name: string): Promise<StorageWriter> {
    const path = this.pathOf(name);
    try {
      return new LocalWriter(await AtomicFile.create(path));
    } catch (error) {
      throw ioError(error, path, 'create');
    }
  }

  async exists(name: string): Promise<boolean> {
    const path = this.pathOf(name);
    try {
      await access(path, fsConstants.F_OK);
      return true;
    } catch (error) {
      const thrown = ioError(error, path, 'access');
      if (thrown.code === ColdStoreErrorCode.NOT_FOUND) return false;
      throw thrown;
    }
  }

  async remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    try {
      await rm(path, { force: true });
    } catch (error) {
      throw ioError(error, path, 'remove');
    }
  }
}

/** An open local file. Reads in flight are tracked so close() can wait for them before closing the descriptor. */
class LocalFile implements StorageFile {
  private mapping: Uint8Array | undefined;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly name: string,
    readonly size: number,
    private readonly handle: FileHandle,
    /** Key of sharedMappings: the file's device, inode, size and modification time. */
    private readonly identity: string,
  ) {}

  read(offset: number, length: number, into?: Uint8Array): Promise<Uint8Array> {
    try {
      this.checkRead(offset, length, into);
    } catch (error) {
      return Promise.reject(error);
    }
    const target = into === undefined ? new Uint8Array(length) : into.subarray(0, length);
    const pending = this.readFully(offset, target);
    this.inFlight.add(pending);
    return pending.finally(() => this.inFlight.delete(pending));
  }

  private checkRead(offset: number, length: number, into: Uint8Array | undefined): void {
    checkInteger(offset, 0, Number.MAX_SAFE_INTEGER, 'offset');
    checkInteger(length, 0, Number.MAX_SAFE_INTEGER, 'length');
    if (into !== undefined && (!(into instanceof Uint8Array) || into.length < length)) {
      invalidArgument('into', `expected a Uint8Array of at least ${length} bytes`);
    }
    if (this.closed) throw this.closedError();
    if (offset + length > this.size) {
      throw new ColdStoreError(
        ColdStoreErrorCode.TRUNCATED,
        `read of ${length} bytes at ${offset} runs past the end of a ${this.size}-byte file`,
        { file: this.name, offset },
      );
    }
  }

  private async readFully(offset: number, target: Uint8Array): Promise<Uint8Array> {
    let done = 0;
    try {
      while (done < target.length) {
        const bytesRead = await preadOnce(this.handle.fd, target, done, offset + done);
        if (bytesRead === 0) {
          throw new ColdStoreError(ColdStoreErrorCode.TRUNCATED, 'the file ended before the read did', {
            file: this.name,
            offset: offset + done,
          });
        }
        done += bytesRead;
      }
    } catch (error) {
      throw ioError(error, this.name, 'read');
    }
    return target;
  }

  map(): Uint8Array {
    if (this.closed) throw this.closedError();
    if (this.mapping !== undefined) return this.mapping;
    if (this.size > MAX_MAPPED_FILE_BYTES) {
      throw new ColdStoreError(
        ColdStoreErrorCode.FILE_TOO_LARGE,
        `a ${this.size}-byte file is above the ${MAX_MAPPED_FILE_BYTES}-byte mapping limit`,
        { file: this.name },
      );
    }
    // mmap(2) refuses a zero length; an empty file is an empty view.
    this.mapping = this.size === 0 ? new Uint8Array(0) : this.mapFile();
    return this.mapping;
  }

  private mapFile(): Uint8Array {
    const shared = sharedMappings.get(this.identity)?.deref();
    if (shared !== undefined) return new Uint8Array(shared, 0, this.size);
    let mapped: Buffer;
    try {
      mapped = mmap.map(this.size, mmap.PROT_READ, mmap.MAP_SHARED, this.handle.fd, 0);
    } catch (error) {
      throw new ColdStoreError(ColdStoreErrorCode.IO, 'mmap failed', { file: this.name, cause: error });
    }
    // The mapping is the whole external ArrayBuffer: every view of it, and any subarray, keeps it mapped.
    assert(mapped.byteOffset === 0 && mapped.buffer.byteLength === this.size, 'a mapping is its own ArrayBuffer');
    const buffer = mapped.buffer as ArrayBuffer;
    sharedMappings.set(this.identity, new WeakRef(buffer));
    forgetMapping.register(buffer, this.identity);
    // A plain Uint8Array over the mapping (subarrays of a Buffer would be Buffers).
    return new Uint8Array(buffer, 0, this.size);
  }

  /** mincore(2) of the pages under [offset, offset + length) of the mapping: whether none would fault to disk. */
  resident(offset: number, length: number): boolean {
    const view = this.map();
    if (length === 0 || this.size === 0) return true;
    const pageStart = offset - (offset % mmap.PAGESIZE);
    try {
      return mmap.incore(view.subarray(pageStart, offset + length) as Buffer)[0] === 0;
    } catch {
      return false; // a platform without mincore: the reader reads instead
    }
  }

  dropCache(): boolean {
    if (this.closed) throw this.closedError();
    if (process.platform !== 'linux' || this.size > MAX_MAPPED_FILE_BYTES) return false;
    const view = this.map();
    if (view.length === 0) return true;
    try {
      // Observed on Linux 6.18: a pass right after a read sometimes evicts nothing and a later one everything, and
      // a recently faulted folio can stay for good (likely one still in another CPU's LRU batch, which PAGEOUT
      // skips and nothing here can drain). So passes repeat, cheaply (only resident pages are touched), until no
      // page is left or DROP_CACHE_BUDGET_MS has passed; a few pages may remain.
      const deadline = performance.now() + DROP_CACHE_BUDGET_MS;
      do {
        touchResidentPages(view);
        mmap.advise(view as Buffer, MADV_PAGEOUT);
      } while (residentPages(view) > 0 && performance.now() < deadline);
      return true;
    } catch (error) {
      if (error instanceof Error && /madvise\(\) failed/.test(error.message)) return false; // no MADV_PAGEOUT
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.mapping = undefined;
    await Promise.allSettled(this.inFlight);
    await this.handle.close().catch(() => undefined);
  }

  private closedError(): ColdStoreError {
    return new ColdStoreError(ColdStoreErrorCode.CLOSED, 'the file is closed', { file: this.name });
  }
}

/** A StorageWriter over AtomicFile, mapping fs errors to ColdStoreError with the final path. */
class LocalWriter implements StorageWriter {
  private written = 0;
  private state: 'open' | 'committed' | 'aborted' = 'open';

  constructor(private readonly file: AtomicFile) {}

  get bytesWritten(): number {
    return this.written;
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.checkOpen();
    try {
      await this.file.write(bytes);
    } catch (error) {
      throw ioError(error, this.file.path, 'write');
    }
    this.written += bytes.length;
  }

  async commit(): Promise<void> {
    this.checkOpen();
    try {
      await this.file.commit();
    } catch (error) {
      throw ioError(error, this.file.path, 'commit');
    }
    this.state = 'committed';
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.file.abort();
  }

  private checkOpen(): void {
    if (this.state !== 'open') {
      throw new ColdStoreError(ColdStoreErrorCode.CLOSED, `the writer was ${this.state}`, { file: this.file.path });
    }
  }
}
