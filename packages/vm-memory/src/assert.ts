// Invariant checks. A failed assert is a bug in this package, never bad input (bad input is a VmMemoryError).

/** Crashes loudly when an internal invariant does not hold. */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`@strata/vm-memory invariant violated: ${message}`);
}
