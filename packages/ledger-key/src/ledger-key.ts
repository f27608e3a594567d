// LedgerKey: validation of each arm (shared by keys, by the key fields inside entries, and by the comparator's
// slow paths) and the zero-copy LedgerKeyView.
import { AssetView, skipAccountId, skipAsset, skipClaimableBalanceId } from './asset.js';
import { invalidArgument } from './errors.js';
import { ScAddressView, scAddressSize, skipScAddress } from './sc-address.js';
import { ScValView, skipScVal } from './scval.js';
import type { LedgerEntryType } from './xdr-constants.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { LEDGER_ENTRY_TYPE, LEDGER_ENTRY_TYPE_NAMES, MAX_CONFIG_SETTING_ID, MAX_LEDGER_ENTRY_TYPE, XDR_LIMITS } =
  xdrConstants;
const { expectEnd, i64Big, readEnum, skipFixed, skipVarOpaque, startOffset, u32 } = xdrCursor;

/** Reads and range-checks a LedgerEntryType discriminant. */
export function readLedgerEntryType(b: Uint8Array, p: number, field: string): number {
  return readEnum(b, p, 0, MAX_LEDGER_ENTRY_TYPE, field);
}

/**
 * Validates the fields of the LedgerKey arm of `type` (range-checked by the caller) starting at `p` and returns the
 * offset after them. The same fields open the matching LedgerEntry data arm, so entries use this too.
 */
export function skipKeyArm(b: Uint8Array, p: number, type: number): number {
  switch (type) {
    case LEDGER_ENTRY_TYPE.ACCOUNT:
      return skipAccountId(b, p, 'LedgerKey.account.accountID');
    case LEDGER_ENTRY_TYPE.TRUSTLINE:
      return skipAsset(b, skipAccountId(b, p, 'LedgerKey.trustLine.accountID'), 3, 'LedgerKey.trustLine.asset');
    case LEDGER_ENTRY_TYPE.OFFER:
      return skipFixed(b, skipAccountId(b, p, 'LedgerKey.offer.sellerID'), 8, 'LedgerKey.offer.offerID');
    case LEDGER_ENTRY_TYPE.DATA:
      return skipVarOpaque(
        b,
        skipAccountId(b, p, 'LedgerKey.data.accountID'),
        XDR_LIMITS.DATA_NAME,
        'LedgerKey.data.dataName',
      );
    case LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE:
      return skipClaimableBalanceId(b, p, 'LedgerKey.claimableBalance.balanceID');
    case LEDGER_ENTRY_TYPE.CONTRACT_DATA: {
      const keyStart = skipScAddress(b, p, 'LedgerKey.contractData.contract');
      const durability = skipScVal(b, keyStart, 1);
      readEnum(b, durability, 0, 1, 'LedgerKey.contractData.durability');
      return durability + 4;
    }
    case LEDGER_ENTRY_TYPE.CONFIG_SETTING:
      readEnum(b, p, 0, MAX_CONFIG_SETTING_ID, 'LedgerKey.configSetting.configSettingID');
      return p + 4;
    default:
      // LIQUIDITY_POOL, CONTRACT_CODE, TTL: one Hash
      return skipFixed(b, p, 32, 'LedgerKey.hash');
  }
}

/** Validates one LedgerKey at `p` and returns the offset after it. */
export function skipLedgerKey(b: Uint8Array, p: number): number {
  const type = readLedgerEntryType(b, p, 'LedgerKey.type');
  return skipKeyArm(b, p + 4, type);
}

/**
 * Zero-copy reader over one validated LedgerKey. Accessors read in place and return subarrays; an accessor that
 * does not fit `type` throws INVALID_ARGUMENT.
 */
export class LedgerKeyView {
  /** The exact XDR bytes of this key (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** LedgerEntryType number (LEDGER_ENTRY_TYPE). */
  readonly type: LedgerEntryType;

  /** Internal: `xdr` must hold exactly one validated LedgerKey. Use readLedgerKey. */
  constructor(xdr: Uint8Array) {
    this.xdr = xdr;
    this.type = u32(xdr, 0) as LedgerEntryType;
  }

  /** Same as `xdr`: the exact bytes of this key. */
  get bytes(): Uint8Array {
    return this.xdr;
  }

  get byteLength(): number {
    return this.xdr.length;
  }

