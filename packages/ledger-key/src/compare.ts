// stellar-core's LedgerEntryIdCmp on XDR bytes: the lockstep walker behind compareLedgerEntries, compareEntryToKey
// and the bucket-entry orders, and behind compareLedgerKeys whenever its WebAssembly fast path declines (below). It
// walks both values in lockstep, validating as it goes, and after the first difference only validates the rest (so
// every byte is read about once and malformed input always throws). No objects, closures or bigints are created per
// call.
//
// Why byte-wise memcmp is not enough (spec §2.5): var-length data is ordered by content with the shorter prefix
// first (XDR puts the length in front), and signed integers are two's complement. Everywhere else the XDR bytes of
// validated values already sort structurally, so those parts are compared a 32-bit word at a time.
//
// Two implementations, one order. compareLedgerKeys and ledgerKeysEqual (key against key, the merge and sort hot
// path) first ask the WebAssembly comparator of src/wasm-key-comparator.ts (src/key-order.wat): it copies both keys
// into its memory, validates them whole, then orders them, about twice as fast as this walker on CONTRACT_DATA keys.
// It only answers for valid keys of at most KEY_ORDER_CAPACITY bytes; for anything else (malformed input, a huge
// key) it returns a status and the key is handed to the lockstep walker below, which stays the single source of every
// LedgerKeyError (code, offset, field), so errors cannot differ between the paths. The entry-based functions
// (compareLedgerEntries, compareEntryToKey, compareBucketEntries, compareHotArchiveBucketEntries and the *Keys
// variants for pre-validated records) read their keys in place inside larger records and use the walker only.
// test/wasm-key-comparator.property.test.ts checks the two paths against each other on random keys of every type and
// every SCVal arm and on random byte mutations (same order, or wasm says malformed exactly when the walker throws).
import { ACCOUNT_ID_SIZE } from './asset.js';
import { skipBucketEntry, skipHotArchiveBucketEntry } from './bucket-entry.js';
import { entryKeyStart, skipEntryTail } from './ledger-entry.js';
import { readLedgerEntryType, skipKeyArm } from './ledger-key.js';
import { skipScAddress } from './sc-address.js';
import { SCVAL_FIXED_PAYLOAD, skipOptionalScMap, skipScVal, skipScVals } from './scval.js';
import { compareKeysInWasm } from './wasm-key-comparator.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const {
  BUCKET_ENTRY_TYPE,
  HOT_ARCHIVE_BUCKET_ENTRY_TYPE,
  LEDGER_ENTRY_TYPE,
  MAX_CONFIG_SETTING_ID,
  MAX_SC_VAL_TYPE,
  MAX_SCVAL_DEPTH,
  SC_VAL_TYPE,
  XDR_LIMITS,
} = xdrConstants;
const {
  checkBytes,
  checkFlag,
  checkOffset,
  expectEnd,
  i32,
  need,
  readArrayCount,
  readBool,
  readEnum,
  skipFixed,
  skipVarOpaque,
  tooDeep,
  u32,
} = xdrCursor;

/**
 * The argument check of every public comparator: both sides are Uint8Arrays (INVALID_ARGUMENT otherwise). Two
 * `instanceof` tests per call, before any byte is read; the walks below read bytes without re-checking types.
 */
function checkPair(a: Uint8Array, b: Uint8Array): void {
  checkBytes(a, 'a');
  checkBytes(b, 'b');
}

/**
 * Where each side ended after the last lockstep helper returned. The helpers return the order and leave their end
 * offsets here instead of allocating a result. Safe because comparisons never call out to user code, so no other
 * comparison can interleave (JavaScript is single-threaded per realm; workers have their own module instance).
 */
const ends = { a: 0, b: 0 };

/**
 * Unsigned lexicographic compare of `n` bytes (n a multiple of 4), a big-endian word at a time: word order equals
 * byte order. Both ranges have been bounds-checked by the caller. Most of the comparator's time is spent here, and
 * this function is often not inlined (its callers exhaust TurboFan's inlining budget), so the word reads are
 * written out rather than calling u32(): a call per word made comparisons about twice as slow.
 */
