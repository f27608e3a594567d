// SorobanNetworkConfig::initializeGenesisLedgerForTesting (stellar-core src/ledger/NetworkConfig.cpp at a9b8613): the
// CONFIG_SETTING entries a test network's genesis holds when the test Config has USE_CONFIG_FOR_GENESIS (the
// default of getTestConfig). Each function below is the upstream function of the same name; they run in upstream
// order against `GenesisSettings`, which stands for the LedgerTxn they create entries in and load them back from.
import { assert } from '@strata/base';
import { CONFIG_SETTING_ID } from '@strata/ledger-key';
import type { ConfigSettingEntry, ConfigSettingEntryOf, ConfigSettingIdOf } from './config-setting-entry.js';
import {
  applyCostUpdate,
  type CostUpdate,
  costParamsFrom,
  initialCpuCostParamsEntryForV20,
  initialMemCostParamsEntryForV20,
  updateCpuCostParamsEntryForV21,
  updateCpuCostParamsEntryForV22,
  updateCpuCostParamsEntryForV25,
  updateCpuCostParamsEntryForV26,
  updateMemCostParamsEntryForV21,
  updateMemCostParamsEntryForV22,
  updateMemCostParamsEntryForV25,
  updateMemCostParamsEntryForV26,
  updateRecalibratedCpuCostTypesForV20,
  updateRecalibratedMemCostTypesForV20,
} from './cost-params.js';
import { invalidGenesis } from './genesis-options.js';
import {
  InitialSorobanNetworkConfig as Initial,
  LIVE_BUCKET_LIST_LEVELS,
  MinimumSorobanNetworkConfig as Minimum,
  Protcol23UpgradedConfig as P23,
  TestOverrideSorobanNetworkConfig as TestOverride,
} from './network-config-constants.js';

const ID = CONFIG_SETTING_ID;

/** SOROBAN_PROTOCOL_VERSION: the first protocol with CONFIG_SETTING entries. */
export const SOROBAN_PROTOCOL_VERSION = 20;

/** The test Config fields genesis reads (src/main/Config.h), resolved to upstream's defaults. */
export interface SorobanGenesisConfig {
  /** TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE */
  readonly highLimitOverride: boolean;
  /** TESTING_MINIMUM_PERSISTENT_ENTRY_LIFETIME; 0 = not overridden. */
  readonly minimumPersistentEntryLifetime: number;
  /** OVERRIDE_EVICTION_PARAMS_FOR_TESTING */
  readonly overrideEvictionParams: boolean;
  /** TESTING_EVICTION_SCAN_SIZE */
  readonly evictionScanSize: number;
  /** TESTING_MAX_ENTRIES_TO_ARCHIVE */
  readonly maxEntriesToArchive: number;
  /** TESTING_STARTING_EVICTION_SCAN_LEVEL */
  readonly startingEvictionScanLevel: number;
}

/** The config settings created so far, by ConfigSettingID: the part of the LedgerTxn genesis writes. */
class GenesisSettings {
  readonly #byId = new Map<number, ConfigSettingEntry>();

