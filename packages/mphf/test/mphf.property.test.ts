// The minimal perfect hash function against its definition. Properties:
// 1. Bijection: for any set of distinct byte keys (any lengths, the empty key included) and any options, `index`
//    maps the keys one-to-one onto [0, n), checked with a bitmap against the key set (sizes 0, 1, 2, 3, 1 000 and
//    100 000 here; 10 000 000 in mphf.integration.test.ts; random sizes and shapes under fast-check).
// 2. Members pass `lookup` (it returns their index); non-members are rejected at the fingerprint rate 2^-bits,
//    measured over random non-members (8 and 16 bits within 5 standard deviations, 32 bits: none seen).
// 3. Determinism: the same keys and seed give identical bytes, whatever the input order and input form (array,
//    packed fixed-width, packed with offsets, one-shot iterable); a different seed gives different bytes.
// 4. Adversarial key sets (sequential counters, shared prefixes, all-zero keys of every length, single-bit keys)
//    build and are bijections.
// 5. Any offset: a function copied to odd offsets inside a larger buffer, and keys read from odd offsets inside a
//    larger buffer, give the same answers as aligned ones (the word-read and byte-read paths agree).
// 6. Multi-part functions (small `partKeys`) are bijections too, and index() of a non-member is in [0, n).
// 7. The hash is MurmurHash3 x86_128 bit for bit (SMHasher's verification value), and its 16-byte shortcuts agree.
// 8. The parallel build (`buildMphfAsync`, worker threads) gives the same bytes as the single-threaded one.
// 9. Negative control: a function with one pilot changed (checksum recomputed, so it opens) is caught by the
//    bijection checker, and the build's self-check passes on a good function.
import { hex, propertyParams, seededRandom } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash128, hash128Of16, hash128OfWords } from '../src/hash.js';
import { buildMphf, buildMphfAsync, checkBijection, type Mphf, type MphfKeys, openMphf } from '../src/index.js';
import { Field, readU32, sealChecksum } from '../src/layout.js';
import { adversarialKeySets, randomPackedKeys, unpack } from './key-sets.js';

/** Every key's index, checked against [0, n) and for repeats with a bitmap: the oracle of property 1. */
function expectBijection(mphf: Mphf, keys: readonly Uint8Array[]): void {
  expect(mphf.size).toBe(keys.length);
  const seen = new Uint8Array(keys.length);
  for (const [i, key] of keys.entries()) {
    const slot = mphf.index(key);
    if (!(slot >= 0 && slot < keys.length) || seen[slot] === 1) {
      throw new Error(`key ${i} (${hex(key)}) maps to ${slot}: not a bijection`);
    }
    seen[slot] = 1;
  }
}

describe('bijection (property 1)', () => {
  for (const size of [0, 1, 2, 3, 1000, 100_000]) {
    it(`holds for ${size} random 16-byte keys`, () => {
      const packed = randomPackedKeys(size, 1000 + size);
      const mphf = openMphf(buildMphf({ bytes: packed, keyLength: 16 }));
      expect(mphf.size).toBe(size);
      expectBijection(mphf, unpack(packed));
      expect(checkBijection(mphf, { bytes: packed, keyLength: 16 }).ok).toBe(true);
    });
  }

  it('returns -1 for every key of an empty function', () => {
    const mphf = openMphf(buildMphf([]));
    expect(mphf.index(new Uint8Array(16))).toBe(-1);
    expect(mphf.lookup(Uint8Array.of(1, 2, 3))).toBe(-1);
  });

  it('holds for random key sets of any size, key lengths and options (property)', () => {
    const keySet = fc.uniqueArray(fc.uint8Array({ minLength: 0, maxLength: 40 }), {
      maxLength: 1500,
      selector: hex,
    });
    const options = fc.record({
      seed: fc.nat({ max: 0xffff_ffff }),
      lambda: fc.constantFrom(1, 2, 3, 3.5, 5),
      alpha: fc.constantFrom(0.8, 0.9, 0.99, 1),
      partKeys: fc.constantFrom(256, 300, 32768),
      fingerprintBits: fc.constantFrom(0 as const, 8 as const, 16 as const, 32 as const),
    });
    fc.assert(
      fc.property(keySet, options, (keys, buildOptions) => {
        const mphf = openMphf(buildMphf(keys, buildOptions));
        expectBijection(mphf, keys);
        expect(keys.map((key) => mphf.lookup(key))).toEqual(keys.map((key) => mphf.index(key)));
      }),
      propertyParams({ numRuns: 150 }),
    );
  });
});

