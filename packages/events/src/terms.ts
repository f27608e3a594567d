// Index terms (spec §3.3; upstream rpcv2/events/index.go after PR #904): the seven indexed fields of an event,
// each (field, value) pair hashed to a 16-byte TermKey with XXH3-128 over `[fieldByte] ++ valueBytes`.
import { badArgument, checkBytes, checkInteger, describeValue } from './arguments.js';
import {
  checkEventRest,
  checkHeader,
  PAYLOAD_HEADER_LENGTH,
  PayloadView,
  readEventPrefix,
  scValEndOrBadXdr,
} from './payload.js';
import { XXH3_INPUT, XXH3_WASM_MAX_INPUT, xxh3InputInto, xxh3128Into } from './xxh3.js';

/** Field bytes. Part of every stored index: never renumber. */
export const TERM_FIELD = {
  CONTRACT_ID: 0,
  TOPIC0: 1,
  TOPIC1: 2,
  TOPIC2: 3,
  TOPIC3: 4,
  EVENT_TYPE: 5,
  TOPIC_COUNT: 6,
} as const;
export type TermField = (typeof TERM_FIELD)[keyof typeof TERM_FIELD];

/** Term schema stamped into index artifacts (index.pack app data): version 1 = the seven fields above. */
export const TERM_SCHEMA_VERSION = 1;
/** Bits 0..6: every field above is indexed. */
export const INDEXED_FIELD_MASK = 0x7f;
/** Topic positions that are indexed and filterable (protocol.MaxTopicCount). */
export const MAX_TOPIC_POSITIONS = 4;
/** The topic-count bucket for "more than MAX_TOPIC_POSITIONS topics"; closes the at-least union. */
export const TOPIC_COUNT_OVERFLOW_BUCKET = MAX_TOPIC_POSITIONS + 1;
/** At most type + contract + count + 4 topics. */
export const MAX_TERMS_PER_EVENT = 3 + MAX_TOPIC_POSITIONS;

/** A 16-byte term key: XXH3-128 (seed 0), low 64 bits little-endian then high 64 bits little-endian. */
export type TermKey = Uint8Array;

/** Bytes of one term key. */
export const TERM_KEY_BYTES = 16;

// Long values (> 239 bytes) are hashed from a buffer of their own through the napi path.
let longScratch = new Uint8Array(512);

/** Hashes `[field] ++ b[p, end)` into `out[o, o + 16)`. */
function hashTermInto(field: number, b: Uint8Array, p: number, end: number, out: Uint8Array, o: number): void {
  const len = end - p + 1;
  if (len <= XXH3_WASM_MAX_INPUT) {
    // Straight into the wasm module's input area: no intermediate scratch copy.
    const s = XXH3_INPUT;
    s[0] = field;
    for (let i = 1; i < len; i++) s[i] = b[p + i - 1]!;
    xxh3InputInto(len, out, o);
    return;
  }
  if (longScratch.length < len) longScratch = new Uint8Array(Math.max(len, longScratch.length * 2));
  longScratch[0] = field;
  longScratch.set(b.subarray(p, end), 1);
  xxh3128Into(longScratch, 0, len, out, o);
}

/** TermKey of (field, value). */
export function termKey(field: TermField, value: Uint8Array): TermKey {
  checkInteger(field, TERM_FIELD.CONTRACT_ID, TERM_FIELD.TOPIC_COUNT, 'field');
  checkBytes(value, 'value');
  const key = new Uint8Array(TERM_KEY_BYTES);
  hashTermInto(field, value, 0, value.length, key, 0);
  return key;
}

/** The type term: the ContractEventType as a 4-byte big-endian value (its XDR width). */
export function eventTypeTermKey(type: number): TermKey {
  checkInteger(type, 0, 0xffffffff, 'type');
  return termKey(
    TERM_FIELD.EVENT_TYPE,
    Uint8Array.of(type >>> 24, (type >>> 16) & 0xff, (type >>> 8) & 0xff, type & 0xff),
  );
}

/** topicCountBucket without the argument check, for counts read from validated payloads. */
function bucketOfCount(n: number): number {
  return Math.min(n, TOPIC_COUNT_OVERFLOW_BUCKET);
}

/** Bucket of an event with `n` topics: min(n, 5). */
export function topicCountBucket(n: number): number {
  checkInteger(n, 0, 0xffffffff, 'n');
  return bucketOfCount(n);
}

/** The topic-count term of the bucket holding events with `n` topics. */
export function topicCountTermKey(n: number): TermKey {
  return termKey(TERM_FIELD.TOPIC_COUNT, Uint8Array.of(topicCountBucket(n)));
}

/** The bucket terms whose union holds every event with at least `n` topics (buckets n..5). */
export function topicCountAtLeastTermKeys(n: number): TermKey[] {
  const keys: TermKey[] = [];
  for (let b = topicCountBucket(n); b <= TOPIC_COUNT_OVERFLOW_BUCKET; b++) keys.push(topicCountTermKey(b));
  return keys;
}

/** Field byte of topic position `i` (0..3). */
export function topicField(i: number): TermField {
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= MAX_TOPIC_POSITIONS) {
    badArgument('i', `topic position ${describeValue(i)} not indexed`);
  }
  return (TERM_FIELD.TOPIC0 + i) as TermField;
}

