// `strata verify`: every file of a data directory that has a hash, checked against it, reading every byte.
//
//   - bucket files: each bucket has.json names (both BucketLists, pending merges' outputs and inputs included) is
//     read whole by @strata/bucket-list's verifyBucketFile: its SHA-256 against the hash it is named by, every
//     entry's XDR, the META rules and the order;
//   - frozen cold chunks: openFrozenChunk checks the manifest against the files (sizes, content hashes as the
//     trailers record them, index.hash's header and MPHF CRC32C, build id); then events.pack and index.pack are
//     read back whole (every record's CRC checked and inflated) and their SHA-256 content hash computed again from
//     the items and compared with the trailer's (which the manifest's equals).
//
// The first file that does not match is NodeError VERIFY_FAILED naming it (the package's error as `cause`). Run it
// on a node that is not ingesting: merges and freezes replace files under a running node.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BucketKind,
  bucketFileName,
  type FutureBucketState,
  type HasLevel,
  parseHistoryArchiveState,
  verifyBucketFile,
  ZERO_HASH,
} from '@strata/bucket-list';
import {
  chunkFileNames,
  EVENTS_PACK_FORMAT_ID,
  INDEX_PACK_FORMAT_ID,
  openFrozenChunk,
  PackfileReader,
  type Storage,
} from '@strata/cold-store';
import { dataDirLayout, readNodeFile } from './data-dir.js';
import { NodeError } from './errors.js';
import { coldChunkIds, coldLocation, isFrozen } from './event-chunks.js';
import { coldChunkDir } from './freezer.js';

/** What verify checked. */
export interface VerifyReport {
  /** Bucket files read and matched. */
  readonly buckets: number;
  /** Frozen chunks checked (three files and a manifest each). */
  readonly coldChunks: number;
  /** Cold folders without a manifest (an interrupted freeze: not served, not checked). */
  readonly unfrozenColdFolders: number;
}

/** Items read back per call while hashing a pack. */
const HASH_WINDOW_ITEMS = 4096;

export async function verifyDataDir(dataDir: string): Promise<VerifyReport> {
  const layout = dataDirLayout(dataDir);
  if (readNodeFile(layout) === undefined) {
    throw new NodeError('BAD_DATA_DIR', 'no node.json: not a data directory', { file: layout.root });
  }
  const buckets = verifyBuckets(layout.stateDir);
  let coldChunks = 0;
  let unfrozenColdFolders = 0;
  for (const chunkId of coldChunkIds(layout)) {
    if (!isFrozen(layout, chunkId)) {
      unfrozenColdFolders++;
      continue;
    }
    await verifyColdChunk(layout, chunkId);
    coldChunks++;
  }
  return { buckets, coldChunks, unfrozenColdFolders };
}

function verifyBuckets(stateDir: string): number {
  const hasPath = join(stateDir, 'has.json');
  if (!existsSync(hasPath)) return 0;
  let kinds: Map<string, BucketKind>;
  try {
    const has = parseHistoryArchiveState(readFileSync(hasPath, 'utf8'), hasPath);
    kinds = new Map();
    const add = (levels: readonly HasLevel[] | undefined, kind: BucketKind) => {
      for (const level of levels ?? []) {
        for (const hash of [level.curr, level.snap, ...futureHashes(level.next)]) {
          if (hash !== ZERO_HASH) kinds.set(hash, kind);
        }
      }
    };
    add(has.currentBuckets, 'live');
    add(has.hotArchiveBuckets, 'hot-archive');
  } catch (error) {
    throw new NodeError('VERIFY_FAILED', `has.json cannot be read: ${(error as Error).message}`, {
      file: hasPath,
      cause: error,
    });
  }
  for (const [hash, kind] of kinds) {
    const path = join(stateDir, 'buckets', bucketFileName(hash));
    try {
      verifyBucketFile(path, kind, hash);
    } catch (error) {
      throw new NodeError('VERIFY_FAILED', `bucket ${hash} does not match its hash: ${(error as Error).message}`, {
        file: path,
        cause: error,
      });
    }
  }
  return kinds.size;
}

function futureHashes(next: FutureBucketState): string[] {
  if (next.state === 1) return [next.output];
  if (next.state === 2) return [next.curr, next.snap, ...next.shadow];
  return [];
}

async function verifyColdChunk(layout: ReturnType<typeof dataDirLayout>, chunkId: number): Promise<void> {
  const location = coldLocation(layout, chunkId);
  const names = chunkFileNames(chunkId);
  const failed = (file: string, error: unknown): NodeError =>
    new NodeError('VERIFY_FAILED', `cold chunk ${chunkId}: ${file} does not match: ${(error as Error).message}`, {
      file,
      cause: error,
    });
  try {
    const reader = await openFrozenChunk(location);
    await reader.close();
  } catch (error) {
    const named = (error as { file?: unknown }).file;
    throw failed(
      typeof named === 'string' ? join(coldChunkDir(layout, chunkId), named) : coldChunkDir(layout, chunkId),
      error,
    );
  }
  await verifyPack(
    location.storage,
    names.eventsPack,
    EVENTS_PACK_FORMAT_ID,
    join(coldChunkDir(layout, chunkId), 'packs'),
    failed,
  );
  await verifyPack(
    location.indexStorage,
    names.indexPack,
    INDEX_PACK_FORMAT_ID,
    join(coldChunkDir(layout, chunkId), 'index'),
    failed,
  );
}

/** Reads pack `name` whole (each record's CRC checked) and recomputes its content hash against the trailer's. */
async function verifyPack(
  storage: Storage,
  name: string,
  formatId: number,
  dir: string,
  failed: (file: string, error: unknown) => NodeError,
): Promise<void> {
  const path = join(dir, name);
  let reader: PackfileReader | undefined;
  try {
    reader = await PackfileReader.open(await storage.open(name), formatId);
    const hash = createHash('sha256');
    const length = Buffer.alloc(4);
    for (let start = 0; start < reader.itemCount; start += HASH_WINDOW_ITEMS) {
      const items = await reader.readRange(start, Math.min(reader.itemCount, start + HASH_WINDOW_ITEMS));
      for (const item of items) {
        length.writeUInt32LE(item.length);
        hash.update(length);
        hash.update(item);
      }
    }
    const trailer = reader.contentHash;
    if (trailer === undefined || !Buffer.from(trailer).equals(hash.digest())) {
      throw new Error('the items read back do not hash to the content hash its trailer records');
    }
  } catch (error) {
    throw failed(path, error);
  } finally {
    await reader?.close();
  }
}
