// Immutable views of the BucketList at one ledger (stellar-core BucketListSnapshot, spec §6-7): the 22 slots of each
// list, newest first, pinned so their files outlive later ledgers and merges until the snapshot is released. Point
// loads, bulk loads, raw scans of one type in one bucket, and the loser-tree scan of current live entries.
import { compareLedgerKeys } from '@strata/ledger-key';
import { requireEntryType, requireFunction, requireInteger, requireObject, requireUint32 } from './arguments.js';
import { PageIndex, type PageScanCheck } from './bucket-index/page-index.js';
import { checkQueryKey } from './bucket-index/record-key.js';
import { BucketError } from './errors.js';
import { type BucketKind, DEAD_ENTRY, decodeMeta, HOT_LIVE, kindOps, META, recordType } from './kind.js';
import { NUM_LEVELS } from './levels.js';
import { LoserTree, type LoserTreeInput } from './loser-tree.js';
import { RecordReader } from './record-io.js';

/** What a snapshot needs of a bucket: its file, its index (absent for the empty bucket), and a pin count. */
export interface SnapshotBucket {
  readonly file: { readonly hash: string; readonly path: string | undefined; readonly kind: BucketKind };
  readonly index:
    | {
        readonly typeRanges: ReadonlyMap<number, { readonly start: number; readonly end: number }>;
        lookup(key: Uint8Array): Uint8Array | undefined;
        lookupSorted(keys: readonly Uint8Array[], found: (i: number, payload: Uint8Array) => void): void;
      }
    | undefined;
}

/** A snapshot's slots: 22 (both lists' 11 levels of curr and snap), each a file descriptor and an index or none. */
function checkSlots(slots: unknown, field: string): void {
  if (!Array.isArray(slots) || slots.length !== 2 * NUM_LEVELS) {
    throw new BucketError('INVALID_ARGUMENT', `${field} must be an array of ${2 * NUM_LEVELS} slots`, { field });
  }
  slots.forEach((slot: unknown, i) => {
    requireObject(slot, `${field}[${i}]`);
    requireObject(slot.file, `${field}[${i}].file`);
    if (slot.index !== undefined) requireObject(slot.index, `${field}[${i}].index`);
  });
}

/** Read buffer of each scan cursor: large enough that a scan is a stream of big sequential reads. */
const SCAN_BUFFER_BYTES = 1 << 20;
/** Smallest read buffer: a METAENTRY record (at most 20 bytes) and then some. */
const META_READ_BYTES = 4096;

export class BucketListSnapshot {
  private released = false;

  /**
   * @param live the live list's 22 slots newest first (L0 curr, L0 snap, L1 curr, …, L10 snap)
   * @param hotArchive the hot archive's 22 slots, same order
   * @param onRelease called once by `release()` (unpins the buckets)
   */
  constructor(
    readonly ledger: number,
    readonly live: readonly SnapshotBucket[],
    readonly hotArchive: readonly SnapshotBucket[],
    private readonly onRelease: () => void,
  ) {
    requireUint32(ledger, 'ledger');
    checkSlots(live, 'live');
    checkSlots(hotArchive, 'hotArchive');
    requireFunction(onRelease, 'onRelease');
  }

  /** Unpins the snapshot's buckets; the snapshot may not be used afterwards. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }

  /** The newest live LedgerEntry for `key` (LedgerKey XDR) at this ledger, or undefined. */
  load(key: Uint8Array): Uint8Array | undefined {
    return pointLoad(this.usable().live, key, DEAD_ENTRY);
  }

  /** The archived entry for `key` in the hot archive at this ledger, or undefined. */
  loadHotArchive(key: Uint8Array): Uint8Array | undefined {
    return pointLoad(this.usable().hotArchive, key, HOT_LIVE);
  }

  /**
   * Bulk load (stellar-core loadKeys): the newest live entry of each key, aligned with `keys` (undefined for absent
   * or deleted keys). Keys are sorted once; each bucket is searched forward once for the keys still unresolved, and
   * the walk stops when none are left.
   */
  loadKeys(keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return bulkLoad(this.usable().live, keys, DEAD_ENTRY);
  }

  /** loadKeys over the hot archive. */
  loadHotArchiveKeys(keys: readonly Uint8Array[]): (Uint8Array | undefined)[] {
    return bulkLoad(this.usable().hotArchive, keys, HOT_LIVE);
  }

  /**
   * Every record of LedgerEntryType `type` in the live bucket at `slot` (0 = L0 curr, 1 = L0 snap, …), in file
   * order: INIT, LIVE and DEAD, outdated versions included (stellar-core scanForEntriesOfType; callers shadow). The
   * payload is a view valid during the call.
   */
  scanBucketType(slot: number, type: number, callback: (payload: Uint8Array, offset: number) => void): void {
    const live = this.usable().live;
    requireInteger(slot, 'slot', 0, live.length - 1);
    requireEntryType(type, 'type');
    requireFunction(callback, 'callback');
    const cursor = openTypeCursor(live[slot]!, type);
    if (cursor === undefined) return;
    const { reader, check } = cursor;
    try {
      while (reader.next()) {
        check?.record(reader.buffer, reader.payloadStart, reader.payloadEnd, reader.recordOffset);
        callback(reader.payload, reader.recordOffset);
      }
    } finally {
      reader.close();
    }
  }

