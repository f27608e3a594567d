// The byte layout and its validation at open: damaged or foreign bytes throw an MphfError and never answer.
// Covers every byte of a small function's header and checksum flipped, every truncation, wrong magic and version,
// header fields that are consistent with the checksum but not with each other (BAD_HEADER), odd offsets, and a
// pinned digest of one small function so that a layout change is a deliberate one.
import { createHash } from 'node:crypto';
import { errorOf } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { buildMphf, MPHF_FORMAT_VERSION, MphfError, openMphf } from '../src/index.js';
import { CHECKSUM_LENGTH, Field, HEADER_LENGTH, readU32, sealChecksum, writeU16, writeU32 } from '../src/layout.js';
import { randomPackedKeys, unpack } from './key-sets.js';

const keys = unpack(randomPackedKeys(300, 5));
const small = buildMphf(keys, { fingerprintBits: 8, partKeys: 256 });

const openError = (bytes: Uint8Array): MphfError => errorOf(MphfError, () => openMphf(bytes));

/** A copy of `small` with `edit` applied and the checksum recomputed, so only the structural checks can object. */
function edited(edit: (bytes: Uint8Array) => void): Uint8Array {
  const bytes = Uint8Array.from(small);
  edit(bytes);
  sealChecksum(bytes, readU32(bytes, Field.checksumOffset));
  return bytes;
}

describe('layout', () => {
  it('has the documented header, section order and alignment', () => {
    expect(Buffer.from(small.subarray(0, 4)).toString('latin1')).toBe('SMPH');
    expect(small[Field.version]! | (small[Field.version + 1]! << 8)).toBe(MPHF_FORMAT_VERSION);
    expect(readU32(small, Field.headerLength)).toBe(HEADER_LENGTH);
    expect(readU32(small, Field.totalLength)).toBe(small.length);
    expect(readU32(small, Field.keyCount)).toBe(300);
    expect(readU32(small, Field.parts)).toBe(2);
    const sections = [
      'partTableOffset',
      'pilotsOffset',
      'remapOffset',
      'fingerprintsOffset',
      'checksumOffset',
    ] as const;
    let previous = HEADER_LENGTH;
    for (const section of sections) {
      const offset = readU32(small, Field[section]);
      expect(offset % 8, section).toBe(0);
      expect(offset, section).toBeGreaterThanOrEqual(previous);
      previous = offset;
    }
    expect(readU32(small, Field.checksumOffset) + CHECKSUM_LENGTH).toBe(small.length);
    expect(readU32(small, Field.fingerprintsLength)).toBe(300);
  });

  it('is pinned: this key set and seed give these exact bytes (change the digest only with a format change)', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', ''].map((word) => Buffer.from(word));
    const bytes = buildMphf(words, { seed: 7, fingerprintBits: 16 });
    expect(bytes.length).toBe(144);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '4b041b33d59f0d2e384ececfe8edd8f6d4f962588fc69f5207bb1eee9b59df82',
    );
  });
});

