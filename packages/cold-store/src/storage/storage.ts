// The storage seam: the only way cold-store readers and writers reach bytes. A reader needs three things of a file —
// its size, a byte range read, and (where the backend can) a read-only memory map — so an object-store backend (S3
// ranged GETs, index files cached on local disk) plugs in behind these interfaces without touching the readers.
// FORMAT.md § "The storage seam" says what a new backend must guarantee.

/**
 * Largest file `StorageFile.map()` maps: 2 GiB minus one 64 KiB page. @riaskov/mmap-io 1.4.3 converts the size and
 * offset arguments with `Nan::To<int>` (a C `int`), so a larger mapping would wrap; keeping each mapped file below
 * this bound is the documented limit (an own small addon taking `size_t` is the way past it).
 */
export const MAX_MAPPED_FILE_BYTES: number = 2 ** 31 - 2 ** 16;

/**
 * One immutable file reached through a Storage backend. Offsets and lengths are byte counts (safe integers).
 *
 * Concurrency: any number of `read` calls may be in flight at once (each is a positioned read; none moves a shared
 * cursor). `map`, `dropCache` and `close` are called from the JS thread. The file must not change while open: the
 * format layer assumes immutable bytes (a local file truncated under a mapping would fault the process).
 */
export interface StorageFile {
  /** For errors: a path for local files, a key for object stores. */
  readonly name: string;
  readonly size: number;
  /**
   * Reads exactly `length` bytes at `offset` into `into` (its first `length` bytes; it must be at least that long)
   * or into a new buffer, and returns those bytes. TRUNCATED if the file is shorter than `offset + length`;
   * INVALID_ARGUMENT for a negative or fractional offset or length or a too-short `into`; CLOSED after close.
   * Local files read on the libuv pool (fs.read), so several reads run in parallel.
   */
  read(offset: number, length: number, into?: Uint8Array): Promise<Uint8Array>;
  /**
   * The whole file mapped read-only, or undefined where the backend cannot map (an object store). The same view on
   * every call. FILE_TOO_LARGE above MAX_MAPPED_FILE_BYTES. A 0-byte file maps to an empty array. The view (and any
   * subarray of it) stays valid while it is referenced, after close() too: the pages are unmapped when the garbage
   * collector frees the last view, never under a live one.
   */
  map(): Uint8Array | undefined;
  /**
   * Optional, for backends that map: whether the mapped bytes [offset, offset + length) are in memory now, so that
   * reading them through map() will not wait for the disk. A hint (a page may be evicted right after); the bytes are
   * the same either way. Readers use it to read resident records from the mapping without a storage read, and the
   * rest with read() (several in flight) instead of page faults taken one at a time on the JS thread. Absent: a
   * mapping is always in memory (an in-memory backend). Call only where map() returns a mapping, inside the file.
   */
  resident?(offset: number, length: number): boolean;
  /**
   * Asks the OS to evict the file's pages from the page cache, for cold-cache benchmarks; returns whether the
   * platform could (see LocalStorage for what works where). Never changes the file's content.
   */
  dropCache(): boolean;
  /** Releases the file (waits for reads in flight). Idempotent. Later reads and maps throw CLOSED. */
  close(): Promise<void>;
}

/**
 * A place files live: a directory for LocalStorage, a bucket prefix for an object store. Names are relative paths
 * with `/` separators (no `..`, not absolute).
 *
 * Durability: a name either does not exist or holds the complete bytes of one committed StorageWriter; a crash never
 * leaves a torn file under a name (a writer's temporary file may be left behind, under a name that
 * `isAtomicTempName` from @strata/base recognises).
 */
export interface Storage {
  /** Opens a committed file. NOT_FOUND if absent, IO for other failures. */
  open(name: string): Promise<StorageFile>;
  /** Atomic write support for writers: a temp file in the same directory, renamed over `name` after fsync. */
  createWriter(name: string): Promise<StorageWriter>;
  exists(name: string): Promise<boolean>;
  /** Removes a committed file; idempotent (absent is fine). */
  remove(name: string): Promise<void>;
}

/**
 * A file being written, append-only. Nothing is visible under the name until `commit()` resolves; after it, the
 * whole file is (and stays, across a crash). One caller at a time: await each call before the next.
 */
export interface StorageWriter {
  /** Appends the bytes (the writer does not keep `bytes` after the promise resolves). */
  write(bytes: Uint8Array): Promise<void>;
  readonly bytesWritten: number;
  /** fsync the file, rename it over the name, fsync the directory. After a failed commit, call abort(). */
  commit(): Promise<void>;
  /** Removes the temp file; idempotent, never throws; a no-op after a successful commit. */
  abort(): Promise<void>;
}
