// What the generated schema walker (xdr-walker.generated.ts) calls: the big-endian word readers, the cold failure
// paths, padding checks, and the skips of the four values that @strata/ledger-key reads and validates itself
// (`@LedgerEntry`, `@LedgerKey`, `@SCVal`, `@SCAddress` in xdr-schema.ts). Hand-written; the generator only names them.
import * as ledgerKey from '@strata/ledger-key';
import { fail, fromLedgerKeyError, LedgerMetaErrorCode } from './errors.js';

// Module-local copies: an imported binding is read again at every use (see ledger-close-meta.ts).
const { readLedgerEntry, readLedgerKey, readScAddress, scValEnd } = ledgerKey;
const { TRUNCATED, BAD_PADDING } = LedgerMetaErrorCode;

/** Validates the value at `p` and returns the offset just past it. `depth` counts enclosing structs and unions. */
export type Skip = (b: Uint8Array, p: number, depth: number) => number;

/**
 * Cap on struct/union nesting. A real LedgerCloseMeta nests about 25 levels before recursion (ClaimPredicate,
 * SorobanAuthorizedInvocation, SCPQuorumSet) adds more; SCVal depth is capped separately by @strata/ledger-key. The
 * cap keeps hostile input from exhausting the stack: it fails as TOO_DEEP instead of a RangeError. The generator
 * writes it into every struct's and union's depth check.
 */
export const MAX_XDR_DEPTH = 200;

/** TRUNCATED: `need` bytes at `p`, fewer left. Cold: only called when a bounds check failed. */
export function truncated(b: Uint8Array, p: number, need: number): never {
  return fail(TRUNCATED, p, undefined, `need ${need} bytes, ${Math.max(0, b.length - p)} left`);
}

/**
 * The big-endian uint32 at `p`, TRUNCATED when fewer than 4 bytes are left: the walker's and the extractor's reader.
 * Not @strata/ledger-key's `readU32`, which the stream reader uses: that one checks its arguments and throws
 * LedgerKeyError, where the walker must throw its own TRUNCATED (`need 4 bytes, N left`) on the hottest path; calling
 * it after this bounds check made extraction about 4 % slower.
 */
export function readU32(b: Uint8Array, p: number): number {
  if (p + 4 > b.length) truncated(b, p, 4);
  // `!` is safe: bounds checked on the line above
  return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

/** The big-endian int32 at `p` (union discriminants, enum values). */
export function readI32(b: Uint8Array, p: number): number {
  return readU32(b, p) | 0;
}

/** BAD_PADDING at the first non-zero byte of `b[from, to)`. */
export function checkPadding(b: Uint8Array, from: number, to: number): void {
  for (let q = from; q < to; q++) if (b[q] !== 0) fail(BAD_PADDING, q, undefined, 'non-zero XDR padding');
}

// ---- values read by @strata/ledger-key (full validation there; errors converted to LedgerMetaError) ----

/** `@LedgerEntry`. */
export function skipLedgerEntry(b: Uint8Array, p: number): number {
  try {
    return p + readLedgerEntry(b, p).byteLength;
  } catch (error) {
    return fromLedgerKeyError(error, 'LedgerEntry');
  }
}

/** `@LedgerKey`. */
export function skipLedgerKey(b: Uint8Array, p: number): number {
  try {
    return p + readLedgerKey(b, p).byteLength;
  } catch (error) {
    return fromLedgerKeyError(error, 'LedgerKey');
  }
}

/** `@SCVal`. */
export function skipScVal(b: Uint8Array, p: number): number {
  try {
    return scValEnd(b, p);
  } catch (error) {
    return fromLedgerKeyError(error, 'SCVal');
  }
}

/** `@SCAddress`. */
export function skipScAddress(b: Uint8Array, p: number): number {
  try {
    return p + readScAddress(b, p).xdr.length;
  } catch (error) {
    return fromLedgerKeyError(error, 'SCAddress');
  }
}
