// Writers of the account and asset pieces that keys and entries share: AccountID, optional AccountID, Asset and
// TrustLineAsset (asset codes given as text or raw bytes).
import { invalidArgument } from '../errors.js';
import type { Asset, AssetCode, TrustLineAsset } from '../model.js';
import { bytesOf, tagOf } from './input-checks.js';
import type { XdrWriter } from './xdr-writer.js';

/**
 * AccountID / PublicKey. Only PUBLIC_KEY_TYPE_ED25519 exists, so the model carries just the 32 key bytes and the
 * discriminant is implied.
 */
export function writeAccountId(w: XdrWriter, key: Uint8Array, field: string): void {
  w.u32(0); // PUBLIC_KEY_TYPE_ED25519
  w.fixed(bytesOf(key, 32, field));
}

/** `AccountID*` (inflation destination, sponsors): null or undefined is the absent pointer. */
export function writeOptionalAccountId(w: XdrWriter, key: Uint8Array | null | undefined, field: string): void {
  if (key === null || key === undefined) {
    w.u32(0);
    return;
  }
  w.u32(1);
  writeAccountId(w, key, field);
}

/** The characters stellar-core accepts in an asset code given as text. */
const ASSET_CODE_TEXT = /^[A-Za-z0-9]+$/;

/** An asset code: text of 1..4 / 5..12 ASCII alphanumerics, zero-padded; or exactly 4 / 12 raw bytes. */
function assetCodeOf(code: AssetCode, size: 4 | 12, field: string): Uint8Array {
  if (code instanceof Uint8Array) return bytesOf(code, size, field);
  const minLength = size === 4 ? 1 : 5;
  if (typeof code !== 'string' || code.length < minLength || code.length > size || !ASSET_CODE_TEXT.test(code)) {
    invalidArgument(field, `expected ${minLength}..${size} ASCII letters or digits`);
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < code.length; i++) out[i] = code.charCodeAt(i);
  return out;
}

/** Asset, or TrustLineAsset when `allowPoolShare` (the only difference is the POOL_SHARE arm). */
export function writeAsset(w: XdrWriter, asset: Asset | TrustLineAsset, allowPoolShare: boolean, field: string): void {
  switch (asset?.type) {
    case 'native':
      w.u32(0);
      return;
    case 'alphanum4':
      w.u32(1);
      w.fixed(assetCodeOf(asset.code, 4, `${field}.code`));
      writeAccountId(w, asset.issuer, `${field}.issuer`);
      return;
    case 'alphanum12':
      w.u32(2);
      w.fixed(assetCodeOf(asset.code, 12, `${field}.code`));
      writeAccountId(w, asset.issuer, `${field}.issuer`);
      return;
    case 'poolShare':
      if (!allowPoolShare) break;
      w.u32(3);
      w.fixed(bytesOf(asset.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    default:
      break;
  }
  invalidArgument(field, `unknown or disallowed asset type ${tagOf(asset)}`);
}
