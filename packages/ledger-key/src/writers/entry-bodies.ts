// LedgerEntry.data writer: the ten entry bodies with their extensions, signers, claim predicates and liabilities.
// Omitted optional fields take the values of a freshly created entry.
import { skipConfigSettingBody } from '../config-setting.js';
import { invalidArgument } from '../errors.js';
import type { ClaimPredicate, LedgerEntryData, SignerKey } from '../model.js';
import { MAX_CLAIM_PREDICATE_DEPTH, XDR_LIMITS } from '../xdr-constants.js';
import { writeAccountId, writeAsset, writeOptionalAccountId } from './asset.js';
import { arrayOf, bigOf, bytesOf, checkedXdr, i32Of, objectOf, tagOf, u32Of, varBytesOf } from './input-checks.js';
import { configSettingIdOf, durabilityOf } from './ledger-key.js';
import { writeScAddress } from './sc-address.js';
import { writeScVal } from './scval.js';
import type { XdrWriter } from './xdr-writer.js';

const EMPTY = new Uint8Array(0);
/** [master weight 1, low 0, medium 0, high 0]: the thresholds of a freshly created account. */
const DEFAULT_THRESHOLDS = Uint8Array.of(1, 0, 0, 0);

/** SignerKey of an account signer: three 32-byte arms and the signed-payload arm with its opaque<64> payload. */
function writeSignerKey(w: XdrWriter, key: SignerKey, field: string): void {
  switch (key?.type) {
    case 'ed25519':
      w.u32(0);
      w.fixed(bytesOf(key.key, 32, `${field}.key`));
      return;
    case 'preAuthTx':
      w.u32(1);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'hashX':
      w.u32(2);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'ed25519SignedPayload':
      w.u32(3);
      w.fixed(bytesOf(key.ed25519, 32, `${field}.ed25519`));
      w.variable(varBytesOf(key.payload, XDR_LIMITS.SIGNED_PAYLOAD, `${field}.payload`));
      return;
    default:
      invalidArgument(field, `unknown SignerKey type ${tagOf(key)}`);
  }
}

/** ClaimPredicate at nesting level `depth`, bounded like the reader (MAX_CLAIM_PREDICATE_DEPTH). */
function writeClaimPredicate(w: XdrWriter, predicate: ClaimPredicate, depth: number, field: string): void {
  if (depth > MAX_CLAIM_PREDICATE_DEPTH) invalidArgument(field, `nesting deeper than ${MAX_CLAIM_PREDICATE_DEPTH}`);
  switch (predicate?.type) {
    case 'unconditional':
      w.u32(0);
      return;
    case 'and':
    case 'or': {
      const children = arrayOf(predicate.predicates, XDR_LIMITS.PREDICATES, `${field}.predicates`);
      w.u32(predicate.type === 'and' ? 1 : 2);
      w.u32(children.length);
      for (let i = 0; i < children.length; i++) {
        writeClaimPredicate(w, children[i]!, depth + 1, `${field}.predicates[${i}]`);
      }
      return;
    }
    case 'not':
      w.u32(3);
      if (predicate.predicate === null) {
        w.u32(0);
      } else {
        w.u32(1);
        writeClaimPredicate(w, predicate.predicate, depth + 1, `${field}.predicate`);
      }
      return;
    case 'beforeAbsoluteTime':
      w.u32(4);
      w.u64(bigOf(predicate.time, 64, true, `${field}.time`));
      return;
    case 'beforeRelativeTime':
      w.u32(5);
      w.u64(bigOf(predicate.seconds, 64, true, `${field}.seconds`));
      return;
    default:
      invalidArgument(field, `unknown ClaimPredicate type ${tagOf(predicate)}`);
  }
}

/**
 * An extension union whose arm `arm` carries `value` (an omitted value is arm 0, void): writes the discriminant and
 * returns the checked extension object to write next, or undefined when there is nothing more to write.
 */
export function writeExtensionArm<T>(
  w: XdrWriter,
  value: T | undefined,
  arm: number,
  field: string,
): NonNullable<T> | undefined {
  if (value === undefined) {
    w.u32(0);
    return undefined;
  }
  const extension = objectOf(value, field);
  w.u32(arm);
  return extension;
}

/** Liabilities {int64 buying; int64 selling} of the account and trust-line ext v1. */
function writeLiabilities(w: XdrWriter, liabilities: { buying: bigint; selling: bigint }, field: string): void {
  objectOf(liabilities, field);
  w.u64(bigOf(liabilities.buying, 64, true, `${field}.buying`));
  w.u64(bigOf(liabilities.selling, 64, true, `${field}.selling`));
}

