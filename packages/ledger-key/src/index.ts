// @strata/ledger-key: zero-copy XDR for ledger keys and entries, and stellar-core's order of ledger keys.
// Every function here is synchronous and pure (no I/O, no shared mutable state visible to callers), so it may be
// called from any thread or worker; views stay valid as long as the caller does not mutate the bytes under them.

export type { AssetView } from './asset.js';
export type {
  BucketEntryKind,
  BucketEntryView,
  BucketMetadata,
  HotArchiveBucketEntryKind,
  HotArchiveBucketEntryView,
} from './bucket-entry.js';
export {
  readBucketEntry,
  readHotArchiveBucketEntry,
  validateBucketEntry,
  validateHotArchiveBucketEntry,
} from './bucket-entry.js';
export {
  compareBucketEntries,
  compareBucketEntryKeys,
  compareEntryToKey,
  compareHotArchiveBucketEntries,
  compareHotArchiveBucketEntryKeys,
  compareKeyedRecordsAt,
  compareLedgerEntries,
  compareLedgerKeys,
  ledgerKeysEqual,
} from './compare.js';
export { LedgerKeyError, LedgerKeyErrorCode } from './errors.js';
export {
  KEYED_RECORD_ARENA_ABI_VERSION,
  KeyedRecordArena,
  type KeyedRecordArenaImports,
} from './keyed-record-arena.js';
export type { LedgerEntryView } from './ledger-entry.js';
export { ledgerEntryLayout, ledgerKeyOfEntry, readLedgerEntry, validateLedgerEntry } from './ledger-entry.js';
export type { LedgerKeyView } from './ledger-key.js';
export { readLedgerKey, validateLedgerKey } from './ledger-key.js';
export type {
  AccountEntryExtensionV1,
  Asset,
  AssetCode,
  BucketEntry,
  BucketMetadataInput,
  Claimant,
  ClaimPredicate,
  ContractCodeCostInputs,
  ContractExecutable,
  Durability,
  HotArchiveBucketEntry,
  LedgerEntry,
  LedgerEntryData,
  LedgerKey,
  Liabilities,
  ScAddress,
  ScMapEntry,
  ScVal,
  Signer,
  SignerKey,
  TrustLineAsset,
  XdrString,
} from './model.js';
export { OrderKey, orderKeyOf } from './order-key-encoding.js';
export type { ScAddressView } from './sc-address.js';
export { readScAddress, validateScAddress } from './sc-address.js';
export type { ScContractInstanceView, ScErrorValue, ScValView } from './scval.js';
export { readScVal, scValEnd, validateScVal } from './scval.js';
export {
  decodeAccountStrkey,
  decodeClaimableBalanceStrkey,
  decodeContractStrkey,
  decodeLiquidityPoolStrkey,
  decodeMuxedStrkey,
  encodeAccountStrkey,
  encodeClaimableBalanceStrkey,
  encodeContractStrkey,
  encodeLiquidityPoolStrkey,
  encodeMuxedStrkey,
} from './strkey.js';
export { ttlKeyOf } from './ttl.js';
export { encodeBucketEntry, encodeHotArchiveBucketEntry } from './writers/bucket-entry.js';
export { encodeLedgerEntry } from './writers/ledger-entry.js';
export { encodeLedgerKey } from './writers/ledger-key.js';
export { encodeScAddress } from './writers/sc-address.js';
export { encodeScVal } from './writers/scval.js';
export type { ContractDataDurability, LedgerEntryType, ScAddressType, ScValType } from './xdr-constants.js';
export {
  ASSET_TYPE,
  BUCKET_ENTRY_TYPE,
  BUCKET_LIST_TYPE,
  CONFIG_SETTING_ID,
  CONTRACT_DATA_DURABILITY,
  CONTRACT_EXECUTABLE_TYPE,
  HOT_ARCHIVE_BUCKET_ENTRY_TYPE,
  LEDGER_ENTRY_TYPE,
  MAX_CLAIM_PREDICATE_DEPTH,
  MAX_SCVAL_DEPTH,
  SC_ADDRESS_TYPE,
  SC_ERROR_CODE,
  SC_ERROR_TYPE,
  SC_VAL_TYPE,
  XDR_LIMITS,
} from './xdr-constants.js';
export { readU32 } from './xdr-cursor.js';
