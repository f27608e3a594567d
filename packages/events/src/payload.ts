// The stored event payload (spec §2.3; upstream rpcv2/events/payload.go): a 61-byte versioned header followed by
// the raw ContractEvent XDR, identical bytes in the hot and cold tiers, and the zero-copy views over it that term
// derivation and the post-filter use instead of decoding the XDR.
import { LedgerKeyError, readScVal, readU32, type ScValView, scValEnd } from '@strata/ledger-key';
import { badArgument, checkArray, checkBytes, checkInteger, checkObject, describeValue } from './arguments.js';
import { EventsError, EventsErrorCode } from './errors.js';

/**
 * End of the SCVal at `at`, validated by @strata/ledger-key without allocating; corrupt bytes are EventsError BAD_XDR
 * at the offending offset (views and term derivation validate every value they cross).
 */
export function scValEndOrBadXdr(bytes: Uint8Array, at: number): number {
  try {
    return scValEnd(bytes, at);
  } catch (error) {
    if (error instanceof LedgerKeyError) {
      const offset = error.offset;
      throw new EventsError(
        EventsErrorCode.BAD_XDR,
        `SCVal: ${error.message}`,
        offset === undefined ? { cause: error } : { offset, cause: error },
      );
    }
    throw error;
  }
}

/** Payload format versions. 0x01: the rpcv2 layout (header 61 bytes, then ContractEvent XDR). */
export const PAYLOAD_VERSION = 0x01;
/** Bytes before the ContractEvent XDR. */
export const PAYLOAD_HEADER_LENGTH = 61;

/**
 * Byte offsets of the header fields (after the version byte at 0), in the order payload.go writes them: the 32-byte
 * transaction hash, then big-endian integers (u32 but the close time, an i64). For loops that read a field of many
 * payloads without a PayloadView each; the layout is the stored format (PAYLOAD_VERSION 0x01).
 */
export const PAYLOAD_FIELD_OFFSETS = Object.freeze({
  txHash: 1,
  ledger: 33,
  txIndex: 37,
  opIndex: 41,
  ledgerClosedAt: 45,
  eventIndex: 53,
  contractEventLength: 57,
} as const);
const OFF_TX_HASH = PAYLOAD_FIELD_OFFSETS.txHash;
const OFF_LEDGER = PAYLOAD_FIELD_OFFSETS.ledger;
const OFF_TX_INDEX = PAYLOAD_FIELD_OFFSETS.txIndex;
const OFF_OP_INDEX = PAYLOAD_FIELD_OFFSETS.opIndex;
const OFF_CLOSED_AT = PAYLOAD_FIELD_OFFSETS.ledgerClosedAt;
const OFF_EVENT_INDEX = PAYLOAD_FIELD_OFFSETS.eventIndex;
const OFF_XDR_LENGTH = PAYLOAD_FIELD_OFFSETS.contractEventLength;

/** ContractEventType (XDR enum). DIAGNOSTIC is never stored since protocol 23 but stays a valid value. */
export const CONTRACT_EVENT_TYPE = { SYSTEM: 0, CONTRACT: 1, DIAGNOSTIC: 2 } as const;
export type ContractEventType = (typeof CONTRACT_EVENT_TYPE)[keyof typeof CONTRACT_EVENT_TYPE];
const MAX_EVENT_TYPE = 2;

/** The header fields of a payload plus the ContractEvent XDR they wrap. */
export interface EventPayload {
  /** 32-byte transaction hash. */
  txHash: Uint8Array;
  ledger: number;
  /** 1-based apply order, or the sentinels 0 / 1048575 for ledger-level events (spec §2.2). */
  txIndex: number;
  /** 0-based operation index, or 4095 for AfterTx events. */
  opIndex: number;
  /** Ledger close time, unix seconds (an i64 on disk; must be a safe integer here). */
  ledgerClosedAt: number;
  eventIndex: number;
  /** Raw XDR of one ContractEvent. */
  contractEvent: Uint8Array;
}

