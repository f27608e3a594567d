// @strata/ledger-state: follow a Stellar network ledger by ledger exactly as stellar-core commits it — the live and
// hot-archive BucketLists, the in-memory Soroban state, and every ledger's bucketListHash checked against its header.
export { LedgerStateError, LedgerStateErrorCode, type LedgerStateErrorContext } from './errors.js';
export {
  type EvictedEntry,
  type EvictionScanInput,
  type EvictionScanResult,
  type EvictionSettings,
  FIRST_PROTOCOL_EVICTION,
  FIRST_PROTOCOL_NEWEST_VERSION_EVICTED,
  FIRST_PROTOCOL_PERSISTENT_EVICTION,
  scanForEviction,
} from './eviction/scan.js';
export { withScannedEvictions } from './eviction/scanned-evictions.js';
export {
  decodeEvictionIterator,
  decodeStateArchivalSettings,
  EVICTION_ITERATOR_BODY_BYTES,
  type EvictionIterator,
  encodeEvictionIterator,
  evictionIteratorEntry,
  STATE_ARCHIVAL_BODY_BYTES,
  type StateArchivalSettings,
} from './eviction/settings.js';
export {
  type FirstLedgerAfterGenesis,
  GENESIS_LEDGER,
  type GenesisHeaderOptions,
  type GenesisOptions,
  GenesisReveals,
  type GenesisTestConfig,
  genesisEntries,
  genesisLedgerHeader,
  genesisProtocolOf,
  genesisTestConfigOf,
  MAX_GENESIS_PROTOCOL_VERSION,
  MAX_GENESIS_TEST_ACCOUNTS,
  networkId,
  rootAccountId,
} from './genesis/index.js';
export { type GenesisStateOptions, genesisState } from './genesis-state.js';
export {
  type AppliedLedger,
  type GenesisLedger,
  LedgerState,
  type LedgerStateEvent,
  type LedgerStateOptions,
  type ReplayRules,
} from './ledger-state.js';
export {
  genesisOf,
  type ReplayOptions,
  type ReplaySummary,
  replayCaptureFolder,
  replaySource,
  streamFilesUnder,
  TEST_NETWORK_PASSPHRASE,
} from './replay.js';
export { SorobanState } from './soroban-state/soroban-state.js';
export { LEDGER_STATE_FORMAT_VERSION, STATE_FILE_NAME } from './state-file.js';
