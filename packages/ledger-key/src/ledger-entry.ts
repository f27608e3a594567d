// LedgerEntry: full validation, the zero-copy LedgerEntryView, and ledgerKeyOfEntry. An entry's key fields sit
// contiguously inside its data arm (after an ext for CONTRACT_DATA / CONTRACT_CODE), which is what lets the
// comparator order entries by key without building the key.
import { assert } from '@strata/base';
import { skipEntryAfterKey, skipEntryBeforeKey, skipLedgerEntryExt } from './entry-bodies.js';
import { describeValue, invalidArgument } from './errors.js';
import { LedgerKeyView, readLedgerEntryType, skipKeyArm } from './ledger-key.js';
import { ScValView } from './scval.js';
import type { LedgerEntryType } from './xdr-constants.js';
import * as xdrConstants from './xdr-constants.js';
import * as xdrCursor from './xdr-cursor.js';

// Module-local copies of the constants and readers used on hot paths: TurboFan folds a module's own consts but
// re-reads an imported binding at every use, which cost 10-20% of a comparison when measured.
const { LEDGER_ENTRY_TYPE, LEDGER_ENTRY_TYPE_NAMES } = xdrConstants;
const { checkBytes, checkOffset, expectEnd, need, startOffset, u32 } = xdrCursor;

/**
 * Validates a LedgerEntry from `p` up to its key fields and returns where they start; the entry's type is at
 * `p + 4`. Allocation-free: the comparator calls it on every entry it orders.
 */
export function entryKeyStart(b: Uint8Array, p: number): number {
  need(b, p, 4, 'LedgerEntry.lastModifiedLedgerSeq');
  const type = readLedgerEntryType(b, p + 4, 'LedgerEntry.data.type');
  return skipEntryBeforeKey(b, type, p + 8);
}

/** Validates everything after an entry's key fields (rest of the data arm, then LedgerEntry.ext). */
export function skipEntryTail(b: Uint8Array, type: number, keyStart: number, keyEnd: number): number {
  return skipLedgerEntryExt(b, skipEntryAfterKey(b, type, keyStart, keyEnd));
}

/** Offsets inside one validated entry, relative to the start of the array that holds it. */
interface EntryLayout {
  type: LedgerEntryType;
  keyStart: number;
  keyEnd: number;
  dataEnd: number;
  end: number;
}

function scanLedgerEntry(b: Uint8Array, p: number): EntryLayout {
  const keyStart = entryKeyStart(b, p);
  const type = u32(b, p + 4) as LedgerEntryType;
  const keyEnd = skipKeyArm(b, keyStart, type);
  const dataEnd = skipEntryAfterKey(b, type, keyStart, keyEnd);
  const end = skipLedgerEntryExt(b, dataEnd);
  assert(p + 8 <= keyStart && keyStart <= keyEnd && keyEnd <= dataEnd && dataEnd < end, 'entry layout out of order');
  return { type, keyStart, keyEnd, dataEnd, end };
}

/** Validates one LedgerEntry at `p` and returns the offset after it. */
export function skipLedgerEntry(b: Uint8Array, p: number): number {
  const keyStart = entryKeyStart(b, p);
  const type = u32(b, p + 4);
  return skipEntryTail(b, type, keyStart, skipKeyArm(b, keyStart, type));
}

/**
 * Zero-copy reader over one validated LedgerEntry. The common header (type, lastModifiedLedgerSeq, sponsor) is
 * always available; type-specific accessors throw INVALID_ARGUMENT on other types.
 */
export class LedgerEntryView {
  /** The exact XDR bytes of this entry (a subarray of the caller's buffer). */
  readonly xdr: Uint8Array;
  /** LedgerEntryType number of the data arm. */
  readonly type: LedgerEntryType;
  readonly #keyStart: number;
  readonly #keyEnd: number;
  readonly #dataEnd: number;

  /** Internal: built by readLedgerEntry from a validated layout. */
  constructor(xdr: Uint8Array, layout: EntryLayout) {
    this.xdr = xdr;
    this.type = layout.type;
    this.#keyStart = layout.keyStart;
    this.#keyEnd = layout.keyEnd;
    this.#dataEnd = layout.dataEnd;
  }

  /** Same as `xdr`. */
  get bytes(): Uint8Array {
    return this.xdr;
  }

  get byteLength(): number {
    return this.xdr.length;
  }

  /** XDR enum name of the data arm, e.g. `CONTRACT_DATA`. */
  get typeName(): string {
    return LEDGER_ENTRY_TYPE_NAMES[this.type]!;
  }

  get lastModifiedLedgerSeq(): number {
    return u32(this.xdr, 0);
  }

