// The loser tree of the current-live-entries scan (stellar-core PR #5252, spec §7.1): a k-way merge over one cursor
// per bucket, newest first, that yields each key's newest version once, skipping tombstones. The snapshot
// (snapshot.ts) says which type range of which bucket file each cursor reads; the tree opens the readers and reads
// them in key order.
//
// Records are ordered where they lie, by their keys, with ledger-key's in-place comparator: each cursor reads into
// its own region of one KeyedRecordArena (WebAssembly memory), and the merge itself runs in WebAssembly in the same
// memory (src/loser-tree.wat): per record a mark check, the replay of its path and direct calls of the comparator
// (TTL keys, each a 32-byte hash ordered as bytes, the loop orders itself: a third of the TTL scan was the calls). No
// order key is built per record and nothing is copied (building order keys, then the JavaScript bookkeeping around
// each comparison, were most of the scan's time: a CONTRACT_DATA key is a tree of small SCVal nodes). The buckets of
// a snapshot are verified (hash-checked, every entry validated when they entered the list), so, as in the merges,
// keys are not validated again.
//
// The same tree also runs in JavaScript, on the same arrays: from the start when no WebAssembly memory can be had
// (or a cursor's first record does not fit its region), and from the point where a record larger than its region
// turns up (its reader then moves to a buffer of its own, and records outside the arena are ordered by the
// JavaScript comparator: the same order).
import { assert } from '@strata/base';
import { KeyedRecordArena, LedgerKeyError } from '@strata/ledger-key';
import { PageScanCheck } from './bucket-index/page-index.js';
import { compareRecordsAt, int32At, KEY_RECORD } from './bucket-index/record-key.js';
import { BucketError } from './errors.js';
import { DEAD_ENTRY } from './kind.js';
import { LOSER_TREE_WASM_BASE64 } from './loser-tree-wasm.js';
import { RecordReader } from './record-io.js';

/** One input of the tree: the records [start, end) of one type in one bucket file, and its index's scan check. */
export interface LoserTreeInput {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly check: PageScanCheck | undefined;
}

export interface LoserTreeOptions {
  /**
   * Bytes of each cursor's read buffer (its arena region; a multiple of 8; default 256 KiB: a scan is a stream of
   * big sequential reads, and larger regions only made the arena larger). Small regions are for tests: records larger
   * than a region move the tree to JavaScript.
   */
  readonly regionBytes?: number;
  /** false: no arena, every comparison in JavaScript (tests; also what happens when no wasm memory can be had). */
  readonly arena?: boolean;
  /** false: the tree runs in JavaScript from the start, comparing in the arena (tests). */
  readonly loop?: boolean;
}

/**
 * Each cursor's read buffer by default: larger than any Soroban entry (a few hundred KiB at most; a larger record
 * only moves the tree to JavaScript). Measured on a population's scans (10 M bucket entries, 11 cursors): 256 KiB
 * regions took ~3% less CPU than 1 MiB ones (fewer cache misses; the reads are as sequential) and ~8 MiB less memory.
 */
export const LOSER_TREE_REGION_BYTES = 1 << 18;

/**
 * The KeyedRecordArena contract (ledger-key's KEYED_RECORD_ARENA_ABI_VERSION) loser-tree.wat is written for. A
 * literal on purpose, not the imported constant: when ledger-key changes the contract, this check must fail until
 * the loop is brought up to date (see MERGE_LOOP_ARENA_ABI).
 */
export const LOSER_TREE_ARENA_ABI = 1;

/** The statuses of the loop's `step` (see loser-tree.wat). */
const STATUS = { ENTRY: 0, DONE: 1, NEED: 2, CHECK: 3, BAD_MARK: 4, TRUNCATED: 5, BAD_TYPE: 6 } as const;