const U32_MAX = 0xffffffff;

/** Encodes a payload. The ContractEvent XDR is validated first, so every encoded payload decodes. */
export function encodePayload(payload: EventPayload): Uint8Array {
  checkObject(payload, 'payload');
  checkBytes(payload.txHash, 'txHash');
  if (payload.txHash.length !== 32) badArgument('txHash', `must be 32 bytes, got ${payload.txHash.length}`);
  checkInteger(payload.ledger, 0, U32_MAX, 'ledger');
  checkInteger(payload.txIndex, 0, U32_MAX, 'txIndex');
  checkInteger(payload.opIndex, 0, U32_MAX, 'opIndex');
  checkInteger(payload.eventIndex, 0, U32_MAX, 'eventIndex');
  if (!Number.isSafeInteger(payload.ledgerClosedAt)) badArgument('ledgerClosedAt', 'must be a safe integer');
  checkBytes(payload.contractEvent, 'contractEvent');
  validateContractEvent(payload.contractEvent, 0);
  const out = new Uint8Array(PAYLOAD_HEADER_LENGTH + payload.contractEvent.length);
  writePayload(
    out,
    0,
    payload.txHash,
    payload.ledger,
    payload.txIndex,
    payload.opIndex,
    payload.ledgerClosedAt,
    payload.eventIndex,
    payload.contractEvent,
  );
  return out;
}

/** One event of a ledger as encodeLedgerPayloads takes it: the fields @strata/ledger-meta's event records carry. */
export interface LedgerEventInput {
  /** 32-byte transaction hash. */
  readonly txHash: Uint8Array;
  /** The payload's txIndex. */
  readonly tx: number;
  /** The payload's opIndex. */
  readonly op: number;
  readonly eventIndex: number;
  /** Raw XDR of one ContractEvent. */
  readonly xdr: Uint8Array;
}

/**
 * encodePayload for every event of one ledger, with the same checks and the same bytes, the payloads back to back in
 * one buffer the call allocates: one allocation a ledger instead of one an event. Each payload is a view of that
 * buffer (its `byteOffset` is not 0). A bad event throws INVALID_ARGUMENT or BAD_XDR with `field`
 * `events[i].<name>` (for BAD_XDR, `offset` inside that event's XDR).
 */
export function encodeLedgerPayloads(
  ledger: number,
  ledgerClosedAt: number,
  events: readonly LedgerEventInput[],
): Uint8Array[] {
  checkInteger(ledger, 0, U32_MAX, 'ledger');
  if (!Number.isSafeInteger(ledgerClosedAt)) badArgument('ledgerClosedAt', 'must be a safe integer');
  checkArray(events, 'events');
  let total = 0;
  for (let i = 0; i < events.length; i++) total += PAYLOAD_HEADER_LENGTH + checkEventInput(events[i], i);
  const out = new Uint8Array(total);
  const payloads = new Array<Uint8Array>(events.length);
  let at = 0;
  for (let i = 0; i < events.length; i++) {
    const { txHash, tx, op, eventIndex, xdr } = events[i]!;
    const length = PAYLOAD_HEADER_LENGTH + xdr.length;
    writePayload(out, at, txHash, ledger, tx, op, ledgerClosedAt, eventIndex, xdr);
    payloads[i] = out.subarray(at, at + length);
    at += length;
  }
  return payloads;
}

