// The schema walker's skip functions (generated from xdr-schema.ts) on hand-made values: (1) every schema type has
// a generated skip and a well-formed value is skipped to its end; (2) each kind of fault is reported with its code, offset,
// XDR path and message: a truncation inside a run of fixed-size fields names the field, an unknown union arm or enum
// value, an optional flag or bool other than 0 / 1, an array or opaque over its bound, a count that cannot fit,
// non-zero padding, an error inside an array element; (3) nesting past MAX_XDR_DEPTH is TOO_DEEP at the level that
// passes it, not a stack overflow.
import { errorOf as errorOfClass } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerMetaError } from '../src/errors.js';
import { LCM_SCHEMA } from '../src/xdr-schema.js';
import { XDR_SKIPS } from '../src/xdr-walker.generated.js';
import { MAX_XDR_DEPTH, skipperFor, skipXdr, type XdrExpression } from '../src/xdr-walker.js';

const errorOf = (call: () => unknown) => errorOfClass(LedgerMetaError, call);

/** XDR of big-endian u32 words. */
function words(...values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, value] of values.entries()) view.setUint32(i * 4, value >>> 0);
  return bytes;
}

function fault(name: XdrExpression, bytes: Uint8Array) {
  const { code, offset, field, detail } = errorOf(() => skipXdr(name, bytes, 0));
  return { code, offset, field, detail };
}

describe('schema walker', () => {
  it('has a skip for every schema type and skips well-formed values to their end', () => {
    expect(Object.keys(XDR_SKIPS)).toEqual(expect.arrayContaining(Object.keys(LCM_SCHEMA)));
    for (const skip of Object.values(XDR_SKIPS)) expect(typeof skip).toBe('function');
    expect(skipXdr('TimeBounds', words(0, 1, 0, 2), 0)).toBe(16);
    // Memo text "abcde": length, then 5 bytes padded to 8.
    expect(skipXdr('Memo', new Uint8Array([0, 0, 0, 1, 0, 0, 0, 5, 97, 98, 99, 100, 101, 0, 0, 0]), 0)).toBe(16);
    // ClaimPredicate and(not(unconditional), absBefore 7): recursion through an array and an optional.
    expect(skipXdr('ClaimPredicate', words(1, 2, 3, 1, 0, 4, 0, 7), 0)).toBe(32);
    // A type expression the schema uses but does not name has its own skip: two DecoratedSignatures, empty ones.
    expect(skipperFor('DecoratedSignature<20>')(words(2, 0, 0, 1, 0), 0, 0)).toBe(20);
  });

  it('names the field of a truncation inside a run of fixed-size fields', () => {
    expect(fault('TimeBounds', words(0, 1, 0))).toEqual({
      code: 'TRUNCATED',
      offset: 8,
      field: 'TimeBounds.maxTime',
      detail: 'need 8 bytes, 4 left',
    });
  });

  it('reports unknown union arms and enum values, and flags other than 0 or 1', () => {
    expect(fault('Memo', words(9))).toEqual({
      code: 'BAD_DISCRIMINANT',
      offset: 0,
      field: 'Memo',
      detail: 'unknown discriminant 9',
    });
    expect(fault('MemoType', words(7))).toEqual({
      code: 'BAD_DISCRIMINANT',
      offset: 0,
      field: 'MemoType',
      detail: 'MemoType has no value 7',
    });
    // ClaimPredicate not(...) with an optional flag of 2.
    expect(fault('ClaimPredicate', words(3, 2))).toEqual({
      code: 'BAD_BOOL',
      offset: 4,
      field: 'ClaimPredicate.notPredicate',
      detail: 'optional flag must be 0 or 1, got 2',
    });
  });

  it('checks bounds, counts and padding, and annotates array elements', () => {
    // DecoratedSignature<20> with 21 elements, and with 3 that cannot fit in the bytes left.
    expect(errorOf(() => skipperFor('DecoratedSignature<20>')(words(21), 0, 0)).detail).toBe(
      '21 elements exceed the XDR bound 20',
    );
    expect(errorOf(() => skipperFor('DecoratedSignature<20>')(words(3, 0, 0), 0, 0)).detail).toBe(
      '3 elements of at least 8 bytes cannot fit',
    );
    // Memo text over string<28>, and with a non-zero padding byte.
    expect(fault('Memo', words(1, 29))).toEqual({
      code: 'TOO_LONG',
      offset: 4,
      field: 'Memo.text',
      detail: 'length 29 exceeds the XDR bound 28',
    });
    expect(fault('Memo', new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 97, 0, 5, 0]))).toEqual({
      code: 'BAD_PADDING',
      offset: 10,
      field: 'Memo.text',
      detail: 'non-zero XDR padding',
    });
    // A truncation inside an optional inside a struct, inside the second element of an array, and inside the last
    // element of a fixed array.
    const error = errorOf(() => skipXdr('TransactionV0', words(...new Array(8).fill(0), 100, 0, 1, 1, 0, 5, 0), 0));
    expect({ code: error.code, offset: error.offset, field: error.field }).toEqual({
      code: 'TRUNCATED',
      offset: 56,
      field: 'TransactionV0.timeBounds.maxTime',
    });
    const element = errorOf(() => skipperFor('DecoratedSignature<20>')(words(2, 0, 0, 1, 5), 0, 0));
    expect({ code: element.code, offset: element.offset, field: element.field, detail: element.detail }).toEqual({
      code: 'TRUNCATED',
      offset: 20,
      field: '[1].signature',
      detail: 'need 8 bytes, 0 left',
    });
    const fixed = errorOf(() => skipperFor('opaque[32][4]')(new Uint8Array(100), 0, 0));
    expect({ code: fixed.code, offset: fixed.offset, field: fixed.field }).toEqual({
      code: 'TRUNCATED',
      offset: 96,
      field: '[3]',
    });
  });

  it('fails nesting past MAX_XDR_DEPTH as TOO_DEEP, at the level that passes it', () => {
    // not(not(not(...))): each level is a union (one level deeper) and an optional flag, 8 bytes.
    const levels = MAX_XDR_DEPTH + 50;
    const chain: number[] = [];
    for (let level = 0; level < levels; level++) chain.push(3, 1);
    chain.push(0);
    const error = fault('ClaimPredicate', words(...chain));
    expect(error.code).toBe('TOO_DEEP');
    expect(error.offset).toBe((MAX_XDR_DEPTH + 1) * 8);
    expect(error.field).toBe(['ClaimPredicate', ...new Array(MAX_XDR_DEPTH + 1).fill('notPredicate')].join('.'));
    expect(error.detail).toBe(`nesting deeper than ${MAX_XDR_DEPTH}`);
  });
});
