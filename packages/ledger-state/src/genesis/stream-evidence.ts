// What a stream of LedgerCloseMeta tells about its genesis, which is not in it: the genesis values it reveals
// (GenesisReveals), the test Config those values imply (genesisTestConfigOf), and the genesis protocol
// (genesisProtocolOf). Pure functions, and GenesisReveals confined to its instance: call them from any thread.
import {
  CONFIG_SETTING_ID,
  compareLedgerEntries,
  encodeLedgerKey,
  LEDGER_ENTRY_TYPE,
  ledgerKeyOfEntry,
  readU32,
} from '@strata/ledger-key';
import { bytesOf, integerIn, invalidArgument, optionsRecord } from '../arguments.js';
import { LedgerStateError, LedgerStateErrorCode } from '../errors.js';
import { STATE_ARCHIVAL_SETTINGS, type StateArchivalSettings } from './config-setting-entry.js';
import { genesisEntries, genesisKeyOf, keyText, MAX_GENESIS_ENTRIES, sameBytes } from './genesis.js';
import { GENESIS_LEDGER_SEQ } from './genesis-accounts.js';
import { GENESIS_LEDGER } from './genesis-header.js';
import { type GenesisTestConfig, genesisProtocol } from './genesis-options.js';
import { InitialSorobanNetworkConfig as Initial } from './network-config-constants.js';
import { readScalarStruct } from './xdr-struct.js';

/**
 * Collects the genesis values a stream reveals. A ledger entry whose lastModifiedLedgerSeq is 1 was written by
 * genesis and never since, so wherever a stream carries one (typically the STATE pre-image of a setting an upgrade
 * changes, or of the root account paying a fee) it is that key's genesis value, which the test's Config may have set
 * differently from the ported defaults. Offer every LedgerEntry of every change (`observe`); pass `entries()` as
 * genesisEntries' `overrides`. One instance per stream; not safe to share between concurrent callers.
 */
export class GenesisReveals {
  readonly #byKey = new Map<string, Uint8Array>();

  /** How many distinct genesis entries have been revealed. */
  get size(): number {
    return this.#byKey.size;
  }

  /**
   * Offers one LedgerEntry (XDR) from a change; keeps a copy and returns true when it is a genesis value (entries
   * last modified later are skipped without being read further). Throws LedgerStateError: BAD_ENTRY for a ledger-1
   * entry that is no valid LedgerEntry; INCONSISTENT_META for a ledger-1 entry genesis cannot have made (not an
   * account or config setting), one that contradicts an earlier reveal of its key, or more than a genesis holds.
   */
  observe(entry: Uint8Array): boolean {
    const bytes = bytesOf(entry, 'entry');
    // Most entries of a stream were written after ledger 1: those are skipped unread.
    if (bytes.length >= 4 && readU32(bytes, 0) !== GENESIS_LEDGER_SEQ) return false;
    const key = genesisKeyOf(bytes, 'entry', LedgerStateErrorCode.INCONSISTENT_META);
    const earlier = this.#byKey.get(key);
    if (earlier !== undefined) {
      if (sameBytes(earlier, bytes)) return true;
      throw new LedgerStateError(
        LedgerStateErrorCode.INCONSISTENT_META,
        'two different values of one key, both last modified at ledger 1',
        { field: 'entry' },
      );
    }
    if (this.#byKey.size >= MAX_GENESIS_ENTRIES) {
      throw new LedgerStateError(
        LedgerStateErrorCode.INCONSISTENT_META,
        `more than ${MAX_GENESIS_ENTRIES} entries last modified at ledger 1`,
        { field: 'entry' },
      );
    }
    this.#byKey.set(key, bytes.slice());
    return true;
  }