describe('fingerprints (property 2)', () => {
  // Random 16-byte strangers collide with one of the 10 000 members with probability 2^-100: no membership check.
  const members = randomPackedKeys(10_000, 77);

  function falsePositives(bits: 8 | 16 | 32, trials: number): number {
    const mphf = openMphf(buildMphf({ bytes: members, keyLength: 16 }, { fingerprintBits: bits }));
    expect(mphf.fingerprintBits).toBe(bits);
    const memberKeys = unpack(members);
    expect(memberKeys.map((key) => mphf.lookup(key))).toEqual(memberKeys.map((key) => mphf.index(key)));
    const strangers = randomPackedKeys(trials, 0xbad + bits);
    let accepted = 0;
    let wrong = 0; // an index outside [0, n), or an accepted slot that is not the index
    for (let offset = 0; offset < strangers.length; offset += 16) {
      const slot = mphf.lookup(strangers, offset, 16);
      const index = mphf.index(strangers, offset, 16);
      if (!(index >= 0 && index < 10_000) || (slot !== -1 && slot !== index)) wrong++;
      if (slot !== -1) accepted++;
    }
    expect(wrong).toBe(0);
    return accepted;
  }

  it('rejects non-members at 2^-8 with 8-bit fingerprints', () => {
    const trials = 256_000;
    const expected = trials / 256; // 1000
    const sigma = Math.sqrt(trials * (1 / 256) * (255 / 256));
    expect(Math.abs(falsePositives(8, trials) - expected)).toBeLessThan(5 * sigma);
  });

  it('rejects non-members at 2^-16 with 16-bit fingerprints', () => {
    const trials = 2_000_000;
    const expected = trials / 65536; // about 30.5
    expect(Math.abs(falsePositives(16, trials) - expected)).toBeLessThan(5 * Math.sqrt(expected));
  });

  it('rejects every sampled non-member with 32-bit fingerprints', () => {
    // Expected false positives over 500 000 trials: 1.2e-4.
    expect(falsePositives(32, 500_000)).toBe(0);
  });

  it('without fingerprints, lookup is index', () => {
    const mphf = openMphf(buildMphf({ bytes: members, keyLength: 16 }));
    const stranger = randomPackedKeys(1, 5);
    expect(mphf.fingerprintBits).toBe(0);
    expect(mphf.lookup(stranger)).toBe(mphf.index(stranger));
  });
});

describe('determinism (property 3)', () => {
  it('gives the same bytes for the same key set in any order and input form', () => {
    const packed = randomPackedKeys(5000, 3);
    const keys = unpack(packed);
    const reference = buildMphf(keys, { seed: 42, fingerprintBits: 16 });
    const shuffled = [...keys];
    const random = seededRandom(9);
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const offsets = Float64Array.from({ length: keys.length + 1 }, (_, i) => 16 * i);
    function* oneShot(): Generator<Uint8Array> {
      for (const key of shuffled) yield Uint8Array.from(key);
    }
    const forms: MphfKeys[] = [shuffled, { bytes: packed, keyLength: 16 }, { bytes: packed, offsets }, oneShot()];
    for (const form of forms)
      expect(Buffer.from(buildMphf(form, { seed: 42, fingerprintBits: 16 }))).toEqual(Buffer.from(reference));
    expect(Buffer.from(buildMphf(keys, { seed: 43, fingerprintBits: 16 }))).not.toEqual(Buffer.from(reference));
  });

  it('gives the same bytes on every run for random key sets (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 24 }), { maxLength: 400, selector: hex }),
        fc.nat({ max: 0xffff_ffff }),
        (keys, seed) => {
          const first = buildMphf(keys, { seed, partKeys: 256 });
          const second = buildMphf([...keys].reverse(), { seed, partKeys: 256 });
          expect(Buffer.from(second)).toEqual(Buffer.from(first));
        },
      ),
      propertyParams({ numRuns: 60 }),
    );
  });
});

