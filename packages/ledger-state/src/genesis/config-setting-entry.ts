// The ConfigSettingEntry arms genesis creates, as plain objects named and ordered as in
// Stellar-contract-config-setting.x, and their XDR (the arm after the ConfigSettingID, which is what
// @strata/ledger-key's encodeLedgerEntry takes as a CONFIG_SETTING body).
import { assert, unreachable } from '@strata/base';
import { CONFIG_SETTING_ID } from '@strata/ledger-key';
import type { ContractCostParamEntry } from './cost-params.js';
import { type ScalarLayout, XdrOutput } from './xdr-struct.js';

const ID = CONFIG_SETTING_ID;

/** CONFIG_SETTING_CONTRACT_COMPUTE_V0 (1): instruction limits and their fee rate. */
export interface ConfigSettingContractComputeV0 {
  ledgerMaxInstructions: number;
  txMaxInstructions: number;
  feeRatePerInstructionsIncrement: number;
  txMemoryLimit: number;
}

/** CONFIG_SETTING_CONTRACT_LEDGER_COST_V0 (2): ledger access limits and fees, and the rent curve (protocol 23
 * renamed the bucket-list fields to Soroban-state ones; the XDR layout is unchanged). */
export interface ConfigSettingContractLedgerCostV0 {
  ledgerMaxDiskReadEntries: number;
  ledgerMaxDiskReadBytes: number;
  ledgerMaxWriteLedgerEntries: number;
  ledgerMaxWriteBytes: number;
  txMaxDiskReadEntries: number;
  txMaxDiskReadBytes: number;
  txMaxWriteLedgerEntries: number;
  txMaxWriteBytes: number;
  feeDiskReadLedgerEntry: number;
  feeWriteLedgerEntry: number;
  feeDiskRead1KB: number;
  sorobanStateTargetSizeBytes: number;
  rentFee1KBSorobanStateSizeLow: number;
  rentFee1KBSorobanStateSizeHigh: number;
  sorobanStateRentFeeGrowthFactor: number;
}

/** CONFIG_SETTING_CONTRACT_HISTORICAL_DATA_V0 (3). */
export interface ConfigSettingContractHistoricalDataV0 {
  feeHistorical1KB: number;
}

/** CONFIG_SETTING_CONTRACT_EVENTS_V0 (4). */
export interface ConfigSettingContractEventsV0 {
  txMaxContractEventsSizeBytes: number;
  feeContractEvents1KB: number;
}

/** CONFIG_SETTING_CONTRACT_BANDWIDTH_V0 (5). */
export interface ConfigSettingContractBandwidthV0 {
  ledgerMaxTxsSizeBytes: number;
  txMaxSizeBytes: number;
  feeTxSize1KB: number;
}

/** CONFIG_SETTING_CONTRACT_EXECUTION_LANES (11). */
export interface ConfigSettingContractExecutionLanesV0 {
  ledgerMaxTxCount: number;
}

/** CONFIG_SETTING_STATE_ARCHIVAL (10): TTL bounds, rent rates, the state-size window and the eviction scan. */
export interface StateArchivalSettings {
  maxEntryTTL: number;
  minTemporaryTTL: number;
  minPersistentTTL: number;
  persistentRentRateDenominator: number;
  tempRentRateDenominator: number;
  maxEntriesToArchive: number;
  liveSorobanStateSizeWindowSampleSize: number;
  liveSorobanStateSizeWindowSamplePeriod: number;
  evictionScanSize: number;
  startingEvictionScanLevel: number;
}

/** CONFIG_SETTING_EVICTION_ITERATOR (13): where the next eviction scan starts. */
export interface EvictionIterator {
  bucketListLevel: number;
  isCurrBucket: boolean;
  bucketFileOffset: number;
}

/** CONFIG_SETTING_CONTRACT_PARALLEL_COMPUTE_V0 (14, protocol 23). */
export interface ConfigSettingContractParallelComputeV0 {
  ledgerMaxDependentTxClusters: number;
}

