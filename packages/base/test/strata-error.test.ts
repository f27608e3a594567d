// StrataError: one shape for every package error (code, detail, file, offset, field, cause; message built once).
import { describe, expect, it } from 'vitest';
import { formatErrorMessage, isErrnoError, StrataError } from '../src/index.js';

const DemoErrorCode = { TRUNCATED: 'TRUNCATED', RPC: 'RPC' } as const;
type DemoErrorCode = (typeof DemoErrorCode)[keyof typeof DemoErrorCode];

class DemoError extends StrataError<DemoErrorCode> {
  override readonly name = 'DemoError';
  readonly record: number | undefined;
  constructor(code: DemoErrorCode, detail: string, context: { record?: number; file?: string; offset?: number } = {}) {
    super(code, detail, context, {
      where: context.record === undefined ? [] : [`record ${context.record}`],
      ...(code === DemoErrorCode.RPC ? { message: detail } : {}),
    });
    this.record = context.record;
  }
}

describe('StrataError', () => {
  it('carries code, detail and context, and builds the message from them', () => {
    const cause = new Error('short read');
    const error = new DemoError('TRUNCATED', 'record ends early', { file: 'a.xdr', offset: 12, record: 3 });
    expect(error).toBeInstanceOf(StrataError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('DemoError');
    expect(error.code).toBe('TRUNCATED');
    expect(error.detail).toBe('record ends early');
    expect([error.file, error.offset, error.field, error.record]).toEqual(['a.xdr', 12, undefined, 3]);
    expect(error.message).toBe('TRUNCATED in a.xdr at offset 12 record 3: record ends early');
    expect(String(error)).toBe('DemoError: TRUNCATED in a.xdr at offset 12 record 3: record ends early');
    const wrapped = new (class extends StrataError<'IO'> {})('IO', 'cannot read', { cause, field: 'path' });
    expect(wrapped.cause).toBe(cause);
    expect(wrapped.message).toBe('IO field path: cannot read');
  });

  it('lets a subclass keep a message fixed elsewhere', () => {
    expect(new DemoError('RPC', 'startLedger must be positive').message).toBe('startLedger must be positive');
  });

  it('formats only what is known', () => {
    expect(formatErrorMessage('X', 'd', {})).toBe('X: d');
    expect(formatErrorMessage('X', 'd', { offset: 0 })).toBe('X at offset 0: d');
  });

  it('recognises errno errors', () => {
    const errno = Object.assign(new Error('nope'), { code: 'ENOENT' });
    expect(isErrnoError(errno)).toBe(true);
    expect(isErrnoError(new Error('plain'))).toBe(false);
    expect(isErrnoError({ code: 'ENOENT' })).toBe(false);
  });
});