  /** The revealed entries (LedgerEntry XDR), sorted in stellar-core key order. */
  entries(): Uint8Array[] {
    return [...this.#byKey.values()].sort(compareLedgerEntries);
  }
}

/** Offset of a CONFIG_SETTING entry's arm: lastModifiedLedgerSeq, LedgerEntryType, ConfigSettingID. */
const CONFIG_SETTING_BODY_OFFSET = 12;

/**
 * The test Config a stream's revealed genesis values imply (`revealed`: GenesisReveals.entries() or any ledger-1
 * entries). Each Config field genesis reads leaves its mark on a setting: the STATE_ARCHIVAL settings hold
 * TESTING_MINIMUM_PERSISTENT_ENTRY_LIFETIME and the eviction parameters, and TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE
 * changes most limits. The revealed entries themselves replace their ported values anyway (genesisEntries'
 * `overrides`); the Config matters for the settings a stream cannot show: the eviction iterator, rewritten at every
 * ledger, starts at the Config's startingEvictionScanLevel, and a limit the stream does not show follows the others.
 * Fields nothing reveals keep their defaults (absent). GENESIS_TEST_ACCOUNT_COUNT is not inferred.
 */
export function genesisTestConfigOf(revealed: readonly Uint8Array[], protocolVersion: number): GenesisTestConfig {
  if (!Array.isArray(revealed)) throw invalidArgument('revealed', 'an array of LedgerEntry XDR', revealed);
  const protocol = genesisProtocol(protocolVersion, 'protocolVersion');
  const settings = new Map<string, Uint8Array>();
  revealed.forEach((item: unknown, i) => {
    const entry = bytesOf(item, `revealed[${i}]`);
    const key = genesisKeyOf(entry, `revealed[${i}]`, LedgerStateErrorCode.BAD_GENESIS);
    if (readU32(entry, 4) === LEDGER_ENTRY_TYPE.CONFIG_SETTING) settings.set(key, entry);
  });
  const archival = settings.get(configSettingKeyText(CONFIG_SETTING_ID.STATE_ARCHIVAL));
  const config =
    archival === undefined
      ? {}
      : configOfStateArchival(readScalarStruct(STATE_ARCHIVAL_SETTINGS, archival, CONFIG_SETTING_BODY_OFFSET));
  return { ...config, ...highLimitOverrideOf(settings, protocol, config) };
}

/** initialStateArchivalSettings read backwards: the Config fields behind a genesis STATE_ARCHIVAL. */
function configOfStateArchival(settings: StateArchivalSettings): GenesisTestConfig {
  const config: { -readonly [K in keyof GenesisTestConfig]: GenesisTestConfig[K] } = {};
  if (settings.minPersistentTTL !== Initial.MINIMUM_PERSISTENT_ENTRY_LIFETIME) {
    config.minimumPersistentEntryLifetime = settings.minPersistentTTL;
  }
  const { evictionScanSize, maxEntriesToArchive, startingEvictionScanLevel } = settings;
  if (
    evictionScanSize !== Initial.EVICTION_SCAN_SIZE ||
    maxEntriesToArchive !== Initial.MAX_ENTRIES_TO_ARCHIVE ||
    startingEvictionScanLevel !== Initial.STARTING_EVICTION_SCAN_LEVEL
  ) {
    config.evictionParams = {
      scanSize: evictionScanSize,
      maxEntriesToArchive,
      startingScanLevel: startingEvictionScanLevel,
    };
  }
  return config;
}

/**
 * TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE, when the revealed settings say it was set: more of them equal the port with
 * it than without (counting only the settings it changes).
 */
function highLimitOverrideOf(
  settings: ReadonlyMap<string, Uint8Array>,
  protocolVersion: number,
  config: GenesisTestConfig,
): GenesisTestConfig {
  const variant = (sorobanHighLimitOverride: boolean) =>
    new Map(
      genesisEntries({ networkPassphrase: '', protocolVersion, config: { ...config, sorobanHighLimitOverride } }).map(
        (entry) => [keyText(ledgerKeyOfEntry(entry)), entry],
      ),
    );
  const withOverride = variant(true);
  const without = variant(false);
  let votes = 0;
  for (const [key, entry] of settings) {
    const high = withOverride.get(key);
    const low = without.get(key);
    if (high === undefined || low === undefined || sameBytes(high, low)) continue;
    if (sameBytes(entry, high)) votes++;
    else if (sameBytes(entry, low)) votes--;
  }
  return votes > 0 ? { sorobanHighLimitOverride: true } : {};
}

/** The text key (see keyText) of CONFIG_SETTING `id`. */
function configSettingKeyText(id: number): string {
  return keyText(encodeLedgerKey({ type: 'configSetting', configSettingId: id }));
}

/** What genesisProtocolOf reads of ledger 2, the first ledger of a stream: a LedgerExtract of it has this shape. */
export interface FirstLedgerAfterGenesis {
  readonly header: { readonly ledgerSeq: number; readonly protocolVersion: number };
  /** The ledger's net changes; only `init` (the entries it created) is read. */
  readonly changes: { readonly init: readonly Uint8Array[] };
}

/** CONFIG_SETTING_CONTRACT_MAX_SIZE_BYTES, the first setting protocol 20 creates. */
const FIRST_SOROBAN_SETTING_KEY = configSettingKeyText(CONFIG_SETTING_ID.CONTRACT_MAX_SIZE_BYTES);

/**
 * The protocol a stream's genesis was built at, from ledger 2 (the LedgerExtract of the stream's first record).
 * Ledger 2 closes at the genesis protocol unless it carries a protocol upgrade. The upgrade stellar-core's tests make
 * at ledger 2 (in the captures: "Module cache", "Vm instantiation tightening") starts from a genesis without
 * USE_CONFIG_FOR_GENESIS, which is GENESIS_LEDGER_VERSION 0, and creates the protocol-20 settings, which a genesis at
 * 20 or later would already hold. So: 0 when ledger 2 creates CONFIG_SETTING_CONTRACT_MAX_SIZE_BYTES, else ledger 2's
 * protocol. An upgrade at ledger 2 between two Soroban protocols would be missed (the captures have none): check the
 * result with genesisLedgerHeader against ledger 2's previousLedgerHash. INVALID_ARGUMENT when `ledger` is not
 * ledger 2.
 */
export function genesisProtocolOf(ledger: FirstLedgerAfterGenesis): number {
  const record = optionsRecord(ledger, 'ledger', false);
  const header = optionsRecord(record.header, 'ledger.header', false);
  const changes = optionsRecord(record.changes, 'ledger.changes', false);
  if (header.ledgerSeq !== GENESIS_LEDGER_SEQ + 1) {
    throw invalidArgument('ledger.header.ledgerSeq', 'ledger 2, the first ledger after genesis', header.ledgerSeq);
  }
  const protocolVersion = integerIn(header.protocolVersion, 'ledger.header.protocolVersion', 0, 0xffff_ffff);
  const init = changes.init;
  if (!Array.isArray(init)) throw invalidArgument('ledger.changes.init', 'an array of LedgerEntry XDR', init);
  for (const [i, entry] of init.entries()) {
    const field = `ledger.changes.init[${i}]`;
    let key: Uint8Array;
    try {
      key = ledgerKeyOfEntry(bytesOf(entry, field));
    } catch (cause) {
      if (cause instanceof LedgerStateError) throw cause;
      throw new LedgerStateError(LedgerStateErrorCode.BAD_ENTRY, 'not a LedgerEntry', { field, cause });
    }
    if (keyText(key) === FIRST_SOROBAN_SETTING_KEY) return GENESIS_LEDGER.version;
  }
  return protocolVersion;
}
