// Two-way merges of sorted buckets (spec §4) and fresh buckets from a ledger's batch (§4.5). The walk is written three
// times: mergeCursors over a minimal cursor (level 0's in-memory arrays); the WebAssembly loop of wasm-merge-loop.ts over
// the records in its read buffers (file merges of levels ≥ 1, in worker threads: the hot path); and FileMerge, its
// JavaScript twin for pre-11 buckets and records too large for the loop's buffers. All take their decisions from the
// same KindOps (the loop through a table built from it); test/merge.test.ts checks they write the same records.
import { KeyedRecordArena, LEDGER_ENTRY_TYPE, ledgerKeyOfEntry } from '@strata/ledger-key';
import {
  requireBoolean,
  requireBucketFile,
  requireBytesList,
  requireKind,
  requireObject,
  requireOptionalBoolean,
  requireString,
  requireUint32,
} from '../arguments.js';
import {
  type BucketFile,
  BucketOutput,
  type OpenedRecords,
  type OutputOptions,
  openBucketRecords,
} from '../bucket-file.js';
import { comparePrefixes, compareRecordsAt, int32At, recordKeyPrefix } from '../bucket-index/record-key.js';
import { BucketError, entryError } from '../errors.js';
import {
  ANNIHILATED,
  type BucketKind,
  bucketRecord,
  DEAD_ENTRY,
  FIRST_PROTOCOL_INIT_AND_META,
  HOT_ARCHIVED,
  HOT_LIVE,
  INIT_ENTRY,
  type KindOps,
  kindOps,
  LIVE_ENTRY,
  recordType,
  retyped,
} from '../kind.js';
import { MAX_RECORD_BYTES, type RecordReader } from '../record-io.js';
import { WRITE_BEHIND_CHUNK } from '../write-behind.js';
import { MERGE_LOOP_ARENA_BYTES, MERGE_LOOP_REGION, MergeLoop } from './wasm-merge-loop.js';

/** What the merge loop needs of an input: the current payload (undefined at the end) and a step. */
export interface MergeCursor {
  readonly current: Uint8Array | undefined;
  advance(): void;
}

/** A cursor over an array of payloads (level 0's in-memory entries). */
export class ArrayCursor implements MergeCursor {
  current: Uint8Array | undefined;
  private at = 0;
  constructor(private readonly payloads: readonly Uint8Array[]) {
    this.current = payloads[0];
  }
  advance(): void {
    this.current = this.payloads[++this.at];
  }
}

/**
 * The two-pointer walk of stellar-core's mergeInternal: the smaller key is emitted; equal keys go through the kind's
 * case table. `older` is the level's curr, `newer` the incoming (younger) bucket. Inputs are records validated when
 * they entered the list (a verified bucket file, a checked batch), so only their keys are compared.
 */
export function mergeCursors(
  ops: KindOps,
  older: MergeCursor,
  newer: MergeCursor,
  emit: (payload: Uint8Array, type: number) => void,
): void {
  // Each side's key prefix (type and first 8 bytes of the first key field) decides most comparisons of interleaved
  // inputs with three word compares; only equal prefixes go to the comparator.
  const prefixes = new Uint32Array(6);
  let o = older.current;
  let n = newer.current;
  if (o !== undefined) recordKeyPrefix(o, 0, o.length, prefixes, 0);
  if (n !== undefined) recordKeyPrefix(n, 0, n.length, prefixes, 3);
  for (;;) {
    if (o === undefined) {
      if (n === undefined) return;
      emit(n, recordType(n));
      newer.advance();
      n = newer.current;
      continue;
    }
    if (n === undefined) {
      emit(o, recordType(o));
      older.advance();
      o = older.current;
      continue;
    }
    let order = comparePrefixes(prefixes, 3, prefixes, 0);
    if (order === 0) order = ops.compareKeys(n, o);
    if (order <= 0) {
      if (order < 0) emit(n, recordType(n));
      else {
        const type = ops.mergeEqual(recordType(o), recordType(n));
        if (type !== ANNIHILATED) emit(n, type);
        older.advance();
        o = older.current;
        if (o !== undefined) recordKeyPrefix(o, 0, o.length, prefixes, 0);
      }
      newer.advance();
      n = newer.current;
      if (n !== undefined) recordKeyPrefix(n, 0, n.length, prefixes, 3);
    } else {
      emit(o, recordType(o));
      older.advance();
      o = older.current;
      if (o !== undefined) recordKeyPrefix(o, 0, o.length, prefixes, 0);
    }
  }
}

