// Folds one ledger's LedgerEntryChanges, in application order, into the ledger's bucket batch by net effect per key:
// what existed when the ledger started and what exists when it ends. This is the batch stellar-core adds to its live
// BucketList for the ledger (spec ledger-keys-and-buckets.md §4.5: init / live / dead, no key twice).
import { compareLedgerKeys, ledgerKeyOfEntry, readU32, validateLedgerKey } from '@strata/ledger-key';
import { checkBytes, checkInteger, checkOptions, invalidArgument } from './arguments.js';
import { fromLedgerKeyError } from './errors.js';

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
   * The ledger the changes belong to. With it, a RESTORED change whose entry's `lastModifiedLedgerSeq` is not this
   * ledger counts as STATE (a read): stellar-core emits RESTORED with the old value for an expired entry that was
   * never evicted but rewrites only its TTL, and every entry it writes carries the ledger's sequence (spec
   * ledger-state-replay.md §3.1). `extractLedger` passes the header's sequence.
   */
  ledgerSeq?: number;
  /**
   * stellar-core's two corrections of the meta, both on by default: `restoreReads` (with `ledgerSeq`, a RESTORED of
   * an entry the ledger did not write is a read) and `maxTtlBumps` (a TTL keeps its largest UPDATED liveUntil). Off,
   * the batch is the meta's literal net effect — for comparisons, and to show what each correction changes.
   */
  corrections?: { restoreReads?: boolean; maxTtlBumps?: boolean };
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
 *
 * The fate keeps what the result depends on: the first change in application order (its kind says whether the key
 * existed at the start) and the last change that moved the value (anything but STATE). With phases (see
 * `observePhased`) a change can arrive after changes it precedes, so both are tracked with the phase they came from.
 */
interface KeyFate {
  /** hashKey of the type and field bytes (the hash table's probe key; also saves byte compares on collisions). */
  hash: number;
  type: number;
  src: Uint8Array;
  keyStart: number;
  keyEnd: number;
  /** The key fields as 32-bit words (see `wordsOf`), or null when they are not 4-aligned in their buffer. */
  words: Int32Array | null;
  wordStart: number;
  key: Uint8Array | null;
  /**
   * Phase and kind of the first change in application order, and its entry `firstSource[firstStart, firstEnd)`
   * (firstSource null for REMOVED). Entries are kept as ranges, and only the ones that end up in the batch become
   * arrays (in finish()): most changes are STATE or are overtaken by a later change of their key.
   */
  firstPhase: number;
  firstKind: LedgerEntryChangeKind;
  firstSource: Uint8Array | null;
  firstStart: number;
  firstEnd: number;
  /** Phase of the last value-moving change (not STATE) in application order, -1 while there is none; its kind and
   * its entry. */
  movePhase: number;
  moveKind: LedgerEntryChangeKind;
  moveSource: Uint8Array | null;
  moveStart: number;
  moveEnd: number;
  /** Filled in by finish(): whether the key existed at the start, and its newest entry (null: absent at the end). */
  existedAtStart: boolean;
  current: Uint8Array | null;
}

/** Type slots: one per LedgerEntryType (0..9), and a last one for keys with an unknown type (whole-key bytes). */
const OTHER_TYPES = 10;

/** FoldOptions as given by a caller: an object whose `wasLive`, if any, is a function (INVALID_ARGUMENT otherwise). */
export function checkFoldOptions(options: unknown): FoldOptions {
  const { wasLive, ledgerSeq, corrections } = checkOptions(options, 'options');
  if (wasLive !== undefined && typeof wasLive !== 'function') throw invalidArgument('wasLive', 'a function', wasLive);
  if (corrections !== undefined) {
    const { restoreReads, maxTtlBumps } = checkOptions(corrections, 'corrections');
    for (const [name, value] of [
      ['restoreReads', restoreReads],
      ['maxTtlBumps', maxTtlBumps],
    ] as const) {
      if (value !== undefined && typeof value !== 'boolean')
        throw invalidArgument(`corrections.${name}`, 'a boolean', value);
    }
  }
  if (ledgerSeq !== undefined) checkInteger(ledgerSeq, 'ledgerSeq', 0, 0xffff_ffff);
  return (options ?? {}) as FoldOptions;
}

