// What a synthetic network is generated from: the options, their limits and defaults, and their checking (every bad
// option is INVALID_ARGUMENT naming it, before any work).
import { MAX_LEDGER } from '@strata/events';
import {
  checkInteger,
  checkOptions,
  invalidArgument,
  MAX_LEDGER_SEQUENCE,
  optionalBoolean,
  optionalInteger,
} from '../arguments.js';
import { LedgerMetaError, LedgerMetaErrorCode } from '../errors.js';

/** The passphrase of the synthetic network: tx hashes and SAC contract ids derive from it. */
export const SYNTHETIC_NETWORK_PASSPHRASE = 'Strata Synthetic Network ; 2026';

/**
 * The largest counts the generator accepts: beyond them a network would not fit in memory (or, for events, a ledger
 * would outgrow what readers accept), so they are refused up front instead of ending in an aborted process.
 */
export const GENERATOR_LIMITS = {
  /**
   * Mean events per ledger: a ledger's budget is up to 1.25 × this, and its LCM stays well below a data lake's
   * per-ledger allowance (MAX_BATCH_BYTES_PER_LEDGER).
   */
  maxEventsPerLedger: 50_000,
  /** Stellar Asset Contracts: each account with a trust line keeps one slot per contract. */
  maxContracts: 1_000,
  /** Accounts: the root account's balance funds exactly this many at their starting balance. */
  maxAccounts: 1_000_000,
  /** The oldest protocol whose meta the generator writes (LedgerCloseMeta v2, TransactionMeta v4). */
  minProtocolVersion: 23,
  /**
   * The newest ledger the generator writes (2^31 - 1). Sequences are uint32, but an event id (TOID) holds the ledger
   * in 31 bits (stellar-rpc's int32; @strata/events' MAX_LEDGER), so the events of a later ledger would have no id.
   */
  maxLedger: MAX_LEDGER,
} as const;

/**
 * What to generate. Every number is an integer; a missing, fractional, negative or out-of-range one (see each member
 * and GENERATOR_LIMITS) is INVALID_ARGUMENT with the option's name as `field`.
 */
export interface GeneratorOptions {
  /** Any string or finite number; the same options give the same bytes. Default 1. */
  seed?: string | number;
  /** Number of ledgers to generate (≥ 1); the last one, startLedger + ledgers - 1, is at most GENERATOR_LIMITS.maxLedger. */
  ledgers: number;
  /**
   * Mean number of contract events per ledger, 0 to GENERATOR_LIMITS.maxEventsPerLedger. Default 100. (The first
   * ledger, which creates the root account, has none.)
   */
  eventsPerLedger?: number;
  /** Stellar Asset Contracts, XLM included: 1 to GENERATOR_LIMITS.maxContracts. Default 20. */
  contracts?: number;
  /**
   * Accounts, 0 to GENERATOR_LIMITS.maxAccounts, raised to contracts + 1 (every credit asset needs an issuer).
   * Default 1000.
   */
  accounts?: number;
  /** Sequence of the first ledger, 1 to GENERATOR_LIMITS.maxLedger. Default 2 (the first ledger after genesis). */
  startLedger?: number;
  /** LedgerHeader.ledgerVersion, GENERATOR_LIMITS.minProtocolVersion to 2^32 - 1. Default 23. */
  protocolVersion?: number;
  /** Keep events and batches in each GeneratedLedger (default true); benchmarks turn it off. */
  record?: boolean;
  networkPassphrase?: string;
}

/** Options as resolveGeneratorOptions returns them: checked, with every default filled in. */
export type ResolvedGeneratorOptions = Required<GeneratorOptions>;

/**
 * The resolved options (defaults applied), e.g. for a CLI summary. Bad options are INVALID_ARGUMENT with the option's
 * name as `field` (see GeneratorOptions).
 */
export function resolveGeneratorOptions(options: GeneratorOptions): ResolvedGeneratorOptions {
  const given = checkOptions(options, 'options');
  const { seed = 1, networkPassphrase = SYNTHETIC_NETWORK_PASSPHRASE } = given;
  if (typeof seed !== 'string' && !(typeof seed === 'number' && Number.isFinite(seed))) {
    throw invalidArgument('seed', 'a string or a finite number', seed);
  }
  if (typeof networkPassphrase !== 'string') throw invalidArgument('networkPassphrase', 'a string', networkPassphrase);
  const startLedger = optionalInteger(given.startLedger, 'startLedger', 1, GENERATOR_LIMITS.maxLedger, 2);
  const ledgers = checkInteger(given.ledgers, 'ledgers', 1, GENERATOR_LIMITS.maxLedger);
  if (startLedger + ledgers - 1 > GENERATOR_LIMITS.maxLedger) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.INVALID_ARGUMENT,
      `the last ledger, startLedger + ledgers - 1 = ${startLedger + ledgers - 1}, is past ${GENERATOR_LIMITS.maxLedger}` +
        ' (event ids hold the ledger in 31 bits)',
      { field: 'ledgers' },
    );
  }
  const contracts = optionalInteger(given.contracts, 'contracts', 1, GENERATOR_LIMITS.maxContracts, 20);
  const accounts = optionalInteger(given.accounts, 'accounts', 0, GENERATOR_LIMITS.maxAccounts, 1000);
  return {
    seed,
    ledgers,
    eventsPerLedger: optionalInteger(
      given.eventsPerLedger,
      'eventsPerLedger',
      0,
      GENERATOR_LIMITS.maxEventsPerLedger,
      100,
    ),
    contracts,
    accounts: Math.max(contracts + 1, accounts, 2),
    startLedger,
    protocolVersion: optionalInteger(
      given.protocolVersion,
      'protocolVersion',
      GENERATOR_LIMITS.minProtocolVersion,
      MAX_LEDGER_SEQUENCE,
      23,
    ),
    record: optionalBoolean(given.record, 'record', true),
    networkPassphrase,
  };
}
