// The getEventsV2 cursor token (spec §4.7; upstream query/event_cursor.go): "gec" + version digits + "_" +
// base64url-nopad(body). Strict decode (one token = one body, re-encodes byte-identically), version in clear text,
// 1 MiB cap. The body carries the query scope, the last delivered position and the scanned-ledger watermark.
import { badArgument, checkArray, checkObject, checkString, describeValue } from './arguments.js';
import { EventsError, EventsErrorCode } from './errors.js';
import type { EventPosition } from './event-id.js';
import { checkClauses, type StorageFilter } from './filter.js';
import { MAX_TOPIC_POSITIONS } from './terms.js';

/** Cursor token versions. 1: the layout in FORMAT.md (flags, ledgers, position, watermark, filters). */
export const CURSOR_VERSION = 1;
export const CURSOR_PREFIX = 'gec1_';
/** Longest token accepted or minted (maxCursorBytes). */
export const MAX_CURSOR_BYTES = 1 << 20;
/** Most filters a cursor holds (maxCursorFilters; equals the v2 request cap, can only grow). */
export const MAX_CURSOR_FILTERS = 256;

// Envelope flags.
const FLAG_DESCENDING = 1 << 0;
const FLAG_HAS_MAX = 1 << 1;
const FLAG_HAS_POSITION = 1 << 2;
const FLAGS_KNOWN = FLAG_DESCENDING | FLAG_HAS_MAX | FLAG_HAS_POSITION;
// Filter flags: bit0 contract, bits1-4 topic0-3, bit5 type, bit6 count, bit7 exact (spec §4.7).
const FF_CONTRACT = 1 << 0;
const FF_TYPE = 1 << 5;
const FF_COUNT = 1 << 6;
const FF_EXACT = 1 << 7;
const topicBit = (i: number): number => 1 << (1 + i);

/** The last delivered event: its coordinates and its index among its ledger's stored events. */
export interface CursorPosition extends EventPosition {
  ledgerOrdinal: number;
}

/** The envelope inside a v2 cursor. */
export interface EventCursorV2 {
  minLedger: number;
  /** Absent = open ascending scope following the tip. Descending cursors always carry one. */
  maxLedger?: number;
  descending: boolean;
  filters: readonly StorageFilter[];
  position?: CursorPosition;
  /** Last fully covered ledger; 0 = none. */
  scannedLedger: number;
}

/** MALFORMED_CURSOR; `offset` is into the decoded body, when the problem is at a byte of it. */
function malformed(detail: string, offset?: number): never {
  throw new EventsError(
    EventsErrorCode.MALFORMED_CURSOR,
    detail,
    offset === undefined ? { field: 'cursor' } : { offset, field: 'cursor' },
  );
}

function checkU32(v: number, what: string): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) {
    badArgument('cursor', `${what} ${describeValue(v)} is not a u32`);
  }
}