function checkKind(kind: unknown): void {
  checkInteger(kind, 'kind', LEDGER_ENTRY_CHANGE.CREATED, LEDGER_ENTRY_CHANGE.RESTORED);
}

/**
 * The arguments of LedgerChangeFold.observe: a known kind, a valid LedgerKey, and for every kind but REMOVED a valid
 * LedgerEntry of that key (REMOVED: null).
 */
function checkChange(kind: unknown, key: unknown, entry: unknown): void {
  checkKind(kind);
  const keyBytes = checkBytes(key, 'key');
  try {
    validateLedgerKey(keyBytes);
  } catch (error) {
    fromLedgerKeyError(error, 'key');
  }
  if (kind === LEDGER_ENTRY_CHANGE.REMOVED) {
    if (entry !== null) throw invalidArgument('entry', 'null for REMOVED', entry);
    return;
  }
  let entryKey: Uint8Array;
  try {
    entryKey = ledgerKeyOfEntry(checkBytes(entry, 'entry'));
  } catch (error) {
    fromLedgerKeyError(error, 'entry');
  }
  if (Buffer.compare(entryKey, keyBytes) !== 0) throw invalidArgument('entry', 'an entry of `key`', entry);
}

/** LedgerEntryType TTL, and where a TTL entry's liveUntilLedgerSeq sits (after lastModified, type, keyHash). */
const TTL_TYPE = 9;
const TTL_LIVE_UNTIL = 4 + 4 + 32;

/** Hash-table slots a fold starts with (a power of two; the table doubles at half load). */
const INITIAL_SLOTS = 1024;

/**
 * Bytes of LedgerCloseMeta per changed key that useWordSource sizes the table for: the fixture ledgers have ~1,240
 * on average, generated pubnet-like ones ~580; a smaller figure only makes the table larger than needed.
 */
const SOURCE_BYTES_PER_KEY = 256;

/**
 * Per-process seed of the key hash. The table's layout is the only thing it changes (the batch is sorted), and a
 * seed an input cannot know keeps a hostile ledger from forcing every key onto one probe chain.
 */
const HASH_SEED = (Math.random() * 0x1_0000_0000) >>> 0;

/**
 * Whether Int32Array reads are little-endian here. Then key fields that sit 4-aligned in their ArrayBuffer (all of
 * them when a LedgerCloseMeta starts aligned, as XDR keeps every field on a 4-byte boundary) are hashed and compared
 * a word at a time, and the byte path composes the same little-endian words, so both paths agree on every key.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

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
 *   `wasLive`, consulted (by finish()) only for keys first seen as RESTORED. Without it a restore counts as `live`:
 *   that is always safe for the BucketList (LIVE over an absent key only keeps a tombstone longer), while `init` over
 *   a key an older bucket still holds would let a later DEAD annihilate the INIT in a merge and resurrect the older
 *   value. With the ledger's sequence (FoldOptions.ledgerSeq) a RESTORED whose entry was not written in this ledger
 *   (its lastModifiedLedgerSeq is older) is a read, STATE: stellar-core rewrote only its TTL.
 *
 * Every later change only moves the newest value: CREATED / UPDATED / RESTORED set it, REMOVED clears it, STATE does
 * not change it (it restates the value before the next change), and an UPDATED of a TTL that lowers
 * liveUntilLedgerSeq below an earlier UPDATED's (parallel read-only bumps in different clusters) keeps the larger
 * one, as stellar-core does. Evicted keys arrive as REMOVED after everything else.
 *
 * With `wasLive` and `ledgerSeq` the batch holds exactly the entries stellar-core's ledger transaction commits from
 * the meta's changes. stellar-core adds two entries of its own that no meta carries: CONFIG_SETTING_EVICTION_ITERATOR
 * (every ledger from protocol 20) and, every sample period, CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW;
 * @strata/ledger-state adds them (spec ledger-state-replay.md §3.4–3.5).
 *
 * Result per key: absent→present = init (newest entry); present→present = live (newest entry); present→absent = dead
 * (key); absent→absent (created and removed within the ledger) = nothing; only STATE (never written) = nothing. A key lands in at most one list, so the
 * batch satisfies stellar-core's "no duplicate keys across init/live/dead" assertion by construction.
 *
 * Keys are found through an open-addressing hash table over their field bytes, so a change costs a hash and a
 * compare (of 32-bit words when the fields are 4-aligned), and no string or LedgerKey is built per change.
 *
 * Not safe for concurrent use; one instance per ledger.
 */
