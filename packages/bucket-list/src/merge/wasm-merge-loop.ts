// The driver of the WebAssembly merge loop (src/merge-loop.wat, compiled into src/merge-loop-wasm.ts): the hot path of
// file merges from protocol 11 on. The loop runs in a KeyedRecordArena of @strata/ledger-key with three regions —
// the older input's read buffer, the newer input's, and an output window — and stops whenever one of them needs the
// driver: an input is refilled from its file, the output window is handed to the writer in one copy, and every
// status that is not progress becomes the BucketError the JavaScript merge would throw (same code, file and offset).
//
// The loop's rules come from the kind's KindOps (the equal-key case table, which type is a tombstone), tabulated once
// per merge, so kind.ts stays the one place they are written. A record larger than a region (1 MiB; real entries are
// at most a few hundred KiB) stops the loop: the caller starts the merge over with the JavaScript FileMerge, which
// grows its buffers.
import { assert } from '@strata/base';
import type { KeyedRecordArena } from '@strata/ledger-key';
import type { BucketOutput, OpenedRecords } from '../bucket-file.js';
import { int32At, KEY_RECORD } from '../bucket-index/record-key.js';
import { BucketError } from '../errors.js';
import { ANNIHILATED, type KindOps } from '../kind.js';
import { MERGE_LOOP_WASM_BASE64 } from '../merge-loop-wasm.js';
import type { RecordReader } from '../record-io.js';

/** Bytes of each region: either input's read buffer (at most), and the output window. */
export const MERGE_LOOP_REGION = 1 << 20;
/** Bytes of the arena the loop runs in: its three regions. */
export const MERGE_LOOP_ARENA_BYTES = 3 * MERGE_LOOP_REGION;

/**
 * The KeyedRecordArena contract (ledger-key's KEYED_RECORD_ARENA_ABI_VERSION) merge-loop.wat is written for: the
 * memory layout, where `arena.bytes` starts, and compareKeyedAt's signature and meaning. A literal on purpose, not
 * the imported constant: when ledger-key changes the contract, this check must fail until the loop is brought up to
 * date, instead of following the new number and misreading the memory.
 */
export const MERGE_LOOP_ARENA_ABI = 1;

type Global<T> = WebAssembly.Global<T>;
interface LoopExports {
  readonly a: Global<number>;
  readonly aEnd: Global<number>;
  readonly aDone: Global<number>;
  readonly b: Global<number>;
  readonly bEnd: Global<number>;
  readonly bDone: Global<number>;
  readonly out: Global<number>;
  readonly outEnd: Global<number>;
  readonly records: Global<number>;
  readonly cases: Global<bigint>;
  readonly drop: Global<number>;
  readonly keyRecord: Global<number>;
  readonly step: () => number;
}

/** The statuses of the loop's `step` (see merge-loop.wat). */
const STATUS = {
  NEED_A: 0,
  NEED_B: 1,
  OUT_FULL: 2,
  DONE: 3,
  BAD_MARK_A: 4,
  BAD_MARK_B: 5,
  TRUNCATED_A: 6,
  TRUNCATED_B: 7,
  CONFLICT: 8,
  BAD_TYPE_A: 9,
  BAD_TYPE_B: 10,
} as const;

/** The case table's codes besides record types 0..2. */
const CASE_ANNIHILATED = 4;
const CASE_CONFLICT = 5;
/** Record types the tabulated rules cover (both kinds' non-META discriminants). */
const RECORD_TYPES = [0, 1, 2];

let compiled: WebAssembly.Module | undefined;

/** One input of the loop: where its reader is, which globals are its. */
interface Side {
  readonly reader: RecordReader | undefined;
  readonly at: Global<number>;
  readonly end: Global<number>;
  readonly done: Global<number>;
}

/**
 * One thread's merge loop: an arena of three regions and the loop instantiated in it. Reused merge after merge (the
 * caller keeps one per thread and never runs two merges on it at once).
 */
export class MergeLoop {
  private readonly loop: LoopExports;
  private readonly base: number;

  /**
   * `arena`: at least MERGE_LOOP_ARENA_BYTES (created by the caller, so that running out of WebAssembly memory is the
   * caller's to handle). An arena of another ABI version is refused (an AssertionError: the installed ledger-key is
   * not the one this package was built with); one without an `abiVersion` import fails to link.
   */
  constructor(private readonly arena: KeyedRecordArena) {
    assert(
      arena.abiVersion === MERGE_LOOP_ARENA_ABI,
      () =>
        `the KeyedRecordArena has ABI version ${arena.abiVersion}; the merge loop is written for version ` +
        `${MERGE_LOOP_ARENA_ABI} (install the @strata/ledger-key this @strata/bucket-list was built with)`,
    );
    assert(arena.bytes.length >= MERGE_LOOP_ARENA_BYTES, 'the merge loop needs an arena of three regions');
    compiled ??= new WebAssembly.Module(Buffer.from(MERGE_LOOP_WASM_BASE64, 'base64'));
    this.loop = new WebAssembly.Instance(compiled, { arena: this.arena.imports }).exports as unknown as LoopExports;
    this.loop.keyRecord.value = KEY_RECORD;
    this.base = this.arena.bytes.byteOffset;
  }

  /** Read buffer of `size` bytes (at most MERGE_LOOP_REGION) for the older (0) or the newer (1) input. */
  inputBuffer(input: 0 | 1, size: number): Uint8Array {
    const start = input * MERGE_LOOP_REGION;
    return this.arena.bytes.subarray(start, start + Math.min(size, MERGE_LOOP_REGION));
  }

