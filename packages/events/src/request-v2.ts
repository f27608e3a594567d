// getEventsV2 / queryEvents (spec §1.5): strict request decoding and validation, compilation into storage
// clauses, and the cursor-path checks. Every refusal is JSON-RPC -32602 with error.data.reason set to
// invalid_params, ledger_out_of_range or cursor_malformed (plus that reason's extra fields).
import { decodeContractStrkey, LedgerKeyError } from '@strata/ledger-key';
import { checkInteger, checkObject, describeValue } from './arguments.js';
import { FIRST_LEDGER } from './chunk.js';
import { type CursorPosition, decodeCursorV2, type EventCursorV2 } from './cursor-v2.js';
import { EventsError, JSON_RPC_CODE, rpcError } from './errors.js';
import { countDistinctTerms, isUnconstrained, type StorageFilter, validateStorageFilters } from './filter.js';
import { CONTRACT_EVENT_TYPE } from './payload.js';
import { decodeScValBase64 } from './request-v1.js';

export const V2_MAX_FILTERS = 256;
export const V2_DEFAULT_TERM_BUDGET = 15;
/** MaxLimitV2, a spec constant; an operator may configure a lower maximum. */
export const V2_MAX_LIMIT = 1000;
export const V2_DEFAULT_LIMIT = 100;
/** Ledgers one v2 page scans at most (fixed). */
export const V2_MAX_SCAN_LEDGERS = 10_000;

export const V2_REASON = {
  INVALID_PARAMS: 'invalid_params',
  LEDGER_OUT_OF_RANGE: 'ledger_out_of_range',
  CURSOR_MALFORMED: 'cursor_malformed',
} as const;

export interface V2Options {
  maxLimit?: number;
  defaultLimit?: number;
  maxFilters?: number;
  termBudget?: number;
  /** The served range; enables the ledger_out_of_range checks, desc pinning and cursor_malformed's data. */
  ledgerRange?: { oldestLedger: number; latestLedger: number };
}

interface V2Common {
  limit: number;
  xdrFormat: 'base64' | 'json';
  /** Distinct value terms the query uses (the budget figure). */
  termsUsed: number;
}
export interface V2Query extends V2Common {
  kind: 'query';
  minLedger: number;
  /** Absent for an open ascending query; pinned to latestLedger for desc when ledgerRange was given. */
  maxLedger?: number;
  order: 'asc' | 'desc';
  /** Compiled clauses; [] = match all. */
  filters: StorageFilter[];
}
export interface V2Continuation extends V2Common {
  kind: 'continuation';
  cursor: EventCursorV2;
}
export type V2Request = V2Query | V2Continuation;

const QUERY_FIELDS = new Set(['minLedger', 'maxLedger', 'order', 'filters', 'xdrInputFormat']);
const TOP_FIELDS = new Set([...QUERY_FIELDS, 'cursor', 'limit', 'xdrFormat']);
const FILTER_FIELDS = new Set(['contractId', 'type', 'topic0', 'topic1', 'topic2', 'topic3']);

function invalid(message: string, extra: Record<string, unknown> = {}, cause?: unknown): never {
  rpcError(
    { code: JSON_RPC_CODE.INVALID_PARAMS, message, data: { reason: V2_REASON.INVALID_PARAMS, ...extra } },
    cause,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function u32(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) invalid(`${name} must be a uint32`);
  return v;
}

function rejectUnknown(obj: Record<string, unknown>, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) invalid(`json: unknown field ${describeValue(key)}${where}`);
  }
}

function checkBudget(filters: readonly StorageFilter[], budget: number): number {
  const used = countDistinctTerms(filters);
  if (used > budget) {
    invalid(`query uses ${used} distinct terms, over the budget of ${budget}`, { termsUsed: used, termBudget: budget });
  }
  return used;
}

