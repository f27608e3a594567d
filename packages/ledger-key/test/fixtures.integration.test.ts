// Real data against the oracle: (a) the 956 mainnet CONTRACT_DATA entries of mainnet-contract-data.json (478 keys,
// each in a corrupted and a correct state) and its 12 affected assets; (b) every ledger key and entry that appears
// in the stellar-core-lcm streams (changes of every kind, evicted keys, Soroban footprints, frozen-key settings),
// found by decoding the LedgerCloseMeta records with @stellar/stellar-base. Records stellar-base 15 cannot decode
// (XDR newer than it knows) are skipped and counted. The whole LCM walk takes about 5 s, so nothing is sampled.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';
import { describeWithFixtures, fixturePath, hex } from '@strata/test-kit';
import { beforeAll, expect, it } from 'vitest';
import {
  compareEntryToKey,
  compareLedgerEntries,
  compareLedgerKeys,
  ledgerKeyOfEntry,
  ttlKeyOf,
  validateLedgerEntry,
  validateLedgerKey,
} from '../src/index.js';
import { harvestLcmKeys, type LcmKeyHarvest } from './lcm-keys.js';
import {
  compareOracleKeys,
  type OracleKey,
  oracleCompareLedgerEntries,
  oracleCompareLedgerKeys,
  oracleDecodeKey,
  oracleLedgerKeyOfEntry,
  oracleTtlKey,
} from './oracle.js';

const typeOfKey = (key: Uint8Array): number => Buffer.from(key).readInt32BE(0);

const TYPE_NAMES = [
  'ACCOUNT',
  'TRUSTLINE',
  'OFFER',
  'DATA',
  'CLAIMABLE_BALANCE',
  'LIQUIDITY_POOL',
  'CONTRACT_DATA',
  'CONTRACT_CODE',
  'CONFIG_SETTING',
  'TTL',
];

/** Sorts with the oracle, decoding each key once (the oracle comparator would decode on every comparison). */
function sortByOracle(keys: readonly Uint8Array[]): Uint8Array[] {
  const decoded: { bytes: Uint8Array; key: OracleKey }[] = keys.map((bytes) => ({
    bytes,
    key: oracleDecodeKey(bytes),
  }));
  decoded.sort((a, b) => compareOracleKeys(a.key, b.key));
  return decoded.map(({ bytes }) => bytes);
}

/** The engine's sort equals the oracle's, and the oracle agrees with every adjacent pair of the engine's order. */
function expectSameOrder(keys: readonly Uint8Array[]): void {
  const byEngine = [...keys].sort(compareLedgerKeys);
  const byOracle = sortByOracle(keys);
  for (let i = 1; i < byEngine.length; i++) {
    const previous = byEngine[i - 1] as Uint8Array;
    const current = byEngine[i] as Uint8Array;
    const order = oracleCompareLedgerKeys(previous, current);
    if (order > 0) expect.fail(`engine puts ${hex(previous)} before ${hex(current)}; the oracle says after`);
    // Equal only when byte-identical (duplicates), and then the engine must say 0 too.
    expect(order === 0, `${hex(previous)} / ${hex(current)}`).toBe(Buffer.compare(previous, current) === 0);
  }
  expect(byEngine.map(hex)).toEqual(byOracle.map(hex));
}

interface MainnetFixture {
  correctEntries: string[];
  corruptedEntries: string[];
  affectedAssets: string[];
}

describeWithFixtures('mainnet CONTRACT_DATA entries', [['mainnet-contract-data.json']], () => {
  let fixture: MainnetFixture;
  let entries: Uint8Array[];

  beforeAll(() => {
    fixture = JSON.parse(readFileSync(fixturePath('mainnet-contract-data.json'), 'utf8')) as MainnetFixture;
    entries = [...fixture.correctEntries, ...fixture.corruptedEntries].map(
      (base64) => new Uint8Array(Buffer.from(base64, 'base64')),
    );
  });

  it('has 956 entries, all valid, whose keys equal the oracle keys byte for byte', () => {
    expect(entries).toHaveLength(956);
    for (const entry of entries) {
      validateLedgerEntry(entry);
      const key = ledgerKeyOfEntry(entry);
      expect(hex(key), hex(entry)).toBe(hex(oracleLedgerKeyOfEntry(entry)));
      expect(typeOfKey(key)).toBe(6);
      validateLedgerKey(key);
    }
  });

  it('sorts the keys (478 distinct, each twice) exactly as the oracle does', () => {
    const keys = entries.map(ledgerKeyOfEntry);
    expect(new Set(keys.map(hex)).size).toBe(478);
    expectSameOrder(keys);
  });

  it('sorts the entries with compareLedgerEntries as the oracle does', () => {
    // Array#sort is stable and a corrupted entry compares 0 with its correct twin, so both sorts keep twins in
    // input order and must produce the same sequence.
    const byEngine = [...entries].sort(compareLedgerEntries);
    const byOracle = [...entries].sort(oracleCompareLedgerEntries);
    expect(byEngine.map(hex)).toEqual(byOracle.map(hex));
  });

  it("finds each corrupted entry's key among the correct keys with compareEntryToKey", () => {
    const correctKeys = fixture.correctEntries
      .map((base64) => oracleLedgerKeyOfEntry(new Uint8Array(Buffer.from(base64, 'base64'))))
      .sort(compareLedgerKeys);
    for (const base64 of fixture.corruptedEntries) {
      const entry = new Uint8Array(Buffer.from(base64, 'base64'));
      let low = 0;
      let high = correctKeys.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareEntryToKey(entry, correctKeys[middle] as Uint8Array) > 0) low = middle + 1;
        else high = middle;
      }
      expect(low, hex(entry)).toBeLessThan(correctKeys.length);
      expect(compareEntryToKey(entry, correctKeys[low] as Uint8Array), hex(entry)).toBe(0);
      expect(hex(correctKeys[low] as Uint8Array)).toBe(hex(oracleLedgerKeyOfEntry(entry)));
    }
  });

  it("derives each key's TTL key as the oracle does", () => {
    for (const entry of entries) {
      const key = ledgerKeyOfEntry(entry);
      expect(hex(ttlKeyOf(key))).toBe(hex(oracleTtlKey(key) as Uint8Array));
    }
  });

  it('reads the 12 affected assets: as trustline keys they validate and sort as the oracle sorts them', () => {
    expect(fixture.affectedAssets).toHaveLength(12);
    const holder = xdr.PublicKey.publicKeyTypeEd25519(Buffer.alloc(32, 0x5a));
    const keys = fixture.affectedAssets.map((base64) => {
      const asset = xdr.Asset.fromXDR(base64, 'base64');
      // Asset and TrustLineAsset share the encoding of their NATIVE / ALPHANUM4 / ALPHANUM12 arms.
      const trustLineAsset = xdr.TrustLineAsset.fromXDR(asset.toXDR());
      const key = new Uint8Array(
        xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: holder, asset: trustLineAsset })).toXDR(),
      );
      validateLedgerKey(key);
      return key;
    });
    expectSameOrder(keys);
  });
});

