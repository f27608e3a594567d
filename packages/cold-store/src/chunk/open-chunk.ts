// Which tier serves a chunk (spec §3.6 "resolveTier"): the cold files once the chunk's manifest exists — a freeze
// writes it last, after verifying them — else the hot chunk. A manifest is trusted only with the files it names:
// openFrozenChunk refuses files whose sizes, content hashes, index.hash CRC or build id differ from its record.
import type { ChunkReader } from '@strata/events';
import { ColdStoreError, ColdStoreErrorCode, invalidArgument } from '../errors.js';
import {
  type ColdChunkIdentity,
  type ColdChunkLocation,
  ColdChunkReader,
  checkLocation,
  type OpenColdChunkOptions,
} from './cold-chunk-reader.js';
import { chunkFileNames, corrupt, MANIFEST_BYTES, sameBytes } from './layout.js';
import { type ChunkManifest, decodeManifest } from './manifest.js';

/** Options of openChunk. */
export interface OpenChunkOptions extends OpenColdChunkOptions {
  /**
   * The hot chunk, used while the chunk is not frozen: a reader, or a function that opens one (called only then).
   * Without it an unfrozen chunk is NOT_FOUND.
   */
  readonly hot?: ChunkReader | (() => ChunkReader | Promise<ChunkReader>);
}

/** The reader that serves a chunk and the tier it belongs to. */
export type OpenedChunk =
  | { readonly tier: 'cold'; readonly reader: ColdChunkReader }
  | { readonly tier: 'hot'; readonly reader: ChunkReader };

/** Reads and checks the chunk's manifest; NOT_FOUND when the chunk is not frozen. */
export async function readManifest(location: ColdChunkLocation): Promise<ChunkManifest> {
  checkLocation(location);
  const name = chunkFileNames(location.chunkId).manifest;
  const file = await location.storage.open(name);
  try {
    // One byte more than a manifest: a longer file is refused by decodeManifest without reading it all.
    const bytes = await file.read(0, Math.min(file.size, MANIFEST_BYTES + 1));
    return decodeManifest(bytes, file.name, location.chunkId);
  } finally {
    await file.close();
  }
}

/**
 * Opens a frozen chunk: its manifest, then the three files (ColdChunkReader.open), which must be the ones the
 * manifest records. NOT_FOUND when there is no manifest; CORRUPT when the files are not the manifest's.
 */
export async function openFrozenChunk(options: OpenColdChunkOptions): Promise<ColdChunkReader> {
  const manifest = await readManifest(options);
  const reader = await ColdChunkReader.open(options);
  const mismatch = differs(manifest, reader.identity);
  if (mismatch !== undefined) {
    await reader.close();
    corrupt(chunkFileNames(options.chunkId).manifest, `the chunk's files do not match its manifest: ${mismatch}`);
  }
  return reader;
}

function differs(manifest: ChunkManifest, id: ColdChunkIdentity): string | undefined {
  if (!sameBytes(manifest.buildId, id.buildId)) return 'build id';
  if (manifest.eventCount !== id.eventCount) return `${id.eventCount} events, the manifest says ${manifest.eventCount}`;
  if (manifest.termCount !== id.termCount) return `${id.termCount} terms, the manifest says ${manifest.termCount}`;
  if (manifest.eventsPackBytes !== id.eventsPackBytes) return 'events.pack size';
  if (manifest.indexPackBytes !== id.indexPackBytes) return 'index.pack size';
  if (manifest.indexHashBytes !== id.indexHashBytes) return 'index.hash size';
  if (id.eventsContentHash === undefined || !sameBytes(manifest.eventsContentHash, id.eventsContentHash)) {
    return 'events.pack content hash';
  }
  if (id.indexContentHash === undefined || !sameBytes(manifest.indexContentHash, id.indexContentHash)) {
    return 'index.pack content hash';
  }
  if (manifest.indexHashCrc !== id.indexHashCrc) return 'index.hash CRC';
  return undefined;
}

/**
 * The reader that serves the chunk now: cold when its manifest exists (a damaged cold chunk is reported, not
 * replaced by the hot one: ColdStoreError), else hot (`options.hot`), else NOT_FOUND. The switch is the manifest's
 * rename: a reader opened before a freeze finished keeps serving from hot, and every open after it serves cold.
 */
export async function openChunk(options: OpenChunkOptions): Promise<OpenedChunk> {
  checkLocation(options);
  const { hot, ...location } = options;
  if (hot !== undefined && typeof hot !== 'function' && (typeof hot !== 'object' || hot === null)) {
    invalidArgument('hot', 'expected a ChunkReader or a function that opens one');
  }
  const name = chunkFileNames(location.chunkId).manifest;
  if (await location.storage.exists(name)) return { tier: 'cold', reader: await openFrozenChunk(location) };
  if (hot === undefined) {
    throw new ColdStoreError(ColdStoreErrorCode.NOT_FOUND, `chunk ${location.chunkId} is not frozen`, { file: name });
  }
  return { tier: 'hot', reader: typeof hot === 'function' ? await hot() : hot };
}
