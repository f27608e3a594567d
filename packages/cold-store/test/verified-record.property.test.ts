// The re-reading of records the packfile reader checked before (src/packfile/verified-record.ts) against checkRecord,
// the checked decode, as the oracle. Properties:
// 1. For any item sizes (every residual width 0..32, minimums up to 2^32 − 1, 1..300 items) of a compressed record,
//    recheckRecord returns what checkRecord returns, and itemSizeAt / itemStartAt give each item's size and the sum
//    of the sizes before it — also when the record is a subarray at any offset of a larger buffer (a mapping).
// 2. For raw records (items as stored), the item each (start, size) names is the item written.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordFlag } from '../src/packfile/format.ts';
import { checkRecord, encodeRecordFooter, type RecordContext } from '../src/packfile/record.ts';
import { itemSizeAt, itemStartAt, layoutOf, recheckRecord } from '../src/packfile/verified-record.ts';

/** Item sizes whose residuals take `width` bits: a minimum, then values in [min, min + 2^width). */
const sizesArb = fc
  .record({ width: fc.integer({ min: 0, max: 32 }), count: fc.integer({ min: 1, max: 300 }) })
  .chain(({ width, count }) => {
    const span = 2 ** width; // residuals in [0, span); fc.nat stops at 2^31 - 1, so draw safe integers and reduce
    const below = (bound: number) => fc.maxSafeNat().map((x) => x % bound);
    return below(2 ** 32 - span + 1).chain((min) =>
      fc.array(below(span), { minLength: count, maxLength: count }).map((residuals) => residuals.map((r) => min + r)),
    );
  });

function contextFor(itemCount: number): RecordContext {
  return { file: 'test', offset: 0, record: 0, itemCount, maxRawBytes: Number.MAX_SAFE_INTEGER, zstdAllowed: true };
}

/** The stored record `payload ‖ footer`, at `pad` bytes into a buffer with `pad` bytes after it too. */
function stored(payload: Uint8Array, sizes: readonly number[], flags: number, pad: number): Uint8Array {
  const footer = encodeRecordFooter(payload, sizes, flags);
  const buffer = new Uint8Array(pad + payload.length + footer.length + pad).fill(0xa5);
  buffer.set(payload, pad);
  buffer.set(footer, pad + payload.length);
  return buffer.subarray(pad, pad + payload.length + footer.length);
}

describe('re-reading checked records', () => {
  it('gives what checkRecord gives, for every residual width (property 1)', () => {
    fc.assert(
      fc.property(sizesArb, fc.uint8Array({ maxLength: 40 }), fc.nat({ max: 9 }), (sizes, frame, pad) => {
        const record = stored(frame, sizes, RecordFlag.zstd, pad);
        const checked = checkRecord(record, contextFor(sizes.length), true);
        const again = recheckRecord(record, sizes.length, new Uint32Array(sizes.length + 3));
        expect(again.compressed).toBe(true);
        expect(again.payloadBytes).toBe(checked.payloadBytes);
        expect(again.rawBytes).toBe(checked.rawBytes);
        expect([...again.itemSizes]).toEqual([...checked.itemSizes]);
        const layout = layoutOf(record, sizes.length);
        let start = 0;
        for (let i = 0; i < sizes.length; i++) {
          expect(itemSizeAt(record, layout, i)).toBe(sizes[i]);
          if (i % 37 === 0 || i === sizes.length - 1) expect(itemStartAt(record, layout, i)).toBe(start);
          start += sizes[i] as number;
        }
      }),
      propertyParams({ numRuns: 400 }),
    );
  });

  it('names the items of a raw record (property 2)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 70 }), { minLength: 1, maxLength: 200 }),
        fc.nat({ max: 9 }),
        (items, pad) => {
          const payload = new Uint8Array(items.reduce((n, item) => n + item.length, 0));
          let at = 0;
          for (const item of items) {
            payload.set(item, at);
            at += item.length;
          }
          const record = stored(
            payload,
            items.map((item) => item.length),
            0,
            pad,
          );
          const checked = checkRecord(record, contextFor(items.length), true);
          expect(recheckRecord(record, items.length, new Uint32Array(items.length))).toEqual(checked);
          const layout = layoutOf(record, items.length);
          expect(layout.compressed).toBe(false);
          items.forEach((item, i) => {
            const start = itemStartAt(record, layout, i);
            expect(record.subarray(start, start + itemSizeAt(record, layout, i))).toEqual(item);
          });
        },
      ),
      propertyParams({ numRuns: 200 }),
    );
  });
});
