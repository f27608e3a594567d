// errorOf / rejectionOf: return the expected error, and fail (negative controls) on another class or none.
import { describe, expect, it } from 'vitest';
import { errorOf, hex, rejectionOf } from '../src/index.js';

class PackageError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

describe('errorOf', () => {
  it('returns the error of the expected class', () => {
    expect(
      errorOf(PackageError, () => {
        throw new PackageError('BAD');
      }).code,
    ).toBe('BAD');
  });

  it('fails on another class, naming it, and on nothing thrown', () => {
    expect(() =>
      errorOf(PackageError, () => {
        throw new TypeError('x is not a function');
      }),
    ).toThrow('expected a PackageError, got TypeError: x is not a function');
    expect(() => errorOf(PackageError, () => 1)).toThrow('expected a PackageError, nothing was thrown');
  });
});

describe('rejectionOf', () => {
  it('returns the rejection of the expected class, sync throws included', async () => {
    expect((await rejectionOf(PackageError, async () => Promise.reject(new PackageError('A')))).code).toBe('A');
    expect(
      (
        await rejectionOf(PackageError, () => {
          throw new PackageError('B');
        })
      ).code,
    ).toBe('B');
  });

  it('fails on another class and on a resolved promise', async () => {
    await expect(rejectionOf(PackageError, async () => Promise.reject(new RangeError('r')))).rejects.toThrow(
      'got RangeError: r',
    );
    await expect(rejectionOf(PackageError, async () => 1)).rejects.toThrow('nothing was thrown');
  });
});

it('hex reads only the view, not the whole pool buffer', () => {
  const pooled = Buffer.from('abcdef', 'hex');
  expect(hex(pooled.subarray(1))).toBe('cdef');
  expect(hex(new Uint8Array([0, 255]))).toBe('00ff');
});
