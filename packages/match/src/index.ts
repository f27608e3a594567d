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
export { describePlan, type IndexPlan, type MatchAllPlan, planQuery, type QueryPlan } from './planner/query-plan.js';
export { MAX_QUERY_FILTERS } from './planner/validate-filters.js';
