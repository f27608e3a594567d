// The ConfigSettingEntry arms of the eviction scan against @stellar/stellar-base's XDR (the oracle).
// Properties:
//  1. decodeEvictionIterator reads what stellar-base writes for any EvictionIterator, and encodeEvictionIterator
//     writes the same bytes.
//  2. decodeStateArchivalSettings reads what stellar-base writes for any StateArchivalSettings.
//  3. evictionIteratorEntry is the CONFIG_SETTING LedgerEntry stellar-base writes (lastModifiedLedgerSeq, ext v0).
//  4. Malformed arms are BAD_ENTRY, bad arguments INVALID_ARGUMENT.
// Negative control: the iterator read with its fields in declaration order but the offset as two uint32 swapped
// disagrees with stellar-base.
import { xdr } from '@stellar/stellar-base';
import { errorOf, hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import {
  decodeEvictionIterator,
  decodeStateArchivalSettings,
  encodeEvictionIterator,
  evictionIteratorEntry,
} from '../src/eviction/settings.js';

const iteratorArb = fc.record({
  bucketListLevel: fc.nat({ max: 0xffff_ffff }),
  isCurrBucket: fc.boolean(),
  bucketFileOffset: fc.maxSafeNat(),
});

const oracleIterator = (it: { bucketListLevel: number; isCurrBucket: boolean; bucketFileOffset: number }) =>
  new xdr.EvictionIterator({
    bucketListLevel: it.bucketListLevel,
    isCurrBucket: it.isCurrBucket,
    bucketFileOffset: xdr.Uint64.fromString(String(it.bucketFileOffset)),
  });

const u32 = fc.nat({ max: 0xffff_ffff });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const settingsArb = fc.record({
  maxEntryTtl: u32,
  minTemporaryTtl: u32,
  minPersistentTtl: u32,
  persistentRentRateDenominator: i64,
  tempRentRateDenominator: i64,
  maxEntriesToArchive: u32,
  liveSorobanStateSizeWindowSampleSize: u32,
  liveSorobanStateSizeWindowSamplePeriod: u32,
  evictionScanSize: u32,
  startingEvictionScanLevel: u32,
});

describe('eviction ConfigSettingEntry arms', () => {
  it('1. the EvictionIterator arm reads and writes as stellar-base does', () => {
    fc.assert(
      fc.property(iteratorArb, (iterator) => {
        const bytes = new Uint8Array(oracleIterator(iterator).toXDR());
        expect(decodeEvictionIterator(bytes)).toEqual(iterator);
        expect(hex(encodeEvictionIterator(iterator))).toBe(hex(bytes));
      }),
      propertyParams(),
    );
  });

  it('2. the StateArchivalSettings arm reads as stellar-base writes it', () => {
    fc.assert(
      fc.property(settingsArb, (settings) => {
        const oracle = new xdr.StateArchivalSettings({
          maxEntryTtl: settings.maxEntryTtl,
          minTemporaryTtl: settings.minTemporaryTtl,
          minPersistentTtl: settings.minPersistentTtl,
          persistentRentRateDenominator: xdr.Int64.fromString(String(settings.persistentRentRateDenominator)),
          tempRentRateDenominator: xdr.Int64.fromString(String(settings.tempRentRateDenominator)),
          maxEntriesToArchive: settings.maxEntriesToArchive,
          liveSorobanStateSizeWindowSampleSize: settings.liveSorobanStateSizeWindowSampleSize,
          liveSorobanStateSizeWindowSamplePeriod: settings.liveSorobanStateSizeWindowSamplePeriod,
          evictionScanSize: settings.evictionScanSize,
          startingEvictionScanLevel: settings.startingEvictionScanLevel,
        });
        expect(decodeStateArchivalSettings(new Uint8Array(oracle.toXDR()))).toEqual(settings);
      }),
      propertyParams(),
    );
  });

  it('3. evictionIteratorEntry is the CONFIG_SETTING LedgerEntry, LIVE at the ledger, ext v0', () => {
    fc.assert(
      fc.property(u32, iteratorArb, (ledgerSeq, iterator) => {
        const oracle = new xdr.LedgerEntry({
          lastModifiedLedgerSeq: ledgerSeq,
          data: xdr.LedgerEntryData.configSetting(
            xdr.ConfigSettingEntry.configSettingEvictionIterator(oracleIterator(iterator)),
          ),
          ext: new xdr.LedgerEntryExt(0),
        });
        expect(hex(evictionIteratorEntry(ledgerSeq, iterator))).toBe(oracle.toXDR('hex'));
      }),
      propertyParams({ numRuns: 50 }),
    );
  });

  it('4. malformed arms are BAD_ENTRY, bad arguments INVALID_ARGUMENT', () => {
    const good = encodeEvictionIterator({ bucketListLevel: 6, isCurrBucket: true, bucketFileOffset: 40 });
    const withBool = good.slice();
    withBool[7] = 2;
    const hugeOffset = good.slice();
    hugeOffset.set([0x00, 0x20, 0, 0, 0, 0, 0, 0], 8); // 2^53
    const bad: [string, () => unknown, string][] = [
      ['iterator of 12 bytes', () => decodeEvictionIterator(good.subarray(0, 12)), 'BAD_ENTRY'],
      ['iterator bool 2', () => decodeEvictionIterator(withBool), 'BAD_ENTRY'],
      ['iterator offset 2^53', () => decodeEvictionIterator(hugeOffset), 'BAD_ENTRY'],
      ['iterator not bytes', () => decodeEvictionIterator('00' as never), 'INVALID_ARGUMENT'],
      ['settings of 44 bytes', () => decodeStateArchivalSettings(new Uint8Array(44)), 'BAD_ENTRY'],
      ['settings null', () => decodeStateArchivalSettings(null as never), 'INVALID_ARGUMENT'],
      ['encode null', () => encodeEvictionIterator(null as never), 'INVALID_ARGUMENT'],
      [
        'encode level -1',
        () => encodeEvictionIterator({ bucketListLevel: -1, isCurrBucket: true, bucketFileOffset: 0 }),
        'INVALID_ARGUMENT',
      ],
      [
        'encode isCurrBucket 1',
        () => encodeEvictionIterator({ bucketListLevel: 1, isCurrBucket: 1 as never, bucketFileOffset: 0 }),
        'INVALID_ARGUMENT',
      ],
      [
        'encode offset 0.5',
        () => encodeEvictionIterator({ bucketListLevel: 1, isCurrBucket: true, bucketFileOffset: 0.5 }),
        'INVALID_ARGUMENT',
      ],
      [
        'entry ledger -1',
        () => evictionIteratorEntry(-1, { bucketListLevel: 1, isCurrBucket: true, bucketFileOffset: 0 }),
        'INVALID_ARGUMENT',
      ],
    ];
    for (const [what, call, code] of bad) expect(errorOf(LedgerStateError, call).code, what).toBe(code);
  });

  it('negative control: a reader with the offset words swapped disagrees with stellar-base', () => {
    const swapped = (bytes: Uint8Array) => {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return view.getUint32(12) * 2 ** 32 + view.getUint32(8);
    };
    const run = fc.check(
      fc.property(iteratorArb, (iterator) => {
        const bytes = new Uint8Array(oracleIterator(iterator).toXDR());
        return swapped(bytes) === decodeEvictionIterator(bytes).bucketFileOffset;
      }),
      { numRuns: 100, seed: 5 },
    );
    expect(run.failed).toBe(true);
  });
});
