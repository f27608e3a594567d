// SCAddress, the `contract` of a CONTRACT_DATA key and the payload of SCV_ADDRESS: validation and the zero-copy
// ScAddressView. All five protocol-23 arms are fixed-size, so an address never needs a length scan.
import { ACCOUNT_ID_SIZE } from './asset.js';
import { invalidArgument } from './errors.js';
import {
  encodeAccountStrkey,
  encodeClaimableBalanceStrkey,
  encodeContractStrkey,
  encodeLiquidityPoolStrkey,
  encodeMuxedStrkey,
} from './strkey.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { MAX_SC_ADDRESS_TYPE, SC_ADDRESS_TYPE, SC_ADDRESS_TYPE_NAMES } = xdrConstants;
const { badDiscriminant, expectEnd, need, startOffset, u32, u64Big } = xdrCursor;

/** Payload size of each SCAddress arm, indexed by SCAddressType; every arm is fixed-size. */
const SC_ADDRESS_PAYLOAD = Uint8Array.of(
  ACCOUNT_ID_SIZE, // ACCOUNT: PublicKey (type 0 + 32 bytes)
  32, // CONTRACT: ContractID
  40, // MUXED_ACCOUNT: uint64 id + uint256 ed25519
  36, // CLAIMABLE_BALANCE: ClaimableBalanceID (type 0 + Hash)
  32, // LIQUIDITY_POOL: PoolID
);

/** Validates an SCAddress at `p` and returns the offset after it (one bounds check; hot in the comparator). */
export function skipScAddress(b: Uint8Array, p: number, field: string): number {
  need(b, p, 4, field, '.type');
  const type = u32(b, p);
  if (type > MAX_SC_ADDRESS_TYPE) badDiscriminant(b, p, field, '.type');
  const size = SC_ADDRESS_PAYLOAD[type]!;
  need(b, p + 4, size, field);
  // ACCOUNT's PublicKeyType and CLAIMABLE_BALANCE's ClaimableBalanceIDType have a single value, 0.
  if ((type === SC_ADDRESS_TYPE.ACCOUNT || type === SC_ADDRESS_TYPE.CLAIMABLE_BALANCE) && u32(b, p + 4) !== 0) {
    badDiscriminant(b, p + 4, field);
  }
  return p + 4 + size;
}

/** Encoded size of a validated SCAddress of `type` (every arm is fixed-size). */
export function scAddressSize(type: number): number {
  switch (type) {
    case SC_ADDRESS_TYPE.ACCOUNT:
      return 4 + ACCOUNT_ID_SIZE;
    case SC_ADDRESS_TYPE.MUXED_ACCOUNT:
      return 44;
    case SC_ADDRESS_TYPE.CLAIMABLE_BALANCE:
      return 40;
    default:
      return 36;
  }
}

/** Zero-copy reader over one validated SCAddress. */
export class ScAddressView {
  /** The exact XDR bytes of this address (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** SCAddressType number (SC_ADDRESS_TYPE). */
  readonly type: number;

  /** Internal: `xdr` must hold exactly one validated SCAddress. Use readScAddress. */
  constructor(xdr: Uint8Array) {
    this.xdr = xdr;
    this.type = u32(xdr, 0);
  }

  /** XDR enum name, e.g. `SC_ADDRESS_TYPE_CONTRACT`. */
  get typeName(): string {
    return SC_ADDRESS_TYPE_NAMES[this.type]!;
  }

  /** The 32-byte ed25519 key of an ACCOUNT address. */
  accountId(): Uint8Array {
    this.expect(SC_ADDRESS_TYPE.ACCOUNT, 'accountId');
    return this.xdr.subarray(8, 40);
  }

  /** The 32-byte contract id of a CONTRACT address. */
  contractId(): Uint8Array {
    this.expect(SC_ADDRESS_TYPE.CONTRACT, 'contractId');
    return this.xdr.subarray(4, 36);
  }

  /** A MUXED_ACCOUNT address: the uint64 id (first on the wire) and the 32-byte ed25519 key. */
  muxedAccount(): { id: bigint; ed25519: Uint8Array } {
    this.expect(SC_ADDRESS_TYPE.MUXED_ACCOUNT, 'muxedAccount');
    return { id: u64Big(this.xdr, 4), ed25519: this.xdr.subarray(12, 44) };
  }

  /** The 32-byte V0 hash of a CLAIMABLE_BALANCE address. */
  claimableBalanceId(): Uint8Array {
    this.expect(SC_ADDRESS_TYPE.CLAIMABLE_BALANCE, 'claimableBalanceId');
    return this.xdr.subarray(8, 40);
  }

  /** The 32-byte pool id of a LIQUIDITY_POOL address. */
  liquidityPoolId(): Uint8Array {
    this.expect(SC_ADDRESS_TYPE.LIQUIDITY_POOL, 'liquidityPoolId');
    return this.xdr.subarray(4, 36);
  }

  /** The address as a strkey: G..., C..., M..., B... or L.... */
  toStrkey(): string {
    switch (this.type) {
      case SC_ADDRESS_TYPE.ACCOUNT:
        return encodeAccountStrkey(this.accountId());
      case SC_ADDRESS_TYPE.CONTRACT:
        return encodeContractStrkey(this.contractId());
      case SC_ADDRESS_TYPE.MUXED_ACCOUNT: {
        const { id, ed25519 } = this.muxedAccount();
        return encodeMuxedStrkey(ed25519, id);
      }
      case SC_ADDRESS_TYPE.CLAIMABLE_BALANCE:
        return encodeClaimableBalanceStrkey(this.claimableBalanceId());
      default:
        return encodeLiquidityPoolStrkey(this.liquidityPoolId());
    }
  }

  private expect(type: number, accessor: string): void {
    if (this.type !== type) invalidArgument(`ScAddress.${accessor}`, `not available on ${this.typeName}`);
  }
}

/**
 * Reads and validates an SCAddress. Without `offset` the address must fill `bytes` (else TRAILING_BYTES); with
 * `offset` it is read from inside a larger buffer and `view.xdr.length` says how many bytes it took.
 */
export function readScAddress(bytes: Uint8Array, offset?: number): ScAddressView {
  const start = startOffset(bytes, offset);
  const end = skipScAddress(bytes, start, 'SCAddress');
  if (offset === undefined) expectEnd(bytes, end, 'SCAddress');
  return new ScAddressView(bytes.subarray(start, end));
}

/** Validates that `bytes` hold exactly one SCAddress. */
export function validateScAddress(bytes: Uint8Array): void {
  readScAddress(bytes);
}
