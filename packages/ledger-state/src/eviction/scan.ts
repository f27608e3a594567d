// stellar-core's eviction scan for one ledger N, as BucketManager::startBackgroundEvictionScan and
// resolveBackgroundEvictionScan run it (stellar-core a9b8613): SearchableLiveBucketListSnapshot::scanForEviction /
// scanForEvictionInBucket over the live BucketList as it was after ledger N-1, LiveBucketList::
// updateStartingEvictionIterator and updateEvictionIterAndRecordStats for the iterator, then the TTL-modified filter,
// the maxEntriesToArchive cut and the new iterator. Synchronous and free of side effects: it reads bucket files
// through the snapshot and asks the caller's lookups; the caller applies the result (DEAD keys, hot-archive entries,
// the iterator entry) to ledger N's batches.
import { describeValue } from '@strata/base';
import type { BucketListSnapshot } from '@strata/bucket-list';
import { BucketError, levelShouldSpill, NUM_LEVELS } from '@strata/bucket-list';
import {
  BUCKET_ENTRY_TYPE,
  CONTRACT_DATA_DURABILITY,
  LEDGER_ENTRY_TYPE,
  LedgerKeyError,
  ledgerKeyOfEntry,
  ledgerKeysEqual,
  readLedgerEntry,
  ttlKeyOf,
} from '@strata/ledger-key';
import { integerIn, invalidArgument, optionalFunction, optionsRecord } from '../arguments.js';
import { LedgerStateError, type LedgerStateErrorCode } from '../errors.js';
import {
  type EvictionIterator,
  encodeEvictionIterator,
  requireEvictionIterator,
  type StateArchivalSettings,
} from './settings.js';

/** SOROBAN_PROTOCOL_VERSION: buckets of an older protocol are skipped, and no scan runs before it. */
export const FIRST_PROTOCOL_EVICTION = 20;
/** LiveBucket::FIRST_PROTOCOL_SUPPORTING_PERSISTENT_EVICTION: persistent data and code become evictable. */
export const FIRST_PROTOCOL_PERSISTENT_EVICTION = 23;
/** From this protocol a persistent entry is evicted with its newest version (protocol 23 took the scanned one). */
export const FIRST_PROTOCOL_NEWEST_VERSION_EVICTED = 24;

/** The three StateArchivalSettings fields the scan uses. */
export type EvictionSettings = Pick<
  StateArchivalSettings,
  'evictionScanSize' | 'startingEvictionScanLevel' | 'maxEntriesToArchive'
>;

/**
 * What the scan of ledger N needs, and which ledger's state each part must reflect. stellar-core scans the snapshot
 * of the last closed ledger (N-1) with the iterator stored there and the protocol of that ledger, but with ledger
 * N's settings (a scan started with other settings is restarted when N's upgrades change them).
 */
export interface EvictionScanInput {
  /** The live BucketList after ledger N-1 (`snapshot.ledger` must be N-1). Only its live slots are read. */
  readonly snapshot: BucketListSnapshot;
  /** N, the ledger being closed (≥ 2). */
  readonly ledgerSeq: number;
  /**
   * Ledger N-1's protocol (the previous header's ledgerVersion, before N's upgrades); ≥ 20 — no scan runs before.
   * Before 23 only TEMPORARY contract data is evictable; from 23 all contract data and code.
   */
  readonly protocolVersion: number;
  /** CONFIG_SETTING_EVICTION_ITERATOR as ledger N-1 left it (decodeEvictionIterator of its body). */
  readonly iterator: EvictionIterator;
  /** CONFIG_SETTING_STATE_ARCHIVAL as of ledger N after its upgrades (decodeStateArchivalSettings). */
  readonly settings: EvictionSettings;
  /**
   * liveUntilLedgerSeq of the TTL entry whose keyHash is `ttlKeyHash` (32 bytes; read it, don't keep it) as of ledger
   * N-1, or undefined when there is none — the newest TTL in the snapshot, which the in-memory Soroban state holds.
   */
  readonly liveUntilOf: (ttlKeyHash: Uint8Array) => number | undefined;
  /**
   * Whether ledger N changed the TTL entry with this keyHash before the eviction (any change the ledger's
   * transactions, fees or upgrades made: created, updated, restored, deleted). Such entries are not evicted.
   */
  readonly ttlModified: (ttlKeyHash: Uint8Array) => boolean;
  /**
   * The newest LedgerEntry of a data/code key as of ledger N-1 (undefined when none): from protocol 24 an evicted
   * persistent entry is that version. Defaults to `snapshot.load`.
   */
  readonly newestEntryOf?: (key: Uint8Array) => Uint8Array | undefined;
}

