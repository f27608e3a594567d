// @strata/ledger-meta: ledger sources (record streams, SEP-54 data lakes), event and change extraction, and a
// deterministic synthetic-network generator writing the same formats.
// Every function here is either synchronous and stateless (extraction, in-memory iteration: callable from any thread
// or worker) or an async iterator over one file that holds no state beyond the iterator itself.

export type { FoldOptions, LedgerBatch, LedgerEntryChangeKind } from './change-fold.js';
export { LEDGER_ENTRY_CHANGE, LedgerChangeFold } from './change-fold.js';
export type { BatchLocation, DataLakeConfig, DataLakeRange, DataLakeWriterOptions } from './datalake.js';
export {
  batchLocation,
  DATA_LAKE_CONFIG_FILE,
  DATA_LAKE_MANIFEST_VERSION,
  DataLakeWriter,
  DEFAULT_BATCHES_PER_PARTITION,
  DEFAULT_LEDGERS_PER_BATCH,
  encodeLedgerCloseMetaBatch,
  MAX_BATCH_BYTES,
  MAX_BATCH_BYTES_PER_LEDGER,
  readDataLake,
  readDataLakeConfig,
} from './datalake.js';
export type { LedgerMetaErrorContext } from './errors.js';
export { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
export type { ContractEventRecord, ContractEventStage } from './events.js';
// Event ids and TOIDs are @strata/events' (formatEventId, parseEventId, toid, parseToid): one implementation.
export { AFTER_ALL_TXS_TRANSACTION, AFTER_TX_OPERATION, TRANSACTION_EVENT_STAGE } from './events.js';
export type { GeneratedEvent, GeneratedLedger, GeneratorOptions } from './generator.js';
export {
  GENERATOR_LIMITS,
  generateNetwork,
  resolveGeneratorOptions,
  SYNTHETIC_NETWORK_PASSPHRASE,
} from './generator.js';
export type { ExtractOptions, LedgerExtract, LedgerHeaderInfo, RecordLocation } from './ledger-close-meta.js';
export {
  extractLedger,
  LEDGER_CLOSE_META_VERSIONS,
  readLedgerSequence,
  readPreviousLedgerHash,
  validateLedgerCloseMeta,
} from './ledger-close-meta.js';
export type { LedgerSourceKind, LedgerSourceOptions } from './source.js';
// detectLedgerSource: what openLedgerSource will read a path as (strata-meta checks a source with it before reading).
export { detectLedgerSource, openLedgerSource } from './source.js';
export type { LedgerCloseMetaRecord, StreamReadOptions } from './stream.js';
export {
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_READ_BUFFER_BYTES,
  DEFAULT_WHOLE_FILE_BYTES,
  iterateLedgerCloseMetaRecords,
  readLedgerCloseMetaStream,
} from './stream.js';
export { encodeLedgerStream, LedgerStreamWriter, writeLedgerStream } from './stream-writer.js';
export { LCM_SCHEMA_XDR_VERSION } from './xdr-schema.js';
export { MAX_XDR_DEPTH } from './xdr-walker.js';
