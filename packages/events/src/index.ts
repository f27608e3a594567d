// @strata/events: the event model shared by the hot tier, the cold tier and the match engine: stored payloads and
// their zero-copy views, event ids, chunk math, LedgerOffsets, index terms, getEvents v1/v2 request validation and
// compilation, the post-filter, v2 cursors, and the chunk-reader interface. Pure and synchronous except the
// ChunkReader interface (which implementations make async); safe to call from any thread.

export {
  bucketOfChunk,
  CHUNKS_PER_BUCKET,
  type ColdFileKind,
  chunkFirstLedger,
  chunkIdOfLedger,
  chunkLastLedger,
  coldFilePath,
  FIRST_LEDGER,
  LEDGERS_PER_CHUNK,
  MAX_CHUNK_ID,
} from './chunk.js';
export type { ChunkReader, FetchedEvent, ReadonlyBitmap } from './chunk-reader.js';
export {
  CURSOR_PREFIX,
  CURSOR_VERSION,
  type CursorPosition,
  decodeCursorV2,
  type EventCursorV2,
  encodeCursorV2,
  MAX_CURSOR_BYTES,
  MAX_CURSOR_FILTERS,
} from './cursor-v2.js';
export { EventsError, EventsErrorCode, JSON_RPC_CODE, type JsonRpcErrorBody, NO_OFFSET } from './errors.js';
export {
  compareEventIds,
  comparePositions,
  type EventPosition,
  formatEventId,
  MAX_EVENT_INDEX,
  MAX_LEDGER,
  MAX_POSITION,
  OP_MASK,
  parseEventId,
  parseToid,
  TX_MASK,
  toid,
} from './event-id.js';
export {
  ANY_TOPIC_COUNT,
  compilePostFilter,
  countDistinctTerms,
  isMatchAll,
  isUnconstrained,
  matchesAnyFilter,
  type PostFilter,
  type StorageFilter,
  type TopicCountConstraint,
  validateStorageFilters,
} from './filter.js';
export { LEDGER_OFFSETS_FORMAT_VERSION, LedgerOffsets, type OrdinalWindow } from './ledger-offsets.js';
export {
  CONTRACT_EVENT_TYPE,
  type ContractEventType,
  decodePayload,
  type EventPayload,
  encodeContractEvent,
  encodePayload,
  PAYLOAD_HEADER_LENGTH,
  PAYLOAD_VERSION,
  PayloadView,
  viewPayload,
} from './payload.js';
export {
  compileV1Filters,
  decodeScValBase64,
  isWindowEndCursor,
  parseV1Cursor,
  V1_DEFAULT_LIMIT,
  V1_LEDGER_SCAN_LIMIT,
  V1_MAX_CONTRACT_IDS,
  V1_MAX_FILTERS,
  V1_MAX_LIMIT,
  V1_MAX_TOPICS,
  type V1EventTypeName,
  type V1Filter,
  type V1Options,
  type V1Request,
  type V1ScanWindow,
  type V1TopicFilter,
  v1ResponseCursor,
  v1ScanWindow,
  v1WindowEndCursor,
  validateGetEventsV1,
} from './request-v1.js';
export {
  V2_DEFAULT_LIMIT,
  V2_DEFAULT_TERM_BUDGET,
  V2_MAX_FILTERS,
  V2_MAX_LIMIT,
  V2_MAX_SCAN_LEDGERS,
  V2_REASON,
  type V2Continuation,
  type V2Options,
  type V2Query,
  type V2Request,
  validateGetEventsV2,
} from './request-v2.js';
export {
  deriveTerms,
  deriveTermsInto,
  eventTypeTermKey,
  INDEXED_FIELD_MASK,
  MAX_TERMS_PER_EVENT,
  MAX_TOPIC_POSITIONS,
  TERM_FIELD,
  TERM_KEY_BYTES,
  TERM_SCHEMA_VERSION,
  type TermField,
  type TermKey,
  TOPIC_COUNT_OVERFLOW_BUCKET,
  termKey,
  termKeyHex,
  topicCountAtLeastTermKeys,
  topicCountBucket,
  topicCountTermKey,
  topicField,
} from './terms.js';
