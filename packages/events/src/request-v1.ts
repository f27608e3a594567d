// getEvents v1 (spec §1.1–1.4; upstream protocol/get_events.go Valid, methods/get_events.go): request decoding and
// validation in upstream's order with its exact messages and JSON-RPC codes, compilation into storage clauses
// (CompileV1EventFilters), the 10,000-ledger scan window, the exclusive cursor and the response cursor.
import { decodeContractStrkey, LedgerKeyError } from '@strata/ledger-key';
import {
  badArgument,
  checkArray,
  checkBytes,
  checkInteger,
  checkObject,
  checkString,
  describeValue,
} from './arguments.js';
import { EventsError, EventsErrorCode, JSON_RPC_CODE, rpcError } from './errors.js';
import { checkPosition, type EventPosition, formatEventId, MAX_LEDGER, MAX_POSITION } from './event-id.js';
import { ANY_TOPIC_COUNT, isMatchAll, type StorageFilter } from './filter.js';
import { CONTRACT_EVENT_TYPE, scValAt } from './payload.js';
import { MAX_TOPIC_POSITIONS } from './terms.js';

export const V1_MAX_FILTERS = 5;
export const V1_MAX_CONTRACT_IDS = 5;
export const V1_MAX_TOPICS = 5;
export const V1_DEFAULT_LIMIT = 100;
export const V1_MAX_LIMIT = 10_000;
/** Ledgers one request scans at most (methods.LedgerScanLimit). */
export const V1_LEDGER_SCAN_LIMIT = 10_000;
/**
 * Longest v1 cursor accepted, checked before the cursor is parsed: the `%019d-%010d` form every id has (19 TOID
 * digits, '-', 10 event-index digits). Upstream's strconv accepts any number of leading zeros; every event has a
 * 30-character id, so the bound refuses only over-padded spellings, never an event, and it keeps a caller from making
 * the parse cost time (BigInt of n digits is quadratic in n).
 */
export const V1_MAX_CURSOR_LENGTH = 30;
/** Longest `type` string of a v1 filter ("contract,system" is 15 characters; repeats are allowed up to this). */
export const V1_MAX_TYPE_LENGTH = 64;
/**
 * Longest topic segment (v1) or topic value (v2) accepted, in bytes of ScVal XDR. Checked on the base64 text before
 * it is decoded (MAX_TOPIC_BASE64_LENGTH characters). A stored topic is far smaller: all events of a transaction
 * together are capped by the network setting txMaxContractEventsSizeBytes (ConfigSettingContractEventsV0).
 */
export const MAX_TOPIC_XDR_BYTES = 65_536;
/** MAX_TOPIC_XDR_BYTES as padded base64 characters. */
export const MAX_TOPIC_BASE64_LENGTH = 4 * Math.ceil(MAX_TOPIC_XDR_BYTES / 3);

export type V1EventTypeName = 'system' | 'contract';
/** One topic filter: segments ('*' or raw ScVal XDR) and whether a trailing '**' followed them. */
export interface V1TopicFilter {
  segments: readonly ('*' | Uint8Array)[];
  trailingAny: boolean;
}
export interface V1Filter {
  /** Empty = any type. Upstream keeps a set, so duplicates collapse. */
  types: readonly V1EventTypeName[];
  contractIds: readonly Uint8Array[];
  topics: readonly V1TopicFilter[];
}
/** A request that passed decoding and Valid(). */
export interface V1Request {
  startLedger: number;
  endLedger: number;
  cursor: EventPosition | undefined;
  /** pagination.limit after defaulting (0/absent → default). */
  limit: number;
  xdrFormat: 'base64' | 'json';
  filters: readonly V1Filter[];
}

export interface V1Options {
  maxLimit?: number;
  defaultLimit?: number;
}

function invalidParams(message: string, cause?: unknown): never {
  rpcError({ code: JSON_RPC_CODE.INVALID_PARAMS, message }, cause);
}

