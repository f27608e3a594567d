// @strata/ledger-key: zero-copy XDR for ledger keys and entries, and stellar-core's order of ledger keys.
export {};
