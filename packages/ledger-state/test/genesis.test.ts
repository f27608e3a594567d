// Unit tests of genesis/ against oracles other than the port itself: @stellar/stellar-base for keys and XDR (the
// root account is `Keypair.master`, every entry and the header decode and re-encode to the same bytes, every decoded
// field equals the port's model field of the same name), and upstream facts of stellar-core a9b8613 that are easy to
// state (which ids exist from which protocol, how many cost types, the v23 rent values, what each Config field
// changes). The fixture streams are in genesis.integration.test.ts.
import { hash, Keypair, xdr } from '@stellar/stellar-base';
import { CONFIG_SETTING_ID, compareLedgerEntries, encodeLedgerEntry } from '@strata/ledger-key';
import { describeBadArguments, expectErrorCode } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerStateError, LedgerStateErrorCode } from '../src/errors.js';
import * as api from '../src/genesis/index.js';
import {
  GENESIS_LEDGER,
  GenesisReveals,
  type GenesisTestConfig,
  genesisEntries,
  genesisLedgerHeader,
  genesisProtocolOf,
  genesisTestConfigOf,
  MAX_GENESIS_PROTOCOL_VERSION,
  networkId,
  rootAccountId,
} from '../src/genesis/index.js';
import { initializeGenesisLedgerForTesting, type SorobanGenesisConfig } from '../src/genesis/soroban-genesis.js';
import { CAPTURE_PASSPHRASE } from './genesis-oracle.js';

const { BAD_GENESIS, BAD_ENTRY, INCONSISTENT_META, INVALID_ARGUMENT } = LedgerStateErrorCode;
const ID = CONFIG_SETTING_ID;
const TOTAL_COINS = 10n ** 18n;

const PROTOCOLS = Array.from({ length: MAX_GENESIS_PROTOCOL_VERSION + 1 }, (_, protocol) => protocol);

const DEFAULT_CONFIG: SorobanGenesisConfig = {
  highLimitOverride: false,
  minimumPersistentEntryLifetime: 0,
  overrideEvictionParams: false,
  evictionScanSize: 100_000,
  maxEntriesToArchive: 100,
  startingEvictionScanLevel: 6,
};

const genesis = (protocolVersion: number, config?: GenesisTestConfig) =>
  genesisEntries({
    networkPassphrase: CAPTURE_PASSPHRASE,
    protocolVersion,
    ...(config === undefined ? {} : { config }),
  });

const decode = (entry: Uint8Array) => xdr.LedgerEntry.fromXDR(Buffer.from(entry));

/** The decoded CONFIG_SETTING arm of id `id` in a genesis. */
function setting(entries: readonly Uint8Array[], id: number): xdr.ConfigSettingEntry {
  const found = entries.map(decode).find((entry) => {
    const data = entry.data();
    return data.switch() === xdr.LedgerEntryType.configSetting() && data.configSetting().switch().value === id;
  });
  if (found === undefined) throw new Error(`no config setting ${id}`);
  return found.data().configSetting();
}

const settingIds = (entries: readonly Uint8Array[]) =>
  entries
    .map(decode)
    .filter((entry) => entry.data().switch() === xdr.LedgerEntryType.configSetting())
    .map((entry) => entry.data().configSetting().switch().value);

/**
 * A decoded js-xdr value as plain data with lower-cased field names (stellar-base says `feeDiskRead1Kb` where the
 * .x file says `feeDiskRead1KB`), numbers as decimal strings, ExtensionPoints dropped.
 */
function plain(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  const node = value as { _attributes?: Record<string, unknown>; toString(): string };
  if (node._attributes !== undefined) {
    return Object.fromEntries(
      Object.entries(node._attributes)
        .filter(([name]) => name !== 'ext')
        .map(([name, field]) => [name.toLowerCase(), plain(field)]),
    );
  }
  return node.toString(); // js-xdr Int64 / Uint64
}