function compileFilter(raw: unknown, i: number): StorageFilter {
  const where = `filter ${i + 1}`;
  if (!isObject(raw)) invalid(`${where}: must be an object`);
  rejectUnknown(raw, FILTER_FIELDS, ` in ${where}`);
  const f: StorageFilter = { topics: [], topicCount: { count: 0, exact: false } };
  if (raw.contractId !== undefined && raw.contractId !== null) {
    if (typeof raw.contractId !== 'string') invalid(`${where}: contractId must be a string`);
    try {
      f.contractId = decodeContractStrkey(raw.contractId);
    } catch (error) {
      if (!(error instanceof LedgerKeyError)) throw error;
      invalid(`${where}: contractId is not a valid contract strkey`, {}, error);
    }
  }
  if (raw.type !== undefined && raw.type !== null) {
    if (raw.type === 'contract') f.eventType = CONTRACT_EVENT_TYPE.CONTRACT;
    else if (raw.type === 'system') f.eventType = CONTRACT_EVENT_TYPE.SYSTEM;
    else invalid(`${where}: type must be 'contract' or 'system'`);
  }
  const topics: (Uint8Array | undefined)[] = [];
  for (let p = 0; p < 4; p++) {
    const t = raw[`topic${p}`];
    if (t === undefined || t === null) {
      topics.push(undefined);
      continue;
    }
    if (typeof t !== 'string') invalid(`${where}: topic${p} must be a base64 ScVal string`);
    try {
      topics.push(decodeScValBase64(t));
    } catch (error) {
      if (!(error instanceof EventsError)) throw error;
      invalid(`${where}: topic${p} is not a base64 XDR ScVal`, {}, error);
    }
  }
  while (topics.length > 0 && topics[topics.length - 1] === undefined) topics.pop();
  f.topics = topics;
  if (isUnconstrained(f)) invalid(`${where}: at least one field must be set`);
  return f;
}

/**
 * Validates a getEventsV2 params object. Order: strict field check → cursor/query exclusivity → xdrFormat →
 * limit → (continuation) cursor decode and shape checks, term budget, resume range / (query) order, xdrInputFormat,
 * ledger bounds, filters, term budget, range. Throws EventsError(RPC_ERROR) with code -32602 and data.reason.
 */
