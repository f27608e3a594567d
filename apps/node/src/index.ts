// strata: the Strata node — data directory, per-ledger pipeline over the ledger state and the hot event chunk, CLI.
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
export {
  type IngestSummary,
  type NodeOptions,
  POSITION_INTERVAL_LEDGERS,
  type StartupPhase,
  StrataNode,
} from './node.js';
