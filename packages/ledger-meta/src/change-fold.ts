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

/**
 * One key's fate. The key is its type plus the field bytes `src[keyStart, keyEnd)`: either a LedgerKey (fields from
 * offset 4) or the first LedgerEntry that mentioned it. The XDR LedgerKey is built only when needed (sorting the
 * batch, `dead`, `wasLive`), once per key instead of once per change.
 */
interface KeyFate {
  /** The latin1 string of the key field bytes: the fate's Map key. */
  id: string;
  type: number;
  src: Uint8Array;
  keyStart: number;
  keyEnd: number;
  key: Uint8Array | null;
  /** Whether the key was in the live state before the ledger, as told by the first change that mentions it. */
  existedAtStart: boolean;
  /** The newest LedgerEntry, or null while the key is absent. */
  current: Uint8Array | null;
}

/** Map slots: one per LedgerEntryType (0..9), and a last one for keys with an unknown type (whole-key ids). */
const OTHER_TYPES = 10;

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
  /** Per key type, fates by the latin1 string of the key's field bytes (type-specific maps: no type in the id). */
  private readonly fates: (Map<string, KeyFate> | undefined)[] = [];
  private readonly wasLive: ((key: Uint8Array) => boolean) | undefined;
  /** Whether every key came validated (observeFields); keys given to observe() are validated by the sort. */
  private validated = true;

  /** `wasLive(key)`: whether a key first seen as RESTORED was in the live state at the ledger's start. */
  constructor(options: FoldOptions = {}) {
    this.wasLive = options.wasLive;
  }

  /**
   * Records one change. `key` is the XDR LedgerKey it is about; `entry` the XDR LedgerEntry for CREATED, UPDATED,
   * STATE and RESTORED, null for REMOVED. Arrays are kept, not copied: do not modify them afterwards.
   */
  observe(kind: LedgerEntryChangeKind, key: Uint8Array, entry: Uint8Array | null): void {
    this.validated = false;
    const type = key.length >= 4 ? readType(key) : -1;
    if (type >= 0 && type < OTHER_TYPES) this.observeFields(kind, type, key, 4, key.length, key, entry);
    else this.observeFields(kind, OTHER_TYPES, key, 0, key.length, key, entry);
  }

  /**
   * Records one change whose key is LedgerEntryType `type` (0..9) with the key field bytes `src[keyStart, keyEnd)`
   * (validated canonical XDR, as in the LedgerKey after its type). `key`: the XDR LedgerKey if the caller has it, else null (it
   * is built from the fields when needed). Arrays are kept, not copied.
   */
  observeFields(
    kind: LedgerEntryChangeKind,
    type: number,
    src: Uint8Array,
    keyStart: number,
    keyEnd: number,
    key: Uint8Array | null,
    entry: Uint8Array | null,
  ): void {
    let fates = this.fates[type];
    if (fates === undefined) {
      fates = new Map();
      this.fates[type] = fates;
    }
    // Valid XDR is canonical (ledger-key rejects other encodings), so bytes = identity.
    const id = latin1Slice.call(src, keyStart, keyEnd);
    const fate = fates.get(id);
    if (fate === undefined) {
      const fresh: KeyFate = {
        id,
        type,
        src,
        keyStart,
        keyEnd,
        key,
        existedAtStart:
          kind === LEDGER_ENTRY_CHANGE.STATE ||
          kind === LEDGER_ENTRY_CHANGE.UPDATED ||
          kind === LEDGER_ENTRY_CHANGE.REMOVED,
        current: kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entry,
      };
      if (kind === LEDGER_ENTRY_CHANGE.RESTORED) {
        fresh.existedAtStart = this.wasLive === undefined || this.wasLive(keyOf(fresh));
      }
      fates.set(id, fresh);
      return;
    }
    if (kind === LEDGER_ENTRY_CHANGE.STATE) return;
    fate.current = kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entry;
  }

  /** The batch: every key that changed, by net effect, each list in key order. */
  finish(): LedgerBatch {
    const batch: LedgerBatch = { init: [], live: [], dead: [] };
    // compareLedgerKeys orders by type first, so each type's keys are sorted on their own, types in ascending order.
    for (let type = 0; type <= OTHER_TYPES; type++) {
      const fates = this.fates[type];
      if (fates === undefined) continue;
      const kept: KeyFate[] = [];
      for (const fate of fates.values()) {
        if (fate.current === null && !fate.existedAtStart) continue; // created and removed within the ledger
        kept.push(fate);
      }
      if (this.validated && BYTE_ORDERED[type] === true) {
        // Validated keys of these types order like their field bytes, and latin1 strings compare like their bytes:
        // no LedgerKey to build except for `dead`.
        kept.sort(compareIds);
      } else {
        for (const fate of kept) keyOf(fate);
        // `!`: keyOf above set every key
        kept.sort((a, b) => compareLedgerKeys(a.key!, b.key!));
      }
      for (const fate of kept) {
        if (fate.current !== null) (fate.existedAtStart ? batch.live : batch.init).push(fate.current);
        else batch.dead.push(keyOf(fate));
      }
    }
    return batch;
  }
}

/**
 * LedgerEntryTypes whose stellar-core key order (compareLedgerKeys) is the byte order of their validated key fields:
 * ACCOUNT, TRUSTLINE, CLAIMABLE_BALANCE (discriminant, then fixed-size arms), LIQUIDITY_POOL, CONTRACT_CODE, TTL (a
 * hash) and CONFIG_SETTING (a non-negative enum). Not OFFER (signed offerID), DATA (string content first) or
 * CONTRACT_DATA (SCVal order).
 */
const BYTE_ORDERED: readonly boolean[] = [true, true, false, false, true, true, false, true, true, true];

function compareIds(a: KeyFate, b: KeyFate): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The fate's XDR LedgerKey, built from its type and field bytes on first use. */
function keyOf(fate: KeyFate): Uint8Array {
  if (fate.key !== null) return fate.key;
  const key = new Uint8Array(4 + fate.keyEnd - fate.keyStart);
  const type = fate.type;
  key[0] = type >>> 24;
  key[1] = (type >>> 16) & 0xff;
  key[2] = (type >>> 8) & 0xff;
  key[3] = type & 0xff;
  // A byte loop: keys are short, and a subarray per key for set() cost more than the copy.
  const src = fate.src;
  for (let i = fate.keyStart, o = 4; i < fate.keyEnd; i++, o++) key[o] = src[i]!;
  fate.key = key;
  return key;
}

function readType(b: Uint8Array): number {
  return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
}

/**
 * Node's native latin1 decoder, called on the Uint8Array directly: one string per key and no Buffer wrapper object
 * (building a Buffer per change was a quarter of extraction time on pubnet-like ledgers).
 */
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }
).latin1Slice;