describe('adversarial keys (property 4)', () => {
  for (const { name, keys } of adversarialKeySets()) {
    it(`builds a bijection for ${name}`, () => {
      expectBijection(openMphf(buildMphf(keys)), keys);
      expectBijection(openMphf(buildMphf(keys, { partKeys: 1000 })), keys);
    });
  }
});

describe('offsets (property 5)', () => {
  const packed = randomPackedKeys(3000, 11);
  const keys = unpack(packed);
  const bytes = buildMphf(keys, { fingerprintBits: 8 });
  const reference = openMphf(bytes);

  it('answers identically when the function sits at any offset of a larger buffer', () => {
    for (const offset of [1, 2, 3, 5, 7, 8, 13]) {
      const host = new Uint8Array(offset + bytes.length + 11).fill(0xee);
      host.set(bytes, offset);
      const moved = openMphf(host.subarray(offset)); // trailing bytes after the function are ignored
      expect(moved.byteLength).toBe(bytes.length);
      expect(keys.map((key) => moved.index(key))).toEqual(keys.map((key) => reference.index(key)));
      expect(keys.map((key) => moved.lookup(key))).toEqual(keys.map((key) => reference.lookup(key)));
    }
  });

  it('reads keys at any offset inside a larger buffer, through both the word and the byte path', () => {
    // Small single-key arrays take the byte path; a large buffer takes the word path when a key is 4-byte aligned
    // in memory and the byte path when it is not. Hosts start at every address modulo 4 and keys at every shift.
    const expected = keys.map((key) => reference.index(Uint8Array.from(key)));
    for (const hostStart of [0, 1, 2, 3]) {
      for (const shift of [0, 1, 2, 3]) {
        const memory = new ArrayBuffer(hostStart + shift + packed.length + 8);
        const host = new Uint8Array(memory, hostStart);
        host.set(packed, shift);
        const got = keys.map((_, i) => reference.index(host, shift + 16 * i, 16));
        const looked = keys.map((_, i) => reference.lookup(host, shift + 16 * i, 16));
        expect(got).toEqual(expected);
        expect(looked).toEqual(expected);
      }
    }
  });

  it('reads keys from a resizable buffer that grows between queries', () => {
    // A length-tracking view: the cached word view of the first query must not be used past its end. (Resizable
    // buffers are ES2024; Node 20 has them, the ES2023 lib types do not.)
    const Resizable = ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer & { resize(length: number): void };
    const memory = new Resizable(16 * 100, { maxByteLength: packed.length });
    const host = new Uint8Array(memory);
    host.set(packed.subarray(0, 16 * 100));
    expect(reference.index(host, 0, 16)).toBe(reference.index(keys[0]!));
    memory.resize(packed.length);
    host.set(packed);
    expect(keys.map((_, i) => reference.index(host, 16 * i, 16))).toEqual(keys.map((key) => reference.index(key)));
  });

  it('queries keys of other lengths inside a larger buffer', () => {
    const words = ['', 'a', 'ab', 'a longer key than sixteen bytes', 'x'.repeat(100)].map((s) => Buffer.from(s));
    const mphf = openMphf(buildMphf(words));
    const host = Buffer.concat([Buffer.from('junk'), ...words]);
    let offset = 4;
    for (const word of words) {
      expect(mphf.index(host, offset, word.length)).toBe(mphf.index(word));
      offset += word.length;
    }
  });
});

describe('multi-part functions (property 6)', () => {
  it('are bijections for random key sets and part sizes (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 256, max: 5000 }),
        fc.nat(),
        (count, partKeys, seed) => {
          const packed = randomPackedKeys(count, seed);
          const mphf = openMphf(buildMphf({ bytes: packed, keyLength: 16 }, { partKeys }));
          expect(checkBijection(mphf, { bytes: packed, keyLength: 16 })).toMatchObject({ ok: true });
          const stranger = randomPackedKeys(1, seed + 1);
          const slot = mphf.index(stranger);
          expect(count === 0 ? slot === -1 : slot >= 0 && slot < count).toBe(true);
        },
      ),
      propertyParams({ numRuns: 40 }),
    );
  });
});

