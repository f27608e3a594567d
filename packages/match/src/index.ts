// @strata/match: the getEvents match engine.
export { MatchError, MatchErrorCode, type MatchErrorContext } from './errors.js';
export { describePlan, type IndexPlan, type MatchAllPlan, planQuery, type QueryPlan } from './planner/query-plan.js';
export { MAX_QUERY_FILTERS } from './planner/validate-filters.js';