/** The port's model of an arm, in the same plain form. */
function plainModel(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(plainModel);
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name.toLowerCase(), plainModel(field)]));
}

describe('root account', () => {
  it('is Keypair.master of the passphrase, for any passphrase', () => {
    const passphrases = [
      CAPTURE_PASSPHRASE,
      'Test SDF Network ; September 2015',
      'Public Global Stellar Network ; September 2015',
      'ünïcødé ∂ passphrase',
    ];
    for (const passphrase of passphrases) {
      expect(Buffer.from(rootAccountId(passphrase))).toEqual(Keypair.master(passphrase).rawPublicKey());
      expect(Buffer.from(networkId(passphrase))).toEqual(Keypair.master(passphrase).rawSecretKey());
    }
    // Keypair.master refuses the empty passphrase; its definition still holds.
    const emptySeed = hash(Buffer.alloc(0));
    expect(Buffer.from(rootAccountId(''))).toEqual(Keypair.fromRawEd25519Seed(emptySeed).rawPublicKey());
  });

  it('is the AccountEntry stellar-core creates: all coins, seqNum 0, thresholds [1,0,0,0], nothing else', () => {
    const expected = new xdr.LedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: xdr.LedgerEntryData.account(
        new xdr.AccountEntry({
          accountId: xdr.PublicKey.publicKeyTypeEd25519(Keypair.master(CAPTURE_PASSPHRASE).rawPublicKey()),
          balance: xdr.Int64.fromString(TOTAL_COINS.toString()),
          seqNum: xdr.Int64.fromString('0'),
          numSubEntries: 0,
          inflationDest: null,
          flags: 0,
          homeDomain: '',
          thresholds: Buffer.from([1, 0, 0, 0]),
          signers: [],
          ext: new xdr.AccountEntryExt(0),
        }),
      ),
      ext: new xdr.LedgerEntryExt(0),
    });
    for (const protocol of PROTOCOLS) {
      expect(Buffer.from(genesis(protocol)[0]!)).toEqual(expected.toXDR());
    }
  });

  it('GENESIS_TEST_ACCOUNT_COUNT: TestAccount-<i> keys, the coins split evenly, the remainder to the root', () => {
    const entries = genesis(27, { testAccountCount: 3 });
    const accounts = entries.map(decode).filter((entry) => entry.data().switch() === xdr.LedgerEntryType.account());
    expect(accounts).toHaveLength(4);
    const balanceOf = (key: Buffer) => {
      const account = accounts.find((entry) => entry.data().account().accountId().ed25519().equals(key));
      return BigInt(account?.data().account().balance().toString() ?? '-1');
    };
    const share = TOTAL_COINS / 4n;
    for (let i = 0; i < 3; i++) {
      const key = Keypair.fromRawEd25519Seed(Buffer.from(`TestAccount-${i}`.padEnd(32, '.'))).rawPublicKey();
      expect(balanceOf(key)).toBe(share);
    }
    expect(balanceOf(Keypair.master(CAPTURE_PASSPHRASE).rawPublicKey())).toBe(share + (TOTAL_COINS % 4n));
  });
});