  /**
   * Merges two inputs opened into this loop's input buffers (readers on their first entries) into `out`, dropping
   * tombstones unless `keepTombstones`. Returns false when a record does not fit a region: part of the output may
   * have been written, and the caller starts over with the JavaScript merge. Throws BucketError for malformed input.
   */
  run(ops: KindOps, older: OpenedRecords, newer: OpenedRecords, out: BucketOutput, keepTombstones: boolean): boolean {
    const loop = this.loop;
    loop.cases.value = caseTable(ops);
    let drop = 1 << CASE_ANNIHILATED;
    if (!keepTombstones) for (const type of RECORD_TYPES) if (ops.isTombstone(type)) drop |= 1 << type;
    loop.drop.value = drop;
    const a: Side = { reader: older.reader, at: loop.a, end: loop.aEnd, done: loop.aDone };
    const b: Side = { reader: newer.reader, at: loop.b, end: loop.bEnd, done: loop.bDone };
    if (!this.start(a, older.atEntry) || !this.start(b, newer.atEntry)) return false;
    const outStart = this.base + 2 * MERGE_LOOP_REGION;
    loop.out.value = outStart;
    loop.outEnd.value = outStart + MERGE_LOOP_REGION;
    loop.records.value = 0;
    const drain = (): void => {
      out.putRun(this.arena.bytes, outStart - this.base, loop.out.value - this.base, loop.records.value);
      loop.out.value = outStart;
      loop.records.value = 0;
    };
    for (;;) {
      const status = loop.step();
      switch (status) {
        case STATUS.NEED_A:
        case STATUS.NEED_B:
          if (!this.refill(status === STATUS.NEED_A ? a : b)) return false;
          break;
        case STATUS.OUT_FULL:
          if (loop.out.value === outStart) return false; // one record larger than the whole window
          drain();
          break;
        case STATUS.DONE:
          drain();
          return true;
        case STATUS.CONFLICT: {
          // The case table forbade the pair: let the kind say why, with the newer record's place.
          const olderType = this.int32(loop.a.value + 4);
          const newerType = this.int32(loop.b.value + 4);
          let detail = `records of types ${olderType} and ${newerType} with one key`;
          try {
            ops.mergeEqual(olderType, newerType);
          } catch (error) {
            if (!(error instanceof BucketError)) throw error;
            detail = error.detail;
          }
          throw new BucketError('MERGE_CONFLICT', detail, this.where(b));
        }
        default:
          throw this.inputError(status, a, b);
      }
    }
  }

  /** Points the loop at an input's first entry; false when that entry already left the arena (too large). */
  private start(side: Side, atEntry: boolean): boolean {
    const reader = side.reader;
    if (reader === undefined || !atEntry) {
      side.at.value = 0;
      side.end.value = 0;
      side.done.value = 1;
      return true;
    }
    if (reader.buffer.buffer !== this.arena.bytes.buffer) return false;
    const buffer = reader.buffer.byteOffset;
    side.at.value = buffer + reader.payloadStart - 4;
    side.end.value = buffer + reader.bufferedBytes;
    side.done.value = 0;
    return true;
  }

  /** Reads more of an input from its next record on; false when that record is larger than the whole buffer. */
  private refill(side: Side): boolean {
    const reader = side.reader!;
    const buffer = reader.buffer.byteOffset;
    const at = side.at.value;
    if (side.end.value - at === reader.buffer.length) return false;
    const read = reader.refillFrom(reader.bufferFileStart + (at - buffer));
    side.at.value = buffer;
    side.end.value = buffer + reader.bufferedBytes;
    if (read === 0) side.done.value = 1;
    return true;
  }

  private inputError(status: number, a: Side, b: Side): BucketError {
    const onA = status === STATUS.BAD_MARK_A || status === STATUS.TRUNCATED_A || status === STATUS.BAD_TYPE_A;
    const side = onA ? a : b;
    const where = this.where(side);
    const at = side.at.value;
    if (status === STATUS.BAD_MARK_A || status === STATUS.BAD_MARK_B) {
      const mark = this.int32(at) >>> 0;
      return new BucketError('BAD_RECORD_MARK', `record mark 0x${mark.toString(16).padStart(8, '0')}`, where);
    }
    if (status === STATUS.TRUNCATED_A || status === STATUS.TRUNCATED_B) {
      return new BucketError('TRUNCATED', 'record runs past the end of the file', where);
    }
    if (status === STATUS.BAD_TYPE_A || status === STATUS.BAD_TYPE_B) {
      return new BucketError('BAD_ENTRY', `record of type ${this.int32(at + 4)} among the entries`, where);
    }
    return new BucketError('INVALID_ARGUMENT', `merge loop status ${status}`);
  }

  /** File and offset of an input's next record. */
  private where(side: Side): { file: string; offset: number } {
    const reader = side.reader!;
    return { file: reader.path, offset: reader.bufferFileStart + (side.at.value - reader.buffer.byteOffset) };
  }

  /** The big-endian int32 at a loop address. */
  private int32(address: number): number {
    return int32At(this.arena.bytes, address - this.base);
  }
}

/** The kind's equal-key rules as the loop's 4-bit codes (see merge-loop.wat). */
function caseTable(ops: KindOps): bigint {
  let table = 0n;
  for (const older of RECORD_TYPES) {
    for (const newer of RECORD_TYPES) {
      let code: number;
      try {
        const type = ops.mergeEqual(older, newer);
        code = type === ANNIHILATED ? CASE_ANNIHILATED : type;
      } catch (error) {
        if (!(error instanceof BucketError && error.code === 'MERGE_CONFLICT')) throw error;
        code = CASE_CONFLICT;
      }
      table |= BigInt(code) << BigInt((older * 4 + newer) * 4);
    }
  }
  return table;
}