export class LedgerChangeFold {
  /** Every key's fate, in first-seen order. */
  private readonly fateList: KeyFate[] = [];
  /** Open addressing with linear probing: 1 + index into fateList, 0 for an empty slot. */
  private slots = new Int32Array(INITIAL_SLOTS);
  /** The fate of the previous change: changes come in pairs (STATE, then UPDATED or REMOVED of the same key). */
  private lastFate: KeyFate | null = null;
  /** See useWordSource: the array whose keys are read as words, and an Int32Array over the same bytes. */
  private wordSource: Uint8Array | null = null;
  private wordView: Int32Array | null = null;
  private readonly wasLive: ((key: Uint8Array) => boolean) | undefined;
  /** The ledger of the changes (see FoldOptions.ledgerSeq), or -1 when not known or restoreReads is off. */
  private ledgerSeq: number;
  private readonly restoreReads: boolean;
  private readonly maxTtlBumps: boolean;
  /** Whether every key came as validated fields (observeFields); keys given to observe() sort by compareLedgerKeys. */
  private validated = true;
  /** Set by finish(): the keys restored from the hot archive, in key order. */
  private restoredFromArchive: Uint8Array[] = [];

  /**
   * `wasLive(key)`: whether a key first seen as RESTORED was in the live state at the ledger's start. A `wasLive`
   * that is not a function is INVALID_ARGUMENT.
   */
  constructor(options: FoldOptions = {}) {
    const { wasLive, ledgerSeq, corrections } = checkFoldOptions(options);
    this.wasLive = wasLive;
    this.restoreReads = corrections?.restoreReads ?? true;
    this.maxTtlBumps = corrections?.maxTtlBumps ?? true;
    this.ledgerSeq = this.restoreReads ? (ledgerSeq ?? -1) : -1;
  }

  /**
   * Sets the ledger of the changes (FoldOptions.ledgerSeq) for a caller that learns it after construction: the
   * extractor reads the header first. Call before the first change.
   * @internal
   */
  setLedgerSeq(ledgerSeq: number): void {
    if (this.restoreReads) this.ledgerSeq = ledgerSeq;
  }

  /**
   * Records one change. `key` is the XDR LedgerKey it is about; `entry` the XDR LedgerEntry for CREATED, UPDATED,
   * STATE and RESTORED, null for REMOVED. Arrays are kept, not copied: do not modify them afterwards. Both are
   * validated: a malformed key or entry is a LedgerMetaError with ledger-key's code (`field` key or entry), an entry
   * of another key, a missing or extra entry or an unknown kind is INVALID_ARGUMENT.
   */
  observe(kind: LedgerEntryChangeKind, key: Uint8Array, entry: Uint8Array | null): void {
    checkChange(kind, key, entry);
    this.validated = false;
    const type = key.length >= 4 ? readType(key) : -1;
    if (type >= 0 && type < OTHER_TYPES) this.observePhased(0, kind, type, key, 4, key.length, key, entry);
    else this.observePhased(0, kind, OTHER_TYPES, key, 0, key.length, key, entry);
  }

  /**
   * Records one change whose key is LedgerEntryType `type` (0..9) with the key field bytes `src[keyStart, keyEnd)`
   * (validated canonical XDR, as in the LedgerKey after its type). `key`: the XDR LedgerKey if the caller has it, else
   * null (it is built from the fields when needed). Arrays are kept, not copied. The bytes are the caller's to
   * validate; arguments of the wrong type or out of range are INVALID_ARGUMENT.
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
    checkKind(kind);
    checkInteger(type, 'type', 0, OTHER_TYPES - 1);
    checkBytes(src, 'src');
    checkInteger(keyStart, 'keyStart', 0, src.length);
    checkInteger(keyEnd, 'keyEnd', keyStart, src.length);
    if (key !== null) checkBytes(key, 'key');
    if (entry !== null) checkBytes(entry, 'entry');
    this.observePhased(0, kind, type, src, keyStart, keyEnd, key, entry);
  }

  /**
   * Tells the fold that many keys will be given as ranges of `source` (the extractor passes the LedgerCloseMeta
   * itself): if it starts 4-aligned in its buffer, keys in it at 4-aligned offsets are hashed and compared as 32-bit
   * words. Reading `buffer` and `byteOffset` of each key's array instead costs more than the words save. Also sizes
   * the hash table for the keys a source that large is likely to hold (SOURCE_BYTES_PER_KEY), so that a large ledger
   * does not grow it (each growth re-inserts every key).
   * @internal
   */
  useWordSource(source: Uint8Array): void {
    let slots = this.slots.length;
    // The table doubles at half load: half its slots should cover the expected keys.
    while (slots / 2 < source.length / SOURCE_BYTES_PER_KEY) slots *= 2;
    if (slots > this.slots.length && this.fateList.length === 0) this.slots = new Int32Array(slots);
    if (!LITTLE_ENDIAN || source.byteOffset % 4 !== 0) return;
    this.wordSource = source;
    this.wordView = new Int32Array(source.buffer, source.byteOffset, source.length >>> 2);
  }