  create(entry: ConfigSettingEntry): void {
    assert(!this.#byId.has(entry.id), `config setting ${entry.id} created twice`);
    this.#byId.set(entry.id, entry);
  }

  load<Id extends ConfigSettingIdOf>(id: Id): ConfigSettingEntryOf<Id> {
    const entry = this.#byId.get(id);
    assert(entry !== undefined, `config setting ${id} loaded before it was created`);
    return entry as ConfigSettingEntryOf<Id>;
  }

  /** Every entry, by ascending id (LedgerKey order of CONFIG_SETTING keys). */
  entries(): ConfigSettingEntry[] {
    return [...this.#byId.values()].sort((a, b) => a.id - b.id);
  }
}

/**
 * createConfigSettingEntry: validates, then creates. Only STATE_ARCHIVAL is validated here: every other arm genesis
 * creates is built from upstream constants that pass isValidConfigSettingEntry, while this one takes the test
 * Config's eviction and TTL values.
 */
function createConfigSettingEntry(entry: ConfigSettingEntry, ltx: GenesisSettings): void {
  if (entry.id === ID.STATE_ARCHIVAL && !isValidStateArchivalSettings(entry)) {
    throw invalidGenesis('Invalid configSettingEntry: the test config gives invalid STATE_ARCHIVAL settings', 'config');
  }
  ltx.create(entry);
}

/** isValidConfigSettingEntry, the CONFIG_SETTING_STATE_ARCHIVAL case. */
function isValidStateArchivalSettings({ stateArchivalSettings: s }: ConfigSettingEntryOf<typeof ID.STATE_ARCHIVAL>) {
  return (
    s.maxEntryTTL >= Minimum.MAXIMUM_ENTRY_LIFETIME &&
    s.minTemporaryTTL >= Minimum.MINIMUM_TEMP_ENTRY_LIFETIME &&
    s.minPersistentTTL >= Minimum.MINIMUM_PERSISTENT_ENTRY_LIFETIME &&
    s.persistentRentRateDenominator > 0 &&
    s.tempRentRateDenominator > 0 &&
    s.maxEntriesToArchive >= Minimum.MAX_ENTRIES_TO_ARCHIVE &&
    s.liveSorobanStateSizeWindowSampleSize >= Minimum.BUCKETLIST_SIZE_WINDOW_SAMPLE_SIZE &&
    s.evictionScanSize >= Minimum.EVICTION_SCAN_SIZE &&
    s.startingEvictionScanLevel >= Minimum.STARTING_EVICTION_LEVEL &&
    s.startingEvictionScanLevel < LIVE_BUCKET_LIST_LEVELS &&
    s.liveSorobanStateSizeWindowSamplePeriod >= Minimum.BUCKETLIST_WINDOW_SAMPLE_PERIOD &&
    s.maxEntryTTL > s.minPersistentTTL &&
    s.maxEntryTTL > s.minTemporaryTTL
  );
}

function initialMaxContractSizeEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_MAX_SIZE_BYTES,
    contractMaxSizeBytes: cfg.highLimitOverride ? TestOverride.MAX_CONTRACT_SIZE : Initial.MAX_CONTRACT_SIZE,
  };
}

function initialMaxContractDataKeySizeEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_DATA_KEY_SIZE_BYTES,
    contractDataKeySizeBytes: cfg.highLimitOverride
      ? TestOverride.MAX_CONTRACT_DATA_KEY_SIZE_BYTES
      : Initial.MAX_CONTRACT_DATA_KEY_SIZE_BYTES,
  };
}

function initialMaxContractDataEntrySizeEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_DATA_ENTRY_SIZE_BYTES,
    contractDataEntrySizeBytes: cfg.highLimitOverride
      ? TestOverride.MAX_CONTRACT_DATA_ENTRY_SIZE_BYTES
      : Initial.MAX_CONTRACT_DATA_ENTRY_SIZE_BYTES,
  };
}

function initialContractComputeSettingsEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  const limits = cfg.highLimitOverride ? TestOverride : Initial;
  return {
    id: ID.CONTRACT_COMPUTE_V0,
    contractCompute: {
      ledgerMaxInstructions: limits.LEDGER_MAX_INSTRUCTIONS,
      txMaxInstructions: limits.TX_MAX_INSTRUCTIONS,
      feeRatePerInstructionsIncrement: Initial.FEE_RATE_PER_INSTRUCTIONS_INCREMENT,
      txMemoryLimit: limits.MEMORY_LIMIT,
    },
  };
}

function initialContractLedgerAccessSettingsEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  const limits = cfg.highLimitOverride ? TestOverride : Initial;
  return {
    id: ID.CONTRACT_LEDGER_COST_V0,
    contractLedgerCost: {
      ledgerMaxDiskReadEntries: limits.LEDGER_MAX_READ_LEDGER_ENTRIES,
      ledgerMaxDiskReadBytes: limits.LEDGER_MAX_READ_BYTES,
      ledgerMaxWriteLedgerEntries: limits.LEDGER_MAX_WRITE_LEDGER_ENTRIES,
      ledgerMaxWriteBytes: limits.LEDGER_MAX_WRITE_BYTES,
      txMaxDiskReadEntries: limits.TX_MAX_READ_LEDGER_ENTRIES,
      txMaxDiskReadBytes: limits.TX_MAX_READ_BYTES,
      txMaxWriteLedgerEntries: limits.TX_MAX_WRITE_LEDGER_ENTRIES,
      txMaxWriteBytes: limits.TX_MAX_WRITE_BYTES,
      feeDiskReadLedgerEntry: Initial.FEE_READ_LEDGER_ENTRY,
      feeWriteLedgerEntry: Initial.FEE_WRITE_LEDGER_ENTRY,
      feeDiskRead1KB: Initial.FEE_READ_1KB,
      sorobanStateTargetSizeBytes: Initial.BUCKET_LIST_TARGET_SIZE_BYTES,
      rentFee1KBSorobanStateSizeLow: Initial.BUCKET_LIST_FEE_1KB_BUCKET_LIST_LOW,
      rentFee1KBSorobanStateSizeHigh: Initial.BUCKET_LIST_FEE_1KB_BUCKET_LIST_HIGH,
      sorobanStateRentFeeGrowthFactor: Initial.STATE_SIZE_RENT_FEE_GROWTH_FACTOR,
    },
  };
}

