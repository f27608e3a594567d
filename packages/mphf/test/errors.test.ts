// MphfError: duplicate keys are named (hex, both positions) in every input form and inside large key sets; bad
// options and bad keys are INVALID_ARGUMENT naming the field; an impossible build is BUILD_FAILED; the error carries
// a stable code and its context fields, and is a StrataError (@strata/base) with its message built once.
import { StrataError } from '@strata/base';
import { errorOf, hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { type BuildOptions, buildMphf, buildMphfAsync, MphfError, MphfErrorCode, type MphfKeys } from '../src/index.js';
import { randomPackedKeys, unpack } from './key-sets.js';

const buildError = (keys: MphfKeys, options: BuildOptions = {}): MphfError =>
  errorOf(MphfError, () => buildMphf(keys, options));

describe('duplicate keys', () => {
  const a = Uint8Array.of(1, 2, 3);
  const b = Uint8Array.of(4, 5, 6);

  it('names the duplicate in hex with both positions', () => {
    const error = buildError([a, b, Uint8Array.of(1, 2, 3)]);
    expect(error.code).toBe('DUPLICATE_KEY');
    expect(error.keyHex).toBe('010203');
    expect(error.keyIndex).toBe(2);
    expect(error.otherKeyIndex).toBe(0);
    expect(error.message).toContain('010203');
  });

  it('names it in every input form', () => {
    const packed = Uint8Array.of(9, 9, 1, 2, 9, 9);
    const forms: MphfKeys[] = [
      { bytes: packed, keyLength: 2 },
      { bytes: packed, offsets: [0, 2, 4, 6] },
      new Set([Uint8Array.of(9, 9), Uint8Array.of(1, 2), Uint8Array.of(9, 9)]), // distinct objects, same bytes
    ];
    for (const form of forms) {
      const error = buildError(form);
      expect(error.code).toBe('DUPLICATE_KEY');
      expect(error.keyHex).toBe('0909');
      expect([error.otherKeyIndex, error.keyIndex]).toEqual([0, 2]);
    }
  });

  it('finds one duplicate among 100 000 random keys, and the empty key twice', () => {
    const packed = randomPackedKeys(100_000, 31);
    packed.copyWithin(16 * 76_543, 16 * 1_234, 16 * 1_235);
    const error = buildError({ bytes: packed, keyLength: 16 });
    expect(error.code).toBe('DUPLICATE_KEY');
    expect([error.otherKeyIndex, error.keyIndex]).toEqual([1_234, 76_543]);
    expect(error.keyHex).toBe(hex(packed.subarray(16 * 1_234, 16 * 1_235)));
    expect(buildError([new Uint8Array(0), a, new Uint8Array(0)]).keyHex).toBe('');
  });

  it('finds duplicates whatever the seed and part size', () => {
    const keys = unpack(randomPackedKeys(5000, 8));
    keys.push(Uint8Array.from(keys[4321]!));
    for (const seed of [0, 1, 0xffff_ffff]) {
      for (const partKeys of [256, 32768]) {
        expect(buildError(keys, { seed, partKeys })).toMatchObject({
          code: 'DUPLICATE_KEY',
          keyIndex: 5000,
          otherKeyIndex: 4321,
        });
      }
    }
  });
});

describe('duplicates in a build that fails for another reason', () => {
  it('are still named, not reported as a failed build', async () => {
    const keys = unpack(randomPackedKeys(60_000, 3));
    keys.push(Uint8Array.from(keys[17]!));
    const options = { lambda: 8, alpha: 1, maxAttempts: 1, partKeys: 60_000 };
    expect(buildError(keys, options)).toMatchObject({ code: 'DUPLICATE_KEY', keyIndex: 60_000, otherKeyIndex: 17 });
    await expect(buildMphfAsync(keys, { ...options, threads: 2 })).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
  });
});

describe('bad arguments', () => {
  const keys = unpack(randomPackedKeys(10, 1));

  it('names the option', () => {
    const cases: [BuildOptions, string][] = [
      [{ seed: -1 }, 'seed'],
      [{ seed: 2 ** 32 }, 'seed'],
      [{ lambda: 0.5 }, 'lambda'],
      [{ lambda: Number.NaN }, 'lambda'],
      [{ alpha: 1.01 }, 'alpha'],
      [{ partKeys: 100 }, 'partKeys'],
      [{ partKeys: 70_000 }, 'partKeys'],
      [{ fingerprintBits: 12 as 8 }, 'fingerprintBits'],
      [{ maxAttempts: 0 }, 'maxAttempts'],
    ];
    for (const [options, field] of cases) {
      const error = buildError(keys, options);
      expect(error.code, field).toBe('INVALID_ARGUMENT');
      expect(error.field).toBe(field);
    }
  });

  it('names a bad thread count', async () => {
    await expect(buildMphfAsync(keys, { threads: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'threads',
    });
  });

  it('refuses keys that are not byte arrays, and malformed packed keys', () => {
    expect(buildError(['abc'] as unknown as Uint8Array[])).toMatchObject({ code: 'INVALID_ARGUMENT', keyIndex: 0 });
    expect(buildError(Uint8Array.of(1, 2, 3) as unknown as MphfKeys)).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(buildError({ bytes: new Uint8Array(10), keyLength: 3 })).toMatchObject({ field: 'keyLength' });
    expect(buildError({ bytes: new Uint8Array(10), offsets: [0, 5, 4, 10] })).toMatchObject({ field: 'offsets' });
    expect(buildError({ bytes: new Uint8Array(10), offsets: [0, 11] })).toMatchObject({ field: 'offsets' });
    expect(buildError(42 as unknown as MphfKeys)).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('build failure', () => {
  it('is BUILD_FAILED when no seed fits the keys (one attempt, no spare slot, huge buckets)', () => {
    const error = buildError(
      { bytes: randomPackedKeys(60_000, 3), keyLength: 16 },
      {
        lambda: 8,
        alpha: 1,
        maxAttempts: 1,
        partKeys: 60_000,
      },
    );
    expect(error.code).toBe('BUILD_FAILED');
  });
});

describe('MphfError', () => {
  it('has a stable code table and a message naming code and place', () => {
    expect(Object.values(MphfErrorCode)).toEqual([
      'DUPLICATE_KEY',
      'BUILD_FAILED',
      'TRUNCATED',
      'BAD_MAGIC',
      'UNSUPPORTED_VERSION',
      'CHECKSUM_MISMATCH',
      'BAD_HEADER',
      'INVALID_ARGUMENT',
    ]);
    const cause = new Error('underlying');
    const error = new MphfError('BAD_HEADER', 'part 3 has no slots', { offset: 96, field: 'partTable', cause });
    expect(error).toBeInstanceOf(StrataError);
    expect(error.name).toBe('MphfError');
    expect(error.message).toBe('BAD_HEADER at offset 96 field partTable: part 3 has no slots');
    expect(error.cause).toBe(cause);
    expect(error.detail).toBe('part 3 has no slots');
    expect(error.file).toBeUndefined(); // a function is bytes, not a file: there is never one to name
  });

  it('is a StrataError keeping its key fields, with the message built once from code and detail', () => {
    const error = new MphfError('DUPLICATE_KEY', 'key 2 (0102) repeats key 0', {
      keyHex: '0102',
      keyIndex: 2,
      otherKeyIndex: 0,
    });
    expect(error).toBeInstanceOf(StrataError);
    expect(error).toMatchObject({ code: 'DUPLICATE_KEY', keyHex: '0102', keyIndex: 2, otherKeyIndex: 0 });
    expect([error.offset, error.field, error.cause]).toEqual([undefined, undefined, undefined]);
    expect(error.message).toBe('DUPLICATE_KEY: key 2 (0102) repeats key 0');
  });
});