  /**
   * The protocol version of the live bucket at `slot` (0 = L0 curr, 1 = L0 snap, …) as stellar-core's
   * getBucketVersion gives it: its METAENTRY's ledgerVersion, 0 for the empty bucket and for a bucket without META
   * (before protocol 11). Reads the file's first record.
   */
  liveBucketProtocolVersion(slot: number): number {
    const live = this.usable().live;
    requireInteger(slot, 'slot', 0, live.length - 1);
    const path = live[slot]!.file.path;
    if (path === undefined) return 0;
    const reader = new RecordReader(path, { bufferSize: META_READ_BYTES });
    try {
      if (!reader.next() || recordType(reader.payload) !== META) return 0;
      return decodeMeta('live', reader.payload, { file: path, offset: 0 }).protocolVersion;
    } finally {
      reader.close();
    }
  }

  /**
   * The records of the live bucket at `slot` in file order from byte `offset` — every record, METAENTRY included (it
   * is the record at 0) — until `maxBytes` bytes have been read (the record that reaches or crosses the budget is read
   * whole) or the file ends. `maxBytes` 0 reads nothing; an offset at or past the end of the file reads nothing.
   * `offset` must be a record boundary (0, or an end this method reported for the same bucket): a reader cannot find
   * records from inside one, and such an offset surfaces as BAD_RECORD_MARK, TRUNCATED or a misread record.
   * `callback(payload, recordOffset, recordEnd)` gets the BucketEntry XDR (a view valid during the call) and the file
   * offsets of its record, mark included. Returns the offset after the last record read (`offset` when none). This is
   * how stellar-core's eviction scan reads a bucket (scanForEvictionInBucket): from the eviction iterator's offset,
   * a byte budget per ledger.
   */
  scanLiveBucketFrom(
    slot: number,
    offset: number,
    maxBytes: number,
    callback: (payload: Uint8Array, recordOffset: number, recordEnd: number) => void,
  ): number {
    const live = this.usable().live;
    requireInteger(slot, 'slot', 0, live.length - 1);
    requireInteger(offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
    requireInteger(maxBytes, 'maxBytes', 0, Number.MAX_SAFE_INTEGER);
    requireFunction(callback, 'callback');
    const path = live[slot]!.file.path;
    if (path === undefined || maxBytes === 0) return offset;
    const bufferSize = Math.min(SCAN_BUFFER_BYTES, Math.max(META_READ_BYTES, maxBytes));
    const reader = new RecordReader(path, { start: offset, bufferSize });
    let end = offset;
    try {
      while (end - offset < maxBytes && reader.next()) {
        end = reader.nextOffset;
        callback(reader.payload, reader.recordOffset, end);
      }
    } finally {
      reader.close();
    }
    return end;
  }

  /**
   * The loser-tree k-way merge of stellar-core PR #5252 (spec §7): calls `callback` exactly once per key of
   * LedgerEntryType `type` whose newest record is INIT or LIVE, with that LedgerEntry (a view, valid during the call),
   * in ascending key order. One cursor per non-empty slot holding the type, each with its own file handle and read
   * buffer (a region of one WebAssembly arena, where the tree runs and ledger-key's comparator orders records in
   * place: see loser-tree.ts); ties go to the newer slot; older versions and keys whose newest record is DEAD emit
   * nothing. Memory is k read buffers, whatever the churn. The buckets are trusted as verified (as merges trust
   * them): keys are not validated again. Returns the number of entries emitted.
   */
  scanCurrentLiveEntries(type: number, callback: (entry: Uint8Array) => void): number {
    requireEntryType(type, 'type');
    requireFunction(callback, 'callback');
    const tree = new LoserTree(typeInputs(this.usable().live, type));
    try {
      let emitted = 0;
      for (let entry = tree.next(); entry !== undefined; entry = tree.next()) {
        callback(entry);
        emitted++;
      }
      return emitted;
    } finally {
      tree.close();
    }
  }

  /**
   * scanCurrentLiveEntries as an async iterator, for consumers that await between entries (other ledgers may close
   * meanwhile: the snapshot keeps answering for its own ledger). Each entry is a view valid until the next step; the
   * cursors close when the loop ends or breaks.
   */
  async *liveEntries(type: number): AsyncGenerator<Uint8Array, void, undefined> {
    requireEntryType(type, 'type');
    const tree = new LoserTree(typeInputs(this.usable().live, type));
    try {
      for (let entry = tree.next(); entry !== undefined; entry = tree.next()) {
        yield entry;
        this.usable();
      }
    } finally {
      tree.close();
    }
  }

  /**
   * BASELINE ONLY — the pre-#5252 way, kept to measure the loser tree against, not for use: raw scans of every bucket
   * newest first, with a set of every key already seen (live or dead) to skip older versions. Emits the same
   * entries, in bucket order rather than key order, and its memory grows with every key the scan meets.
   */
  scanCurrentLiveEntriesBaseline(type: number, callback: (entry: Uint8Array) => void): number {
    requireEntryType(type, 'type');
    requireFunction(callback, 'callback');
    const live = this.usable().live;
    const ops = kindOps('live');
    const seen = new Set<string>();
    let emitted = 0;
    for (let slot = 0; slot < live.length; slot++) {
      this.scanBucketType(slot, type, (payload) => {
        const id = Buffer.from(ops.keyOf(payload)).toString('latin1');
        if (seen.has(id)) return;
        seen.add(id);
        if (recordType(payload) !== DEAD_ENTRY) {
          callback(payload.subarray(4));
          emitted++;
        }
      });
    }
    return emitted;
  }

  private usable(): this {
    if (this.released) throw new BucketError('CLOSED', 'the snapshot was released');
    return this;
  }
}

/**
 * The check of a loaded page index's claims for a scan of `bucket` from `start` (see PageScanCheck): what a scan
 * reads anyway proves or refutes the index, and a refuted index is reported and rebuilt before a lookup trusts it.
 */
function scanCheckOf(bucket: SnapshotBucket, start: number): PageScanCheck | undefined {
  return bucket.index instanceof PageIndex ? bucket.index.scanCheck(start) : undefined;
}

/** Point load over slots newest first: the first bucket holding the key answers; a tombstone means absent. */
export function pointLoad(
  slots: readonly SnapshotBucket[],
  key: Uint8Array,
  tombstone: number,
): Uint8Array | undefined {
  checkQueryKey(key);
  for (const bucket of slots) {
    const payload = bucket.index?.lookup(key);
    if (payload === undefined) continue;
    return recordType(payload) === tombstone ? undefined : payload.subarray(4);
  }
  return undefined;
}

function bulkLoad(
  slots: readonly SnapshotBucket[],
  keys: readonly Uint8Array[],
  tombstone: number,
): (Uint8Array | undefined)[] {
  if (!Array.isArray(keys)) {
    throw new BucketError('INVALID_ARGUMENT', 'keys must be an array of LedgerKeys', { field: 'keys' });
  }
  for (let i = 0; i < keys.length; i++) checkQueryKey(keys[i]!, `keys[${i}]`);
  const results: (Uint8Array | undefined)[] = new Array(keys.length).fill(undefined);
  // Positions sorted by key; equal keys share one lookup (repOf maps each position to the first of its key).
  const order = keys.map((_, i) => i).sort((a, b) => compareLedgerKeys(keys[a]!, keys[b]!) || a - b);
  const repOf = new Int32Array(keys.length);
  let pending: number[] = [];
  for (let i = 0; i < order.length; i++) {
    const at = order[i]!;
    const previous = i > 0 ? order[i - 1]! : -1;
    if (previous >= 0 && compareLedgerKeys(keys[previous]!, keys[at]!) === 0) {
      repOf[at] = repOf[previous]!;
    } else {
      repOf[at] = at;
      pending.push(at);
    }
  }
  for (const bucket of slots) {
    if (pending.length === 0) break;
    if (bucket.index === undefined) continue;
    const found = new Set<number>();
    const batch = pending;
    bucket.index.lookupSorted(
      batch.map((at) => keys[at]!),
      (i, payload) => {
        const at = batch[i]!;
        found.add(at);
        if (recordType(payload) !== tombstone) results[at] = payload.subarray(4);
      },
    );
    if (found.size > 0) pending = batch.filter((at) => !found.has(at));
  }
  for (let at = 0; at < keys.length; at++) if (repOf[at] !== at) results[at] = results[repOf[at]!];
  return results;
}

/** The range of `type`'s records in each slot that has any, newest first, with its index's check (for LoserTree). */
function typeInputs(slots: readonly SnapshotBucket[], type: number): LoserTreeInput[] {
  const inputs: LoserTreeInput[] = [];
  for (const bucket of slots) {
    const range = bucket.index?.typeRanges.get(type);
    if (range === undefined || bucket.file.path === undefined) continue;
    inputs.push({
      path: bucket.file.path,
      start: range.start,
      end: range.end,
      check: scanCheckOf(bucket, range.start),
    });
  }
  return inputs;
}

/** A reader over `type`'s records in `bucket` and its index's check, or undefined when it holds none of them. */
function openTypeCursor(
  bucket: SnapshotBucket,
  type: number,
): { reader: RecordReader; check: PageScanCheck | undefined } | undefined {
  const range = bucket.index?.typeRanges.get(type);
  if (range === undefined || bucket.file.path === undefined) return undefined;
  const reader = new RecordReader(bucket.file.path, {
    start: range.start,
    end: range.end,
    bufferSize: SCAN_BUFFER_BYTES,
  });
  return { reader, check: scanCheckOf(bucket, range.start) };
}
