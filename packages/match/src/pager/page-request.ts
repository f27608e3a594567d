// What one page request names (spec §4.7 state and step 1): the query scope, where the page resumes, and the limit;
// their validation, done before the pager touches the source, and where a request resumes (step 2).
import { describeValue } from '@strata/base';
import {
  type CursorPosition,
  compilePostFilter,
  type EventCursorV2,
  type EventPosition,
  FIRST_LEDGER,
  MAX_LEDGER,
  OP_MASK,
  type PostFilter,
  type StorageFilter,
  TX_MASK,
  V1_MAX_LIMIT,
} from '@strata/events';
import type { Direction } from '../engine/types.js';
import { MatchError, MatchErrorCode } from '../errors.js';
import { planQuery, type QueryPlan } from '../planner/query-plan.js';

/**
 * Most events one page may hold: v1's maximum (V1_MAX_LIMIT, 10,000). v2's is 1,000 (V2_MAX_LIMIT); the RPC layer
 * enforces each API's own bound (and an operator's lower one) before it calls the pager.
 */
export const MAX_PAGE_LIMIT = V1_MAX_LIMIT;

/**
 * What a query asks for, independent of how far it has got: the fields of a v2 cursor's envelope (EventCursorV2
 * minLedger, maxLedger, descending, filters), so a decoded cursor maps onto (scope, position) one to one
 * (scopeOfCursor) and a validated getEventsV2 query (V2Query) is a scope as it is.
 *
 * - `minLedger` ≥ 2 (FIRST_LEDGER; the RPC layer raises lower values), `maxLedger` ≥ minLedger, both inclusive u32s.
 * - `maxLedger` absent: an ascending scope that follows the tip (never COMPLETE). Descending needs one: the RPC layer
 *   pins it to the tip at query start and every cursor carries it.
 * - `filters`: storage clauses (compileV1Filters / getEventsV2's compilation), at most MAX_QUERY_FILTERS (256), valid
 *   for planQuery; [] matches everything.
 */
export interface QueryScope {
  readonly minLedger: number;
  readonly maxLedger?: number;
  readonly order: Direction;
  readonly filters: readonly StorageFilter[];
}

/**
 * Where a v2 page resumes: `position` and `scannedLedger` as an EventCursorV2 holds them (a decoded cursor is one).
 * `scannedLedger` is the last ledger the query has fully covered in walk order, 0 for none; `position` the last
 * delivered event, kept only while its ledger is not fully covered, so its ledger is scannedLedger + 1 ascending,
 * scannedLedger - 1 descending, or the scope's first ledger in walk order when scannedLedger is 0.
 */
export interface V2Resume {
  readonly position?: CursorPosition;
  readonly scannedLedger: number;
}

/**
 * Where a v1 page starts: the INCLUSIVE start position v1ScanWindow computes (the v1 cursor with its event index
 * plus one, wrapping at 2^32 - 1 without carry as upstream does, or (startLedger, 0, 0, 0)). v1 is ascending only.
 * A v1 cursor has no ledger ordinal, so the pager finds the first stored event at or after `from` in its ledger by a
 * binary search over the ledger's ordinals, fetching one event per probe (about log2 of the ledger's event count
 * fetches); a start at (ledger, 0, 0, 0) or at a window-end sentinel (tx 1048575, op 4095, which no stored event
 * has: after-all-transactions events have op 0) needs no fetch.
 */
export interface V1Resume {
  readonly from: EventPosition;
}

/** undefined (the scope's start), a v2 resume point or a v1 one; told apart by `from` vs `scannedLedger`. */
export type PagePosition = V2Resume | V1Resume | undefined;

/** The scope of a decoded v2 cursor: its envelope's minLedger, maxLedger, direction and filters. */
export function scopeOfCursor(cursor: EventCursorV2): QueryScope {
  if (typeof cursor !== 'object' || cursor === null) {
    throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, `expected an EventCursorV2, got ${describeValue(cursor)}`, {
      field: 'cursor',
    });
  }
  const order: Direction = cursor.descending ? 'desc' : 'asc';
  const base = { minLedger: cursor.minLedger, order, filters: cursor.filters };
  return cursor.maxLedger === undefined ? base : { ...base, maxLedger: cursor.maxLedger };
}

