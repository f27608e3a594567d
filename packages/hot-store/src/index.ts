// @strata/hot-store: the live chunk of the contract-event store in one SQLite database (WAL) through better-sqlite3:
// atomic per-ledger ingest, an in-memory term index with immutable reader snapshots, worker-thread readers with
// their own read-only connections, large fetches shared with a worker thread, crash recovery. Implements @strata/events' ChunkReader.

export { HotStoreError, HotStoreErrorCode, type HotStoreErrorContext } from './errors.js';
export { FANOUT_MIN_GROUPS, FANOUT_REGION_BYTES } from './fetch-fanout.js';
export {
  FETCH_ARITY,
  HotChunkReader,
  type HotReaderOptions,
  MAX_FETCH_EVENTS,
  MAX_LOOKUP_TERMS,
  openHotReader,
} from './hot-reader.js';
export {
  CHECKPOINT_BYTES,
  HotStore,
  type HotStoreOptions,
  type LedgerEvents,
  MAX_BATCH_EVENTS,
  MAX_BATCH_LEDGERS,
  MAX_BATCH_PAYLOAD_BYTES,
  MAX_PAYLOAD_BYTES,
} from './hot-store.js';
export {
  type ConnectionOptions,
  DEFAULT_CACHE_KIB,
  DEFAULT_MMAP_MIB,
  HOT_APPLICATION_ID,
  HOT_SCHEMA_VERSION,
  MAX_CACHE_KIB,
  MAX_MMAP_MIB,
  MIN_CACHE_KIB,
  PAGE_SIZE_BYTES,
  type Synchronous,
} from './schema.js';
export { POSTINGS_BLOB_VERSION } from './slab-postings.js';
export { PROMOTION_THRESHOLD, SLAB_SHIFT } from './term-index.js';
export { type HotTermOrdinals, hotTermOrdinals } from './term-ordinals.js';