export function validateGetEventsV2(params: unknown, options: V2Options = {}): V2Request {
  checkObject(options, 'options');
  const maxLimit = options.maxLimit ?? V2_MAX_LIMIT;
  const defaultLimit = options.defaultLimit ?? V2_DEFAULT_LIMIT;
  const maxFilters = options.maxFilters ?? V2_MAX_FILTERS;
  const budget = options.termBudget ?? V2_DEFAULT_TERM_BUDGET;
  const range = options.ledgerRange;
  checkInteger(maxLimit, 1, V2_MAX_LIMIT, 'options.maxLimit');
  checkInteger(defaultLimit, 1, maxLimit, 'options.defaultLimit');
  checkInteger(maxFilters, 1, V2_MAX_FILTERS, 'options.maxFilters');
  checkInteger(budget, 0, Number.MAX_SAFE_INTEGER, 'options.termBudget');
  if (range !== undefined) {
    checkObject(range, 'options.ledgerRange');
    checkInteger(range.oldestLedger, 0, 0xffffffff, 'options.ledgerRange.oldestLedger');
    checkInteger(range.latestLedger, 0, 0xffffffff, 'options.ledgerRange.latestLedger');
  }
  if (!isObject(params)) invalid('params must be an object');
  rejectUnknown(params, TOP_FIELDS, '');

  const hasCursor = params.cursor !== undefined && params.cursor !== null;
  if (hasCursor) {
    const extra = Object.keys(params).filter((k) => QUERY_FIELDS.has(k) && params[k] !== undefined);
    if (extra.length > 0) invalid(`cursor cannot be combined with ${extra.join(', ')}`);
  }
  let xdrFormat: 'base64' | 'json' = 'base64';
  if (params.xdrFormat !== undefined && params.xdrFormat !== null && params.xdrFormat !== '') {
    if (params.xdrFormat !== 'base64' && params.xdrFormat !== 'json') {
      const shown = typeof params.xdrFormat === 'string' ? params.xdrFormat : describeValue(params.xdrFormat);
      invalid(`got '${shown}': expected base64, json for optional 'xdrFormat'`);
    }
    xdrFormat = params.xdrFormat;
  }
  let limit = defaultLimit;
  if (params.limit !== undefined && params.limit !== null) {
    const l = params.limit;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 1 || l > maxLimit)
      invalid(`limit must be between 1 and ${maxLimit}`);
    limit = l;
  }

  if (hasCursor) {
    if (typeof params.cursor !== 'string') invalid('cursor must be a string');
    const malformed = (detail: string): never =>
      rpcError({
        code: JSON_RPC_CODE.INVALID_PARAMS,
        message: `malformed cursor: ${detail}`,
        data: { reason: V2_REASON.CURSOR_MALFORMED, ...(range ?? {}) },
      });
    let cursor: EventCursorV2;
    try {
      cursor = decodeCursorV2(params.cursor);
    } catch (error) {
      if (error instanceof EventsError) return malformed(error.message);
      throw error;
    }
    // Cursors are not signed: reject filters no v2 request produces, and re-check the budget.
    cursor.filters.forEach((f, i) => {
      if (isUnconstrained(f)) malformed(`filter ${i + 1} is empty`);
      if (f.eventType === CONTRACT_EVENT_TYPE.DIAGNOSTIC) malformed(`filter ${i + 1} names type diagnostic`);
      if (f.topicCount.exact || f.topicCount.count !== 0) malformed(`filter ${i + 1} has a topic count`);
    });
    if (cursor.filters.length > maxFilters) malformed(`${cursor.filters.length} filters`);
    try {
      validateStorageFilters(cursor.filters);
    } catch (error) {
      malformed((error as Error).message);
    }
    const termsUsed = checkBudget(cursor.filters, budget);
    if (range !== undefined && !cursor.descending) {
      const resume = resumeLedgerAsc(cursor);
      if (resume < range.oldestLedger) outOfRange(resume, range);
    }
    return { kind: 'continuation', cursor, limit, xdrFormat, termsUsed };
  }

  let order: 'asc' | 'desc' = 'asc';
  if (params.order !== undefined && params.order !== null) {
    if (params.order !== 'asc' && params.order !== 'desc') invalid(`order must be 'asc' or 'desc'`);
    order = params.order;
  }
  if (params.xdrInputFormat !== undefined && params.xdrInputFormat !== null && params.xdrInputFormat !== 'base64') {
    if (params.xdrInputFormat === 'json') invalid(`xdrInputFormat 'json' is not implemented yet`);
    invalid(`xdrInputFormat must be 'base64' or 'json'`);
  }
  let minLedger = u32(params.minLedger, 'minLedger') ?? 0;
  const maxLedger = u32(params.maxLedger, 'maxLedger');
  if (minLedger === 0 && order === 'asc') invalid('minLedger is required for ascending queries');
  if (maxLedger !== undefined && minLedger > maxLedger)
    invalid(`minLedger ${minLedger} is above maxLedger ${maxLedger}`);
  // 0 = omitted (desc defaults to genesis); 1 and other below-genesis values are raised to the first ledger.
  if (minLedger < FIRST_LEDGER) minLedger = FIRST_LEDGER;

  let filters: StorageFilter[] = [];
  if (params.filters !== undefined && params.filters !== null) {
    if (!Array.isArray(params.filters)) invalid('filters must be an array');
    if (params.filters.length === 0) invalid('filters must not be empty; omit it to match all events');
    if (params.filters.length > maxFilters) invalid(`at most ${maxFilters} filters per request`);
    filters = params.filters.map(compileFilter);
  }
  const termsUsed = checkBudget(filters, budget);

  const query: V2Query = { kind: 'query', minLedger, order, filters, limit, xdrFormat, termsUsed };
  if (maxLedger !== undefined) query.maxLedger = maxLedger;
  if (range !== undefined) {
    const whollyBelowGenesis = maxLedger !== undefined && maxLedger < FIRST_LEDGER;
    if (order === 'asc' && !whollyBelowGenesis && minLedger < range.oldestLedger) outOfRange(minLedger, range);
    if (order === 'desc' && maxLedger === undefined) {
      if (minLedger > range.latestLedger) outOfRange(minLedger, range);
      query.maxLedger = range.latestLedger; // pinned at query start, carried by every cursor of the query
    }
  }
  return query;
}

function outOfRange(missingLedger: number, range: { oldestLedger: number; latestLedger: number }): never {
  rpcError({
    code: JSON_RPC_CODE.INVALID_PARAMS,
    message: `ledger ${missingLedger} is outside the served range ${range.oldestLedger} - ${range.latestLedger}`,
    data: { reason: V2_REASON.LEDGER_OUT_OF_RANGE, missingLedger, ...range },
  });
}

/** Where an ascending cursor resumes: the position's ledger (re-entry), else just past the watermark. */
function resumeLedgerAsc(cursor: EventCursorV2): number {
  const position: CursorPosition | undefined = cursor.position;
  if (position !== undefined) return position.ledger;
  return cursor.scannedLedger === 0 ? cursor.minLedger : cursor.scannedLedger + 1;
}
