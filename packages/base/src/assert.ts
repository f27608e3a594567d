// Invariant checks. A failed assert is a bug in the package that asserted, never bad input: bad input is that
// package's error class (a StrataError subclass) with a stable code.
import { describeValue } from './describe-value.js';

/** Thrown by `assert` and `unreachable`: an invariant broke. Not part of any package's error contract. */
export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

/**
 * Crashes loudly when an internal invariant does not hold. `message` may be a function, so that a message built
 * from values costs nothing on the path where the invariant holds (hot loops assert too).
 */
export function assert(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new AssertionError(`invariant violated: ${typeof message === 'string' ? message : message()}`);
}

/**
 * Marks a branch the type checker proves cannot run (an exhaustive switch's default). Reaching it at run time
 * means a value outside its type arrived, which is a bug.
 */
export function unreachable(value: never, what = 'value'): never {
  throw new AssertionError(`invariant violated: unexpected ${what} ${describeValue(value)}`);
}