/** The loop's cursor table (see loser-tree.wat): bytes per cursor, and its fields as i32 / f64 indexes. */
const CURSOR_BYTES = 64;
const AT = 0;
const END = 1;
const DONE = 2;
const LEN = 3;
const IS_ENTRY = 4;
const HAS_CHECK = 5;
const SHIFT = 6;
const FILE_BASE = 4;
const QUIET_BEFORE = 5;
const QUIET_END_BEFORE = 6;

type Global = WebAssembly.Global<number>;
interface LoopExports {
  readonly n: Global;
  readonly cursors: Global;
  readonly tree: Global;
  readonly ties: Global;
  readonly multiplier: Global;
  readonly keyRecord: Global;
  readonly adv: Global;
  readonly phase: Global;
  readonly candidate: Global;
  readonly repeated: Global;
  readonly cursor: Global;
  readonly step: () => number;
}

let compiled: WebAssembly.Module | undefined;

/** The loop running in an arena, and views of its cursor table. */
interface Loop {
  readonly exports: LoopExports;
  readonly words: Int32Array;
  readonly floats: Float64Array;
  /** All of the arena's memory (addresses are indexes). */
  readonly memory: Uint8Array;
}

/**
 * The loser tree over one cursor per slot (spec §7.1). Leaves t[n..2n) hold cursor indices (-1 when exhausted);
 * internal nodes t[1..n) the loser of the match played there; t[0] the winner. "a beats b": an exhausted cursor
 * never wins; otherwise the smaller key, and on equal keys the smaller index (the newer bucket).
 *
 * Older versions are skipped without comparing anything more: each internal node also notes whether its loser's key
 * equals the key of the winner that went up from it. The winner went up through every node of its own path, and any
 * other cursor at the same (smallest) key is the loser stored at the node where its subtree meets that path, so the
 * next winner has the winner's key exactly when a node of the winner's path notes a tie (spec §7.1's "compare with
 * the last key taken", answered by the matches already played). Not thread-safe; an entry it returns is a view of
 * its cursor's read buffer, valid until the next call (the cursor moves on then).
 */
