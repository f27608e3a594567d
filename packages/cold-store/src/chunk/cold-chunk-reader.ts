// The ChunkReader of a frozen chunk (spec §3.5.5): events.pack for payloads, index.hash and index.pack for term
// lookups. A lookup blinds the term key with the chunk's secret, asks the MPHF for its slot, compares the slot's
// fingerprint, and answers with a frozen roaring view straight over index.pack's mapped bytes: no copy, no parse
// beyond a structural walk of the item's headers, and no bitmap at all for an absent term.
import { endianness } from 'node:os';
import { assert } from '@strata/base';
import {
  type ChunkReader,
  EventsError,
  EventsErrorCode,
  type FetchedEvent,
  type LedgerOffsets,
  MAX_CHUNK_ID,
  type OrdinalWindow,
  type ReadonlyBitmap,
  TERM_KEY_BYTES,
  type TermKey,
} from '@strata/events';
import roaring from 'roaring';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import { PackfileReader } from '../packfile/index.js';
import type { Storage, StorageFile } from '../storage/index.js';
import { decodeEventsAppData, decodeIndexAppData } from './app-data.js';
import { type IndexHash, openIndexHash } from './index-hash.js';
import { INDEX_ITEM_CODEC_AT, INDEX_ITEM_HEADER_BYTES, ITEM_CODEC_ROARING, listBitmapOf } from './index-item.js';
import {
  type ChunkFileNames,
  chunkFileNames,
  corrupt,
  EVENTS_PACK_FORMAT_ID,
  INDEX_PACK_FORMAT_ID,
  readU32,
  sameBytes,
} from './layout.js';
import { checkPortableStructure } from './portable-roaring.js';
import { SipHash128 } from './siphash.js';
import { ViewCache, type ViewCacheStats } from './view-cache.js';

const { RoaringBitmap32 } = roaring;

// Frozen views read container words in the machine's byte order; the portable format is little-endian.
assert(endianness() === 'LE', 'cold-store reads little-endian roaring bitmaps in place');

/** Most ordinals one fetchEvents call and most events one fetchRange window may hold (as the hot tier). */
export const MAX_FETCH_EVENTS = 65_536;
/** Most keys one lookupTerms call may ask for (as the hot tier). */
export const MAX_LOOKUP_TERMS = 65_536;
/** Default batches in flight per fetch (spec §4.8: 8 workers remove 79 % of the one-worker p99). */
export const DEFAULT_FETCH_CONCURRENCY = 8;
/**
 * Test-only fault switch (a negative control); never set outside tests. `skipCachedFingerprint` answers a key routed
 * to a slot with a cached view from that view without comparing the key's fingerprint.
 */
export const __lookupFaults: { skipCachedFingerprint: boolean } = { skipCachedFingerprint: false };

/** Default bound of a reader's cache of frozen views (ColdReadOptions.viewCacheBytes). */
export const DEFAULT_VIEW_CACHE_BYTES = 1024 * 1024;
/**
 * What a cached bitmap is counted as: the JS wrapper and CRoaring's frozen-view block (its header, then per container
 * a pointer, key, type code and container struct: 27 bytes, rounded up), plus the item's bytes when they are a copy
 * (a storage that cannot map) rather than mapped pages; a delta-list term's own bitmap also 2 bytes per ordinal.
 */
const VIEW_FIXED_BYTES = 256;
const VIEW_CONTAINER_BYTES = 32;

/** How a cold reader reads its packs. */
export interface ColdReadOptions {
  /** Batches of adjacent records in flight per fetchEvents/fetchRange call, 1..64 (default 8). */
  readonly concurrency?: number;
  /** Most stored bytes one batch reads at once, 1..2^30 (default 1 MiB). */
  readonly maxBatchBytes?: number;
  /**
   * Bound of the reader's least-recently-used cache of term bitmaps (frozen views, and the bitmaps of delta-list
   * terms), so a term looked up again costs no new bitmap: bytes as estimated per bitmap (256, plus 32 per roaring
   * container, plus the item's bytes where the storage cannot map; a delta list 256 + 34 per ordinal), 0..2^30,
   * default DEFAULT_VIEW_CACHE_BYTES (1 MiB: a few thousand small terms); 0 turns it off. Per reader.
   */
  readonly viewCacheBytes?: number;
}

/** Where a frozen chunk's files are. */
export interface ColdChunkLocation {
  readonly chunkId: number;
  /** Holds events.pack (and the manifest). */
  readonly storage: Storage;
  /** Holds index.pack and index.hash (default: `storage`); e.g. a local NVMe directory beside packs on slower disk. */
  readonly indexStorage?: Storage;
}