describe('config settings per genesis protocol', () => {
  it('every entry decodes with stellar-base and re-encodes to the same bytes, sorted, last modified at ledger 1', () => {
    for (const protocol of PROTOCOLS) {
      const entries = genesis(protocol);
      expect([...entries].sort(compareLedgerEntries)).toEqual(entries);
      for (const entry of entries) {
        const decoded = decode(entry);
        expect(decoded.lastModifiedLedgerSeq()).toBe(1);
        expect(Buffer.from(entry)).toEqual(decoded.toXDR());
      }
    }
  });

  it('ids 0..13 from protocol 20, 14..16 from 23, 17 and 19 from 26; none before 20', () => {
    const v20 = Array.from({ length: 14 }, (_, id) => id);
    for (const protocol of PROTOCOLS) {
      const expected =
        protocol < 20 ? [] : [...v20, ...(protocol >= 23 ? [14, 15, 16] : []), ...(protocol >= 26 ? [17, 19] : [])];
      expect(settingIds(genesis(protocol)), `protocol ${protocol}`).toEqual(expected);
    }
  });

  it('the cost parameters cover the cost types of the genesis protocol (isValidCostParams)', () => {
    const costTypes = (protocol: number) =>
      protocol < 21 ? 23 : protocol < 22 ? 45 : protocol < 25 ? 70 : protocol < 26 ? 85 : 86;
    for (const protocol of PROTOCOLS.filter((p) => p >= 20)) {
      const entries = genesis(protocol);
      expect(setting(entries, ID.CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS).contractCostParamsCpuInsns()).toHaveLength(
        costTypes(protocol),
      );
      expect(setting(entries, ID.CONTRACT_COST_PARAMS_MEMORY_BYTES).contractCostParamsMemBytes()).toHaveLength(
        costTypes(protocol),
      );
    }
  });

  it('every decoded field equals the field of the same name in the port model (the XDR field order is right)', () => {
    for (const protocol of PROTOCOLS) {
      const entries = genesis(protocol);
      for (const model of initializeGenesisLedgerForTesting(protocol, DEFAULT_CONFIG)) {
        const { id, ...arm } = model;
        const [armValue] = Object.values(arm);
        expect(plain(setting(entries, id).value()), `protocol ${protocol} setting ${id}`).toEqual(plainModel(armValue));
      }
    }
  });

  it('negative control: the field comparison sees one changed field', () => {
    const [model] = initializeGenesisLedgerForTesting(27, DEFAULT_CONFIG).filter(
      (entry) => entry.id === ID.STATE_ARCHIVAL,
    );
    if (model?.id !== ID.STATE_ARCHIVAL) throw new Error('no STATE_ARCHIVAL');
    const changed = { ...model.stateArchivalSettings, startingEvictionScanLevel: 5 };
    expect(plain(setting(genesis(27), ID.STATE_ARCHIVAL).value())).not.toEqual(plainModel(changed));
  });

  it('protocol 23 rent values from 23 on, the initial ones before; the state-size window is 30 zeros', () => {
    for (const protocol of [22, 23, 27]) {
      const entries = genesis(protocol);
      const cost = setting(entries, ID.CONTRACT_LEDGER_COST_V0).contractLedgerCost();
      const archival = setting(entries, ID.STATE_ARCHIVAL).stateArchivalSettings();
      const p23 = protocol >= 23;
      expect(cost.sorobanStateTargetSizeBytes().toString()).toBe(p23 ? '3000000000' : String(30 * 1024 ** 3));
      expect(cost.rentFee1KbSorobanStateSizeLow().toString()).toBe(p23 ? '-17000' : '1000');
      expect(archival.persistentRentRateDenominator().toString()).toBe(p23 ? '1215' : '252480');
      expect(archival.tempRentRateDenominator().toString()).toBe(p23 ? '2430' : '2524800');
      const window = setting(entries, ID.LIVE_SOROBAN_STATE_SIZE_WINDOW).liveSorobanStateSizeWindow();
      expect(window.map(String)).toEqual(new Array(30).fill('0'));
    }
  });

  it('the eviction iterator starts at the first scan level, curr, offset 0', () => {
    const iterator = setting(genesis(27), ID.EVICTION_ITERATOR).evictionIterator();
    expect([iterator.bucketListLevel(), iterator.isCurrBucket(), iterator.bucketFileOffset().toString()]).toEqual([
      6,
      true,
      '0',
    ]);
  });
});

