// Property tests of genesis over random test Configs and genesis protocols. Properties:
//
//  1. Shape: genesisEntries gives LedgerEntry XDR that stellar-base decodes and re-encodes to the same bytes, each
//     last modified at ledger 1, strictly ascending in stellar-core key order (so no key twice).
//  2. Config round trip: the Config that genesisTestConfigOf reads from a genesis rebuilds that genesis byte for
//     byte (what a stream reveals is enough to rebuild what it does not, e.g. the eviction iterator).
//  3. Overrides by the genesis itself change nothing: any subset of a genesis, passed as overrides, gives it back.
//  4. GenesisReveals keeps exactly the genesis entries offered (each once, whatever the order or repetition), and
//     skips entries last modified later.
//
// Negative control: property 2 with an inference that forgets the Config finds a counterexample.
import { xdr } from '@stellar/stellar-base';
import { compareLedgerEntries } from '@strata/ledger-key';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GenesisReveals,
  type GenesisTestConfig,
  genesisEntries,
  genesisTestConfigOf,
  MAX_GENESIS_PROTOCOL_VERSION,
} from '../src/genesis/index.js';
import { CAPTURE_PASSPHRASE } from './genesis-oracle.js';

const UINT32_MAX = 0xffff_ffff;
/** Below the default maxEntryTTL (1,054,080): isValidConfigSettingEntry wants maxEntryTTL > minPersistentTTL. */
const MAX_MIN_PERSISTENT_TTL = 1_054_079;

/** A Config stellar-core accepts (isValidConfigSettingEntry), every field possibly absent. */
const testConfig: fc.Arbitrary<GenesisTestConfig> = fc.record(
  {
    sorobanHighLimitOverride: fc.boolean(),
    minimumPersistentEntryLifetime: fc.oneof(fc.constant(0), fc.integer({ min: 10, max: MAX_MIN_PERSISTENT_TTL })),
    evictionParams: fc.record(
      {
        scanSize: fc.integer({ min: 0, max: UINT32_MAX }),
        maxEntriesToArchive: fc.integer({ min: 0, max: UINT32_MAX }),
        startingScanLevel: fc.integer({ min: 1, max: 10 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const protocol = fc.integer({ min: 0, max: MAX_GENESIS_PROTOCOL_VERSION });
const sorobanProtocol = fc.integer({ min: 20, max: MAX_GENESIS_PROTOCOL_VERSION });

const build = (protocolVersion: number, config: GenesisTestConfig, overrides?: Uint8Array[]) =>
  genesisEntries({
    networkPassphrase: CAPTURE_PASSPHRASE,
    protocolVersion,
    config,
    ...(overrides === undefined ? {} : { overrides }),
  });

const hexOf = (entries: readonly Uint8Array[]) => entries.map((entry) => Buffer.from(entry).toString('hex'));

/** Property 2 with a given inference; returns fast-check's verdict. */
const roundTrip = (infer: typeof genesisTestConfigOf) =>
  fc.property(sorobanProtocol, testConfig, (protocolVersion, config) => {
    const entries = build(protocolVersion, config);
    expect(hexOf(build(protocolVersion, infer(entries, protocolVersion)))).toEqual(hexOf(entries));
  });

describe('genesis properties', () => {
  it('1. valid XDR, last modified at ledger 1, strictly ascending keys', () => {
    fc.assert(
      fc.property(protocol, testConfig, (protocolVersion, config) => {
        const entries = build(protocolVersion, config);
        entries.forEach((entry, i) => {
          const decoded = xdr.LedgerEntry.fromXDR(Buffer.from(entry));
          expect(Buffer.from(entry)).toEqual(decoded.toXDR());
          expect(decoded.lastModifiedLedgerSeq()).toBe(1);
          if (i > 0) expect(compareLedgerEntries(entries[i - 1]!, entry)).toBeLessThan(0);
        });
      }),
      propertyParams({ numRuns: 60 }),
    );
  });

  it('2. the Config read back from a genesis rebuilds it byte for byte', () => {
    fc.assert(roundTrip(genesisTestConfigOf), propertyParams({ numRuns: 60 }));
  });

  it('negative control: an inference that forgets the Config fails property 2', () => {
    const verdict = fc.check(
      roundTrip(() => ({})),
      propertyParams({ numRuns: 200 }),
    );
    expect(verdict.failed).toBe(true);
  });

  it('3. a subset of the genesis as overrides gives the genesis back', () => {
    fc.assert(
      fc.property(protocol, testConfig, fc.infiniteStream(fc.boolean()), (protocolVersion, config, picks) => {
        const entries = build(protocolVersion, config);
        const iterator = picks[Symbol.iterator]();
        const subset = entries.filter(() => iterator.next().value === true);
        expect(hexOf(build(protocolVersion, config, subset))).toEqual(hexOf(entries));
      }),
      propertyParams({ numRuns: 60 }),
    );
  });

  it('4. GenesisReveals keeps each offered genesis entry once and skips later ones', () => {
    fc.assert(
      fc.property(
        sorobanProtocol,
        testConfig,
        fc.array(fc.nat(), { maxLength: 60 }),
        (protocolVersion, config, order) => {
          const entries = build(protocolVersion, config);
          const offered = order.map((i) => entries[i % entries.length]!);
          const reveals = new GenesisReveals();
          for (const entry of offered) {
            expect(reveals.observe(entry)).toBe(true);
            const later = entry.slice();
            later[3] = 2; // lastModifiedLedgerSeq 2
            expect(reveals.observe(later)).toBe(false);
          }
          const expected = [...new Set(hexOf(offered))].sort();
          expect(hexOf(reveals.entries()).sort()).toEqual(expected);
          expect(reveals.size).toBe(expected.length);
        },
      ),
      propertyParams({ numRuns: 60 }),
    );
  });
});
