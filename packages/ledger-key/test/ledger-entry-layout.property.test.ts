// ledgerEntryLayout against the views. Property: for every random valid entry placed at a random offset inside a
// larger buffer, the layout gives
//  1. the entry's type, as readLedgerEntry reads it;
//  2. the key fields' span, whose bytes are the LedgerKey's (from ledgerKeyOfEntry) after its type;
//  3. the entry's end, as its length says;
//  4. with a fifth element, the end of the data arm, as the view's dataBytes end (a four-element array is left
//     alone past its end).
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ledgerEntryLayout, ledgerKeyOfEntry, readLedgerEntry } from '../src/index.js';
import { ledgerEntryArb } from './arbitraries.js';

describe('ledgerEntryLayout', () => {
  it('gives the type, the key fields and the end of every entry, as readLedgerEntry and ledgerKeyOfEntry see them', () => {
    const five = new Int32Array(6).fill(-7);
    const out = five.subarray(0, 4);
    const withDataEnd = new Int32Array(5);
    fc.assert(
      fc.property(ledgerEntryArb, fc.nat(7), (entry, pad) => {
        const padded = new Uint8Array(pad + entry.length + 8);
        padded.set(entry, pad);
        ledgerEntryLayout(padded, pad, out);
        expect(five[4]).toBe(-7);
        ledgerEntryLayout(padded, pad, withDataEnd);
        expect(Array.from(withDataEnd.subarray(0, 4))).toEqual(Array.from(out));
        expect(withDataEnd[4]).toBe(pad + 4 + readLedgerEntry(entry).dataBytes.length);
        expect(out[0]).toBe(readLedgerEntry(entry).type);
        expect(out[3]).toBe(pad + entry.length);
        // The key fields are the LedgerKey's bytes after its type.
        expect(hex(padded.subarray(out[1], out[2]))).toBe(hex(ledgerKeyOfEntry(entry).subarray(4)));
      }),
      propertyParams({ numRuns: 500 }),
    );
  });
});
