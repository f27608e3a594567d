// The strata node's JSON-RPC server (Stellar RPC methods over an RpcBackend) and the StrataNode backend.
export type {
  ChunkOpener,
  ChunkOpenerModule,
  ChunkTier,
  FoundLedgerEntry,
  LatestLedgerInfo,
  RpcBackend,
  ServedRange,
} from './backend.js';
export {
  DEFAULT_RPC_CONFIG,
  loadRpcConfigFile,
  parseListen,
  RPC_CONFIG_KEYS,
  type RpcConfig,
  rpcConfigFrom,
} from './config.js';
export { RPC_CODE, RpcError, type RpcErrorBody, RpcErrorCode } from './errors.js';
export { MAX_LEDGER_ENTRY_KEYS, type VersionInfo } from './methods.js';
export {
  type ClosableChunkOpener,
  layoutChunkOpener,
  type NodeRpcBackend,
  nodeRpcBackend,
  RecentLedgers,
  workerLayoutChunkOpener,
} from './node-backend.js';
export { createRpcServer, type RpcLogger, type RpcServer, type RpcServerOptions } from './server.js';
