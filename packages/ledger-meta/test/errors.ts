// The LedgerMetaError a call throws, for tests that inspect its fields.
import { LedgerMetaError } from '../src/index.js';

/** Runs `call` and returns the LedgerMetaError it throws; anything else (or nothing) fails the test. */
export function errorOf(call: () => unknown): LedgerMetaError {
  try {
    call();
  } catch (error) {
    if (error instanceof LedgerMetaError) return error;
    throw error;
  }
  throw new Error('expected a LedgerMetaError, got none');
}