function cmpWords(a: Uint8Array, pa: number, b: Uint8Array, pb: number, n: number): number {
  for (let i = 0; i < n; i += 4) {
    const p = pa + i;
    const q = pb + i;
    const x = ((a[p]! << 24) | (a[p + 1]! << 16) | (a[p + 2]! << 8) | a[p + 3]!) >>> 0;
    const y = ((b[q]! << 24) | (b[q + 1]! << 16) | (b[q + 2]! << 8) | b[q + 3]!) >>> 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** A two's-complement integer of `n` bytes (4, 8, 16 or 32): the top word signed, the rest unsigned. */
function cmpSigned(a: Uint8Array, pa: number, b: Uint8Array, pb: number, n: number): number {
  const x = i32(a, pa);
  const y = i32(b, pb);
  if (x !== y) return x < y ? -1 : 1;
  return cmpWords(a, pa + 4, b, pb + 4, n - 4);
}

/** Bounds-checks a fixed-size field on both sides and records where they end. */
function needBoth(a: Uint8Array, pa: number, b: Uint8Array, pb: number, n: number, field: string): void {
  need(a, pa, n, field);
  need(b, pb, n, field);
  ends.a = pa + n;
  ends.b = pb + n;
}

/**
 * opaque<max> / string<max>: content compared unsigned, a shorter prefix first; the length is only a tie-break. Both
 * sides are fully validated first. Comparing whole words over the shorter content is exact because XDR padding is
 * zero: inside the shorter side's padding the longer side can only tie (then length decides, shorter first) or be
 * greater (shorter first again).
 */
function cmpVarOpaque(a: Uint8Array, pa: number, b: Uint8Array, pb: number, max: number, field: string): number {
  ends.a = skipVarOpaque(a, pa, max, field);
  ends.b = skipVarOpaque(b, pb, max, field);
  const lenA = u32(a, pa);
  const lenB = u32(b, pb);
  const shorter = Math.min(lenA, lenB);
  const c = cmpWords(a, pa + 4, b, pb + 4, (shorter + 3) & ~3);
  if (c !== 0 || lenA === lenB) return c;
  return lenA < lenB ? -1 : 1;
}

/**
 * SCAddress: type, then the arm. Every arm is fixed-size and orders like its bytes once validated (AccountID and
 * ClaimableBalanceID discriminants are always 0; MUXED_ACCOUNT's uint64 id comes first and is unsigned).
 */
function cmpScAddress(a: Uint8Array, pa: number, b: Uint8Array, pb: number, field: string): number {
  const ea = skipScAddress(a, pa, field);
  const eb = skipScAddress(b, pb, field);
  ends.a = ea;
  ends.b = eb;
  const ta = u32(a, pa);
  const tb = u32(b, pb);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return cmpWords(a, pa + 4, b, pb + 4, ea - pa - 4);
}

/**
 * The elements of two validated-as-we-go SCVal sequences (vec elements, or map entries as key/val pairs when
 * `perElement` is 2): element-wise, then the shorter sequence first. Elements are at nesting level `depth`.
 */
function cmpScValSeq(
  a: Uint8Array,
  pa: number,
  countA: number,
  b: Uint8Array,
  pb: number,
  countB: number,
  perElement: 1 | 2,
  depth: number,
): number {
  const common = Math.min(countA, countB);
  let qa = pa;
  let qb = pb;
  for (let i = 0; i < common * perElement; i++) {
    const c = cmpScVal(a, qa, b, qb, depth);
    if (c !== 0) {
      ends.a = skipScVals(a, ends.a, countA * perElement - i - 1, depth);
      ends.b = skipScVals(b, ends.b, countB * perElement - i - 1, depth);
      return c;
    }
    qa = ends.a;
    qb = ends.b;
  }
  ends.a = skipScVals(a, qa, (countA - common) * perElement, depth);
  ends.b = skipScVals(b, qb, (countB - common) * perElement, depth);
  return countA === countB ? 0 : countA < countB ? -1 : 1;
}

/**
 * `SCVec*` (perElement 1) or `SCMap*` (perElement 2) at `pa`/`pb`, holding values at level `depth + 1`: absent before
 * present, then the sequences.
 */
function cmpOptionalSeq(
  a: Uint8Array,
  pa: number,
  b: Uint8Array,
  pb: number,
  perElement: 1 | 2,
  depth: number,
  field: string,
): number {
  const fa = readBool(a, pa, field);
  const fb = readBool(b, pb, field);
  if (fa !== fb || fa === 0) {
    ends.a = skipOptional(a, pa, perElement, depth, field);
    ends.b = skipOptional(b, pb, perElement, depth, field);
    return fa === fb ? 0 : fa < fb ? -1 : 1;
  }
  const countA = readArrayCount(a, pa + 4, XDR_LIMITS.UNBOUNDED, 4 * perElement, field);
  const countB = readArrayCount(b, pb + 4, XDR_LIMITS.UNBOUNDED, 4 * perElement, field);
  return cmpScValSeq(a, pa + 8, countA, b, pb + 8, countB, perElement, depth + 1);
}

function skipOptional(b: Uint8Array, p: number, perElement: 1 | 2, depth: number, field: string): number {
  if (perElement === 2) return skipOptionalScMap(b, p, depth, field);
  if (u32(b, p) === 0) return p + 4;
  const count = readArrayCount(b, p + 4, XDR_LIMITS.UNBOUNDED, 4, field);
  return skipScVals(b, p + 8, count, depth + 1);
}

/** SCVal arms whose fixed-size payload is a two's-complement integer (top word signed). Indexed by SCValType. */
const SCVAL_SIGNED = Uint8Array.of(0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1);

/** SCVal at nesting level `depth` (spec §2.4): type, then the arm. */
function cmpScVal(a: Uint8Array, pa: number, b: Uint8Array, pb: number, depth: number): number {
  if (depth > MAX_SCVAL_DEPTH) {
    tooDeep(pa, MAX_SCVAL_DEPTH, 'SCVal');
  }
  need(a, pa, 4, 'SCVal.type');
  need(b, pb, 4, 'SCVal.type');
  const ta = u32(a, pa);
  const tb = u32(b, pb);
  if (ta !== tb || ta > MAX_SC_VAL_TYPE) {
    // skipScVal validates (and rejects unknown types); only two valid, different types reach the return.
    ends.a = skipScVal(a, pa, depth);
    ends.b = skipScVal(b, pb, depth);
    return ta < tb ? -1 : 1;
  }
  const qa = pa + 4;
  const qb = pb + 4;
  const fixed = SCVAL_FIXED_PAYLOAD[ta]!;
  if (fixed >= 0) {
    // Integers (U32..I256, NONCE) and the payload-less VOID / LEDGER_KEY_CONTRACT_INSTANCE.
    needBoth(a, qa, b, qb, fixed, 'SCVal');
    if (fixed === 0) return 0;
    return SCVAL_SIGNED[ta] === 1 ? cmpSigned(a, qa, b, qb, fixed) : cmpWords(a, qa, b, qb, fixed);
  }
  switch (ta) {
    case SC_VAL_TYPE.SYMBOL:
      return cmpVarOpaque(a, qa, b, qb, XDR_LIMITS.SYMBOL, 'SCVal.sym');
    case SC_VAL_TYPE.VEC:
      return cmpOptionalSeq(a, qa, b, qb, 1, depth, 'SCVal.vec');
    case SC_VAL_TYPE.ADDRESS:
      return cmpScAddress(a, qa, b, qb, 'SCVal.address');
    case SC_VAL_TYPE.BYTES:
      return cmpVarOpaque(a, qa, b, qb, XDR_LIMITS.UNBOUNDED, 'SCVal.bytes');
    case SC_VAL_TYPE.STRING:
      return cmpVarOpaque(a, qa, b, qb, XDR_LIMITS.UNBOUNDED, 'SCVal.str');
    case SC_VAL_TYPE.MAP:
      return cmpOptionalSeq(a, qa, b, qb, 2, depth, 'SCVal.map');
    case SC_VAL_TYPE.BOOL:
      readBool(a, qa, 'SCVal.b');
      readBool(b, qb, 'SCVal.b');
      ends.a = qa + 4;
      ends.b = qb + 4;
      return cmpWords(a, qa, b, qb, 4);
    case SC_VAL_TYPE.ERROR:
      // SCError {type; contractCode | code}: both words unsigned-comparable once validated (type 0..9, code 0..9).
      ends.a = skipScVal(a, pa, depth);
      ends.b = skipScVal(b, pb, depth);
      return cmpWords(a, qa, b, qb, 8);
    default: {
      // SCV_CONTRACT_INSTANCE: executable (type, then the wasm hash for WASM), then the optional storage map.
      const xa = readEnum(a, qa, 0, 1, 'SCContractInstance.executable.type');
      const xb = readEnum(b, qb, 0, 1, 'SCContractInstance.executable.type');
      let c = xa === xb ? 0 : xa < xb ? -1 : 1;
      let sa = qa + 4;
      let sb = qb + 4;
      if (xa === 0) sa = skipFixed(a, sa, 32, 'SCContractInstance.executable.wasm_hash');
      if (xb === 0) sb = skipFixed(b, sb, 32, 'SCContractInstance.executable.wasm_hash');
      if (c === 0 && xa === 0) c = cmpWords(a, qa + 4, b, qb + 4, 32);
      if (c !== 0) {
        ends.a = skipOptionalScMap(a, sa, depth, 'SCContractInstance.storage');
        ends.b = skipOptionalScMap(b, sb, depth, 'SCContractInstance.storage');
        return c;
      }
      return cmpOptionalSeq(a, sa, b, sb, 2, depth, 'SCContractInstance.storage');
    }
  }
}

/** CONTRACT_DATA key fields: contract, then key, then durability (TEMPORARY < PERSISTENT). */
function cmpContractDataArm(a: Uint8Array, pa: number, b: Uint8Array, pb: number): number {
  let c = cmpScAddress(a, pa, b, pb, 'LedgerKey.contractData.contract');
  let qa = ends.a;
  let qb = ends.b;
  if (c === 0) {
    c = cmpScVal(a, qa, b, qb, 1);
    qa = ends.a;
    qb = ends.b;
  } else {
    qa = skipScVal(a, qa, 1);
    qb = skipScVal(b, qb, 1);
  }
  const da = readEnum(a, qa, 0, 1, 'LedgerKey.contractData.durability');
  const db = readEnum(b, qb, 0, 1, 'LedgerKey.contractData.durability');
  ends.a = qa + 4;
  ends.b = qb + 4;
  if (c !== 0 || da === db) return c;
  return da < db ? -1 : 1;
}

/** The key fields of two keys/entries of the same LedgerEntryType `type` (spec §2.3). */
function cmpKeyArm(type: number, a: Uint8Array, pa: number, b: Uint8Array, pb: number): number {
  switch (type) {
    case LEDGER_ENTRY_TYPE.CONTRACT_DATA:
      return cmpContractDataArm(a, pa, b, pb);
    case LEDGER_ENTRY_TYPE.ACCOUNT:
    case LEDGER_ENTRY_TYPE.CLAIMABLE_BALANCE: {
      // AccountID / ClaimableBalanceID: discriminant (always 0) + 32 bytes, so the 36 bytes order like the value.
      const ea = skipKeyArm(a, pa, type);
      const eb = skipKeyArm(b, pb, type);
      ends.a = ea;
      ends.b = eb;
      return cmpWords(a, pa, b, pb, 36);
    }
    case LEDGER_ENTRY_TYPE.TRUSTLINE: {
      // accountID, then TrustLineAsset: type, then a fixed-size arm that orders like its validated bytes.
      const ea = skipKeyArm(a, pa, type);
      const eb = skipKeyArm(b, pb, type);
      ends.a = ea;
      ends.b = eb;
      // The first 40 bytes are the account and the asset type; equal types mean equal-size arms.
      const c = cmpWords(a, pa, b, pb, 40);
      return c !== 0 ? c : cmpWords(a, pa + 40, b, pb + 40, ea - pa - 40);
    }
    case LEDGER_ENTRY_TYPE.OFFER: {
      const ea = skipKeyArm(a, pa, type);
      const eb = skipKeyArm(b, pb, type);
      ends.a = ea;
      ends.b = eb;
      const c = cmpWords(a, pa, b, pb, 36);
      return c !== 0 ? c : cmpSigned(a, pa + 36, b, pb + 36, 8); // offerID is int64
    }
    case LEDGER_ENTRY_TYPE.DATA: {
      // accountID, then dataName as a string (content first, not length first).
      const na = pa + ACCOUNT_ID_SIZE;
      const nb = pb + ACCOUNT_ID_SIZE;
      const c = cmpKeyAccount(a, pa, b, pb, 'LedgerKey.data.accountID');
      if (c !== 0) {
        ends.a = skipVarOpaque(a, na, XDR_LIMITS.DATA_NAME, 'LedgerKey.data.dataName');
        ends.b = skipVarOpaque(b, nb, XDR_LIMITS.DATA_NAME, 'LedgerKey.data.dataName');
        return c;
      }
      return cmpVarOpaque(a, na, b, nb, XDR_LIMITS.DATA_NAME, 'LedgerKey.data.dataName');
    }
    case LEDGER_ENTRY_TYPE.CONFIG_SETTING: {
      // ConfigSettingID is an int32 enum: signed compare (all defined values are non-negative today).
      const x = readEnum(a, pa, 0, MAX_CONFIG_SETTING_ID, 'LedgerKey.configSetting.configSettingID');
      const y = readEnum(b, pb, 0, MAX_CONFIG_SETTING_ID, 'LedgerKey.configSetting.configSettingID');
      ends.a = pa + 4;
      ends.b = pb + 4;
      return x === y ? 0 : x < y ? -1 : 1;
    }
    default:
      // LIQUIDITY_POOL, CONTRACT_CODE, TTL: one 32-byte hash.
      needBoth(a, pa, b, pb, 32, 'LedgerKey.hash');
      return cmpWords(a, pa, b, pb, 32);
  }
}

/** An AccountID on both sides (validated), compared; used where more key fields follow. */
function cmpKeyAccount(a: Uint8Array, pa: number, b: Uint8Array, pb: number, field: string): number {
  readEnum(a, pa, 0, 0, field, '.type');
  readEnum(b, pb, 0, 0, field, '.type');
  needBoth(a, pa + 4, b, pb + 4, 32, field);
  return cmpWords(a, pa + 4, b, pb + 4, 32);
}

/** What compareKeyed checks after the key fields (see there). */
const ENDS_WHOLE = 0;
const ENDS_KEYS = 1;
const ENDS_UNCHECKED = 2;

/**
 * Orders two keyed records: each side is a LedgerKey (`isEntry` false) or a LedgerEntry (true) starting at `p`.
 * Compares LedgerEntryType then the key fields. `checks` says what else is read: ENDS_WHOLE validates what remains of
 * each side and requires each to end exactly at the end of its array; ENDS_KEYS leaves an entry's part after its key
 * fields unread but still requires a key to end its array (records already validated whole); ENDS_UNCHECKED reads
 * nothing past the first difference (validated records at positions inside larger buffers).
 */
function compareKeyed(
  a: Uint8Array,
  pa: number,
  aIsEntry: boolean,
  b: Uint8Array,
  pb: number,
  bIsEntry: boolean,
  checks = ENDS_WHOLE,
): number {
  let ta: number;
  let ka: number;
  if (aIsEntry) {
    ka = entryKeyStart(a, pa);
    ta = u32(a, pa + 4);
  } else {
    ta = readLedgerEntryType(a, pa, 'LedgerKey.type');
    ka = pa + 4;
  }
  let tb: number;
  let kb: number;
  if (bIsEntry) {
    kb = entryKeyStart(b, pb);
    tb = u32(b, pb + 4);
  } else {
    tb = readLedgerEntryType(b, pb, 'LedgerKey.type');
    kb = pb + 4;
  }
  if (checks === ENDS_UNCHECKED) return ta === tb ? cmpKeyArm(ta, a, ka, b, kb) : ta < tb ? -1 : 1;
  let c: number;
  let ea: number;
  let eb: number;
  if (ta === tb) {
    c = cmpKeyArm(ta, a, ka, b, kb);
    ea = ends.a;
    eb = ends.b;
  } else {
    ea = skipKeyArm(a, ka, ta);
    eb = skipKeyArm(b, kb, tb);
    c = ta < tb ? -1 : 1;
  }
  if (aIsEntry) {
    if (checks === ENDS_WHOLE) expectEnd(a, skipEntryTail(a, ta, ka, ea), 'LedgerEntry');
  } else {
    expectEnd(a, ea, 'LedgerKey');
  }
  if (bIsEntry) {
    if (checks === ENDS_WHOLE) expectEnd(b, skipEntryTail(b, tb, kb, eb), 'LedgerEntry');
  } else {
    expectEnd(b, eb, 'LedgerKey');
  }
  return c;
}

/**
 * Three-way order of two XDR LedgerKeys, exactly stellar-core's LedgerEntryIdCmp: returns -1, 0 or 1. Both keys are
 * fully validated (each array must hold exactly one key); malformed input throws LedgerKeyError. Allocation-free.
 */
export function compareLedgerKeys(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  const order = compareKeysInWasm(a, b);
  // Above 1: malformed or too large for the wasm path; the walker orders the keys or throws the exact error.
  return order <= 1 ? order : compareKeyed(a, 0, false, b, 0, false);
}

/** compareLedgerKeys without the WebAssembly path: the lockstep walker alone (tests cross-check the two). */
export function compareLedgerKeysByWalker(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  return compareKeyed(a, 0, false, b, 0, false);
}

/** Order of two XDR LedgerEntries by their keys (the rest of each entry is validated, not compared). */
export function compareLedgerEntries(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  return compareKeyed(a, 0, true, b, 0, true);
}

/** Order of an XDR LedgerEntry's key against an XDR LedgerKey, without building the entry's key. */
export function compareEntryToKey(entry: Uint8Array, key: Uint8Array): number {
  checkBytes(entry, 'entry');
  checkBytes(key, 'key');
  return compareKeyed(entry, 0, true, key, 0, false);
}

/**
 * Order of two live-bucket BucketEntries (stellar-core BucketEntryIdCmp<LiveBucket>): METAENTRY (-1) before
 * everything and equal to another METAENTRY; otherwise by key, where LIVE/INIT contribute their entry's key and DEAD
 * its key, so INIT/LIVE/DEAD of the same key compare 0.
 */
export function compareBucketEntries(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  const ta = readEnum(a, 0, -1, 2, 'BucketEntry.type');
  const tb = readEnum(b, 0, -1, 2, 'BucketEntry.type');
  if (ta === BUCKET_ENTRY_TYPE.METAENTRY || tb === BUCKET_ENTRY_TYPE.METAENTRY) {
    expectEnd(a, skipBucketEntry(a, 0), 'BucketEntry');
    expectEnd(b, skipBucketEntry(b, 0), 'BucketEntry');
    return ta === tb ? 0 : ta < tb ? -1 : 1;
  }
  return compareKeyed(a, 4, ta !== BUCKET_ENTRY_TYPE.DEADENTRY, b, 4, tb !== BUCKET_ENTRY_TYPE.DEADENTRY);
}

/**
 * compareBucketEntries for records already validated whole (read from a verified bucket file, or checked once when
 * a batch came in): the same order, but only the discriminants and key fields are read and checked, not the entry
 * bodies after the keys, which a merge or sort would otherwise re-validate at every comparison. METAENTRY is
 * not expected here (merges and sorts see entries only) and is ordered first without being read.
 */
export function compareBucketEntryKeys(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  const ta = readEnum(a, 0, -1, 2, 'BucketEntry.type');
  const tb = readEnum(b, 0, -1, 2, 'BucketEntry.type');
  if (ta === BUCKET_ENTRY_TYPE.METAENTRY || tb === BUCKET_ENTRY_TYPE.METAENTRY) {
    return ta === tb ? 0 : ta < tb ? -1 : 1;
  }
  return compareKeyed(a, 4, ta !== BUCKET_ENTRY_TYPE.DEADENTRY, b, 4, tb !== BUCKET_ENTRY_TYPE.DEADENTRY, ENDS_KEYS);
}

/** compareHotArchiveBucketEntries for records already validated whole (see compareBucketEntryKeys). */
export function compareHotArchiveBucketEntryKeys(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  const ta = readEnum(a, 0, -1, 1, 'HotArchiveBucketEntry.type');
  const tb = readEnum(b, 0, -1, 1, 'HotArchiveBucketEntry.type');
  const meta = HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_METAENTRY;
  if (ta === meta || tb === meta) return ta === tb ? 0 : ta < tb ? -1 : 1;
  const archived = HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_ARCHIVED;
  return compareKeyed(a, 4, ta === archived, b, 4, tb === archived, ENDS_KEYS);
}

/**
 * Order of two keyed records already validated whole, read in place inside larger buffers (a merge's read buffers):
 * a LedgerEntry (`aIsEntry`) or a LedgerKey at `a[pa]`, the same for `b`. Only the entry types and key fields up to
 * the first difference are read, and neither record's end is checked: the caller guarantees both are valid. Same
 * order as compareLedgerKeys of the two keys; no view or allocation per call.
 */
export function compareKeyedRecordsAt(
  a: Uint8Array,
  pa: number,
  aIsEntry: boolean,
  b: Uint8Array,
  pb: number,
  bIsEntry: boolean,
): number {
  checkPair(a, b);
  checkOffset(a, pa, 'pa');
  checkOffset(b, pb, 'pb');
  checkFlag(aIsEntry, 'aIsEntry');
  checkFlag(bIsEntry, 'bIsEntry');
  return compareKeyed(a, pa, aIsEntry, b, pb, bIsEntry, ENDS_UNCHECKED);
}

/**
 * Order of two HotArchiveBucketEntries: HOT_ARCHIVE_METAENTRY (-1) first; otherwise by key, where ARCHIVED (0)
 * contributes its entry's key and LIVE (1) its key.
 */
export function compareHotArchiveBucketEntries(a: Uint8Array, b: Uint8Array): number {
  checkPair(a, b);
  const ta = readEnum(a, 0, -1, 1, 'HotArchiveBucketEntry.type');
  const tb = readEnum(b, 0, -1, 1, 'HotArchiveBucketEntry.type');
  const meta = HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_METAENTRY;
  if (ta === meta || tb === meta) {
    expectEnd(a, skipHotArchiveBucketEntry(a, 0), 'HotArchiveBucketEntry');
    expectEnd(b, skipHotArchiveBucketEntry(b, 0), 'HotArchiveBucketEntry');
    return ta === tb ? 0 : ta < tb ? -1 : 1;
  }
  const archived = HOT_ARCHIVE_BUCKET_ENTRY_TYPE.HOT_ARCHIVE_ARCHIVED;
  return compareKeyed(a, 4, ta === archived, b, 4, tb === archived);
}

/**
 * Structural equality of two XDR LedgerKeys (both validated). Because validation rejects every non-canonical
 * encoding (non-zero padding, bools other than 0/1), this is also byte equality.
 */
export function ledgerKeysEqual(a: Uint8Array, b: Uint8Array): boolean {
  return compareLedgerKeys(a, b) === 0;
}