/** One evicted entry. */
export interface EvictedEntry {
  /** LedgerKey XDR of the CONTRACT_DATA / CONTRACT_CODE entry. */
  readonly key: Uint8Array;
  /**
   * The LedgerEntry evicted: the version the scan found, except a persistent entry from protocol 24, which is the
   * newest version (newestEntryOf). A persistent entry goes to the hot archive with this value.
   */
  readonly entry: Uint8Array;
  /** LedgerKey XDR of its TTL entry. */
  readonly ttlKey: Uint8Array;
  /** The expired TTL's liveUntilLedgerSeq (< N). */
  readonly liveUntilLedgerSeq: number;
  /** CONTRACT_CODE or PERSISTENT contract data (archived), else TEMPORARY data (deleted). */
  readonly persistent: boolean;
}

export interface EvictionScanResult {
  /** The evicted entries in eviction order (scan order). Each one's key and TTL key are DEAD in ledger N's live batch. */
  readonly evicted: readonly EvictedEntry[];
  /**
   * The LedgerCloseMeta's `evictedKeys` as stellar-core fills it (LedgerCloseMetaFrame::populateEvictedEntries): first
   * the deleted keys — per evicted entry in order, a temporary entry's key then its TTL key, a persistent entry's TTL
   * key alone — then the keys of the archived (persistent) entries in order.
   */
  readonly evictedKeys: readonly Uint8Array[];
  /** The persistent evicted entries, in order: ledger N's hot-archive ARCHIVED entries (when N-1's protocol ≥ 23). */
  readonly archivedEntries: readonly Uint8Array[];
  /** The iterator ledger N stores in CONFIG_SETTING_EVICTION_ITERATOR. */
  readonly iterator: EvictionIterator;
  /** Its ConfigSettingEntry body (encodeEvictionIterator(iterator)). */
  readonly iteratorBody: Uint8Array;
}

/** A mutable EvictionIterator while the scan moves. */
interface Position {
  level: number;
  isCurr: boolean;
  offset: number;
}

/** A candidate found by the scan: a Soroban INIT/LIVE record, and the iterator just after it. */
interface Candidate {
  readonly key: Uint8Array;
  readonly entry: Uint8Array;
  readonly persistent: boolean;
  readonly after: EvictionIterator;
}

/** An eligible candidate: TTL present and expired as of N-1. */
interface Eligible extends Candidate {
  readonly ttlKey: Uint8Array;
  readonly liveUntilLedgerSeq: number;
}

const MAX_LEVEL = NUM_LEVELS - 1;
const UINT32_MAX = 0xffff_ffff;

/**
 * The eviction of ledger N (see EvictionScanInput for what each input must reflect). Throws LedgerStateError:
 * INVALID_ARGUMENT for bad inputs or a lookup answering out of range, BAD_ENTRY for an unreadable bucket record, IO
 * when a bucket file cannot be read, INCONSISTENT_STATE when a TTL outlives its entry.
 */