/** A scope that passed checkScope, with its plan and post-filter built once for the request. */
export interface CheckedScope {
  readonly minLedger: number;
  readonly maxLedger: number | undefined;
  readonly descending: boolean;
  readonly filters: readonly StorageFilter[];
  readonly plan: QueryPlan;
  readonly postFilter: PostFilter;
}

/** Where the page resumes and what it must check there. */
export interface Resume {
  /** The ledger the page's scan starts at (its leading edge before clamping to the served range). */
  readonly ledger: number;
  /**
   * v2: the re-entry event, fetched and verified, the scan starting just past it; v1: the inclusive start within
   * `ledger`; none: the whole of `ledger`.
   */
  readonly reEntry: { readonly kind: 'v2'; readonly position: CursorPosition } | V1ReEntry | undefined;
  /** The state a page that makes no progress returns unchanged (WAITING_FOR_LEDGERS, OLDEST_REACHED). */
  readonly state: V2Resume;
}

interface V1ReEntry {
  readonly kind: 'v1';
  readonly from: EventPosition;
}

function invalidScope(field: string, detail: string, cause?: unknown): never {
  throw new MatchError(MatchErrorCode.INVALID_SCOPE, detail, cause === undefined ? { field } : { field, cause });
}

function invalidArgument(field: string, detail: string): never {
  throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, detail, { field });
}

/** CURSOR_MALFORMED: a resume point that no page of this scope could have minted. */
export function cursorMalformed(detail: string, context: { field?: string; chunkId?: number } = {}): never {
  throw new MatchError(MatchErrorCode.CURSOR_MALFORMED, detail, context);
}

function isU32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}

/** limit: an integer in 1..MAX_PAGE_LIMIT, checked before anything else (INVALID_SCOPE). */
export function checkLimit(limit: number): void {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    invalidScope('limit', `expected an integer in [1, ${MAX_PAGE_LIMIT}], got ${describeValue(limit)}`);
  }
}

/** Plans the filters once for the request; planQuery's refusal becomes INVALID_SCOPE naming the same field. */
export function planFilters(filters: readonly StorageFilter[]): { plan: QueryPlan; postFilter: PostFilter } {
  let plan: QueryPlan;
  try {
    plan = planQuery(filters);
  } catch (error) {
    if (!(error instanceof MatchError)) throw error;
    return invalidScope(error.field === undefined ? 'scope.filters' : `scope.${error.field}`, error.detail, error);
  }
  return { plan, postFilter: compilePostFilter(filters) };
}

/** Scope sanity (spec §4.7 step 1): bounds, direction, filters. INVALID_SCOPE naming the field. */
export function checkScope(scope: QueryScope): CheckedScope {
  if (typeof scope !== 'object' || scope === null)
    invalidScope('scope', `expected an object, got ${describeValue(scope)}`);
  const { minLedger, maxLedger, order, filters } = scope;
  if (order !== 'asc' && order !== 'desc') {
    invalidScope('scope.order', `expected 'asc' or 'desc', got ${describeValue(order)}`);
  }
  if (!isU32(minLedger) || minLedger < FIRST_LEDGER) {
    invalidScope('scope.minLedger', `expected a ledger of at least ${FIRST_LEDGER}, got ${describeValue(minLedger)}`);
  }
  if (maxLedger !== undefined && (!isU32(maxLedger) || maxLedger < minLedger)) {
    invalidScope(
      'scope.maxLedger',
      `expected a ledger of at least minLedger ${minLedger}, got ${describeValue(maxLedger)}`,
    );
  }
  if (order === 'desc' && maxLedger === undefined)
    invalidScope('scope.maxLedger', 'a descending scope needs a max ledger');
  return { minLedger, maxLedger, descending: order === 'desc', filters, ...planFilters(filters) };
}