// Precomputed keys of the fields with few values: type 0..2 and topic-count buckets 0..5.
const TYPE_KEYS = new Uint8Array(3 * TERM_KEY_BYTES);
for (let t = 0; t < 3; t++) TYPE_KEYS.set(eventTypeTermKey(t), t * TERM_KEY_BYTES);
const COUNT_KEYS = new Uint8Array((TOPIC_COUNT_OVERFLOW_BUCKET + 1) * TERM_KEY_BYTES);
for (let n = 0; n <= TOPIC_COUNT_OVERFLOW_BUCKET; n++) COUNT_KEYS.set(topicCountTermKey(n), n * TERM_KEY_BYTES);

function copyKey(from: Uint8Array, at: number, out: Uint8Array, o: number): void {
  for (let i = 0; i < TERM_KEY_BYTES; i++) out[o + i] = from[at + i]!;
}

/**
 * The fast path of term derivation, for the tiers' ingest loops: writes the terms of one stored payload into `out`
 * from byte `offset` on, 16 bytes each, in deriveTerms order, and returns how many it wrote (2..7). `out` must be a
 * Uint8Array with MAX_TERMS_PER_EVENT * 16 bytes free from the integer `offset` (EventsError INVALID_ARGUMENT
 * otherwise). Allocates nothing for topics of up to 239
 * bytes. Checks the header and the fixed XDR prefix and validates the topics it walks (positions 0..3); like
 * PayloadView it does not validate the rest of the event, which encodePayload/decodePayload and
 * deriveTermsIntoChecked do. Throws EventsError for malformed bytes.
 */
export function deriveTermsInto(payload: Uint8Array, out: Uint8Array, offset = 0): number {
  return deriveInto(payload, out, offset, false);
}

/**
 * deriveTermsInto plus the rest of decodePayload's checks, in the same walk: the topics past position 3 and the
 * value, which must end exactly where the payload does, and the close time a safe integer. For a store that accepts
 * payloads from callers: a payload it takes is one decodePayload reads back; one it must refuse throws EventsError
 * (BAD_XDR, TRUNCATED, LENGTH_MISMATCH, UNKNOWN_VERSION, INVALID_ARGUMENT for the close time) before any term of a
 * later check is trusted. Same arguments and result as deriveTermsInto.
 */
export function deriveTermsIntoChecked(payload: Uint8Array, out: Uint8Array, offset = 0): number {
  return deriveInto(payload, out, offset, true);
}

function deriveInto(payload: Uint8Array, out: Uint8Array, offset: number, checkRest: boolean): number {
  checkBytes(out, 'out');
  checkInteger(offset, 0, Number.MAX_SAFE_INTEGER, 'offset');
  if (out.length - offset < MAX_TERMS_PER_EVENT * TERM_KEY_BYTES) {
    badArgument('out', `needs ${MAX_TERMS_PER_EVENT * TERM_KEY_BYTES} bytes from offset ${offset}, has ${out.length}`);
  }
  checkHeader(payload);
  const prefix = readEventPrefix(payload, PAYLOAD_HEADER_LENGTH);
  let o = offset;
  copyKey(TYPE_KEYS, prefix.type * TERM_KEY_BYTES, out, o);
  o += TERM_KEY_BYTES;
  if (prefix.contract >= 0) {
    hashTermInto(TERM_FIELD.CONTRACT_ID, payload, prefix.contract, prefix.contract + 32, out, o);
    o += TERM_KEY_BYTES;
  }
  const count = prefix.topicCount;
  copyKey(COUNT_KEYS, bucketOfCount(count) * TERM_KEY_BYTES, out, o);
  o += TERM_KEY_BYTES;
  const n = Math.min(count, MAX_TOPIC_POSITIONS);
  let at = prefix.topics;
  for (let i = 0; i < n; i++) {
    const end = scValEndOrBadXdr(payload, at);
    hashTermInto(TERM_FIELD.TOPIC0 + i, payload, at, end, out, o);
    o += TERM_KEY_BYTES;
    at = end;
  }
  if (checkRest) checkEventRest(payload, at, count - n);
  return (o - offset) / TERM_KEY_BYTES;
}

const termsScratch = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);

/**
 * The terms of one stored payload, in upstream's TermsForBytes order: type, contract (if any), topic count, then
 * topics 0..3, each a fresh 16-byte array. One pass over the bytes (deriveTermsInto, which the ingest loops should
 * call directly to avoid the arrays). Throws EventsError for a malformed payload (including a body version other
 * than V0).
 */
export function deriveTerms(payload: Uint8Array | PayloadView): TermKey[] {
  const bytes = payload instanceof PayloadView ? payload.bytes : payload;
  const n = deriveTermsInto(bytes, termsScratch, 0);
  const keys: TermKey[] = [];
  for (let i = 0; i < n; i++) keys.push(termsScratch.slice(i * TERM_KEY_BYTES, (i + 1) * TERM_KEY_BYTES));
  return keys;
}

/** Lower-case hex of a key: a Map key for in-memory indexes and a readable form in test output. */
export function termKeyHex(key: TermKey): string {
  checkBytes(key, 'key');
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
}
