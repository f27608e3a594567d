// Deterministic synthetic Stellar networks: a stream of LedgerCloseMeta v2 ledgers with pubnet-like CAP-67 asset
// events and a valid ledger-entry history, plus (optionally) a record of every event and of each ledger's
// init/live/dead batch, so tests can check readers against what was written.
//
// Event shapes follow CAP-67 (stellar-protocol core/cap-0067.md, "Semantics"): transfer [sym, from, to, sep0011
// asset string] i128; mint [sym, to, asset] i128; burn [sym, from, asset] i128; fee [sym "fee", from] i128 as a
// transaction-level event, BeforeAllTxs when charged and AfterAllTxs (negative amount) when refunded from protocol
// 23. approve follows the SAC (CAP-46-06): [sym, from, spender, asset] with data vec[i128 amount, u32 live_until].
// Event coordinates and ids follow spec events-and-stores.md §2.
//
// This file is the generator's public entry; the parts live in generator/: options.ts (options, limits), network.ts
// (one ledger at a time), plan.ts (what each ledger holds), envelopes.ts (txSet and results), transaction-apply.ts
// (fees, operations, refunds as TransactionMeta), entry-changes.ts (LedgerEntryChanges and the recorded batch),
// event-writer.ts (ContractEvents, recorded events), ledger-state.ts, universe.ts, fragments.ts, prng.ts and
// xdr-writer.ts.
import { type GeneratedLedger, NetworkGenerator } from './generator/network.js';
import { type GeneratorOptions, type ResolvedGeneratorOptions, resolveGeneratorOptions } from './generator/options.js';

export type { GeneratedEvent } from './generator/event-writer.js';
export { GENERATOR_LIMITS, resolveGeneratorOptions, SYNTHETIC_NETWORK_PASSPHRASE } from './generator/options.js';
export type { GeneratedLedger, GeneratorOptions };

/**
 * Generates `options.ledgers` ledgers lazily. The options are checked by this call (INVALID_ARGUMENT, before any
 * work); each call of the iterator builds one ledger. The state (accounts, trust lines, Soroban entries) lives in the
 * iterator, so two iterators with the same options are independent and yield identical bytes. Not safe to share one
 * iterator between concurrent consumers.
 */
export function generateNetwork(options: GeneratorOptions): Generator<GeneratedLedger, void, undefined> {
  return generateLedgers(resolveGeneratorOptions(options));
}

function* generateLedgers(options: ResolvedGeneratorOptions): Generator<GeneratedLedger, void, undefined> {
  const network = new NetworkGenerator(options);
  for (let i = 0; i < options.ledgers; i++) yield network.nextLedger();
}
