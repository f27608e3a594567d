// Genesis (ledger 1) of a stellar-core test network, as LedgerManagerImpl::startNewLedger builds it: the root account
// and, for a genesis at protocol 20 or later, the Soroban config settings of initializeGenesisLedgerForTesting, with
// the values a stream reveals in place of the ported ones. Synchronous and pure: call it from any thread.
import {
  compareLedgerEntries,
  encodeLedgerEntry,
  LEDGER_ENTRY_TYPE,
  ledgerKeyOfEntry,
  readU32,
} from '@strata/ledger-key';
import { bytesOf, invalidArgument, optionsRecord } from '../arguments.js';
import { LedgerStateError, LedgerStateErrorCode } from '../errors.js';
import { encodeConfigSettingBody } from './config-setting-entry.js';
import { GENESIS_LEDGER_SEQ, genesisAccounts } from './genesis-accounts.js';
import {
  type GenesisOptions,
  genesisProtocol,
  invalidGenesis,
  MAX_GENESIS_TEST_ACCOUNTS,
  resolveTestConfig,
} from './genesis-options.js';
import { initializeGenesisLedgerForTesting } from './soroban-genesis.js';

const { ACCOUNT, CONFIG_SETTING } = LEDGER_ENTRY_TYPE;

/** The most entries one genesis (and so one stream's reveals) can hold: the accounts and config settings 0..20. */
export const MAX_GENESIS_ENTRIES = MAX_GENESIS_TEST_ACCOUNTS + 1 + 21;

/**
 * The ledger-1 entries: LedgerEntry XDR, each with lastModifiedLedgerSeq 1, sorted in stellar-core key order
 * (compareLedgerEntries), every key once. Below protocol 20 that is the root account alone (plus any test
 * accounts); from 20 on, also the CONFIG_SETTING entries genesis creates at that protocol (ids 0..13, then 14..16
 * from 23, then 17 and 19 from 26). `overrides` replace the entries of their keys (copied: the result shares no
 * memory with the caller's arrays). Throws LedgerStateError:
 * INVALID_ARGUMENT for malformed options, BAD_GENESIS for a protocol above 28, a test config upstream would reject,
 * or an override that is not a ledger-1 account or config setting.
 */
export function genesisEntries(options: GenesisOptions): Uint8Array[] {
  const record = optionsRecord(options, 'options', false);
  const networkPassphrase = record.networkPassphrase;
  if (typeof networkPassphrase !== 'string') throw invalidArgument('networkPassphrase', 'a string', networkPassphrase);
  const protocolVersion = genesisProtocol(record.protocolVersion, 'protocolVersion');
  const { sorobanConfig, testAccountCount } = resolveTestConfig(record.config);
  const overrides = checkOverrides(record.overrides);

  const byKey = new Map<string, Uint8Array>();
  const add = (entry: Uint8Array) => byKey.set(keyText(ledgerKeyOfEntry(entry)), entry);
  for (const account of genesisAccounts(networkPassphrase, testAccountCount)) add(account);
  for (const setting of initializeGenesisLedgerForTesting(protocolVersion, sorobanConfig)) {
    add(
      encodeLedgerEntry({
        lastModifiedLedgerSeq: GENESIS_LEDGER_SEQ,
        data: { type: 'configSetting', configSettingId: setting.id, body: encodeConfigSettingBody(setting) },
      }),
    );
  }
  for (const [key, entry] of overrides) byKey.set(key, entry);
  return [...byKey.values()].sort(compareLedgerEntries);
}

/** The overrides by key (hex of the LedgerKey XDR); two different entries for one key are BAD_GENESIS. */
function checkOverrides(value: unknown): Map<string, Uint8Array> {
  const byKey = new Map<string, Uint8Array>();
  if (value === undefined) return byKey;
  if (!Array.isArray(value)) throw invalidArgument('overrides', 'an array of LedgerEntry XDR', value);
  if (value.length > MAX_GENESIS_ENTRIES) {
    throw invalidGenesis(
      `${value.length} overrides: a genesis has at most ${MAX_GENESIS_ENTRIES} entries`,
      'overrides',
    );
  }
  value.forEach((item: unknown, i) => {
    const field = `overrides[${i}]`;
    const entry = bytesOf(item, field);
    const key = genesisKeyOf(entry, field, LedgerStateErrorCode.BAD_GENESIS);
    const earlier = byKey.get(key);
    if (earlier !== undefined && !sameBytes(earlier, entry)) {
      throw invalidGenesis(`${field} contradicts an earlier override of the same key`, field);
    }
    byKey.set(key, entry.slice());
  });
  return byKey;
}

/**
 * The key (as text) of a ledger-1 entry genesis can create: a valid LedgerEntry, lastModifiedLedgerSeq 1, an account
 * or a config setting. Anything else is a LedgerStateError with `code` (BAD_ENTRY for bytes that are no entry).
 */
export function genesisKeyOf(entry: Uint8Array, field: string, code: LedgerStateErrorCode): string {
  let key: Uint8Array;
  try {
    key = ledgerKeyOfEntry(entry);
  } catch (cause) {
    throw new LedgerStateError(LedgerStateErrorCode.BAD_ENTRY, 'not a LedgerEntry', { field, cause });
  }
  const lastModified = readU32(entry, 0);
  const type = readU32(key, 0);
  if (lastModified !== GENESIS_LEDGER_SEQ) {
    throw new LedgerStateError(code, `lastModifiedLedgerSeq ${lastModified}: not a genesis entry`, { field });
  }
  if (type !== ACCOUNT && type !== CONFIG_SETTING) {
    throw new LedgerStateError(code, `an entry of type ${type}: genesis creates only accounts and config settings`, {
      field,
    });
  }
  return keyText(key);
}

export function keyText(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.length).toString('hex');
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