  /** The `data` union (LedgerEntryType discriminant + arm) as a subarray. */
  get dataBytes(): Uint8Array {
    return this.xdr.subarray(4, this.#dataEnd);
  }

  /** LedgerEntry.ext version: 0, or 1 when a LedgerEntryExtensionV1 (sponsorship) is present. */
  get extVersion(): 0 | 1 {
    return u32(this.xdr, this.#dataEnd) as 0 | 1;
  }

  /** The sponsoring account's 32-byte ed25519 key (ext v1 with a sponsor), else undefined. */
  get sponsoringId(): Uint8Array | undefined {
    const p = this.#dataEnd;
    if (u32(this.xdr, p) === 0 || u32(this.xdr, p + 4) === 0) return undefined;
    return this.xdr.subarray(p + 12, p + 44);
  }

  /** The canonical XDR LedgerKey of this entry (a new array: the fields are not contiguous with the type). */
  key(): Uint8Array {
    const out = new Uint8Array(4 + this.#keyEnd - this.#keyStart);
    out.set(this.xdr.subarray(4, 8), 0);
    out.set(this.xdr.subarray(this.#keyStart, this.#keyEnd), 4);
    return out;
  }

  /** A LedgerKeyView over key(). */
  keyView(): LedgerKeyView {
    return new LedgerKeyView(this.key());
  }

  /** TTL: the ledger up to which the entry it covers is live. */
  get liveUntilLedgerSeq(): number {
    this.expect(LEDGER_ENTRY_TYPE.TTL, 'liveUntilLedgerSeq');
    return u32(this.xdr, this.#keyEnd);
  }

  /** CONTRACT_DATA: the stored value. */
  val(): ScValView {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_DATA, 'val');
    return new ScValView(this.xdr.subarray(this.#keyEnd, this.#dataEnd));
  }

  /** CONTRACT_CODE: the wasm bytes (subarray). */
  code(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.CONTRACT_CODE, 'code');
    return this.xdr.subarray(this.#keyEnd + 4, this.#keyEnd + 4 + u32(this.xdr, this.#keyEnd));
  }

  /** CONFIG_SETTING: the ConfigSettingEntry arm after its ConfigSettingID (subarray, validated, not decoded). */
  configSettingBody(): Uint8Array {
    this.expect(LEDGER_ENTRY_TYPE.CONFIG_SETTING, 'configSettingBody');
    return this.xdr.subarray(this.#keyEnd, this.#dataEnd);
  }

  private expect(type: number, accessor: string): void {
    if (this.type !== type) {
      invalidArgument(`LedgerEntry.${accessor}`, `not available on a ${this.typeName} entry`);
    }
  }
}

/**
 * Validates one LedgerEntry at `offset` and writes its layout into `out` without allocating anything: out[0] its
 * LedgerEntryType, out[1] and out[2] the start and end of its key fields (the fields a LedgerKey of the entry holds
 * after its type: contiguous in the data arm, after the ext of CONTRACT_DATA / CONTRACT_CODE), out[3] the end of the
 * entry, and, when `out` has a fifth element, out[4] the end of the data arm (where LedgerEntry.ext starts); all
 * offsets in `bytes`. For readers that walk many entries in place (ledger-meta's change fold). `offset` must be an
 * index into `bytes` and `out` an Int32Array of at least 4 (INVALID_ARGUMENT otherwise).
 */
export function ledgerEntryLayout(bytes: Uint8Array, offset: number, out: Int32Array): void {
  checkBytes(bytes, 'bytes');
  checkOffset(bytes, offset, 'offset');
  if (!(out instanceof Int32Array) || out.length < 4) {
    invalidArgument('out', `expected an Int32Array of at least 4 elements, got ${describeValue(out)}`);
  }
  const keyStart = entryKeyStart(bytes, offset);
  const type = u32(bytes, offset + 4);
  const keyEnd = skipKeyArm(bytes, keyStart, type);
  const dataEnd = skipEntryAfterKey(bytes, type, keyStart, keyEnd);
  out[0] = type;
  out[1] = keyStart;
  out[2] = keyEnd;
  out[3] = skipLedgerEntryExt(bytes, dataEnd);
  if (out.length > 4) out[4] = dataEnd;
}

/**
 * Reads and validates a LedgerEntry (every field of every arm, ext chains, nesting limits). Without `offset` the
 * entry must fill `bytes` (else TRAILING_BYTES); with `offset` it is read from inside a larger buffer.
 */
export function readLedgerEntry(bytes: Uint8Array, offset?: number): LedgerEntryView {
  const start = startOffset(bytes, offset);
  // Scan in the caller's array so error offsets are the caller's offsets; the view keeps offsets relative to itself.
  const { type, keyStart, keyEnd, dataEnd, end } = scanLedgerEntry(bytes, start);
  if (offset === undefined) expectEnd(bytes, end, 'LedgerEntry');
  return new LedgerEntryView(bytes.subarray(start, end), {
    type,
    keyStart: keyStart - start,
    keyEnd: keyEnd - start,
    dataEnd: dataEnd - start,
    end: end - start,
  });
}

/** Validates that `bytes` hold exactly one LedgerEntry. */
export function validateLedgerEntry(bytes: Uint8Array): void {
  startOffset(bytes, undefined);
  expectEnd(bytes, skipLedgerEntry(bytes, 0), 'LedgerEntry');
}

/** The canonical XDR LedgerKey of an XDR LedgerEntry (validates the whole entry; returns a new array). */
export function ledgerKeyOfEntry(entry: Uint8Array): Uint8Array {
  startOffset(entry, undefined);
  const layout = scanLedgerEntry(entry, 0);
  expectEnd(entry, layout.end, 'LedgerEntry');
  const out = new Uint8Array(4 + layout.keyEnd - layout.keyStart);
  out.set(entry.subarray(4, 8), 0);
  out.set(entry.subarray(layout.keyStart, layout.keyEnd), 4);
  return out;
}
