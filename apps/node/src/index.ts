// strata: the Strata node — data directory, per-ledger pipeline over the ledger state and both event tiers (hot
// chunk, frozen cold chunks), the synthetic generator as a source, verify, CLI.
export { main } from './cli.js';
export {
  type DataDirLayout,
  dataDirLayout,
  NODE_FILE_NAME,
  NODE_FORMAT_VERSION,
  type NodeFile,
  readNodeFile,
} from './data-dir.js';
export { NodeError, NodeErrorCode, type NodeErrorContext } from './errors.js';
export { DEFAULT_RETENTION_LEDGERS, retentionFloor } from './event-chunks.js';
export {
  GENERATOR_EVICTION_PARAMS,
  GENERATOR_PASSPHRASE,
  GENERATOR_PROTOCOL,
  type GeneratorSource,
  generatorGenesis,
  type NodeSource,
  withScannedEvictions,
} from './generator-source.js';
export {
  type CommittedLedger,
  type IngestSummary,
  type LatestLedger,
  type NodeOptions,
  POSITION_INTERVAL_LEDGERS,
  type StartupPhase,
  StrataNode,
} from './node.js';
export {
  createRpcServer,
  DEFAULT_RPC_CONFIG,
  loadRpcConfigFile,
  type NodeRpcBackend,
  nodeRpcBackend,
  RecentLedgers,
  RPC_CODE,
  type RpcBackend,
  type RpcConfig,
  RpcError,
  RpcErrorCode,
  type RpcServer,
  type RpcServerOptions,
  rpcConfigFrom,
} from './rpc/index.js';
export { type VerifyReport, verifyDataDir } from './verify.js';
