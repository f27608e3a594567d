// Fuzzing the engine's parsers with malformed input. (1) Random mutations of valid keys, entries, SCVals and bucket
// entries (flip, overwrite, insert, delete, truncate, extend, huge length words), run by test/fuzz-runner.ts in a
// child process with a time budget and a hard kill, so a hang fails the test instead of stalling the run: every
// mutant either parses to what stellar-base decodes or throws LedgerKeyError. (2) Hand-made hostile inputs: SCVal
// nesting 10,000 deep must throw TOO_DEEP (not a stack overflow), and a length or count of 0xFFFFFFFF must throw
// TRUNCATED / TOO_LONG without allocating anything near that size.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { xdr } from '@stellar/stellar-base';
import { typeScriptExecArgv } from '@strata/bench';
import { errorOf, runChildWithDeadline, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  compareLedgerKeys,
  LedgerKeyError,
  MAX_SCVAL_DEPTH,
  validateLedgerEntry,
  validateLedgerKey,
  validateScVal,
} from '../src/index.js';
import type { FuzzOptions, FuzzReport } from './fuzz-runner.js';

const runnerPath = fileURLToPath(new URL('./fuzz-runner.ts', import.meta.url));

/** Runs the loops in a child (test-kit's runChildWithDeadline): a hang fails with the input in flight. */
function runFuzzChild(options: FuzzOptions, killAfterMs: number): Promise<FuzzReport> {
  return runChildWithDeadline<FuzzReport>({
    script: runnerPath,
    args: ['fuzz-child', JSON.stringify(options)],
    execArgv: typeScriptExecArgv(),
    killAfterMs,
    progressFile: options.progressFile,
    label: 'fuzz child',
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Hand-built XDR words (a test of the parser must not depend on a writer that might share its bugs)
// ---------------------------------------------------------------------------------------------------------------

function words(...values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, value] of values.entries()) view.setUint32(i * 4, value >>> 0);
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

const SCV_VOID = 1;
const SCV_U32 = 3;
const SCV_BYTES = 13;
const SCV_SYMBOL = 15;
const SCV_VEC = 16;
const SCV_MAP = 17;

/** SCV_VEC(present, 1 element) wrapped `depth` times around `leaf`. */
function nestedVec(depth: number, leaf: Uint8Array): Uint8Array {
  const prefix = words(SCV_VEC, 1, 1);
  const bytes = new Uint8Array(prefix.length * depth + leaf.length);
  for (let i = 0; i < depth; i++) bytes.set(prefix, i * prefix.length);
  bytes.set(leaf, prefix.length * depth);
  return bytes;
}

/** SCV_MAP(present, 1 entry {key: U32 0, val: ...}) wrapped `depth` times around `leaf`. */
function nestedMap(depth: number, leaf: Uint8Array): Uint8Array {
  const prefix = words(SCV_MAP, 1, 1, SCV_U32, 0);
  const bytes = new Uint8Array(prefix.length * depth + leaf.length);
  for (let i = 0; i < depth; i++) bytes.set(prefix, i * prefix.length);
  bytes.set(leaf, prefix.length * depth);
  return bytes;
}

/** A CONTRACT_DATA LedgerKey (contract address 0x07..07) around raw SCVal bytes, PERSISTENT. */
function contractDataKeyAround(scVal: Uint8Array): Uint8Array {
  return concat(words(6, 1), new Uint8Array(32).fill(7), scVal, words(1));
}

describe('fuzz: mutated valid inputs', () => {
  it('every mutant parses to what stellar-base decodes or throws LedgerKeyError; nothing hangs', async ({
    annotate,
  }) => {
    const progressFile = join(tempDir('ledger-key-fuzz'), 'in-flight.txt');
    const options: FuzzOptions = { seed: 0x5eed_1234, maxIterations: 40_000, budgetMs: 10_000, progressFile };
    const report = await runFuzzChild(options, options.budgetMs + 60_000);
    await annotate(
      `fuzz: ${report.iterations} mutants, ${report.accepted} accepted, ${report.rejected} rejected; codes ${JSON.stringify(report.codes)}`,
    );
    const failures = report.failures.map(
      (failure) =>
        `[${failure.kind}] ${failure.problem}\n  original ${failure.original}\n  mutated  ${failure.mutated}`,
    );
    expect(failures, `seed ${options.seed}, ${report.iterations} mutants`).toEqual([]);
    // The corpus and mutations must actually reach both outcomes and a variety of error codes.
    expect(report.iterations).toBeGreaterThan(1000);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
    for (const code of ['TRUNCATED', 'BAD_DISCRIMINANT', 'TRAILING_BYTES'])
      expect(report.codes[code] ?? 0, code).toBeGreaterThan(0);
  }, 120_000);
});

describe('fuzz: hostile inputs', () => {
  it('a vec nested 10,000 deep throws TOO_DEEP, as an SCVal and inside a key', () => {
    const deep = nestedVec(10_000, words(SCV_VOID));
    expect(errorOf(LedgerKeyError, () => validateScVal(deep)).code).toBe('TOO_DEEP');
    const key = contractDataKeyAround(deep);
    expect(errorOf(LedgerKeyError, () => validateLedgerKey(key)).code).toBe('TOO_DEEP');
    // Two deep keys that differ only at the bottom: the comparator must descend and give up cleanly.
    const other = contractDataKeyAround(nestedVec(10_000, words(SCV_U32, 1)));
    expect(errorOf(LedgerKeyError, () => compareLedgerKeys(key, other)).code).toBe('TOO_DEEP');
    // A map nested as deep, too.
    expect(errorOf(LedgerKeyError, () => validateScVal(nestedMap(10_000, words(SCV_VOID)))).code).toBe('TOO_DEEP');
  });

  it('nesting up to the documented depth limit is accepted and one level more is not', () => {
    expect(Number.isInteger(MAX_SCVAL_DEPTH)).toBe(true);
    expect(MAX_SCVAL_DEPTH).toBeGreaterThanOrEqual(8);
    // Whether the leaf counts as a level is the engine's definition; two levels of slack either side hold for both.
    validateScVal(nestedVec(MAX_SCVAL_DEPTH - 2, words(SCV_VOID)));
    expect(errorOf(LedgerKeyError, () => validateScVal(nestedVec(MAX_SCVAL_DEPTH + 2, words(SCV_VOID)))).code).toBe(
      'TOO_DEEP',
    );
    // A truncated deep input fails for the truncation or the depth, never for anything else.
    const truncated = nestedVec(10_000, words(SCV_VOID)).subarray(0, 5_000);
    expect(['TOO_DEEP', 'TRUNCATED']).toContain(errorOf(LedgerKeyError, () => validateScVal(truncated)).code);
  });

  it('a length or count of 0xFFFFFFFF throws TRUNCATED or TOO_LONG without allocating', () => {
    const account = new Uint8Array(32).fill(0x42);
    const hostile: [string, () => unknown][] = [
      ['SCV_BYTES length', () => validateScVal(words(SCV_BYTES, 0xffffffff))],
      ['SCV_BYTES length 0x7FFFFFFF', () => validateScVal(words(SCV_BYTES, 0x7fffffff, 0))],
      ['SCV_SYMBOL length', () => validateScVal(words(SCV_SYMBOL, 0xffffffff))],
      ['SCV_VEC count', () => validateScVal(words(SCV_VEC, 1, 0xffffffff))],
      ['SCV_MAP count', () => validateScVal(words(SCV_MAP, 1, 0xffffffff, SCV_VOID, SCV_VOID))],
      ['DATA name length', () => validateLedgerKey(concat(words(3, 0), account, words(0xffffffff)))],
      ['CONTRACT_DATA key bytes length', () => validateLedgerKey(contractDataKeyAround(words(SCV_BYTES, 0xffffffff)))],
      ['CONTRACT_DATA key vec count', () => validateLedgerKey(contractDataKeyAround(words(SCV_VEC, 1, 0xffffffff)))],
      [
        'compare of a vec count 0xFFFFFFFF',
        () =>
          compareLedgerKeys(
            contractDataKeyAround(words(SCV_VEC, 1, 0xffffffff)),
            contractDataKeyAround(words(SCV_VEC, 1, 0xfffffffe)),
          ),
      ],
      [
        'entry data value length',
        () => validateLedgerEntry(concat(words(1, 3, 0), account, words(1, 0x61000000, 0xffffffff))),
      ],
    ];
    const before = process.memoryUsage().arrayBuffers;
    for (const [name, call] of hostile) {
      const error = errorOf(LedgerKeyError, call);
      expect(['TRUNCATED', 'TOO_LONG'], `${name}: ${error.code}`).toContain(error.code);
    }
    // An engine that allocated the announced length first would have taken gigabytes here.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 2 ** 20);
  });

  it('string and opaque bounds: DATA name 65 bytes, symbol 33 bytes are TOO_LONG; 64 / 32 are fine', () => {
    const account = Buffer.alloc(32, 0x42);
    const dataKey = (length: number): Uint8Array =>
      concat(words(3, 0), account, words(length), new Uint8Array(Math.ceil(length / 4) * 4).fill(0x61));
    validateLedgerKey(dataKey(64));
    expect(errorOf(LedgerKeyError, () => validateLedgerKey(dataKey(65))).code).toBe('TOO_LONG');
    const symbol = (length: number): Uint8Array =>
      concat(words(SCV_SYMBOL, length), new Uint8Array(Math.ceil(length / 4) * 4).fill(0x61));
    validateScVal(symbol(32));
    expect(errorOf(LedgerKeyError, () => validateScVal(symbol(33))).code).toBe('TOO_LONG');
    // Cross-check the hand-built bytes with stellar-base, so the test itself is right.
    expect(() => xdr.LedgerKey.fromXDR(Buffer.from(dataKey(64)))).not.toThrow();
    expect(() => xdr.LedgerKey.fromXDR(Buffer.from(dataKey(65)))).toThrow();
  });
});
