// Asserting on the package's expected failures: a VmMemoryError with a given code (and field), never a TypeError or
// RangeError from deep inside. test-kit's checker, with this package's error class.
import { expectErrorCode } from '@strata/test-kit';
import { VmMemoryError, type VmMemoryErrorCode } from '../src/errors.js';

/** Runs `body`, expects it to throw a VmMemoryError with `code` (and `field`, when given), and returns it. */
export function expectVmError(body: () => unknown, code: VmMemoryErrorCode, field?: string): VmMemoryError {
  return expectErrorCode(VmMemoryError, body, [code], `expected ${code}`, field);
}
