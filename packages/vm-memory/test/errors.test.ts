// VmMemoryError: the stable code table, and the shared shape of @strata/base's StrataError (read-only context
// fields, the message built once from code, place and detail, the cause kept).
import { StrataError } from '@strata/base';
import { describe, expect, it } from 'vitest';
import { VmMemoryError, VmMemoryErrorCode } from '../src/errors.js';

describe('VmMemoryError', () => {
  it('has a stable code table', () => {
    expect(Object.values(VmMemoryErrorCode)).toEqual([
      'INVALID_ARGUMENT',
      'UNAVAILABLE',
      'POOL_EXHAUSTED',
      'LEASE_REVOKED',
      'CLOSED',
      'BAD_MODULE',
      'REFERENCE_ESCAPE',
    ]);
  });

  it('is a StrataError whose message names code, offset, field and strategy, in that order', () => {
    const cause = new Error('underlying');
    const error = new VmMemoryError('BAD_MODULE', 'truncated u32', {
      offset: 9,
      field: 'import section',
      strategy: 'dirty-pages',
      cause,
    });
    expect(error).toBeInstanceOf(StrataError);
    expect(error.name).toBe('VmMemoryError');
    expect(error.message).toBe('BAD_MODULE at offset 9 field import section strategy dirty-pages: truncated u32');
    expect(error).toMatchObject({ code: 'BAD_MODULE', detail: 'truncated u32', offset: 9, strategy: 'dirty-pages' });
    expect(error.cause).toBe(cause);
    expect(error.file).toBeUndefined();
    expect(new VmMemoryError('CLOSED', 'the pool is closed').message).toBe('CLOSED: the pool is closed');
  });
});
