// Account ids, assets and claimable-balance ids: the small fixed-shape XDR types shared by keys and entries
// (validation + the zero-copy AssetView).
import { invalidArgument } from './errors.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { ASSET_TYPE, ASSET_TYPE_NAMES } = xdrConstants;
const { need, readEnum, u32 } = xdrCursor;

/** Encoded size of an AccountID / PublicKey: the ed25519 discriminant plus 32 key bytes. */
export const ACCOUNT_ID_SIZE = 36;

/**
 * AccountID = PublicKey: only PUBLIC_KEY_TYPE_ED25519 (0) exists. Returns the offset after it. Errors name
 * `field + part` (see `need`).
 */
export function skipAccountId(b: Uint8Array, p: number, field: string, part?: string): number {
  readEnum(b, p, 0, 0, field, part);
  need(b, p + 4, 32, field, part);
  return p + ACCOUNT_ID_SIZE;
}

/** ClaimableBalanceID: only CLAIMABLE_BALANCE_ID_TYPE_V0 (0) -> Hash. */
export function skipClaimableBalanceId(b: Uint8Array, p: number, field: string, part?: string): number {
  readEnum(b, p, 0, 0, field, part);
  need(b, p + 4, 32, field, part);
  return p + 36;
}

/**
 * Asset (maxType 2) or TrustLineAsset (maxType 3): NATIVE void, ALPHANUM4 {code[4], issuer},
 * ALPHANUM12 {code[12], issuer}, POOL_SHARE PoolID.
 */
export function skipAsset(b: Uint8Array, p: number, maxType: 2 | 3, field: string): number {
  const type = readEnum(b, p, 0, maxType, field, '.type');
  switch (type) {
    case ASSET_TYPE.NATIVE:
      return p + 4;
    case ASSET_TYPE.CREDIT_ALPHANUM4:
      need(b, p + 4, 4, field, '.assetCode');
      return skipAccountId(b, p + 8, field, '.issuer');
    case ASSET_TYPE.CREDIT_ALPHANUM12:
      need(b, p + 4, 12, field, '.assetCode');
      return skipAccountId(b, p + 16, field, '.issuer');
    default:
      need(b, p + 4, 32, field, '.liquidityPoolID');
      return p + 36;
  }
}

/** Zero-copy reader over one validated Asset / TrustLineAsset. Byte accessors return subarrays, not copies. */
export class AssetView {
  /** The exact XDR bytes of this asset (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** AssetType number (ASSET_TYPE). */
  readonly type: number;

  /** Internal: `xdr` must hold exactly one validated asset. Use the key/entry views to obtain one. */
  constructor(xdr: Uint8Array) {
    this.xdr = xdr;
    this.type = u32(xdr, 0);
  }

  /** XDR enum name, e.g. `ASSET_TYPE_CREDIT_ALPHANUM4`. */
  get typeName(): string {
    return ASSET_TYPE_NAMES[this.type]!;
  }

  /** The raw 4- or 12-byte asset code, right-padded with zero bytes as on the wire. */
  code(): Uint8Array {
    if (this.type === ASSET_TYPE.CREDIT_ALPHANUM4) return this.xdr.subarray(4, 8);
    if (this.type === ASSET_TYPE.CREDIT_ALPHANUM12) return this.xdr.subarray(4, 16);
    return invalidArgument('Asset.code', `${this.typeName} has no asset code`);
  }

  /** The asset code as text, trailing zero padding removed (bytes read as Latin-1, as codes are ASCII). */
  codeString(): string {
    const code = this.code();
    let len = code.length;
    while (len > 0 && code[len - 1] === 0) len--;
    return String.fromCharCode(...code.subarray(0, len));
  }

  /** The issuer's 32-byte ed25519 key. */
  issuer(): Uint8Array {
    if (this.type === ASSET_TYPE.CREDIT_ALPHANUM4) return this.xdr.subarray(12, 44);
    if (this.type === ASSET_TYPE.CREDIT_ALPHANUM12) return this.xdr.subarray(20, 52);
    return invalidArgument('Asset.issuer', `${this.typeName} has no issuer`);
  }

  /** The 32-byte pool id of a POOL_SHARE trust-line asset. */
  liquidityPoolId(): Uint8Array {
    if (this.type === ASSET_TYPE.POOL_SHARE) return this.xdr.subarray(4, 36);
    return invalidArgument('Asset.liquidityPoolId', `${this.typeName} is not a pool share`);
  }
}
