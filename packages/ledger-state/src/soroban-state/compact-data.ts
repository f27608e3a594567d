// The stored form of CONTRACT_DATA entries. Almost every one (all of the captures' and of the mainnet sample's) is
// owned by a contract and has no LedgerEntry extension, and a few contracts own most of them (a token's balances),
// so the record keeps, instead of the XDR's 48 constant or repeated bytes (the data type, ContractDataEntry.ext,
// the ScAddress type, the 32-byte contract id, LedgerEntry.ext v0), a 4-byte reference into a table of the contract
// ids it holds (counted, freed when no record refers to them):
//
//   stored compact:  lastModifiedLedgerSeq | 0x80000000 + ref (big-endian) | key ScVal, durability, val
//   stored as is:    the entry's XDR (its second word is the type, CONTRACT_DATA = 6: the high bit is clear)
//
// so a compact record is 44 bytes shorter than its entry, and anything else (an account-owned entry, an entry with
// a v1 extension) is stored unchanged. Entries leave the state rebuilt byte for byte.
import { randomBytes } from 'node:crypto';
import { assert } from '@strata/base';
import { LEDGER_ENTRY_TYPE, SC_ADDRESS_TYPE } from '@strata/ledger-key';

/** Bytes a compact record saves against its entry's XDR. */
export const COMPACT_SAVING = 44;
/** Where the constant part starts in the entry (after lastModifiedLedgerSeq) and where the kept part resumes. */
const CONSTANT_AT = 4;
const KEPT_AT = 48;
const COMPACT_FLAG = 0x8000_0000;
/** The most contract ids the table holds (refs are 31 bits; far above any state's distinct contracts). */
const MAX_REFS = 2 ** 31 - 1;
const MIN_SLOTS = 16;

const u32 = (bytes: Uint8Array, at: number): number =>
  // `!` below: callers read inside the array
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/** Whether a stored CONTRACT_DATA record (its first 8 bytes at least) is in the compact form. */
export const isCompact = (stored: Uint8Array): boolean => stored.length >= 8 && (stored[4]! & 0x80) !== 0;

/** The XDR length of the entry a stored record of `storedLength` bytes holds, given its form. */
export const entryLengthOf = (storedLength: number, compact: boolean): number =>
  compact ? storedLength + COMPACT_SAVING : storedLength;

/** The stored length of an entry of `entryLength` bytes, given its form. */
export const storedLengthOf = (entryLength: number, compact: boolean): number =>
  compact ? entryLength - COMPACT_SAVING : entryLength;

/**
 * The contract ids compact records refer to: each id once, with the number of records referring to it. An
 * open-addressing table (linear probing) over seeded slots of the id's first two words finds an id's ref; a freed ref
 * is reused. Ids are SHA-256 outputs chosen by whoever deploys a contract; the slot seeds are not, so no one can aim
 * ids at one slot.
 */
export class ContractIds {
  /** Ids in use (referred to by at least one record). */
  count = 0;
  #ids = new Uint8Array(32 * MIN_SLOTS);
  #words = new Uint32Array(this.#ids.buffer);
  #refCounts = new Uint32Array(MIN_SLOTS);
  /** Per slot: ref + 1, or 0 when empty. */
  #slots = new Int32Array(2 * MIN_SLOTS);
  #mask = 2 * MIN_SLOTS - 1;
  /** Refs handed out so far (the high-water mark) and the freed ones below it. */
  #used = 0;
  readonly #free: number[] = [];
  /** The ref `acquire` returned last (-1: none yet). */
  #last = -1;
  readonly #seed0: number;
  readonly #seed1: number;
  /** The id `acquire` looks for, as words in native order. */
  readonly #query = new Uint32Array(8);
  readonly #queryBytes = new Uint8Array(this.#query.buffer);

  constructor() {
    const seeds = randomBytes(8);
    this.#seed0 = seeds.readInt32LE(0);
    this.#seed1 = seeds.readInt32LE(4);
  }

  /** Bytes the table holds. */
  get bytes(): number {
    return this.#ids.byteLength + this.#refCounts.byteLength + this.#slots.byteLength + 4 * this.#free.length;
  }

  /** The id of `ref` as a view into the table (valid until the table next changes). */
  idView(ref: number): Uint8Array {
    return this.#ids.subarray(32 * ref, 32 * ref + 32);
  }

