// @strata/match: the getEvents match engine.
export { MatchError, MatchErrorCode, type MatchErrorContext } from './errors.js';
