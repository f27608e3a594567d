// LedgerEntryChanges as the generator writes them (STATE, UPDATED, CREATED, REMOVED of accounts, trust lines, Soroban
// entries and their TTLs), and the record of each touched key's fate that becomes the ledger's expected batch.
import { compareLedgerKeys } from '@strata/ledger-key';
import type { LedgerBatch } from '../change-fold.js';
import { XDR } from '../lcm-writer.js';
import { type SorobanEntry, TRUSTLINE_LIMIT, type TrustlineState, trustlineKey } from './ledger-state.js';
import { ACCOUNT_ENTRY_LAYOUT, type AccountState } from './universe.js';
import { setI64, setU32, type XdrWriter } from './xdr-writer.js';

/** Counts the changes of one LedgerEntryChanges array and patches its length prefix at the end. */
export class ChangeList {
  private countOffset = 0;
  count = 0;
  constructor(readonly w: XdrWriter) {}
  open(): void {
    this.countOffset = this.w.length;
    this.count = 0;
    this.w.u32(0);
  }
  close(): void {
    this.w.patchU32(this.countOffset, this.count);
  }
}

/**
 * Tracks each touched key's fate inside one ledger from the generator's own knowledge of what exists (independent
 * of the change types written), to record the expected batch.
 */
export class NetEffect {
  private readonly fates = new Map<string, { key: Uint8Array; existed: boolean; current: Uint8Array | null }>();
  touch(key: Uint8Array, existedBefore: boolean, after: Uint8Array | null): void {
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    const fate = this.fates.get(id);
    if (fate === undefined) this.fates.set(id, { key, existed: existedBefore, current: after });
    else fate.current = after;
  }
  batch(): LedgerBatch {
    const batch: LedgerBatch = { init: [], live: [], dead: [] };
    const fates = [...this.fates.values()].sort((a, b) => compareLedgerKeys(a.key, b.key));
    for (const fate of fates) {
      if (fate.current !== null) (fate.existed ? batch.live : batch.init).push(fate.current);
      else if (fate.existed) batch.dead.push(fate.key);
    }
    return batch;
  }
}

/**
 * Writes entry changes into a ChangeList's writer, moving the generator's state with them, and tells `net` (when the
 * ledger is recorded) each key's fate. The writers are spelled out per entry kind rather than taking closures that
 * write the entry: they run for most operations, and a closure per change was an allocation and a megamorphic call.
 */
export class EntryChangeWriter {
  /** The fates of the current ledger's keys; null when the ledger is not recorded. Set per ledger by the generator. */
  net: NetEffect | null = null;

