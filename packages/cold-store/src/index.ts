// @strata/cold-store: frozen chunks of the contract-event store — immutable packfiles (events.pack, index.pack), an
// MPHF term index (index.hash) queried in place from a memory map with zero-copy roaring views, batched concurrent
// fetches, and freezing a hot chunk into them with verification and an atomic switch. Implements @strata/events'
// ChunkReader. Formats: FORMAT.md.

export {
  type ColdChunkIdentity,
  type ColdChunkLocation,
  ColdChunkReader,
  type ColdReadOptions,
  DEFAULT_FETCH_CONCURRENCY,
  MAX_FETCH_EVENTS,
  MAX_LOOKUP_TERMS,
  type OpenColdChunkOptions,
} from './chunk/cold-chunk-reader.js';
export {
  type ChunkTermOrdinals,
  DEFAULT_EVENTS_COMPRESSION_LEVEL,
  DEFAULT_POSTINGS_MEMORY_BYTES,
  type FreezeOptions,
  type FreezeResult,
  freezeChunk,
  MIN_POSTINGS_MEMORY_BYTES,
} from './chunk/freeze.js';
export {
  type ChunkFileNames,
  chunkFileNames,
  DEFAULT_EVENTS_PER_RECORD,
  EVENTS_PACK_FORMAT_ID,
  INDEX_HASH_VERSION,
  INDEX_PACK_FORMAT_ID,
  MANIFEST_VERSION,
} from './chunk/layout.js';
export { type OpenChunkOptions, type OpenedChunk, openChunk, openFrozenChunk } from './chunk/open-chunk.js';
export { ColdStoreError, ColdStoreErrorCode, type ColdStoreErrorContext } from './errors.js';
export {
  PACKFILE_VERSION,
  PackfileReader,
  type PackfileReaderStats,
  type PackfileReadOptions,
  type PackfileSummary,
  PackfileWriter,
  type PackfileWriterOptions,
} from './packfile/index.js';
export {
  LocalStorage,
  MAX_MAPPED_FILE_BYTES,
  type Storage,
  type StorageFile,
  type StorageWriter,
} from './storage/index.js';