/** CONFIG_SETTING_CONTRACT_LEDGER_COST_EXT_V0 (15, protocol 23). */
export interface ConfigSettingContractLedgerCostExtV0 {
  txMaxFootprintEntries: number;
  feeWrite1KB: number;
}

/** CONFIG_SETTING_SCP_TIMING (16, protocol 23). */
export interface ConfigSettingSCPTiming {
  ledgerTargetCloseTimeMilliseconds: number;
  nominationTimeoutInitialMilliseconds: number;
  nominationTimeoutIncrementMilliseconds: number;
  ballotTimeoutInitialMilliseconds: number;
  ballotTimeoutIncrementMilliseconds: number;
}

/** A ConfigSettingEntry of one of the arms genesis creates (ids 0..17 and 19), by its ConfigSettingID. */
export type ConfigSettingEntry =
  | { id: typeof ID.CONTRACT_MAX_SIZE_BYTES; contractMaxSizeBytes: number }
  | { id: typeof ID.CONTRACT_COMPUTE_V0; contractCompute: ConfigSettingContractComputeV0 }
  | { id: typeof ID.CONTRACT_LEDGER_COST_V0; contractLedgerCost: ConfigSettingContractLedgerCostV0 }
  | { id: typeof ID.CONTRACT_HISTORICAL_DATA_V0; contractHistoricalData: ConfigSettingContractHistoricalDataV0 }
  | { id: typeof ID.CONTRACT_EVENTS_V0; contractEvents: ConfigSettingContractEventsV0 }
  | { id: typeof ID.CONTRACT_BANDWIDTH_V0; contractBandwidth: ConfigSettingContractBandwidthV0 }
  | { id: typeof ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS; contractCostParamsCpuInsns: ContractCostParamEntry[] }
  | { id: typeof ID.CONTRACT_COST_PARAMS_MEMORY_BYTES; contractCostParamsMemBytes: ContractCostParamEntry[] }
  | { id: typeof ID.CONTRACT_DATA_KEY_SIZE_BYTES; contractDataKeySizeBytes: number }
  | { id: typeof ID.CONTRACT_DATA_ENTRY_SIZE_BYTES; contractDataEntrySizeBytes: number }
  | { id: typeof ID.STATE_ARCHIVAL; stateArchivalSettings: StateArchivalSettings }
  | { id: typeof ID.CONTRACT_EXECUTION_LANES; contractExecutionLanes: ConfigSettingContractExecutionLanesV0 }
  | { id: typeof ID.LIVE_SOROBAN_STATE_SIZE_WINDOW; liveSorobanStateSizeWindow: number[] }
  | { id: typeof ID.EVICTION_ITERATOR; evictionIterator: EvictionIterator }
  | { id: typeof ID.CONTRACT_PARALLEL_COMPUTE_V0; contractParallelCompute: ConfigSettingContractParallelComputeV0 }
  | { id: typeof ID.CONTRACT_LEDGER_COST_EXT_V0; contractLedgerCostExt: ConfigSettingContractLedgerCostExtV0 }
  | { id: typeof ID.SCP_TIMING; contractSCPTiming: ConfigSettingSCPTiming }
  /** FrozenLedgerKeys {EncodedLedgerKey keys<>}: genesis holds the empty set. */
  | { id: typeof ID.FROZEN_LEDGER_KEYS; frozenLedgerKeys: { keys: readonly Uint8Array[] } }
  /** FreezeBypassTxs {Hash txHashes<>}: genesis holds the empty set. */
  | { id: typeof ID.FREEZE_BYPASS_TXS; freezeBypassTxs: { txHashes: readonly Uint8Array[] } };

/** The ids genesis creates, and the entry type of one of them. */
export type ConfigSettingIdOf = ConfigSettingEntry['id'];
export type ConfigSettingEntryOf<Id extends ConfigSettingIdOf> = Extract<ConfigSettingEntry, { id: Id }>;

// The field order of each scalar struct, as in the .x file (a reordering here is caught by the stellar-base
// round trip in test/genesis.test.ts).
const CONTRACT_COMPUTE_V0: ScalarLayout<ConfigSettingContractComputeV0> = [
  ['ledgerMaxInstructions', 'int64'],
  ['txMaxInstructions', 'int64'],
  ['feeRatePerInstructionsIncrement', 'int64'],
  ['txMemoryLimit', 'uint32'],
];

