// The planner's input check (spec §4.1; upstream match.go ValidateFilters): @strata/events' validateStorageFilters,
// its EventsError turned into this package's MatchError naming the clause and, where it can, the field within it,
// plus the cap on how many clauses one query may hold.
import {
  ANY_TOPIC_COUNT,
  EventsError,
  EventsErrorCode,
  MAX_CURSOR_FILTERS,
  type StorageFilter,
  validateStorageFilters,
} from '@strata/events';
import { MatchError, MatchErrorCode } from '../errors.js';

/**
 * Most storage filters one query may hold. It is the v2 cursor's cap (MAX_CURSOR_FILTERS = V2_MAX_FILTERS = 256),
 * since a query the pager cannot resume cannot be served; v1 compiles to at most 5 filters × 2 types × 5 contracts ×
 * 5 topic filters = 250 clauses. Upstream's engine has no cap of its own (its callers bound the list). The v2
 * distinct-term budget (15, V2_DEFAULT_TERM_BUDGET) is the RPC layer's check, not the planner's.
 */
export const MAX_QUERY_FILTERS = MAX_CURSOR_FILTERS;

function refuse(detail: string, field: string | undefined, cause?: unknown): never {
  const context = cause === undefined ? {} : { cause };
  throw new MatchError(MatchErrorCode.INVALID_ARGUMENT, detail, field === undefined ? context : { ...context, field });
}

/** True when @strata/events accepts `filter` as the only clause of a query. */
function acceptedAlone(filter: StorageFilter): boolean {
  try {
    validateStorageFilters([filter]);
    return true;
  } catch (error) {
    if (error instanceof EventsError) return false;
    throw error;
  }
}

/**
 * validateStorageFilters names only the clause (`filters[i]`) for a contract id of the wrong length or a topic that
 * is not one ScVal; this finds which field it was by checking the clause's contract id and each topic alone. Only
 * called once every clause has passed the shape checks, so the fields have their declared types.
 */
function fieldWithinClause(filter: StorageFilter, i: number): string {
  const { contractId } = filter;
  if (contractId !== undefined && !acceptedAlone({ contractId, topics: [], topicCount: ANY_TOPIC_COUNT })) {
    return `filters[${i}].contractId`;
  }
  for (let p = 0; p < filter.topics.length; p++) {
    const topic = filter.topics[p];
    if (topic !== undefined && !acceptedAlone({ topics: [topic], topicCount: ANY_TOPIC_COUNT })) {
      return `filters[${i}].topics[${p}]`;
    }
  }
  return `filters[${i}]`;
}

const WHOLE_CLAUSE = /^filters\[(\d+)\]$/;

/**
 * Refuses what upstream ValidateFilters refuses (a contract id that is not 32 bytes, an event type outside 0..2, a
 * topic that is not exactly one ScVal, a topic count outside 0..4) and what the TypeScript shape adds (wrong types,
 * more than 4 topic positions), plus more than MAX_QUERY_FILTERS clauses: MatchError INVALID_ARGUMENT whose `field`
 * names the clause and the field (`filters[3].topics[1]`), with the EventsError as `cause`. Every clause is checked,
 * including those after an unconstrained one, as upstream checks before it plans.
 */
export function validateFilters(filters: readonly StorageFilter[]): void {
  // The cap first: a list over it is refused by its length, its elements never looked at.
  if (Array.isArray(filters) && filters.length > MAX_QUERY_FILTERS) {
    refuse(`${filters.length} filters, more than the ${MAX_QUERY_FILTERS} one query may hold`, 'filters');
  }
  try {
    validateStorageFilters(filters);
  } catch (error) {
    if (!(error instanceof EventsError) || error.code !== EventsErrorCode.INVALID_ARGUMENT) throw error;
    const clause = error.field === undefined ? null : WHOLE_CLAUSE.exec(error.field);
    const i = clause === null ? -1 : Number(clause[1]);
    const filter: unknown = i < 0 ? undefined : filters[i];
    // A clause that is an object failed a value check (the shape checks of every clause ran first).
    const field =
      typeof filter === 'object' && filter !== null && !Array.isArray(filter)
        ? fieldWithinClause(filter as StorageFilter, i)
        : error.field;
    refuse(error.detail, field, error);
  }
}
