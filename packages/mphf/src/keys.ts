// The key inputs a build accepts, behind one small interface: an array of Uint8Arrays (read in place), packed keys
// of one width or with an offsets table (read in place; the form for millions of keys, where one object per key
// would cost more than the function), or any other iterable of Uint8Arrays (copied once into a packed buffer, so
// the build can hash keys again to name a duplicate).
import { describeValue, MphfError } from './errors.js';

/** Keys back to back in one buffer, all `keyLength` bytes long (e.g. 16-byte hashed keys). */
export interface FixedWidthKeys {
  readonly bytes: Uint8Array;
  readonly keyLength: number;
}

/** Keys back to back in one buffer; key i is `bytes[offsets[i], offsets[i + 1])` (so `offsets` has n + 1 entries). */
export interface OffsetKeys {
  readonly bytes: Uint8Array;
  readonly offsets: ArrayLike<number>;
}

/** What `buildMphf` accepts. Keys are byte strings of any length (0 included); they must be distinct. */
export type MphfKeys = Iterable<Uint8Array> | FixedWidthKeys | OffsetKeys;

/** Random access to key i as (bytes, offset, length), without allocating. */
export interface KeyStore {
  readonly count: number;
  bytesOf(index: number): Uint8Array;
  offsetOf(index: number): number;
  lengthOf(index: number): number;
}

class ArrayKeyStore implements KeyStore {
  readonly count: number;
  constructor(private readonly keys: readonly Uint8Array[]) {
    this.count = keys.length;
  }
  bytesOf(index: number): Uint8Array {
    return this.keys[index]!;
  }
  offsetOf(): number {
    return 0;
  }
  lengthOf(index: number): number {
    return this.keys[index]!.length;
  }
}

/** Fixed-width packed keys; exported so the hashing pass can read `bytes` and `keyLength` in one tight loop. */
export class FixedWidthKeyStore implements KeyStore {
  readonly count: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly keyLength: number,
  ) {
    this.count = bytes.length / keyLength;
  }
  bytesOf(): Uint8Array {
    return this.bytes;
  }
  offsetOf(index: number): number {
    return index * this.keyLength;
  }
  lengthOf(): number {
    return this.keyLength;
  }
}

class OffsetKeyStore implements KeyStore {
  readonly count: number;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly offsets: ArrayLike<number>,
  ) {
    this.count = offsets.length - 1;
  }
  bytesOf(): Uint8Array {
    return this.bytes;
  }
  offsetOf(index: number): number {
    return this.offsets[index]!;
  }
  lengthOf(index: number): number {
    return this.offsets[index + 1]! - this.offsets[index]!;
  }
}

function notAKey(index: number, value: unknown): MphfError {
  return new MphfError('INVALID_ARGUMENT', `key ${index} is ${describeValue(value)}, not a Uint8Array`, {
    keyIndex: index,
  });
}

function tooManyKeys(count: number, maxKeys: number): MphfError {
  return new MphfError('INVALID_ARGUMENT', `more than ${maxKeys} keys (${count})`, { field: 'keys' });
}

/** Copies the keys of a one-shot iterable into one growing buffer plus an offsets table (at most `maxKeys`). */
function consumeIterable(keys: Iterable<unknown>, maxKeys: number): OffsetKeyStore {
  let bytes = new Uint8Array(1 << 16);
  let offsets = new Float64Array(1 << 12);
  let count = 0;
  let end = 0;
  for (const key of keys) {
    if (!(key instanceof Uint8Array)) throw notAKey(count, key);
    if (count === maxKeys) throw tooManyKeys(count + 1, maxKeys);
    if (end + key.length > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, end + key.length));
      grown.set(bytes.subarray(0, end));
      bytes = grown;
    }
    bytes.set(key, end);
    end += key.length;
    count++;
    if (count + 1 > offsets.length) {
      const grown = new Float64Array(offsets.length * 2);
      grown.set(offsets);
      offsets = grown;
    }
    offsets[count] = end;
  }
  return new OffsetKeyStore(bytes.subarray(0, end), offsets.subarray(0, count + 1));
}

function notBytes(bytes: unknown): MphfError {
  return new MphfError('INVALID_ARGUMENT', `bytes must be a Uint8Array, got ${describeValue(bytes)}`, {
    field: 'bytes',
  });
}

function isFixedWidth(keys: MphfKeys): keys is FixedWidthKeys {
  return typeof keys === 'object' && keys !== null && 'keyLength' in keys && 'bytes' in keys;
}

function isOffsets(keys: MphfKeys): keys is OffsetKeys {
  return typeof keys === 'object' && keys !== null && 'offsets' in keys && 'bytes' in keys;
}

/**
 * Validates the input form and wraps it. Arrays and packed forms are not copied. A key set of more than `maxKeys`
 * keys is refused by its count, before its keys are looked at (an iterable: when the key after `maxKeys` arrives).
 */
export function keyStoreOf(keys: MphfKeys, maxKeys = Number.MAX_SAFE_INTEGER): KeyStore {
  if (isFixedWidth(keys)) {
    const { bytes, keyLength } = keys;
    if (!(bytes instanceof Uint8Array)) throw notBytes(bytes);
    if (!Number.isInteger(keyLength) || keyLength < 1 || bytes.length % keyLength !== 0) {
      throw new MphfError(
        'INVALID_ARGUMENT',
        `keyLength ${describeValue(keyLength)} does not divide ${bytes.length} bytes`,
        { field: 'keyLength' },
      );
    }
    if (bytes.length / keyLength > maxKeys) throw tooManyKeys(bytes.length / keyLength, maxKeys);
    return new FixedWidthKeyStore(bytes, keyLength);
  }
  if (isOffsets(keys)) {
    const { bytes, offsets } = keys;
    if (!(bytes instanceof Uint8Array)) throw notBytes(bytes);
    if (
      typeof offsets !== 'object' ||
      offsets === null ||
      !Number.isSafeInteger(offsets.length) ||
      offsets.length < 1
    ) {
      throw new MphfError('INVALID_ARGUMENT', `offsets needs n + 1 entries, got ${describeValue(offsets)}`, {
        field: 'offsets',
      });
    }
    if (offsets.length - 1 > maxKeys) throw tooManyKeys(offsets.length - 1, maxKeys);
    let previous = 0;
    for (let i = 0; i < offsets.length; i++) {
      const offset = offsets[i]!;
      if (!Number.isInteger(offset) || offset < previous || offset > bytes.length) {
        throw new MphfError(
          'INVALID_ARGUMENT',
          `offsets[${i}] = ${describeValue(offset)} is not ascending inside the bytes`,
          { field: 'offsets' },
        );
      }
      previous = offset;
    }
    return new OffsetKeyStore(bytes, offsets);
  }
  if (Array.isArray(keys)) {
    if (keys.length > maxKeys) throw tooManyKeys(keys.length, maxKeys);
    for (let i = 0; i < keys.length; i++) if (!(keys[i] instanceof Uint8Array)) throw notAKey(i, keys[i]);
    return new ArrayKeyStore(keys as readonly Uint8Array[]);
  }
  if (typeof keys === 'object' && keys !== null && Symbol.iterator in keys) return consumeIterable(keys, maxKeys);
  throw new MphfError(
    'INVALID_ARGUMENT',
    'keys must be an iterable of Uint8Array, {bytes, keyLength} or {bytes, offsets}',
  );
}
