// Stored event payloads as getEvents / getEventsV2 EventInfo objects (spec §1.3), field order as go-stellar-sdk's
// struct: type, ledger, ledgerClosedAt, contractId, id, operationIndex, transactionIndex, txHash,
// inSuccessfulContractCall (v1 only), topic / topicJson, value / valueJson.
//
// A page holds up to 10,000 events (megabytes of JSON), so EventFormatter writes it straight to JSON bytes (JsonBytes:
// constant pieces copied, integers, ids, base64 and hex encoded in place from the payload) and formats what events
// share once: a close time's date per day (CloseTimeFormatter), the TOID base per ledger (EventIdFormatter: no
// bigint), a contract's strkey (base32 with a CRC: microseconds each) per page. eventInfo is the reference it is
// tested against: one object per event, every field formatted on its own, for JSON.stringify.
import { formatEventId, MAX_EVENT_INDEX, MAX_LEDGER, OP_MASK, TX_MASK, viewPayload } from '@strata/events';
import { encodeContractStrkey } from '@strata/ledger-key';
import { xdrToJson } from './xdr-json.js';

const TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;
/** Most distinct contract ids one formatter keeps strkeys of (a page of another shape just formats the rest). */
const MAX_CACHED_CONTRACTS = 1024;

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
 * bigint: ledger × 2^32 split exactly into its quotient and remainder by 10^9 once per ledger.
 */
export class EventIdFormatter {
  #ledger = -1;
  /** ledger × 2^32 = high × 10^9 + low. */
  #high = 0;
  #low = 0;

