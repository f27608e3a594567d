// SCAddress writer (all five arms) and encodeScAddress.
import { invalidArgument } from '../errors.js';
import type { ScAddress } from '../model.js';
import { writeAccountId } from './asset.js';
import { bigOf, bytesOf, tagOf } from './input-checks.js';
import { encodeWith, type XdrWriter } from './xdr-writer.js';

/** SCAddress: the arm's fields in XDR declaration order (MUXED_ACCOUNT writes its id before the key). */
export function writeScAddress(w: XdrWriter, address: ScAddress, field: string): void {
  switch (address?.type) {
    case 'account':
      w.u32(0);
      writeAccountId(w, address.accountId, `${field}.accountId`);
      return;
    case 'contract':
      w.u32(1);
      w.fixed(bytesOf(address.contractId, 32, `${field}.contractId`));
      return;
    case 'muxedAccount':
      w.u32(2);
      w.u64(bigOf(address.id, 64, false, `${field}.id`)); // id first, as in MuxedEd25519Account
      w.fixed(bytesOf(address.ed25519, 32, `${field}.ed25519`));
      return;
    case 'claimableBalance':
      w.u32(3);
      w.u32(0); // CLAIMABLE_BALANCE_ID_TYPE_V0
      w.fixed(bytesOf(address.balanceId, 32, `${field}.balanceId`));
      return;
    case 'liquidityPool':
      w.u32(4);
      w.fixed(bytesOf(address.liquidityPoolId, 32, `${field}.liquidityPoolId`));
      return;
    default:
      invalidArgument(field, `unknown SCAddress type ${tagOf(address)}`);
  }
}

/** Canonical XDR of an SCAddress. */
export function encodeScAddress(address: ScAddress): Uint8Array {
  return encodeWith(address, writeScAddress, 'ScAddress');
}