  /** Records referring to `ref` (0 for a ref not in use). */
  refCount(ref: number): number {
    return this.#refCounts[ref] ?? 0;
  }

  /** The ref of the id `bytes[at, at + 32)`, counting one more record that refers to it (added when new). */
  acquire(bytes: Uint8Array, at: number): number {
    // Entries come in key order at population, where a contract's entries are adjacent: the last id first.
    const last = this.#last;
    if (last >= 0 && this.#refCounts[last]! > 0) {
      const ids = this.#ids;
      const base = 32 * last;
      let i = 0;
      // `!`: both ranges hold 32 bytes
      while (i < 32 && ids[base + i] === bytes[at + i]) i++;
      if (i === 32) {
        this.#refCounts[last]!++;
        return last;
      }
    }
    const query = this.#query;
    const queryBytes = this.#queryBytes;
    // `!`: the caller's 32 bytes are in range
    for (let i = 0; i < 32; i++) queryBytes[i] = bytes[at + i]!;
    const words = this.#words;
    let slot = this.#slotOf(query[0]!, query[1]!);
    for (; ; slot = (slot + 1) & this.#mask) {
      // `!` below: slots are masked into the table; refs in slots have their 8 words
      const held = this.#slots[slot]!;
      if (held === 0) break;
      const w = 8 * (held - 1);
      if (
        words[w] === query[0] &&
        words[w + 1] === query[1] &&
        words[w + 2] === query[2] &&
        words[w + 3] === query[3] &&
        words[w + 4] === query[4] &&
        words[w + 5] === query[5] &&
        words[w + 6] === query[6] &&
        words[w + 7] === query[7]
      ) {
        this.#refCounts[held - 1]!++;
        this.#last = held - 1;
        return held - 1;
      }
    }
    const ref = this.#free.pop() ?? this.#newRef();
    this.#words.set(query, 8 * ref);
    this.#refCounts[ref] = 1;
    this.count++;
    if (this.count / this.#slots.length > 0.5) this.#rehash(2 * this.#slots.length);
    else this.#place(ref);
    this.#last = ref;
    return ref;
  }

  /** One record fewer refers to `ref`; the id leaves the table with the last one. */
  release(ref: number): void {
    const refs = this.#refCounts[ref];
    assert(refs !== undefined && refs > 0 && ref < this.#used, 'a released ref is in use');
    this.#refCounts[ref] = refs - 1;
    if (refs > 1) return;
    this.count--;
    this.#free.push(ref);
    this.#remove(ref);
    if (this.count < this.#slots.length / 8 && this.#slots.length > 2 * MIN_SLOTS) this.#rehash(this.#slots.length / 2);
  }

  #slotOf(w0: number, w1: number): number {
    let h = Math.imul(w0 ^ this.#seed0, 0x9e37_79b1);
    h ^= h >>> 16;
    h = Math.imul(h ^ w1 ^ this.#seed1, 0x85eb_ca6b);
    h ^= h >>> 13;
    return h & this.#mask;
  }

  #homeOf(ref: number): number {
    // `!`: a ref in use has its words
    return this.#slotOf(this.#words[8 * ref]!, this.#words[8 * ref + 1]!);
  }

  #newRef(): number {
    if (this.#used === MAX_REFS) throw new RangeError(`more than ${MAX_REFS} contract ids`);
    if (this.#used === this.#refCounts.length) {
      const ids = new Uint8Array(2 * this.#ids.length);
      ids.set(this.#ids);
      this.#ids = ids;
      this.#words = new Uint32Array(ids.buffer);
      const refCounts = new Uint32Array(2 * this.#refCounts.length);
      refCounts.set(this.#refCounts);
      this.#refCounts = refCounts;
    }
    return this.#used++;
  }

  #place(ref: number): void {
    let slot = this.#homeOf(ref);
    while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
    this.#slots[slot] = ref + 1;
  }

  /** Takes `ref` out of its slot (backward-shift deletion: no tombstones). */
  #remove(ref: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let hole = this.#homeOf(ref);
    while (slots[hole] !== ref + 1) hole = (hole + 1) & mask;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      // `!`: next is masked into the table
      const moving = slots[next]!;
      if (moving === 0) break;
      const home = this.#homeOf(moving - 1);
      // The ref at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      slots[hole] = moving;
      hole = next;
    }
    slots[hole] = 0;
  }

  #rehash(slotCount: number): void {
    this.#slots = new Int32Array(slotCount);
    this.#mask = slotCount - 1;
    for (let ref = 0; ref < this.#used; ref++) if (this.#refCounts[ref]! > 0) this.#place(ref);
  }
}

/**
 * Turns CONTRACT_DATA entries into their stored form and back, with the table of the contract ids it refers to.
 * `encode` counts a reference for a compact record it returns; the caller gives it back with `release` when that
 * record is replaced or removed.
 */
export class CompactData {
  readonly contracts = new ContractIds();
  #scratch = new Uint8Array(256);

  /** Whether a validated CONTRACT_DATA entry whose data arm ends at `dataEnd` is stored compact. */
  compactable(entry: Uint8Array, dataEnd: number): boolean {
    return (
      dataEnd === entry.length - 4 &&
      u32(entry, CONSTANT_AT) === LEDGER_ENTRY_TYPE.CONTRACT_DATA &&
      u32(entry, 8) === 0 &&
      u32(entry, 12) === SC_ADDRESS_TYPE.CONTRACT &&
      u32(entry, dataEnd) === 0
    );
  }

  /**
   * Writes the stored form of `entry` (`compact`: what `compactable` said of it; `storedLengthOf(entry.length,
   * compact)` bytes) at `out[at]`, counting a reference to its contract when compact.
   */
  writeStored(entry: Uint8Array, compact: boolean, out: Uint8Array, at: number): void {
    if (!compact) {
      out.set(entry, at);
      return;
    }
    const ref = this.contracts.acquire(entry, 16);
    // `!`: a validated entry has its lastModifiedLedgerSeq
    for (let i = 0; i < CONSTANT_AT; i++) out[at + i] = entry[i]!;
    const word = (COMPACT_FLAG | ref) >>> 0;
    out[at + 4] = word >>> 24;
    out[at + 5] = (word >>> 16) & 0xff;
    out[at + 6] = (word >>> 8) & 0xff;
    out[at + 7] = word & 0xff;
    out.set(new Uint8Array(entry.buffer, entry.byteOffset + KEPT_AT, entry.length - 4 - KEPT_AT), at + 8);
  }

  /**
   * The stored form of a validated CONTRACT_DATA entry whose data arm ends at `dataEnd`: compact into a scratch
   * buffer (valid until the next call), or the entry itself.
   */
  encode(entry: Uint8Array, dataEnd: number): Uint8Array {
    if (!this.compactable(entry, dataEnd)) return entry;
    const storedLength = entry.length - COMPACT_SAVING;
    if (this.#scratch.length < storedLength)
      this.#scratch = new Uint8Array(Math.max(storedLength, 2 * this.#scratch.length));
    this.writeStored(entry, true, this.#scratch, 0);
    return this.#scratch.subarray(0, storedLength);
  }

  /** Gives back the reference a stored record holds (nothing for one stored as is). */
  release(stored: Uint8Array): void {
    if (isCompact(stored)) this.contracts.release(u32(stored, 4) & ~COMPACT_FLAG);
  }

  /** The entry's XDR rebuilt from its stored form into `out` (at least its length: entryLengthOf); returns it. */
  decodeInto(stored: Uint8Array, out: Uint8Array): Uint8Array {
    if (!isCompact(stored)) {
      out.set(stored);
      return out.subarray(0, stored.length);
    }
    const length = stored.length + COMPACT_SAVING;
    const view = new DataView(out.buffer, out.byteOffset, length);
    // `!`: a compact record has its 8 bytes
    for (let i = 0; i < CONSTANT_AT; i++) out[i] = stored[i]!;
    view.setUint32(4, LEDGER_ENTRY_TYPE.CONTRACT_DATA);
    view.setUint32(8, 0);
    view.setUint32(12, SC_ADDRESS_TYPE.CONTRACT);
    out.set(this.contracts.idView(u32(stored, 4) & ~COMPACT_FLAG), 16);
    out.set(stored.subarray(8), KEPT_AT);
    view.setUint32(length - 4, 0);
    return out.subarray(0, length);
  }

  /** The entry's XDR rebuilt from its stored form, in a new array. */
  decode(stored: Uint8Array): Uint8Array {
    return this.decodeInto(stored, new Uint8Array(entryLengthOf(stored.length, isCompact(stored))));
  }
}