const CONTRACT_LEDGER_COST_V0: ScalarLayout<ConfigSettingContractLedgerCostV0> = [
  ['ledgerMaxDiskReadEntries', 'uint32'],
  ['ledgerMaxDiskReadBytes', 'uint32'],
  ['ledgerMaxWriteLedgerEntries', 'uint32'],
  ['ledgerMaxWriteBytes', 'uint32'],
  ['txMaxDiskReadEntries', 'uint32'],
  ['txMaxDiskReadBytes', 'uint32'],
  ['txMaxWriteLedgerEntries', 'uint32'],
  ['txMaxWriteBytes', 'uint32'],
  ['feeDiskReadLedgerEntry', 'int64'],
  ['feeWriteLedgerEntry', 'int64'],
  ['feeDiskRead1KB', 'int64'],
  ['sorobanStateTargetSizeBytes', 'int64'],
  ['rentFee1KBSorobanStateSizeLow', 'int64'],
  ['rentFee1KBSorobanStateSizeHigh', 'int64'],
  ['sorobanStateRentFeeGrowthFactor', 'uint32'],
];

const CONTRACT_HISTORICAL_DATA_V0: ScalarLayout<ConfigSettingContractHistoricalDataV0> = [
  ['feeHistorical1KB', 'int64'],
];

const CONTRACT_EVENTS_V0: ScalarLayout<ConfigSettingContractEventsV0> = [
  ['txMaxContractEventsSizeBytes', 'uint32'],
  ['feeContractEvents1KB', 'int64'],
];

const CONTRACT_BANDWIDTH_V0: ScalarLayout<ConfigSettingContractBandwidthV0> = [
  ['ledgerMaxTxsSizeBytes', 'uint32'],
  ['txMaxSizeBytes', 'uint32'],
  ['feeTxSize1KB', 'int64'],
];

const CONTRACT_EXECUTION_LANES_V0: ScalarLayout<ConfigSettingContractExecutionLanesV0> = [
  ['ledgerMaxTxCount', 'uint32'],
];

export const STATE_ARCHIVAL_SETTINGS: ScalarLayout<StateArchivalSettings> = [
  ['maxEntryTTL', 'uint32'],
  ['minTemporaryTTL', 'uint32'],
  ['minPersistentTTL', 'uint32'],
  ['persistentRentRateDenominator', 'int64'],
  ['tempRentRateDenominator', 'int64'],
  ['maxEntriesToArchive', 'uint32'],
  ['liveSorobanStateSizeWindowSampleSize', 'uint32'],
  ['liveSorobanStateSizeWindowSamplePeriod', 'uint32'],
  ['evictionScanSize', 'uint32'],
  ['startingEvictionScanLevel', 'uint32'],
];

const EVICTION_ITERATOR: ScalarLayout<EvictionIterator> = [
  ['bucketListLevel', 'uint32'],
  ['isCurrBucket', 'bool'],
  ['bucketFileOffset', 'uint64'],
];

const CONTRACT_PARALLEL_COMPUTE_V0: ScalarLayout<ConfigSettingContractParallelComputeV0> = [
  ['ledgerMaxDependentTxClusters', 'uint32'],
];

const CONTRACT_LEDGER_COST_EXT_V0: ScalarLayout<ConfigSettingContractLedgerCostExtV0> = [
  ['txMaxFootprintEntries', 'uint32'],
  ['feeWrite1KB', 'int64'],
];

const SCP_TIMING: ScalarLayout<ConfigSettingSCPTiming> = [
  ['ledgerTargetCloseTimeMilliseconds', 'uint32'],
  ['nominationTimeoutInitialMilliseconds', 'uint32'],
  ['nominationTimeoutIncrementMilliseconds', 'uint32'],
  ['ballotTimeoutInitialMilliseconds', 'uint32'],
  ['ballotTimeoutIncrementMilliseconds', 'uint32'],
];