describe('test Config fields', () => {
  it('TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE raises the limits (TestOverrideSorobanNetworkConfig), not the fees', () => {
    const entries = genesis(27, { sorobanHighLimitOverride: true });
    expect(setting(entries, ID.CONTRACT_MAX_SIZE_BYTES).contractMaxSizeBytes()).toBe(128_000);
    const compute = setting(entries, ID.CONTRACT_COMPUTE_V0).contractCompute();
    expect(compute.ledgerMaxInstructions().toString()).toBe('25000000000');
    expect(compute.feeRatePerInstructionsIncrement().toString()).toBe('100');
    expect(setting(entries, ID.STATE_ARCHIVAL).stateArchivalSettings().maxEntryTtl()).toBe(6_307_200);
    // txMaxFootprintEntries starts as the (raised) txMaxDiskReadEntries.
    expect(setting(entries, ID.CONTRACT_LEDGER_COST_EXT_V0).contractLedgerCostExt().txMaxFootprintEntries()).toBe(300);
  });

  it('OVERRIDE_EVICTION_PARAMS_FOR_TESTING sets the archival settings and where the iterator starts', () => {
    const entries = genesis(27, { evictionParams: { startingScanLevel: 2, scanSize: 5_000 } });
    const archival = setting(entries, ID.STATE_ARCHIVAL).stateArchivalSettings();
    expect([archival.startingEvictionScanLevel(), archival.evictionScanSize(), archival.maxEntriesToArchive()]).toEqual(
      [2, 5_000, 100],
    );
    expect(setting(entries, ID.EVICTION_ITERATOR).evictionIterator().bucketListLevel()).toBe(2);
  });

  it('TESTING_MINIMUM_PERSISTENT_ENTRY_LIFETIME sets minPersistentTTL; 0 means not set', () => {
    const ttl = (config: GenesisTestConfig) =>
      setting(genesis(27, config), ID.STATE_ARCHIVAL).stateArchivalSettings().minPersistentTtl();
    expect(ttl({ minimumPersistentEntryLifetime: 16 })).toBe(16);
    expect(ttl({ minimumPersistentEntryLifetime: 0 })).toBe(4_096);
  });

  it('a Config upstream would reject (isValidConfigSettingEntry) is BAD_GENESIS', () => {
    const bad: GenesisTestConfig[] = [
      { minimumPersistentEntryLifetime: 9 },
      { minimumPersistentEntryLifetime: 1_054_080 },
      { evictionParams: { startingScanLevel: 0 } },
      { evictionParams: { startingScanLevel: 11 } },
    ];
    for (const config of bad)
      expectErrorCode(LedgerStateError, () => genesis(27, config), [BAD_GENESIS], JSON.stringify(config));
    // Below protocol 20 there is no STATE_ARCHIVAL to validate.
    expect(genesis(19, { evictionParams: { startingScanLevel: 0 } })).toHaveLength(1);
  });
});

describe('overrides', () => {
  const ported = genesis(27);
  /** A genesis STATE_ARCHIVAL entry with another minPersistentTTL, as a stream of a test that set it reveals it. */
  const withTtl = (minPersistentTTL: number) => {
    const entries = genesis(27, { minimumPersistentEntryLifetime: minPersistentTTL });
    const archival = entries.find((entry) => settingIds([entry])[0] === ID.STATE_ARCHIVAL);
    if (archival === undefined) throw new Error('no STATE_ARCHIVAL');
    return archival;
  };

  it('replace the entry of their key, in place, and leave the rest', () => {
    const override = withTtl(32);
    const entries = genesisEntries({
      networkPassphrase: CAPTURE_PASSPHRASE,
      protocolVersion: 27,
      overrides: [override],
    });
    expect(entries).toHaveLength(ported.length);
    expect(entries.filter((entry, i) => !Buffer.from(entry).equals(ported[i]!))).toEqual([override]);
  });

  it('the same override twice is one; two values of one key, or a non-genesis entry, are BAD_GENESIS', () => {
    const call = (overrides: unknown) => () =>
      genesisEntries({
        networkPassphrase: CAPTURE_PASSPHRASE,
        protocolVersion: 27,
        overrides: overrides as Uint8Array[],
      });
    expect(call([withTtl(32), withTtl(32)])()).toHaveLength(ported.length);
    expectErrorCode(LedgerStateError, call([withTtl(32), withTtl(64)]), [BAD_GENESIS], 'contradiction');
    const later = encodeLedgerEntry({
      lastModifiedLedgerSeq: 2,
      data: { type: 'account', accountId: new Uint8Array(32) },
    });
    expectErrorCode(LedgerStateError, call([later]), [BAD_GENESIS], 'lastModifiedLedgerSeq 2');
    const ttl = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'ttl', keyHash: new Uint8Array(32), liveUntilLedgerSeq: 10 },
    });
    expectErrorCode(LedgerStateError, call([ttl]), [BAD_GENESIS], 'a TTL entry');
    expectErrorCode(LedgerStateError, call([Uint8Array.of(0, 0, 0, 1, 0, 0)]), [BAD_ENTRY], 'garbage');
  });
});

