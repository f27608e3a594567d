// Numeric XDR enum values (current stellar-xdr, protocol 23+, as shipped in @stellar/stellar-base 15) and the
// nesting limits this package enforces. Values are wire values: they are what the comparator orders by.

/** LedgerEntryType: the discriminant of LedgerKey and of LedgerEntry.data, and the first ordering key. */
export const LEDGER_ENTRY_TYPE = {
  ACCOUNT: 0,
  TRUSTLINE: 1,
  OFFER: 2,
  DATA: 3,
  CLAIMABLE_BALANCE: 4,
  LIQUIDITY_POOL: 5,
  CONTRACT_DATA: 6,
  CONTRACT_CODE: 7,
  CONFIG_SETTING: 8,
  TTL: 9,
} as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPE)[keyof typeof LEDGER_ENTRY_TYPE];
export const LEDGER_ENTRY_TYPE_NAMES: readonly string[] = Object.keys(LEDGER_ENTRY_TYPE);
export const MAX_LEDGER_ENTRY_TYPE = 9;

/** SCValType. Arms 0..21; 19 SCV_CONTRACT_INSTANCE, 20/21 are the system ledger-key arms. */
export const SC_VAL_TYPE = {
  BOOL: 0,
  VOID: 1,
  ERROR: 2,
  U32: 3,
  I32: 4,
  U64: 5,
  I64: 6,
  TIMEPOINT: 7,
  DURATION: 8,
  U128: 9,
  I128: 10,
  U256: 11,
  I256: 12,
  BYTES: 13,
  STRING: 14,
  SYMBOL: 15,
  VEC: 16,
  MAP: 17,
  ADDRESS: 18,
  CONTRACT_INSTANCE: 19,
  LEDGER_KEY_CONTRACT_INSTANCE: 20,
  LEDGER_KEY_NONCE: 21,
} as const;
export type ScValType = (typeof SC_VAL_TYPE)[keyof typeof SC_VAL_TYPE];
export const SC_VAL_TYPE_NAMES: readonly string[] = Object.keys(SC_VAL_TYPE).map((name) => `SCV_${name}`);
export const MAX_SC_VAL_TYPE = 21;

/** SCAddressType. 2..4 exist since protocol 23 (MUXED_ACCOUNT is `{ uint64 id; uint256 ed25519 }`, id first). */
export const SC_ADDRESS_TYPE = {
  ACCOUNT: 0,
  CONTRACT: 1,
  MUXED_ACCOUNT: 2,
  CLAIMABLE_BALANCE: 3,
  LIQUIDITY_POOL: 4,
} as const;
export type ScAddressType = (typeof SC_ADDRESS_TYPE)[keyof typeof SC_ADDRESS_TYPE];
export const SC_ADDRESS_TYPE_NAMES: readonly string[] = Object.keys(SC_ADDRESS_TYPE).map(
  (name) => `SC_ADDRESS_TYPE_${name}`,
);
export const MAX_SC_ADDRESS_TYPE = 4;

/** SCErrorType: 0 carries a uint32 contract code, 1..9 carry an SCErrorCode. */
export const SC_ERROR_TYPE = {
  CONTRACT: 0,
  WASM_VM: 1,
  CONTEXT: 2,
  STORAGE: 3,
  OBJECT: 4,
  CRYPTO: 5,
  EVENTS: 6,
  BUDGET: 7,
  VALUE: 8,
  AUTH: 9,
} as const;
export const MAX_SC_ERROR_TYPE = 9;

/** SCErrorCode (the payload of SCError types 1..9). */
export const SC_ERROR_CODE = {
  ARITH_DOMAIN: 0,
  INDEX_BOUNDS: 1,
  INVALID_INPUT: 2,
  MISSING_VALUE: 3,
  EXISTING_VALUE: 4,
  EXCEEDED_LIMIT: 5,
  INVALID_ACTION: 6,
  INTERNAL_ERROR: 7,
  UNEXPECTED_TYPE: 8,
  UNEXPECTED_SIZE: 9,
} as const;
export const MAX_SC_ERROR_CODE = 9;

/** ContractExecutableType (SCContractInstance.executable). */
export const CONTRACT_EXECUTABLE_TYPE = { WASM: 0, STELLAR_ASSET: 1 } as const;

/** AssetType. `Asset` allows 0..2; `TrustLineAsset` adds POOL_SHARE. */
export const ASSET_TYPE = { NATIVE: 0, CREDIT_ALPHANUM4: 1, CREDIT_ALPHANUM12: 2, POOL_SHARE: 3 } as const;
export const ASSET_TYPE_NAMES: readonly string[] = Object.keys(ASSET_TYPE).map((name) => `ASSET_TYPE_${name}`);

