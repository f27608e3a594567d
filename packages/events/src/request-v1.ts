// getEvents v1 (spec §1.1–1.4; upstream protocol/get_events.go Valid, methods/get_events.go): request decoding and
// validation in upstream's order with its exact messages and JSON-RPC codes, compilation into storage clauses
// (CompileV1EventFilters), the 10,000-ledger scan window, the exclusive cursor and the response cursor.
import { decodeContractStrkey, readScVal } from '@strata/ledger-key';
import { JSON_RPC_CODE, rpcError } from './errors.js';
import { type EventPosition, formatEventId, MAX_POSITION } from './event-id.js';
import { ANY_TOPIC_COUNT, isMatchAll, type StorageFilter } from './filter.js';
import { CONTRACT_EVENT_TYPE } from './payload.js';
import { MAX_TOPIC_POSITIONS } from './terms.js';

export const V1_MAX_FILTERS = 5;
export const V1_MAX_CONTRACT_IDS = 5;
export const V1_MAX_TOPICS = 5;
export const V1_DEFAULT_LIMIT = 100;
export const V1_MAX_LIMIT = 10_000;
/** Ledgers one request scans at most (methods.LedgerScanLimit). */
export const V1_LEDGER_SCAN_LIMIT = 10_000;

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

function invalidParams(message: string): never {
  rpcError({ code: JSON_RPC_CODE.INVALID_PARAMS, message });
}

/*
 * Decoding stage. jrpc2 unmarshals params into the Go struct before Valid() runs, so type errors, bad cursors and
 * undecodable segments surface first, as -32602 with jrpc2's "invalid parameters: " prefix. The detail after the
 * prefix imitates encoding/json and strconv; its exact wording is not part of this package's contract (the jrpc2
 * wrapper was not in the upstream material read; see README "Where spec and upstream differ").
 */
function decodeError(detail: string): never {
  invalidParams(`invalid parameters: ${detail}`);
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

/** strconv.ParseInt / ParseUint semantics for one decimal field (optional sign only for signed). */
function goParse(text: string, signed: boolean, max: bigint, fn: string): bigint {
  const m = (signed ? /^[+-]?\d+$/ : /^\d+$/).exec(text);
  if (m === null) throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > max || (signed && value < -max - 1n)) {
    throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  }
  return value;
}

/**
 * Parses a v1 cursor the way protocol.ParseCursor does: split at the first '-', the left part as int64 (decimal,
 * any width, optional sign), the right as uint32; the TOID is split into ledger/tx/op. Lenient on width, because
 * clients may send what they like and upstream accepts it. Negative TOIDs are rejected here (they name no event;
 * upstream would wrap them into a huge ledger that then fails the range check).
 */