describe('genesis header', () => {
  const bucketListHash = new Uint8Array(32).fill(0xab);

  it('decodes with stellar-base to genesisLedger() with the Config adjustments and the given bucketListHash', () => {
    const header = genesisLedgerHeader({ protocolVersion: 27, bucketListHash });
    const decoded = xdr.LedgerHeader.fromXDR(Buffer.from(header));
    expect(Buffer.from(header)).toEqual(decoded.toXDR());
    expect(decoded.ledgerVersion()).toBe(27);
    expect(decoded.ledgerSeq()).toBe(1);
    expect(decoded.totalCoins().toString()).toBe(TOTAL_COINS.toString());
    expect(Buffer.from(decoded.bucketListHash())).toEqual(Buffer.from(bucketListHash));
    expect([decoded.baseFee(), decoded.baseReserve(), decoded.maxTxSetSize()]).toEqual([100, 100_000_000, 50]);
    expect(decoded.previousLedgerHash().equals(Buffer.alloc(32))).toBe(true);
    expect(decoded.scpValue().upgrades()).toEqual([]);
  });

  it('without USE_CONFIG_FOR_GENESIS: protocol 0 and LedgerManager constants (max tx set size 100)', () => {
    const decoded = xdr.LedgerHeader.fromXDR(Buffer.from(genesisLedgerHeader({ protocolVersion: 0, bucketListHash })));
    expect([decoded.ledgerVersion(), decoded.maxTxSetSize()]).toEqual([GENESIS_LEDGER.version, 100]);
    const call = (options: object) => () => genesisLedgerHeader({ protocolVersion: 27, bucketListHash, ...options });
    expectErrorCode(
      LedgerStateError,
      call({ useConfigForGenesis: false }),
      [BAD_GENESIS],
      'protocol 27 without config',
    );
    const zero = (options: object) => () => genesisLedgerHeader({ protocolVersion: 0, bucketListHash, ...options });
    expectErrorCode(LedgerStateError, zero({ maxTxSetSize: 7 }), [BAD_GENESIS], 'a TESTING value without config');
    const custom = genesisLedgerHeader({ protocolVersion: 27, bucketListHash, baseFee: 7, maxTxSetSize: 9 });
    expect(xdr.LedgerHeader.fromXDR(Buffer.from(custom)).baseFee()).toBe(7);
  });
});

