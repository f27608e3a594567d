// describeError, the one line of a failure, and systemErrorText. Properties:
// 1. a StrataError with INVALID_ARGUMENT is its detail alone; any other code is its message (code, file, offset);
// 2. a file-system cause of a StrataError is added in words, `(no such file or directory)`, without errno code or
//    syscall;
// 3. an errno error of its own is `path: words`, or the words alone when it has no path;
// 4. any other Error is its message (its name when the message is empty), a string is itself, any other value is
//    described (a null-prototype object too, which String() cannot print);
// 5. the line is one line: line breaks folded, an embedded stack frame and everything after it dropped, so neither
//    a stack nor the paths of the tool's own files appear;
// 6. systemErrorText is libuv's words for errno errors only (undefined for anything else).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StrataError } from '@strata/base';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { describeError, systemErrorText } from '../src/index.js';

class ToolError extends StrataError<'INVALID_ARGUMENT' | 'IO' | 'BAD_DATA'> {
  override readonly name = 'ToolError';
}

/** What `call` throws. */
function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

describe('describeError', () => {
  it('1. StrataError: INVALID_ARGUMENT is its detail, other codes their message', () => {
    expect(describeError(new ToolError('INVALID_ARGUMENT', '--count must be positive', { field: '--count' }))).toBe(
      '--count must be positive',
    );
    expect(describeError(new ToolError('BAD_DATA', 'bad magic', { file: '/data/x.bin', offset: 8 }))).toBe(
      'BAD_DATA in /data/x.bin at offset 8: bad magic',
    );
  });

  it('2. a file-system cause is said in words', () => {
    const dir = tempDir('cli-kit-errors');
    const missing = join(dir, 'missing');
    const cause = thrownBy(() => readFileSync(missing));
    const error = new ToolError('IO', 'cannot read the input', { file: missing, cause });
    expect(describeError(error)).toBe(`IO in ${missing}: cannot read the input (no such file or directory)`);
    // A cause that is not a system error adds nothing.
    expect(describeError(new ToolError('IO', 'failed', { cause: new Error('inner') }))).toBe('IO: failed');
  });

  it('3. an errno error: path and words, or the words alone', () => {
    const dir = tempDir('cli-kit-errors');
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    expect(describeError(thrownBy(() => readFileSync(join(dir, 'missing'))))).toBe(
      `${join(dir, 'missing')}: no such file or directory`,
    );
    expect(describeError(thrownBy(() => readdirSync(file)))).toBe(`${file}: not a directory`);
    const withoutPath = Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE', syscall: 'write' });
    expect(describeError(withoutPath)).toBe('broken pipe');
    for (const line of [describeError(thrownBy(() => readdirSync(file))), describeError(withoutPath)]) {
      expect(line).not.toMatch(/\bE[A-Z]{3,}\b|scandir|write\b/);
    }
  });

  it('4. other errors and values', () => {
    expect(describeError(new RangeError('out of range'))).toBe('out of range');
    expect(describeError(new TypeError(''))).toBe('TypeError');
    expect(describeError('a thrown string')).toBe('a thrown string');
    expect(describeError(42)).toBe('42');
    expect(describeError(undefined)).toBe('undefined');
    expect(describeError(null)).toBe('null');
    expect(describeError(Object.create(null))).toBe('an object');
    expect(describeError({ message: 'not an Error' })).toBe('an object');
  });

  it('5. one line, without a stack or the paths in it', () => {
    expect(describeError(new Error('first\n  second\r\nthird'))).toBe('first second third');
    const here = fileURLToPath(import.meta.url);
    const error = new Error('boom');
    expect(error.stack).toContain(here);
    expect(describeError(error)).toBe('boom');
    // A message that embeds a stack (some libraries put one in): cut at its first frame.
    const embedded = new Error(`decode failed\n    at decode (file://${here}:10:5)\n    at main (${here}:20:1)`);
    expect(describeError(embedded)).toBe('decode failed');
    expect(describeError(new ToolError('BAD_DATA', `bad\n    at f (${here}:1:1)`))).toBe('BAD_DATA: bad');
  });
});

describe('systemErrorText', () => {
  it('6. words for errno errors, undefined for anything else', () => {
    const missing = join(tempDir('cli-kit-errors'), 'missing');
    expect(systemErrorText(thrownBy(() => readFileSync(missing)))).toBe('no such file or directory');
    // An errno error whose message is not node's format: its code is all there is.
    expect(systemErrorText(Object.assign(new Error('odd'), { code: 'EACCES', syscall: 'open' }))).toBe('EACCES');
    for (const value of [new Error('plain'), Object.assign(new Error('x'), { code: 'ERR_X' }), 'ENOENT', null, {}]) {
      expect(systemErrorText(value)).toBeUndefined();
    }
  });
});