  format(ledger: number, tx: number, op: number, event: number): string {
    if (!this.#fits(ledger, tx, op, event)) return formatEventId({ ledger, tx, op, event }); // its own error
    const sum = this.#low + tx * 4096 + op;
    const low = sum % 1_000_000_000;
    const high = this.#high + (sum - low) / 1_000_000_000;
    return `${String(high).padStart(10, '0')}${String(low).padStart(9, '0')}-${String(event).padStart(10, '0')}`;
  }

  /** Whether the position is one formatEventId formats; sets the ledger's base when it is. */
  #fits(ledger: number, tx: number, op: number, event: number): boolean {
    if (ledger !== this.#ledger) {
      if (!Number.isInteger(ledger) || ledger < 0 || ledger > MAX_LEDGER) return false;
      // 2^32 = 4 × 10^9 + 294,967 × 1,000 + 296; every product and sum below stays under 2^53.
      const x = ledger * 294_967;
      const x0 = x % 1_000_000;
      const rest = x0 * 1000 + ledger * 296;
      const low = rest % 1_000_000_000;
      this.#high = ledger * 4 + (x - x0) / 1_000_000 + (rest - low) / 1_000_000_000;
      this.#low = low;
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

  /** format(...) written into `out`. */
  write(out: JsonBytes, ledger: number, tx: number, op: number, event: number): void {
    if (!this.#fits(ledger, tx, op, event)) formatEventId({ ledger, tx, op, event }); // throws its own error
    const sum = this.#low + tx * 4096 + op;
    const low = sum % 1_000_000_000;
    out.digits(this.#high + (sum - low) / 1_000_000_000, 10);
    out.digits(low, 9);
    out.byte(45); // -
    out.digits(event, 10);
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
const TEXT_ENCODER = new TextEncoder();
const COMMA = 44;

/**
 * A growing byte buffer JSON text is written into: constant pieces copied, integers, base64 and hex encoded in place,
 * nothing built as a string first (a page of 10,000 events is megabytes of JSON).
 */
export class JsonBytes {
  /** A plain Uint8Array (element stores into a Buffer, a subclass, measured several times slower here). */
  #bytes: Uint8Array;
  #at = 0;

  constructor(capacity = 64 * 1024) {
    this.#bytes = new Uint8Array(capacity);
  }

  /** The bytes written so far (a view: valid until the next write). */
  get written(): Buffer {
    return Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#at);
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.#at + n <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#at + n));
    grown.set(this.#bytes.subarray(0, this.#at));
    this.#bytes = grown;
  }

  byte(value: number): void {
    this.reserve(1);
    this.#bytes[this.#at++] = value;
  }

  bytes(source: Uint8Array): void {
    const length = source.length;
    this.reserve(length);
    const out = this.#bytes;
    const at = this.#at;
    // A loop beats TypedArray#set's call for the short pieces an event is made of.
    if (length <= 64) for (let i = 0; i < length; i++) out[at + i] = source[i]!;
    else out.set(source, at);
    this.#at = at + length;
  }

  /** A string of one-byte characters (ASCII text: times, ids), one byte each. */
  latin1(value: string): void {
    const length = value.length;
    this.reserve(length);
    const out = this.#bytes;
    const at = this.#at;
    for (let i = 0; i < length; i++) out[at + i] = value.charCodeAt(i);
    this.#at = at + length;
  }

  /** Any string, UTF-8 encoded (JSON text from JSON.stringify). */
  text(value: string): void {
    this.reserve(value.length * 3);
    this.#at += TEXT_ENCODER.encodeInto(value, this.#bytes.subarray(this.#at)).written;
  }

  /** A non-negative integer below 2^53 in decimal, at least `width` digits (zero-padded). */
  digits(value: number, width = 1): void {
    let length = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) length++;
    if (length < width) length = width;
    this.reserve(length);
    const out = this.#bytes;
    let v = value;
    for (let i = this.#at + length - 1; i >= this.#at; i--) {
      const next = Math.floor(v / 10);
      out[i] = 48 + (v - next * 10);
      v = next;
    }
    this.#at += length;
  }

  /** Standard base64 (with padding) of source[start..end). */
  base64(source: Uint8Array, start: number, end: number): void {
    this.reserve(Math.ceil((end - start) / 3) * 4);
    const out = this.#bytes;
    const digits = BASE64_DIGITS;
    let at = this.#at;
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
    this.#at = at;
  }

  /** Lowercase hex of source[start..end). */
  hex(source: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 2);
    const out = this.#bytes;
    let at = this.#at;
    for (let i = start; i < end; i++) {
      const b = source[i]!;
      out[at] = HEX_DIGITS[b >>> 4]!;
      out[at + 1] = HEX_DIGITS[b & 15]!;
      at += 2;
    }
    this.#at = at;
  }
}

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
  /** Strkeys of the contracts seen, by the hash's first four bytes (then compared whole). */
  readonly #strkeys = new Map<number, { readonly hash: Uint8Array; readonly strkey: Uint8Array }[]>();
  #cachedStrkeys = 0;

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
    out.bytes(TYPE_OPENINGS[view.type]!);
    out.digits(ledger);
    out.bytes(CLOSED_AT);
    out.latin1(this.#closedAt);
    out.bytes(CONTRACT_ID);
    const contractAt = view.contractIdOffset;
    if (contractAt >= 0) out.bytes(this.#strkey(payload, contractAt));
    out.bytes(ID);
    this.#ids.write(out, ledger, tx, op, view.eventIndex);
    out.bytes(OPERATION_INDEX);
    out.digits(op);
    out.bytes(TRANSACTION_INDEX);
    out.digits(tx);
    out.bytes(TX_HASH);
    out.hex(payload, view.txHashOffset, view.txHashOffset + 32);
    out.bytes(this.v1 ? IN_SUCCESSFUL_CALL : QUOTE);
    const count = view.topicCount;
    if (this.xdrFormat === 'json') {
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
    out.bytes(TOPIC);
    let at = view.partOffset(0);
    for (let i = 0; i < count; i++) {
      const end = view.partOffset(i + 1);
      if (i > 0) out.byte(COMMA);
      out.byte(34); // "
      out.base64(payload, at, end);
      out.byte(34);
      at = end;
    }
    out.bytes(VALUE);
    out.base64(payload, at, view.partOffset(count + 1));
    out.bytes(END);
  }

  #strkey(payload: Uint8Array, at: number): Uint8Array {
    const first = ((payload[at]! << 24) | (payload[at + 1]! << 16) | (payload[at + 2]! << 8) | payload[at + 3]!) >>> 0;
    let entries = this.#strkeys.get(first);
    if (entries !== undefined) {
      for (const entry of entries) if (sameHash(entry.hash, payload, at)) return entry.strkey;
    }
    const hash = payload.slice(at, at + 32);
    const strkey = ascii(encodeContractStrkey(hash));
    if (this.#cachedStrkeys < MAX_CACHED_CONTRACTS) {
      if (entries === undefined) {
        entries = [];
        this.#strkeys.set(first, entries);
      }
      entries.push({ hash, strkey });
      this.#cachedStrkeys++;
    }
    return strkey;
  }
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
  let size = 2;
  for (const item of payloads) size += (item instanceof Uint8Array ? item : item.payload).length * 2 + 320;
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