export interface MergeOptions extends OutputOptions {
  /** The ledger protocol at merge start; an input bucket of a newer protocol is an error. */
  maxProtocolVersion: number;
  /** Rename the output to its final name (default true); false leaves it at its temporary `path`. */
  publish?: boolean;
  /** Bytes of each input's read buffer (default 1 MiB; a record larger than the buffer grows it). For tests and tuning. */
  readBufferSize?: number;
}

/** Each input's read buffer in a file merge (by default). */
const DEFAULT_READ_BUFFER = MERGE_LOOP_REGION;

/**
 * This thread's WebAssembly merge loop (see wasm-merge-loop.ts), created at the first file merge and kept; undefined while
 * a merge holds it (merges are synchronous, so that is only ever one).
 */
let idleLoop: MergeLoop | undefined;
let loopCreated = false;

function takeLoop(): MergeLoop | undefined {
  if (!loopCreated) {
    let arena: KeyedRecordArena | undefined;
    try {
      arena = new KeyedRecordArena(MERGE_LOOP_ARENA_BYTES);
    } catch {
      // No WebAssembly memory to be had (an embedder without wasm, or none left): FileMerge does the work.
    }
    // An arena the loop cannot run in (another ABI version) is a broken install: thrown by every merge, not hidden.
    if (arena !== undefined) idleLoop = new MergeLoop(arena);
    loopCreated = true;
  }
  const loop = idleLoop;
  idleLoop = undefined;
  return loop;
}

/**
 * Input bytes from which a file merge hashes and writes its output on a helper thread: below it, the hand-off costs
 * more than it overlaps (a few chunks), and level-1..3 merges stay on one thread.
 */
export const WRITE_BEHIND_MIN_INPUT = 8 * WRITE_BEHIND_CHUNK;

/** Protocol of a merge's output: the newer of the inputs' (spec §4.1; shadows do not exist from protocol 12). */
export function mergeProtocolVersion(older: number, newer: number, maxProtocolVersion: number): number {
  const version = Math.max(older, newer);
  if (version > maxProtocolVersion) {
    throw new BucketError('PROTOCOL', `merging buckets of protocol ${version} at protocol ${maxProtocolVersion}`);
  }
  return version;
}

/**
 * Merges two bucket files into a new bucket file in `dir` (streaming; memory is two read buffers and one write buffer).
 * The same walk as mergeCursors, specialised to record positions in the readers' buffers (see FileMerge).
 */
