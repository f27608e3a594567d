// Small operations on a ledger's batch lists, which are sorted in stellar-core key order (compareLedgerKeys).
import { compareLedgerKeys, ledgerKeyOfEntry } from '@strata/ledger-key';

/**
 * `entries` (sorted LedgerEntry XDR) with `additions` put in their place; an addition replaces an entry of the same
 * key. Additions are few (the entries stellar-core writes itself), so each is placed by binary search.
 */
export function withEntries(entries: readonly Uint8Array[], additions: readonly Uint8Array[]): Uint8Array[] {
  const out = entries.slice();
  for (const addition of additions) {
    const key = ledgerKeyOfEntry(addition);
    // Keys are derived only for the ~log2(n) entries the search probes, not for the whole list.
    let low = 0;
    let high = out.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      // `!`: mid < out.length
      if (compareLedgerKeys(ledgerKeyOfEntry(out[mid]!), key) < 0) low = mid + 1;
      else high = mid;
    }
    if (low < out.length && compareLedgerKeys(ledgerKeyOfEntry(out[low]!), key) === 0) out[low] = addition;
    else out.splice(low, 0, addition);
  }
  return out;
}

/** Whether the sorted key lists `a` and `b` hold the same keys (as sets). */
export function sameKeySet(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  const sort = (keys: readonly Uint8Array[]) => keys.slice().sort(compareLedgerKeys);
  const x = sort(a);
  const y = sort(b);
  return x.every((key, i) => compareLedgerKeys(key, y[i]!) === 0);
}
