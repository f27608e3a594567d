// TOIDs (SEP-35) and event id strings `%019d-%010d` (spec §2.1; upstream protocol/cursor.go, toid): formatting,
// strict parsing, and the (ledger, tx, op, event) total order that string order reproduces.
import { checkObject, checkString, describeValue } from './arguments.js';
import { EventsError, EventsErrorCode } from './errors.js';

/** The four coordinates of an event (spec §2.2). */
export interface EventPosition {
  ledger: number;
  tx: number;
  op: number;
  event: number;
}

/** Field limits of a TOID: ledger is a positive int32, tx 20 bits, op 12 bits; event is a uint32. */
export const MAX_LEDGER = 0x7fffffff;
export const TX_MASK = 0xfffff; // 1,048,575: also the AfterAllTxs sentinel
export const OP_MASK = 0xfff; // 4,095: also the AfterTx sentinel
export const MAX_EVENT_INDEX = 0xffffffff;

/** `MaxCursor` (protocol/cursor.go): the largest position; its ledger is replaced for the window-end sentinel. */
export const MAX_POSITION: Readonly<EventPosition> = Object.freeze({
  ledger: MAX_LEDGER,
  tx: TX_MASK,
  op: OP_MASK,
  event: MAX_EVENT_INDEX,
});

function badId(detail: string): never {
  throw new EventsError(EventsErrorCode.BAD_EVENT_ID, detail);
}

/** Longest event id: 19 TOID digits, '-', 10 event-index digits. */
const EVENT_ID_LENGTH = 30;

function inRange(value: unknown, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
}

/** Checks a caller's position: an object whose four fields are integers in their ranges (BAD_EVENT_ID otherwise). */
export function checkPosition(p: EventPosition, field = 'position'): void {
  checkObject(p, field);
  if (!inRange(p.ledger, MAX_LEDGER)) badId(`ledger ${describeValue(p.ledger)} out of range`);
  if (!inRange(p.tx, TX_MASK)) badId(`tx ${describeValue(p.tx)} out of range`);
  if (!inRange(p.op, OP_MASK)) badId(`op ${describeValue(p.op)} out of range`);
  if (!inRange(p.event, MAX_EVENT_INDEX)) badId(`event ${describeValue(p.event)} out of range`);
}

/** `(ledger << 32) | (tx << 12) | op` as a non-negative int64. */
export function toid(ledger: number, tx: number, op: number): bigint {
  checkPosition({ ledger, tx, op, event: 0 });
  return (BigInt(ledger) << 32n) | BigInt(tx * 4096 + op);
}

/** Splits a TOID into (ledger, tx, op). Rejects negative values and values above int64. */
export function parseToid(value: bigint): { ledger: number; tx: number; op: number } {
  if (typeof value !== 'bigint') badId(`TOID ${describeValue(value)} is not a bigint`);
  if (value < 0n || value > 0x7fffffffffffffffn) badId(`TOID ${value} out of range`);
  const low = Number(value & 0xffffffffn);
  return { ledger: Number(value >> 32n), tx: Math.floor(low / 4096), op: low % 4096 };
}

/** The event id string `%019d-%010d` of a position. */
export function formatEventId(p: EventPosition): string {
  checkPosition(p);
  const t = (BigInt(p.ledger) << 32n) | BigInt(p.tx * 4096 + p.op);
  return `${t.toString().padStart(19, '0')}-${p.event.toString().padStart(10, '0')}`;
}

/**
 * The 19-digit TOID text of many (tx, op) pairs of one ledger, cheaper per call than formatting `toid`: extraction
 * formats one per operation with events. With `ledger << 32 = A * 10^9 + B` (exact, once: `high`, `low`), a TOID is
 * `(A + carry) * 10^9 + rest` where `B + ((tx << 12) | op) < 10^9 + 2^32` gives a carry of 0..5, so the high parts
 * are six strings built once and the rest is a small integer. The ledger is checked (a uint32: ledgers past
 * MAX_LEDGER still format, as extraction of such a ledger needs, though no event id holds them); `format` is on the
 * hot path and takes tx < 2^20 and op < 2^12 unchecked, as its callers read them from XDR indices.
 */
export class LedgerToidFormatter {
  /** `ledger << 32 = high * 10^9 + low`, exactly (no bigint: see the constructor). */
  readonly high: number;
  readonly low: number;
  /** The zero-padded text of high + carry for carry 0..5, built on first use. */
  private highDigits: string[] | undefined;

  constructor(readonly ledger: number) {
    if (!inRange(ledger, 0xffffffff)) badId(`ledger ${describeValue(ledger)} is not a uint32`);
    // 2^32 = 4 * 10^9 + 294,967 * 1,000 + 296; every product and sum below stays under 2^53.
    const x = ledger * 294_967;
    const x0 = x % 1_000_000;
    const rest = x0 * 1000 + ledger * 296;
    this.low = rest % 1_000_000_000;
    this.high = ledger * 4 + (x - x0) / 1_000_000 + (rest - this.low) / 1_000_000_000;
  }

  /** The TOID of (tx, op) in this ledger as 19 digits: `toid(ledger, tx, op)` zero-padded. */
  format(tx: number, op: number): string {
    const low = this.low + tx * 4096 + op;
    const carry = Math.floor(low / 1_000_000_000);
    this.highDigits ??= Array.from({ length: 6 }, (_, c) => String(this.high + c).padStart(10, '0'));
    // `!` is safe: low < 10^9 + 2^32, so carry <= 5
    return this.highDigits[carry]! + String(low - carry * 1_000_000_000).padStart(9, '0');
  }
}

const ID_PATTERN = /^(\d{19})-(\d{10})$/;

/**
 * Strict parse of an id this package (or stellar-rpc) formatted: exactly 19 digits, '-', 10 digits, TOID within
 * int64, event within uint32. Use parseV1Cursor for the lenient form the v1 API accepts from clients.
 */
export function parseEventId(id: string): EventPosition {
  checkString(id, 'id');
  if (id.length !== EVENT_ID_LENGTH) badId(`invalid event id ${describeValue(id)}: want %019d-%010d`);
  const m = ID_PATTERN.exec(id);
  if (m === null) badId(`invalid event id ${JSON.stringify(id)}: want %019d-%010d`);
  const event = Number(m[2]);
  if (event > MAX_EVENT_INDEX) badId(`invalid event id ${JSON.stringify(id)}: event index out of range`);
  return { ...parseToid(BigInt(m[1]!)), event };
}

/** Compares positions by (ledger, tx, op, event): negative, zero or positive. Equals string order of the ids. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  checkPosition(a, 'a');
  checkPosition(b, 'b');
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}

/** Compares two id strings in event order. Fixed-width decimal, so plain string comparison is exact. */
export function compareEventIds(a: string, b: string): number {
  checkString(a, 'a');
  checkString(b, 'b');
  return a < b ? -1 : a > b ? 1 : 0;
}