  /**
   * observeFields for a caller that reads the phases of a ledger interleaved (LCM txProcessing holds each
   * transaction's fee, apply and post-apply changes together, but every fee is applied before any transaction). A
   * change of phase `phase` (a small non-negative integer) is applied after every change of a lower phase and before
   * every change of a higher one, whatever order the calls come in; within a phase, call order is application order.
   * The result is the same as calling observeFields phase by phase, without logging the changes in between.
   * @internal
   */
  observePhased(
    phase: number,
    kind: LedgerEntryChangeKind,
    type: number,
    src: Uint8Array,
    keyStart: number,
    keyEnd: number,
    key: Uint8Array | null,
    entry: Uint8Array | null,
  ): void {
    this.observeAt(phase, kind, type, src, keyStart, keyEnd, key, entry, 0, entry === null ? 0 : entry.length);
  }

  /**
   * observePhased with the entry given as the range `entrySource[entryStart, entryEnd)` (entrySource null: none),
   * so that the extractor makes an array only for the entries that end up in the batch (see finish()). An entry that
   * is the whole of `entrySource` comes back as that array itself.
   * @internal
   */
  observeAt(
    phase: number,
    observedKind: LedgerEntryChangeKind,
    type: number,
    src: Uint8Array,
    keyStart: number,
    keyEnd: number,
    key: Uint8Array | null,
    entrySource: Uint8Array | null,
    entryStart: number,
    entryEnd: number,
  ): void {
    // A restore of an expired entry still in the live state: stellar-core rewrites only its TTL, so the entry's own
    // RESTORED carries its old lastModifiedLedgerSeq and is a read (§3.1).
    const kind =
      observedKind === LEDGER_ENTRY_CHANGE.RESTORED &&
      this.ledgerSeq >= 0 &&
      entrySource !== null &&
      readU32(entrySource, entryStart) !== this.ledgerSeq
        ? LEDGER_ENTRY_CHANGE.STATE
        : observedKind;
    let words: Int32Array | null = null;
    let wordStart = 0;
    if (src === this.wordSource && ((keyStart | keyEnd) & 3) === 0) {
      words = this.wordView;
      wordStart = keyStart >>> 2;
    }
    const last = this.lastFate;
    if (last !== null && last.type === type && sameFields(last, src, keyStart, keyEnd, words, wordStart)) {
      update(last, phase, kind, entrySource, entryStart, entryEnd, this.maxTtlBumps);
      return;
    }
    const hash = hashKey(type, src, keyStart, keyEnd, words, wordStart);
    const slots = this.slots;
    const mask = slots.length - 1;
    const fateList = this.fateList;
    let i = hash & mask;
    for (let slot = slots[i]!; slot !== 0; slot = slots[i]!) {
      // `!`: slots hold 1 + an index of fateList
      const fate = fateList[slot - 1]!;
      if (fate.hash === hash && fate.type === type && sameFields(fate, src, keyStart, keyEnd, words, wordStart)) {
        update(fate, phase, kind, entrySource, entryStart, entryEnd, this.maxTtlBumps);
        this.lastFate = fate;
        return;
      }
      i = (i + 1) & mask;
    }
    const value = kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entrySource;
    fateList.push({
      hash,
      type,
      src,
      keyStart,
      keyEnd,
      words,
      wordStart,
      key,
      firstPhase: phase,
      firstKind: kind,
      firstSource: value,
      firstStart: entryStart,
      firstEnd: entryEnd,
      movePhase: kind === LEDGER_ENTRY_CHANGE.STATE ? -1 : phase,
      moveKind: kind,
      moveSource: value,
      moveStart: entryStart,
      moveEnd: entryEnd,
      existedAtStart: false,
      current: null,
    });
    slots[i] = fateList.length;
    this.lastFate = fateList[fateList.length - 1]!;
    if (fateList.length * 2 > slots.length) this.grow();
  }