export function scanForEviction(input: EvictionScanInput): EvictionScanResult {
  checkInput(input);
  const { snapshot, ledgerSeq, protocolVersion, settings, liveUntilOf } = input;
  const newestEntryOf = input.newestEntryOf ?? ((key: Uint8Array) => snapshot.load(key));

  // SearchableLiveBucketListSnapshot::scanForEviction
  const position: Position = {
    level: input.iterator.bucketListLevel,
    isCurr: input.iterator.isCurrBucket,
    offset: input.iterator.bucketFileOffset,
  };
  updateStartingEvictionIterator(position, settings.startingEvictionScanLevel, ledgerSeq);
  const startLevel = position.level;
  const startIsCurr = position.isCurr;
  const budget = { bytesToScan: settings.evictionScanSize };
  const eligible: Eligible[] = [];
  // keysInEvictableEntries: an expired key seen in two buckets (two versions) is evicted once.
  const eligibleKeys = new Set<string>();
  for (;;) {
    const candidates: Candidate[] = [];
    const complete = scanBucket(snapshot, position, budget, protocolVersion, eligibleKeys, candidates);
    // processQueue: the TTLs (and, for persistent entries from 24, the newest versions) as of N-1.
    for (const candidate of candidates) {
      const ttlKey = ttlKeyOf(candidate.key);
      const liveUntil = askLiveUntil(liveUntilOf, ttlKey);
      if (liveUntil === undefined || liveUntil >= ledgerSeq) continue; // deleted, or live at N (isLive)
      let entry = candidate.entry;
      if (candidate.persistent && protocolVersion >= FIRST_PROTOCOL_NEWEST_VERSION_EVICTED) {
        entry = askNewestEntry(newestEntryOf, candidate.key, ledgerSeq);
      }
      eligible.push({ ...candidate, entry, ttlKey, liveUntilLedgerSeq: liveUntil });
      eligibleKeys.add(keyId(candidate.key));
    }
    if (complete) break;
    if (advance(position, startLevel, startIsCurr, settings.startingEvictionScanLevel)) break;
  }
  const endOfRegion: EvictionIterator = iteratorOf(position);

  // BucketManager::resolveBackgroundEvictionScan: drop entries whose TTL ledger N modified, evict up to
  // maxEntriesToArchive; the iterator stays after the last evicted entry when the cut stopped the eviction.
  const evicted: EvictedEntry[] = [];
  let remaining = settings.maxEntriesToArchive;
  let iterator = endOfRegion;
  for (const candidate of eligible) {
    if (remaining === 0) break;
    if (askTtlModified(input.ttlModified, candidate.ttlKey)) continue;
    evicted.push({
      key: candidate.key,
      entry: candidate.entry,
      ttlKey: candidate.ttlKey,
      liveUntilLedgerSeq: candidate.liveUntilLedgerSeq,
      persistent: candidate.persistent,
    });
    remaining--;
    iterator = candidate.after;
  }
  if (remaining !== 0) iterator = endOfRegion;

  const deletedKeys: Uint8Array[] = [];
  const archivedEntries: Uint8Array[] = [];
  const archivedKeys: Uint8Array[] = [];
  for (const { key, entry, ttlKey, persistent } of evicted) {
    if (persistent) {
      archivedEntries.push(entry);
      archivedKeys.push(key);
    } else deletedKeys.push(key);
    deletedKeys.push(ttlKey);
  }
  return {
    evicted,
    evictedKeys: [...deletedKeys, ...archivedKeys],
    archivedEntries,
    iterator,
    iteratorBody: encodeEvictionIterator(iterator),
  };
}

/**
 * LiveBucketList::updateStartingEvictionIterator: move up to the starting level if an upgrade raised it, and restart
 * the bucket from 0 when it changed at ledger N-1 — decided by the spill schedule, not by hashes: a curr changes when
 * the level above spills into it, a snap when its own level spills.
 */
function updateStartingEvictionIterator(position: Position, firstScanLevel: number, ledgerSeq: number): void {
  if (position.level < firstScanLevel) {
    position.level = firstScanLevel;
    position.isCurr = true;
    position.offset = 0;
  }
  // firstScanLevel ≥ 1, so a curr iterator is never on level 0 (stellar-core asserts this).
  const spilled = position.isCurr
    ? levelShouldSpill(ledgerSeq - 1, position.level - 1)
    : levelShouldSpill(ledgerSeq - 1, position.level);
  if (spilled) position.offset = 0;
}

/**
 * LiveBucketList::updateEvictionIterAndRecordStats: curr → snap of the same level (the bottom level has no snap),
 * snap → the next level's curr, past the bottom back to the starting level. True when back at the bucket the scan
 * started in.
 */
function advance(position: Position, startLevel: number, startIsCurr: boolean, firstScanLevel: number): boolean {
  if (position.isCurr && position.level !== MAX_LEVEL) {
    position.isCurr = false;
  } else {
    position.level++;
    position.isCurr = true;
    if (position.level === NUM_LEVELS) position.level = firstScanLevel;
  }
  position.offset = 0;
  return position.level === startLevel && position.isCurr === startIsCurr;
}

