// @strata/ledger-meta: ledger sources, event and change extraction, synthetic networks.
export {};
