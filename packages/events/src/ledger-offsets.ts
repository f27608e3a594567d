// LedgerOffsets (spec §3.2): per-ledger cumulative event counts of one chunk, mapping ledger ranges to windows of
// chunk-relative ordinals and ordinals back to ledgers; plus its compact, versioned byte encoding (FORMAT.md).

import { badArgument, checkBytes, describeValue } from './arguments.js';
import { chunkIdOfLedger } from './chunk.js';
import { EventsError, EventsErrorCode } from './errors.js';

/**
 * Encoding versions of LedgerOffsets. 1: version u8, startLedger u32 BE, N u32 BE, then N per-ledger counts as
 * unsigned LEB128 varints. (Strata's own encoding; upstream's cold events.pack uses version 0x02 with intpack
 * FOR groups, which the cold tier may adopt separately.)
 */
export const LEDGER_OFFSETS_FORMAT_VERSION = 1;

/** A half-open window of chunk-relative ordinals `[start, end)`. */
export interface OrdinalWindow {
  start: number;
  end: number;
}

/**
 * Immutable after construction: a request takes one LedgerOffsets snapshot at entry and every window it computes
 * comes from that snapshot, which is what gives a page snapshot isolation against concurrent ingest.
 */
export class LedgerOffsets {
  readonly startLedger: number;
  /** cumulative[i] = events in ledgers startLedger..startLedger+i (inclusive). */
  private readonly cumulative: Uint32Array;

  private constructor(startLedger: number, cumulative: Uint32Array) {
    this.startLedger = startLedger;
    this.cumulative = cumulative;
  }

  /** From per-ledger counts (not cumulative) starting at `startLedger`; all ledgers must lie in one chunk. */
  static fromCounts(startLedger: number, counts: ArrayLike<number>): LedgerOffsets {
    const chunk = chunkIdOfLedger(startLedger);
    if (typeof counts !== 'object' || counts === null || !Number.isSafeInteger(counts.length) || counts.length < 0) {
      badArgument('counts', `expected an array of counts, got ${describeValue(counts)}`);
    }
    if (counts.length > 0 && chunkIdOfLedger(startLedger + counts.length - 1) !== chunk) {
      badArgument('counts', `ledgers ${startLedger}..${startLedger + counts.length - 1} span more than one chunk`);
    }
    const cumulative = new Uint32Array(counts.length);
    let total = 0;
    for (let i = 0; i < counts.length; i++) {
      const c = counts[i]!;
      if (typeof c !== 'number' || !Number.isInteger(c) || c < 0) {
        badArgument('counts', `count ${describeValue(c)} at ledger ${startLedger + i}`);
      }
      total += c;
      if (total > 0xffffffff) badArgument('counts', 'more than 2^32-1 events in one chunk');
      cumulative[i] = total;
    }
    return new LedgerOffsets(startLedger, cumulative);
  }

  /** Number of ledgers covered. */
  get ledgerCount(): number {
    return this.cumulative.length;
  }
  /** Last covered ledger (inclusive); startLedger - 1 when empty. */
  get lastLedger(): number {
    return this.startLedger + this.cumulative.length - 1;
  }
  /** Total events (= the exclusive end ordinal of the last ledger). */
  get eventCount(): number {
    return this.cumulative.length === 0 ? 0 : this.cumulative[this.cumulative.length - 1]!;
  }

  private index(ledger: number): number {
    const i = typeof ledger === 'number' ? ledger - this.startLedger : -1;
    if (!Number.isInteger(ledger) || i < 0 || i >= this.cumulative.length) {
      badArgument('ledger', `ledger ${describeValue(ledger)} outside ${this.startLedger}..${this.lastLedger}`);
    }
    return i;
  }

  /** Events stored for `ledger`. */
  countOf(ledger: number): number {
    const i = this.index(ledger);
    return this.cumulative[i]! - (i === 0 ? 0 : this.cumulative[i - 1]!);
  }

  /** First ordinal of `ledger`. */
  firstOrdinal(ledger: number): number {
    const i = this.index(ledger);
    return i === 0 ? 0 : this.cumulative[i - 1]!;
  }

  /** Ordinal window `[first(from), end(to))` of the inclusive ledger range from..to (IDRangeForLedgers). */
  windowForLedgers(from: number, to: number): OrdinalWindow {
    const a = this.index(from);
    const b = this.index(to);
    if (b < a) badArgument('to', `ledger range ${from}..${to} is empty`);
    return { start: a === 0 ? 0 : this.cumulative[a - 1]!, end: this.cumulative[b]! };
  }

