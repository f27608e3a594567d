// The XDR fragments the generator keeps per Soroban entry (allowance and nonce keys and bodies) or emits (approve
// data), built through one shared scratch writer and copied out.
import { scvSymbol, u32Bytes, XDR } from '../lcm-writer.js';
import type { AccountState, ContractInfo } from './universe.js';
import { ByteSlab, XdrWriter } from './xdr-writer.js';

// The fragments used on the hot path (event topics, function names) are constants of the modules that write them:
// under tsx an imported binding is a getter call per use.
const SYM_ALLOWANCE = scvSymbol('Allowance');
const SYM_AMOUNT = scvSymbol('amount');
const SYM_LIVE_UNTIL = scvSymbol('live_until_ledger');
const SCV_VOID = u32Bytes(XDR.SCV_VOID);

/** Where an allowance key's vec puts its [sym "Allowance", from, spender] after the type and the contract address. */
const ALLOWANCE_VEC_AT = 4 + 36;
/** SCV_VEC, the optional's flag and the count come before the vec's first element. */
const ALLOWANCE_FROM_AT = ALLOWANCE_VEC_AT + 12 + SYM_ALLOWANCE.length;
/** An SCV_ADDRESS of an account is 44 bytes. */
const ADDRESS_BYTES = 44;

/** Builds the fragments of Soroban entries and events. Not safe for concurrent use (one scratch writer). */
export class FragmentBuilder {
  private readonly scratch = new XdrWriter(1024);
  /**
   * Where the fragments of Soroban entries are kept (see ByteSlab), one slab per lifetime so that short-lived copies
   * do not hold blocks of long-lived ones: allowances (keys and bodies, updated in place) live until removed, which
   * is rare; nonces are TEMPORARY and evicted within TEMPORARY_TTL_MAX ledgers.
   */
  private readonly stateSlab = new ByteSlab();
  private readonly temporarySlab = new ByteSlab();

  /** The shared scratch writer for small fragments, emptied; callers copy() what they keep. */
  private fragment(): XdrWriter {
    this.scratch.reset();
    return this.scratch;
  }

  /**
   * The LedgerKey CONTRACT_DATA of a SAC allowance, PERSISTENT: vec[sym "Allowance", map{from, spender}] is the real
   * layout; a flat vec[sym, from, spender] keeps it short. Kept in the allowance slab.
   */
  allowanceKey(contract: ContractInfo, from: AccountState, spender: AccountState): Uint8Array {
    const f = this.fragment();
    f.u32(6); // CONTRACT_DATA
    f.raw(contract.scAddress);
    f.u32(XDR.SCV_VEC);
    f.u32(1);
    f.u32(3);
    f.raw(SYM_ALLOWANCE);
    f.raw(from.address);
    f.raw(spender.address);
    f.u32(1); // PERSISTENT
    return f.copy(this.stateSlab);
  }

  /** The `from` and `spender` SCV_ADDRESS fragments inside an allowanceKey (views into it, for event topics). */
  allowanceParties(key: Uint8Array): { from: Uint8Array; spender: Uint8Array } {
    return {
      from: key.subarray(ALLOWANCE_FROM_AT, ALLOWANCE_FROM_AT + ADDRESS_BYTES),
      spender: key.subarray(ALLOWANCE_FROM_AT + ADDRESS_BYTES, ALLOWANCE_FROM_AT + 2 * ADDRESS_BYTES),
    };
  }

  /** The LedgerKey CONTRACT_DATA of nonce `nonce` of `owner`, TEMPORARY (SCV_LEDGER_KEY_NONCE under the account). */
  nonceKey(owner: AccountState, nonce: number): Uint8Array {
    const f = this.fragment();
    f.u32(6); // CONTRACT_DATA
    f.u32(XDR.SC_ADDRESS_ACCOUNT);
    f.raw(owner.accountId);
    f.u32(XDR.SCV_LEDGER_KEY_NONCE);
    f.i64(nonce);
    f.u32(0); // TEMPORARY
    return f.copy();
  }

  /** A nonce entry's body (contractDataBody with a void value), kept in the temporary slab. */
  nonceBody(key: Uint8Array): Uint8Array {
    return this.contractDataBody(key, SCV_VOID, this.temporarySlab);
  }

  /**
   * LedgerEntry bytes after lastModifiedLedgerSeq for contract data: type, ext, the key's fields, value, ext; copied
   * into `slab`, which must be the one for the entry's lifetime.
   */
  private contractDataBody(key: Uint8Array, val: Uint8Array, slab: ByteSlab): Uint8Array {
    const f = this.fragment();
    f.u32(6);
    f.u32(0);
    f.raw(key.subarray(4));
    f.raw(val);
    f.u32(0);
    return f.copy(slab);
  }

  /**
   * The LedgerEntry bytes after lastModifiedLedgerSeq of an allowance: contractDataBody with the value
   * map{amount: i128, live_until_ledger: u32}. Its length depends only on the key, so an update writes it over `into`,
   * the entry's current body (already written out as the STATE before it), instead of allocating: bodies are over
   * the 64 bytes up to which V8 allocates a typed array inline, and a larger one costs about ten times more.
   */
  allowanceBody(key: Uint8Array, amount: number, liveUntil: number, into: Uint8Array | null): Uint8Array {
    const f = this.fragment();
    f.u32(6); // CONTRACT_DATA
    f.u32(0); // ContractDataEntry.ext
    f.raw(key.subarray(4));
    f.u32(XDR.SCV_MAP);
    f.u32(1);
    f.u32(2);
    f.raw(SYM_AMOUNT);
    f.u32(XDR.SCV_I128);
    f.i128(amount);
    f.raw(SYM_LIVE_UNTIL);
    f.u32(XDR.SCV_U32);
    f.u32(liveUntil);
    f.u32(0); // LedgerEntry.ext
    if (into === null || into.length !== f.length) return f.copy(this.stateSlab);
    into.set(f.bytes());
    return into;
  }

  /** The SAC approve event's data: vec[i128 amount, u32 live_until_ledger]. */
  approvalValue(amount: number, liveUntil: number): Uint8Array {
    const f = this.fragment();
    f.u32(XDR.SCV_VEC);
    f.u32(1);
    f.u32(2);
    f.u32(XDR.SCV_I128);
    f.i128(amount);
    f.u32(XDR.SCV_U32);
    f.u32(liveUntil);
    return f.copy();
  }
}
