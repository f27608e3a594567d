// The values the two bad-argument suites share (the suites themselves are test-kit's): a valid pool shape to vary
// one option of at a time, and values that no argument of this package accepts as a count, an options object or a
// choice (arguments.test.ts names them entry by entry; arguments.property.test.ts mixes them into fast-check's
// `anything`).

/** A small valid pool (no verification, so that thousands of pools stay cheap). */
export const SHAPE = { initialPages: 2, maximumPages: 4, verify: 'off' } as const;

/** Not a count: null, NaN, negative, fractional, infinite, numeric strings, bigints, booleans, objects, symbols. */
export const NOT_A_COUNT: readonly unknown[] = [
  null,
  Number.NaN,
  -1,
  0.5,
  -Number.POSITIVE_INFINITY,
  '4',
  4n,
  true,
  {},
  [],
  Symbol('x'),
];

/** Not an options object: primitives, an array, a function. */
export const NOT_AN_OBJECT: readonly unknown[] = [null, 5, 'options', 5n, true, Symbol('x'), [], () => ({})];

/** Not one of a string option's choices. */
export const NOT_A_CHOICE: readonly unknown[] = [null, 5, 'sometimes', '', {}, Symbol('x'), true];
