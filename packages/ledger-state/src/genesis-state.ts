// genesisState: the ledger a new test network starts from, in the shape LedgerState.create takes.

import type { GenesisTestConfig } from './genesis/index.js';
import { genesisEntries } from './genesis/index.js';
import type { GenesisLedger } from './ledger-state.js';

export interface GenesisStateOptions {
  /** The network passphrase. */
  readonly passphrase: string;
  /** The genesis protocol: 0 (stellar-core's GENESIS_LEDGER_VERSION) or a Soroban protocol (20 and later). */
  readonly protocol: number;
  /** A test Config that differs from stellar-core's defaults (see GenesisTestConfig). */
  readonly config?: GenesisTestConfig;
  /** Genesis values that replace the defaults (LedgerEntry XDR, lastModifiedLedgerSeq 1), e.g. a stream's reveals. */
  readonly overrides?: readonly Uint8Array[];
}

/**
 * Ledger 1 of a stellar-core test network, as `LedgerManagerImpl::startNewLedger` builds it (see genesisEntries):
 * `LedgerState.create(dir, genesisState({ passphrase, protocol }))` starts a state that follows it.
 */
export function genesisState(options: GenesisStateOptions): GenesisLedger {
  const { passphrase, protocol, config, overrides } = options ?? ({} as GenesisStateOptions);
  const entries = genesisEntries({
    networkPassphrase: passphrase,
    protocolVersion: protocol,
    ...(config === undefined ? {} : { config }),
    ...(overrides === undefined ? {} : { overrides }),
  });
  return { networkPassphrase: passphrase, protocolVersion: protocol, entries };
}
