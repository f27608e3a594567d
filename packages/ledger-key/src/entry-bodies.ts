// The non-key parts of each LedgerEntry.data arm (AccountEntry, TrustLineEntry, ..., TTLEntry), validated only to
// find where an entry ends. The key fields themselves are handled by ledger-key.ts, so every function here starts
// right after them (or, for CONTRACT_DATA / CONTRACT_CODE, skips the ext that precedes them).
import { skipAccountId, skipAsset } from './asset.js';
import { skipConfigSettingBody } from './config-setting.js';
import { skipScVal } from './scval.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { LEDGER_ENTRY_TYPE, MAX_CLAIM_PREDICATE_DEPTH, XDR_LIMITS } = xdrConstants;
const {
  badDiscriminant,
  i32,
  readArrayCount,
  readBool,
  readEnum,
  readI32,
  skipFixed,
  skipVarOpaque,
  skipVoidExt,
  tooDeep,
} = xdrCursor;

/** An `int v` extension discriminant that must be 0 or `arm`; returns which. */
function readExtVersion(b: Uint8Array, p: number, arm: number, field: string): number {
  const v = readI32(b, p, field);
  if (v !== 0 && v !== arm) badDiscriminant(b, p, field);
  return v;
}

/** AccountID* (optional): presence flag then the account. */
function skipOptionalAccountId(b: Uint8Array, p: number, field: string): number {
  return readBool(b, p, field) === 1 ? skipAccountId(b, p + 4, field) : p + 4;
}

/** Signer {SignerKey key; uint32 weight}; SignerKey arms 0..2 are 32 bytes, 3 is {uint256, opaque payload<64>}. */
function skipSigner(b: Uint8Array, p: number): number {
  const type = readEnum(b, p, 0, 3, 'Signer.key.type');
  let q = skipFixed(b, p + 4, 32, 'Signer.key');
  if (type === 3) q = skipVarOpaque(b, q, XDR_LIMITS.SIGNED_PAYLOAD, 'Signer.key.ed25519SignedPayload.payload');
  return skipFixed(b, q, 4, 'Signer.weight');
}

/** AccountEntry after accountID, through its ext chain v1 (liabilities) -> v2 (sponsorship) -> v3 (seq info). */
function skipAccountRest(b: Uint8Array, p: number): number {
  let q = skipFixed(b, p, 20, 'AccountEntry'); // balance, seqNum, numSubEntries
  q = skipOptionalAccountId(b, q, 'AccountEntry.inflationDest');
  q = skipFixed(b, q, 4, 'AccountEntry.flags');
  q = skipVarOpaque(b, q, XDR_LIMITS.HOME_DOMAIN, 'AccountEntry.homeDomain');
  q = skipFixed(b, q, 4, 'AccountEntry.thresholds');
  const signers = readArrayCount(b, q, XDR_LIMITS.SIGNERS, 40, 'AccountEntry.signers');
  q += 4;
  for (let i = 0; i < signers; i++) q = skipSigner(b, q);
  if (readExtVersion(b, q, 1, 'AccountEntry.ext.v') === 0) return q + 4;
  q = skipFixed(b, q + 4, 16, 'AccountEntryExtensionV1.liabilities');
  if (readExtVersion(b, q, 2, 'AccountEntryExtensionV1.ext.v') === 0) return q + 4;
  q = skipFixed(b, q + 4, 8, 'AccountEntryExtensionV2'); // numSponsored, numSponsoring
  const sponsors = readArrayCount(b, q, XDR_LIMITS.SIGNERS, 4, 'AccountEntryExtensionV2.signerSponsoringIDs');
  q += 4;
  for (let i = 0; i < sponsors; i++) q = skipOptionalAccountId(b, q, 'AccountEntryExtensionV2.signerSponsoringIDs');
  if (readExtVersion(b, q, 3, 'AccountEntryExtensionV2.ext.v') === 0) return q + 4;
  q = skipVoidExt(b, q + 4, 'AccountEntryExtensionV3.ext');
  return skipFixed(b, q, 12, 'AccountEntryExtensionV3'); // seqLedger, seqTime
}

/** TrustLineEntry after accountID and asset. */
function skipTrustLineRest(b: Uint8Array, p: number): number {
  let q = skipFixed(b, p, 20, 'TrustLineEntry'); // balance, limit, flags
  if (readExtVersion(b, q, 1, 'TrustLineEntry.ext.v') === 0) return q + 4;
  q = skipFixed(b, q + 4, 16, 'TrustLineEntry.ext.v1.liabilities');
  if (readExtVersion(b, q, 2, 'TrustLineEntry.ext.v1.ext.v') === 0) return q + 4;
  q = skipFixed(b, q + 4, 4, 'TrustLineEntryExtensionV2.liquidityPoolUseCount');
  return skipVoidExt(b, q, 'TrustLineEntryExtensionV2.ext');
}

/** OfferEntry after sellerID and offerID. */
function skipOfferRest(b: Uint8Array, p: number): number {
  let q = skipAsset(b, p, 2, 'OfferEntry.selling');
  q = skipAsset(b, q, 2, 'OfferEntry.buying');
  q = skipFixed(b, q, 20, 'OfferEntry'); // amount, price {n, d}, flags
  return skipVoidExt(b, q, 'OfferEntry.ext');
}

/** DataEntry after accountID and dataName. */
function skipDataRest(b: Uint8Array, p: number): number {
  const q = skipVarOpaque(b, p, XDR_LIMITS.DATA_VALUE, 'DataEntry.dataValue');
  return skipVoidExt(b, q, 'DataEntry.ext');
}