function initialContractHistoricalDataSettingsEntry(): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_HISTORICAL_DATA_V0,
    contractHistoricalData: { feeHistorical1KB: Initial.FEE_HISTORICAL_1KB },
  };
}

function initialContractEventsSettingsEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_EVENTS_V0,
    contractEvents: {
      txMaxContractEventsSizeBytes: cfg.highLimitOverride
        ? TestOverride.TX_MAX_CONTRACT_EVENTS_SIZE_BYTES
        : Initial.TX_MAX_CONTRACT_EVENTS_SIZE_BYTES,
      feeContractEvents1KB: Initial.FEE_CONTRACT_EVENTS_SIZE_1KB,
    },
  };
}

function initialContractBandwidthSettingsEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  const limits = cfg.highLimitOverride ? TestOverride : Initial;
  return {
    id: ID.CONTRACT_BANDWIDTH_V0,
    contractBandwidth: {
      ledgerMaxTxsSizeBytes: limits.LEDGER_MAX_TRANSACTION_SIZES_BYTES,
      txMaxSizeBytes: limits.TX_MAX_SIZE_BYTES,
      feeTxSize1KB: Initial.FEE_TRANSACTION_SIZE_1KB,
    },
  };
}

function initialContractExecutionLanesSettingsEntry(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_EXECUTION_LANES,
    contractExecutionLanes: {
      ledgerMaxTxCount: cfg.highLimitOverride ? TestOverride.LEDGER_MAX_TX_COUNT : Initial.LEDGER_MAX_TX_COUNT,
    },
  };
}

function initialStateArchivalSettings(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  const evictionParams = cfg.overrideEvictionParams
    ? {
        evictionScanSize: cfg.evictionScanSize,
        maxEntriesToArchive: cfg.maxEntriesToArchive,
        startingEvictionScanLevel: cfg.startingEvictionScanLevel,
      }
    : {
        evictionScanSize: Initial.EVICTION_SCAN_SIZE,
        maxEntriesToArchive: Initial.MAX_ENTRIES_TO_ARCHIVE,
        startingEvictionScanLevel: Initial.STARTING_EVICTION_SCAN_LEVEL,
      };
  return {
    id: ID.STATE_ARCHIVAL,
    stateArchivalSettings: {
      maxEntryTTL: cfg.highLimitOverride ? TestOverride.MAXIMUM_ENTRY_LIFETIME : Initial.MAXIMUM_ENTRY_LIFETIME,
      minTemporaryTTL: Initial.MINIMUM_TEMP_ENTRY_LIFETIME,
      minPersistentTTL:
        cfg.minimumPersistentEntryLifetime !== 0
          ? cfg.minimumPersistentEntryLifetime
          : Initial.MINIMUM_PERSISTENT_ENTRY_LIFETIME,
      persistentRentRateDenominator: Initial.PERSISTENT_RENT_RATE_DENOMINATOR,
      tempRentRateDenominator: Initial.TEMP_RENT_RATE_DENOMINATOR,
      maxEntriesToArchive: evictionParams.maxEntriesToArchive,
      liveSorobanStateSizeWindowSampleSize: Initial.BUCKET_LIST_SIZE_WINDOW_SAMPLE_SIZE,
      liveSorobanStateSizeWindowSamplePeriod: Initial.BUCKET_LIST_WINDOW_SAMPLE_PERIOD,
      evictionScanSize: evictionParams.evictionScanSize,
      startingEvictionScanLevel: evictionParams.startingEvictionScanLevel,
    },
  };
}

/**
 * initialliveSorobanStateSizeWindow: BUCKET_LIST_SIZE_WINDOW_SAMPLE_SIZE copies of the live BucketList's size,
 * which is 0 at genesis (startNewLedger runs before anything is added to the list).
 */
