// TTL keys: every CONTRACT_DATA / CONTRACT_CODE entry has a TTL entry keyed by the SHA-256 of its LedgerKey XDR
// (stellar-core getTTLKey, spec §1.4).
import { createHash } from 'node:crypto';
import { assert } from '@strata/base';
import { LedgerKeyError, LedgerKeyErrorCode } from './errors.js';
import { validateLedgerKey } from './ledger-key.js';
import { LEDGER_ENTRY_TYPE } from './xdr-constants.js';
import { u32 } from './xdr-cursor.js';

/**
 * The TTL LedgerKey `{type: TTL, keyHash: SHA-256(key)}` of an XDR CONTRACT_DATA or CONTRACT_CODE LedgerKey. The key
 * is validated first; any other type throws NOT_SOROBAN_KEY. Returns a new 36-byte array.
 */
export function ttlKeyOf(key: Uint8Array): Uint8Array {
  validateLedgerKey(key);
  const type = u32(key, 0);
  if (type !== LEDGER_ENTRY_TYPE.CONTRACT_DATA && type !== LEDGER_ENTRY_TYPE.CONTRACT_CODE) {
    throw new LedgerKeyError(LedgerKeyErrorCode.NOT_SOROBAN_KEY, `type ${type} has no TTL entry`, {
      offset: 0,
      field: 'LedgerKey.type',
    });
  }
  const out = new Uint8Array(36);
  out[3] = LEDGER_ENTRY_TYPE.TTL;
  const digest = createHash('sha256').update(key).digest();
  assert(digest.length === 32, 'SHA-256 digest is 32 bytes');
  out.set(digest, 4);
  return out;
}
