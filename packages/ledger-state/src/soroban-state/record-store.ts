// A set of records keyed by 32-byte hashes, held without an object per record: the records sit back to back in
// arena chunks (a few MiB each, append-only, reclaimed by evacuating the sparsest chunks), and an open-addressing
// index (linear probing, backward-shift deletion, an 8-bit tag per slot) maps each hash to its record's 32-bit
// address. The in-memory Soroban state keeps its CONTRACT_DATA entries, its CONTRACT_CODE entries and its waiting
// TTLs in three of these. Single-threaded, in memory only: nothing here survives the process.
import { randomBytes } from 'node:crypto';
import { assert } from '@strata/base';
import { LedgerStateError } from '../errors.js';

/**
 * A record, as 32-bit words in native byte order (the arena is read through a Uint32Array):
 *   0..7  the key hash (its 32 bytes as they are, compared word by word)
 *   8     liveUntilLedgerSeq of the entry's TTL
 *   9     lastModifiedLedgerSeq of the TTL
 *   10    the entry's XDR length (bits 0..29), FLAG_HAS_TTL, FLAG_DEAD
 *   11    an auxiliary word when the store has one (the rent size of a CONTRACT_CODE entry)
 * then the entry's XDR bytes, padded to a multiple of 8 bytes (addresses count 8-byte units).
 */
export const WORD_LIVE_UNTIL = 8;
export const WORD_TTL_LAST_MODIFIED = 9;
export const WORD_LENGTH = 10;
export const WORD_AUX = 11;
const HASH_WORDS = 8;
const LENGTH_MASK = (1 << 30) - 1;
export const FLAG_HAS_TTL = 1 << 30;
/** `>>> 0` keeps the flag an unsigned number, as words read from the Uint32Array are. */
const FLAG_DEAD = (1 << 31) >>> 0;

/** The largest entry a record holds (a bound on caller sizes; Soroban entries are limited to a few hundred KiB). */
export const MAX_RECORD_ENTRY_BYTES = 1 << 26;
/** The tag of an index slot holding no record; records' tags are 1..255 (see tagOf). */
const EMPTY = 0;
/** Grow the index past this load, shrink it below a quarter of it (linear probing stays short below ~0.7). */
const MAX_LOAD = 0.7;
const MIN_CAPACITY = 16;
/** Compact once dead bytes exceed this share of the arena, down to half of it. */
const COMPACT_AT = 1 / 8;

export const DEFAULT_CHUNK_BYTES = 1 << 22;
export const MIN_CHUNK_BYTES = 1 << 12;
export const MAX_CHUNK_BYTES = 1 << 26;

const align8 = (n: number): number => (n + 7) & ~7;
/** Whether words in memory are little-endian (the arena is read through native-order Uint32Arrays). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A word read in native order from memory holding 4 hash bytes, as those bytes read big-endian (how hashes sort). */
export function bigEndianWord(word: number): number {
  return LITTLE_ENDIAN
    ? (((word & 0xff) << 24) | ((word & 0xff00) << 8) | ((word >>> 8) & 0xff00) | (word >>> 24)) >>> 0
    : word;
}

/** What a record holds besides its hash and entry; callers keep one of these and fill it before each write. */
export interface RecordFields {
  hasTtl: boolean;
  liveUntil: number;
  ttlLastModified: number;
  /** The auxiliary word, for a store that has one. */
  aux: number;
}

/** BAD_ENTRY for an entry above MAX_RECORD_ENTRY_BYTES. */
function oversize(entryLength: number): never {
  throw new LedgerStateError('BAD_ENTRY', `an entry of ${entryLength} bytes (at most ${MAX_RECORD_ENTRY_BYTES})`, {
    field: 'LedgerEntry',
  });
}

/** The index tag of a hash from its third word (uniform bits: it is SHA-256 output): 1..255. */
const tagOf = (w2: number): number => (w2 % 255) + 1;

