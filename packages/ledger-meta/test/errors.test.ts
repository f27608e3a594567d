// LedgerMetaError and how readers place an error: (1) it is a StrataError whose fields are read-only and whose
// message is built once, `CODE in FILE at offset N field F record R: detail`; nothing rewrites it later (no `locate`);
// (2) placing an error (a path segment, a record's offset in its file, the file and record) makes a new error and
// leaves the caught one as it was, keeping its code, detail and cause; (3) an extraction error at a location is the
// same error as without it, with the offset shifted by the record's offset and the file and record filled in, and a
// sub-value's error keeps the LedgerKeyError as its cause through every placement; (4) every LedgerKeyError code maps
// to a LedgerMetaError code (the table), with the LedgerKeyError as cause and its field after the caller's.
import { StrataError } from '@strata/base';
import { LedgerKeyError, LedgerKeyErrorCode } from '@strata/ledger-key';
import { errorOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { annotate, fromLedgerKeyError, relocated } from '../src/errors.js';
import { extractLedger, generateNetwork, LedgerMetaError, LedgerMetaErrorCode } from '../src/index.js';

const ledger = [...generateNetwork({ seed: 'errors', ledgers: 3, eventsPerLedger: 20, record: false })][2];
if (ledger === undefined) throw new Error('the generator made fewer than three ledgers');
const lcm = ledger.lcm;

describe('LedgerMetaError', () => {
  it('(1) is a StrataError with read-only fields and a message built once', () => {
    const error = new LedgerMetaError('TRUNCATED', 'need 4 bytes, 1 left', {
      file: 'ledgers.xdr',
      record: 7,
      offset: 120,
      field: 'LedgerCloseMeta.v2.ext',
    });
    expect(error).toBeInstanceOf(StrataError);
    expect(error).toBeInstanceOf(LedgerMetaError);
    expect([error.name, error.code, error.detail, error.file, error.record, error.offset, error.field]).toEqual([
      'LedgerMetaError',
      'TRUNCATED',
      'need 4 bytes, 1 left',
      'ledgers.xdr',
      7,
      120,
      'LedgerCloseMeta.v2.ext',
    ]);
    expect(error.message).toBe(
      'TRUNCATED in ledgers.xdr at offset 120 field LedgerCloseMeta.v2.ext record 7: need 4 bytes, 1 left',
    );
    expect(new LedgerMetaError('IO', 'cannot read').message).toBe('IO: cannot read');
    expect('locate' in error).toBe(false);
  });

  it('(2) placing an error makes a new one and leaves the caught error as it was', () => {
    const cause = new Error('the original fault');
    const inner = new LedgerMetaError('BAD_BOOL', 'expected 0 or 1, got 2', { offset: 8, field: 'flag', cause });
    const before = { message: inner.message, field: inner.field, offset: inner.offset, file: inner.file };

    const annotated = errorOf(LedgerMetaError, () => annotate(inner, 'Parent'));
    expect(annotated).not.toBe(inner);
    expect([annotated.field, annotated.message]).toEqual([
      'Parent.flag',
      'BAD_BOOL at offset 8 field Parent.flag: expected 0 or 1, got 2',
    ]);
    expect(errorOf(LedgerMetaError, () => annotate(annotated, 'events[3]')).field).toBe('events[3].Parent.flag');

    const placed = relocated(inner, { fieldPrefix: 'list', offsetShift: 100, file: 'a.xdr', record: 2 });
    expect([placed.code, placed.detail, placed.offset, placed.field, placed.file, placed.record, placed.cause]).toEqual(
      ['BAD_BOOL', 'expected 0 or 1, got 2', 108, 'list.flag', 'a.xdr', 2, cause],
    );
    // An array element's index joins without a dot; a file and record already known stay.
    const element = relocated(relocated(inner, { fieldPrefix: '[4]' }), { fieldPrefix: 'items' });
    expect(element.field).toBe('items[4].flag');
    expect(relocated(placed, { file: 'b.xdr', record: 9 })).toMatchObject({ file: 'a.xdr', record: 2 });

    expect({ message: inner.message, field: inner.field, offset: inner.offset, file: inner.file }).toEqual(before);
    // Anything but a LedgerMetaError (a bug) passes through annotate unchanged.
    const bug = new TypeError('a bug');
    expect(errorOf(TypeError, () => annotate(bug, 'Parent'))).toBe(bug);
  });

  it('(3) an extraction error at a location is the same error, shifted and placed', () => {
    const cut = lcm.subarray(0, lcm.length - 500);
    const bare = errorOf(LedgerMetaError, () => extractLedger(cut));
    const located = errorOf(LedgerMetaError, () => extractLedger(cut, { file: 'net.xdr', record: 3, offset: 1000 }));
    expect(bare.field?.startsWith('LedgerCloseMeta.')).toBe(true);
    expect([located.code, located.detail, located.field]).toEqual([bare.code, bare.detail, bare.field]);
    expect([located.file, located.record, located.offset]).toEqual(['net.xdr', 3, (bare.offset ?? 0) + 1000]);
    expect([bare.file, bare.record]).toEqual([undefined, undefined]);

    // An event topic that is not an SCVal: ledger-key's error stays the cause, at the offset inside the LCM.
    const topic = extractLedger(lcm).events[0]?.topics[0];
    if (topic === undefined) throw new Error('the generated ledger has no event with a topic');
    const corrupted = lcm.slice();
    corrupted.set([0x7f, 0xff, 0xff, 0xff], topic.byteOffset - lcm.byteOffset);
    const sub = errorOf(LedgerMetaError, () => extractLedger(corrupted, { record: 3, offset: 1000 }));
    expect(sub.code).toBe('BAD_DISCRIMINANT');
    expect(sub.field).toMatch(/^LedgerCloseMeta\.txProcessing\[\d+\]\.txApplyProcessing\.v4\..*body\.v0\.topics\[0\]/);
    expect(sub.cause).toBeInstanceOf(LedgerKeyError);
    expect(sub.offset).toBe(((sub.cause as LedgerKeyError).offset ?? Number.NaN) + 1000);
  });

  it('(4) maps every LedgerKeyError code, keeping the LedgerKeyError as the cause', () => {
    const shared = new Set<string>(Object.values(LedgerMetaErrorCode));
    for (const code of Object.values(LedgerKeyErrorCode)) {
      const cause = new LedgerKeyError(code, 'bad', { offset: 12, field: 'SCVal.sym' });
      const error = errorOf(LedgerMetaError, () => fromLedgerKeyError(cause, 'topics[0]'));
      expect(error.code, code).toBe(shared.has(code) ? code : 'BAD_DISCRIMINANT');
      expect([error.offset, error.field, error.cause]).toEqual([12, 'topics[0](SCVal.sym)', cause]);
    }
    const noOffset = errorOf(LedgerMetaError, () =>
      fromLedgerKeyError(new LedgerKeyError('INVALID_ARGUMENT', 'bad'), 'entry'),
    );
    expect([noOffset.offset, noOffset.field]).toEqual([undefined, 'entry']);
    const bug = new RangeError('not from ledger-key');
    expect(errorOf(RangeError, () => fromLedgerKeyError(bug, 'entry'))).toBe(bug);
  });
});