/*
 * Decoding stage. jrpc2 unmarshals params into the Go struct before Valid() runs, so type errors, bad cursors and
 * undecodable segments surface first, as -32602 with jrpc2's "invalid parameters: " prefix. The detail after the
 * prefix imitates encoding/json and strconv; its exact wording is not part of this package's contract (the jrpc2
 * wrapper was not in the upstream material read; see README "Where spec and upstream differ").
 */
function decodeError(detail: string, cause?: unknown): never {
  invalidParams(`invalid parameters: ${detail}`, cause);
}

/** Runs `decode`; an EventsError it throws becomes the decoding-stage refusal carrying its detail (and it as cause). */
function decodingStage<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof EventsError) return decodeError(error.detail, error);
    throw error;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function uintField(v: unknown, path: string, bits: 32 | 64): number {
  if (v === undefined || v === null) return 0;
  const max = bits === 32 ? 0xffffffff : Number.MAX_SAFE_INTEGER;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    decodeError(
      `json: cannot unmarshal ${typeof v === 'number' ? `number ${v}` : typeof v} into Go struct field ${path} of type uint${bits === 32 ? 32 : ''}`,
    );
  }
  return v;
}

/** strconv.ParseInt / ParseUint semantics for one decimal field (optional sign only for signed); `text` is short. */
function goParse(text: string, signed: boolean, max: bigint, fn: string, fail: (detail: string) => never): bigint {
  const m = (signed ? /^[+-]?\d+$/ : /^\d+$/).exec(text);
  if (m === null) fail(`strconv.${fn}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > max || (signed && value < -max - 1n)) {
    fail(`strconv.${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  }
  return value;
}

/**
 * Parses a v1 cursor the way protocol.ParseCursor does: split at the first '-', the left part as int64 (decimal,
 * optional sign, leading zeros allowed), the right as uint32; the TOID is split into ledger/tx/op. Lenient on width
 * within V1_MAX_CURSOR_LENGTH characters, because clients may send what they like and upstream accepts it; a longer
 * cursor is TOO_LONG before any of it is parsed. Negative TOIDs are rejected here (they name no event; upstream would
 * wrap them into a huge ledger that then fails the range check). Other malformed cursors are BAD_EVENT_ID with
 * upstream's text as `detail`; a non-string is INVALID_ARGUMENT.
 */
export function parseV1Cursor(input: string): EventPosition {
  checkString(input, 'cursor');
  if (input.length > V1_MAX_CURSOR_LENGTH) {
    throw new EventsError(
      EventsErrorCode.TOO_LONG,
      `invalid event id: ${input.length} characters, more than the ${V1_MAX_CURSOR_LENGTH} of %019d-%010d`,
      { field: 'cursor' },
    );
  }
  const bad = (detail: string): never => {
    throw new EventsError(EventsErrorCode.BAD_EVENT_ID, `invalid event id ${input}${detail}`, { field: 'cursor' });
  };
  const dash = input.indexOf('-');
  if (dash < 0) bad('');
  const fail = (detail: string): never => bad(`: ${detail}`);
  const id = goParse(input.slice(0, dash), true, 0x7fffffffffffffffn, 'ParseInt', fail);
  const event = goParse(input.slice(dash + 1), false, 0xffffffffn, 'ParseUint', fail);
  if (id < 0n) fail('negative TOID');
  const low = Number(id & 0xffffffffn);
  return { ledger: Number(id >> 32n), tx: Math.floor(low / 4096), op: low % 4096, event: Number(event) };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes a base64 ScVal segment (xdr.SafeUnmarshalBase64): standard alphabet with padding, one whole ScVal. Throws
 * EventsError: TOO_LONG over MAX_TOPIC_BASE64_LENGTH characters (checked first), BAD_XDR for text that is not
 * base64 or bytes that are not exactly one ScVal (`cause` holds ledger-key's error), INVALID_ARGUMENT for a
 * non-string.
 */
export function decodeScValBase64(text: string): Uint8Array {
  checkString(text, 'topic');
  if (text.length > MAX_TOPIC_BASE64_LENGTH) {
    throw new EventsError(
      EventsErrorCode.TOO_LONG,
      `${text.length} base64 characters, more than the ${MAX_TOPIC_BASE64_LENGTH} of a ${MAX_TOPIC_XDR_BYTES}-byte ScVal`,
      { field: 'topic' },
    );
  }
  if (!BASE64.test(text)) throw new EventsError(EventsErrorCode.BAD_XDR, 'illegal base64 data', { field: 'topic' });
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  const end = scValAt(bytes, 0).xdr.length;
  if (end !== bytes.length) {
    throw new EventsError(EventsErrorCode.BAD_XDR, `${bytes.length - end} bytes after the ScVal`, {
      offset: end,
      field: 'topic',
    });
  }
  return bytes;
}

/*
 * Bounds before work. Every list and string of a request is checked against its cap before anything in it is
 * decoded, so a request costs time in proportion to what the caps allow, whatever its size: the cursor, the type and
 * each segment by length (refused while decoding), and filters, contract ids, topics and segments by count. A list
 * over its cap keeps only its length and its elements are never decoded; the cap then refuses the request at its
 * place in Valid()'s order, so the message is upstream's unless an element inside the over-cap list would not have
 * decoded (upstream decodes everything first and would report that element).
 */

/** Most segments a topic can hold: MAX_TOPIC_POSITIONS and a trailing '**'. */
const MAX_TOPIC_SEGMENTS = MAX_TOPIC_POSITIONS + 1;

/** A decoded topic, or one over MAX_TOPIC_SEGMENTS: then only where a '**' sits among its first segments (or -1). */
type RawTopic = ('*' | '**' | Uint8Array)[] | { overCap: true; doubleWildcardAt: number };

interface RawFilter {
  /** The distinct type names; undefined when the type string is longer than V1_MAX_TYPE_LENGTH. */
  typeKeys: string[] | undefined;
  contractIdCount: number;
  /** Empty when contractIdCount is over V1_MAX_CONTRACT_IDS. */
  contractIds: string[];
  topicCount: number;
  /** Empty when topicCount is over V1_MAX_TOPICS. */
  topics: RawTopic[];
}

function decodeTopic(topic: unknown): RawTopic {
  if (topic === null) return [];
  if (!Array.isArray(topic))
    decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.topics of type protocol.TopicFilter');
  if (topic.length > MAX_TOPIC_SEGMENTS) {
    return { overCap: true, doubleWildcardAt: topic.slice(0, MAX_TOPIC_SEGMENTS).indexOf('**') };
  }
  return topic.map((segment) => {
    if (typeof segment !== 'string') decodeError('json: cannot unmarshal into Go value of type string');
    if (segment === '*' || segment === '**') return segment;
    return decodingStage(() => decodeScValBase64(segment));
  });
}

function decodeFilter(raw: unknown, i: number): RawFilter {
  if (!isObject(raw))
    decodeError(
      `json: cannot unmarshal into Go struct field GetEventsRequest.filters of type protocol.EventFilter (filter ${i + 1})`,
    );
  const out: RawFilter = { typeKeys: [], contractIdCount: 0, contractIds: [], topicCount: 0, topics: [] };
  if (raw.type !== undefined && raw.type !== null) {
    if (typeof raw.type !== 'string')
      decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.type of type string');
    // EventTypeSet.UnmarshalJSON: "" is the empty set; otherwise split at ',' (so "contract," holds "").
    if (raw.type.length > V1_MAX_TYPE_LENGTH) out.typeKeys = undefined;
    else if (raw.type !== '') out.typeKeys = [...new Set(raw.type.split(','))];
  }
  if (raw.contractIds !== undefined && raw.contractIds !== null) {
    if (!Array.isArray(raw.contractIds))
      decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.contractIds of type []string');
    out.contractIdCount = raw.contractIds.length;
    if (out.contractIdCount <= V1_MAX_CONTRACT_IDS) {
      if (raw.contractIds.some((c) => typeof c !== 'string'))
        decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.contractIds of type []string');
      out.contractIds = raw.contractIds as string[];
    }
  }
  if (raw.topics !== undefined && raw.topics !== null) {
    if (!Array.isArray(raw.topics))
      decodeError(
        'json: cannot unmarshal into Go struct field EventFilter.filters.topics of type []protocol.TopicFilter',
      );
    out.topicCount = raw.topics.length;
    if (out.topicCount <= V1_MAX_TOPICS) out.topics = raw.topics.map(decodeTopic);
  }
  return out;
}

/**
 * Validates a v1 `getEvents` params object. Order: decode (types, cursor, segments) → xdrFormat → cursor vs
 * ledger range → startLedger > 0 → limit ≤ max → ≤ 5 filters → per filter (type, ≤ 5 contract ids, ≤ 5 topics,
 * contract strkeys, per topic: ≥ 1 segment, '**' placement, ≤ 4 segments). All failures are -32602 with upstream's
 * message; throws EventsError(RPC_ERROR).
 */
export function validateGetEventsV1(params: unknown, options: V1Options = {}): V1Request {
  checkObject(options, 'options');
  const maxLimit = options.maxLimit ?? V1_MAX_LIMIT;
  const defaultLimit = options.defaultLimit ?? V1_DEFAULT_LIMIT;
  checkInteger(maxLimit, 1, Number.MAX_SAFE_INTEGER, 'options.maxLimit');
  checkInteger(defaultLimit, 1, Number.MAX_SAFE_INTEGER, 'options.defaultLimit');
  if (!isObject(params)) decodeError('json: cannot unmarshal into Go value of type protocol.GetEventsRequest');

  // --- decoding (struct field order) ---
  const startLedger = uintField(params.startLedger, 'GetEventsRequest.startLedger', 32);
  const endLedger = uintField(params.endLedger, 'GetEventsRequest.endLedger', 32);
  let filterCount = 0;
  let rawFilters: RawFilter[] = [];
  if (params.filters !== undefined && params.filters !== null) {
    if (!Array.isArray(params.filters))
      decodeError(
        'json: cannot unmarshal into Go struct field GetEventsRequest.filters of type []protocol.EventFilter',
      );
    filterCount = params.filters.length;
    if (filterCount <= V1_MAX_FILTERS) rawFilters = params.filters.map(decodeFilter);
  }
  let cursor: EventPosition | undefined;
  let limit = 0;
  const pagination = params.pagination;
  if (pagination !== undefined && pagination !== null) {
    if (!isObject(pagination))
      decodeError(
        'json: cannot unmarshal into Go struct field GetEventsRequest.pagination of type protocol.PaginationOptions',
      );
    if (pagination.cursor !== undefined && pagination.cursor !== null) {
      if (typeof pagination.cursor !== 'string') decodeError('json: cannot unmarshal into Go value of type string');
      const text = pagination.cursor;
      cursor = decodingStage(() => parseV1Cursor(text));
    }
    limit = uintField(pagination.limit, 'PaginationOptions.pagination.limit', 64);
  }
  let format = '';
  if (params.xdrFormat !== undefined && params.xdrFormat !== null) {
    if (typeof params.xdrFormat !== 'string')
      decodeError('json: cannot unmarshal into Go struct field GetEventsRequest.xdrFormat of type string');
    format = params.xdrFormat;
  }

  // --- GetEventsRequest.Valid, in order ---
  if (format !== '' && format !== 'base64' && format !== 'json') {
    invalidParams(`got '${format}': expected base64, json for optional 'xdrFormat'`);
  }
  if (cursor !== undefined) {
    if (startLedger !== 0 || endLedger !== 0) invalidParams('ledger ranges and cursor cannot both be set');
  } else if (startLedger <= 0) {
    invalidParams('startLedger must be positive');
  }
  if (limit > maxLimit) invalidParams(`limit must not exceed ${maxLimit}`);
  if (filterCount > V1_MAX_FILTERS) invalidParams('maximum 5 filters per request');

  const filters: V1Filter[] = rawFilters.map((raw, fi) => {
    const fail = (detail: string): never => invalidParams(`filter ${fi + 1} invalid: ${detail}`);
    const typeKeys = raw.typeKeys ?? fail(`filter type invalid: longer than ${V1_MAX_TYPE_LENGTH} characters`);
    for (const key of typeKeys) {
      if (key !== 'system' && key !== 'contract') {
        fail("filter type invalid: if set, type must be either 'system' or 'contract'");
      }
    }
    if (raw.contractIdCount > V1_MAX_CONTRACT_IDS) fail('maximum 5 contract IDs per filter');
    if (raw.topicCount > V1_MAX_TOPICS) fail('maximum 5 topics per filter');
    const contractIds = raw.contractIds.map((id, ci) => {
      try {
        return decodeContractStrkey(id);
      } catch (error) {
        if (error instanceof LedgerKeyError) return fail(`contract ID ${ci + 1} invalid`);
        throw error;
      }
    });
    const topics = raw.topics.map((segments, ti): V1TopicFilter => {
      const failTopic = (detail: string): never => fail(`topic ${ti + 1} invalid: ${detail}`);
      const wildcardMisplaced = (si: number): never =>
        failTopic(`segment ${si + 1} invalid: wildcard '**' is only allowed as the last segment`);
      if (!Array.isArray(segments)) {
        // Over MAX_TOPIC_SEGMENTS: no '**' among its first segments is last, and it has too many segments anyway.
        if (segments.doubleWildcardAt >= 0) wildcardMisplaced(segments.doubleWildcardAt);
        return failTopic(`topic cannot have more than ${MAX_TOPIC_POSITIONS} segments`);
      }
      if (segments.length < 1) failTopic('topic must have at least 1 segment');
      const trailingAny = segments[segments.length - 1] === '**';
      const fixed = trailingAny ? segments.slice(0, -1) : segments;
      fixed.forEach((s, si) => {
        if (s === '**') wildcardMisplaced(si);
      });
      if (fixed.length > MAX_TOPIC_POSITIONS) failTopic(`topic cannot have more than ${MAX_TOPIC_POSITIONS} segments`);
      return { segments: fixed as ('*' | Uint8Array)[], trailingAny };
    });
    return { types: typeKeys as V1EventTypeName[], contractIds, topics };
  });

  return {
    startLedger,
    endLedger,
    cursor,
    limit: limit === 0 ? defaultLimit : limit,
    xdrFormat: format === 'json' ? 'json' : 'base64',
    filters,
  };
}

/**
 * CompileV1EventFilters: each filter becomes types × contractIds × topic filters storage clauses (an absent
 * dimension contributes one "any"); a topic filter pins its values by position and its arity goes into the topic
 * count (exact n without '**', at least n-1 with it). Returns [] (match-all) when any clause is unconstrained.
 * Multi-type filters are not folded into match-all (the version the spec read does not fold).
 */
export function compileV1Filters(filters: readonly V1Filter[]): StorageFilter[] {
  checkArray(filters, 'filters');
  filters.forEach((f, i) => {
    checkObject(f, `filters[${i}]`);
    checkArray(f.types, `filters[${i}].types`);
    checkArray(f.contractIds, `filters[${i}].contractIds`);
    checkArray(f.topics, `filters[${i}].topics`);
    f.types.forEach((t, ti) => {
      if (t !== 'system' && t !== 'contract') badArgument(`filters[${i}].types[${ti}]`, describeValue(t));
    });
    f.contractIds.forEach((c, ci) => {
      checkBytes(c, `filters[${i}].contractIds[${ci}]`);
    });
    f.topics.forEach((topic, ti) => {
      checkObject(topic, `filters[${i}].topics[${ti}]`);
      checkArray(topic.segments, `filters[${i}].topics[${ti}].segments`);
      topic.segments.forEach((segment, si) => {
        if (segment !== '*') checkBytes(segment, `filters[${i}].topics[${ti}].segments[${si}]`);
      });
    });
  });
  const out: StorageFilter[] = [];
  for (const f of filters) {
    const types: (number | undefined)[] =
      f.types.length === 0
        ? [undefined]
        : f.types.map((t) => (t === 'system' ? CONTRACT_EVENT_TYPE.SYSTEM : CONTRACT_EVENT_TYPE.CONTRACT));
    const contracts: (Uint8Array | undefined)[] = f.contractIds.length === 0 ? [undefined] : [...f.contractIds];
    const shapes: (V1TopicFilter | undefined)[] = f.topics.length === 0 ? [undefined] : [...f.topics];
    for (const eventType of types) {
      for (const contractId of contracts) {
        for (const shape of shapes) {
          const clause: StorageFilter = {
            topics: shape === undefined ? [] : shape.segments.map((s) => (s === '*' ? undefined : s)),
            topicCount:
              shape === undefined
                ? { ...ANY_TOPIC_COUNT }
                : { count: shape.segments.length, exact: !shape.trailingAny },
          };
          if (eventType !== undefined) clause.eventType = eventType;
          if (contractId !== undefined) clause.contractId = contractId;
          out.push(clause);
        }
      }
    }
  }
  return isMatchAll(out) ? [] : out;
}

/** The scan of one v1 request: inclusive start position and the exclusive end ledger. */
export interface V1ScanWindow {
  start: EventPosition;
  endLedgerExclusive: number;
}

/**
 * methods/get_events.go: start = cursor with event+1 (uint32 wrap, no carry, as upstream) or (startLedger,0,0,0);
 * end = min(start.ledger + 10000, latest + 1, endLedger if set); then start.ledger must lie in [oldest, latest],
 * else -32600 "startLedger must be within the ledger range: <oldest> - <latest>".
 */
export function v1ScanWindow(request: V1Request, range: { oldestLedger: number; latestLedger: number }): V1ScanWindow {
  checkObject(request, 'request');
  checkInteger(request.startLedger, 0, 0xffffffff, 'request.startLedger');
  checkInteger(request.endLedger, 0, 0xffffffff, 'request.endLedger');
  if (request.cursor !== undefined) checkPosition(request.cursor, 'request.cursor');
  checkObject(range, 'range');
  checkInteger(range.oldestLedger, 0, 0xffffffff, 'range.oldestLedger');
  checkInteger(range.latestLedger, 0, 0xffffffff, 'range.latestLedger');
  const start: EventPosition =
    request.cursor === undefined
      ? { ledger: request.startLedger, tx: 0, op: 0, event: 0 }
      : { ...request.cursor, event: (request.cursor.event + 1) % 0x100000000 };
  let end = Math.min(start.ledger + V1_LEDGER_SCAN_LIMIT, range.latestLedger + 1);
  if (request.endLedger !== 0) end = Math.min(request.endLedger, end);
  if (start.ledger < range.oldestLedger || start.ledger > range.latestLedger) {
    rpcError({
      code: JSON_RPC_CODE.INVALID_REQUEST,
      message: `startLedger must be within the ledger range: ${range.oldestLedger} - ${range.latestLedger}`,
    });
  }
  return { start, endLedgerExclusive: end };
}

/** The window-end sentinel id: MaxCursor with its ledger set to the last scanned ledger. */
export function v1WindowEndCursor(endLedgerExclusive: number): string {
  checkInteger(endLedgerExclusive, 1, MAX_LEDGER + 1, 'endLedgerExclusive');
  return formatEventId({ ...MAX_POSITION, ledger: endLedgerExclusive - 1 });
}

/** True for a window-end sentinel (tx 1048575, op 4095): resumes at the next ledger without any I/O. */
export function isWindowEndCursor(p: EventPosition): boolean {
  checkPosition(p);
  return p.tx === MAX_POSITION.tx && p.op === MAX_POSITION.op;
}

/** Response cursor: the last event's id when the page is full, else the window-end sentinel. */
export function v1ResponseCursor(pageIds: readonly string[], limit: number, endLedgerExclusive: number): string {
  checkArray(pageIds, 'pageIds');
  checkInteger(limit, 0, Number.MAX_SAFE_INTEGER, 'limit');
  if (pageIds.length === limit && limit > 0) checkString(pageIds[pageIds.length - 1], `pageIds[${limit - 1}]`);
  if (pageIds.length === limit && limit > 0) return pageIds[pageIds.length - 1]!;
  return v1WindowEndCursor(endLedgerExclusive);
}
