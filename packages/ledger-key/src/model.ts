// The plain-object model the writers encode (write.ts): one TypeScript union per XDR union, tagged with a string
// `type`. Byte fields are Uint8Array, 64-bit and wider integers bigint, 32-bit integers number. Non-key fields of
// entries are optional where a neutral default exists, so a generator can build a valid entry from its key alone.

/** SCAddress, all five protocol-23 arms. */
/** Byte fields are the raw 32-byte key or hash; the XDR discriminants inside (PublicKey, ClaimableBalanceID) are implied. */
export type ScAddress =
  | { type: 'account'; accountId: Uint8Array }
  | { type: 'contract'; contractId: Uint8Array }
  | { type: 'muxedAccount'; id: bigint; ed25519: Uint8Array }
  | { type: 'claimableBalance'; balanceId: Uint8Array }
  | { type: 'liquidityPool'; liquidityPoolId: Uint8Array };

/**
 * An asset code: a string of 1..4 (alphanum4) or 5..12 (alphanum12) ASCII letters and digits, right-padded with
 * zero bytes on the wire; or the raw 4 / 12 wire bytes (taken verbatim, for tests that need arbitrary bytes).
 */
export type AssetCode = string | Uint8Array;

/** Asset (offers, claimable balances, pools): native or a credit asset. */
export type Asset =
  | { type: 'native' }
  | { type: 'alphanum4'; code: AssetCode; issuer: Uint8Array }
  | { type: 'alphanum12'; code: AssetCode; issuer: Uint8Array };

/** Asset plus the POOL_SHARE arm (trust lines only). */
export type TrustLineAsset = Asset | { type: 'poolShare'; liquidityPoolId: Uint8Array };

/** Text fields accept a string (encoded as UTF-8) or raw bytes. */
export type XdrString = string | Uint8Array;

/** One SCMapEntry as a [key, val] pair (the same shape ScValView.map() returns). */
export type ScMapEntry = readonly [key: ScVal, val: ScVal];

/** SCContractInstance.executable: a WASM hash, or the built-in Stellar Asset Contract. */
export type ContractExecutable = { type: 'wasm'; wasmHash: Uint8Array } | { type: 'stellarAsset' };

/** SCVal, all 22 arms. `vec`/`map` value null is the absent optional (distinct from an empty one). */
export type ScVal =
  | { type: 'bool'; value: boolean }
  | { type: 'void' }
  | { type: 'error'; errorType: number; code: number }
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'u64'; value: bigint }
  | { type: 'i64'; value: bigint }
  | { type: 'timepoint'; value: bigint }
  | { type: 'duration'; value: bigint }
  | { type: 'u128'; value: bigint }
  | { type: 'i128'; value: bigint }
  | { type: 'u256'; value: bigint }
  | { type: 'i256'; value: bigint }
  | { type: 'bytes'; value: Uint8Array }
  | { type: 'string'; value: XdrString }
  | { type: 'symbol'; value: XdrString }
  | { type: 'vec'; value: readonly ScVal[] | null }
  | { type: 'map'; value: readonly ScMapEntry[] | null }
  | { type: 'address'; value: ScAddress }
  | { type: 'contractInstance'; executable: ContractExecutable; storage: readonly ScMapEntry[] | null }
  | { type: 'ledgerKeyContractInstance' }
  | { type: 'ledgerKeyNonce'; nonce: bigint };

/** ContractDataDurability; TEMPORARY sorts before PERSISTENT. */
export type Durability = 'temporary' | 'persistent';

/** LedgerKey, all ten arms. Account-like fields are the 32-byte ed25519 key (the PublicKey type is implied). */
export type LedgerKey =
  | { type: 'account'; accountId: Uint8Array }
  | { type: 'trustline'; accountId: Uint8Array; asset: TrustLineAsset }
  | { type: 'offer'; sellerId: Uint8Array; offerId: bigint }
  | { type: 'data'; accountId: Uint8Array; dataName: XdrString }
  | { type: 'claimableBalance'; balanceId: Uint8Array }
  | { type: 'liquidityPool'; liquidityPoolId: Uint8Array }
  | { type: 'contractData'; contract: ScAddress; key: ScVal; durability: Durability }
  | { type: 'contractCode'; hash: Uint8Array }
  | { type: 'configSetting'; configSettingId: number }
  | { type: 'ttl'; keyHash: Uint8Array };

/** Selling / buying liabilities (account and trust-line ext v1). */
export interface Liabilities {
  buying: bigint;
  selling: bigint;
}

/** SignerKey: ed25519 key, pre-authorized transaction hash, hash(x) preimage hash, or ed25519 signed payload. */
export type SignerKey =
  | { type: 'ed25519'; key: Uint8Array }
  | { type: 'preAuthTx'; hash: Uint8Array }
  | { type: 'hashX'; hash: Uint8Array }
  | { type: 'ed25519SignedPayload'; ed25519: Uint8Array; payload: Uint8Array };

/** An account signer and its weight (uint32, only the low byte is meaningful to stellar-core). */
export interface Signer {
  key: SignerKey;
  weight: number;
}