function initialliveSorobanStateSizeWindow(): ConfigSettingEntry {
  return {
    id: ID.LIVE_SOROBAN_STATE_SIZE_WINDOW,
    liveSorobanStateSizeWindow: new Array<number>(Initial.BUCKET_LIST_SIZE_WINDOW_SAMPLE_SIZE).fill(0),
  };
}

function initialEvictionIterator(cfg: SorobanGenesisConfig): ConfigSettingEntry {
  return {
    id: ID.EVICTION_ITERATOR,
    evictionIterator: {
      bucketListLevel: cfg.overrideEvictionParams
        ? cfg.startingEvictionScanLevel
        : Initial.STARTING_EVICTION_SCAN_LEVEL,
      isCurrBucket: true,
      bucketFileOffset: 0,
    },
  };
}

function initialParallelComputeEntry(): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_PARALLEL_COMPUTE_V0,
    contractParallelCompute: { ledgerMaxDependentTxClusters: Initial.LEDGER_MAX_DEPENDENT_TX_CLUSTERS },
  };
}

/** Starts `txMaxFootprintEntries` at the older `txMaxDiskReadEntries`, so no transaction becomes invalid. */
function initialLedgerCostExtEntry(txMaxDiskReadEntries: number): ConfigSettingEntry {
  return {
    id: ID.CONTRACT_LEDGER_COST_EXT_V0,
    contractLedgerCostExt: { txMaxFootprintEntries: txMaxDiskReadEntries, feeWrite1KB: Initial.FEE_LEDGER_WRITE_1KB },
  };
}

function initialScpTimingEntry(): ConfigSettingEntry {
  return {
    id: ID.SCP_TIMING,
    contractSCPTiming: {
      ledgerTargetCloseTimeMilliseconds: Initial.LEDGER_TARGET_CLOSE_TIME_MILLISECONDS,
      nominationTimeoutInitialMilliseconds: Initial.NOMINATION_TIMEOUT_INITIAL_MILLISECONDS,
      nominationTimeoutIncrementMilliseconds: Initial.NOMINATION_TIMEOUT_INCREMENT_MILLISECONDS,
      ballotTimeoutInitialMilliseconds: Initial.BALLOT_TIMEOUT_INITIAL_MILLISECONDS,
      ballotTimeoutIncrementMilliseconds: Initial.BALLOT_TIMEOUT_INCREMENT_MILLISECONDS,
    },
  };
}

/** SorobanNetworkConfig::createLedgerEntriesForV20: ids 0..13. */
function createLedgerEntriesForV20(ltx: GenesisSettings, cfg: SorobanGenesisConfig): void {
  createConfigSettingEntry(initialMaxContractSizeEntry(cfg), ltx);
  createConfigSettingEntry(initialMaxContractDataKeySizeEntry(cfg), ltx);
  createConfigSettingEntry(initialMaxContractDataEntrySizeEntry(cfg), ltx);
  createConfigSettingEntry(initialContractComputeSettingsEntry(cfg), ltx);
  createConfigSettingEntry(initialContractLedgerAccessSettingsEntry(cfg), ltx);
  createConfigSettingEntry(initialContractHistoricalDataSettingsEntry(), ltx);
  createConfigSettingEntry(initialContractEventsSettingsEntry(cfg), ltx);
  createConfigSettingEntry(initialContractBandwidthSettingsEntry(cfg), ltx);
  createConfigSettingEntry(initialContractExecutionLanesSettingsEntry(cfg), ltx);
  createConfigSettingEntry(
    {
      id: ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS,
      contractCostParamsCpuInsns: costParamsFrom(initialCpuCostParamsEntryForV20),
    },
    ltx,
  );
  createConfigSettingEntry(
    {
      id: ID.CONTRACT_COST_PARAMS_MEMORY_BYTES,
      contractCostParamsMemBytes: costParamsFrom(initialMemCostParamsEntryForV20),
    },
    ltx,
  );
  createConfigSettingEntry(initialStateArchivalSettings(cfg), ltx);
  createConfigSettingEntry(initialliveSorobanStateSizeWindow(), ltx);
  createConfigSettingEntry(initialEvictionIterator(cfg), ltx);
}