/**
 * SearchableLiveBucketListSnapshot::scanForEvictionInBucket: reads the records of the bucket `position` points to
 * from its offset until the byte budget is used (true: the scan region ends here) or the file ends (false). The empty
 * bucket and buckets before protocol 20 are skipped whole (false, budget untouched). Collects the INIT/LIVE records of
 * an evictable type whose key is not already eligible.
 */
function scanBucket(
  snapshot: BucketListSnapshot,
  position: Position,
  budget: { bytesToScan: number },
  protocolVersion: number,
  eligibleKeys: ReadonlySet<string>,
  candidates: Candidate[],
): boolean {
  const slot = 2 * position.level + (position.isCurr ? 0 : 1);
  const path = snapshot.live[slot]?.file.path;
  if (path === undefined) return false;
  const bucketProtocol = fromBucketList(path, () => snapshot.liveBucketProtocolVersion(slot));
  if (bucketProtocol < FIRST_PROTOCOL_EVICTION) return false;
  if (budget.bytesToScan === 0) return true;

  const start = position.offset;
  const level = position.level;
  const isCurr = position.isCurr;
  const end = fromBucketList(path, () =>
    snapshot.scanLiveBucketFrom(slot, start, budget.bytesToScan, (payload, recordOffset, recordEnd) => {
      const candidate = candidateOf(payload, protocolVersion, path, recordOffset);
      if (candidate === undefined || eligibleKeys.has(keyId(candidate.key))) return;
      candidates.push({
        ...candidate,
        after: { bucketListLevel: level, isCurrBucket: isCurr, bucketFileOffset: recordEnd },
      });
    }),
  );
  position.offset = end;
  const read = end - start;
  if (read >= budget.bytesToScan) {
    budget.bytesToScan = 0;
    return true;
  }
  budget.bytesToScan -= read;
  return false;
}

/** A Soroban INIT/LIVE record of a type evictable at `protocolVersion`, copied out of the read buffer; else undefined. */
function candidateOf(
  payload: Uint8Array,
  protocolVersion: number,
  file: string,
  recordOffset: number,
): Omit<Candidate, 'after'> | undefined {
  // Every record is at least one XDR word (the reader rejects empty records): the BucketEntryType.
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const recordType = view.getInt32(0);
  if (recordType !== BUCKET_ENTRY_TYPE.INITENTRY && recordType !== BUCKET_ENTRY_TYPE.LIVEENTRY) return undefined;
  // LedgerEntry { uint32 lastModifiedLedgerSeq; LedgerEntryType data.type; ... } (a shorter one fails to read below)
  if (payload.length >= 12) {
    const entryType = view.getInt32(8);
    if (entryType !== LEDGER_ENTRY_TYPE.CONTRACT_DATA && entryType !== LEDGER_ENTRY_TYPE.CONTRACT_CODE)
      return undefined;
  }
  let entryView: ReturnType<typeof readLedgerEntry>;
  try {
    entryView = readLedgerEntry(payload.subarray(4));
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    throw new LedgerStateError('BAD_ENTRY', `bucket record: ${error.message}`, {
      file,
      offset: recordOffset,
      cause: error,
    });
  }
  const key = entryView.key();
  // The durability is the last field of a CONTRACT_DATA key.
  const temporary =
    entryView.type === LEDGER_ENTRY_TYPE.CONTRACT_DATA &&
    new DataView(key.buffer).getUint32(key.length - 4) === CONTRACT_DATA_DURABILITY.TEMPORARY;
  if (!temporary && protocolVersion < FIRST_PROTOCOL_PERSISTENT_EVICTION) return undefined;
  return { key, entry: entryView.xdr.slice(), persistent: !temporary };
}

function iteratorOf(position: Position): EvictionIterator {
  return { bucketListLevel: position.level, isCurrBucket: position.isCurr, bucketFileOffset: position.offset };
}

function keyId(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/** Runs a snapshot read, turning the bucket list's errors into this package's (the original as `cause`). */
function fromBucketList<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof BucketError)) throw error;
    const code: LedgerStateErrorCode =
      error.code === 'IO'
        ? 'IO'
        : error.code === 'CLOSED'
          ? 'CLOSED'
          : error.code === 'INVALID_ARGUMENT'
            ? 'INVALID_ARGUMENT'
            : 'BAD_ENTRY';
    throw new LedgerStateError(code, `eviction scan of a bucket: ${error.message}`, { file, cause: error });
  }
}

