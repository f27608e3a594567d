// The bijection checker: the property every function must have, checked the direct way (every key's slot is in
// [0, n) and no slot is hit twice, with a one-byte-per-slot bitmap). Used by the build's self-check switch, by the
// tests, and by callers who want to check a function file against the keys it was built from.
import { describeValue, MphfError } from './errors.js';
import { type KeyStore, keyStoreOf, type MphfKeys } from './keys.js';
import type { Mphf } from './mphf.js';

/** The result of `checkBijection`. On failure `keyIndex` is the first key found wrong. */
export interface BijectionReport {
  ok: boolean;
  /** What was checked, or what is wrong. */
  detail: string;
  /** The key (input position) whose slot is out of range, rejected, or already taken. */
  keyIndex?: number;
  /** The earlier key that took the same slot. */
  otherKeyIndex?: number;
  slot?: number;
}

/** Checks a store (internal form, no validation of the input shape). */
export function checkStore(mphf: Mphf, store: KeyStore): BijectionReport {
  const n = mphf.size;
  if (store.count !== n) return { ok: false, detail: `the function has ${n} keys, the key set ${store.count}` };
  const seen = new Uint8Array(n);
  const fingerprints = mphf.fingerprintBits !== 0;
  for (let i = 0; i < n; i++) {
    const bytes = store.bytesOf(i);
    const offset = store.offsetOf(i);
    const length = store.lengthOf(i);
    const slot = mphf.index(bytes, offset, length);
    if (!(slot >= 0 && slot < n))
      return { ok: false, detail: `key ${i} maps to ${slot}, outside [0, ${n})`, keyIndex: i, slot };
    if (seen[slot] === 1) {
      let other = 0;
      while (mphf.index(store.bytesOf(other), store.offsetOf(other), store.lengthOf(other)) !== slot) other++;
      return {
        ok: false,
        detail: `keys ${other} and ${i} both map to slot ${slot}`,
        keyIndex: i,
        otherKeyIndex: other,
        slot,
      };
    }
    seen[slot] = 1;
    if (fingerprints && mphf.lookup(bytes, offset, length) !== slot) {
      return { ok: false, detail: `key ${i} is rejected by its own fingerprint at slot ${slot}`, keyIndex: i, slot };
    }
  }
  return { ok: true, detail: `${n} keys map one-to-one onto [0, ${n})` };
}

/**
 * Checks that `mphf` maps `keys` one-to-one onto [0, n) (and that `lookup` accepts every key when the function
 * has fingerprints). One query per key and n bytes of memory; returns the first problem instead of throwing.
 */
export function checkBijection(mphf: Mphf, keys: MphfKeys): BijectionReport {
  checkMphf(mphf);
  return checkStore(mphf, keyStoreOf(keys));
}

/** INVALID_ARGUMENT unless `mphf` has the Mphf shape (openMphf's result, or the caller's own implementation). */
function checkMphf(mphf: Mphf): void {
  const shaped =
    typeof mphf === 'object' &&
    mphf !== null &&
    typeof mphf.index === 'function' &&
    typeof mphf.lookup === 'function' &&
    Number.isSafeInteger(mphf.size) &&
    mphf.size >= 0 &&
    [0, 8, 16, 32].includes(mphf.fingerprintBits);
  if (!shaped) {
    throw new MphfError('INVALID_ARGUMENT', `expected an opened function (openMphf), got ${describeValue(mphf)}`, {
      field: 'mphf',
    });
  }
}