/** Encodes an envelope; fails (INVALID_ARGUMENT) on anything decode would reject, so bad mints fail at mint. */
export function encodeCursorV2(cursor: EventCursorV2): string {
  const bad = (detail: string): never => badArgument('cursor', detail);
  checkObject(cursor, 'cursor');
  if (typeof cursor.descending !== 'boolean') bad('descending must be a boolean');
  checkArray(cursor.filters, 'cursor.filters');
  if (cursor.filters.length > MAX_CURSOR_FILTERS) bad(`${cursor.filters.length} filters exceed ${MAX_CURSOR_FILTERS}`);
  checkClauses(cursor.filters, 'cursor.filters');
  if (cursor.position !== undefined) checkObject(cursor.position, 'cursor.position');
  let flags = 0;
  if (cursor.descending) flags |= FLAG_DESCENDING;
  checkU32(cursor.minLedger, 'minLedger');
  checkU32(cursor.scannedLedger, 'scannedLedger');
  if (cursor.maxLedger !== undefined) {
    checkU32(cursor.maxLedger, 'maxLedger');
    flags |= FLAG_HAS_MAX;
    if (cursor.minLedger > cursor.maxLedger) bad(`min ledger ${cursor.minLedger} > max ledger ${cursor.maxLedger}`);
  } else if (cursor.descending) {
    bad('descending without a max ledger');
  }
  if (cursor.position !== undefined) flags |= FLAG_HAS_POSITION;

  const parts: number[] = [flags];
  const u32 = (v: number): void => {
    parts.push(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  };
  u32(cursor.minLedger);
  if (cursor.maxLedger !== undefined) u32(cursor.maxLedger);
  if (cursor.position !== undefined) {
    const p = cursor.position;
    for (const [v, name] of [
      [p.ledger, 'ledger'],
      [p.tx, 'tx'],
      [p.op, 'op'],
      [p.event, 'event'],
      [p.ledgerOrdinal, 'ledgerOrdinal'],
    ] as const) {
      checkU32(v, `position.${name}`);
      u32(v);
    }
  }
  u32(cursor.scannedLedger);
  parts.push(cursor.filters.length >>> 8, cursor.filters.length & 0xff);
  const chunks: Uint8Array[] = [Uint8Array.from(parts)];
  for (const [i, f] of cursor.filters.entries()) chunks.push(encodeFilter(f, i));
  const body = Buffer.concat(chunks);
  const token = CURSOR_PREFIX + body.toString('base64url');
  if (token.length > MAX_CURSOR_BYTES) bad(`${token.length} bytes exceed the ${MAX_CURSOR_BYTES}-byte cap`);
  return token;
}

function encodeFilter(f: StorageFilter, index: number): Uint8Array {
  const bad = (detail: string): never => badArgument('cursor', `filter ${index}: ${detail}`);
  let fflags = 0;
  if (f.contractId !== undefined) {
    if (f.contractId.length !== 32) bad(`contract id of ${f.contractId.length} bytes`);
    fflags |= FF_CONTRACT;
  }
  // checkClauses (in encodeCursorV2) has checked the field types and ranges.
  f.topics.forEach((t, i) => {
    if (t === undefined) return;
    if (t.length === 0) bad(`topic ${i} is empty`);
    fflags |= topicBit(i);
  });
  if (f.eventType !== undefined) fflags |= FF_TYPE;
  const { count, exact } = f.topicCount;
  // {0, at-least} is the wildcard and is encoded as absent, so each constraint has one encoding.
  if (exact || count > 0) fflags |= FF_COUNT | (exact ? FF_EXACT : 0);
  const parts: number[] = [fflags];
  if (fflags & FF_TYPE) parts.push(f.eventType!);
  if (fflags & FF_COUNT) parts.push(count);
  if (fflags & FF_CONTRACT) parts.push(...f.contractId!);
  const chunks: Uint8Array[] = [Uint8Array.from(parts)];
  f.topics.forEach((t) => {
    if (t === undefined) return;
    chunks.push(Uint8Array.of(t.length >>> 24, (t.length >>> 16) & 0xff, (t.length >>> 8) & 0xff, t.length & 0xff), t);
  });
  return Buffer.concat(chunks);
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes a token strictly. MALFORMED_CURSOR for anything that is not exactly one canonical version-1 body;
 * UNKNOWN_VERSION for a well-formed "gec<digits>_" prefix naming another version (minted by a newer server).
 */
export function decodeCursorV2(token: string): EventCursorV2 {
  checkString(token, 'cursor');
  if (token === '') malformed('empty input');
  if (token.length > MAX_CURSOR_BYTES) malformed(`${token.length} bytes exceed the ${MAX_CURSOR_BYTES}-byte cap`);
  if (!token.startsWith('gec')) malformed('not a gec token');
  const sep = token.indexOf('_', 3);
  if (sep <= 3) malformed('missing version');
  const version = token.slice(3, sep);
  if (!/^[0-9]+$/.test(version)) malformed(`version ${JSON.stringify(version)}`);
  if (version !== String(CURSOR_VERSION)) {
    throw new EventsError(EventsErrorCode.UNKNOWN_VERSION, `cursor version ${version}`, { field: 'cursor' });
  }
  const payload = token.slice(sep + 1);
  // Strict base64url without padding: only the alphabet, no CR/LF, and canonical trailing bits (re-encoding the
  // bytes must give the same text), as Go's RawURLEncoding.Strict() requires.
  if (!BASE64URL.test(payload) || payload.length % 4 === 1) malformed('base64: illegal data');
  const body = Buffer.from(payload, 'base64url');
  if (body.toString('base64url') !== payload) malformed('base64: non-canonical trailing bits');
  return readBody(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
}

function readBody(b: Uint8Array): EventCursorV2 {
  let off = 0;
  const take = (n: number): Uint8Array => {
    if (b.length - off < n) malformed('truncated body', off);
    const out = b.subarray(off, off + n);
    off += n;
    return out;
  };
  const u8 = (): number => take(1)[0]!;
  const u16 = (): number => {
    const x = take(2);
    return (x[0]! << 8) | x[1]!;
  };
  const u32 = (): number => {
    const x = take(4);
    return ((x[0]! << 24) | (x[1]! << 16) | (x[2]! << 8) | x[3]!) >>> 0;
  };
  const flags = u8();
  if (flags & ~FLAGS_KNOWN) malformed(`reserved flag bits in 0x${flags.toString(16)}`, 0);
  const descending = (flags & FLAG_DESCENDING) !== 0;
  const minLedger = u32();
  const cursor: EventCursorV2 = { minLedger, descending, filters: [], scannedLedger: 0 };
  if (flags & FLAG_HAS_MAX) {
    const maxLedger = u32();
    if (minLedger > maxLedger) malformed(`min ledger ${minLedger} > max ledger ${maxLedger}`, off - 4);
    cursor.maxLedger = maxLedger;
  } else if (descending) {
    malformed('descending without a max ledger', 0);
  }
  if (flags & FLAG_HAS_POSITION) {
    cursor.position = { ledger: u32(), tx: u32(), op: u32(), event: u32(), ledgerOrdinal: u32() };
  }
  cursor.scannedLedger = u32();
  const count = u16();
  if (count > MAX_CURSOR_FILTERS) malformed(`${count} filters exceed ${MAX_CURSOR_FILTERS}`, off - 2);
  const filters: StorageFilter[] = [];
  for (let i = 0; i < count; i++) {
    const at = off;
    const fflags = u8();
    if ((fflags & FF_EXACT) !== 0 && (fflags & FF_COUNT) === 0) malformed(`filter ${i}: exact without count`, at);
    const f: StorageFilter = { topics: [], topicCount: { count: 0, exact: false } };
    if (fflags & FF_TYPE) {
      const type = u8();
      if (type > 2) malformed(`filter ${i}: event type ${type}`, off - 1);
      f.eventType = type;
    }
    if (fflags & FF_COUNT) {
      const n = u8();
      const exact = (fflags & FF_EXACT) !== 0;
      if (n > MAX_TOPIC_POSITIONS) malformed(`filter ${i}: topic count ${n}`, off - 1);
      if (n === 0 && !exact) malformed(`filter ${i}: count 0 without exact`, off - 1);
      f.topicCount = { count: n, exact };
    }
    if (fflags & FF_CONTRACT) f.contractId = take(32);
    const topics: (Uint8Array | undefined)[] = [];
    for (let p = 0; p < MAX_TOPIC_POSITIONS; p++) {
      if ((fflags & topicBit(p)) === 0) {
        topics.push(undefined);
        continue;
      }
      const n = u32();
      if (n === 0) malformed(`filter ${i}: topic ${p} present with zero length`, off - 4);
      topics.push(take(n));
    }
    // Trailing wildcards are dropped so a decoded filter compares equal to the one a request compiles to.
    while (topics.length > 0 && topics[topics.length - 1] === undefined) topics.pop();
    f.topics = topics;
    filters.push(f);
  }
  if (off !== b.length) malformed(`${b.length - off} trailing bytes`, off);
  cursor.filters = filters;
  return cursor;
}