/** Applies one CPU and one memory cost update: createCostTypesForV21/V22/V25, updateCostTypesForV26. */
function updateCostParams(ltx: GenesisSettings, cpu: CostUpdate, mem: CostUpdate): void {
  applyCostUpdate(ltx.load(ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS).contractCostParamsCpuInsns, cpu);
  applyCostUpdate(ltx.load(ID.CONTRACT_COST_PARAMS_MEMORY_BYTES).contractCostParamsMemBytes, mem);
}

/** updateRentCostParamsForV23: the protocol 23 rent values for the ledger cost and state archival settings. */
function updateRentCostParamsForV23(ltx: GenesisSettings): void {
  const ledgerCostSettings = ltx.load(ID.CONTRACT_LEDGER_COST_V0).contractLedgerCost;
  ledgerCostSettings.sorobanStateTargetSizeBytes = P23.SOROBAN_STATE_TARGET_SIZE_BYTES;
  ledgerCostSettings.rentFee1KBSorobanStateSizeLow = P23.RENT_FEE_1KB_SOROBAN_STATE_SIZE_LOW;
  ledgerCostSettings.rentFee1KBSorobanStateSizeHigh = P23.RENT_FEE_1KB_SOROBAN_STATE_SIZE_HIGH;
  const archivalSettings = ltx.load(ID.STATE_ARCHIVAL).stateArchivalSettings;
  archivalSettings.persistentRentRateDenominator = P23.PERSISTENT_RENT_RATE_DENOMINATOR;
  archivalSettings.tempRentRateDenominator = P23.TEMP_RENT_RATE_DENOMINATOR;
}

/** SorobanNetworkConfig::createAndUpdateLedgerEntriesForV23: ids 14..16, and the rent changes. */
function createAndUpdateLedgerEntriesForV23(ltx: GenesisSettings): void {
  createConfigSettingEntry(initialParallelComputeEntry(), ltx);
  createConfigSettingEntry(initialScpTimingEntry(), ltx);
  const ledgerCostSetting = ltx.load(ID.CONTRACT_LEDGER_COST_V0).contractLedgerCost;
  createConfigSettingEntry(initialLedgerCostExtEntry(ledgerCostSetting.txMaxDiskReadEntries), ltx);
  updateRentCostParamsForV23(ltx);
}

/** SorobanNetworkConfig::createLedgerEntriesForV26: the empty frozen-key (17) and bypass-transaction (19) sets. */
function createLedgerEntriesForV26(ltx: GenesisSettings): void {
  ltx.create({ id: ID.FROZEN_LEDGER_KEYS, frozenLedgerKeys: { keys: [] } });
  ltx.create({ id: ID.FREEZE_BYPASS_TXS, freezeBypassTxs: { txHashes: [] } });
}

/**
 * SorobanNetworkConfig::initializeGenesisLedgerForTesting: the config settings of a genesis at
 * `genesisLedgerProtocol` (none below protocol 20), by ascending id. Each protocol's step runs when the genesis
 * protocol has reached it, in upstream order; upstream validates the v20 entries against protocol 20 and the v23
 * ones against 23, which only the STATE_ARCHIVAL check here depends on (and it does not depend on the protocol).
 */
export function initializeGenesisLedgerForTesting(
  genesisLedgerProtocol: number,
  cfg: SorobanGenesisConfig,
): ConfigSettingEntry[] {
  const ltx = new GenesisSettings();
  const from = (protocol: number) => genesisLedgerProtocol >= protocol;
  if (from(SOROBAN_PROTOCOL_VERSION)) {
    createLedgerEntriesForV20(ltx, cfg);
    // Protocol 20 shipped with costs recalibrated shortly after its release; test genesis catches up with them.
    updateCostParams(ltx, updateRecalibratedCpuCostTypesForV20, updateRecalibratedMemCostTypesForV20);
  }
  if (from(21)) updateCostParams(ltx, updateCpuCostParamsEntryForV21, updateMemCostParamsEntryForV21);
  if (from(22)) updateCostParams(ltx, updateCpuCostParamsEntryForV22, updateMemCostParamsEntryForV22);
  if (from(23)) createAndUpdateLedgerEntriesForV23(ltx);
  if (from(25)) updateCostParams(ltx, updateCpuCostParamsEntryForV25, updateMemCostParamsEntryForV25);
  if (from(26)) {
    updateCostParams(ltx, updateCpuCostParamsEntryForV26, updateMemCostParamsEntryForV26);
    createLedgerEntriesForV26(ltx);
  }
  return ltx.entries();
}
