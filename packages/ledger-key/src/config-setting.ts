// ConfigSettingEntry arm bodies (CONFIG_SETTING ledger entries), validated to find where the entry ends. The key of
// such an entry is only the ConfigSettingID discriminant; the arm layouts follow Stellar-contract-config-setting.x
// (current XDR, ids 0..20).
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { CONFIG_SETTING_ID, XDR_LIMITS } = xdrConstants;
const { readArrayCount, readBool, skipFixed, skipVarOpaque, skipVoidExt } = xdrCursor;

/** Encoded sizes of the arms that are plain runs of fixed-size scalars (no bools, enums or arrays inside). */
const FIXED_ARM_SIZE: Readonly<Record<number, number>> = {
  [CONFIG_SETTING_ID.CONTRACT_MAX_SIZE_BYTES]: 4, // uint32
  [CONFIG_SETTING_ID.CONTRACT_COMPUTE_V0]: 28, // 3 x int64, uint32
  [CONFIG_SETTING_ID.CONTRACT_LEDGER_COST_V0]: 84, // 8 x uint32, 6 x int64, uint32
  [CONFIG_SETTING_ID.CONTRACT_HISTORICAL_DATA_V0]: 8, // int64
  [CONFIG_SETTING_ID.CONTRACT_EVENTS_V0]: 12, // uint32, int64
  [CONFIG_SETTING_ID.CONTRACT_BANDWIDTH_V0]: 16, // 2 x uint32, int64
  [CONFIG_SETTING_ID.CONTRACT_DATA_KEY_SIZE_BYTES]: 4, // uint32
  [CONFIG_SETTING_ID.CONTRACT_DATA_ENTRY_SIZE_BYTES]: 4, // uint32
  [CONFIG_SETTING_ID.STATE_ARCHIVAL]: 48, // 3 x uint32, 2 x int64, 5 x uint32
  [CONFIG_SETTING_ID.CONTRACT_EXECUTION_LANES]: 4, // uint32
  [CONFIG_SETTING_ID.CONTRACT_PARALLEL_COMPUTE_V0]: 4, // uint32
  [CONFIG_SETTING_ID.CONTRACT_LEDGER_COST_EXT_V0]: 12, // uint32, int64
  [CONFIG_SETTING_ID.SCP_TIMING]: 20, // 5 x uint32
};

/** ContractCostParams<1024>: each ContractCostParamEntry is {ExtensionPoint ext; int64 constTerm; int64 linearTerm}. */
function skipCostParams(b: Uint8Array, p: number, field: string): number {
  const count = readArrayCount(b, p, XDR_LIMITS.CONTRACT_COST_PARAMS, 20, field);
  let q = p + 4;
  for (let i = 0; i < count; i++) q = skipFixed(b, skipVoidExt(b, q, field), 16, field);
  return q;
}

/** An array of fixed-size elements without a bound (uint64<>, Hash<>). */
function skipFixedArray(b: Uint8Array, p: number, elementSize: number, field: string): number {
  const count = readArrayCount(b, p, XDR_LIMITS.UNBOUNDED, elementSize, field);
  return skipFixed(b, p + 4, count * elementSize, field);
}

/** EncodedLedgerKey keys<>: an unbounded array of opaque<> (the keys stay opaque, as in the XDR). */
function skipOpaqueArray(b: Uint8Array, p: number, field: string): number {
  const count = readArrayCount(b, p, XDR_LIMITS.UNBOUNDED, 4, field);
  let q = p + 4;
  for (let i = 0; i < count; i++) q = skipVarOpaque(b, q, XDR_LIMITS.UNBOUNDED, field);
  return q;
}

/**
 * Validates the ConfigSettingEntry arm for `id` (already range-checked by the caller) starting at `p`, and returns
 * the offset after it.
 */
export function skipConfigSettingBody(b: Uint8Array, p: number, id: number): number {
  const fixed = FIXED_ARM_SIZE[id];
  if (fixed !== undefined) return skipFixed(b, p, fixed, 'ConfigSettingEntry');
  switch (id) {
    case CONFIG_SETTING_ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS:
      return skipCostParams(b, p, 'ConfigSettingEntry.contractCostParamsCpuInsns');
    case CONFIG_SETTING_ID.CONTRACT_COST_PARAMS_MEMORY_BYTES:
      return skipCostParams(b, p, 'ConfigSettingEntry.contractCostParamsMemBytes');
    case CONFIG_SETTING_ID.LIVE_SOROBAN_STATE_SIZE_WINDOW:
      return skipFixedArray(b, p, 8, 'ConfigSettingEntry.liveSorobanStateSizeWindow');
    case CONFIG_SETTING_ID.EVICTION_ITERATOR:
      // EvictionIterator {uint32 bucketListLevel; bool isCurrBucket; uint64 bucketFileOffset}
      skipFixed(b, p, 16, 'ConfigSettingEntry.evictionIterator');
      readBool(b, p + 4, 'EvictionIterator.isCurrBucket');
      return p + 16;
    case CONFIG_SETTING_ID.FROZEN_LEDGER_KEYS:
      return skipOpaqueArray(b, p, 'FrozenLedgerKeys.keys');
    case CONFIG_SETTING_ID.FROZEN_LEDGER_KEYS_DELTA:
      return skipOpaqueArray(
        b,
        skipOpaqueArray(b, p, 'FrozenLedgerKeysDelta.keysToFreeze'),
        'FrozenLedgerKeysDelta.keysToUnfreeze',
      );
    case CONFIG_SETTING_ID.FREEZE_BYPASS_TXS:
      return skipFixedArray(b, p, 32, 'FreezeBypassTxs.txHashes');
    default:
      // CONFIG_SETTING_ID.FREEZE_BYPASS_TXS_DELTA: the caller range-checked the id, so this is the last arm.
      return skipFixedArray(
        b,
        skipFixedArray(b, p, 32, 'FreezeBypassTxsDelta.addTxs'),
        32,
        'FreezeBypassTxsDelta.removeTxs',
      );
  }
}