describe('hash (property 7)', () => {
  it('is MurmurHash3 x86_128: SMHasher verification value 0xB3ECE62A', () => {
    // Hash keys [0], [0, 1], … of lengths 0..255 with seed 256 - length, concatenate the little-endian digests,
    // hash that with seed 0; the first word is the reference implementation's verification value.
    const key = new Uint8Array(256);
    const digests = new Uint8Array(16 * 256);
    const words = new Int32Array(4);
    for (let length = 0; length < 256; length++) {
      key[length] = length;
      hash128(key, 0, length, 256 - length, words);
      digests.set(new Uint8Array(words.buffer), 16 * length);
    }
    hash128(digests, 0, digests.length, 0, words);
    expect(words[0]! >>> 0).toBe(0xb3ece62a);
  });

  it('has 16-byte shortcuts that agree with the general function (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 40 }),
        fc.nat({ max: 24 }),
        fc.nat({ max: 0xffff_ffff }),
        (bytes, at, seed) => {
          const offset = Math.min(at, bytes.length - 16);
          const general = new Int32Array(4);
          const short = new Int32Array(4);
          const fromWords = new Int32Array(4);
          hash128(bytes, offset, 16, seed, general);
          hash128Of16(bytes, offset, seed, short);
          const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 16);
          hash128OfWords(
            view.getInt32(0, true),
            view.getInt32(4, true),
            view.getInt32(8, true),
            view.getInt32(12, true),
            seed,
            fromWords,
          );
          expect([...short]).toEqual([...general]);
          expect([...fromWords]).toEqual([...general]);
        },
      ),
      propertyParams({ numRuns: 500 }),
    );
  });
});

describe('parallel build (property 8)', () => {
  it('gives the same bytes as the single-threaded build', async () => {
    const packed = randomPackedKeys(1_200_000, 404);
    for (const options of [{ seed: 5 }, { seed: 6, fingerprintBits: 8 as const, partKeys: 20_000 }]) {
      const single = buildMphf({ bytes: packed, keyLength: 16 }, options);
      const parallel = await buildMphfAsync({ bytes: packed, keyLength: 16 }, { ...options, threads: 2 });
      expect(Buffer.from(parallel).equals(Buffer.from(single))).toBe(true);
    }
    const small = unpack(randomPackedKeys(1000, 405));
    expect(Buffer.from(await buildMphfAsync(small, { threads: 3 }))).toEqual(Buffer.from(buildMphf(small)));
  });
});

describe('negative control (property 9)', () => {
  it('the bijection checker catches a function with one pilot changed', () => {
    const packed = randomPackedKeys(2000, 21);
    const bytes = buildMphf({ bytes: packed, keyLength: 16 });
    expect(checkBijection(openMphf(bytes), { bytes: packed, keyLength: 16 }).ok).toBe(true);
    const broken = Uint8Array.from(bytes);
    const pilotsOffset = readU32(broken, Field.pilotsOffset);
    const pilotsLength = readU32(broken, Field.pilotsLength);
    // Try pilot bytes until one change breaks the function (most do: a bucket moves onto taken slots).
    let caught = false;
    for (let b = 0; b < pilotsLength && !caught; b++) {
      broken.set(bytes);
      broken[pilotsOffset + b] = (bytes[pilotsOffset + b]! + 1) & 0xff;
      sealChecksum(broken, readU32(broken, Field.checksumOffset));
      const report = checkBijection(openMphf(broken), { bytes: packed, keyLength: 16 });
      if (!report.ok) {
        expect(report.keyIndex).toBeGreaterThanOrEqual(0);
        expect(report.detail).toMatch(/map|slot/);
        caught = true;
      }
    }
    expect(caught).toBe(true);
  });

  it('the build self-check passes on good functions', () => {
    const packed = randomPackedKeys(5000, 22);
    expect(() => buildMphf({ bytes: packed, keyLength: 16 }, { selfCheck: true, fingerprintBits: 8 })).not.toThrow();
  });
});