export function mergeBucketFiles(dir: string, older: BucketFile, newer: BucketFile, options: MergeOptions): BucketFile {
  requireString(dir, 'dir');
  requireBucketFile(older, 'older');
  requireBucketFile(newer, 'newer');
  requireObject(options, 'options');
  requireUint32(options.maxProtocolVersion, 'options.maxProtocolVersion');
  for (const flag of ['keepTombstones', 'fsync', 'writeBehind', 'publish'] as const) {
    requireOptionalBoolean(options[flag], `options.${flag}`);
  }
  if (older.kind !== newer.kind) throw new BucketError('INVALID_ARGUMENT', 'merging buckets of different kinds');
  const bufferSize = options.readBufferSize;
  if (
    bufferSize !== undefined &&
    !(Number.isSafeInteger(bufferSize) && bufferSize >= 4 && bufferSize <= MAX_RECORD_BYTES)
  ) {
    throw new BucketError(
      'INVALID_ARGUMENT',
      `readBufferSize ${bufferSize} is not an integer in [4, ${MAX_RECORD_BYTES}]`,
      {
        field: 'readBufferSize',
      },
    );
  }
  const size = bufferSize ?? DEFAULT_READ_BUFFER;
  const loop = size <= MERGE_LOOP_REGION ? takeLoop() : undefined;
  try {
    if (loop !== undefined) {
      const merged = mergeFiles(dir, older, newer, options, size, loop);
      if (merged !== undefined) return merged;
      // A record larger than the loop's buffers: start over in JavaScript, which grows them.
    }
    return mergeFiles(dir, older, newer, options, size, undefined)!;
  } finally {
    if (loop !== undefined) idleLoop = loop;
  }
}

/**
 * One attempt at mergeBucketFiles: in the WebAssembly loop when given one and the inputs are of protocol 11 or later
 * (undefined when a record does not fit its buffers; nothing is left behind), else with FileMerge.
 */
function mergeFiles(
  dir: string,
  older: BucketFile,
  newer: BucketFile,
  options: MergeOptions,
  bufferSize: number,
  loop: MergeLoop | undefined,
): BucketFile | undefined {
  const ops = kindOps(older.kind);
  const keepTombstones = options.keepTombstones ?? true;
  let oldRecords: OpenedRecords | undefined;
  let newRecords: OpenedRecords | undefined;
  let output: BucketOutput | undefined;
  try {
    const readOptions = (input: 0 | 1) =>
      loop === undefined ? { bufferSize } : { buffer: loop.inputBuffer(input, bufferSize) };
    oldRecords = openBucketRecords(older, readOptions(0));
    newRecords = openBucketRecords(newer, readOptions(1));
    const version = mergeProtocolVersion(
      oldRecords.protocolVersion,
      newRecords.protocolVersion,
      options.maxProtocolVersion,
    );
    const writeBehind = options.writeBehind ?? older.size + newer.size >= WRITE_BEHIND_MIN_INPUT;
    const out = new BucketOutput(dir, older.kind, version, { ...options, writeBehind });
    output = out;
    if (loop !== undefined && version >= FIRST_PROTOCOL_INIT_AND_META) {
      if (!loop.run(ops, oldRecords, newRecords, out, keepTombstones)) {
        output = undefined;
        out.abort();
        return undefined;
      }
    } else {
      const merge = new FileMerge(ops, out, version, keepTombstones);
      try {
        merge.run(oldRecords, newRecords);
      } catch (error) {
        const where = error instanceof BucketError ? error : undefined;
        if (where?.code === 'MERGE_CONFLICT') {
          const offset = newRecords.reader?.recordOffset;
          throw new BucketError('MERGE_CONFLICT', where.detail, {
            ...(newer.path === undefined ? {} : { file: newer.path }),
            ...(offset === undefined || offset < 0 ? {} : { offset }),
          });
        }
        entryError(error, undefined, -1);
      }
    }
    return out.finish({ publish: options.publish ?? true });
  } catch (error) {
    output?.abort();
    throw error;
  } finally {
    oldRecords?.reader?.close();
    newRecords?.reader?.close();
  }
}

/** The current record's payload as a view (the constructor form: about twice as fast as `subarray` in V8). */
function viewOf(reader: RecordReader): Uint8Array {
  const buffer = reader.buffer;
  return new Uint8Array(
    buffer.buffer,
    buffer.byteOffset + reader.payloadStart,
    reader.payloadEnd - reader.payloadStart,
  );
}