export class RecordStore {
  /** Number of live records. */
  count = 0;
  /** Bytes of every chunk the arena holds (live, dead and not yet used). */
  arenaBytes = 0;
  /** Bytes of dead records, and of chunk tails left unused when a record did not fit. */
  deadBytes = 0;

  private readonly headerBytes: number;
  private readonly unitBits: number;
  private readonly unitMask: number;
  private readonly maxChunks: number;
  /** Records larger than this get a chunk of their own, freed whole when the record dies. */
  private readonly largeRecordBytes: number;
  private readonly words: (Uint32Array | undefined)[] = [];
  private readonly bytes: (Uint8Array | undefined)[] = [];
  /** Per chunk: the end of its records, its dead bytes, and whether it holds one large record. */
  private readonly chunkEnd: number[] = [];
  private readonly chunkDead: number[] = [];
  private readonly chunkLarge: boolean[] = [];
  private readonly freeChunkIds: number[] = [];
  private appendChunk = -1;

  /** Per index slot: the record's address, and a tag of 8 hash bits (0: empty) that spares most arena reads. */
  private index: Uint32Array;
  private tags: Uint8Array;
  private mask: number;
  /** Seeds of the slot function: key hashes are chosen by whoever writes contract data, slots are not. */
  private readonly seed0: number;
  private readonly seed1: number;

  /** Records `append` wrote that the index does not hold yet (`indexAppended` adds them). */
  private unindexed = 0;

  /** The chunk words and word offset `locate` found. */
  w: Uint32Array = new Uint32Array(0);
  p = 0;
  /** Where `reserve` left the record's entry bytes: its chunk's bytes and the entry's offset in them. */
  entryChunk: Uint8Array = new Uint8Array(0);
  entryAt = 0;

