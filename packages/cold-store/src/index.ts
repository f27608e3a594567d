// @strata/cold-store: frozen chunks of the contract-event store (issue 20; being built).
export {};