/** ContractCostParams: a count, then per entry ext v0, constTerm, linearTerm. */
function writeCostParams(out: XdrOutput, params: readonly ContractCostParamEntry[]): void {
  out.uint32(params.length);
  for (const { constTerm, linearTerm } of params) out.uint32(0).int64(constTerm).int64(linearTerm);
}

/** An array of 32-byte hashes, or of opaque<> keys: genesis only writes empty ones. */
function writeEmptyList(out: XdrOutput, items: readonly Uint8Array[]): void {
  assert(items.length === 0, 'genesis writes only empty frozen-key and bypass-transaction lists');
  out.uint32(0);
}

/** The XDR of the ConfigSettingEntry arm after its id (what encodeLedgerEntry's `body` is). */
export function encodeConfigSettingBody(entry: ConfigSettingEntry): Uint8Array {
  const out = new XdrOutput();
  switch (entry.id) {
    case ID.CONTRACT_MAX_SIZE_BYTES:
      out.uint32(entry.contractMaxSizeBytes);
      break;
    case ID.CONTRACT_COMPUTE_V0:
      out.struct(CONTRACT_COMPUTE_V0, entry.contractCompute);
      break;
    case ID.CONTRACT_LEDGER_COST_V0:
      out.struct(CONTRACT_LEDGER_COST_V0, entry.contractLedgerCost);
      break;
    case ID.CONTRACT_HISTORICAL_DATA_V0:
      out.struct(CONTRACT_HISTORICAL_DATA_V0, entry.contractHistoricalData);
      break;
    case ID.CONTRACT_EVENTS_V0:
      out.struct(CONTRACT_EVENTS_V0, entry.contractEvents);
      break;
    case ID.CONTRACT_BANDWIDTH_V0:
      out.struct(CONTRACT_BANDWIDTH_V0, entry.contractBandwidth);
      break;
    case ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS:
      writeCostParams(out, entry.contractCostParamsCpuInsns);
      break;
    case ID.CONTRACT_COST_PARAMS_MEMORY_BYTES:
      writeCostParams(out, entry.contractCostParamsMemBytes);
      break;
    case ID.CONTRACT_DATA_KEY_SIZE_BYTES:
      out.uint32(entry.contractDataKeySizeBytes);
      break;
    case ID.CONTRACT_DATA_ENTRY_SIZE_BYTES:
      out.uint32(entry.contractDataEntrySizeBytes);
      break;
    case ID.STATE_ARCHIVAL:
      out.struct(STATE_ARCHIVAL_SETTINGS, entry.stateArchivalSettings);
      break;
    case ID.CONTRACT_EXECUTION_LANES:
      out.struct(CONTRACT_EXECUTION_LANES_V0, entry.contractExecutionLanes);
      break;
    case ID.LIVE_SOROBAN_STATE_SIZE_WINDOW:
      out.uint32(entry.liveSorobanStateSizeWindow.length);
      for (const size of entry.liveSorobanStateSizeWindow) out.uint64(size);
      break;
    case ID.EVICTION_ITERATOR:
      out.struct(EVICTION_ITERATOR, entry.evictionIterator);
      break;
    case ID.CONTRACT_PARALLEL_COMPUTE_V0:
      out.struct(CONTRACT_PARALLEL_COMPUTE_V0, entry.contractParallelCompute);
      break;
    case ID.CONTRACT_LEDGER_COST_EXT_V0:
      out.struct(CONTRACT_LEDGER_COST_EXT_V0, entry.contractLedgerCostExt);
      break;
    case ID.SCP_TIMING:
      out.struct(SCP_TIMING, entry.contractSCPTiming);
      break;
    case ID.FROZEN_LEDGER_KEYS:
      writeEmptyList(out, entry.frozenLedgerKeys.keys);
      break;
    case ID.FREEZE_BYPASS_TXS:
      writeEmptyList(out, entry.freezeBypassTxs.txHashes);
      break;
    default:
      unreachable(entry, 'ConfigSettingEntry id');
  }
  return out.finish();
}