/** ClaimPredicate at nesting level `depth` (root = 1); AND/OR hold at most 2 children, NOT an optional one. */
function skipClaimPredicate(b: Uint8Array, p: number, depth: number): number {
  if (depth > MAX_CLAIM_PREDICATE_DEPTH) {
    tooDeep(p, MAX_CLAIM_PREDICATE_DEPTH, 'ClaimPredicate');
  }
  const type = readEnum(b, p, 0, 5, 'ClaimPredicate.type');
  switch (type) {
    case 0: // UNCONDITIONAL
      return p + 4;
    case 1: // AND
    case 2: {
      // OR
      const count = readArrayCount(b, p + 4, XDR_LIMITS.PREDICATES, 4, 'ClaimPredicate.predicates');
      let q = p + 8;
      for (let i = 0; i < count; i++) q = skipClaimPredicate(b, q, depth + 1);
      return q;
    }
    case 3: // NOT
      return readBool(b, p + 4, 'ClaimPredicate.notPredicate') === 1 ? skipClaimPredicate(b, p + 8, depth + 1) : p + 8;
    default: // BEFORE_ABSOLUTE_TIME, BEFORE_RELATIVE_TIME: int64
      return skipFixed(b, p + 4, 8, 'ClaimPredicate.time');
  }
}

/** ClaimableBalanceEntry after balanceID. */
function skipClaimableBalanceRest(b: Uint8Array, p: number): number {
  const claimants = readArrayCount(b, p, XDR_LIMITS.CLAIMANTS, 44, 'ClaimableBalanceEntry.claimants');
  let q = p + 4;
  for (let i = 0; i < claimants; i++) {
    readEnum(b, q, 0, 0, 'Claimant.type');
    q = skipAccountId(b, q + 4, 'Claimant.v0.destination');
    q = skipClaimPredicate(b, q, 1);
  }
  q = skipAsset(b, q, 2, 'ClaimableBalanceEntry.asset');
  q = skipFixed(b, q, 8, 'ClaimableBalanceEntry.amount');
  if (readExtVersion(b, q, 1, 'ClaimableBalanceEntry.ext.v') === 0) return q + 4;
  q = skipVoidExt(b, q + 4, 'ClaimableBalanceEntryExtensionV1.ext');
  return skipFixed(b, q, 4, 'ClaimableBalanceEntryExtensionV1.flags');
}

/** LiquidityPoolEntry after liquidityPoolID: body union (only CONSTANT_PRODUCT = 0). */
function skipLiquidityPoolRest(b: Uint8Array, p: number): number {
  readEnum(b, p, 0, 0, 'LiquidityPoolEntry.body.type');
  let q = skipAsset(b, p + 4, 2, 'LiquidityPoolConstantProductParameters.assetA');
  q = skipAsset(b, q, 2, 'LiquidityPoolConstantProductParameters.assetB');
  return skipFixed(b, q, 36, 'LiquidityPoolEntry.body.constantProduct'); // fee, reserveA/B, shares, trust lines
}

/**
 * Validates what precedes the key fields inside the data arm of `type` starting at `p` (right after the
 * LedgerEntryType) and returns where the key fields start. Only CONTRACT_DATA (ExtensionPoint) and CONTRACT_CODE
 * (ext union with an optional v1 cost-inputs struct) have anything there.
 */
export function skipEntryBeforeKey(b: Uint8Array, type: number, p: number): number {
  if (type === LEDGER_ENTRY_TYPE.CONTRACT_DATA) return skipVoidExt(b, p, 'ContractDataEntry.ext');
  if (type !== LEDGER_ENTRY_TYPE.CONTRACT_CODE) return p;
  if (readExtVersion(b, p, 1, 'ContractCodeEntry.ext.v') === 0) return p + 4;
  let q = skipVoidExt(b, p + 4, 'ContractCodeEntry.ext.v1.ext');
  q = skipVoidExt(b, q, 'ContractCodeCostInputs.ext');
  return skipFixed(b, q, 40, 'ContractCodeCostInputs'); // ten uint32 counts
}

/**
 * Validates the rest of the data arm of `type` after its key fields (`keyStart` where they began, `keyEnd` where they
 * ended) and returns the offset after the data arm.
 */
export function skipEntryAfterKey(b: Uint8Array, type: number, keyStart: number, keyEnd: number): number {
  switch (type) {
    case LEDGER_ENTRY_TYPE.ACCOUNT:
      return skipAccountRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.TRUSTLINE:
      return skipTrustLineRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.OFFER:
      return skipOfferRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.DATA:
      return skipDataRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE:
      return skipClaimableBalanceRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.LIQUIDITY_POOL:
      return skipLiquidityPoolRest(b, keyEnd);
    case LEDGER_ENTRY_TYPE.CONTRACT_DATA:
      return skipScVal(b, keyEnd, 1); // val
    case LEDGER_ENTRY_TYPE.CONTRACT_CODE:
      return skipVarOpaque(b, keyEnd, XDR_LIMITS.UNBOUNDED, 'ContractCodeEntry.code');
    case LEDGER_ENTRY_TYPE.CONFIG_SETTING:
      return skipConfigSettingBody(b, keyEnd, i32(b, keyStart));
    default:
      // LEDGER_ENTRY_TYPE.TTL (the caller range-checked the type)
      return skipFixed(b, keyEnd, 4, 'TTLEntry.liveUntilLedgerSeq');
  }
}

/** LedgerEntry.ext: v0 void, or v1 {SponsorshipDescriptor sponsoringID; ext v0}. Returns the offset after it. */
export function skipLedgerEntryExt(b: Uint8Array, p: number): number {
  if (readEnum(b, p, 0, 1, 'LedgerEntry.ext.v') === 0) return p + 4;
  const q = skipOptionalAccountId(b, p + 4, 'LedgerEntryExtensionV1.sponsoringID');
  return skipVoidExt(b, q, 'LedgerEntryExtensionV1.ext');
}