/** Checks event `i` of encodeLedgerPayloads (its XDR validated as encodePayload does) and returns its XDR length. */
function checkEventInput(event: unknown, i: number): number {
  try {
    checkObject(event, 'event');
    const { txHash, tx, op, eventIndex, xdr } = event as LedgerEventInput;
    checkBytes(txHash, 'txHash');
    if (txHash.length !== 32) badArgument('txHash', `must be 32 bytes, got ${txHash.length}`);
    checkInteger(tx, 0, U32_MAX, 'tx');
    checkInteger(op, 0, U32_MAX, 'op');
    checkInteger(eventIndex, 0, U32_MAX, 'eventIndex');
    checkBytes(xdr, 'xdr');
    validateContractEvent(xdr, 0);
    return xdr.length;
  } catch (error) {
    if (!(error instanceof EventsError)) throw error;
    const name = error.code === EventsErrorCode.BAD_XDR ? 'xdr' : error.field;
    throw new EventsError(error.code, `event ${i}: ${error.detail}`, {
      field: name === undefined || name === 'event' ? `events[${i}]` : `events[${i}].${name}`,
      ...(error.offset === undefined ? {} : { offset: error.offset }),
      cause: error,
    });
  }
}

function writeU32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

/** Writes one payload (checked fields) at `out[at..]`. */
function writePayload(
  out: Uint8Array,
  at: number,
  txHash: Uint8Array,
  ledger: number,
  txIndex: number,
  opIndex: number,
  ledgerClosedAt: number,
  eventIndex: number,
  xdr: Uint8Array,
): void {
  out[at] = PAYLOAD_VERSION;
  for (let i = 0; i < 32; i++) out[at + OFF_TX_HASH + i] = txHash[i]!;
  writeU32(out, at + OFF_LEDGER, ledger);
  writeU32(out, at + OFF_TX_INDEX, txIndex);
  writeU32(out, at + OFF_OP_INDEX, opIndex);
  // The i64 (a safe integer) as two's-complement big-endian halves: hi = floor(v / 2^32), lo = v - hi * 2^32, exact.
  const hi = Math.floor(ledgerClosedAt / 4294967296);
  writeU32(out, at + OFF_CLOSED_AT, hi >>> 0);
  writeU32(out, at + OFF_CLOSED_AT + 4, ledgerClosedAt - hi * 4294967296);
  writeU32(out, at + OFF_EVENT_INDEX, eventIndex);
  writeU32(out, at + OFF_XDR_LENGTH, xdr.length);
  out.set(xdr, at + PAYLOAD_HEADER_LENGTH);
}

/**
 * Checks the header of `bytes` (version, minimum length, exact XDR length) and returns the XDR length. Order of
 * checks follows payload.go: version first (so a future version is reported as such even when short), then length.
 */
export function checkHeader(bytes: Uint8Array): number {
  checkBytes(bytes, 'payload');
  if (bytes.length < 1) throw new EventsError(EventsErrorCode.TRUNCATED, 'empty payload', { offset: 0 });
  if (bytes[0] !== PAYLOAD_VERSION) {
    throw new EventsError(
      EventsErrorCode.UNKNOWN_VERSION,
      `payload version 0x${bytes[0]!.toString(16).padStart(2, '0')}`,
      {
        offset: 0,
        field: 'version',
      },
    );
  }
  if (bytes.length < PAYLOAD_HEADER_LENGTH) {
    throw new EventsError(EventsErrorCode.TRUNCATED, `payload of ${bytes.length} bytes is shorter than its header`, {
      offset: bytes.length,
    });
  }
  const n = readU32(bytes, OFF_XDR_LENGTH);
  const rest = bytes.length - PAYLOAD_HEADER_LENGTH;
  if (n > rest) {
    throw new EventsError(EventsErrorCode.TRUNCATED, `ContractEvent length ${n} exceeds the ${rest} bytes left`, {
      offset: OFF_XDR_LENGTH,
      field: 'contractEventLength',
    });
  }
  if (n !== rest) {
    throw new EventsError(EventsErrorCode.LENGTH_MISMATCH, `${rest - n} trailing bytes after the ContractEvent`, {
      offset: PAYLOAD_HEADER_LENGTH + n,
      field: 'contractEventLength',
    });
  }
  return n;
}