/** ContractDataDurability: TEMPORARY sorts before PERSISTENT for the same contract and key. */
export const CONTRACT_DATA_DURABILITY = { TEMPORARY: 0, PERSISTENT: 1 } as const;
export type ContractDataDurability = (typeof CONTRACT_DATA_DURABILITY)[keyof typeof CONTRACT_DATA_DURABILITY];

/**
 * ConfigSettingID. 12 was BUCKETLIST_SIZE_WINDOW before protocol 23; 14..16 arrived with protocol 23; 17..20
 * (frozen ledger keys, freeze bypass) are in the newest XDR and used by stellar-core from protocol 26.
 */
export const CONFIG_SETTING_ID = {
  CONTRACT_MAX_SIZE_BYTES: 0,
  CONTRACT_COMPUTE_V0: 1,
  CONTRACT_LEDGER_COST_V0: 2,
  CONTRACT_HISTORICAL_DATA_V0: 3,
  CONTRACT_EVENTS_V0: 4,
  CONTRACT_BANDWIDTH_V0: 5,
  CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS: 6,
  CONTRACT_COST_PARAMS_MEMORY_BYTES: 7,
  CONTRACT_DATA_KEY_SIZE_BYTES: 8,
  CONTRACT_DATA_ENTRY_SIZE_BYTES: 9,
  STATE_ARCHIVAL: 10,
  CONTRACT_EXECUTION_LANES: 11,
  LIVE_SOROBAN_STATE_SIZE_WINDOW: 12,
  EVICTION_ITERATOR: 13,
  CONTRACT_PARALLEL_COMPUTE_V0: 14,
  CONTRACT_LEDGER_COST_EXT_V0: 15,
  SCP_TIMING: 16,
  FROZEN_LEDGER_KEYS: 17,
  FROZEN_LEDGER_KEYS_DELTA: 18,
  FREEZE_BYPASS_TXS: 19,
  FREEZE_BYPASS_TXS_DELTA: 20,
} as const;
export const MAX_CONFIG_SETTING_ID = 20;

/** BucketEntryType (live bucket list). METAENTRY is negative and must sort first. */
export const BUCKET_ENTRY_TYPE = { METAENTRY: -1, LIVEENTRY: 0, DEADENTRY: 1, INITENTRY: 2 } as const;

/** HotArchiveBucketEntryType. The p23-development value HOT_ARCHIVE_DELETED = 2 no longer exists. */
export const HOT_ARCHIVE_BUCKET_ENTRY_TYPE = {
  HOT_ARCHIVE_METAENTRY: -1,
  HOT_ARCHIVE_ARCHIVED: 0,
  HOT_ARCHIVE_LIVE: 1,
} as const;

/** BucketListType, the payload of BucketMetadata ext v1. */
export const BUCKET_LIST_TYPE = { LIVE: 0, HOT_ARCHIVE: 1 } as const;

/**
 * Maximum SCVal nesting level (the outermost SCVal is level 1; each vec element, map key/value or instance-storage
 * entry is one level deeper). The Soroban host admits contract values up to 100 container levels
 * (`DEFAULT_HOST_DEPTH_LIMIT` in soroban-env-host), and a ContractDataEntry's `val` may be that deep, so 64 would
 * reject real ledger entries; 128 admits everything the network can produce while keeping recursion trivially
 * bounded. Deeper input throws TOO_DEEP, never a RangeError.
 */
export const MAX_SCVAL_DEPTH = 128;

/**
 * Maximum ClaimPredicate nesting level (root = 1). stellar-core refuses predicates deeper than 4 when a claimable
 * balance is created, so 32 only bounds recursion on hostile input.
 */
export const MAX_CLAIM_PREDICATE_DEPTH = 32;

/** XDR bounds used by validation and by the writers. */
export const XDR_LIMITS = {
  /** string64 DataEntry.dataName / LedgerKey DATA dataName */
  DATA_NAME: 64,
  /** DataValue opaque<64> */
  DATA_VALUE: 64,
  /** string32 AccountEntry.homeDomain */
  HOME_DOMAIN: 32,
  /** SCSymbol string<32> (SCSYMBOL_LIMIT) */
  SYMBOL: 32,
  /** Signer signers<MAX_SIGNERS>, SponsorshipDescriptor signerSponsoringIDs<MAX_SIGNERS> */
  SIGNERS: 20,
  /** Claimant claimants<10> */
  CLAIMANTS: 10,
  /** ClaimPredicate andPredicates<2> / orPredicates<2> */
  PREDICATES: 2,
  /** SignerKey ed25519SignedPayload.payload opaque<64> */
  SIGNED_PAYLOAD: 64,
  /** ContractCostParams<CONTRACT_COST_COUNT_LIMIT> */
  CONTRACT_COST_PARAMS: 1024,
  /** opaque<> and string<> without a bound: the largest XDR length */
  UNBOUNDED: 0xffff_ffff,
} as const;