function askLiveUntil(liveUntilOf: EvictionScanInput['liveUntilOf'], ttlKey: Uint8Array): number | undefined {
  const liveUntil = liveUntilOf(ttlKey.subarray(4));
  if (liveUntil === undefined) return undefined;
  if (typeof liveUntil !== 'number' || !Number.isInteger(liveUntil) || liveUntil < 0 || liveUntil > UINT32_MAX) {
    throw new LedgerStateError('INVALID_ARGUMENT', 'liveUntilOf must return a uint32 or undefined', {
      field: 'liveUntilOf',
    });
  }
  return liveUntil;
}

function askTtlModified(ttlModified: EvictionScanInput['ttlModified'], ttlKey: Uint8Array): boolean {
  const modified = ttlModified(ttlKey.subarray(4));
  if (typeof modified !== 'boolean') {
    throw new LedgerStateError('INVALID_ARGUMENT', 'ttlModified must return true or false', { field: 'ttlModified' });
  }
  return modified;
}

function askNewestEntry(
  newestEntryOf: (key: Uint8Array) => Uint8Array | undefined,
  key: Uint8Array,
  ledgerSeq: number,
): Uint8Array {
  const entry = newestEntryOf(key);
  if (entry === undefined) {
    // stellar-core dereferences the loaded entry unchecked: a TTL without its entry is a broken state.
    throw new LedgerStateError('INCONSISTENT_STATE', 'an expired TTL whose persistent entry does not exist', {
      ledger: ledgerSeq,
      field: 'newestEntryOf',
    });
  }
  let same: boolean;
  try {
    same = entry instanceof Uint8Array && ledgerKeysEqual(ledgerKeyOfEntry(entry), key);
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    same = false;
  }
  if (!same) {
    throw new LedgerStateError('INVALID_ARGUMENT', 'newestEntryOf must return the LedgerEntry XDR of the key asked', {
      field: 'newestEntryOf',
    });
  }
  return entry.slice();
}

function checkInput(value: EvictionScanInput): void {
  const input = optionsRecord(value, 'input', false);
  const snapshot = optionsRecord(input.snapshot, 'snapshot', false) as Partial<BucketListSnapshot>;
  if (typeof snapshot.scanLiveBucketFrom !== 'function' || !Array.isArray(snapshot.live)) {
    throw invalidArgument('snapshot', 'a BucketListSnapshot of @strata/bucket-list', input.snapshot);
  }
  const ledgerSeq = integerIn(input.ledgerSeq, 'ledgerSeq', 2, UINT32_MAX);
  if (snapshot.ledger !== ledgerSeq - 1) {
    throw new LedgerStateError(
      'INVALID_ARGUMENT',
      `snapshot must be the BucketList after ledger ${ledgerSeq - 1}, got one at ledger ${describeValue(snapshot.ledger)}`,
      { field: 'snapshot' },
    );
  }
  integerIn(input.protocolVersion, 'protocolVersion', FIRST_PROTOCOL_EVICTION, UINT32_MAX);
  requireEvictionIterator(input.iterator, 'iterator');
  integerIn(input.iterator.bucketListLevel, 'iterator.bucketListLevel', 0, MAX_LEVEL);
  const settings = optionsRecord(input.settings, 'settings', false);
  integerIn(settings.evictionScanSize, 'settings.evictionScanSize', 0, UINT32_MAX);
  integerIn(settings.maxEntriesToArchive, 'settings.maxEntriesToArchive', 0, UINT32_MAX);
  // stellar-core's configuration check: MinimumSorobanNetworkConfig::STARTING_EVICTION_LEVEL (1) .. kNumLevels - 1.
  integerIn(settings.startingEvictionScanLevel, 'settings.startingEvictionScanLevel', 1, MAX_LEVEL);
  if (typeof input.liveUntilOf !== 'function') throw invalidArgument('liveUntilOf', 'a function', input.liveUntilOf);
  if (typeof input.ttlModified !== 'function') throw invalidArgument('ttlModified', 'a function', input.ttlModified);
  optionalFunction(input.newestEntryOf, 'newestEntryOf');
}