/** Full decode with validation of header and XDR. The returned byte fields are subarrays of `bytes` (no copy). */
export function decodePayload(bytes: Uint8Array): EventPayload {
  checkHeader(bytes);
  validateContractEvent(bytes, PAYLOAD_HEADER_LENGTH);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const closedAt = dv.getBigInt64(OFF_CLOSED_AT);
  if (closedAt > BigInt(Number.MAX_SAFE_INTEGER) || closedAt < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, `ledgerClosedAt ${closedAt} is not a safe integer`, {
      offset: OFF_CLOSED_AT,
      field: 'ledgerClosedAt',
    });
  }
  return {
    txHash: bytes.subarray(OFF_TX_HASH, OFF_TX_HASH + 32),
    ledger: readU32(bytes, OFF_LEDGER),
    txIndex: readU32(bytes, OFF_TX_INDEX),
    opIndex: readU32(bytes, OFF_OP_INDEX),
    ledgerClosedAt: Number(closedAt),
    eventIndex: readU32(bytes, OFF_EVENT_INDEX),
    contractEvent: bytes.subarray(PAYLOAD_HEADER_LENGTH),
  };
}

/**
 * The close time of a payload whose header was checked, read without a DataView or a BigInt: the i64 as two
 * big-endian halves (hi × 2^32 is exact; the one addition rounds as Number(bigint) does).
 */
function readClosedAt(b: Uint8Array): number {
  const hi =
    (b[OFF_CLOSED_AT]! << 24) | (b[OFF_CLOSED_AT + 1]! << 16) | (b[OFF_CLOSED_AT + 2]! << 8) | b[OFF_CLOSED_AT + 3]!;
  return hi * 4294967296 + readU32(b, OFF_CLOSED_AT + 4);
}

/**
 * The checks decodePayload makes past what term derivation walks, for a payload whose header and XDR prefix were
 * checked: `topicsLeft` more topics from `at`, then the value, which must end exactly at the end of `b` (BAD_XDR),
 * and the close time a safe integer (INVALID_ARGUMENT). Validates the ScVals it crosses, allocates nothing.
 */
export function checkEventRest(b: Uint8Array, at: number, topicsLeft: number): void {
  walkEventTail(b, at, topicsLeft, at);
  // Beyond ±2^53 the rounded double is outside the safe range too, so the test on the double is exact.
  if (!Number.isSafeInteger(readClosedAt(b))) {
    throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, 'ledgerClosedAt is not a safe integer', {
      offset: OFF_CLOSED_AT,
      field: 'ledgerClosedAt',
    });
  }
}

function badXdr(offset: number, detail: string, cause?: unknown): never {
  throw new EventsError(EventsErrorCode.BAD_XDR, detail, cause === undefined ? { offset } : { offset, cause });
}

/**
 * Offsets of the fixed-position parts of a ContractEvent starting at `p`: ExtensionPoint (v must be 0), optional
 * ContractID, type, body discriminant (must be 0), topic count. Returns the offset of the first topic.
 */
export function readEventPrefix(
  b: Uint8Array,
  p: number,
): { contract: number; type: number; topicCount: number; topics: number } {
  if (b.length - p < 8) badXdr(b.length, 'ContractEvent truncated');
  if (readU32(b, p) !== 0) badXdr(p, 'ContractEvent.ext: unknown ExtensionPoint arm');
  const present = readU32(b, p + 4);
  if (present > 1) badXdr(p + 4, 'ContractEvent.contractID: bad optional flag');
  const contract = present === 1 ? p + 8 : -1;
  const typeAt = p + 8 + (present === 1 ? 32 : 0);
  if (b.length - typeAt < 12) badXdr(b.length, 'ContractEvent truncated');
  const type = readU32(b, typeAt);
  if (type > MAX_EVENT_TYPE) badXdr(typeAt, `ContractEvent.type ${type} outside the enum`);
  // upstream index.go: a body version other than V0 is a hard error (a contract-id-only index would hide it).
  if (readU32(b, typeAt + 4) !== 0) badXdr(typeAt + 4, 'ContractEvent.body: unsupported body version');
  return { contract, type, topicCount: readU32(b, typeAt + 8), topics: typeAt + 12 };
}