  /** Doubles the table and re-inserts every fate by its stored hash. */
  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    const fateList = this.fateList;
    for (let index = 0; index < fateList.length; index++) {
      let i = fateList[index]!.hash & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = index + 1;
    }
    this.slots = slots;
  }

  /** The batch: every key that changed, by net effect, each list in key order. */
  finish(): LedgerBatch {
    const batch: LedgerBatch = { init: [], live: [], dead: [] };
    const restored: KeyFate[] = [];
    const byType: KeyFate[][] = [];
    for (let type = 0; type <= OTHER_TYPES; type++) byType.push([]);
    for (const fate of this.fateList) {
      // Only STATE (reads, and restores of entries still live): the ledger did not write the key.
      if (fate.movePhase < 0) continue;
      const first = fate.firstKind;
      const current = entryOf(fate.moveSource, fate.moveStart, fate.moveEnd);
      let existedAtStart =
        first === LEDGER_ENTRY_CHANGE.STATE ||
        first === LEDGER_ENTRY_CHANGE.UPDATED ||
        first === LEDGER_ENTRY_CHANGE.REMOVED;
      if (first === LEDGER_ENTRY_CHANGE.RESTORED) {
        existedAtStart = this.wasLive === undefined || this.wasLive(keyOf(fate));
        // Restored from the hot archive, whatever the ledger did with it afterwards (stellar-core's LedgerTxn keeps
        // restored keys even when they are deleted again).
        if (!existedAtStart) restored.push(fate);
      }
      if (current === null && !existedAtStart) continue; // created and removed within the ledger
      fate.existedAtStart = existedAtStart;
      fate.current = current;
      // `!`: fate.type is 0..OTHER_TYPES (observe maps anything else to OTHER_TYPES)
      byType[fate.type]!.push(fate);
    }
    // compareLedgerKeys orders by type first, so each type's keys are sorted on their own, types in ascending order.
    for (let type = 0; type <= OTHER_TYPES; type++) {
      const kept = byType[type]!;
      if (kept.length === 0) continue;
      if (this.validated && BYTE_ORDERED[type] === true) {
        // Validated keys of these types order like their field bytes: no LedgerKey to build except for `dead`.
        sortByFields(kept);
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
    this.restoredFromArchive = restored.map(keyOf).sort(compareLedgerKeys);
    return batch;
  }

  /**
   * After finish(): the XDR LedgerKeys first seen as RESTORED that were not live when the ledger started, i.e.
   * restored from the hot archive (data, code and their TTLs), in key order — also those the ledger deleted again
   * (restored, then removed). stellar-core marks the CONTRACT_DATA and CONTRACT_CODE ones restored in its hot-archive
   * BucketList.
   */
  archiveRestores(): Uint8Array[] {
    return this.restoredFromArchive;
  }
}

/**
 * LedgerEntryTypes whose stellar-core key order (compareLedgerKeys) is the byte order of their validated key fields:
 * ACCOUNT, TRUSTLINE, CLAIMABLE_BALANCE (discriminant, then fixed-size arms), LIQUIDITY_POOL, CONTRACT_CODE, TTL (a
 * hash) and CONFIG_SETTING (a non-negative enum). Not OFFER (signed offerID), DATA (string content first) or
 * CONTRACT_DATA (SCVal order).
 */
const BYTE_ORDERED: readonly boolean[] = [true, true, false, false, true, true, false, true, true, true];

/**
 * 32-bit hash of a key's type and field bytes: seeded multiply-xorshift over little-endian 32-bit words (read from
 * `words` when the caller has them, else composed from the bytes), then an avalanche.
 */
function hashKey(
  type: number,
  src: Uint8Array,
  start: number,
  end: number,
  words: Int32Array | null,
  wordStart: number,
): number {
  let h = Math.imul(HASH_SEED ^ type, 0x9e3779b1) ^ (end - start);
  if (words !== null) {
    const wordEnd = wordStart + ((end - start) >>> 2);
    for (let w = wordStart; w < wordEnd; w++) {
      // `!` is safe: the key's words lie inside the buffer `words` covers
      h = Math.imul(h ^ words[w]!, 0x85ebca6b);
      h ^= h >>> 15;
    }
  } else {
    let i = start;
    for (; i + 4 <= end; i += 4) {
      // `!` is safe: i + 3 < end <= src.length (callers pass validated ranges)
      h = Math.imul(h ^ (src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24)), 0x85ebca6b);
      h ^= h >>> 15;
    }
    for (; i < end; i++) h = Math.imul(h ^ src[i]!, 0x01000193);
  }
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) & 0x7fffffff;
}

