// LedgerKey writer (all ten types; each arm's key fields in the order that also opens its entry) and
// encodeLedgerKey.
import { describeValue, invalidArgument } from '../errors.js';
import type { LedgerKey } from '../model.js';
import { MAX_CONFIG_SETTING_ID, XDR_LIMITS } from '../xdr-constants.js';
import { writeAccountId, writeAsset } from './asset.js';
import { bigOf, bytesOf, i32Of, tagOf, varBytesOf } from './input-checks.js';
import { writeScAddress } from './sc-address.js';
import { writeScVal } from './scval.js';
import { encodeWith, type XdrWriter } from './xdr-writer.js';

/** ContractDataDurability from its model name. */
export function durabilityOf(durability: unknown, field: string): number {
  if (durability === 'temporary') return 0;
  if (durability === 'persistent') return 1;
  return invalidArgument(field, `expected 'temporary' or 'persistent', got ${describeValue(durability)}`);
}

/** A ConfigSettingID the current XDR defines (0..20). */
export function configSettingIdOf(id: unknown, field: string): number {
  const value = i32Of(id, field);
  if (value < 0 || value > MAX_CONFIG_SETTING_ID) invalidArgument(field, `unknown ConfigSettingID ${value}`);
  return value;
}

/** LedgerKey: the type, then the arm's key fields (the same fields, in the same order, that open each entry). */
export function writeLedgerKey(w: XdrWriter, key: LedgerKey, field: string): void {
  switch (key?.type) {
    case 'account':
      w.u32(0);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      return;
    case 'trustline':
      w.u32(1);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      writeAsset(w, key.asset, true, `${field}.asset`);
      return;
    case 'offer':
      w.u32(2);
      writeAccountId(w, key.sellerId, `${field}.sellerId`);
      w.u64(bigOf(key.offerId, 64, true, `${field}.offerId`));
      return;
    case 'data':
      w.u32(3);
      writeAccountId(w, key.accountId, `${field}.accountId`);
      w.variable(varBytesOf(key.dataName, XDR_LIMITS.DATA_NAME, `${field}.dataName`));
      return;
    case 'claimableBalance':
      w.u32(4);
      w.u32(0);
      w.fixed(bytesOf(key.balanceId, 32, `${field}.balanceId`));
      return;
    case 'liquidityPool':
      w.u32(5);
      w.fixed(bytesOf(key.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    case 'contractData':
      w.u32(6);
      writeScAddress(w, key.contract, `${field}.contract`);
      writeScVal(w, key.key, 1, `${field}.key`);
      w.u32(durabilityOf(key.durability, `${field}.durability`));
      return;
    case 'contractCode':
      w.u32(7);
      w.fixed(bytesOf(key.hash, 32, `${field}.hash`));
      return;
    case 'configSetting':
      w.u32(8);
      w.u32(configSettingIdOf(key.configSettingId, `${field}.configSettingId`));
      return;
    case 'ttl':
      w.u32(9);
      w.fixed(bytesOf(key.keyHash, 32, `${field}.keyHash`));
      return;
    default:
      invalidArgument(field, `unknown LedgerKey type ${tagOf(key)}`);
  }
}

/** Canonical XDR of a LedgerKey. */
export function encodeLedgerKey(key: LedgerKey): Uint8Array {
  return encodeWith(key, writeLedgerKey, 'LedgerKey');
}