/**
 * mergeCursors over two RecordReaders without a view per record: keys are ordered by their prefixes read in place,
 * and when prefixes tie by compareRecordsAt, also in place (both inputs come from verified buckets). The JavaScript
 * twin of the WebAssembly loop (wasm-merge-loop.ts): it merges buckets of protocols before 11 (whose records go through
 * BucketOutput.put, which enforces that era's type rules) and inputs with a record larger than the loop's buffers. Output is copied
 * in runs: consecutive records of one input that go out unchanged (or retyped: the new discriminant is written into
 * the read buffer first, which the merge owns) extend a pending byte range of that input's buffer, copied to the
 * writer when the run breaks, at the end, or just before that reader refills its buffer (which would invalidate
 * the range). Records a rule drops (annihilated pairs, tombstones at the bottom level, the older of two equal keys)
 * break runs by leaving a gap. Before protocol 11 each record goes through BucketOutput.put instead, which enforces that era's type rules.
 */
class FileMerge {
  private readonly prefixes = new Uint32Array(6);
  private readonly dropTombstones: boolean;
  private readonly checked: boolean;
  // The pending run: bytes [runStart, runEnd) of runReader's buffer, runRecords whole records.
  private runReader: RecordReader | undefined = undefined;
  private runStart = 0;
  private runEnd = 0;
  private runRecords = 0;

  constructor(
    private readonly ops: KindOps,
    private readonly out: BucketOutput,
    protocolVersion: number,
    keepTombstones: boolean,
  ) {
    this.dropTombstones = !keepTombstones;
    this.checked = protocolVersion < FIRST_PROTOCOL_INIT_AND_META;
  }

  run(oldRecords: OpenedRecords, newRecords: OpenedRecords): void {
    const older = oldRecords.reader;
    const newer = newRecords.reader;
    const flush = (): void => this.flushRun();
    let hasOld = older !== undefined && oldRecords.atEntry;
    let hasNew = newer !== undefined && newRecords.atEntry;
    if (older !== undefined) older.beforeRefill = flush;
    if (newer !== undefined) newer.beforeRefill = flush;
    const ops = this.ops;
    const prefixes = this.prefixes;
    if (hasOld) recordKeyPrefix(older!.buffer, older!.payloadStart, older!.payloadEnd, prefixes, 0);
    if (hasNew) recordKeyPrefix(newer!.buffer, newer!.payloadStart, newer!.payloadEnd, prefixes, 3);
    while (hasOld && hasNew) {
      const o = older!;
      const n = newer!;
      let order = comparePrefixes(prefixes, 3, prefixes, 0);
      if (order === 0) order = compareRecordsAt(n.buffer, n.payloadStart, o.buffer, o.payloadStart);
      if (order <= 0) {
        if (order < 0) this.emit(n, int32At(n.buffer, n.payloadStart));
        else {
          const type = ops.mergeEqual(int32At(o.buffer, o.payloadStart), int32At(n.buffer, n.payloadStart));
          if (type !== ANNIHILATED) this.emit(n, type);
          hasOld = o.next();
          if (hasOld) recordKeyPrefix(o.buffer, o.payloadStart, o.payloadEnd, prefixes, 0);
        }
        hasNew = n.next();
        if (hasNew) recordKeyPrefix(n.buffer, n.payloadStart, n.payloadEnd, prefixes, 3);
      } else {
        this.emit(o, int32At(o.buffer, o.payloadStart));
        hasOld = o.next();
        if (hasOld) recordKeyPrefix(o.buffer, o.payloadStart, o.payloadEnd, prefixes, 0);
      }
    }
    // One input is exhausted: the rest of the other goes out as it is (runs of up to a read buffer).
    for (; hasOld; hasOld = older!.next()) this.emit(older!, int32At(older!.buffer, older!.payloadStart));
    for (; hasNew; hasNew = newer!.next()) this.emit(newer!, int32At(newer!.buffer, newer!.payloadStart));
    this.flushRun();
  }