export class LoserTree {
  private readonly readers: RecordReader[] = [];
  /** Each cursor's check of its bucket's loaded index (undefined for indexes built from the bucket). */
  private readonly checks: (PageScanCheck | undefined)[] = [];
  private readonly tree: Int32Array;
  /** Per internal node: 1 when its stored loser's key equals that of the winner that went up from it. */
  private readonly tie: Int32Array;
  private readonly n: number;
  /**
   * Each cursor's current record for the JavaScript tree: the absolute wasm address of its LedgerEntry / LedgerKey
   * (after the discriminant), or -1 when the record is not in the arena; and 1 for an entry, 0 for a key.
   */
  private readonly address: Int32Array;
  private readonly isEntry: Int32Array;
  /** The arena's comparator on absolute addresses (ledger-key's compareKeyedAt; see KeyedRecordArenaImports). */
  private readonly compareAt: ((pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number) | undefined;
  private readonly memory: ArrayBufferLike | undefined;
  /** The WebAssembly loop while it runs the tree; undefined when JavaScript does. */
  private loop: Loop | undefined;
  /** The arena the tree runs in (handed on to the next tree by `close`). */
  private arena: KeyedRecordArena | undefined;
  private closed = false;
  /** JavaScript tree: the current winner's key equals that of the winner before it (an older version: skipped). */
  private repeated = false;
  /** JavaScript tree: the cursor whose record the last call returned; it moves on at the next call. */
  private pending = -1;

  /**
   * `inputs`: one per bucket, newest first. The tree opens a reader for each and owns them: `close` closes them (and
   * a constructor that fails closes what it opened).
   */
  constructor(inputs: readonly LoserTreeInput[], options: LoserTreeOptions = {}) {
    const n = inputs.length;
    this.n = n;
    const regionBytes = options.regionBytes ?? LOSER_TREE_REGION_BYTES;
    assert(Number.isSafeInteger(regionBytes) && regionBytes > 0 && regionBytes % 8 === 0, 'regions of 8-byte units');
    this.address = new Int32Array(n).fill(-1);
    this.isEntry = new Int32Array(n);
    const treeLength = Math.max(2 * n, 1);
    const tieLength = Math.max(n, 1);
    // The arena: the loop's cursor table, the tree and its ties, then one region per cursor.
    const tieAt = CURSOR_BYTES * n + 4 * treeLength;
    const control = (tieAt + 4 * tieLength + 7) & ~7;
    const arena = n > 0 && options.arena !== false ? takeArena(control + n * regionBytes, control) : undefined;
    this.arena = arena;
    this.compareAt = arena?.imports.compareKeyedAt;
    this.memory = arena?.bytes.buffer;
    if (arena === undefined) {
      this.tree = new Int32Array(treeLength);
      this.tie = new Int32Array(tieLength);
    } else {
      this.tree = new Int32Array(arena.bytes.buffer, arena.bytes.byteOffset + CURSOR_BYTES * n, treeLength);
      this.tie = new Int32Array(arena.bytes.buffer, arena.bytes.byteOffset + tieAt, tieLength);
    }
    this.tree.fill(-1);
    try {
      inputs.forEach((input, j) => {
        const region = arena?.bytes.subarray(control + j * regionBytes, control + (j + 1) * regionBytes);
        this.readers.push(
          new RecordReader(input.path, {
            start: input.start,
            end: input.end,
            ...(region === undefined ? { bufferSize: regionBytes } : { buffer: region }),
          }),
        );
        this.checks.push(input.check);
      });
      for (let j = 0; j < n; j++) this.tree[n + j] = this.advance(j) ? j : -1;
      if (n > 0) this.tree[0] = this.build(1);
      if (arena !== undefined && options.loop !== false && this.address.every((at, j) => at >= 0 || !this.has(j))) {
        this.loop = this.startLoop(arena);
      }
    } catch (error) {
      this.close();
      throw orderError(error);
    }
  }

  /** Which implementation runs the tree now (WebAssembly until a record outgrows its region). */
  get engine(): 'wasm' | 'javascript' {
    return this.loop === undefined ? 'javascript' : 'wasm';
  }

  /** The next live entry (a view valid until the next call), or undefined when every cursor is done. */
  next(): Uint8Array | undefined {
    // the arena may be another tree's by now
    assert(!this.closed, 'a closed loser tree is not read');
    try {
      return this.loop === undefined ? this.step() : this.loopStep(this.loop);
    } catch (error) {
      throw orderError(error);
    }
  }

  /** Closes the readers and hands the arena on to the next tree (see idleArena). Idempotent. */
  close(): void {
    for (const reader of this.readers) reader.close();
    if (this.closed) return;
    this.closed = true;
    const arena = this.arena;
    this.arena = undefined;
    if (arena !== undefined && (idleArena?.deref()?.bytes.length ?? -1) < arena.bytes.length) {
      idleArena = new WeakRef(arena);
    }
  }

  // --- the tree in WebAssembly ---

  /** Instantiates the loop in the arena and hands it the tree as built (each cursor on its first record). */
  private startLoop(arena: KeyedRecordArena): Loop {
    assert(
      arena.abiVersion === LOSER_TREE_ARENA_ABI,
      () =>
        `the KeyedRecordArena has ABI version ${arena.abiVersion}; the loser-tree loop is written for version ` +
        `${LOSER_TREE_ARENA_ABI} (install the @strata/ledger-key this @strata/bucket-list was built with)`,
    );
    compiled ??= new WebAssembly.Module(Buffer.from(LOSER_TREE_WASM_BASE64, 'base64'));
    const exports = new WebAssembly.Instance(compiled, { arena: arena.imports }).exports as unknown as LoopExports;
    const base = arena.bytes.byteOffset;
    const n = this.n;
    const loop: Loop = {
      exports,
      words: new Int32Array(arena.bytes.buffer, base, (CURSOR_BYTES / 4) * n),
      floats: new Float64Array(arena.bytes.buffer, base, (CURSOR_BYTES / 8) * n),
      memory: new Uint8Array(arena.bytes.buffer),
    };
    exports.n.value = n;
    exports.cursors.value = base;
    exports.tree.value = this.tree.byteOffset;
    exports.ties.value = this.tie.byteOffset;
    exports.multiplier.value = PageScanCheck.sampleMultiplier;
    exports.keyRecord.value = KEY_RECORD;
    for (let j = 0; j < n; j++) {
      if (!this.has(j)) continue;
      const reader = this.readers[j]!;
      const region = reader.buffer.byteOffset;
      const w = (CURSOR_BYTES / 4) * j;
      loop.words[w + AT] = region + reader.payloadStart - 4;
      loop.words[w + END] = region + reader.bufferedBytes;
      loop.words[w + DONE] = 0;
      loop.words[w + LEN] = reader.payloadEnd - reader.payloadStart;
      loop.words[w + IS_ENTRY] = this.isEntry[j]!;
      loop.floats[(CURSOR_BYTES / 8) * j + FILE_BASE] = reader.bufferFileStart - region;
      this.setCheckLimits(loop, j);
    }
    return loop;
  }

  private loopStep(loop: Loop): Uint8Array | undefined {
    for (;;) {
      // the status in the low 3 bits, the cursor it is about above them (reading the `cursor` global costs more)
      const result = loop.exports.step();
      const status = result & 7;
      const j = result >> 3;
      switch (status) {
        case STATUS.ENTRY: {
          const w = (CURSOR_BYTES / 4) * j;
          // The payload after its discriminant: the LedgerEntry.
          return new Uint8Array(loop.memory.buffer, loop.words[w + AT]! + 8, loop.words[w + LEN]! - 4);
        }
        case STATUS.DONE:
          return undefined;
        case STATUS.NEED:
          if (!this.refill(loop, j)) return this.leaveLoop(loop, j);
          break;
        case STATUS.CHECK: {
          const w = (CURSOR_BYTES / 4) * j;
          const at = loop.words[w + AT]!;
          const payloadEnd = at + 4 + loop.words[w + LEN]!;
          this.checks[j]!.record(loop.memory, at + 4, payloadEnd, this.fileOffset(loop, j, at));
          this.setCheckLimits(loop, j);
          break;
        }
        default:
          throw this.loopError(loop, status, j);
      }
    }
  }

  /** Reads more of cursor j's range from its next record on; false when that record is larger than the region. */
  private refill(loop: Loop, j: number): boolean {
    const reader = this.readers[j]!;
    const w = (CURSOR_BYTES / 4) * j;
    const region = reader.buffer.byteOffset;
    const at = loop.words[w + AT]!;
    if (loop.words[w + END]! - at === reader.buffer.length) return false;
    const read = reader.refillFrom(this.fileOffset(loop, j, at));
    loop.words[w + AT] = region;
    loop.words[w + END] = region + reader.bufferedBytes;
    if (read === 0) loop.words[w + DONE] = 1;
    loop.floats[(CURSOR_BYTES / 8) * j + FILE_BASE] = reader.bufferFileStart - region;
    return true;
  }

  /**
   * The record cursor j is to read next does not fit its region: the JavaScript tree takes over, on the same tree
   * and ties. Each other cursor's reader is put back on its current record; j's reads its next one (into a buffer
   * of its own) as the JavaScript tree replaces the winner j was.
   */
  private leaveLoop(loop: Loop, j: number): Uint8Array | undefined {
    for (let i = 0; i < this.n; i++) {
      if (i !== j && !this.has(i)) continue;
      const reader = this.readers[i]!;
      reader.seek(this.fileOffset(loop, i, loop.words[(CURSOR_BYTES / 4) * i + AT]!));
      if (i === j) continue;
      assert(reader.next(), 'a reader put back on its current record reads it');
      this.load(i);
    }
    this.loop = undefined;
    this.pending = -1;
    this.replaceWinner(j);
    return this.step();
  }

  /** Shows the loop where cursor j's records must go to its page check (nowhere once its index was rebuilt). */
  private setCheckLimits(loop: Loop, j: number): void {
    const check = this.checks[j];
    const w = (CURSOR_BYTES / 4) * j;
    const f = (CURSOR_BYTES / 8) * j;
    if (check === undefined || !check.active) {
      loop.words[w + HAS_CHECK] = 0;
      return;
    }
    loop.words[w + HAS_CHECK] = 1;
    loop.words[w + SHIFT] = check.sampleShift;
    loop.floats[f + QUIET_BEFORE] = check.quietBefore;
    loop.floats[f + QUIET_END_BEFORE] = check.quietEndBefore;
  }

  /** The file offset of address `at` in cursor j's region. */
  private fileOffset(loop: Loop, j: number, at: number): number {
    return loop.floats[(CURSOR_BYTES / 8) * j + FILE_BASE]! + at;
  }

  private loopError(loop: Loop, status: number, j: number): BucketError {
    const at = loop.words[(CURSOR_BYTES / 4) * j + AT]!;
    const where = { file: this.readers[j]!.path, offset: this.fileOffset(loop, j, at) };
    if (status === STATUS.BAD_MARK) {
      const mark = int32At(loop.memory, at) >>> 0;
      return new BucketError('BAD_RECORD_MARK', `record mark 0x${mark.toString(16).padStart(8, '0')}`, where);
    }
    if (status === STATUS.TRUNCATED) return new BucketError('TRUNCATED', 'record runs past its type range', where);
    if (status === STATUS.BAD_TYPE) {
      return new BucketError('BAD_ENTRY', `record of type ${int32At(loop.memory, at + 4)} among the entries`, where);
    }
    return new BucketError('INVALID_ARGUMENT', `loser-tree loop status ${status}`);
  }

  // --- the tree in JavaScript ---

  private step(): Uint8Array | undefined {
    if (this.pending >= 0) {
      this.replaceWinner(this.pending);
      this.pending = -1;
    }
    for (;;) {
      const w = this.tree[0]!;
      if (w < 0) return undefined;
      if (!this.repeated) {
        // The newest version of a new key: returned unless it is a tombstone.
        const reader = this.readers[w]!;
        const buffer = reader.buffer;
        const start = reader.payloadStart;
        if (buffer[start + 3] !== DEAD_ENTRY || buffer[start] !== 0) {
          this.pending = w;
          return new Uint8Array(buffer.buffer, buffer.byteOffset + start + 4, reader.payloadEnd - start - 4);
        }
      }
      this.replaceWinner(w);
    }
  }

  /**
   * Replaces the winner w by its cursor's next record and replays its path to the root (the same walk as
   * loser-tree.wat's $replay). The ties w's path noted spare comparisons: a stored loser tied with w has w's key K,
   * one not tied a key above K, and the candidate's key is above K (w's bucket holds each key once) until it meets a
   * loser at K, whose key it then carries. Two keys known to be on different sides of K, or both at K, are ordered
   * without looking at them; only two keys above K are compared. Any tie on the path also means the new winner has
   * K (an older version, to skip).
   */
  private replaceWinner(w: number): void {
    const t = this.tree;
    const tie = this.tie;
    let repeated = 0;
    let candidate = this.advance(w) ? w : -1;
    let candidateAtK = 0;
    t[this.n + w] = candidate;
    for (let i = (this.n + w) >> 1; i >= 1; i >>= 1) {
      const storedAtK = tie[i]!;
      repeated |= storedAtK;
      const stored = t[i]!;
      // Candidate against stored; an exhausted cursor orders last and ties nothing.
      let order: number;
      if (candidateAtK === 1) order = storedAtK === 1 ? 0 : -1;
      else if (storedAtK === 1) order = 1;
      else order = stored < 0 ? -1 : candidate < 0 ? 1 : this.order(candidate, stored);
      if (order > 0 || (order === 0 && stored < candidate)) {
        t[i] = candidate;
        candidate = stored;
        candidateAtK = storedAtK;
      }
      tie[i] = order === 0 ? 1 : 0;
    }
    t[0] = candidate;
    this.repeated = repeated === 1;
  }

  private build(node: number): number {
    if (node >= this.n) return this.tree[node]!;
    const left = this.build(2 * node);
    const right = this.build(2 * node + 1);
    const order = left < 0 ? 1 : right < 0 ? -1 : this.order(left, right);
    this.tie[node] = order === 0 && left >= 0 ? 1 : 0;
    if (order < 0 || (order === 0 && left < right)) {
      this.tree[node] = right;
      return left;
    }
    this.tree[node] = left;
    return right;
  }

  /** Whether cursor j has a current record (its leaf is not exhausted). */
  private has(j: number): boolean {
    return this.tree[this.n + j]! >= 0;
  }

  /** Moves cursor j to its next record, shows it to the check and notes where it lies; false when j is done. */
  private advance(j: number): boolean {
    const reader = this.readers[j]!;
    if (!reader.next()) return false;
    this.checks[j]?.record(reader.buffer, reader.payloadStart, reader.payloadEnd, reader.recordOffset);
    this.load(j);
    return true;
  }

  /** Notes where cursor j's reader's current record lies. */
  private load(j: number): void {
    const reader = this.readers[j]!;
    const buffer = reader.buffer;
    const start = reader.payloadStart;
    this.isEntry[j] = int32At(buffer, start) === KEY_RECORD ? 0 : 1;
    // A reader whose record outgrew its region reads into a plain buffer from then on.
    this.address[j] = buffer.buffer === this.memory ? buffer.byteOffset + start + 4 : -1;
  }

  /** Order of cursor a's record and cursor b's, by key. */
  private order(a: number, b: number): number {
    const pa = this.address[a]!;
    const pb = this.address[b]!;
    if ((pa | pb) >= 0) return this.compareAt!(pa, this.isEntry[a]!, pb, this.isEntry[b]!);
    const ra = this.readers[a]!;
    const rb = this.readers[b]!;
    return compareRecordsAt(ra.buffer, ra.payloadStart, rb.buffer, rb.payloadStart);
  }
}

/**
 * The arena of the last tree closed, for the next tree to run in. A scan reads into every page of its cursors'
 * regions, and a population runs three scans back to back: with an arena of its own each, two or three of them
 * stayed resident at the population's peak until the garbage collector freed the old ones (~11 MiB each with 1 MiB
 * regions). Held weakly: the collector may still free it once no tree holds it.
 */
let idleArena: WeakRef<KeyedRecordArena> | undefined;

/**
 * The idle arena when it has `bytes` (its first `control` bytes, the loop's tables, zeroed as in a new one), else a
 * new arena; undefined when no WebAssembly memory can be had.
 */
function takeArena(bytes: number, control: number): KeyedRecordArena | undefined {
  const idle = idleArena?.deref();
  if (idle !== undefined && idle.bytes.length >= bytes) {
    idleArena = undefined;
    idle.bytes.fill(0, 0, control);
    return idle;
  }
  return openArena(bytes);
}

/** An arena of `bytes`, or undefined when no WebAssembly memory can be had (the JavaScript comparator then orders). */
function openArena(bytes: number): KeyedRecordArena | undefined {
  try {
    return new KeyedRecordArena(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Records of a verified bucket that do not compare (the wasm comparator ran off its memory, or the JavaScript one
 * found malformed XDR): the bucket file changed after it was verified. BAD_ENTRY; other errors pass through.
 */
function orderError(error: unknown): unknown {
  if (error instanceof WebAssembly.RuntimeError || error instanceof LedgerKeyError) {
    return new BucketError('BAD_ENTRY', `records of the scanned buckets do not compare: ${error.message}`, {
      cause: error,
    });
  }
  return error;
}
