// The mutable state of a synthetic network beyond its fixed cast (universe.ts): trust lines, Soroban entries with
// their TTLs (allowances, nonces, uploaded code), the temporary entries due for eviction, and the ledger-wide totals
// the header and the meta report. One instance per generator; not safe for concurrent use.
import { sha256Into } from '../lcm-writer.js';
import type { AccountState, ContractInfo } from './universe.js';

/** ChangeTrust limit and TrustLineEntry.limit of every trust line. */
export const TRUSTLINE_LIMIT = 1_000_000_000_000_000;

/** A Soroban entry (contract data or code) with its TTL. */
export interface SorobanEntry {
  /** LedgerKey XDR of the entry. */
  key: Uint8Array;
  /** LedgerKey XDR of its TTL entry. */
  ttlKey: Uint8Array;
  /** LedgerEntry XDR after lastModifiedLedgerSeq (type, body, ext): the entry is lastModified ++ body. */
  body: Uint8Array;
  lastModified: number;
  ttlLastModified: number;
  liveUntil: number;
  /** Position in `persistentEntries` (swap-remove), -1 for temporary entries. */
  slot: number;
  /** Allowance amount for allowance entries. */
  amount: number;
  durability: 'temporary' | 'persistent';
  /** Key of an allowance entry in `allowances`, -1 for other entries. */
  allowanceId: number;
  /** The SAC an allowance belongs to. */
  contract: ContractInfo | null;
}

/** A trust line. Its LedgerKey is built only when written out whole (removal) or recorded: see trustlineKey. */
export interface TrustlineState {
  account: AccountState;
  contract: ContractInfo;
  balance: number;
  lastModified: number;
}

export class LedgerState {
  /**
   * Trust lines by account index, then by contract index (null: none): two array loads per look-up, where a Map keyed
   * by account × contract (up to hundreds of thousands of lines) spent ~2 % of generation in its probes.
   */
  private readonly trustlines: Array<Array<TrustlineState | null> | null>;
  /** Allowance entries by (contract, from, spender) index. */
  readonly allowances = new Map<number, SorobanEntry>();
  /** Persistent entries (allowances, code), for picking one to extend or remove. */
  readonly persistentEntries: SorobanEntry[] = [];
  /** Temporary entries by liveUntil: evicted once liveUntil < the current ledger. */
  private readonly temporaryByExpiry = new Map<number, SorobanEntry[]>();
  /** The next liveUntil whose temporary entries may still be waiting for eviction (0 before the first ledger). */
  private evictionCursor = 0;
  /** Accounts created so far: accounts[0, createdAccounts) exist. */
  createdAccounts = 0;
  /** The last nonce handed out (each authorization consumes one). */
  nonceCounter = 0;
  /** Total size of the live Soroban entries, as LedgerCloseMetaV2.totalByteSizeOfLiveSorobanState reports it. */
  sorobanStateBytes = 0;
  /** LedgerHeader.feePool: fees charged minus fees refunded. */
  feePool = 0;
  /** LedgerHeader.idPool (no offers or claimable balances are created, so it stays 0). */
  readonly idPool = 0;

  constructor(
    readonly accounts: readonly AccountState[],
    readonly contracts: readonly ContractInfo[],
  ) {
    this.trustlines = new Array<Array<TrustlineState | null> | null>(accounts.length).fill(null);
  }

  trustline(account: AccountState, contract: ContractInfo): TrustlineState | null {
    return this.trustlines[account.index]?.[contract.index] ?? null;
  }

  newTrustline(account: AccountState, contract: ContractInfo): TrustlineState {
    const line: TrustlineState = { account, contract, balance: 0, lastModified: 0 };
    this.setTrustline(account, contract, line);
    return line;
  }

  setTrustline(account: AccountState, contract: ContractInfo, line: TrustlineState | null): void {
    let lines = this.trustlines[account.index];
    if (lines === null || lines === undefined) {
      lines = new Array<TrustlineState | null>(this.contracts.length).fill(null);
      this.trustlines[account.index] = lines;
    }
    lines[contract.index] = line;
  }

  /** A new Soroban entry, kept with the persistent ones or filed under its expiry (temporary). */
  newSorobanEntry(
    key: Uint8Array,
    body: Uint8Array,
    liveUntil: number,
    durability: 'temporary' | 'persistent',
  ): SorobanEntry {
    const entry: SorobanEntry = {
      key,
      ttlKey: ttlKeyOf(key),
      body,
      lastModified: 0,
      ttlLastModified: 0,
      liveUntil,
      slot: -1,
      amount: -1,
      durability,
      allowanceId: -1,
      contract: null,
    };
    if (durability === 'persistent') {
      entry.slot = this.persistentEntries.length;
      this.persistentEntries.push(entry);
    } else {
      const bucket = this.temporaryByExpiry.get(liveUntil);
      if (bucket === undefined) this.temporaryByExpiry.set(liveUntil, [entry]);
      else bucket.push(entry);
    }
    return entry;
  }

  /** Forgets a persistent entry (swap-remove from persistentEntries). */
  dropPersistent(entry: SorobanEntry): void {
    const last = this.persistentEntries.pop() as SorobanEntry;
    if (last !== entry) {
      this.persistentEntries[entry.slot] = last;
      last.slot = entry.slot;
    }
    entry.slot = -1;
  }

  /**
   * The next temporary entry whose TTL lapsed before `ledger` (liveUntil < ledger), removed from the state, or null
   * when none is left: expiries are visited in order, and an entry's bucket is emptied from its end.
   */
  popExpired(ledger: number): SorobanEntry | null {
    if (this.evictionCursor === 0) this.evictionCursor = ledger;
    while (this.evictionCursor < ledger) {
      const bucket = this.temporaryByExpiry.get(this.evictionCursor);
      if (bucket !== undefined && bucket.length > 0) return bucket.pop() as SorobanEntry;
      this.temporaryByExpiry.delete(this.evictionCursor);
      this.evictionCursor++;
    }
    return null;
  }
}

/**
 * LedgerKey TRUSTLINE { accountID, TrustLineAsset } of a line (an ALPHANUM4 TrustLineAsset has the Asset layout),
 * built when asked for rather than kept per line: at 80 bytes it is over the 64 up to which V8 allocates a typed array
 * inline, and a larger one costs about ten times more, which made building it per created line ~4 % of generation.
 */
export function trustlineKey(line: TrustlineState): Uint8Array {
  const accountId = line.account.accountId;
  const asset = line.contract.asset;
  const key = new Uint8Array(4 + accountId.length + asset.length);
  key[3] = 1; // TRUSTLINE
  key.set(accountId, 4);
  key.set(asset, 4 + accountId.length);
  return key;
}

/**
 * The TTL LedgerKey of a CONTRACT_DATA / CONTRACT_CODE key the generator built: `{TTL, SHA-256(key)}`, the bytes
 * @strata/ledger-key's ttlKeyOf gives, with one one-shot hash instead of a validation pass and a Hash object.
 */
function ttlKeyOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(36);
  out[3] = 9; // TTL
  sha256Into(key, out, 4);
  return out;
}