/**
 * LedgerEntry.data. Each arm writes its key fields first (as writeLedgerKey does) and then the rest in XDR order;
 * omitted optional fields take the values a freshly created entry has (zero balances, no signers, native assets,
 * master weight 1, ext v0), so a generator can build a valid entry from a key alone.
 */
export function writeEntryData(w: XdrWriter, data: LedgerEntryData, field: string): void {
  switch (data?.type) {
    case 'account': {
      w.u32(0);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      w.u64(bigOf(data.balance ?? 0n, 64, true, `${field}.balance`));
      w.u64(bigOf(data.seqNum ?? 0n, 64, true, `${field}.seqNum`));
      w.u32(u32Of(data.numSubEntries ?? 0, `${field}.numSubEntries`));
      writeOptionalAccountId(w, data.inflationDest, `${field}.inflationDest`);
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      w.variable(varBytesOf(data.homeDomain ?? EMPTY, XDR_LIMITS.HOME_DOMAIN, `${field}.homeDomain`));
      w.fixed(bytesOf(data.thresholds ?? DEFAULT_THRESHOLDS, 4, `${field}.thresholds`));
      const signers = arrayOf(data.signers, XDR_LIMITS.SIGNERS, `${field}.signers`);
      w.u32(signers.length);
      for (let i = 0; i < signers.length; i++) {
        const signer = objectOf(signers[i], `${field}.signers[${i}]`);
        writeSignerKey(w, signer.key, `${field}.signers[${i}].key`);
        w.u32(u32Of(signer.weight, `${field}.signers[${i}].weight`));
      }
      const v1 = writeExtensionArm(w, data.v1, 1, `${field}.v1`);
      if (v1 === undefined) return;
      writeLiabilities(w, v1.liabilities, `${field}.v1.liabilities`);
      const v2 = writeExtensionArm(w, v1.v2, 2, `${field}.v1.v2`);
      if (v2 === undefined) return;
      w.u32(u32Of(v2.numSponsored, `${field}.v1.v2.numSponsored`));
      w.u32(u32Of(v2.numSponsoring, `${field}.v1.v2.numSponsoring`));
      const sponsors = arrayOf(v2.signerSponsoringIds, XDR_LIMITS.SIGNERS, `${field}.v1.v2.signerSponsoringIds`);
      w.u32(sponsors.length);
      for (let i = 0; i < sponsors.length; i++) {
        writeOptionalAccountId(w, sponsors[i], `${field}.v1.v2.signerSponsoringIds[${i}]`);
      }
      const v3 = writeExtensionArm(w, v2.v3, 3, `${field}.v1.v2.v3`);
      if (v3 === undefined) return;
      w.u32(0); // AccountEntryExtensionV3.ext
      w.u32(u32Of(v3.seqLedger, `${field}.v1.v2.v3.seqLedger`));
      w.u64(bigOf(v3.seqTime, 64, false, `${field}.v1.v2.v3.seqTime`));
      return;
    }
    case 'trustline': {
      w.u32(1);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      writeAsset(w, data.asset, true, `${field}.asset`);
      w.u64(bigOf(data.balance ?? 0n, 64, true, `${field}.balance`));
      w.u64(bigOf(data.limit ?? 0n, 64, true, `${field}.limit`));
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      const v1 = writeExtensionArm(w, data.v1, 1, `${field}.v1`);
      if (v1 === undefined) return;
      writeLiabilities(w, v1.liabilities, `${field}.v1.liabilities`);
      const v2 = writeExtensionArm(w, v1.v2, 2, `${field}.v1.v2`);
      if (v2 === undefined) return;
      w.i32(i32Of(v2.liquidityPoolUseCount, `${field}.v1.v2.liquidityPoolUseCount`));
      w.u32(0); // TrustLineEntryExtensionV2.ext
      return;
    }
    case 'offer': {
      w.u32(2);
      writeAccountId(w, data.sellerId, `${field}.sellerId`);
      w.u64(bigOf(data.offerId, 64, true, `${field}.offerId`));
      writeAsset(w, data.selling ?? { type: 'native' }, false, `${field}.selling`);
      writeAsset(w, data.buying ?? { type: 'native' }, false, `${field}.buying`);
      w.u64(bigOf(data.amount ?? 0n, 64, true, `${field}.amount`));
      const price = objectOf(data.price ?? { n: 1, d: 1 }, `${field}.price`);
      w.i32(i32Of(price.n, `${field}.price.n`));
      w.i32(i32Of(price.d, `${field}.price.d`));
      w.u32(u32Of(data.flags ?? 0, `${field}.flags`));
      w.u32(0); // ext
      return;
    }
    case 'data':
      w.u32(3);
      writeAccountId(w, data.accountId, `${field}.accountId`);
      w.variable(varBytesOf(data.dataName, XDR_LIMITS.DATA_NAME, `${field}.dataName`));
      w.variable(varBytesOf(data.dataValue ?? EMPTY, XDR_LIMITS.DATA_VALUE, `${field}.dataValue`));
      w.u32(0); // ext
      return;
    case 'claimableBalance': {
      w.u32(4);
      w.u32(0); // CLAIMABLE_BALANCE_ID_TYPE_V0
      w.fixed(bytesOf(data.balanceId, 32, `${field}.balanceId`));
      const claimants = arrayOf(data.claimants, XDR_LIMITS.CLAIMANTS, `${field}.claimants`);
      w.u32(claimants.length);
      for (let i = 0; i < claimants.length; i++) {
        const claimant = objectOf(claimants[i], `${field}.claimants[${i}]`);
        w.u32(0); // CLAIMANT_TYPE_V0
        writeAccountId(w, claimant.destination, `${field}.claimants[${i}].destination`);
        writeClaimPredicate(w, claimant.predicate, 1, `${field}.claimants[${i}].predicate`);
      }
      writeAsset(w, data.asset ?? { type: 'native' }, false, `${field}.asset`);
      w.u64(bigOf(data.amount ?? 0n, 64, true, `${field}.amount`));
      const v1 = writeExtensionArm(w, data.v1, 1, `${field}.v1`);
      if (v1 === undefined) return;
      w.u32(0); // ClaimableBalanceEntryExtensionV1.ext
      w.u32(u32Of(v1.flags, `${field}.v1.flags`));
      return;
    }
    case 'liquidityPool':
      w.u32(5);
      w.fixed(bytesOf(data.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      w.u32(0); // LIQUIDITY_POOL_CONSTANT_PRODUCT
      writeAsset(w, data.assetA ?? { type: 'native' }, false, `${field}.assetA`);
      writeAsset(w, data.assetB ?? { type: 'native' }, false, `${field}.assetB`);
      w.i32(i32Of(data.fee ?? 30, `${field}.fee`));
      w.u64(bigOf(data.reserveA ?? 0n, 64, true, `${field}.reserveA`));
      w.u64(bigOf(data.reserveB ?? 0n, 64, true, `${field}.reserveB`));
      w.u64(bigOf(data.totalPoolShares ?? 0n, 64, true, `${field}.totalPoolShares`));
      w.u64(bigOf(data.poolSharesTrustLineCount ?? 0n, 64, true, `${field}.poolSharesTrustLineCount`));
      return;
    case 'contractData':
      w.u32(6);
      w.u32(0); // ExtensionPoint
      writeScAddress(w, data.contract, `${field}.contract`);
      writeScVal(w, data.key, 1, `${field}.key`);
      w.u32(durabilityOf(data.durability, `${field}.durability`));
      writeScVal(w, data.val, 1, `${field}.val`);
      return;
    case 'contractCode': {
      w.u32(7);
      const inputs = writeExtensionArm(w, data.costInputs, 1, `${field}.costInputs`);
      if (inputs !== undefined) {
        w.u32(0); // v1.ext
        w.u32(0); // ContractCodeCostInputs.ext
        const counts = [
          inputs.nInstructions,
          inputs.nFunctions,
          inputs.nGlobals,
          inputs.nTableEntries,
          inputs.nTypes,
          inputs.nDataSegments,
          inputs.nElemSegments,
          inputs.nImports,
          inputs.nExports,
          inputs.nDataSegmentBytes,
        ];
        for (const count of counts) w.u32(u32Of(count, `${field}.costInputs`));
      }
      w.fixed(bytesOf(data.hash, 32, `${field}.hash`));
      if (!(data.code instanceof Uint8Array)) invalidArgument(`${field}.code`, 'expected a Uint8Array');
      w.variable(data.code);
      return;
    }
    case 'configSetting': {
      const id = configSettingIdOf(data.configSettingId, `${field}.configSettingId`);
      const body = data.body;
      if (!(body instanceof Uint8Array)) invalidArgument(`${field}.body`, 'expected the arm as XDR bytes');
      checkedXdr(
        body,
        (bytes) => {
          const end = skipConfigSettingBody(bytes, 0, id);
          if (end !== bytes.length) invalidArgument(`${field}.body`, `${bytes.length - end} bytes after the arm`);
        },
        `${field}.body`,
      );
      w.u32(8);
      w.u32(id);
      w.fixed(body);
      return;
    }
    case 'ttl':
      w.u32(9);
      w.fixed(bytesOf(data.keyHash, 32, `${field}.keyHash`));
      w.u32(u32Of(data.liveUntilLedgerSeq, `${field}.liveUntilLedgerSeq`));
      return;
    default:
      invalidArgument(field, `unknown LedgerEntry data type ${tagOf(data)}`);
  }
}