describe('GenesisReveals', () => {
  const entries = genesis(27);

  it('keeps the entries last modified at ledger 1, once each, as copies', () => {
    const reveals = new GenesisReveals();
    const later = encodeLedgerEntry({
      lastModifiedLedgerSeq: 5,
      data: { type: 'account', accountId: new Uint8Array(32) },
    });
    expect(reveals.observe(later)).toBe(false);
    const input = entries.map((entry) => entry.slice());
    for (const entry of input) expect(reveals.observe(entry)).toBe(true);
    for (const entry of input) expect(reveals.observe(entry)).toBe(true);
    input[0]!.fill(0);
    expect(reveals.size).toBe(entries.length);
    expect(reveals.entries()).toEqual(entries);
  });

  it('two values of one key, or a ledger-1 entry genesis cannot make, are INCONSISTENT_META', () => {
    const reveals = new GenesisReveals();
    reveals.observe(entries[0]!);
    const other = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'account', accountId: rootAccountId(CAPTURE_PASSPHRASE), balance: 5n },
    });
    expectErrorCode(LedgerStateError, () => reveals.observe(other), [INCONSISTENT_META], 'contradiction');
    const trustline = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: {
        type: 'trustline',
        accountId: new Uint8Array(32),
        asset: { type: 'poolShare', liquidityPoolId: new Uint8Array(32) },
      },
    });
    expectErrorCode(LedgerStateError, () => reveals.observe(trustline), [INCONSISTENT_META], 'a trustline');
  });
});

describe('genesisProtocolOf', () => {
  const ledger2 = (protocolVersion: number, init: Uint8Array[] = []) => ({
    header: { ledgerSeq: 2, protocolVersion },
    changes: { init },
  });
  const maxContractSize = (lastModifiedLedgerSeq: number) =>
    encodeLedgerEntry({
      lastModifiedLedgerSeq,
      data: { type: 'configSetting', configSettingId: ID.CONTRACT_MAX_SIZE_BYTES, body: Uint8Array.of(0, 0, 7, 208) },
    });

  it("is ledger 2's protocol, or 0 when ledger 2 creates the protocol-20 settings", () => {
    expect(genesisProtocolOf(ledger2(27))).toBe(27);
    expect(genesisProtocolOf(ledger2(0))).toBe(0);
    expect(genesisProtocolOf(ledger2(20, [maxContractSize(2)]))).toBe(0);
    const account = encodeLedgerEntry({
      lastModifiedLedgerSeq: 2,
      data: { type: 'account', accountId: new Uint8Array(32) },
    });
    expect(genesisProtocolOf(ledger2(23, [account]))).toBe(23);
  });

  it('needs ledger 2', () => {
    expectErrorCode(
      LedgerStateError,
      () => genesisProtocolOf({ ...ledger2(27), header: { ledgerSeq: 3, protocolVersion: 27 } }),
      [INVALID_ARGUMENT],
      'ledger 3',
    );
  });
});

describe('genesisTestConfigOf', () => {
  it('reads the Config back from the settings it made', () => {
    const configs: GenesisTestConfig[] = [
      {},
      { sorobanHighLimitOverride: true },
      { minimumPersistentEntryLifetime: 16 },
      { evictionParams: { scanSize: 100_000, maxEntriesToArchive: 100, startingScanLevel: 1 } },
      {
        sorobanHighLimitOverride: true,
        evictionParams: { scanSize: 10, maxEntriesToArchive: 3, startingScanLevel: 2 },
      },
    ];
    for (const config of configs) expect(genesisTestConfigOf(genesis(27, config), 27)).toEqual(config);
  });

  it('one revealed limit is enough to tell TESTING_SOROBAN_HIGH_LIMIT_OVERRIDE; nothing revealed, nothing set', () => {
    const high = genesis(26, { sorobanHighLimitOverride: true });
    const maxSize = high.filter((entry) => settingIds([entry])[0] === ID.CONTRACT_MAX_SIZE_BYTES);
    expect(genesisTestConfigOf(maxSize, 26)).toEqual({ sorobanHighLimitOverride: true });
    expect(genesisTestConfigOf([], 26)).toEqual({});
  });
});