/** A change to a key seen before: an earlier phase may come first, a later (or same) phase moves the value. */
function update(
  fate: KeyFate,
  phase: number,
  kind: LedgerEntryChangeKind,
  entrySource: Uint8Array | null,
  entryStart: number,
  entryEnd: number,
  maxTtlBumps: boolean,
): void {
  if (phase < fate.firstPhase) {
    // A change of an earlier phase read after this key's first change: it comes first.
    fate.firstPhase = phase;
    fate.firstKind = kind;
    fate.firstSource = kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entrySource;
    fate.firstStart = entryStart;
    fate.firstEnd = entryEnd;
  }
  if (kind !== LEDGER_ENTRY_CHANGE.STATE && phase >= fate.movePhase) {
    if (
      maxTtlBumps &&
      kind === LEDGER_ENTRY_CHANGE.UPDATED &&
      fate.moveKind === LEDGER_ENTRY_CHANGE.UPDATED &&
      fate.type === TTL_TYPE &&
      entrySource !== null &&
      fate.moveSource !== null &&
      readU32(entrySource, entryStart + TTL_LIVE_UNTIL) < readU32(fate.moveSource, fate.moveStart + TTL_LIVE_UNTIL)
    ) {
      // Parallel read-only TTL bumps (CAP-63): stellar-core keeps the largest since the key's last create, remove or
      // restore, whatever order the meta lists them in (§3.2, ParallelApplyUtils.cpp updateMaxOfRoTTLBump).
      return;
    }
    fate.movePhase = phase;
    fate.moveKind = kind;
    fate.moveSource = kind === LEDGER_ENTRY_CHANGE.REMOVED ? null : entrySource;
    fate.moveStart = entryStart;
    fate.moveEnd = entryEnd;
  }
}

/**
 * The entry `source[start, end)` as an array without a copy: `source` itself when it is the whole of it; for a plain
 * Uint8Array a new view of its buffer (about half the cost of subarray()); else subarray(), which keeps the class of
 * a Buffer or other subclass.
 */
function entryOf(source: Uint8Array | null, start: number, end: number): Uint8Array | null {
  if (source === null) return null;
  if (start === 0 && end === source.length) return source;
  if (source.constructor === Uint8Array) return new Uint8Array(source.buffer, source.byteOffset + start, end - start);
  return source.subarray(start, end);
}

/** Up to this many keys sortByFields packs; above, one comparator sort (the packed prefix would be too short). */
const MAX_PACKED_SORT = 1 << 21;

/** sortByFields' packed array, reused (grown as needed): extraction is synchronous, so one call uses it at a time. */
let packedScratch = new Uint32Array(1024);

/**
 * Sorts fates in the byte order of their key fields (a shorter prefix first) with a native numeric sort instead of a
 * comparator per pair: the keys share their first words (ACCOUNT and TRUSTLINE keys all start with the public key
 * type), so it finds the first word where they differ and sorts 32-bit numbers made of that word's top bits and each
 * fate's index in the low `indexBits` bits (a Uint32Array sorts about three times faster than (word, index) pairs
 * in a Float64Array). Only runs of equal top bits (rare: one account's trust lines, or a chance match of the
 * prefix) get the byte comparator. Exact, because every key agrees on the words before that one.
 */