  /** XDR enum name, e.g. `CONTRACT_DATA`. */
  get typeName(): string {
    return LEDGER_ENTRY_TYPE_NAMES[this.type]!;
  }

  /** The 32-byte ed25519 key of ACCOUNT, TRUSTLINE, DATA (accountID) or OFFER (sellerID) keys. */
  accountId(): Uint8Array {
    if (this.type > LEDGER_ENTRY_TYPE.DATA) this.mismatch('accountId');
    return this.xdr.subarray(8, 40);
  }

  /** OFFER sellerID (same bytes as accountId()). */
  sellerId(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.OFFER, 'sellerId');
    return this.xdr.subarray(8, 40);
  }

  /** TRUSTLINE asset (a TrustLineAsset, so POOL_SHARE is possible). */
  asset(): AssetView {
    this.expect(LEDGER_ENTRY_TYPE.TRUSTLINE, 'asset');
    return new AssetView(this.xdr.subarray(40));
  }

  /** OFFER offerID (signed int64). */
  offerId(): bigint {
    this.expect(LEDGER_ENTRY_TYPE.OFFER, 'offerId');
    return i64Big(this.xdr, 40);
  }

  /** DATA dataName bytes (string64, at most 64 bytes, not necessarily UTF-8). */
  dataName(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.DATA, 'dataName');
    return this.xdr.subarray(44, 44 + u32(this.xdr, 40));
  }

  /** CLAIMABLE_BALANCE: the 32-byte hash of the V0 ClaimableBalanceID. */
  balanceId(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE, 'balanceId');
    return this.xdr.subarray(8, 40);
  }

  /** LIQUIDITY_POOL: the 32-byte pool id. */
  liquidityPoolId(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.LIQUIDITY_POOL, 'liquidityPoolId');
    return this.xdr.subarray(4, 36);
  }

  /** CONTRACT_DATA contract address. */
  contract(): ScAddressView {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_DATA, 'contract');
    return new ScAddressView(this.xdr.subarray(4, 4 + scAddressSize(u32(this.xdr, 4))));
  }

  /** CONTRACT_DATA key (the SCVal between the contract and the durability). */
  key(): ScValView {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_DATA, 'key');
    return new ScValView(this.xdr.subarray(4 + scAddressSize(u32(this.xdr, 4)), this.xdr.length - 4));
  }

  /** CONTRACT_DATA durability: 0 TEMPORARY, 1 PERSISTENT. */
  durability(): 0 | 1 {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_DATA, 'durability');
    return u32(this.xdr, this.xdr.length - 4) as 0 | 1;
  }

  /** CONTRACT_CODE: the 32-byte code hash. */
  codeHash(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_CODE, 'codeHash');
    return this.xdr.subarray(4, 36);
  }

  /** CONFIG_SETTING: the ConfigSettingID number (CONFIG_SETTING_ID). */
  configSettingId(): number {
    this.expect(LEDGER_ENTRY_TYPE.CONFIG_SETTING, 'configSettingId');
    return u32(this.xdr, 4);
  }

  /** TTL: the 32-byte SHA-256 of the CONTRACT_DATA/CONTRACT_CODE key it belongs to. */
  keyHash(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.TTL, 'keyHash');
    return this.xdr.subarray(4, 36);
  }

  private expect(type: number, accessor: string): void {
    if (this.type !== type) this.mismatch(accessor);
  }

  private mismatch(accessor: string): never {
    return invalidArgument(`LedgerKey.${accessor}`, `not available on a ${this.typeName} key`);
  }
}

/**
 * Reads and validates a LedgerKey. Without `offset` the key must fill `bytes` (else TRAILING_BYTES); with `offset`
 * it is read from inside a larger buffer (a bucket file, a concatenation) and `view.byteLength` says how many bytes
 * it took.
 */
export function readLedgerKey(bytes: Uint8Array, offset?: number): LedgerKeyView {
  const start = startOffset(bytes, offset);
  const end = skipLedgerKey(bytes, start);
  if (offset === undefined) expectEnd(bytes, end, 'LedgerKey');
  return new LedgerKeyView(bytes.subarray(start, end));
}

/** Validates that `bytes` hold exactly one LedgerKey; throws LedgerKeyError otherwise. */
export function validateLedgerKey(bytes: Uint8Array): void {
  startOffset(bytes, undefined);
  expectEnd(bytes, skipLedgerKey(bytes, 0), 'LedgerKey');
}