const validHash = new Uint8Array(32);
describeBadArguments({
  errorClass: LedgerStateError,
  api: { ...api },
  defaultCodes: [INVALID_ARGUMENT],
  entries: [
    {
      name: 'genesisEntries',
      call: (options) => genesisEntries(options as never),
      valid: [{ networkPassphrase: 'x', protocolVersion: 27 }],
      bad: [
        [0, [undefined, null, 5, 'x', []]],
        [0, [{ protocolVersion: 27 }, { networkPassphrase: 5, protocolVersion: 27 }]],
        [0, [{ networkPassphrase: 'x' }, { networkPassphrase: 'x', protocolVersion: 1.5 }]],
        [
          0,
          [
            { networkPassphrase: 'x', protocolVersion: -1 },
            { networkPassphrase: 'x', protocolVersion: 29 },
          ],
          [BAD_GENESIS],
        ],
        [
          0,
          [
            { networkPassphrase: 'x', protocolVersion: 27, config: 5 },
            { networkPassphrase: 'x', protocolVersion: 27, config: { sorobanHighLimitOverride: 1 } },
            { networkPassphrase: 'x', protocolVersion: 27, config: { testAccountCount: -1 } },
            { networkPassphrase: 'x', protocolVersion: 27, config: { testAccountCount: 1_000_001 } },
            { networkPassphrase: 'x', protocolVersion: 27, config: { evictionParams: [] } },
            { networkPassphrase: 'x', protocolVersion: 27, config: { evictionParams: { scanSize: 2 ** 32 } } },
            { networkPassphrase: 'x', protocolVersion: 27, overrides: {} },
            { networkPassphrase: 'x', protocolVersion: 27, overrides: ['x'] },
          ],
        ],
      ],
    },
    {
      name: 'genesisLedgerHeader',
      call: (options) => genesisLedgerHeader(options as never),
      valid: [{ protocolVersion: 27, bucketListHash: validHash }],
      bad: [
        [0, [undefined, null, 'x']],
        [0, [{ protocolVersion: 27 }, { protocolVersion: 27, bucketListHash: new Uint8Array(31) }]],
        [0, [{ protocolVersion: 27, bucketListHash: validHash, useConfigForGenesis: 1 }]],
        [0, [{ protocolVersion: 27, bucketListHash: validHash, baseFee: -1 }]],
      ],
    },
    {
      name: 'genesisProtocolOf',
      call: (ledger) => genesisProtocolOf(ledger as never),
      valid: [{ header: { ledgerSeq: 2, protocolVersion: 27 }, changes: { init: [] } }],
      bad: [
        [0, [undefined, null, 5]],
        [
          0,
          [
            { header: { ledgerSeq: 2, protocolVersion: 27 } },
            { header: { ledgerSeq: 2, protocolVersion: 27 }, changes: {} },
          ],
        ],
        [0, [{ header: { ledgerSeq: 2, protocolVersion: -1 }, changes: { init: [] } }]],
        [0, [{ header: { ledgerSeq: 2, protocolVersion: 27 }, changes: { init: [5] } }]],
        [0, [{ header: { ledgerSeq: 2, protocolVersion: 27 }, changes: { init: [Uint8Array.of(1)] } }], [BAD_ENTRY]],
      ],
    },
    {
      name: 'genesisTestConfigOf',
      call: (revealed, protocol) => genesisTestConfigOf(revealed as never, protocol as never),
      valid: [[], 27],
      bad: [
        [0, [undefined, 5, [5]]],
        [1, ['27', 1.5]],
        [1, [29], [BAD_GENESIS]],
      ],
    },
    {
      name: 'GenesisReveals.observe',
      call: (entry) => new GenesisReveals().observe(entry as never),
      valid: [new Uint8Array(8)],
      bad: [
        [0, [undefined, 'x', [1]]],
        [0, [Uint8Array.of(0, 0, 0, 1, 0)], [BAD_ENTRY]],
      ],
    },
    {
      name: 'networkId',
      call: (passphrase) => networkId(passphrase as never),
      valid: ['x'],
      bad: [[0, [undefined, 5]]],
    },
    {
      name: 'rootAccountId',
      call: (passphrase) => rootAccountId(passphrase as never),
      valid: ['x'],
      bad: [[0, [undefined, 5]]],
    },
  ],
});