  constructor(
    readonly auxWords: 0 | 1,
    private readonly chunkBytes: number = DEFAULT_CHUNK_BYTES,
  ) {
    assert(
      Number.isInteger(Math.log2(chunkBytes)) && chunkBytes >= MIN_CHUNK_BYTES && chunkBytes <= MAX_CHUNK_BYTES,
      'chunk size is a power of two in range',
    );
    this.headerBytes = 4 * (WORD_LENGTH + 1 + auxWords);
    this.unitBits = Math.log2(chunkBytes / 8);
    this.unitMask = (1 << this.unitBits) - 1;
    this.maxChunks = 2 ** (32 - this.unitBits);
    this.largeRecordBytes = chunkBytes / 4;
    this.index = new Uint32Array(MIN_CAPACITY);
    this.tags = new Uint8Array(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
    const seeds = randomBytes(8);
    this.seed0 = seeds.readInt32LE(0);
    this.seed1 = seeds.readInt32LE(4);
  }

  /** Bytes of the index. */
  get indexBytes(): number {
    return this.index.byteLength + this.tags.byteLength;
  }

  /** Points `w`/`p` at the record at `address`. */
  locate(address: number): void {
    // `!`: addresses come from the index, whose records' chunks are allocated
    this.w = this.words[address >>> this.unitBits]!;
    this.p = (address & this.unitMask) << 1;
  }

  /** The record's entry XDR as a view into the arena (valid until the store next changes). */
  entryView(address: number): Uint8Array {
    // `!`: as in locate
    const chunk = this.bytes[address >>> this.unitBits]!;
    const start = ((address & this.unitMask) << 3) + this.headerBytes;
    this.locate(address);
    // `!`: the header word exists
    return chunk.subarray(start, start + (this.w[this.p + WORD_LENGTH]! & LENGTH_MASK));
  }

  /** The record's key hash as a view into the arena. */
  hashView(address: number): Uint8Array {
    // `!`: as in locate
    const start = (address & this.unitMask) << 3;
    return this.bytes[address >>> this.unitBits]!.subarray(start, start + 32);
  }

  private slotOf(w0: number, w1: number): number {
    let h = Math.imul(w0 ^ this.seed0, 0x9e37_79b1);
    h ^= h >>> 16;
    h = Math.imul(h ^ w1 ^ this.seed1, 0x85eb_ca6b);
    h ^= h >>> 13;
    return h & this.mask;
  }

  private slotOfAddress(address: number): number {
    this.locate(address);
    // `!`: a record has its hash words
    return this.slotOf(this.w[this.p]!, this.w[this.p + 1]!);
  }

  /** The index slot of the record whose hash is `q` (8 words), or -1. */
  find(q: Uint32Array): number {
    assert(this.unindexed === 0, 'the index holds every record');
    const index = this.index;
    const tags = this.tags;
    const mask = this.mask;
    // `!` below: q has 8 words; slots are masked into the index; a record has its 8 hash words
    const q0 = q[0]!;
    const tag = tagOf(q[2]!);
    let slot = this.slotOf(q0, q[1]!);
    for (; ; slot = (slot + 1) & mask) {
      const slotTag = tags[slot]!;
      if (slotTag === EMPTY) return -1;
      if (slotTag !== tag) continue;
      const address = index[slot]!;
      const w = this.words[address >>> this.unitBits]!;
      const p = (address & this.unitMask) << 1;
      if (
        w[p] === q0 &&
        w[p + 1] === q[1] &&
        w[p + 2] === q[2] &&
        w[p + 3] === q[3] &&
        w[p + 4] === q[4] &&
        w[p + 5] === q[5] &&
        w[p + 6] === q[6] &&
        w[p + 7] === q[7]
      ) {
        return slot;
      }
    }
  }

  /** The address held at an index slot `find` returned. */
  addressAt(slot: number): number {
    // `!`: slot came from find
    return this.index[slot]!;
  }

  /**
   * Adds a record for hash `q`, which must be absent: the first `entryLength` bytes of `entry` (none for a TTL
   * waiting for its entry) and `fields`. Returns its address.
   */
  insert(q: Uint32Array, entry: Uint8Array | undefined, entryLength: number, fields: RecordFields): number {
    assert(this.unindexed === 0, 'records are inserted once every appended one is indexed');
    if ((this.count + 1) / this.index.length > MAX_LOAD) this.resize(this.index.length * 2);
    const address = this.write(q, 0, entry, entryLength, fields);
    // `!`: q has its words
    let slot = this.slotOf(q[0]!, q[1]!);
    while (this.tags[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.index[slot] = address;
    this.tags[slot] = tagOf(q[2]!);
    this.count++;
    return address;
  }

  /**
   * Writes a record for hash `q` like `insert`, but leaves it out of the index until `indexAppended`: a bulk load
   * (population) sizes the index once for all its records instead of growing it as they come and probing for each.
   * Until then the store may only take more appends. Returns the record's address.
   */
  append(q: Uint32Array, entry: Uint8Array, fields: RecordFields): number {
    const address = this.reserve(q, entry.length, fields);
    this.entryChunk.set(entry, this.entryAt);
    return address;
  }

  /**
   * `append` for an entry of `entryLength` bytes that the caller writes itself, at `entryChunk[entryAt, entryAt +
   * entryLength)`, before the store next changes (population writes the stored form straight into the arena).
   * Returns the record's address.
   */
  reserve(q: Uint32Array, entryLength: number, fields: RecordFields): number {
    if (entryLength > MAX_RECORD_ENTRY_BYTES) oversize(entryLength);
    const address = this.allocate(align8(this.headerBytes + entryLength));
    // write and fill in one (population appends a million of these): the chunk is looked up once
    const chunk = address >>> this.unitBits;
    const offset = (address & this.unitMask) << 3;
    // `!` below: the record's chunk is allocated; q has its 8 words
    const w = this.words[chunk]!;
    const p = offset >>> 2;
    for (let i = 0; i < HASH_WORDS; i++) w[p + i] = q[i]!;
    const { hasTtl } = fields;
    w[p + WORD_LIVE_UNTIL] = hasTtl ? fields.liveUntil : 0;
    w[p + WORD_TTL_LAST_MODIFIED] = hasTtl ? fields.ttlLastModified : 0;
    w[p + WORD_LENGTH] = entryLength | (hasTtl ? FLAG_HAS_TTL : 0);
    if (this.auxWords === 1) w[p + WORD_AUX] = fields.aux;
    this.entryChunk = this.bytes[chunk]!;
    this.entryAt = offset + this.headerBytes;
    this.count++;
    this.unindexed++;
    return address;
  }

  /** Sets the key hash of a record `append` wrote (before `indexAppended`) to the 8 words `q[at, at + 8)`. */
  setHash(address: number, q: Uint32Array, at: number): void {
    assert(this.unindexed > 0, 'only a record not indexed yet changes its hash');
    this.locate(address);
    // `!`: q has the 8 words
    for (let i = 0; i < HASH_WORDS; i++) this.w[this.p + i] = q[at + i]!;
  }

  /**
   * Indexes the records `append` wrote: the index is rebuilt once at the capacity the count needs. Returns -1, or the
   * address of a record whose hash another record has (the store then holds both: the caller fails).
   */
  indexAppended(): number {
    if (this.unindexed === 0) return -1;
    this.unindexed = 0;
    let capacity = this.index.length;
    while (this.count / capacity > MAX_LOAD) capacity *= 2;
    return this.resize(capacity, true);
  }

  /**
   * Reads the first hash word and the length word of the records at `addresses[0, count)`, and returns their sum
   * (which means nothing). Reads of records at random in a large arena each wait on memory; issued together, ahead
   * of the work on them, they overlap, and that work then finds the records in cache.
   */
  touch(addresses: Uint32Array, count: number): number {
    let sum = 0;
    for (let i = 0; i < count; i++) {
      // `!` below: as in locate
      const address = addresses[i]!;
      const w = this.words[address >>> this.unitBits]!;
      const p = (address & this.unitMask) << 1;
      sum = (sum + w[p]! + w[p + WORD_LENGTH]!) | 0;
    }
    return sum;
  }

  /**
   * Orders the key hash of the record at `address` against the 32 bytes `bytes[at, at + 32)`: negative, 0 or
   * positive as the record's hash sorts before, equals or sorts after them (bytewise, as TTL keys sort).
   */
  compareHash(address: number, bytes: Uint8Array, at: number): number {
    // `!` below: as in locate; the caller's 32 bytes are in range
    const w = this.words[address >>> this.unitBits]!;
    const p = (address & this.unitMask) << 1;
    for (let i = 0; i < HASH_WORDS; i++) {
      // the record's word holds 4 hash bytes in memory order: read big-endian, it compares as they do
      const mine = bigEndianWord(w[p + i]!);
      const q = at + 4 * i;
      const theirs = ((bytes[q]! << 24) | (bytes[q + 1]! << 16) | (bytes[q + 2]! << 8) | bytes[q + 3]!) >>> 0;
      if (mine !== theirs) return mine < theirs ? -1 : 1;
    }
    return 0;
  }

  /**
   * Replaces the record at index slot `slot` by a new one for the same hash (its words copied from the old record)
   * holding all of `entry` and `fields`. Rewrites in place when the record size stays the same.
   */
  replace(slot: number, entry: Uint8Array, fields: RecordFields): void {
    const entryLength = entry.length;
    const old = this.addressAt(slot);
    this.locate(old);
    // `!`: the header word exists
    const oldLength = this.w[this.p + WORD_LENGTH]! & LENGTH_MASK;
    if (align8(this.headerBytes + oldLength) === align8(this.headerBytes + entryLength)) {
      this.fill(old, entry, entryLength, fields);
      return;
    }
    const address = this.write(this.w, this.p, entry, entryLength, fields);
    this.index[slot] = address;
    this.free(old, oldLength);
  }

  /** Removes the record at index slot `slot` (backward-shift deletion: no tombstones in the index). */
  remove(slot: number): void {
    const address = this.addressAt(slot);
    this.locate(address);
    // `!`: the header word exists
    this.free(address, this.w[this.p + WORD_LENGTH]! & LENGTH_MASK);
    this.count--;
    const index = this.index;
    const tags = this.tags;
    const mask = this.mask;
    let hole = slot;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      // `!`: next is masked into the index
      if (tags[next] === EMPTY) break;
      const moving = index[next]!;
      const home = this.slotOfAddress(moving);
      // The record at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      index[hole] = moving;
      tags[hole] = tags[next]!;
      hole = next;
    }
    tags[hole] = EMPTY;
  }

  /** Sets the TTL of the record at `address` in place. */
  setTtl(address: number, liveUntil: number, ttlLastModified: number): void {
    this.locate(address);
    const w = this.w;
    const p = this.p;
    w[p + WORD_LIVE_UNTIL] = liveUntil;
    w[p + WORD_TTL_LAST_MODIFIED] = ttlLastModified;
    // `!`: the header word exists
    w[p + WORD_LENGTH] = w[p + WORD_LENGTH]! | FLAG_HAS_TTL;
  }

  /** Sets the auxiliary word of the record at `address` in place. */
  setAux(address: number, aux: number): void {
    assert(this.auxWords === 1, 'the store has an auxiliary word');
    this.locate(address);
    this.w[this.p + WORD_AUX] = aux;
  }

  /**
   * The address of every live record, chunk by chunk (an order that depends on the store's history). The store must
   * not change while the iteration runs (the caller guards that).
   */
  *addresses(): Generator<number, void, undefined> {
    for (let chunk = 0; chunk < this.words.length; chunk++) {
      const w = this.words[chunk];
      if (w === undefined) continue;
      // `!` below: chunk stats exist for every allocated chunk; header words exist for every record
      const end = this.chunkEnd[chunk]!;
      for (let offset = 0; offset < end; ) {
        const lengthWord = w[(offset >>> 2) + WORD_LENGTH]!;
        if ((lengthWord & FLAG_DEAD) === 0) yield ((chunk << this.unitBits) | (offset >>> 3)) >>> 0;
        offset += align8(this.headerBytes + (lengthWord & LENGTH_MASK));
      }
    }
  }

  /**
   * Gives memory back when dead bytes exceed an eighth of the arena: evacuates the chunks with the most dead bytes
   * (moving their live records to the append chunk and repointing the index), and shrinks an index that holds
   * less than a quarter of its limit. Addresses of moved records change.
   */
  compact(): void {
    if (this.count < this.index.length * MAX_LOAD * 0.25 && this.index.length > MIN_CAPACITY) {
      let capacity = this.index.length;
      while (capacity > MIN_CAPACITY && this.count < capacity * MAX_LOAD * 0.5) capacity /= 2;
      this.resize(capacity);
    }
    if (this.deadBytes <= this.arenaBytes * COMPACT_AT || this.deadBytes < this.chunkBytes) return;
    const candidates: number[] = [];
    for (let chunk = 0; chunk < this.words.length; chunk++) {
      if (this.words[chunk] !== undefined && chunk !== this.appendChunk && this.chunkLarge[chunk] !== true) {
        candidates.push(chunk);
      }
    }
    // `!`: candidates are allocated chunks
    candidates.sort((a, b) => this.chunkDead[b]! - this.chunkDead[a]!);
    for (const chunk of candidates) {
      if (this.deadBytes <= this.arenaBytes * COMPACT_AT * 0.5) break;
      // An id released by an earlier evacuation may have been reused for a new append chunk meanwhile.
      if (chunk === this.appendChunk || this.words[chunk] === undefined) continue;
      this.evacuate(chunk);
    }
  }

  /** Calls `visit` for each live record of an allocated chunk, in address order: its address, words and word offset. */
  private walkChunk(
    chunk: number,
    visit: (address: number, w: Uint32Array, p: number, recordBytes: number) => void,
  ): void {
    // `!` below: the chunk is allocated; records have header words
    const w = this.words[chunk]!;
    const end = this.chunkEnd[chunk]!;
    for (let offset = 0; offset < end; ) {
      const lengthWord = w[(offset >>> 2) + WORD_LENGTH]!;
      const recordBytes = align8(this.headerBytes + (lengthWord & LENGTH_MASK));
      if ((lengthWord & FLAG_DEAD) === 0) {
        visit(((chunk << this.unitBits) | (offset >>> 3)) >>> 0, w, offset >>> 2, recordBytes);
      }
      offset += recordBytes;
    }
  }

  private evacuate(chunk: number): void {
    this.walkChunk(chunk, (old, w, p, recordBytes) => {
      const moved = this.allocate(recordBytes);
      this.locate(moved);
      this.w.set(w.subarray(p, p + (recordBytes >>> 2)), this.p);
      let slot = this.slotOfAddress(old);
      while (this.tags[slot] === EMPTY || this.index[slot] !== old) slot = (slot + 1) & this.mask;
      this.index[slot] = moved;
    });
    this.releaseChunk(chunk);
  }

  /**
   * Rebuilds the index at `capacity` slots from the arena, read in address order (sequential memory, where walking
   * the old index would read each record's hash at random). With `checkDuplicates`, a record whose hash one already
   * placed has is reported by its address (it is placed all the same); otherwise the result is -1.
   */
  private resize(capacity: number, checkDuplicates = false): number {
    const index = new Uint32Array(capacity);
    const tags = new Uint8Array(capacity);
    this.index = index;
    this.tags = tags;
    this.mask = capacity - 1;
    const mask = this.mask;
    let duplicate = -1;
    for (let chunk = 0; chunk < this.words.length; chunk++) {
      if (this.words[chunk] === undefined) continue;
      this.walkChunk(chunk, (address, w, p) => {
        // `!` below: a record has its hash words; slots are masked into the index
        const tag = tagOf(w[p + 2]!);
        let slot = this.slotOf(w[p]!, w[p + 1]!);
        while (tags[slot] !== EMPTY) {
          if (checkDuplicates && tags[slot] === tag && duplicate < 0 && this.sameHash(index[slot]!, w, p)) {
            duplicate = address;
          }
          slot = (slot + 1) & mask;
        }
        index[slot] = address;
        tags[slot] = tag;
      });
    }
    return duplicate;
  }

  /** Whether the record at `address` has the hash held at `w[p, p + 8)`. */
  private sameHash(address: number, w: Uint32Array, p: number): boolean {
    // `!` below: as in locate; both hold 8 hash words
    const other = this.words[address >>> this.unitBits]!;
    const q = (address & this.unitMask) << 1;
    for (let i = 0; i < HASH_WORDS; i++) if (other[q + i] !== w[p + i]) return false;
    return true;
  }

  /** Allocates a record and writes it; its hash words come from `hash[at..at+8)`. */
  private write(
    hash: Uint32Array,
    at: number,
    entry: Uint8Array | undefined,
    entryLength: number,
    fields: RecordFields,
  ): number {
    if (entryLength > MAX_RECORD_ENTRY_BYTES) oversize(entryLength);
    const address = this.allocate(align8(this.headerBytes + entryLength));
    this.locate(address);
    // Copy the hash before anything else: `hash` may be the words of a record this write replaces.
    for (let i = 0; i < HASH_WORDS; i++) this.w[this.p + i] = hash[at + i]!;
    this.fill(address, entry, entryLength, fields);
    return address;
  }

  /** Writes everything but the hash into the record at `address`. */
  private fill(address: number, entry: Uint8Array | undefined, entryLength: number, fields: RecordFields): void {
    this.locate(address);
    const w = this.w;
    const p = this.p;
    const { hasTtl } = fields;
    w[p + WORD_LIVE_UNTIL] = hasTtl ? fields.liveUntil : 0;
    w[p + WORD_TTL_LAST_MODIFIED] = hasTtl ? fields.ttlLastModified : 0;
    w[p + WORD_LENGTH] = entryLength | (hasTtl ? FLAG_HAS_TTL : 0);
    if (this.auxWords === 1) w[p + WORD_AUX] = fields.aux;
    if (entry !== undefined && entryLength > 0) {
      // `!`: the record's chunk is allocated
      const start = ((address & this.unitMask) << 3) + this.headerBytes;
      this.bytes[address >>> this.unitBits]!.set(
        entryLength === entry.length ? entry : entry.subarray(0, entryLength),
        start,
      );
    }
  }

  private allocate(recordBytes: number): number {
    if (recordBytes > this.largeRecordBytes) {
      const chunk = this.newChunk(recordBytes, true);
      this.chunkEnd[chunk] = recordBytes;
      return (chunk << this.unitBits) >>> 0;
    }
    // `!` below: the append chunk, when there is one, is allocated
    if (this.appendChunk < 0 || this.chunkEnd[this.appendChunk]! + recordBytes > this.chunkBytes) {
      if (this.appendChunk >= 0) {
        // The tail the record does not fit into stays unused: count it as dead so compaction reclaims it.
        const tail = this.chunkBytes - this.chunkEnd[this.appendChunk]!;
        this.chunkDead[this.appendChunk] = this.chunkDead[this.appendChunk]! + tail;
        this.deadBytes += tail;
      }
      this.appendChunk = this.newChunk(this.chunkBytes, false);
    }
    const offset = this.chunkEnd[this.appendChunk]!;
    this.chunkEnd[this.appendChunk] = offset + recordBytes;
    return ((this.appendChunk << this.unitBits) | (offset >>> 3)) >>> 0;
  }

  private newChunk(byteLength: number, large: boolean): number {
    const chunk = this.freeChunkIds.pop() ?? this.words.length;
    if (chunk >= this.maxChunks) {
      throw new LedgerStateError('CAPACITY_EXCEEDED', `the arena is full (${this.maxChunks} chunks)`, {
        field: 'arena',
      });
    }
    const buffer = new ArrayBuffer(byteLength);
    this.words[chunk] = new Uint32Array(buffer);
    this.bytes[chunk] = new Uint8Array(buffer);
    this.chunkEnd[chunk] = 0;
    this.chunkDead[chunk] = 0;
    this.chunkLarge[chunk] = large;
    this.arenaBytes += byteLength;
    return chunk;
  }

  private releaseChunk(chunk: number): void {
    // `!`: the chunk is allocated
    const byteLength = this.bytes[chunk]!.byteLength;
    this.arenaBytes -= byteLength;
    this.deadBytes -= this.chunkDead[chunk]!;
    this.words[chunk] = undefined;
    this.bytes[chunk] = undefined;
    this.freeChunkIds.push(chunk);
    if (chunk === this.appendChunk) this.appendChunk = -1;
  }

  private free(address: number, entryLength: number): void {
    const chunk = address >>> this.unitBits;
    this.locate(address);
    // `!`: the header word exists; chunk stats exist for allocated chunks
    this.w[this.p + WORD_LENGTH] = (this.w[this.p + WORD_LENGTH]! | FLAG_DEAD) >>> 0;
    const recordBytes = align8(this.headerBytes + entryLength);
    if (this.chunkLarge[chunk] === true) {
      this.releaseChunk(chunk);
      return;
    }
    this.chunkDead[chunk] = this.chunkDead[chunk]! + recordBytes;
    this.deadBytes += recordBytes;
    // A sealed chunk whose every record is dead goes at once, without waiting for a compaction.
    if (chunk !== this.appendChunk && this.chunkDead[chunk] === this.chunkBytes) this.releaseChunk(chunk);
  }
}
