// The fixed cast of a synthetic network: accounts and Stellar Asset Contracts, with the XDR fragments of each
// (keys, SCVal addresses, asset strings) encoded once so the per-event hot path only copies bytes.
import { assert } from '@strata/base';
import { encodeAccountStrkey } from '@strata/ledger-key';
import { concatBytes, scvAccountAddress, scvString, sha256, u32Bytes, XDR } from '../lcm-writer.js';
import type { Prng } from './prng.js';

/** An account and its mutable ledger state. `created` flips once; the numbers move with every change. */
export interface AccountState {
  index: number;
  ed25519: Uint8Array;
  /** PublicKey / AccountID XDR (PUBLIC_KEY_TYPE_ED25519 + key); also the MuxedAccount KEY_TYPE_ED25519 bytes. */
  accountId: Uint8Array;
  /** LedgerKey ACCOUNT XDR. */
  key: Uint8Array;
  /** SCVal SCV_ADDRESS of the account (event topics). */
  address: Uint8Array;
  /**
   * The account's LedgerEntry (ACCOUNT_ENTRY_LAYOUT) with its fixed fields encoded once: the generator fills in the
   * moving ones before each copy out, one copy of 92 bytes instead of a dozen small writes per entry (it writes
   * about eight account entries per transaction).
   */
  entry: Uint8Array;
  created: boolean;
  balance: number;
  /** SequenceNumber as two words: the ledger the account was created in (hi) and a counter (lo). */
  seqHi: number;
  seqLo: number;
  /** The sequence the next planned transaction uses; runs ahead of seqLo while a ledger is planned. */
  plannedSeqLo: number;
  numSubEntries: number;
  lastModified: number;
}

/** A Stellar Asset Contract: XLM (index 0) or a credit asset issued by an account. */
export interface ContractInfo {
  index: number;
  contractId: Uint8Array;
  /** SCAddress XDR of the contract (SC_ADDRESS_TYPE_CONTRACT + id). */
  scAddress: Uint8Array;
  /** SCVal string of the SEP-11 asset name: "native" or "CODE:GISSUER...". */
  assetName: Uint8Array;
  /** Asset XDR (also the TrustLineAsset / ChangeTrustAsset bytes for ALPHANUM4). */
  asset: Uint8Array;
  /** Index of the issuing account, -1 for XLM. */
  issuer: number;
}

/** Well-known pubnet asset codes first, so small networks look familiar; then synthetic ones. */
const ASSET_CODES = ['USDC', 'AQUA', 'EURC', 'yXLM', 'BTC', 'ETH', 'SHX', 'VELO', 'MOBI', 'XRP', 'BRL', 'ARST'];

/**
 * Byte offsets in an account's LedgerEntry as the generator writes it: ACCOUNT with no signers, inflation
 * destination, flags, home domain or extensions. Only the fields named here move; the rest are fixed.
 */
export const ACCOUNT_ENTRY_LAYOUT = {
  lastModified: 0,
  /** LedgerEntryType ACCOUNT (0), then the AccountID. */
  accountId: 8,
  balance: 44,
  /** SequenceNumber as two words, hi then lo. */
  seqHi: 52,
  seqLo: 56,
  numSubEntries: 60,
  /** [master weight 1, low 0, medium 0, high 0]. */
  thresholds: 76,
  bytes: 92,
} as const;

export function makeAccounts(prng: Prng, count: number): AccountState[] {
  const accounts: AccountState[] = [];
  // Every account's entry in one array: one allocation instead of one per account (past 64 bytes, V8 gives each typed
  // array a backing store of its own, about ten times the cost of a small one).
  const entries = new Uint8Array(count * ACCOUNT_ENTRY_LAYOUT.bytes);
  for (let index = 0; index < count; index++) {
    const ed25519 = prng.bytes(32);
    // LedgerKey ACCOUNT (type 0, then the AccountID); the AccountID (PublicKey ed25519: type 0, then the key) is its
    // tail, shared rather than copied.
    const key = new Uint8Array(40);
    key.set(ed25519, 8);
    const accountId = key.subarray(4);
    const entryStart = index * ACCOUNT_ENTRY_LAYOUT.bytes;
    const entry = entries.subarray(entryStart, entryStart + ACCOUNT_ENTRY_LAYOUT.bytes);
    entry.set(accountId, ACCOUNT_ENTRY_LAYOUT.accountId);
    entry[ACCOUNT_ENTRY_LAYOUT.thresholds] = 1;
    accounts.push({
      index,
      ed25519,
      accountId,
      key,
      address: scvAccountAddress(ed25519),
      entry,
      created: false,
      balance: 0,
      seqHi: 0,
      seqLo: 0,
      plannedSeqLo: 0,
      numSubEntries: 0,
      lastModified: 0,
    });
  }
  return accounts;
}

/**
 * Contract 0 is the XLM SAC; contract k > 0 is the SAC of an ALPHANUM4 asset issued by account k. Contract ids are
 * the real SAC derivation, SHA-256(HashIDPreimage ENVELOPE_TYPE_CONTRACT_ID { networkID, FROM_ASSET(asset) }), so
 * an id seen in the output is the id stellar-core would give that asset on this network.
 */
export function makeContracts(count: number, accounts: readonly AccountState[], networkId: Uint8Array): ContractInfo[] {
  const contracts: ContractInfo[] = [];
  for (let index = 0; index < count; index++) {
    let asset: Uint8Array;
    let assetName: string;
    let issuer = -1;
    if (index === 0) {
      asset = u32Bytes(XDR.ASSET_NATIVE);
      assetName = 'native';
    } else {
      issuer = index;
      const issuerAccount = accounts[issuer];
      // resolveGeneratorOptions raises accounts to contracts + 1, so every credit asset has its issuer.
      assert(issuerAccount !== undefined, () => `contract ${index} needs issuer account ${issuer}`);
      const code = ASSET_CODES[index - 1] ?? `A${(index - 1 - ASSET_CODES.length).toString(36).toUpperCase()}`;
      const codeBytes = new Uint8Array(4);
      codeBytes.set(new TextEncoder().encode(code).subarray(0, 4));
      asset = concatBytes([u32Bytes(XDR.ASSET_ALPHANUM4), codeBytes, issuerAccount.accountId]);
      assetName = `${code}:${encodeAccountStrkey(issuerAccount.ed25519)}`;
    }
    const contractId = sha256(
      u32Bytes(XDR.ENVELOPE_TYPE_CONTRACT_ID),
      networkId,
      u32Bytes(XDR.CONTRACT_ID_PREIMAGE_FROM_ASSET),
      asset,
    );
    contracts.push({
      index,
      contractId,
      scAddress: concatBytes([u32Bytes(XDR.SC_ADDRESS_CONTRACT), contractId]),
      assetName: scvString(assetName),
      asset,
      issuer,
    });
  }
  return contracts;
}