  /** STATE then UPDATED of an account whose balance, sequence or sub-entry count moves (no closures: hot path). */
  updateAccount(
    list: ChangeList,
    account: AccountState,
    ledger: number,
    balanceDelta: number,
    seqDelta: number,
    subEntryDelta: number,
  ): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeAccountEntry(w, account);
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    account.balance += balanceDelta;
    account.seqLo += seqDelta;
    account.numSubEntries += subEntryDelta;
    account.lastModified = ledger;
    writeAccountEntry(w, account);
    list.count += 2;
    this.net?.touch(account.key, true, w.slice(start, w.length).slice());
  }

  updateTrustline(list: ChangeList, line: TrustlineState, ledger: number, balanceDelta: number): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeTrustlineEntry(w, line);
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    line.balance += balanceDelta;
    line.lastModified = ledger;
    writeTrustlineEntry(w, line);
    list.count += 2;
    this.net?.touch(trustlineKey(line), true, w.slice(start, w.length).slice());
  }

  /**
   * STATE of a Soroban entry as it is, the first half of an update whose new body is written over the old one (see
   * FragmentBuilder.allowanceBody): the caller moves the entry, then calls sorobanEntryUpdated.
   */
  sorobanEntryState(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeSorobanEntry(w, entry);
    list.count++;
  }

  /** UPDATED of a Soroban entry after its body and lastModified moved (the second half, after sorobanEntryState). */
  sorobanEntryUpdated(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    writeSorobanEntry(w, entry);
    list.count++;
    this.net?.touch(entry.key, true, w.slice(start, w.length).slice());
  }

  /** STATE then UPDATED of a Soroban entry's TTL, extended to `liveUntil`. */
  extendTtl(list: ChangeList, entry: SorobanEntry, ledger: number, liveUntil: number): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeTtlEntry(w, entry);
    entry.liveUntil = liveUntil;
    entry.ttlLastModified = ledger;
    w.u32(XDR.CHANGE_UPDATED);
    const start = w.length;
    writeTtlEntry(w, entry);
    list.count += 2;
    this.net?.touch(entry.ttlKey, true, w.slice(start, w.length).slice());
  }

  /** CREATED of an account (its entry as it is now). */
  createdAccount(list: ChangeList, account: AccountState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    const start = w.length;
    writeAccountEntry(w, account);
    list.count++;
    this.net?.touch(account.key, false, w.slice(start, w.length).slice());
  }

  createdTrustline(list: ChangeList, line: TrustlineState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    const start = w.length;
    writeTrustlineEntry(w, line);
    list.count++;
    this.net?.touch(trustlineKey(line), false, w.slice(start, w.length).slice());
  }

  /** STATE, then REMOVED with the LedgerKey TRUSTLINE { accountID, asset } (an ALPHANUM4 TrustLineAsset is the Asset). */
  removedTrustline(list: ChangeList, line: TrustlineState): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeTrustlineEntry(w, line);
    w.u32(XDR.CHANGE_REMOVED);
    w.u32(1); // TRUSTLINE
    w.raw(line.account.accountId);
    w.raw(line.contract.asset);
    list.count += 2;
    this.net?.touch(trustlineKey(line), true, null);
  }

  /** CREATED of a Soroban entry, then of its TTL entry (they are always created together). */
  createdSorobanEntry(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_CREATED);
    let start = w.length;
    writeSorobanEntry(w, entry);
    this.net?.touch(entry.key, false, w.slice(start, w.length).slice());
    w.u32(XDR.CHANGE_CREATED);
    start = w.length;
    writeTtlEntry(w, entry);
    this.net?.touch(entry.ttlKey, false, w.slice(start, w.length).slice());
    list.count += 2;
  }

  /** STATE and REMOVED of a Soroban entry, then of its TTL entry. */
  removedSorobanEntry(list: ChangeList, entry: SorobanEntry): void {
    const w = list.w;
    w.u32(XDR.CHANGE_STATE);
    writeSorobanEntry(w, entry);
    w.u32(XDR.CHANGE_REMOVED);
    w.raw(entry.key);
    this.net?.touch(entry.key, true, null);
    w.u32(XDR.CHANGE_STATE);
    writeTtlEntry(w, entry);
    w.u32(XDR.CHANGE_REMOVED);
    w.raw(entry.ttlKey);
    this.net?.touch(entry.ttlKey, true, null);
    list.count += 4;
  }

  /** An eviction (LedgerCloseMetaV2.evictedKeys): the entry and its TTL become dead in this ledger's batch. */
  evicted(entry: SorobanEntry): void {
    this.net?.touch(entry.key, true, null);
    this.net?.touch(entry.ttlKey, true, null);
  }
}

/** LedgerEntry ACCOUNT with no signers, home domain or extensions: the account's entry with its moving fields. */
function writeAccountEntry(w: XdrWriter, account: AccountState): void {
  const entry = account.entry;
  setU32(entry, ACCOUNT_ENTRY_LAYOUT.lastModified, account.lastModified);
  setI64(entry, ACCOUNT_ENTRY_LAYOUT.balance, account.balance);
  setU32(entry, ACCOUNT_ENTRY_LAYOUT.seqHi, account.seqHi);
  setU32(entry, ACCOUNT_ENTRY_LAYOUT.seqLo, account.seqLo);
  setU32(entry, ACCOUNT_ENTRY_LAYOUT.numSubEntries, account.numSubEntries);
  w.raw(entry);
}

/** LedgerEntry TRUSTLINE, authorized, ext v0. */
function writeTrustlineEntry(w: XdrWriter, line: TrustlineState): void {
  w.u32(line.lastModified);
  w.u32(1);
  w.raw(line.account.accountId);
  w.raw(line.contract.asset);
  w.i64(line.balance);
  w.i64(TRUSTLINE_LIMIT);
  w.u32(1); // AUTHORIZED_FLAG
  w.u32(0);
  w.u32(0);
}

function writeSorobanEntry(w: XdrWriter, entry: SorobanEntry): void {
  w.u32(entry.lastModified);
  w.raw(entry.body);
}

/** LedgerEntry TTL { keyHash, liveUntilLedgerSeq }: the TTL key's bytes after its type are the key hash. */
function writeTtlEntry(w: XdrWriter, entry: SorobanEntry): void {
  w.u32(entry.ttlLastModified);
  w.raw(entry.ttlKey);
  w.u32(entry.liveUntil);
  w.u32(0);
}
