// The network's CONFIG_SETTING entries as the state holds them: loaded from the BucketList at open, kept current by
// every applied batch. stellar-core reads these settings (state archival, cost parameters, the eviction iterator,
// the state-size window) from its ledger transaction after the ledger's upgrades; so does LedgerState, from here.
import { assert } from '@strata/base';
import { CONFIG_SETTING_ID, encodeLedgerEntry, encodeLedgerKey, LEDGER_ENTRY_TYPE, readU32 } from '@strata/ledger-key';

/** The largest ConfigSettingID (FREEZE_BYPASS_TXS_DELTA). */
const LAST_ID = Math.max(...Object.values(CONFIG_SETTING_ID));
/** Where a CONFIG_SETTING LedgerEntry's arm starts: lastModifiedLedgerSeq, the type, the ConfigSettingID. */
const BODY_START = 12;

/** The LedgerKey XDR of CONFIG_SETTING `id`. */
export function configSettingKey(id: number): Uint8Array {
  return encodeLedgerKey({ type: 'configSetting', configSettingId: id });
}

/** The arm of a CONFIG_SETTING LedgerEntry (the bytes after its ConfigSettingID, before the entry's ext). */
export function configSettingBody(entry: Uint8Array): Uint8Array {
  assert(readU32(entry, 4) === LEDGER_ENTRY_TYPE.CONFIG_SETTING, 'a CONFIG_SETTING entry');
  // Config settings are never sponsored: the entry ends with ext v0, four zero bytes.
  assert(readU32(entry, entry.length - 4) === 0, 'a CONFIG_SETTING entry with ext v0');
  return entry.subarray(BODY_START, entry.length - 4);
}

/** A CONFIG_SETTING LedgerEntry of `id` with `body`, last modified in `ledger`. */
export function configSettingEntry(id: number, body: Uint8Array, ledger: number): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: ledger,
    data: { type: 'configSetting', configSettingId: id, body },
  });
}

/** Current CONFIG_SETTING entries by id. */
export class ConfigSettings {
  private readonly entries: (Uint8Array | undefined)[] = [];

  /** Reads every setting through `load` (LedgerKey XDR → LedgerEntry XDR or undefined). */
  static load(load: (key: Uint8Array) => Uint8Array | undefined): ConfigSettings {
    const settings = new ConfigSettings();
    for (let id = 0; id <= LAST_ID; id++) {
      const entry = load(configSettingKey(id));
      if (entry !== undefined) settings.entries[id] = entry.slice();
    }
    return settings;
  }

  /** The entry of setting `id`, or undefined when the network does not have it (yet). */
  entry(id: number): Uint8Array | undefined {
    return this.entries[id];
  }

  /** The arm of setting `id`, or undefined. */
  body(id: number): Uint8Array | undefined {
    const entry = this.entries[id];
    return entry === undefined ? undefined : configSettingBody(entry);
  }

  /** Takes the CONFIG_SETTING entries of a batch's init and live lists (settings are never deleted). */
  update(entries: Iterable<Uint8Array>): void {
    for (const entry of entries) {
      if (readU32(entry, 4) !== LEDGER_ENTRY_TYPE.CONFIG_SETTING) continue;
      this.entries[readU32(entry, 8)] = entry.slice();
    }
  }

  /** A copy with `entries`' settings applied (see update). */
  with(entries: Iterable<Uint8Array>): ConfigSettings {
    const copy = new ConfigSettings();
    copy.entries.push(...this.entries);
    copy.update(entries);
    return copy;
  }

  /** Every setting entry the network has, in id order. */
  all(): Uint8Array[] {
    return this.entries.filter((entry): entry is Uint8Array => entry !== undefined);
  }
}
