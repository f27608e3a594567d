// Folds one ledger's LedgerEntryChanges, in application order, into the ledger's bucket batch by net effect per key:
// what existed when the ledger started and what exists when it ends. This is the batch stellar-core adds to its live
// BucketList for the ledger (spec ledger-keys-and-buckets.md §4.5: init / live / dead, no key twice).
import { compareLedgerKeys } from '@strata/ledger-key';

/** LedgerEntryChangeType values (XDR). */
export const LEDGER_ENTRY_CHANGE = {
  CREATED: 0,
  UPDATED: 1,
  REMOVED: 2,
  STATE: 3,
  /** Protocol 23+: the entry as it is after a restore from the archive. */
  RESTORED: 4,
} as const;
export type LedgerEntryChangeKind = (typeof LEDGER_ENTRY_CHANGE)[keyof typeof LEDGER_ENTRY_CHANGE];

/** A ledger's net entry changes. Each list is sorted in stellar-core key order (compareLedgerKeys). */
export interface LedgerBatch {
  /** XDR LedgerEntry of keys absent when the ledger started and present at its end (newest value). */
  init: Uint8Array[];
  /** XDR LedgerEntry of keys present at both ends (newest value). */
  live: Uint8Array[];
  /** XDR LedgerKey of keys present when the ledger started and absent at its end. */
  dead: Uint8Array[];
}

export interface FoldOptions {
  /**
   * Whether `key` (XDR LedgerKey) was in the live state when the ledger started; asked only for keys whose first
   * change in the ledger is RESTORED (see LedgerChangeFold). Absent: such keys count as still live (the safe choice).
   */
  wasLive?: (key: Uint8Array) => boolean;
}

interface KeyFate {
  key: Uint8Array;
  /** Whether the key was in the live state before the ledger, as told by the first change that mentions it. */
  existedAtStart: boolean;
  /** The newest LedgerEntry, or null while the key is absent. */
  current: Uint8Array | null;
}

/**
 * The fold rules. The first change that mentions a key tells whether it existed when the ledger started:
 *
 * - STATE (the value before a change), UPDATED and REMOVED can only be about an entry that was there: existed.
 * - CREATED is only about an entry that was not there: did not exist.
 * - RESTORED brings an archived entry back. An entry evicted to the hot archive is not in the live state, so it did
 *   not exist at the start: a restore present at the end is `init` (restored then deleted leaves nothing). But
 *   stellar-core also emits RESTORED for a persistent entry that expired and was not yet evicted: that entry IS still
 *   in the live BucketList (the fixture streams show 140 such first observations, checked against each stream's
 *   cumulative state). One ledger's meta cannot tell the two apart, so a caller that knows the live state passes
 *   `wasLive`, consulted only for keys first seen as RESTORED. Without it a restore counts as `live`: that is
 *   always safe for the BucketList (LIVE over an absent key only keeps a tombstone longer), while `init` over a key
 *   an older bucket still holds would let a later DEAD annihilate the INIT in a merge and resurrect the older
 *   value. With `wasLive` the batch is exactly stellar-core's (init for restores from the hot archive).
 *
 * Every later change only moves the newest value: CREATED / UPDATED / RESTORED set it, REMOVED clears it, STATE does
 * not change it (it restates the value before the next change). Evicted keys arrive as REMOVED after everything else.
 *
 * Result per key: absent→present = init (newest entry); present→present = live (newest entry); present→absent = dead
 * (key); absent→absent (created and removed within the ledger) = nothing. A key lands in at most one list, so the
 * batch satisfies stellar-core's "no duplicate keys across init/live/dead" assertion by construction.
 *
 * Not safe for concurrent use; one instance per ledger.
 */
export class LedgerChangeFold {
  private readonly fates = new Map<string, KeyFate>();
  private readonly wasLive: ((key: Uint8Array) => boolean) | undefined;

  /** `wasLive(key)`: whether a key first seen as RESTORED was in the live state at the ledger's start. */
  constructor(options: FoldOptions = {}) {
    this.wasLive = options.wasLive;
  }

  /**
   * Records one change. `key` is the XDR LedgerKey it is about; `entry` the XDR LedgerEntry for CREATED, UPDATED,
   * STATE and RESTORED, null for REMOVED. Arrays are kept, not copied: do not modify them afterwards.
   */
  observe(kind: LedgerEntryChangeKind, key: Uint8Array, entry: Uint8Array | null): void {
    const id = keyId(key);
    const fate = this.fates.get(id);
    if (fate === undefined) {
      const existedAtStart =
        kind === LEDGER_ENTRY_CHANGE.STATE ||
        kind === LEDGER_ENTRY_CHANGE.UPDATED ||
        kind === LEDGER_ENTRY_CHANGE.REMOVED ||
        (kind === LEDGER_ENTRY_CHANGE.RESTORED && (this.wasLive === undefined || this.wasLive(key)));
      this.fates.set(id, { key, existedAtStart, current: kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entry });
      return;
    }
    if (kind === LEDGER_ENTRY_CHANGE.STATE) return;
    fate.current = kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entry;
  }

  /** The batch: every key that changed, by net effect, each list in key order. */
  finish(): LedgerBatch {
    const fates = [...this.fates.values()].sort((a, b) => compareLedgerKeys(a.key, b.key));
    const batch: LedgerBatch = { init: [], live: [], dead: [] };
    for (const fate of fates) {
      if (fate.current !== null) (fate.existedAtStart ? batch.live : batch.init).push(fate.current);
      else if (fate.existedAtStart) batch.dead.push(fate.key);
    }
    return batch;
  }
}

/**
 * Node's native latin1 decoder, called on the Uint8Array directly: one string per key and no Buffer wrapper object
 * (building a Buffer per change was a quarter of extraction time on pubnet-like ledgers).
 */
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }
).latin1Slice;

/** A Map key for XDR key bytes. Valid XDR is canonical (ledger-key rejects other encodings), so bytes = identity. */
function keyId(key: Uint8Array): string {
  return latin1Slice.call(key, 0, key.length);
}