describe('corruption is detected at open', () => {
  it('flipping any bit pattern of any header or checksum byte throws', () => {
    const checksumOffset = readU32(small, Field.checksumOffset);
    const positions = [
      ...Array.from({ length: HEADER_LENGTH }, (_, i) => i),
      ...Array.from({ length: CHECKSUM_LENGTH }, (_, i) => checksumOffset + i),
    ];
    for (const position of positions) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bytes = Uint8Array.from(small);
        bytes[position] = bytes[position]! ^ mask;
        const error = openError(bytes);
        expect(error.code, `byte ${position} ^ ${mask}`).toMatch(
          /^(TRUNCATED|BAD_MAGIC|UNSUPPORTED_VERSION|CHECKSUM_MISMATCH|BAD_HEADER)$/,
        );
      }
    }
  });

  it('flipping any byte of the sections fails the checksum', () => {
    const checksumOffset = readU32(small, Field.checksumOffset);
    for (let position = HEADER_LENGTH; position < checksumOffset; position++) {
      const bytes = Uint8Array.from(small);
      bytes[position] = bytes[position]! ^ 0x10;
      expect(openError(bytes).code, `byte ${position}`).toBe('CHECKSUM_MISMATCH');
    }
  });

  it('every truncation throws TRUNCATED', () => {
    for (let length = 0; length < small.length; length++) {
      const code = openError(small.subarray(0, length)).code;
      expect(code, `length ${length}`).toBe('TRUNCATED');
    }
  });

  it('names a wrong magic and a wrong version', () => {
    expect(openError(Buffer.from('not a function at all, but long enough to hold a header'.repeat(3))).code).toBe(
      'BAD_MAGIC',
    );
    const newer = Uint8Array.from(small);
    writeU16(newer, Field.version, MPHF_FORMAT_VERSION + 1);
    const error = openError(newer);
    expect(error.code).toBe('UNSUPPORTED_VERSION');
    expect(error.field).toBe('version');
    // A version change is refused even with a matching checksum.
    expect(openError(edited((bytes) => writeU16(bytes, Field.version, 0))).code).toBe('UNSUPPORTED_VERSION');
  });

  it('refuses headers that agree with their checksum but not with each other (BAD_HEADER)', () => {
    const cases: [string, (bytes: Uint8Array) => void][] = [
      ['fingerprint bits', (bytes) => (bytes[Field.fingerprintBits] = 12)],
      ['flags', (bytes) => writeU16(bytes, Field.flags, 0)],
      ['hash id', (bytes) => (bytes[Field.hashId] = 9)],
      ['bucket function', (bytes) => (bytes[Field.bucketFnId] = 9)],
      ['reserved', (bytes) => writeU32(bytes, Field.reserved32, 1)],
      ['key count', (bytes) => writeU32(bytes, Field.keyCount, 301)],
      ['parts', (bytes) => writeU32(bytes, Field.parts, 3)],
      ['buckets per part', (bytes) => writeU32(bytes, Field.bucketsPerPart, 1)],
      ['pilots offset', (bytes) => writeU32(bytes, Field.pilotsOffset, readU32(bytes, Field.pilotsOffset) + 8)],
      ['part table: first part empty', (bytes) => writeU32(bytes, readU32(bytes, Field.partTableOffset) + 8, 0)],
      [
        'part table: fewer slots than keys',
        (bytes) => {
          const at = readU32(bytes, Field.partTableOffset) + 8;
          writeU32(bytes, at + 4, readU32(bytes, at) - 1);
        },
      ],
      [
        'remap target outside its part',
        (bytes) => {
          const remap = readU32(bytes, Field.remapOffset);
          writeU16(bytes, remap, 0xffff);
        },
      ],
    ];
    for (const [name, edit] of cases) {
      const error = openError(edited(edit));
      expect(error.code, name).toBe('BAD_HEADER');
      expect(error.field, name).toBeDefined();
    }
  });

  it('rejects what is not a Uint8Array', () => {
    expect(() => openMphf('SMPH' as unknown as Uint8Array)).toThrow(MphfError);
  });
});

describe('offsets', () => {
  it('opens at odd offsets of a larger buffer and ignores the bytes after the function', () => {
    const reference = openMphf(small);
    for (const offset of [1, 3, 5, 7, 9]) {
      const file = Buffer.alloc(offset + small.length + 100, 0x5a);
      file.set(small, offset);
      const mphf = openMphf(file.subarray(offset));
      expect(mphf.byteLength).toBe(small.length);
      expect(keys.map((key) => mphf.lookup(key))).toEqual(keys.map((key) => reference.lookup(key)));
    }
  });

  it('throws, not answers, for key ranges outside the key array', () => {
    const mphf = openMphf(small);
    const cases: [number, number][] = [
      [-1, 16],
      [0, 17],
      [10, 7],
      [Number.NaN, 16],
    ];
    for (const [offset, length] of cases) {
      const error = errorOf(MphfError, () => mphf.index(new Uint8Array(16), offset, length));
      expect(error.code, `offset ${offset}, length ${length}`).toBe('INVALID_ARGUMENT');
    }
  });
});