export interface OpenColdChunkOptions extends ColdChunkLocation {
  readonly read?: ColdReadOptions;
}

/** What a ColdChunkReader was opened from: what a manifest records and a freeze verifies. */
export interface ColdChunkIdentity {
  readonly buildId: Uint8Array;
  readonly eventCount: number;
  readonly termCount: number;
  readonly eventsPackBytes: number;
  readonly indexPackBytes: number;
  readonly indexHashBytes: number;
  readonly eventsContentHash: Uint8Array | undefined;
  readonly indexContentHash: Uint8Array | undefined;
  readonly indexHashCrc: number;
}

/** One term as the index holds it. */
type TermProbe =
  | { readonly kind: 'absent' }
  | { readonly kind: 'fingerprint-mismatch'; readonly slot: number }
  | { readonly kind: 'present'; readonly slot: number; readonly bitmap: ReadonlyBitmap };

/** A cached view and the fingerprint of its slot's term: a key routed to the slot with another one is absent. */
interface CachedView {
  readonly fingerprint: number;
  readonly bitmap: ReadonlyBitmap;
}

/** Containers of an index.pack item's bitmap, from its portable header (the structure check accepted it). */
function containerCount(item: Uint8Array): number {
  const cookie = readU32(item, INDEX_ITEM_HEADER_BYTES);
  // The run-capable cookie 12347 holds n - 1 in its high half; the other (12346) is followed by n as a u32.
  return (cookie & 0xffff) === 12347 ? (cookie >>> 16) + 1 : readU32(item, INDEX_ITEM_HEADER_BYTES + 4);
}

function badArgument(field: string, detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field });
}

function checkWindow(window: OrdinalWindow, eventCount: number): void {
  if (typeof window !== 'object' || window === null) badArgument('window', 'expected { start, end }');
  const { start, end } = window;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start) {
    badArgument('window', `bad window [${start}, ${end})`);
  }
  if (end > eventCount) badArgument('window', `window end ${end} beyond event count ${eventCount}`);
}

/** A Storage by shape (any backend), or INVALID_ARGUMENT naming `field`. */
export function checkStorage(value: unknown, field: string): asserts value is Storage {
  const s = value as Storage | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.open !== 'function' ||
    typeof s.createWriter !== 'function' ||
    typeof s.exists !== 'function' ||
    typeof s.remove !== 'function'
  ) {
    invalidArgument(field, 'expected a Storage');
  }
}

/** Checks a location's shape: chunk id, storage, index storage (INVALID_ARGUMENT). */
export function checkLocation(location: ColdChunkLocation): void {
  if (typeof location !== 'object' || location === null) invalidArgument('options', 'expected an options object');
  checkInteger(location.chunkId, 0, MAX_CHUNK_ID, 'chunkId');
  checkStorage(location.storage, 'storage');
  if (location.indexStorage !== undefined) checkStorage(location.indexStorage, 'indexStorage');
}

function checkReadOptions(read: ColdReadOptions | undefined): ColdReadOptions {
  if (read === undefined) return {};
  if (typeof read !== 'object' || read === null) invalidArgument('read', 'expected an options object');
  if (read.concurrency !== undefined) checkInteger(read.concurrency, 1, 64, 'concurrency');
  if (read.maxBatchBytes !== undefined) checkInteger(read.maxBatchBytes, 1, 2 ** 30, 'maxBatchBytes');
  if (read.viewCacheBytes !== undefined) checkInteger(read.viewCacheBytes, 0, 2 ** 30, 'viewCacheBytes');
  return read;
}

/** Opens `name` in `storage`, closing what was opened so far when it fails. */
async function openAll(opens: (() => Promise<StorageFile>)[]): Promise<StorageFile[]> {
  const files: StorageFile[] = [];
  try {
    for (const open of opens) files.push(await open());
    return files;
  } catch (error) {
    await Promise.allSettled(files.map((f) => f.close()));
    throw error;
  }
}

/**
 * A ChunkReader over one frozen chunk (see @strata/events ChunkReader for the general contract).
 *
 * - Fixed: eventCount() and ledgerOffsets() never change; every call is answered from immutable files.
 * - lookupTerms answers whole-term bitmaps (exact everywhere, so exact inside the window), frozen read-only views
 *   over index.pack's mapping; a term with no ordinal inside the window is undefined. Views keep the mapping alive:
 *   they stay valid after close() too (the pages are unmapped when the last view is collected).
 * - fetchEvents/fetchRange go through events.pack's reader: batches of adjacent records, `concurrency` in flight,
 *   each record's CRC32C checked before use; payloads are copies the caller owns.
 * - A damaged file is reported, never answered: ColdStoreError (CHECKSUM_MISMATCH, CORRUPT, TRUNCATED, ...) from
 *   open or from the read that meets the damage. Bad arguments reject with EventsError INVALID_ARGUMENT.
 * Call from the thread that opened it; any number of calls may be in flight; close() waits for them.
 */
