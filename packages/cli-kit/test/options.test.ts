// Option values and usage errors. Properties:
// 1. integerOption(min, max) accepts exactly the decimal digit strings whose value is in [min, max] (leading zeros
//    included), and refuses every other form a lax parser reads as a number (`1e3`, `0x10`, `-1`, `2.5`, ``, ` 7`,
//    `7 `, `+7`, `1_000`, `Infinity`) and every value outside the range, with commander's InvalidArgumentError;
// 2. the bounds themselves are checked: whole numbers with 0 ≤ min ≤ max ≤ 2^53 - 1, else INVALID_ARGUMENT;
// 3. MAX_LEDGER_SEQUENCE is the largest uint32 and bounds a --ledger option at exactly that value;
// 4. usageErrorFactory builds the tool's own error class: INVALID_ARGUMENT, `field` the option, `file` when given,
//    and run prints its detail alone.
import { StrataError } from '@strata/base';
import { errorOf } from '@strata/test-kit';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  CliKitError,
  CliKitErrorCode,
  integerOption,
  MAX_LEDGER_SEQUENCE,
  newProgram,
  run,
  usageErrorFactory,
} from '../src/index.js';
import { capturedIo, messageLines } from './captured-io.js';

describe('integerOption', () => {
  const parse = integerOption(5, 1000);

  it('1. accepts the decimal whole numbers in range, edges included', () => {
    expect(['5', '6', '999', '1000', '0005', '0001000'].map(parse)).toEqual([5, 6, 999, 1000, 5, 1000]);
    expect(integerOption(0, 0)('0')).toBe(0);
  });

  it('1. refuses every other form and every value outside the range', () => {
    const refused = ['1e3', '0x10', '-1', '2.5', '', ' 7', '7 ', '+7', '1_000', 'Infinity', 'NaN', '4', '1001'];
    for (const text of [...refused, '9'.repeat(400), '１２']) {
      const error = errorOf(InvalidArgumentError, () => parse(text));
      expect(error.message, JSON.stringify(text)).toBe('must be a whole number from 5 to 1000');
    }
  });

  it('2. checks its own bounds', () => {
    for (const [min, max] of [
      [-1, 5],
      [5, 4],
      [0.5, 5],
      [0, Number.MAX_SAFE_INTEGER + 1],
      [0, Number.POSITIVE_INFINITY],
      [Number.NaN, 5],
    ] as const) {
      const error = errorOf(CliKitError, () => integerOption(min, max));
      expect(error.code, `${min}..${max}`).toBe(CliKitErrorCode.INVALID_ARGUMENT);
      expect(['min', 'max']).toContain(error.field);
    }
    expect(integerOption(0, Number.MAX_SAFE_INTEGER)(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('3. MAX_LEDGER_SEQUENCE is the largest uint32', () => {
    expect(MAX_LEDGER_SEQUENCE).toBe(2 ** 32 - 1);
    const ledger = integerOption(0, MAX_LEDGER_SEQUENCE);
    expect(ledger('4294967295')).toBe(MAX_LEDGER_SEQUENCE);
    expect(() => ledger('4294967296')).toThrow(InvalidArgumentError);
  });
});

describe('usageErrorFactory', () => {
  const ToolErrorCode = { INVALID_ARGUMENT: 'INVALID_ARGUMENT', IO: 'IO' } as const;
  class ToolError extends StrataError<(typeof ToolErrorCode)[keyof typeof ToolErrorCode]> {
    override readonly name = 'ToolError';
  }
  const usageError = usageErrorFactory(ToolError);

  it("4. builds the tool's error: INVALID_ARGUMENT naming the option, and the file when given", () => {
    const error = usageError('--out', '--out ./x is a file, not a folder', './x');
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: '--out', file: './x' });
    expect(usageError('--from', 'the range is empty').file).toBeUndefined();
  });

  it('4. run prints its detail alone', async () => {
    const { io, stderr } = capturedIo();
    const program = newProgram('tool', '', io, { version: '1.0.0', packageName: 'tool' }).action(() => {
      throw usageError('--out', '--out ./x is a file, not a folder', './x');
    });
    expect(await run(program, ['node', 'tool'], io)).toBe(1);
    expect(messageLines(stderr.text())).toEqual(['tool: --out ./x is a file, not a folder']);
  });
});
