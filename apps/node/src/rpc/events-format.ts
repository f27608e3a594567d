// Stored event payloads as getEvents / getEventsV2 EventInfo objects (spec §1.3), field order as go-stellar-sdk's
// struct: type, ledger, ledgerClosedAt, contractId, id, operationIndex, transactionIndex, txHash,
// inSuccessfulContractCall (v1 only), topic / topicJson, value / valueJson.
//
// A page holds up to 10,000 events (megabytes of JSON), so EventFormatter writes it straight to JSON bytes (JsonBytes:
// constant pieces copied, integers, ids, base64 and hex encoded in place from the payload) and formats what events
// share once: a close time's date per day (CloseTimeFormatter), the TOID base per ledger (EventIdFormatter: no
// bigint), a contract's strkey (base32 with a CRC: microseconds each) once per process (a bounded cache). eventInfo
// is the reference it is tested against: one object per event, every field formatted on its own, for JSON.stringify.
import {
  formatEventId,
  LedgerToidFormatter,
  MAX_EVENT_INDEX,
  MAX_LEDGER,
  OP_MASK,
  TX_MASK,
  viewPayload,
} from '@strata/events';
import { encodeContractStrkey } from '@strata/ledger-key';
import { xdrToJson } from './xdr-json.js';

const TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;
/** Most contract strkeys kept (the cache starts over past it). */
const MAX_CACHED_CONTRACTS = 4096;