export class ColdChunkReader implements ChunkReader {
  readonly chunkId: number;
  /** What the files are (build id, counts, sizes, hashes): what a manifest must match. */
  readonly identity: ColdChunkIdentity;
  private readonly offsets: LedgerOffsets;
  private readonly blinder: SipHash128;
  private readonly routed = new Uint8Array(16);
  /** Bit s set: slot s's bitmap passed its structure check (its record's CRC pins the bytes from then on). */
  private readonly checkedSlots: Uint8Array;
  private readonly views: ViewCache<CachedView>;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(
    chunkId: number,
    private readonly names: ChunkFileNames,
    private readonly events: PackfileReader,
    private readonly index: PackfileReader,
    private readonly hash: IndexHash,
    private readonly hashFile: StorageFile,
    offsets: LedgerOffsets,
    identity: ColdChunkIdentity,
    viewCacheBytes: number,
  ) {
    this.chunkId = chunkId;
    this.offsets = offsets;
    this.identity = identity;
    this.blinder = new SipHash128(hash.secret);
    this.checkedSlots = new Uint8Array(Math.ceil(hash.termCount / 8));
    this.views = new ViewCache(viewCacheBytes);
  }

  /**
   * Opens a frozen chunk's three files and checks them against each other: each pack's trailer and indexes (the
   * packfile reader), index.hash's header and MPHF, the same build id in all three, MPHF keys = index.pack items,
   * an empty index exactly when events.pack holds no event, LedgerOffsets inside the chunk and summing to the
   * events. Does not read the manifest (openChunk does). Errors: NOT_FOUND, IO, and every format error code.
   */
  static async open(options: OpenColdChunkOptions): Promise<ColdChunkReader> {
    checkLocation(options);
    const { chunkId, storage } = options;
    const indexStorage = options.indexStorage ?? storage;
    const read = checkReadOptions(options.read);
    const names = chunkFileNames(chunkId);
    const [eventsFile, indexFile, hashFile] = (await openAll([
      () => storage.open(names.eventsPack),
      () => indexStorage.open(names.indexPack),
      () => indexStorage.open(names.indexHash),
    ])) as [StorageFile, StorageFile, StorageFile];
    const owned = new Set<{ close(): Promise<void> }>([eventsFile, indexFile, hashFile]);
    try {
      const events = await PackfileReader.open(eventsFile, EVENTS_PACK_FORMAT_ID, read);
      owned.delete(eventsFile);
      owned.add(events);
      const { buildId, offsets } = decodeEventsAppData(events.appData, eventsFile.name, chunkId, events.itemCount);
      const index = await PackfileReader.open(indexFile, INDEX_PACK_FORMAT_ID, read);
      owned.delete(indexFile);
      owned.add(index);
      const hash = await openIndexHash(hashFile, chunkId);
      const indexMeta = decodeIndexAppData(index.appData, indexFile.name);
      if (!sameBytes(buildId, indexMeta.buildId) || !sameBytes(buildId, hash.buildId)) {
        corrupt(indexFile.name, 'events.pack, index.pack and index.hash come from different freezes', 'build id');
      }
      if (hash.termCount !== index.itemCount) {
        corrupt(indexFile.name, `${index.itemCount} items for an MPHF of ${hash.termCount} terms`, 'item count');
      }
      if ((hash.termCount === 0) !== (events.itemCount === 0)) {
        corrupt(
          indexFile.name,
          `${hash.termCount} terms for ${events.itemCount} events (an index is empty exactly when the chunk is)`,
          'item count',
        );
      }
      const identity: ColdChunkIdentity = {
        buildId,
        eventCount: events.itemCount,
        termCount: hash.termCount,
        eventsPackBytes: eventsFile.size,
        indexPackBytes: indexFile.size,
        indexHashBytes: hashFile.size,
        eventsContentHash: events.contentHash,
        indexContentHash: index.contentHash,
        indexHashCrc: hash.headerCrc,
      };
      const viewCacheBytes = read.viewCacheBytes ?? DEFAULT_VIEW_CACHE_BYTES;
      return new ColdChunkReader(chunkId, names, events, index, hash, hashFile, offsets, identity, viewCacheBytes);
    } catch (error) {
      await Promise.allSettled([...owned].map((o) => o.close()));
      throw error;
    }
  }

