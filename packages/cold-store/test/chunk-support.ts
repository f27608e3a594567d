// Shared by the chunk-level tests: frozen chunks built from generated input (through the in-memory reference reader
// or a real hot store), storages that cannot map, and file helpers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ChunkReader, deriveTerms, termKeyHex } from '@strata/events';
import { HotStore } from '@strata/hot-store';
// @strata/test-contracts is not (yet) a devDependency of this package: reached by path, as bench files reach
// other packages' bench helpers.
import { type ChunkInput, InMemoryChunkReader } from '@strata/test-contracts';
import { type FreezeSeams, freezeChunkWith } from '../src/chunk/freeze.js';
import {
  type ColdChunkReader,
  ColdStoreError,
  ColdStoreErrorCode,
  type FreezeOptions,
  type FreezeResult,
  LocalStorage,
  type Storage,
  type StorageFile,
  type StorageWriter,
} from '../src/index.js';

import { withoutMapping } from './packfile-support.js';

export { type ChunkInput, InMemoryChunkReader };

/** A directory removed by the returned cleanup (for harnesses that outlive one callback). */
export function scratchDir(prefix = 'cold'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `strata-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A storage whose files cannot be mapped (as an object store): readers fall back to reads. */
export class UnmappedStorage implements Storage {
  constructor(private readonly inner: Storage) {}
  async open(name: string): Promise<StorageFile> {
    return withoutMapping(await this.inner.open(name));
  }
  createWriter(name: string) {
    return this.inner.createWriter(name);
  }
  exists(name: string) {
    return this.inner.exists(name);
  }
  remove(name: string) {
    return this.inner.remove(name);
  }
}

/**
 * Files in memory (a test backend of the storage seam: no fsync, so property suites that freeze hundreds of chunks
 * stay fast). `map()` answers the committed bytes themselves.
 */
export class MemoryStorage implements Storage {
  readonly files = new Map<string, Uint8Array>();

  async open(name: string): Promise<StorageFile> {
    const bytes = this.files.get(name);
    if (bytes === undefined) throw new ColdStoreError(ColdStoreErrorCode.NOT_FOUND, 'no such file', { file: name });
    let closed = false;
    const check = () => {
      if (closed) throw new ColdStoreError(ColdStoreErrorCode.CLOSED, 'closed', { file: name });
    };
    return {
      name,
      size: bytes.length,
      read: async (offset, length, into) => {
        check();
        if (offset + length > bytes.length) {
          throw new ColdStoreError(ColdStoreErrorCode.TRUNCATED, 'read past the end', { file: name, offset });
        }
        const target = into === undefined ? new Uint8Array(length) : into.subarray(0, length);
        target.set(bytes.subarray(offset, offset + length));
        return target;
      },
      map: () => {
        check();
        return bytes;
      },
      dropCache: () => false,
      close: async () => {
        closed = true;
      },
    };
  }

  async createWriter(name: string): Promise<StorageWriter> {
    const parts: Uint8Array[] = [];
    let written = 0;
    let state: 'open' | 'done' = 'open';
    return {
      get bytesWritten() {
        return written;
      },
      write: async (bytes) => {
        if (state !== 'open') throw new ColdStoreError(ColdStoreErrorCode.CLOSED, 'writer done', { file: name });
        parts.push(new Uint8Array(bytes));
        written += bytes.length;
      },
      commit: async () => {
        state = 'done';
        this.files.set(name, new Uint8Array(Buffer.concat(parts)));
      },
      abort: async () => {
        state = 'done';
      },
    };
  }

  async exists(name: string): Promise<boolean> {
    return this.files.has(name);
  }

  async remove(name: string): Promise<void> {
    this.files.delete(name);
  }
}

/** Writes a memory storage's files under `dir` (plain writes, no fsync: for tests that only need the bytes there). */
export function copyToDisk(storage: MemoryStorage, dir: string): void {
  for (const [name, bytes] of storage.files) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
}

/** The two storages of a frozen chunk in `dir`: packs in dir/data, indexes in dir/index. */
export function storagesIn(dir: string): { storage: LocalStorage; indexStorage: LocalStorage } {
  return { storage: new LocalStorage(join(dir, 'data')), indexStorage: new LocalStorage(join(dir, 'index')) };
}

/** Every term of `payloads` with its ordinals, in order of first appearance (the oracle of term lookups). */
export function termsOfPayloads(payloads: readonly Uint8Array[]): Map<string, { key: Uint8Array; ordinals: number[] }> {
  const terms = new Map<string, { key: Uint8Array; ordinals: number[] }>();
  payloads.forEach((payload, ordinal) => {
    for (const key of deriveTerms(payload)) {
      const hex = termKeyHex(key);
      let term = terms.get(hex);
      if (term === undefined) {
        term = { key, ordinals: [] };
        terms.set(hex, term);
      }
      term.ordinals.push(ordinal);
    }
  });
  return terms;
}

/** The chunk id of a generated input. */
export function chunkIdOf(input: ChunkInput): number {
  return Math.floor((input.startLedger - 2) / 10_000);
}

/** A real hot store holding `input` (one batch), closed by the caller. */
export function hotStoreOf(input: ChunkInput, path: string): HotStore {
  const store = HotStore.open(path, { chunkId: chunkIdOf(input), create: true, synchronous: 'normal' });
  if (input.ledgers.length > 0) {
    store.ingestLedgers(input.ledgers.map((payloads, i) => ({ ledger: input.startLedger + i, payloads })));
  }
  return store;
}

/** Freezes `hot` into `dir` (data and index in separate directories). */
export async function freezeInto(
  dir: string,
  hot: ChunkReader,
  options: Partial<FreezeOptions> = {},
  seams: FreezeSeams = {},
): Promise<FreezeResult> {
  return freezeChunkWith({ hot, ...storagesIn(dir), ...options }, seams);
}

/** Freezes `input` through the in-memory reference reader into memory storages; returns the cold reader. */
export async function frozenInMemory(
  input: ChunkInput,
  storages: { storage: Storage; indexStorage: Storage } = {
    storage: new MemoryStorage(),
    indexStorage: new MemoryStorage(),
  },
  options: Partial<FreezeOptions> = {},
): Promise<ColdChunkReader> {
  return (await freezeChunkWith({ hot: new InMemoryChunkReader(input), ...storages, ...options }, {})).reader;
}