/** Reads one ScVal at `p`, mapping ledger-key's errors into BAD_XDR with this buffer's offset. */
export function scValAt(b: Uint8Array, p: number): ScValView {
  try {
    return readScVal(b, p);
  } catch (error) {
    if (error instanceof LedgerKeyError) badXdr(error.offset ?? p, error.message, error);
    throw error;
  }
}

/** Validates the ContractEvent XDR from `start` to the end of `b` (must be consumed exactly). */
function validateContractEvent(b: Uint8Array, start: number): void {
  const prefix = readEventPrefix(b, start);
  walkEventTail(b, prefix.topics, prefix.topicCount, prefix.topics - 4);
}

/**
 * Walks `topics` ScVals from `at`, then the value, which must end exactly at the end of `b` (BAD_XDR otherwise),
 * validating each ScVal without allocating. A count larger than the bytes left could ever hold (4 bytes per ScVal at
 * least) is refused before the loop, at `countAt` (where the count lies).
 */
function walkEventTail(b: Uint8Array, at: number, topics: number, countAt: number): void {
  if (topics > (b.length - at) / 4) badXdr(countAt, 'topic count exceeds the bytes left');
  let q = at;
  for (let i = 0; i < topics; i++) q = scValEndOrBadXdr(b, q);
  q = scValEndOrBadXdr(b, q);
  if (q !== b.length) badXdr(q, `${b.length - q} trailing bytes after ContractEvent`);
}

/**
 * A zero-copy view over one stored payload. Construction checks the header and the fixed-position XDR prefix
 * (cheap, O(1)); topics and the value are located lazily by walking the ScVals, each walk done at most once per
 * view. Every accessor returns subarrays of the caller's bytes, valid as long as those bytes are not mutated.
 * Topic walks validate the ScVals they cross (ledger-key's scValEnd: full checks, no allocation), so
 * a view over corrupt bytes throws BAD_XDR rather than misreading.
 */
export class PayloadView {
  readonly bytes: Uint8Array;
  readonly type: ContractEventType;
  readonly topicCount: number;
  private readonly contractAt: number;
  private readonly topicsAt: number;
  /** Offsets of topic i (and, at index topicCount, of the value), filled as far as walked so far. */
  private readonly walked: number[];

  constructor(bytes: Uint8Array) {
    checkHeader(bytes);
    const prefix = readEventPrefix(bytes, PAYLOAD_HEADER_LENGTH);
    this.bytes = bytes;
    this.type = prefix.type as ContractEventType;
    this.topicCount = prefix.topicCount;
    this.contractAt = prefix.contract;
    this.topicsAt = prefix.topics;
    this.walked = [prefix.topics];
  }

  get ledger(): number {
    return readU32(this.bytes, OFF_LEDGER);
  }
  get txIndex(): number {
    return readU32(this.bytes, OFF_TX_INDEX);
  }
  get opIndex(): number {
    return readU32(this.bytes, OFF_OP_INDEX);
  }
  get eventIndex(): number {
    return readU32(this.bytes, OFF_EVENT_INDEX);
  }
  get txHash(): Uint8Array {
    return this.bytes.subarray(OFF_TX_HASH, OFF_TX_HASH + 32);
  }
  get ledgerClosedAt(): number {
    return readClosedAt(this.bytes);
  }
  /** Offset of the 32-byte transaction hash within `bytes`. */
  get txHashOffset(): number {
    return OFF_TX_HASH;
  }
  /** Offset of the 32-byte contract hash within `bytes`, or -1 for an event without a contract id. */
  get contractIdOffset(): number {
    return this.contractAt;
  }
  /** The raw ContractEvent XDR. */
  get contractEvent(): Uint8Array {
    return this.bytes.subarray(PAYLOAD_HEADER_LENGTH);
  }
  /** The 32-byte contract hash, or undefined for an event without a contract id. */
  get contractId(): Uint8Array | undefined {
    return this.contractAt < 0 ? undefined : this.bytes.subarray(this.contractAt, this.contractAt + 32);
  }