function sortByFields(fates: KeyFate[]): void {
  const n = fates.length;
  if (n < 2) return;
  if (n >= MAX_PACKED_SORT) {
    fates.sort(compareFields);
    return;
  }
  let minLength = Number.POSITIVE_INFINITY;
  for (const fate of fates) minLength = Math.min(minLength, fate.keyEnd - fate.keyStart);
  // `!` is safe: n >= 2
  const first = fates[0]!;
  let offset = 0;
  for (; offset + 4 <= minLength; offset += 4) {
    const word = wordAt(first.src, first.keyStart + offset);
    let same = true;
    for (let i = 1; i < n && same; i++) same = wordAt(fates[i]!.src, fates[i]!.keyStart + offset) === word;
    if (!same) break;
  }
  if (offset + 4 > minLength) {
    // Every key agrees on every word they all have: the lengths and tails decide.
    fates.sort(compareFields);
    return;
  }
  // n < 2^21, so indexBits is 1..21 and every packed number keeps at least the word's top 11 bits.
  const indexBits = 32 - Math.clz32(n - 1);
  const indexMask = (1 << indexBits) - 1;
  if (packedScratch.length < n) packedScratch = new Uint32Array(Math.max(n, packedScratch.length * 2));
  const packed = packedScratch.subarray(0, n);
  for (let i = 0; i < n; i++) {
    const word = wordAt(fates[i]!.src, fates[i]!.keyStart + offset);
    packed[i] = (((word >>> indexBits) << indexBits) | i) >>> 0;
  }
  packed.sort();
  const sorted = fates.slice();
  for (let i = 0; i < n; i++) fates[i] = sorted[packed[i]! & indexMask]!;
  // Runs of keys with equal top bits at `offset` are put in order by all their bytes.
  for (let runStart = 0; runStart < n; ) {
    const prefix = packed[runStart]! >>> indexBits;
    let runEnd = runStart + 1;
    while (runEnd < n && packed[runEnd]! >>> indexBits === prefix) runEnd++;
    if (runEnd - runStart > 1) {
      const run = fates.slice(runStart, runEnd).sort(compareFields);
      for (let i = 0; i < run.length; i++) fates[runStart + i] = run[i]!;
    }
    runStart = runEnd;
  }
}

/** The big-endian u32 at `src[p, p + 4)` (the caller checked the range). */
function wordAt(src: Uint8Array, p: number): number {
  // `!` is safe: p + 3 < the key's end <= src.length
  return ((src[p]! << 24) | (src[p + 1]! << 16) | (src[p + 2]! << 8) | src[p + 3]!) >>> 0;
}

/** Whether a fate's key field bytes equal `src[start, end)` (given as `words` from `wordStart` when aligned). */
function sameFields(
  fate: KeyFate,
  src: Uint8Array,
  start: number,
  end: number,
  words: Int32Array | null,
  wordStart: number,
): boolean {
  if (fate.keyEnd - fate.keyStart !== end - start) return false;
  const ownWords = fate.words;
  if (words !== null && ownWords !== null) {
    const shift = fate.wordStart - wordStart;
    const wordEnd = wordStart + ((end - start) >>> 2);
    // `!` is safe: both keys' words lie inside the buffers their arrays cover
    for (let w = wordStart; w < wordEnd; w++) if (ownWords[w + shift]! !== words[w]!) return false;
    return true;
  }
  const own = fate.src;
  const offset = fate.keyStart - start;
  let i = start;
  // Four bytes a step, one branch per step (keys are XDR: their lengths are multiples of 4).
  for (; i + 4 <= end; i += 4) {
    const j = i + offset;
    // `!` is safe: i + 3 < end <= src.length and j + 3 < fate.keyEnd <= own.length
    if (
      ((own[j]! ^ src[i]!) |
        (own[j + 1]! ^ src[i + 1]!) |
        (own[j + 2]! ^ src[i + 2]!) |
        (own[j + 3]! ^ src[i + 3]!)) !==
      0
    ) {
      return false;
    }
  }
  for (; i < end; i++) if (own[i + offset] !== src[i]) return false;
  return true;
}

/** Byte order of two fates' key field bytes (a shorter prefix first), the order of byte-ordered types. */
function compareFields(a: KeyFate, b: KeyFate): number {
  const as = a.src;
  const bs = b.src;
  const aLength = a.keyEnd - a.keyStart;
  const bLength = b.keyEnd - b.keyStart;
  const shift = b.keyStart - a.keyStart;
  const end = a.keyStart + Math.min(aLength, bLength);
  for (let i = a.keyStart; i < end; i++) {
    // `!` is safe: i < a.keyEnd and i + shift < b.keyEnd
    const difference = as[i]! - bs[i + shift]!;
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
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
