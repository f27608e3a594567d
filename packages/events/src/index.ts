// @strata/events: the event model shared by the hot tier, the cold tier and the match engine.
export {};