  /** Writes `reader`'s current record with discriminant `type` (or drops it, for a tombstone at the bottom level). */
  private emit(reader: RecordReader, type: number): void {
    if (this.dropTombstones && this.ops.isTombstone(type)) return;
    const buffer = reader.buffer;
    const payloadStart = reader.payloadStart;
    if (this.checked) {
      this.out.put(viewOf(reader), type);
      return;
    }
    if (int32At(buffer, payloadStart) !== type) {
      buffer[payloadStart] = type >>> 24;
      buffer[payloadStart + 1] = (type >>> 16) & 0xff;
      buffer[payloadStart + 2] = (type >>> 8) & 0xff;
      buffer[payloadStart + 3] = type & 0xff;
    }
    const markStart = payloadStart - 4;
    if (reader === this.runReader && markStart === this.runEnd) {
      this.runEnd = reader.payloadEnd;
      this.runRecords++;
      return;
    }
    this.flushRun();
    this.runReader = reader;
    this.runStart = markStart;
    this.runEnd = reader.payloadEnd;
    this.runRecords = 1;
  }

  private flushRun(): void {
    const reader = this.runReader;
    if (reader === undefined) return;
    this.runReader = undefined;
    this.out.putRun(reader.buffer, this.runStart, this.runEnd, this.runRecords);
  }
}

/**
 * Merges two in-memory arrays of record payloads, each sorted ascending by key without repeats (the case table
 * decides equal keys; `older` is the level's curr). Every payload is validated and the order checked: BAD_ENTRY,
 * INVALID_ARGUMENT.
 */
export function mergeArrays(
  kind: BucketKind,
  older: readonly Uint8Array[],
  newer: readonly Uint8Array[],
  keepTombstones = true,
): Uint8Array[] {
  requireKind(kind, 'kind');
  const ops = kindOps(kind);
  checkSortedRecords(ops, older, 'older');
  checkSortedRecords(ops, newer, 'newer');
  requireBoolean(keepTombstones, 'keepTombstones');
  return mergeSortedArrays(kind, older, newer, keepTombstones);
}

/** Validates every payload of `records` and that their keys strictly ascend. */
function checkSortedRecords(ops: KindOps, records: unknown, field: string): asserts records is readonly Uint8Array[] {
  requireBytesList(records, field);
  for (let i = 0; i < records.length; i++) {
    try {
      ops.validate(records[i]!);
    } catch (error) {
      entryError(error, undefined, 4);
    }
    if (i > 0 && ops.compareKeys(records[i - 1]!, records[i]!) >= 0) {
      throw new BucketError('INVALID_ARGUMENT', `${field} must ascend by key without repeats`, {
        field: `${field}[${i}]`,
      });
    }
  }
}

/** mergeArrays over payloads known to be valid and sorted (level 0: a verified bucket's and a checked batch's). */
export function mergeSortedArrays(
  kind: BucketKind,
  older: readonly Uint8Array[],
  newer: readonly Uint8Array[],
  keepTombstones = true,
): Uint8Array[] {
  const ops = kindOps(kind);
  const out: Uint8Array[] = [];
  mergeCursors(ops, new ArrayCursor(older), new ArrayCursor(newer), (payload, type) => {
    if (keepTombstones || !ops.isTombstone(type))
      out.push(type === recordType(payload) ? payload : retyped(payload, type));
  });
  return out;
}

/** One ledger's changes to the live list: created entries, updated entries, deleted keys (all XDR). */
export interface LiveBatch {
  init: readonly Uint8Array[];
  live: readonly Uint8Array[];
  dead: readonly Uint8Array[];
}

/** One ledger's changes to the hot archive: evicted persistent entries, and keys restored from the archive. */
export interface HotArchiveBatch {
  archived: readonly Uint8Array[];
  restored: readonly Uint8Array[];
}

