// Asserting on the package's expected failures: a VmMemoryError with a given code (and field), never a TypeError or
// RangeError from deep inside.
import { errorOf } from '@strata/test-kit';
import { expect } from 'vitest';
import { VmMemoryError, type VmMemoryErrorCode } from '../src/errors.js';

/** Runs `body`, expects it to throw a VmMemoryError with `code` (and `field`, when given), and returns it. */
export function expectVmError(body: () => unknown, code: VmMemoryErrorCode, field?: string): VmMemoryError {
  const error = errorOf(VmMemoryError, body);
  expect(error.code, error.message).toBe(code);
  if (field !== undefined) expect(error.field, error.message).toBe(field);
  return error;
}