/** AccountEntry ext chain: v1 liabilities -> v2 sponsorship counts -> v3 sequence-number metadata. */
export interface AccountEntryExtensionV1 {
  liabilities: Liabilities;
  v2?: {
    numSponsored: number;
    numSponsoring: number;
    signerSponsoringIds: readonly (Uint8Array | null)[];
    v3?: { seqLedger: number; seqTime: bigint };
  };
}

/** ClaimPredicate: AND / OR take at most two children, NOT an optional one; times are int64 seconds. */
export type ClaimPredicate =
  | { type: 'unconditional' }
  | { type: 'and'; predicates: readonly ClaimPredicate[] }
  | { type: 'or'; predicates: readonly ClaimPredicate[] }
  | { type: 'not'; predicate: ClaimPredicate | null }
  | { type: 'beforeAbsoluteTime'; time: bigint }
  | { type: 'beforeRelativeTime'; seconds: bigint };

/** Claimant (CLAIMANT_TYPE_V0): who may claim, and when. */
export interface Claimant {
  destination: Uint8Array;
  predicate: ClaimPredicate;
}

/** ContractCodeEntry ext v1 cost inputs (ten uint32 counts, in XDR field order). */
export interface ContractCodeCostInputs {
  nInstructions: number;
  nFunctions: number;
  nGlobals: number;
  nTableEntries: number;
  nTypes: number;
  nDataSegments: number;
  nElemSegments: number;
  nImports: number;
  nExports: number;
  nDataSegmentBytes: number;
}

/** LedgerEntry.data, all ten arms. Optional fields default to zero / empty / native / absent. */
export type LedgerEntryData =
  | {
      type: 'account';
      accountId: Uint8Array;
      balance?: bigint;
      seqNum?: bigint;
      numSubEntries?: number;
      inflationDest?: Uint8Array | null;
      flags?: number;
      homeDomain?: XdrString;
      /** 4 bytes [master weight, low, medium, high]; default [1, 0, 0, 0] */
      thresholds?: Uint8Array;
      signers?: readonly Signer[];
      v1?: AccountEntryExtensionV1;
    }
  | {
      type: 'trustline';
      accountId: Uint8Array;
      asset: TrustLineAsset;
      balance?: bigint;
      limit?: bigint;
      flags?: number;
      v1?: { liabilities: Liabilities; v2?: { liquidityPoolUseCount: number } };
    }
  | {
      type: 'offer';
      sellerId: Uint8Array;
      offerId: bigint;
      selling?: Asset;
      buying?: Asset;
      amount?: bigint;
      price?: { n: number; d: number };
      flags?: number;
    }
  | { type: 'data'; accountId: Uint8Array; dataName: XdrString; dataValue?: Uint8Array }
  | {
      type: 'claimableBalance';
      balanceId: Uint8Array;
      claimants?: readonly Claimant[];
      asset?: Asset;
      amount?: bigint;
      v1?: { flags: number };
    }
  | {
      type: 'liquidityPool';
      liquidityPoolId: Uint8Array;
      assetA?: Asset;
      assetB?: Asset;
      fee?: number;
      reserveA?: bigint;
      reserveB?: bigint;
      totalPoolShares?: bigint;
      poolSharesTrustLineCount?: bigint;
    }
  | { type: 'contractData'; contract: ScAddress; key: ScVal; durability: Durability; val: ScVal }
  | { type: 'contractCode'; hash: Uint8Array; code: Uint8Array; costInputs?: ContractCodeCostInputs }
  | {
      type: 'configSetting';
      configSettingId: number;
      /** The ConfigSettingEntry arm after the id, as XDR bytes (validated against the arm's layout). */
      body: Uint8Array;
    }
  | { type: 'ttl'; keyHash: Uint8Array; liveUntilLedgerSeq: number };

/** LedgerEntry; the `data` union holds the type and its fields. */
export interface LedgerEntry {
  lastModifiedLedgerSeq: number;
  data: LedgerEntryData;
  /** LedgerEntryExtensionV1; absent means ext v0. */
  v1?: { sponsoringId: Uint8Array | null };
}

/** BucketMetadata; bucketListType absent means ext v0. */
export interface BucketMetadataInput {
  ledgerVersion: number;
  bucketListType?: 'live' | 'hotArchive';
}

/** A live-bucket BucketEntry. Entries and keys may be given as plain objects or as already-encoded XDR. */
export type BucketEntry =
  | ({ type: 'meta' } & BucketMetadataInput)
  | { type: 'live'; entry: LedgerEntry | Uint8Array }
  | { type: 'init'; entry: LedgerEntry | Uint8Array }
  | { type: 'dead'; key: LedgerKey | Uint8Array };

/** A HotArchiveBucketEntry. */
export type HotArchiveBucketEntry =
  | ({ type: 'meta' } & BucketMetadataInput)
  | { type: 'archived'; entry: LedgerEntry | Uint8Array }
  | { type: 'live'; key: LedgerKey | Uint8Array };
