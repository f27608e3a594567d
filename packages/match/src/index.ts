// @strata/match: the getEvents match engine.
export type { SlabAndAllocations } from './bitmap/slab-and.js';
export { matchEvents } from './engine/match-events.js';
export {
  type Direction,
  MATCH_BATCH_SIZE,
  MAX_FIRST_BATCH,
  type Match,
  type MatchOptions,
  type MatchTrace,
  SLAB_SHIFT,
  STAGE1_SLABS,
} from './engine/types.js';
export { MatchError, MatchErrorCode, type MatchErrorContext } from './errors.js';
export type { EventChunkSource, LedgerRange } from './pager/event-source.js';
export {
  MAX_PAGE_LIMIT,
  type PagePosition,
  type QueryScope,
  scopeOfCursor,
  type V1Resume,
  type V2Resume,
} from './pager/page-request.js';
export { type EventPage, MAX_SCAN_LEDGERS, type PageEvent, queryEvents, ScanStatus } from './pager/query-events.js';
export { queryEventsV1, type V1Page } from './pager/query-events-v1.js';
export { describePlan, type IndexPlan, type MatchAllPlan, planQuery, type QueryPlan } from './planner/query-plan.js';
export { MAX_QUERY_FILTERS } from './planner/validate-filters.js';