/** RFC 3339 UTC with whole seconds, as Go's time.Time.UTC().Format(time.RFC3339). */
export function rfc3339(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** "00".."59": the two-digit fields of a time of day. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const SECONDS_A_DAY = 86_400;
/** Days from 1970 to 10000-01-01: past it (or before 1970) `rfc3339` itself formats (its year is not 4 digits). */
const DAYS_TO_YEAR_10000 = 2_932_897;

/**
 * rfc3339 for a run of close times: the date part formatted once per day, the time of day from a table (a page's
 * events lie in a few days). Equal to rfc3339 for every integer time (tested); anything else goes to rfc3339.
 */
export class CloseTimeFormatter {
  #day = Number.NaN;
  #date = '';

  format(unixSeconds: number): string {
    const day = Math.floor(unixSeconds / SECONDS_A_DAY);
    if (!Number.isInteger(unixSeconds) || day < 0 || day >= DAYS_TO_YEAR_10000) return rfc3339(unixSeconds);
    if (day !== this.#day) {
      this.#day = day;
      this.#date = new Date(day * SECONDS_A_DAY * 1000).toISOString().slice(0, 11);
    }
    const second = unixSeconds - day * SECONDS_A_DAY;
    const hour = Math.floor(second / 3600);
    const minute = Math.floor((second - hour * 3600) / 60);
    return `${this.#date}${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second - hour * 3600 - minute * 60]}Z`;
  }
}

/**
 * Event ids of one ledger, as formatEventId writes them ("%019d-%010d" of the TOID and the event index) without a
 * bigint: ledger × 2^32 split exactly by 10^9 once per ledger (LedgerToidFormatter's high and low), ids written as
 * digits straight into JSON bytes.
 */
export class EventIdFormatter {
  #ledger = -1;
  /** ledger × 2^32 = high × 10^9 + low. */
  #high = 0;
  #low = 0;

  format(ledger: number, tx: number, op: number, event: number): string {
    if (!this.fits(ledger, tx, op, event)) return formatEventId({ ledger, tx, op, event }); // its own error
    const sum = this.#low + tx * 4096 + op;
    const low = sum % 1_000_000_000;
    const high = this.#high + (sum - low) / 1_000_000_000;
    return `${String(high).padStart(10, '0')}${String(low).padStart(9, '0')}-${String(event).padStart(10, '0')}`;
  }

  /** Whether the position is one formatEventId formats; sets the ledger's base when it is. */
  fits(ledger: number, tx: number, op: number, event: number): boolean {
    if (ledger !== this.#ledger) {
      if (!Number.isInteger(ledger) || ledger < 0 || ledger > MAX_LEDGER) return false;
      const base = new LedgerToidFormatter(ledger); // ledger × 2^32 split by 10^9, exactly
      this.#high = base.high;
      this.#low = base.low;
      this.#ledger = ledger;
    }
    return (
      Number.isInteger(tx) &&
      tx >= 0 &&
      tx <= TX_MASK &&
      Number.isInteger(op) &&
      op >= 0 &&
      op <= OP_MASK &&
      Number.isInteger(event) &&
      event >= 0 &&
      event <= MAX_EVENT_INDEX
    );
  }

  /** format(...) written at `out[at]` (19 + 1 + 10 bytes), for a position fits() accepted last. */
  put(out: Uint8Array, at: number, tx: number, op: number, event: number): number {
    const sum = this.#low + tx * 4096 + op;
    const low = sum % 1_000_000_000;
    at = putDigits(out, at, this.#high + (sum - low) / 1_000_000_000, 10);
    at = putDigits(out, at, low, 9);
    out[at] = 45; // -
    return putDigits(out, at + 1, event, 10);
  }
}

/** ASCII text as bytes (the constant pieces of an EventInfo; plain Uint8Arrays, as payloads are: one shape). */
const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const TYPE_OPENINGS = TYPE_NAMES.map((name) => ascii(`{"type":"${name}","ledger":`));
const CLOSED_AT = ascii(',"ledgerClosedAt":"');
const CONTRACT_ID = ascii('","contractId":"');
const ID = ascii('","id":"');
const OPERATION_INDEX = ascii('","operationIndex":');
const TRANSACTION_INDEX = ascii(',"transactionIndex":');
const TX_HASH = ascii(',"txHash":"');
const IN_SUCCESSFUL_CALL = ascii('","inSuccessfulContractCall":true');
const QUOTE = ascii('"');
const TOPIC = ascii(',"topic":[');
const TOPIC_JSON = ascii(',"topicJson":[');
const VALUE = ascii('],"value":"');
const VALUE_JSON = ascii('],"valueJson":');
const END = ascii('"}');
const BASE64_DIGITS = ascii('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
const HEX_DIGITS = ascii('0123456789abcdef');
const EQUALS = 61;
const NO_BYTES = new Uint8Array(0);
const TEXT_ENCODER = new TextEncoder();
const COMMA = 44;

// The encoders JsonBytes and EventFormatter write with: each writes into `out` at `at` (room already reserved) and
// returns the position after what it wrote. Small, monomorphic (plain Uint8Arrays only), inlined where they are used.

function putBytes(out: Uint8Array, at: number, source: Uint8Array): number {
  const length = source.length;
  // A loop beats TypedArray#set's call for the short pieces an event is made of.
  if (length <= 64) for (let i = 0; i < length; i++) out[at + i] = source[i]!;
  else out.set(source, at);
  return at + length;
}

/** A string of one-byte characters (ASCII text: times), one byte each. */
function putLatin1(out: Uint8Array, at: number, value: string): number {
  const length = value.length;
  for (let i = 0; i < length; i++) out[at + i] = value.charCodeAt(i);
  return at + length;
}

/** Digits of a non-negative integer below 2^53, at least `width` of them (zero-padded). */
function digitCount(value: number, width: number): number {
  let length = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) length++;
  return Math.max(length, width);
}

function putDigits(out: Uint8Array, at: number, value: number, width = 1): number {
  const length = digitCount(value, width);
  let v = value;
  for (let i = at + length - 1; i >= at; i--) {
    const next = Math.floor(v / 10);
    out[i] = 48 + (v - next * 10);
    v = next;
  }
  return at + length;
}

/** Standard base64 (with padding) of source[start..end): 4 bytes per 3, rounded up. */
function putBase64(out: Uint8Array, at: number, source: Uint8Array, start: number, end: number): number {
  const digits = BASE64_DIGITS;
  let i = start;
  for (; i + 2 < end; i += 3) {
    const n = (source[i]! << 16) | (source[i + 1]! << 8) | source[i + 2]!;
    out[at] = digits[n >>> 18]!;
    out[at + 1] = digits[(n >>> 12) & 63]!;
    out[at + 2] = digits[(n >>> 6) & 63]!;
    out[at + 3] = digits[n & 63]!;
    at += 4;
  }
  if (i < end) {
    const two = i + 1 < end;
    const n = (source[i]! << 16) | (two ? source[i + 1]! << 8 : 0);
    out[at] = digits[n >>> 18]!;
    out[at + 1] = digits[(n >>> 12) & 63]!;
    out[at + 2] = two ? digits[(n >>> 6) & 63]! : EQUALS;
    out[at + 3] = EQUALS;
    at += 4;
  }
  return at;
}

/** Lowercase hex of source[start..end). */
function putHex(out: Uint8Array, at: number, source: Uint8Array, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const b = source[i]!;
    out[at] = HEX_DIGITS[b >>> 4]!;
    out[at + 1] = HEX_DIGITS[b & 15]!;
    at += 2;
  }
  return at;
}

/** `length` bytes of unzeroed memory (everything is written before it is read) as a plain Uint8Array. */
function unzeroed(length: number): Uint8Array {
  const buffer = Buffer.allocUnsafe(length);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
}

/**
 * A growing byte buffer JSON text is written into: constant pieces copied, integers, base64 and hex encoded in place,
 * nothing built as a string first (a page of 10,000 events is megabytes of JSON).
 */
export class JsonBytes {
  /** A plain Uint8Array (one shape with the payloads and constants the encoders read) over unzeroed memory. */
  #bytes: Uint8Array;
  #at = 0;

  constructor(capacity = 64 * 1024) {
    this.#bytes = unzeroed(capacity);
  }

  /** The bytes written so far (a view: valid until the next write). */
  get written(): Buffer {
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#at);
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.#at + n <= this.#bytes.length) return;
    const grown = unzeroed(Math.max(this.#bytes.length * 2, this.#at + n));
    grown.set(this.#bytes.subarray(0, this.#at));
    this.#bytes = grown;
  }

  /**
   * For writers that encode many pieces after one reserve(): the buffer and the write position (valid until the
   * next reserve), and `advance(to)` to move the position past what they wrote.
   */
  get buffer(): Uint8Array {
    return this.#bytes;
  }
  get position(): number {
    return this.#at;
  }
  advance(to: number): void {
    this.#at = to;
  }

  byte(value: number): void {
    this.reserve(1);
    this.#bytes[this.#at++] = value;
  }

  bytes(source: Uint8Array): void {
    this.reserve(source.length);
    this.#at = putBytes(this.#bytes, this.#at, source);
  }

  /** A string of one-byte characters (ASCII text: times, ids), one byte each. */
  latin1(value: string): void {
    this.reserve(value.length);
    this.#at = putLatin1(this.#bytes, this.#at, value);
  }

  /** Any string, UTF-8 encoded (JSON text from JSON.stringify). */
  text(value: string): void {
    this.reserve(value.length * 3);
    this.#at += TEXT_ENCODER.encodeInto(value, this.#bytes.subarray(this.#at)).written;
  }

  /** A non-negative integer below 2^53 in decimal, at least `width` digits (zero-padded). */
  digits(value: number, width = 1): void {
    this.reserve(digitCount(value, width));
    this.#at = putDigits(this.#bytes, this.#at, value, width);
  }

  /** Standard base64 (with padding) of source[start..end). */
  base64(source: Uint8Array, start: number, end: number): void {
    this.reserve(Math.ceil((end - start) / 3) * 4);
    this.#at = putBase64(this.#bytes, this.#at, source, start, end);
  }

  /** Lowercase hex of source[start..end). */
  hex(source: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 2);
    this.#at = putHex(this.#bytes, this.#at, source, start, end);
  }
}

/**
 * Bytes one EventInfo takes besides its parts' base64 and their quotes and its close time: the constant pieces
 * (about 250 bytes), the strkey (56), the id (30), three integers and the hash's hex (64), with room to spare.
 */
const EVENT_JSON_OVERHEAD = 512;

/**
 * Formats the events of one page (see the header) straight to JSON bytes, one EventInfo object each, with the
 * fields, their order and their values of JSON.stringify(eventInfo(...)) (tested); `v1` adds
 * inSuccessfulContractCall (always true when stored). Every string it writes needs no escaping by construction (type
 * names, digits, base64, hex, strkeys, RFC 3339); xdrFormat "json" values go through JSON.stringify.
 */
export class EventFormatter {
  readonly #times = new CloseTimeFormatter();
  readonly #ids = new EventIdFormatter();
  #closedAtSeconds = Number.NaN;
  #closedAt = '';
  constructor(
    private readonly xdrFormat: 'base64' | 'json',
    private readonly v1: boolean,
  ) {}

  /** Appends the EventInfo of `payload` to `out`. */
  write(out: JsonBytes, payload: Uint8Array): void {
    const view = viewPayload(payload);
    const ledger = view.ledger;
    const closedAt = view.ledgerClosedAt;
    if (closedAt !== this.#closedAtSeconds) {
      this.#closedAtSeconds = closedAt;
      this.#closedAt = this.#times.format(closedAt);
    }
    const tx = view.txIndex;
    const op = view.opIndex;
    const event = view.eventIndex;
    if (!this.#ids.fits(ledger, tx, op, event)) formatEventId({ ledger, tx, op, event }); // throws its own error
    const contractAt = view.contractIdOffset;
    const strkey = contractAt < 0 ? NO_BYTES : contractStrkey(payload, contractAt);
    // One reserve for the whole event (the xdrFormat "json" tail reserves its own): each part's base64 rounds up by
    // at most 4 bytes and takes 3 of quotes and comma.
    const count = view.topicCount;
    out.reserve(Math.ceil(payload.length / 3) * 4 + 7 * (count + 1) + this.#closedAt.length + EVENT_JSON_OVERHEAD);
    const b = out.buffer;
    let at = out.position;
    at = putBytes(b, at, TYPE_OPENINGS[view.type]!);
    at = putDigits(b, at, ledger);
    at = putBytes(b, at, CLOSED_AT);
    at = putLatin1(b, at, this.#closedAt);
    at = putBytes(b, at, CONTRACT_ID);
    at = putBytes(b, at, strkey);
    at = putBytes(b, at, ID);
    at = this.#ids.put(b, at, tx, op, event);
    at = putBytes(b, at, OPERATION_INDEX);
    at = putDigits(b, at, op);
    at = putBytes(b, at, TRANSACTION_INDEX);
    at = putDigits(b, at, tx);
    at = putBytes(b, at, TX_HASH);
    at = putHex(b, at, payload, view.txHashOffset, view.txHashOffset + 32);
    at = putBytes(b, at, this.v1 ? IN_SUCCESSFUL_CALL : QUOTE);
    if (this.xdrFormat === 'json') {
      out.advance(at);
      out.bytes(TOPIC_JSON);
      for (let i = 0; i < count; i++) {
        if (i > 0) out.byte(COMMA);
        out.text(JSON.stringify(xdrToJson('ScVal', view.topic(i)!)));
      }
      out.bytes(VALUE_JSON);
      out.text(JSON.stringify(xdrToJson('ScVal', view.value())));
      out.byte(125); // }
      return;
    }
    at = putBytes(b, at, TOPIC);
    let from = view.partOffset(0);
    for (let i = 0; i < count; i++) {
      const end = view.partOffset(i + 1);
      if (i > 0) b[at++] = COMMA;
      b[at++] = 34; // "
      at = putBase64(b, at, payload, from, end);
      b[at++] = 34;
      from = end;
    }
    at = putBytes(b, at, VALUE);
    at = putBase64(b, at, payload, from, view.partOffset(count + 1));
    out.advance(putBytes(b, at, END));
  }
}

/**
 * Strkeys of the contracts seen, as ASCII bytes, by the hash's first four bytes (then compared whole); shared by every
 * page (a strkey is a pure function of the hash) and cleared when it holds MAX_CACHED_CONTRACTS.
 */
const strkeys = new Map<number, { readonly hash: Uint8Array; readonly strkey: Uint8Array }[]>();
let cachedStrkeys = 0;

/** The strkey of the 32-byte contract hash at payload[at], as ASCII bytes. */
function contractStrkey(payload: Uint8Array, at: number): Uint8Array {
  const first = ((payload[at]! << 24) | (payload[at + 1]! << 16) | (payload[at + 2]! << 8) | payload[at + 3]!) >>> 0;
  let entries = strkeys.get(first);
  if (entries !== undefined) {
    for (const entry of entries) if (sameHash(entry.hash, payload, at)) return entry.strkey;
  }
  const hash = payload.slice(at, at + 32);
  const text = Buffer.from(encodeContractStrkey(hash), 'latin1');
  const strkey = new Uint8Array(text.buffer, text.byteOffset, text.length);
  if (cachedStrkeys === MAX_CACHED_CONTRACTS) {
    strkeys.clear();
    cachedStrkeys = 0;
  }
  if (entries === undefined || cachedStrkeys === 0) {
    entries = [];
    strkeys.set(first, entries);
  }
  entries.push({ hash, strkey });
  cachedStrkeys++;
  return strkey;
}

function sameHash(hash: Uint8Array, payload: Uint8Array, at: number): boolean {
  for (let i = 4; i < 32; i++) if (hash[i] !== payload[at + i]) return false;
  return true;
}

/** A page's events as the JSON bytes of their EventInfo array, through one formatter. */
export function formatEventsJson(
  payloads: readonly Uint8Array[] | readonly { readonly payload: Uint8Array }[],
  xdrFormat: 'base64' | 'json',
  v1: boolean,
): Buffer {
  const formatter = new EventFormatter(xdrFormat, v1);
  // About what a page of small base64 events takes (the buffer grows if not enough).
  let size = 2;
  for (const item of payloads) size += (item instanceof Uint8Array ? item : item.payload).length * 1.5 + 400;
  const out = new JsonBytes(size);
  out.byte(91); // [
  for (let i = 0; i < payloads.length; i++) {
    const item = payloads[i]!;
    if (i > 0) out.byte(COMMA);
    formatter.write(out, item instanceof Uint8Array ? item : item.payload);
  }
  out.byte(93); // ]
  return out.written;
}

/**
 * One EventInfo from a stored payload, formatted on its own (the reference EventFormatter is tested against:
 * formatEventId, encodeContractStrkey and rfc3339 per event).
 */
export function eventInfo(payload: Uint8Array, xdrFormat: 'base64' | 'json', v1: boolean): Record<string, unknown> {
  const view = viewPayload(payload);
  const contractId = view.contractId;
  const topics: Uint8Array[] = [];
  for (let i = 0; i < view.topicCount; i++) topics.push(view.topic(i)!);
  const info: Record<string, unknown> = {
    type: TYPE_NAMES[view.type],
    ledger: view.ledger,
    ledgerClosedAt: rfc3339(view.ledgerClosedAt),
    contractId: contractId === undefined ? '' : encodeContractStrkey(contractId),
    id: formatEventId({ ledger: view.ledger, tx: view.txIndex, op: view.opIndex, event: view.eventIndex }),
    operationIndex: view.opIndex,
    transactionIndex: view.txIndex,
    txHash: hex(view.txHash),
  };
  if (v1) info.inSuccessfulContractCall = true;
  if (xdrFormat === 'json') {
    info.topicJson = topics.map((t) => xdrToJson('ScVal', t));
    info.valueJson = xdrToJson('ScVal', view.value());
  } else {
    info.topic = topics.map(base64);
    info.value = base64(view.value());
  }
  return info;
}

export { base64 };
