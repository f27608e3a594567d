// The genesis LedgerHeader (LedgerManager::genesisLedger, as LedgerManagerImpl::startNewLedger adjusts and closes
// it). Its SHA-256 is ledger 2's previousLedgerHash, and its bucketListHash covers every genesis entry, so checking
// ledger 2's previousLedgerHash against it checks the whole genesis state, including the entries no stream shows.
import { booleanOr, bytesOf, integerIn, optionsRecord } from '../arguments.js';
import { LedgerStateError, LedgerStateErrorCode } from '../errors.js';
import { GENESIS_LEDGER_SEQ, GENESIS_LEDGER_TOTAL_COINS } from './genesis-accounts.js';
import { genesisProtocol, invalidGenesis } from './genesis-options.js';
import { XdrOutput } from './xdr-struct.js';

/** LedgerManager's genesis constants (LedgerManagerImpl.cpp). */
export const GENESIS_LEDGER = {
  /** GENESIS_LEDGER_VERSION: the protocol of a genesis without USE_CONFIG_FOR_GENESIS. */
  version: 0,
  baseFee: 100,
  baseReserve: 100_000_000,
  maxTxSetSize: 100,
} as const;

/** Config's TESTING_UPGRADE_MAX_TX_SET_SIZE default: the genesis maxTxSetSize with USE_CONFIG_FOR_GENESIS. */
const TESTING_UPGRADE_MAX_TX_SET_SIZE = 50;

const ZERO_HASH = new Uint8Array(32);

export interface GenesisHeaderOptions {
  /** The genesis protocol. */
  readonly protocolVersion: number;
  /** The bucketListHash of the list holding the genesis entries (32 bytes). */
  readonly bucketListHash: Uint8Array;
  /**
   * USE_CONFIG_FOR_GENESIS: the header takes its protocol, base fee, base reserve and max tx set size from the test
   * Config (TESTING_UPGRADE_*) rather than LedgerManager's genesis constants. Default: true unless the protocol is 0.
   */
  readonly useConfigForGenesis?: boolean;
  /** TESTING_UPGRADE_DESIRED_FEE (default 100; only with useConfigForGenesis). */
  readonly baseFee?: number;
  /** TESTING_UPGRADE_RESERVE (default 100,000,000; only with useConfigForGenesis). */
  readonly baseReserve?: number;
  /** TESTING_UPGRADE_MAX_TX_SET_SIZE (default 50; only with useConfigForGenesis). */
  readonly maxTxSetSize?: number;
}

/**
 * The XDR of the genesis LedgerHeader: ledgerSeq 1, all coins, the given bucketListHash, zero hashes, close time 0,
 * no upgrades, fee pool 0, empty skip list (calculateSkipValues changes nothing at ledger 1), ext v0. Pure.
 */
export function genesisLedgerHeader(options: GenesisHeaderOptions): Uint8Array {
  const record = optionsRecord(options, 'options', false);
  const protocolVersion = genesisProtocol(record.protocolVersion, 'protocolVersion');
  const bucketListHash = bytesOf(record.bucketListHash, 'bucketListHash');
  if (bucketListHash.length !== 32) {
    throw new LedgerStateError(LedgerStateErrorCode.INVALID_ARGUMENT, 'bucketListHash must be 32 bytes', {
      field: 'bucketListHash',
    });
  }
  const useConfig = booleanOr(record.useConfigForGenesis, 'useConfigForGenesis', protocolVersion !== 0);
  const testing = (name: string, fallback: number): number => {
    const value = record[name];
    if (value === undefined) return fallback;
    if (!useConfig) throw invalidGenesis(`${name} is a TESTING_UPGRADE_* value: it needs useConfigForGenesis`, name);
    return integerIn(value, name, 0, 0xffff_ffff);
  };
  if (!useConfig && protocolVersion !== GENESIS_LEDGER.version) {
    throw invalidGenesis(
      `without useConfigForGenesis the genesis protocol is ${GENESIS_LEDGER.version}`,
      'protocolVersion',
    );
  }
  const baseFee = testing('baseFee', GENESIS_LEDGER.baseFee);
  const baseReserve = testing('baseReserve', GENESIS_LEDGER.baseReserve);
  const maxTxSetSize = testing(
    'maxTxSetSize',
    useConfig ? TESTING_UPGRADE_MAX_TX_SET_SIZE : GENESIS_LEDGER.maxTxSetSize,
  );

  const out = new XdrOutput();
  out.uint32(protocolVersion).opaque(ZERO_HASH); // ledgerVersion, previousLedgerHash
  // scpValue: StellarValue {txSetHash, closeTime, upgrades<6>, ext STELLAR_VALUE_BASIC}
  out.opaque(ZERO_HASH).uint64(0).uint32(0).uint32(0);
  out.opaque(ZERO_HASH).opaque(bucketListHash); // txSetResultHash, bucketListHash
  out.uint32(GENESIS_LEDGER_SEQ).int64(GENESIS_LEDGER_TOTAL_COINS).int64(0); // ledgerSeq, totalCoins, feePool
  out.uint32(0).uint64(0); // inflationSeq, idPool
  out.uint32(baseFee).uint32(baseReserve).uint32(maxTxSetSize);
  for (let i = 0; i < 4; i++) out.opaque(ZERO_HASH); // skipList
  out.uint32(0); // ext v0
  return out.finish();
}