/** A LiveBatch's shape: an object with `init`, `live` and `dead` arrays of Uint8Arrays. */
export function checkLiveBatch(batch: unknown, field: string): asserts batch is LiveBatch {
  requireObject(batch, field);
  requireBytesList(batch.init, `${field}.init`);
  requireBytesList(batch.live, `${field}.live`);
  requireBytesList(batch.dead, `${field}.dead`);
}

/** A HotArchiveBatch's shape: an object with `archived` and `restored` arrays of Uint8Arrays. */
export function checkHotArchiveBatch(batch: unknown, field: string): asserts batch is HotArchiveBatch {
  requireObject(batch, field);
  requireBytesList(batch.archived, `${field}.archived`);
  requireBytesList(batch.restored, `${field}.restored`);
}

/** Sorts, validates and checks for duplicate keys; `what` names the batch lists for the error. */
function sortedUnique(ops: KindOps, payloads: Uint8Array[], what: string): Uint8Array[] {
  for (let i = 0; i < payloads.length; i++) {
    try {
      ops.validate(payloads[i]!);
    } catch (error) {
      entryError(error, undefined, 4);
    }
  }
  payloads.sort(ops.compareKeys);
  for (let i = 1; i < payloads.length; i++) {
    if (ops.compareKeys(payloads[i - 1]!, payloads[i]!) === 0) {
      throw new BucketError('INVALID_ARGUMENT', `a key appears twice in the ${what} of one ledger`);
    }
  }
  return payloads;
}

/**
 * The sorted BucketEntry payloads of a fresh live bucket (LiveBucket::fresh): INIT (LIVE before protocol 11) for
 * created entries, LIVE for updated ones, DEAD for deleted keys; no key may appear twice.
 */
export function freshLiveEntries(protocolVersion: number, batch: LiveBatch): Uint8Array[] {
  requireUint32(protocolVersion, 'protocolVersion');
  checkLiveBatch(batch, 'batch');
  const initType = protocolVersion >= FIRST_PROTOCOL_INIT_AND_META ? INIT_ENTRY : LIVE_ENTRY;
  const payloads: Uint8Array[] = [];
  for (const entry of batch.init) payloads.push(bucketRecord(initType, entry));
  for (const entry of batch.live) payloads.push(bucketRecord(LIVE_ENTRY, entry));
  for (const key of batch.dead) payloads.push(bucketRecord(DEAD_ENTRY, key));
  return sortedUnique(kindOps('live'), payloads, 'init/live/dead lists');
}

const { CONTRACT_DATA, CONTRACT_CODE } = LEDGER_ENTRY_TYPE;

/** The key type of a Soroban key or entry (the hot archive takes nothing else). */
function requireSoroban(key: Uint8Array, what: string): void {
  const type = (key[0]! << 24) | (key[1]! << 16) | (key[2]! << 8) | key[3]!;
  if (type !== CONTRACT_DATA && type !== CONTRACT_CODE) {
    throw new BucketError(
      'INVALID_ARGUMENT',
      `the hot archive takes CONTRACT_DATA and CONTRACT_CODE only (${what} of type ${type})`,
    );
  }
}

/** The sorted payloads of a fresh hot-archive bucket: ARCHIVED for evicted persistent entries, LIVE for restored keys. */
export function freshHotArchiveEntries(batch: HotArchiveBatch): Uint8Array[] {
  checkHotArchiveBatch(batch, 'hotBatch');
  const payloads: Uint8Array[] = [];
  for (const entry of batch.archived) {
    let key: Uint8Array;
    try {
      key = ledgerKeyOfEntry(entry);
    } catch (error) {
      entryError(error, undefined, 0);
    }
    requireSoroban(key, 'archived entry');
    payloads.push(bucketRecord(HOT_ARCHIVED, entry));
  }
  for (const key of batch.restored) {
    if (key.length >= 4) requireSoroban(key, 'restored key');
    payloads.push(bucketRecord(HOT_LIVE, key));
  }
  return sortedUnique(kindOps('hot-archive'), payloads, 'archived/restored lists');
}