export function parseV1Cursor(input: string): EventPosition {
  const dash = input.indexOf('-');
  if (dash < 0) throw new Error(`invalid event id ${input}`);
  const left = input.slice(0, dash);
  const right = input.slice(dash + 1);
  let id: bigint;
  let event: bigint;
  try {
    id = goParse(left, true, 0x7fffffffffffffffn, 'ParseInt');
    event = goParse(right, false, 0xffffffffn, 'ParseUint');
  } catch (error) {
    throw new Error(`invalid event id ${input}: ${(error as Error).message}`);
  }
  if (id < 0n) throw new Error(`invalid event id ${input}: negative TOID`);
  const low = Number(id & 0xffffffffn);
  return { ledger: Number(id >> 32n), tx: Math.floor(low / 4096), op: low % 4096, event: Number(event) };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes a base64 ScVal segment (xdr.SafeUnmarshalBase64): standard alphabet with padding, one whole ScVal. */
export function decodeScValBase64(text: string): Uint8Array {
  if (!BASE64.test(text)) throw new Error('illegal base64 data');
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  readScVal(bytes); // throws LedgerKeyError on malformed or trailing bytes
  return bytes;
}

interface RawFilter {
  typeKeys: string[];
  contractIds: string[];
  topics: ('*' | '**' | Uint8Array)[][];
}

function decodeFilter(raw: unknown, i: number): RawFilter {
  if (!isObject(raw))
    decodeError(
      `json: cannot unmarshal into Go struct field GetEventsRequest.filters of type protocol.EventFilter (filter ${i + 1})`,
    );
  const out: RawFilter = { typeKeys: [], contractIds: [], topics: [] };
  if (raw.type !== undefined && raw.type !== null) {
    if (typeof raw.type !== 'string')
      decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.type of type string');
    // EventTypeSet.UnmarshalJSON: "" is the empty set; otherwise split at ',' (so "contract," holds "").
    if (raw.type !== '') out.typeKeys = [...new Set(raw.type.split(','))];
  }
  if (raw.contractIds !== undefined && raw.contractIds !== null) {
    if (!Array.isArray(raw.contractIds) || raw.contractIds.some((c) => typeof c !== 'string')) {
      decodeError('json: cannot unmarshal into Go struct field EventFilter.filters.contractIds of type []string');
    }
    out.contractIds = raw.contractIds as string[];
  }
  if (raw.topics !== undefined && raw.topics !== null) {
    if (!Array.isArray(raw.topics))
      decodeError(
        'json: cannot unmarshal into Go struct field EventFilter.filters.topics of type []protocol.TopicFilter',
      );
    out.topics = raw.topics.map((topic) => {
      if (topic === null) return [];
      if (!Array.isArray(topic))
        decodeError(
          'json: cannot unmarshal into Go struct field EventFilter.filters.topics of type protocol.TopicFilter',
        );
      return topic.map((segment) => {
        if (typeof segment !== 'string') decodeError('json: cannot unmarshal into Go value of type string');
        if (segment === '*' || segment === '**') return segment;
        try {
          return decodeScValBase64(segment);
        } catch (error) {
          return decodeError((error as Error).message);
        }
      });
    });
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
  const maxLimit = options.maxLimit ?? V1_MAX_LIMIT;
  const defaultLimit = options.defaultLimit ?? V1_DEFAULT_LIMIT;
  if (!isObject(params)) decodeError('json: cannot unmarshal into Go value of type protocol.GetEventsRequest');

  // --- decoding (struct field order) ---
  const startLedger = uintField(params.startLedger, 'GetEventsRequest.startLedger', 32);
  const endLedger = uintField(params.endLedger, 'GetEventsRequest.endLedger', 32);
  let rawFilters: RawFilter[] = [];
  if (params.filters !== undefined && params.filters !== null) {
    if (!Array.isArray(params.filters))
      decodeError(
        'json: cannot unmarshal into Go struct field GetEventsRequest.filters of type []protocol.EventFilter',
      );
    rawFilters = params.filters.map(decodeFilter);
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
      try {
        cursor = parseV1Cursor(pagination.cursor);
      } catch (error) {
        decodeError((error as Error).message);
      }
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
  if (rawFilters.length > V1_MAX_FILTERS) invalidParams('maximum 5 filters per request');

  const filters: V1Filter[] = rawFilters.map((raw, fi) => {
    const fail = (detail: string): never => invalidParams(`filter ${fi + 1} invalid: ${detail}`);
    for (const key of raw.typeKeys) {
      if (key !== 'system' && key !== 'contract') {
        fail("filter type invalid: if set, type must be either 'system' or 'contract'");
      }
    }
    if (raw.contractIds.length > V1_MAX_CONTRACT_IDS) fail('maximum 5 contract IDs per filter');
    if (raw.topics.length > V1_MAX_TOPICS) fail('maximum 5 topics per filter');
    const contractIds = raw.contractIds.map((id, ci) => {
      try {
        return decodeContractStrkey(id);
      } catch {
        return fail(`contract ID ${ci + 1} invalid`);
      }
    });
    const topics = raw.topics.map((segments, ti): V1TopicFilter => {
      const failTopic = (detail: string): never => fail(`topic ${ti + 1} invalid: ${detail}`);
      if (segments.length < 1) failTopic('topic must have at least 1 segment');
      const trailingAny = segments[segments.length - 1] === '**';
      const fixed = trailingAny ? segments.slice(0, -1) : segments;
      fixed.forEach((s, si) => {
        if (s === '**') failTopic(`segment ${si + 1} invalid: wildcard '**' is only allowed as the last segment`);
      });
      if (fixed.length > MAX_TOPIC_POSITIONS) failTopic(`topic cannot have more than ${MAX_TOPIC_POSITIONS} segments`);
      return { segments: fixed as ('*' | Uint8Array)[], trailingAny };
    });
    return { types: raw.typeKeys as V1EventTypeName[], contractIds, topics };
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
  return formatEventId({ ...MAX_POSITION, ledger: endLedgerExclusive - 1 });
}

/** True for a window-end sentinel (tx 1048575, op 4095): resumes at the next ledger without any I/O. */
export function isWindowEndCursor(p: EventPosition): boolean {
  return p.tx === MAX_POSITION.tx && p.op === MAX_POSITION.op;
}

/** Response cursor: the last event's id when the page is full, else the window-end sentinel. */
export function v1ResponseCursor(pageIds: readonly string[], limit: number, endLedgerExclusive: number): string {
  if (pageIds.length === limit && limit > 0) return pageIds[pageIds.length - 1]!;
  return v1WindowEndCursor(endLedgerExclusive);
}