/** A position's fields: u32s (INVALID_ARGUMENT), within an event id's ranges (CURSOR_MALFORMED). */
export function checkCoordinates(p: EventPosition, field: string, ledgerOrdinal: boolean): void {
  if (typeof p !== 'object' || p === null) invalidArgument(field, `expected a position, got ${describeValue(p)}`);
  const names = ledgerOrdinal
    ? (['ledger', 'tx', 'op', 'event', 'ledgerOrdinal'] as const)
    : (['ledger', 'tx', 'op', 'event'] as const);
  for (const name of names) {
    const value = (p as unknown as Record<string, unknown>)[name];
    if (!isU32(value)) invalidArgument(`${field}.${name}`, `expected a u32, got ${describeValue(value)}`);
  }
  // u32s a decoded cursor can hold but no event id can: a forged or corrupt cursor.
  if (p.ledger > MAX_LEDGER || p.tx > TX_MASK || p.op > OP_MASK) {
    cursorMalformed(`position (${p.ledger}, ${p.tx}, ${p.op}, ${p.event}) is not an event id`, { field });
  }
}

function inScope(scope: CheckedScope, ledger: number): boolean {
  return ledger >= scope.minLedger && (scope.maxLedger === undefined || ledger <= scope.maxLedger);
}

/**
 * Checks a resume point against the scope (spec §4.7 step 1: bookmarks inside the scope, position and watermark
 * paired) and finds where the page starts (step 2). Wrong types are INVALID_ARGUMENT; values a page of this scope
 * cannot have minted are CURSOR_MALFORMED; a v1 resume point on a descending scope is INVALID_SCOPE.
 */
export function checkResume(scope: CheckedScope, position: PagePosition): Resume {
  const anchor = scope.descending ? scope.maxLedger! : scope.minLedger;
  if (position === undefined) return { ledger: anchor, reEntry: undefined, state: { scannedLedger: 0 } };
  if (typeof position !== 'object' || position === null) {
    invalidArgument('position', `expected a V2Resume or V1Resume, got ${describeValue(position)}`);
  }
  const isV1 = 'from' in position;
  if (isV1 === 'scannedLedger' in position) {
    invalidArgument('position', 'expected exactly one of `from` (v1) and `scannedLedger` (v2)');
  }
  if (isV1) {
    const { from } = position as V1Resume;
    checkCoordinates(from, 'position.from', false);
    if (scope.descending) invalidScope('scope.order', 'a v1 resume point needs an ascending scope');
    if (!inScope(scope, from.ledger)) cursorMalformed(`v1 start ledger ${from.ledger} is outside the scope`);
    // The v2 state of a page that makes no progress: the ledgers before `from`'s covered (exact at a ledger start).
    const mark = from.ledger - 1 >= scope.minLedger ? from.ledger - 1 : 0;
    return { ledger: from.ledger, reEntry: { kind: 'v1', from }, state: { scannedLedger: mark } };
  }
  const state = position as V2Resume;
  const mark = state.scannedLedger;
  if (!isU32(mark)) invalidArgument('position.scannedLedger', `expected a u32, got ${describeValue(mark)}`);
  if (mark !== 0 && !inScope(scope, mark)) cursorMalformed(`scanned ledger ${mark} is outside the scope`);
  if (state.position === undefined) {
    if (mark === 0) return { ledger: anchor, reEntry: undefined, state: { scannedLedger: 0 } };
    // Past the mark; may leave the scope (a finished scope: COMPLETE).
    return { ledger: scope.descending ? mark - 1 : mark + 1, reEntry: undefined, state: { scannedLedger: mark } };
  }
  const p = state.position;
  checkCoordinates(p, 'position.position', true);
  const expected = mark === 0 ? anchor : scope.descending ? mark - 1 : mark + 1;
  if (!inScope(scope, p.ledger)) cursorMalformed(`position ledger ${p.ledger} is outside the scope`);
  if (p.ledger !== expected) {
    cursorMalformed(
      `position ledger ${p.ledger} does not pair with scanned ledger ${mark} (${scope.descending ? 'descending' : 'ascending'}: expected ${expected})`,
    );
  }
  const kept: CursorPosition = { ledger: p.ledger, tx: p.tx, op: p.op, event: p.event, ledgerOrdinal: p.ledgerOrdinal };
  return { ledger: p.ledger, reEntry: { kind: 'v2', position: kept }, state: { position: kept, scannedLedger: mark } };
}