  /** Offset of topic `i` (i === topicCount gives the value), walking forward from the furthest known point. */
  private offsetOf(i: number): number {
    const walked = this.walked;
    while (walked.length <= i) {
      const at = walked[walked.length - 1]!;
      walked.push(scValEndOrBadXdr(this.bytes, at));
    }
    return walked[i]!;
  }

  /** Raw XDR of topic `i` (0-based), or undefined when the event has no such topic. */
  topic(i: number): Uint8Array | undefined {
    if (typeof i !== 'number' || !Number.isInteger(i)) badArgument('i', `topic index ${describeValue(i)}`);
    if (i < 0 || i >= this.topicCount) return undefined;
    const at = this.offsetOf(i);
    return this.bytes.subarray(at, this.offsetOf(i + 1));
  }

  /**
   * Where the event's ScVals lie within `bytes`, for callers that encode them in place (no subarray per part):
   * `partOffset(i)` is the start of topic `i` for i < topicCount, `partOffset(topicCount)` the start of the value
   * and `partOffset(topicCount + 1)` its end; so part i spans [partOffset(i), partOffset(i + 1)).
   */
  partOffset(i: number): number {
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > this.topicCount + 1) {
      badArgument('i', `part index ${describeValue(i)} outside [0, ${this.topicCount + 1}]`);
    }
    return this.offsetOf(i);
  }

  /** Raw XDR of the event's data ScVal. */
  value(): Uint8Array {
    const at = this.offsetOf(this.topicCount);
    return this.bytes.subarray(at, scValEndOrBadXdr(this.bytes, at));
  }

  /** Start offset of the first topic within `bytes` (for callers that walk topics themselves). */
  get topicsOffset(): number {
    return this.topicsAt;
  }
}

/** A PayloadView over `bytes` (header and XDR prefix checked; see PayloadView). */
export function viewPayload(bytes: Uint8Array): PayloadView {
  return new PayloadView(bytes);
}

/** Encodes a ContractEvent XDR from its parts (tests, tools and fixtures build events with it). */
export function encodeContractEvent(event: {
  contractId?: Uint8Array;
  type: ContractEventType;
  topics: readonly Uint8Array[];
  value: Uint8Array;
}): Uint8Array {
  checkObject(event, 'event');
  const contractLen = event.contractId === undefined ? 0 : 32;
  if (event.contractId !== undefined) {
    checkBytes(event.contractId, 'contractId');
    if (event.contractId.length !== 32) badArgument('contractId', 'must be 32 bytes');
  }
  checkInteger(event.type, 0, MAX_EVENT_TYPE, 'type');
  checkArray(event.topics, 'topics');
  event.topics.forEach((t, i) => {
    checkBytes(t, `topics[${i}]`);
  });
  checkBytes(event.value, 'value');
  let size = 4 + 4 + contractLen + 4 + 4 + 4 + event.value.length;
  for (const t of event.topics) size += t.length;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let p = 4; // ext v = 0
  dv.setUint32(p, event.contractId === undefined ? 0 : 1);
  p += 4;
  if (event.contractId !== undefined) {
    out.set(event.contractId, p);
    p += 32;
  }
  dv.setUint32(p, event.type);
  dv.setUint32(p + 4, 0); // body v0
  dv.setUint32(p + 8, event.topics.length);
  p += 12;
  for (const t of event.topics) {
    out.set(t, p);
    p += t.length;
  }
  out.set(event.value, p);
  validateContractEvent(out, 0);
  return out;
}