  /** The ledger holding `ordinal` (binary search for the first cumulative count above it). */
  ledgerOfOrdinal(ordinal: number): number {
    if (typeof ordinal !== 'number' || !Number.isInteger(ordinal) || ordinal < 0 || ordinal >= this.eventCount) {
      badArgument('ordinal', `ordinal ${describeValue(ordinal)} outside [0, ${this.eventCount})`);
    }
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! > ordinal) hi = mid;
      else lo = mid + 1;
    }
    return this.startLedger + lo;
  }

  /** Per-ledger counts, a fresh array. */
  counts(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.cumulative.length; i++) out.push(this.countOf(this.startLedger + i));
    return out;
  }

  /** A copy covering only the first `ledgerCount` ledgers (a snapshot of an older, shorter state). */
  prefix(ledgerCount: number): LedgerOffsets {
    if (
      typeof ledgerCount !== 'number' ||
      !Number.isInteger(ledgerCount) ||
      ledgerCount < 0 ||
      ledgerCount > this.cumulative.length
    ) {
      badArgument('ledgerCount', `${describeValue(ledgerCount)} outside 0..${this.cumulative.length}`);
    }
    return new LedgerOffsets(this.startLedger, this.cumulative.slice(0, ledgerCount));
  }

  /** The compact encoding (FORMAT.md §LedgerOffsets). */
  encode(): Uint8Array {
    const counts = this.counts();
    const out = new Uint8Array(9 + counts.length * 5);
    out[0] = LEDGER_OFFSETS_FORMAT_VERSION;
    const dv = new DataView(out.buffer);
    dv.setUint32(1, this.startLedger);
    dv.setUint32(5, counts.length);
    let p = 9;
    for (let c of counts) {
      // LEB128: 7 bits per byte, high bit = more follows. Most ledgers hold < 128 events → one byte each.
      while (c >= 0x80) {
        out[p++] = (c & 0x7f) | 0x80;
        c = Math.floor(c / 128);
      }
      out[p++] = c;
    }
    return out.slice(0, p);
  }

  /** Decodes `encode()` output, strictly: known version, exact length, canonical varints, counts within a chunk. */
  static decode(bytes: Uint8Array): LedgerOffsets {
    const fail = (code: EventsErrorCode, offset: number, detail: string): never => {
      throw new EventsError(code, detail, { offset, field: 'LedgerOffsets' });
    };
    checkBytes(bytes, 'bytes');
    if (bytes.length < 1) fail(EventsErrorCode.TRUNCATED, 0, 'empty');
    if (bytes[0] !== LEDGER_OFFSETS_FORMAT_VERSION) fail(EventsErrorCode.UNKNOWN_VERSION, 0, `version ${bytes[0]}`);
    if (bytes.length < 9) fail(EventsErrorCode.TRUNCATED, bytes.length, 'header truncated');
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const startLedger = dv.getUint32(1);
    const n = dv.getUint32(5);
    if (n > bytes.length - 9) fail(EventsErrorCode.TRUNCATED, 5, `${n} counts cannot fit ${bytes.length - 9} bytes`);
    const counts: number[] = [];
    let p = 9;
    for (let i = 0; i < n; i++) {
      let value = 0;
      let scale = 1;
      for (let k = 0; ; k++) {
        if (p >= bytes.length) fail(EventsErrorCode.TRUNCATED, p, `count ${i} truncated`);
        const byte = bytes[p++]!;
        // A u32 needs at most 5 groups; a zero final group after the first is a non-canonical (padded) varint.
        if (k === 4 && byte > 0x0f) fail(EventsErrorCode.LENGTH_MISMATCH, p - 1, `count ${i} exceeds u32`);
        if (k > 0 && byte === 0) fail(EventsErrorCode.LENGTH_MISMATCH, p - 1, `count ${i} is not canonical`);
        value += (byte & 0x7f) * scale;
        scale *= 128;
        if ((byte & 0x80) === 0) break;
      }
      counts.push(value);
    }
    if (p !== bytes.length) fail(EventsErrorCode.LENGTH_MISMATCH, p, `${bytes.length - p} trailing bytes`);
    try {
      return LedgerOffsets.fromCounts(startLedger, counts);
    } catch (error) {
      throw new EventsError(EventsErrorCode.LENGTH_MISMATCH, (error as Error).message, {
        offset: 1,
        field: 'LedgerOffsets',
        cause: error,
      });
    }
  }
}
