// Two-way merges of sorted buckets (spec §4) and fresh buckets from a ledger's batch (§4.5). The merge loop is written
// once over a minimal cursor, and runs over files (levels ≥ 1, in worker threads) or over arrays (level 0, in memory).
import { LEDGER_ENTRY_TYPE, ledgerKeyOfEntry } from '@strata/ledger-key';
import { type BucketFile, BucketInput, BucketOutput, type OutputOptions } from './bucket-file.js';
import { BucketError, entryError } from './errors.js';
import { comparePrefixes, recordKeyPrefix } from './index/record-key.js';
import {
  ANNIHILATED,
  type BucketKind,
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
} from './kind.js';

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
        const type = ops.mergeEqual(o, n);
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
}

/** Protocol of a merge's output: the newer of the inputs' (spec §4.1; shadows do not exist from protocol 12). */
export function mergeProtocolVersion(older: number, newer: number, maxProtocolVersion: number): number {
  const version = Math.max(older, newer);
  if (version > maxProtocolVersion) {
    throw new BucketError('PROTOCOL', `merging buckets of protocol ${version} at protocol ${maxProtocolVersion}`);
  }
  return version;
}

/** Merges two bucket files into a new bucket file in `dir` (streaming; memory is two read buffers and one write buffer). */
export function mergeBucketFiles(dir: string, older: BucketFile, newer: BucketFile, options: MergeOptions): BucketFile {
  if (older.kind !== newer.kind) throw new BucketError('INVALID_ARGUMENT', 'merging buckets of different kinds');
  const ops = kindOps(older.kind);
  const oldInput = new BucketInput(older);
  const newInput = new BucketInput(newer);
  let output: BucketOutput | undefined;
  try {
    const version = mergeProtocolVersion(
      oldInput.protocolVersion,
      newInput.protocolVersion,
      options.maxProtocolVersion,
    );
    const out = new BucketOutput(dir, older.kind, version, options);
    output = out;
    try {
      mergeCursors(ops, oldInput, newInput, (payload, type) => out.put(payload, type));
    } catch (error) {
      const where = error instanceof BucketError ? error : undefined;
      if (where?.code === 'MERGE_CONFLICT') {
        throw new BucketError('MERGE_CONFLICT', where.detail, {
          file: newer.path ?? '',
          offset: newInput.offset,
        });
      }
      entryError(error, undefined, -1);
    }
    return out.finish({ publish: options.publish ?? true });
  } catch (error) {
    output?.abort();
    throw error;
  } finally {
    oldInput.close();
    newInput.close();
  }
}

/** Merges two sorted in-memory payload arrays (level 0). */
export function mergeArrays(
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

function tagged(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out[3] = type; // types here are 0..2: the high bytes stay zero
  out.set(body, 4);
  return out;
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
  const initType = protocolVersion >= FIRST_PROTOCOL_INIT_AND_META ? INIT_ENTRY : LIVE_ENTRY;
  const payloads: Uint8Array[] = [];
  for (const entry of batch.init) payloads.push(tagged(initType, entry));
  for (const entry of batch.live) payloads.push(tagged(LIVE_ENTRY, entry));
  for (const key of batch.dead) payloads.push(tagged(DEAD_ENTRY, key));
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
  const payloads: Uint8Array[] = [];
  for (const entry of batch.archived) {
    let key: Uint8Array;
    try {
      key = ledgerKeyOfEntry(entry);
    } catch (error) {
      entryError(error, undefined, 0);
    }
    requireSoroban(key, 'archived entry');
    payloads.push(tagged(HOT_ARCHIVED, entry));
  }
  for (const key of batch.restored) {
    if (key.length >= 4) requireSoroban(key, 'restored key');
    payloads.push(tagged(HOT_LIVE, key));
  }
  return sortedUnique(kindOps('hot-archive'), payloads, 'archived/restored lists');
}
