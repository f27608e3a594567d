// Checks of what callers pass to the pool, the runner and the prepare step, run before anything is allocated. Any
// bad value (null, undefined where a value is required, a string, NaN, a fraction, a negative or huge number, an
// object of the wrong shape) is an INVALID_ARGUMENT naming its field, never a TypeError from deep inside.
import { describeValue } from '@strata/base';
import { invalidArgument } from './errors.js';
import type { DirtyPagesOptions } from './probe.js';
import type { DirtyPagesTuning, ResetStrategy } from './strategies.js';

/** The largest 32-bit memory, in wasm pages (4 GiB). */
export const MAX_WASM_PAGES = 65536;
/** Bound on `tuning.samplePages`: each sample reads a 4 KiB page on the reset path. */
export const MAX_SAMPLE_PAGES = 4096;

/** An options object: a plain object, or undefined when the whole argument is optional (then `{}`). */
export function optionsObject(value: unknown, field: string, optional: boolean): Record<string, unknown> {
  if (value === undefined && optional) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidArgument(field, `must be an object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

/** A pool shape: 1 <= initialPages <= maximumPages <= 65536, integers. */
export function poolShape(
  initialPages: unknown,
  maximumPages: unknown,
): { initialPages: number; maximumPages: number } {
  if (!isIntegerIn(initialPages, 1, MAX_WASM_PAGES))
    throw invalidArgument(
      'initialPages',
      `must be an integer in 1..${MAX_WASM_PAGES}, got ${describeValue(initialPages)}`,
    );
  if (!isIntegerIn(maximumPages, initialPages, MAX_WASM_PAGES))
    throw invalidArgument(
      'maximumPages',
      `must be an integer in initialPages..${MAX_WASM_PAGES}, got ${describeValue(maximumPages)}`,
    );
  return { initialPages, maximumPages };
}

/** A count option: undefined gives `fallback`; otherwise an integer >= `min`, or Infinity. */
export function countOption(value: unknown, fallback: number, field: string, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < min)
    throw invalidArgument(field, `must be an integer >= ${min}, got ${describeValue(value)}`);
  return value;
}

/** One of `allowed`; undefined gives `fallback`. */
export function choiceOption<T extends string>(value: unknown, allowed: readonly T[], fallback: T, field: string): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw invalidArgument(field, `must be one of ${allowed.join(', ')}, got ${describeValue(value)}`);
  return value as T;
}

/** A boolean; undefined gives `fallback`. */
export function booleanOption(value: unknown, fallback: boolean, field: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(field, `must be a boolean, got ${describeValue(value)}`);
  return value;
}

/** The bytes of a wasm binary. */
export function wasmCode(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array))
    throw invalidArgument('code', `must be a Uint8Array holding a wasm binary, got ${describeValue(value)}`);
  return value;
}

/** A custom reset strategy: the members the pool calls must be there, with the right types. */
export function customStrategy(value: object): ResetStrategy {
  const strategy = value as Record<string, unknown>;
  if (typeof strategy.name !== 'string')
    throw invalidArgument('strategy.name', `must be a string, got ${describeValue(strategy.name)}`);
  if (typeof strategy.reuses !== 'boolean')
    throw invalidArgument('strategy.reuses', `must be a boolean, got ${describeValue(strategy.reuses)}`);
  for (const method of ['reset', 'allocate', 'decommit', 'verificationRanges', 'afterFullVerification']) {
    const member = strategy[method];
    if ((method === 'reset' || member !== undefined) && typeof member !== 'function')
      throw invalidArgument(`strategy.${method}`, `must be a function, got ${describeValue(member)}`);
  }
  return value as ResetStrategy;
}

/** The dirty-pages options; undefined gives `{}` (every default). */
export function dirtyPagesOptions(value: unknown): DirtyPagesOptions {
  const options = optionsObject(value, 'dirtyPages', true);
  const checked: DirtyPagesOptions = {
    scanner: choiceOption(
      options.scanner,
      ['auto', 'pagemap-scan', 'pagemap-read'] as const,
      'auto',
      'dirtyPages.scanner',
    ),
    rule: choiceOption(options.rule, ['conservative', 'exclusive'] as const, 'conservative', 'dirtyPages.rule'),
  };
  if (options.tuning === undefined) return checked;
  const tuning = optionsObject(options.tuning, 'dirtyPages.tuning', false);
  const field = (name: string) => `dirtyPages.tuning.${name}`;
  const checkedTuning: Partial<DirtyPagesTuning> = {};
  if (tuning.hotFraction !== undefined) {
    if (typeof tuning.hotFraction !== 'number' || !(tuning.hotFraction > 0 && tuning.hotFraction <= 1))
      throw invalidArgument(
        field('hotFraction'),
        `must be a number in (0, 1], got ${describeValue(tuning.hotFraction)}`,
      );
    checkedTuning.hotFraction = tuning.hotFraction;
  }
  if (tuning.sampleMinBytes !== undefined)
    checkedTuning.sampleMinBytes = countOption(tuning.sampleMinBytes, 0, field('sampleMinBytes'), 0);
  if (tuning.samplePages !== undefined) {
    if (!isIntegerIn(tuning.samplePages, 1, MAX_SAMPLE_PAGES))
      throw invalidArgument(
        field('samplePages'),
        `must be an integer in 1..${MAX_SAMPLE_PAGES}, got ${describeValue(tuning.samplePages)}`,
      );
    checkedTuning.samplePages = tuning.samplePages;
  }
  if (tuning.wasteLimit !== undefined) {
    if (typeof tuning.wasteLimit !== 'number' || !(tuning.wasteLimit > 0 && Number.isFinite(tuning.wasteLimit)))
      throw invalidArgument(
        field('wasteLimit'),
        `must be a finite number > 0, got ${describeValue(tuning.wasteLimit)}`,
      );
    checkedTuning.wasteLimit = tuning.wasteLimit;
  }
  checked.tuning = checkedTuning;
  return checked;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