  eventCount(): number {
    this.checkOpen();
    return this.events.itemCount;
  }

  ledgerOffsets(): LedgerOffsets {
    this.checkOpen();
    return this.offsets;
  }

  lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    return this.track(async () => {
      if (!Array.isArray(keys)) badArgument('keys', 'expected an array of term keys');
      if (keys.length > MAX_LOOKUP_TERMS) badArgument('keys', `${keys.length} keys, at most ${MAX_LOOKUP_TERMS}`);
      checkWindow(window, this.events.itemCount);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (!(key instanceof Uint8Array) || key.length !== TERM_KEY_BYTES) {
          badArgument(`keys[${i}]`, `expected a ${TERM_KEY_BYTES}-byte term key`);
        }
      }
      const out = new Array<ReadonlyBitmap | undefined>(keys.length).fill(undefined);
      if (this.hash.termCount === 0 || window.start === window.end) return out;
      const probes = await this.probe(keys);
      // A window over the whole chunk holds every term's ordinals (no term is empty: the structure check and the
      // list decoder refuse empty ones), so it needs no count.
      const whole = window.start === 0 && window.end === this.events.itemCount;
      for (let i = 0; i < keys.length; i++) {
        const probe = probes[i]!;
        if (probe.kind !== 'present') continue;
        // Whole-term views are exact everywhere; a term with nothing inside the window is absent there.
        if (whole || probe.bitmap.rangeCardinality(window.start, window.end) > 0) out[i] = probe.bitmap;
      }
      return out;
    });
  }

  /**
   * Each key's slot, fingerprint comparison and (when it matches) frozen view, without a window: what lookupTerms
   * answers from. Keys were checked by the caller.
   */
  private async probe(keys: readonly TermKey[]): Promise<TermProbe[]> {
    this.checkOpen();
    const probes = new Array<TermProbe>(keys.length);
    if (this.hash.termCount === 0) return probes.fill({ kind: 'absent' });
    const slots = new Array<number>(keys.length);
    const fingerprints = new Array<number>(keys.length);
    const unmapped: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const routed = this.routed;
      this.blinder.hash(keys[i]!, 0, TERM_KEY_BYTES, routed, 0);
      const slot = this.hash.mphf.index(routed, 0, 16);
      const fingerprint = readU32(routed, 12);
      slots[i] = slot;
      fingerprints[i] = fingerprint;
      const cached = this.views.get(slot);
      if (cached !== undefined) {
        probes[i] =
          cached.fingerprint === fingerprint || __lookupFaults.skipCachedFingerprint
            ? { kind: 'present', slot, bitmap: cached.bitmap }
            : { kind: 'fingerprint-mismatch', slot };
        continue;
      }
      const item = this.index.itemView(slot);
      if (item === undefined) unmapped.push(i);
      else probes[i] = this.viewOf(item, slot, fingerprint, true);
    }
    if (unmapped.length > 0) {
      // A storage that cannot map: one batched read of the distinct slots, views over the read buffers.
      const distinct = [...new Set(unmapped.map((i) => slots[i]!))].sort((a, b) => a - b);
      const items = await this.index.readItems(distinct);
      const bySlot = new Map(distinct.map((slot, k) => [slot, items[k]!]));
      for (const i of unmapped) probes[i] = this.viewOf(bySlot.get(slots[i]!)!, slots[i]!, fingerprints[i]!, false);
    }
    return probes;
  }

  /**
   * @internal A freeze's verification: the slot `key` routes to through this chunk's index.hash, and the
   * fingerprint its item must carry.
   */
  route(key: TermKey): { slot: number; fingerprint: number } {
    this.checkOpen();
    assert(this.hash.termCount > 0, 'an empty index routes no key');
    this.blinder.hash(key, 0, TERM_KEY_BYTES, this.routed, 0);
    return { slot: this.hash.mphf.index(this.routed, 0, 16), fingerprint: readU32(this.routed, 12) };
  }

  /** @internal A freeze's verification: index.pack items [start, end), read in order (copies, records checked). */
  readIndexItems(start: number, end: number): Promise<Uint8Array[]> {
    return this.track(() => this.index.readRange(start, end));
  }

  /**
   * The bitmap of one index.pack item once its fingerprint matched, kept in the view cache: a frozen view of a
   * roaring body after its structure check, or the plain frozen bitmap of a delta list. `mapped`: the item is mapped
   * pages (else a copy a view keeps alive, counted against the cache).
   */
  private viewOf(item: Uint8Array, slot: number, fingerprint: number, mapped: boolean): TermProbe {
    if (item.length < INDEX_ITEM_HEADER_BYTES) {
      corrupt(this.names.indexPack, `item ${slot} of ${item.length} bytes`, 'item');
    }
    if (readU32(item, 0) !== fingerprint) return { kind: 'fingerprint-mismatch', slot };
    let bitmap: ReadonlyBitmap;
    let bytes: number;
    if (item[INDEX_ITEM_CODEC_AT] !== ITEM_CODEC_ROARING) {
      // A small term's delta list (index-item.ts), decoded into a bitmap of its own: at most LIST_MAX_ORDINALS
      // ordinals, so at most that many containers of 2 bytes per ordinal.
      bitmap = listBitmapOf(item, this.names.indexPack, slot);
      bytes = VIEW_FIXED_BYTES + (VIEW_CONTAINER_BYTES + 2) * bitmap.size;
    } else {
      // The walk is O(containers + runs): once per slot per reader (a dense term's runs are thousands).
      const bit = 1 << (slot & 7);
      if ((this.checkedSlots[slot >>> 3]! & bit) === 0) {
        const problem = checkPortableStructure(item, INDEX_ITEM_HEADER_BYTES, item.length);
        if (problem !== undefined) corrupt(this.names.indexPack, `item ${slot}: ${problem}`, 'bitmap');
        this.checkedSlots[slot >>> 3]! |= bit;
      }
      bitmap = RoaringBitmap32.unsafeFrozenView(item.subarray(INDEX_ITEM_HEADER_BYTES), 'unsafe_frozen_portable');
      bytes = VIEW_FIXED_BYTES + VIEW_CONTAINER_BYTES * containerCount(item) + (mapped ? 0 : item.length);
    }
    this.views.set(slot, { fingerprint, bitmap }, bytes);
    return { kind: 'present', slot, bitmap };
  }

  fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    return this.track(async () => {
      if (typeof ordinals !== 'object' || ordinals === null || !Number.isSafeInteger(ordinals.length)) {
        badArgument('ordinals', 'expected an array of ordinals');
      }
      if (ordinals.length > MAX_FETCH_EVENTS) {
        badArgument('ordinals', `${ordinals.length} ordinals, at most ${MAX_FETCH_EVENTS} per call`);
      }
      const count = this.events.itemCount;
      let previous = -1;
      for (let i = 0; i < ordinals.length; i++) {
        const o = ordinals[i]!;
        if (!Number.isInteger(o) || o < 0 || o >= count) badArgument('ordinals', `ordinal ${o} outside [0, ${count})`);
        if (o <= previous) badArgument('ordinals', 'ordinals must be strictly ascending');
        previous = o;
      }
      if (ordinals.length === 0) return [];
      return this.events.readItems(ordinals);
    });
  }

  fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    return this.track(async () => {
      checkWindow(window, this.events.itemCount);
      if (window.end - window.start > MAX_FETCH_EVENTS) {
        badArgument('window', `${window.end - window.start} events, at most ${MAX_FETCH_EVENTS} per call`);
      }
      if (window.end === window.start) return [];
      const payloads = await this.events.readRange(window.start, window.end);
      return payloads.map((payload, i) => ({ ordinal: window.start + i, payload }));
    });
  }

  /** Counters of the two packs' readers (buffers in use and dropped by the pool cap, batches, reads) and of the
   * view cache. */
  get stats(): { events: PackfileReader['stats']; index: PackfileReader['stats']; views: ViewCacheStats } {
    return { events: this.events.stats, index: this.index.stats, views: this.views.stats };
  }

  /**
   * Waits for the calls in flight, then closes the files. Mappings are not unmapped under live views: bitmaps from
   * lookupTerms keep theirs until they are collected. Idempotent.
   */
  close(): Promise<void> {
    if (this.closing === undefined) {
      this.closed = true;
      this.closing = (async () => {
        await Promise.allSettled([...this.inFlight]);
        this.views.clear(); // the views' mapping may go once the callers' views are gone
        await Promise.allSettled([this.events.close(), this.index.close(), this.hashFile.close()]);
      })();
    }
    return this.closing;
  }

  private checkOpen(): void {
    if (this.closed) {
      throw new ColdStoreError(ColdStoreErrorCode.CLOSED, 'the reader is closed', { file: this.names.eventsPack });
    }
  }

  /** Runs one read call, rejecting after close and letting close() wait for it. */
  private track<T>(body: () => Promise<T>): Promise<T> {
    let call: Promise<T>;
    try {
      this.checkOpen();
      call = body();
    } catch (error) {
      return Promise.reject(error);
    }
    this.inFlight.add(call);
    void call.then(
      () => this.inFlight.delete(call),
      () => this.inFlight.delete(call),
    );
    return call;
  }
}