describeWithFixtures('every ledger key in the stellar-core-lcm streams', [['stellar-core-lcm']], () => {
  let harvest: LcmKeyHarvest;

  beforeAll(() => {
    harvest = harvestLcmKeys();
  });

  it('reports what it found (per-type key counts, skipped ledgers)', async ({ annotate }) => {
    const perType = new Map<number, number>();
    for (const key of harvest.keys) perType.set(typeOfKey(key), (perType.get(typeOfKey(key)) ?? 0) + 1);
    await annotate(
      [
        `stellar-core-lcm: ${harvest.files} files, ${harvest.decodedRecords} ledgers decoded, ${harvest.skippedRecords} skipped`,
        `skipped because: ${[...harvest.skipReasons].map(([reason, n]) => `${reason} (${n})`).join('; ')}`,
        `changes seen: ${[...harvest.changeKinds].map(([kind, n]) => `${kind} ${n}`).join(', ')}`,
        `keys found via: ${[...harvest.sources].map(([source, n]) => `${source} ${n}`).join(', ')}`,
        `${harvest.keys.length} distinct keys, ${harvest.entries.length} distinct entries; keys per type: ${TYPE_NAMES.map(
          (name, type) => `${name} ${perType.get(type) ?? 0}`,
        ).join(', ')}`,
      ].join(' | '),
    );
    expect(harvest.keys.length).toBeGreaterThan(500);
  });

  it('decodes nearly every ledger with stellar-base', () => {
    expect(harvest.files).toBeGreaterThanOrEqual(900);
    expect(harvest.decodedRecords).toBeGreaterThanOrEqual(17_000);
    // The README says 224 ledgers use XDR newer than stellar-base 15.
    expect(harvest.skippedRecords).toBeLessThanOrEqual(300);
  });

  it('covers every LedgerEntryType the streams contain', () => {
    const types = new Set(harvest.keys.map(typeOfKey));
    // The streams hold no DATA entry at all (no test in the captured groups uses ManageData), so DATA (3) is
    // covered by the property tests and the counterexamples only.
    for (const type of [0, 1, 2, 4, 5, 6, 7, 8, 9]) expect(types.has(type), TYPE_NAMES[type]).toBe(true);
    for (const kind of [
      'ledgerEntryCreated',
      'ledgerEntryUpdated',
      'ledgerEntryRemoved',
      'ledgerEntryState',
      'ledgerEntryRestored',
    ]) {
      expect(harvest.changeKinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
  });

  it('validates every key and sorts them all exactly as the oracle does', () => {
    for (const key of harvest.keys) validateLedgerKey(key);
    expectSameOrder(harvest.keys);
  });

  it('extracts the key of every entry as the oracle does', () => {
    for (const entry of harvest.entries) {
      validateLedgerEntry(entry);
      expect(hex(ledgerKeyOfEntry(entry)), hex(entry)).toBe(hex(oracleLedgerKeyOfEntry(entry)));
    }
  });

  it('derives TTL keys that exist on the ledger for every live CONTRACT_DATA / CONTRACT_CODE entry', () => {
    const present = new Set(harvest.keys.map(hex));
    let soroban = 0;
    for (const entry of harvest.entries) {
      const key = ledgerKeyOfEntry(entry);
      const type = typeOfKey(key);
      if (type !== 6 && type !== 7) continue;
      soroban++;
      const ttlKey = ttlKeyOf(key);
      expect(hex(ttlKey)).toBe(hex(oracleTtlKey(key) as Uint8Array));
      // Independent of the oracle: stellar-core itself wrote a TTL entry under exactly this key.
      expect(present.has(hex(ttlKey)), `TTL key of ${hex(key)}`).toBe(true);
    }
    expect(soroban).toBeGreaterThan(100);
  });
});
