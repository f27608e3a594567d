// What callers pass to the genesis functions, and its checking: a wrong type or an out-of-range number is
// INVALID_ARGUMENT naming the option; a genesis stellar-core could not have built (an unsupported protocol, a setting
// the Config makes invalid, an override that is not a ledger-1 entry) is BAD_GENESIS.
import { booleanOr, integerIn, invalidArgument, optionsRecord } from '../arguments.js';
import { LedgerStateError, LedgerStateErrorCode } from '../errors.js';
import { InitialSorobanNetworkConfig } from './network-config-constants.js';
import type { SorobanGenesisConfig } from './soroban-genesis.js';

/** The newest protocol genesis is ported for: Config::CURRENT_LEDGER_PROTOCOL_VERSION at stellar-core a9b8613. */
export const MAX_GENESIS_PROTOCOL_VERSION = 28;

/** The most GENESIS_TEST_ACCOUNT_COUNT accounts genesisEntries creates (stellar-core's own tests use up to 100,000). */
export const MAX_GENESIS_TEST_ACCOUNTS = 1_000_000;

/**
 * The stellar-core test Config fields genesis reads (src/main/Config.h). Each absent one has its getTestConfig
 * default, which is what a capture used unless its test changed it.
 */
export interface GenesisTestConfig {
  /** TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE: TestOverrideSorobanNetworkConfig's limits (default false). */
  readonly sorobanHighLimitOverride?: boolean;
  /** TESTING_MINIMUM_PERSISTENT_ENTRY_LIFETIME: the genesis `minPersistentTTL` (default 0: not overridden). */
  readonly minimumPersistentEntryLifetime?: number;
  /**
   * OVERRIDE_EVICTION_PARAMS_FOR_TESTING, when present, with TESTING_EVICTION_SCAN_SIZE,
   * TESTING_MAX_ENTRIES_TO_ARCHIVE and TESTING_STARTING_EVICTION_SCAN_LEVEL (each absent one: its
   * InitialSorobanNetworkConfig value, as in Config's constructor).
   */
  readonly evictionParams?: {
    readonly scanSize?: number;
    readonly maxEntriesToArchive?: number;
    readonly startingScanLevel?: number;
  };
  /** GENESIS_TEST_ACCOUNT_COUNT: accounts `TestAccount-<i>` sharing the total coins with the root (default 0). */
  readonly testAccountCount?: number;
}

/** The options of genesisEntries. */
export interface GenesisOptions {
  /** The network passphrase; its SHA-256 (the network id) is the root account's seed. */
  readonly networkPassphrase: string;
  /** The genesis protocol (TESTING_UPGRADE_LEDGER_PROTOCOL_VERSION; 0 without USE_CONFIG_FOR_GENESIS), 0..28. */
  readonly protocolVersion: number;
  readonly config?: GenesisTestConfig;
  /**
   * LedgerEntry XDR with lastModifiedLedgerSeq 1, each replacing the genesis entry of its key (or adding one genesis
   * did not make): the values a stream reveals (see GenesisReveals). Accounts and config settings only.
   */
  readonly overrides?: readonly Uint8Array[];
}

export function invalidGenesis(detail: string, field: string, cause?: unknown): LedgerStateError {
  return new LedgerStateError(
    LedgerStateErrorCode.BAD_GENESIS,
    detail,
    cause === undefined ? { field } : { field, cause },
  );
}

/** A genesis protocol: an integer the port covers (0..MAX_GENESIS_PROTOCOL_VERSION), else BAD_GENESIS. */
export function genesisProtocol(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidArgument(field, 'an integer', value);
  if (value < 0 || value > MAX_GENESIS_PROTOCOL_VERSION) {
    throw invalidGenesis(`no genesis for protocol ${value} (supported: 0..${MAX_GENESIS_PROTOCOL_VERSION})`, field);
  }
  return value;
}

/** GenesisOptions.config checked, with upstream's defaults for every absent field. */
export function resolveTestConfig(value: unknown): { sorobanConfig: SorobanGenesisConfig; testAccountCount: number } {
  const config = optionsRecord(value, 'config', true);
  const eviction =
    config.evictionParams === undefined
      ? undefined
      : optionsRecord(config.evictionParams, 'config.evictionParams', false);
  const uint32Or = (field: unknown, name: string, fallback: number) =>
    field === undefined ? fallback : integerIn(field, name, 0, 0xffff_ffff);
  const sorobanConfig: SorobanGenesisConfig = {
    highLimitOverride: booleanOr(config.sorobanHighLimitOverride, 'config.sorobanHighLimitOverride', false),
    minimumPersistentEntryLifetime: uint32Or(
      config.minimumPersistentEntryLifetime,
      'config.minimumPersistentEntryLifetime',
      0,
    ),
    overrideEvictionParams: eviction !== undefined,
    evictionScanSize: uint32Or(
      eviction?.scanSize,
      'config.evictionParams.scanSize',
      InitialSorobanNetworkConfig.EVICTION_SCAN_SIZE,
    ),
    maxEntriesToArchive: uint32Or(
      eviction?.maxEntriesToArchive,
      'config.evictionParams.maxEntriesToArchive',
      InitialSorobanNetworkConfig.MAX_ENTRIES_TO_ARCHIVE,
    ),
    startingEvictionScanLevel: uint32Or(
      eviction?.startingScanLevel,
      'config.evictionParams.startingScanLevel',
      InitialSorobanNetworkConfig.STARTING_EVICTION_SCAN_LEVEL,
    ),
  };
  const testAccountCount =
    config.testAccountCount === undefined
      ? 0
      : integerIn(config.testAccountCount, 'config.testAccountCount', 0, MAX_GENESIS_TEST_ACCOUNTS);
  return { sorobanConfig, testAccountCount };
}
