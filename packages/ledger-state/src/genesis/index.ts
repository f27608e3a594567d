// The public surface of genesis/ (re-exported by the package's src/index.ts): ledger 1 of a stellar-core test
// network, its header, its protocol, and the genesis values a stream reveals.

export { genesisEntries } from './genesis.js';
export { networkId, rootAccountId } from './genesis-accounts.js';
export { GENESIS_LEDGER, type GenesisHeaderOptions, genesisLedgerHeader } from './genesis-header.js';
export {
  type GenesisOptions,
  type GenesisTestConfig,
  MAX_GENESIS_PROTOCOL_VERSION,
  MAX_GENESIS_TEST_ACCOUNTS,
} from './genesis-options.js';
export {
  type FirstLedgerAfterGenesis,
  GenesisReveals,
  genesisProtocolOf,
  genesisTestConfigOf,
} from './stream-evidence.js';
