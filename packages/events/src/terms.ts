// Index terms (spec §3.3; upstream rpcv2/events/index.go after PR #904): the seven indexed fields of an event,
// each (field, value) pair hashed to a 16-byte TermKey with XXH3-128 over `[fieldByte] ++ valueBytes`.
import { xxh3 } from '@node-rs/xxhash';
import { PayloadView } from './payload.js';

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

const LOW64 = 0xffffffffffffffffn;
// One scratch buffer for `[field] ++ value`, grown on demand (term values are usually < 128 bytes).
let scratch = new Uint8Array(256);

/** TermKey of (field, value). */
export function termKey(field: TermField, value: Uint8Array): TermKey {
  if (scratch.length < value.length + 1) scratch = new Uint8Array(Math.max(value.length + 1, scratch.length * 2));
  scratch[0] = field;
  scratch.set(value, 1);
  const h = xxh3.xxh128(scratch.subarray(0, value.length + 1));
  const key = new Uint8Array(16);
  const dv = new DataView(key.buffer);
  dv.setBigUint64(0, h & LOW64, true);
  dv.setBigUint64(8, h >> 64n, true);
  return key;
}

/** The type term: the ContractEventType as a 4-byte big-endian value (its XDR width). */
export function eventTypeTermKey(type: number): TermKey {
  return termKey(
    TERM_FIELD.EVENT_TYPE,
    Uint8Array.of(type >>> 24, (type >>> 16) & 0xff, (type >>> 8) & 0xff, type & 0xff),
  );
}

/** Bucket of an event with `n` topics: min(n, 5). */
export function topicCountBucket(n: number): number {
  return Math.min(n, TOPIC_COUNT_OVERFLOW_BUCKET);
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
  if (!Number.isInteger(i) || i < 0 || i >= MAX_TOPIC_POSITIONS)
    throw new RangeError(`topic position ${i} not indexed`);
  return (TERM_FIELD.TOPIC0 + i) as TermField;
}

/**
 * The terms of one stored payload, in upstream's TermsForBytes order: type, contract (if any), topic count, then
 * topics 0..3. One pass over the bytes: the type, contract and count sit at fixed offsets, and the topic walk stops
 * after position 3. Throws EventsError for a malformed payload (including a body version other than V0).
 */
export function deriveTerms(payload: Uint8Array | PayloadView): TermKey[] {
  const view = payload instanceof PayloadView ? payload : new PayloadView(payload);
  const keys: TermKey[] = [eventTypeTermKey(view.type)];
  const contract = view.contractId;
  if (contract !== undefined) keys.push(termKey(TERM_FIELD.CONTRACT_ID, contract));
  keys.push(topicCountTermKey(view.topicCount));
  const n = Math.min(view.topicCount, MAX_TOPIC_POSITIONS);
  for (let i = 0; i < n; i++) keys.push(termKey(topicField(i), view.topic(i)!));
  return keys;
}

/** Lower-case hex of a key: a Map key for in-memory indexes and a readable form in test output. */
export function termKeyHex(key: TermKey): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
}
