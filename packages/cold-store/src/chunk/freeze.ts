// Freezing a chunk (spec §3.6): its cold files are built from the hot chunk's reader, read back and verified against
// it, and only then switched to, by a manifest written last (temp file, fsync, rename, directory fsync). What a
// crash leaves: no manifest — the hot chunk is what serves, and the next freeze removes whatever files it finds and
// builds again; a manifest — three complete files that were verified before it was written. A freeze of a chunk
// that has its manifest opens it instead of building (idempotent); one whose manifest names files that no longer
// open withdraws the manifest first, then rebuilds.
//
// Steps, and what each holds in memory (README "Freeze" states the bound):
// 1. events: a zstd dictionary sampled from the hot chunk's payloads (a few events at 256 spots spread over it);
//    fetchRange windows of the hot chunk → events.pack (zstd per record against that dictionary, which the pack
//    stores; LedgerOffsets in app data); each event's terms interned in a TermTable (a dense id per distinct key)
//    and appended to a PostingsLog (one u32 per posting, spilled to a scratch file past half the postings budget);
//    the writer's SHA-256 content hash of the payloads as the hot chunk gave them. Given the hot index's term lists
//    (FreezeOptions.termOrdinals), nothing is interned or logged: each derived posting only joins a PostingsDigest.
// 2. index.hash: every term key blinded with the chunk's secret (SipHash-2-4-128), an MPHF over the routed keys,
//    each term's slot and fingerprint.
// 3. index.pack: slots in ascending order, in partitions whose postings fit the other half of the budget: each
//    partition replays the log once (the first rewrites its term ids into slots when there are more), scattering
//    ordinals to its slots, then writes `fingerprint ‖ codec ‖ delta list or portable bitmap` per slot. Given the
//    term lists: one pass in slot order over them, their postings digested too; the two digests must be equal.
// 4. verify: the files reopened through ColdChunkReader; events.pack read back whole in large sequential reads
//    (every record's CRC checked, inflated) and hashed again (equal to the writer's hash of the hot payloads and to
//    the trailer's); index.hash reopened (every check of a reader) and holding the freeze's secret and, byte for
//    byte, the MPHF every term's slot was computed with; index.pack read back the same way in slot order, each
//    item's fingerprint checked against its term's routed key and its ordinals compared with the hot index's bitmap.
// 5. manifest.
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { assert, describeValue, isAtomicTempName } from '@strata/base';
import {
  type ChunkReader,
  deriveTermsInto,
  EventsError,
  type LedgerOffsets,
  MAX_TERMS_PER_EVENT,
  type ReadonlyBitmap,
  TERM_KEY_BYTES,
} from '@strata/events';
import { type BuildOptions, buildMphf, MphfError, openMphf } from '@strata/mphf';
import roaring from 'roaring';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import { MAX_DICTIONARY_BYTES, MAX_ITEMS_PER_RECORD } from '../packfile/format.js';
import { PackfileReader, PackfileWriter } from '../packfile/index.js';
import { flipStoredItemForTest } from '../packfile/writer.js';
import { LocalStorage, type Storage, type StorageWriter } from '../storage/index.js';
import { encodeEventsAppData, encodeIndexAppData } from './app-data.js';
import { ColdChunkReader, type ColdReadOptions, checkStorage } from './cold-chunk-reader.js';
import { encodeIndexHash, openIndexHash } from './index-hash.js';
import {
  decodeOrdinalList,
  INDEX_ITEM_CODEC_AT,
  INDEX_ITEM_HEADER_BYTES,
  IndexItemWriter,
  ITEM_CODEC_ROARING,
} from './index-item.js';
import {
  BUILD_ID_BYTES,
  type ChunkFileNames,
  chunkFileNames,
  copyOf,
  DEFAULT_EVENTS_PER_RECORD,
  EVENTS_MAX_RECORD_BYTES,
  EVENTS_PACK_FORMAT_ID,
  FINGERPRINT_BYTES,
  INDEX_HASH_HEADER_BYTES,
  INDEX_ITEMS_PER_RECORD,
  INDEX_PACK_FORMAT_ID,
  readU32,
  sameBytes,
  writeU32,
} from './layout.js';
import { encodeManifest } from './manifest.js';
import { openFrozenChunk } from './open-chunk.js';
import { PayloadHasher } from './payload-hash.js';
import { checkPortableStructure, decodePortable, portableCardinality } from './portable-roaring.js';
import { PostingsDigest } from './postings-digest.js';
import { EVENT_MARK, PostingsLog } from './postings-log.js';
import { SIPHASH_KEY_BYTES, SipHash128 } from './siphash.js';
import { TermTable } from './term-table.js';

/** Default budget of a freeze's postings (half for the log in memory, half for one partition of index.pack). */
export const DEFAULT_POSTINGS_MEMORY_BYTES = 128 * 1024 * 1024;
/** Smallest postings budget accepted. */
export const MIN_POSTINGS_MEMORY_BYTES = 64 * 1024;
/**
 * Default zstd level of events.pack records. Measured on pubnet-like records of 128 events compressed against their
 * chunk's 1 MiB dictionary: levels 3, 1 and -1 within 0.1 % of each other in size, -1 the fastest (52 µs a record
 * against 63 at level 1 and 39 without a dictionary); -2 was 3 % larger, -3 5 %.
 */
export const DEFAULT_EVENTS_COMPRESSION_LEVEL = -1;
/**
 * Events per fetchRange window a freeze reads from the hot chunk. Measured on a pubnet-like hot chunk (1 M events,
 * CPU per event of the reads alone): 4,096 ≈ 0.5 µs, 16,384 and 65,536 ≈ 1.0 µs — a larger window's payloads outlive
 * the young generation, and the collector's promotions cost more than the fewer calls save.
 */
const WINDOW_EVENTS = 4_096;
/**
 * events.pack's dictionary: raw payload bytes sampled at DICTIONARY_SPOTS spots spread evenly over the chunk, at most
 * DICTIONARY_MAX_BYTES, DICTIONARY_BYTES_PER_EVENT per event of the chunk (so a small chunk's pack does not carry a
 * dictionary larger than what it saves), none below DICTIONARY_MIN_BYTES. Measured on a pubnet-like chunk of 9 M
 * events (records of 128, level 1, every 32nd record): 79.1 B per event without a dictionary, 70.2 with 512 KiB,
 * 68.4 with 1 MiB, 65.6 with 2 MiB; compressing 39, 62, 67 and 81 µs a record. On 1 M events, where 128 spots
 * cover each 25-ledger account epoch of the generator several times, 512 KiB gave 61 (69.6 with the generator's
 * repeated 28-byte account prefixes made unique: part of the gain is the generator's). Inflating a record against
 * the dictionary measured ~10 % slower.
 */
const DICTIONARY_MAX_BYTES = 1024 * 1024;
const DICTIONARY_BYTES_PER_EVENT = 2;
const DICTIONARY_MIN_BYTES = 8 * 1024;
const DICTIONARY_SPOTS = 256;
const { RoaringBitmap32 } = roaring;
/** Terms per lookupTerms call of the verification. */
const VERIFY_TERMS = 4_096;
/** Verification decodes terms up to this many ordinals into arrays; larger ones it compares as roaring sets. */
const DECODE_MAX_ORDINALS = 65_536;

/**
 * A chunk's terms with their ordinals, as the hot tier already holds them (`hotTermOrdinals(reader)` of
 * @strata/hot-store has this shape): what a freeze builds index.pack from instead of regrouping every event's terms.
 */
export interface ChunkTermOrdinals {
  /** The events the lists cover, [0, eventCount): must be the frozen chunk's count. */
  readonly eventCount: number;
  /** Terms 0 .. termCount − 1. */
  readonly termCount: number;
  /** Copies term `term`'s 16-byte key into out[at, at + 16). */
  keyInto(term: number, out: Uint8Array, at: number): void;
  /** Term `term`'s ordinals, ascending, at least one, all below eventCount (the freeze copies what it keeps). */
  ordinals(term: number): Uint32Array;
}

export interface FreezeOptions {
  /** The hot chunk's reader (HotStore.reader() or openHotReader() of @strata/hot-store; any ChunkReader). */
  readonly hot: ChunkReader;
  /**
   * The hot chunk's term → ordinals lists (`hotTermOrdinals(hot)` of @strata/hot-store), taken as of
   * `hot.ledgerOffsets()`. With them the freeze writes index.pack straight from the lists (no postings log, no
   * regrouping) and checks them against the terms it derives from the payloads it writes (a digest of every
   * posting: VERIFY_FAILED when they differ). Without them it derives and regroups the terms itself.
   */
  readonly termOrdinals?: ChunkTermOrdinals;
  /** Where events.pack and the manifest go. */
  readonly storage: Storage;
  /** Where index.pack and index.hash go (default `storage`). */
  readonly indexStorage?: Storage;
  /**
   * The 16-byte SipHash key that blinds term keys (default: 16 random bytes). Pass one (e.g. HKDF of a deployment
   * secret and the chunk id) when two freezes of a chunk must give the same index; keep it out of attackers' reach.
   */
  readonly secret?: Uint8Array;
  /** Bytes the freeze's postings may take, MIN_POSTINGS_MEMORY_BYTES..2^40 (default 128 MiB); README "Freeze". */
  readonly postingsMemoryBytes?: number;
  /** Where the postings log spills past its half of the budget (default os.tmpdir()). */
  readonly scratchDir?: string;
  /** zstd level of events.pack (default -1: with the dictionary, levels up to 3 measured no smaller). */
  readonly compressionLevel?: number;
  /**
   * Events per events.pack record, 1..65,536 (default DEFAULT_EVENTS_PER_RECORD): smaller records cost bytes, larger
   * ones make a scattered fetch inflate more events it does not return (README "Record size").
   */
  readonly eventsPerRecord?: number;
  /** How the returned reader reads its packs. */
  readonly read?: ColdReadOptions;
}

/** What a freeze did. */
export interface FreezeResult {
  /** The frozen chunk, open: serve it from now on. */
  readonly reader: ColdChunkReader;
  /** False when the chunk was already frozen (its manifest opened) and nothing was built. */
  readonly frozenNow: boolean;
  readonly eventCount: number;
  readonly termCount: number;
  /** Sizes of the files, in bytes. */
  readonly bytes: { readonly eventsPack: number; readonly indexPack: number; readonly indexHash: number };
  /** Bytes the postings log wrote to its scratch file (0 when it fit the budget). */
  readonly spilledBytes: number;
  /** Partitions index.pack was written in (each one replay of the postings log; 0 when nothing was built). */
  readonly partitions: number;
  /** Milliseconds per step (all 0 when nothing was built). */
  readonly ms: { readonly events: number; readonly index: number; readonly verify: number };
}

/** The steps of a freeze, as the onStep seam reports them. */
export type FreezeStep = 'events' | 'index-hash' | 'index-pack' | 'verify' | 'manifest';

/** Test seams (not exported from the package): step hooks and deliberate defects for negative controls. */
export interface FreezeSeams {
  /** Called as each step starts. */
  readonly onStep?: (step: FreezeStep) => void | Promise<void>;
  /** Drops the first ordinal of this term id's bitmap in index.pack (a wrong bitmap). */
  readonly dropOrdinalOfTerm?: number;
  /** Writes a wrong fingerprint for this term id. */
  readonly wrongFingerprintOfTerm?: number;
  /** events.pack stores this ordinal's payload with a byte flipped, after the writer hashed it as given. */
  readonly flipPayload?: number;
  /** Writes the manifest without verifying (a broken freeze). */
  readonly skipVerify?: boolean;
  /** Entries per postings-log block (default 2^20), so small chunks spill and partition. */
  readonly logBlockEntries?: number;
  /** Options of the MPHF build (a build that cannot succeed, for BUILD_FAILED). */
  readonly mphfOptions?: BuildOptions;
  /** events.pack's dictionary size in place of the default rule (0: none), so small test chunks get one. */
  readonly dictionaryBytes?: number;
  /** Writes index.hash with an MPHF of this seed instead of the one the slots were computed with (another bijection). */
  readonly writtenMphfSeed?: number;
}

interface Resolved {
  readonly hot: ChunkReader;
  readonly termOrdinals: ChunkTermOrdinals | undefined;
  readonly storage: Storage;
  readonly indexStorage: Storage;
  readonly secret: Uint8Array;
  readonly postingsMemoryBytes: number;
  readonly scratchDir: string;
  readonly compressionLevel: number;
  readonly eventsPerRecord: number;
  readonly read: ColdReadOptions | undefined;
}

function resolve(options: FreezeOptions): Resolved {
  if (typeof options !== 'object' || options === null) invalidArgument('options', 'expected an options object');
  const { hot } = options;
  if (
    typeof hot !== 'object' ||
    hot === null ||
    typeof hot.fetchRange !== 'function' ||
    typeof hot.lookupTerms !== 'function' ||
    typeof hot.ledgerOffsets !== 'function'
  ) {
    invalidArgument('hot', `expected a ChunkReader, got ${describeValue(hot)}`);
  }
  const { termOrdinals } = options;
  if (
    termOrdinals !== undefined &&
    (typeof termOrdinals !== 'object' ||
      termOrdinals === null ||
      !Number.isInteger(termOrdinals.termCount) ||
      termOrdinals.termCount < 0 ||
      !Number.isInteger(termOrdinals.eventCount) ||
      typeof termOrdinals.keyInto !== 'function' ||
      typeof termOrdinals.ordinals !== 'function')
  ) {
    invalidArgument('termOrdinals', `expected term → ordinals lists, got ${describeValue(termOrdinals)}`);
  }
  checkStorage(options.storage, 'storage');
  const indexStorage = options.indexStorage ?? options.storage;
  checkStorage(indexStorage, 'indexStorage');
  const secret = options.secret ?? new Uint8Array(randomBytes(SIPHASH_KEY_BYTES));
  if (!(secret instanceof Uint8Array) || secret.length !== SIPHASH_KEY_BYTES) {
    invalidArgument('secret', `expected ${SIPHASH_KEY_BYTES} bytes`);
  }
  const postingsMemoryBytes = options.postingsMemoryBytes ?? DEFAULT_POSTINGS_MEMORY_BYTES;
  checkInteger(postingsMemoryBytes, MIN_POSTINGS_MEMORY_BYTES, 2 ** 40, 'postingsMemoryBytes');
  const scratchDir = options.scratchDir ?? tmpdir();
  if (typeof scratchDir !== 'string' || scratchDir === '') invalidArgument('scratchDir', 'expected a directory path');
  const compressionLevel = options.compressionLevel ?? DEFAULT_EVENTS_COMPRESSION_LEVEL;
  checkInteger(compressionLevel, -7, 22, 'compressionLevel');
  const eventsPerRecord = options.eventsPerRecord ?? DEFAULT_EVENTS_PER_RECORD;
  checkInteger(eventsPerRecord, 1, MAX_ITEMS_PER_RECORD, 'eventsPerRecord');
  if (options.read !== undefined && (typeof options.read !== 'object' || options.read === null)) {
    invalidArgument('read', 'expected an options object');
  }
  return {
    hot,
    termOrdinals,
    storage: options.storage,
    indexStorage,
    secret: copyOf(secret),
    postingsMemoryBytes,
    scratchDir,
    compressionLevel,
    eventsPerRecord,
    read: options.read,
  };
}

/**
 * Freezes the hot chunk `options.hot` into `storage` / `indexStorage` and returns the open cold reader (see the
 * file comment for the steps and what a crash leaves). The chunk is frozen as of the hot reader's
 * `ledgerOffsets()` at the start; freeze it once its ingest is complete. One freeze per chunk at a time.
 *
 * Errors (ColdStoreError): VERIFY_FAILED (the files or the hot chunk disagree: a payload hash, a term's bitmap, a
 * term the hot index lacks, an event that does not decode), FINGERPRINT_MISMATCH (a term's slot holds another
 * fingerprint), BUILD_FAILED (the MPHF), IO / NOT_FOUND (storage), INVALID_ARGUMENT; errors of the hot reader pass
 * through. A freeze that fails leaves no manifest (and removes the files it wrote).
 */
export async function freezeChunk(options: FreezeOptions): Promise<FreezeResult> {
  return freezeChunkWith(options, {});
}

/** freezeChunk with test seams (not exported from the package). */
export async function freezeChunkWith(options: FreezeOptions, seams: FreezeSeams): Promise<FreezeResult> {
  const o = resolve(options);
  const chunkId = o.hot.chunkId;
  checkInteger(chunkId, 0, 0xffff_ffff, 'hot.chunkId');
  const names = chunkFileNames(chunkId);
  const location = { chunkId, storage: o.storage, indexStorage: o.indexStorage, ...(o.read ? { read: o.read } : {}) };

  if (await o.storage.exists(names.manifest)) {
    try {
      const reader = await openFrozenChunk(location);
      const id = reader.identity;
      return {
        reader,
        frozenNow: false,
        eventCount: id.eventCount,
        termCount: id.termCount,
        bytes: { eventsPack: id.eventsPackBytes, indexPack: id.indexPackBytes, indexHash: id.indexHashBytes },
        spilledBytes: 0,
        partitions: 0,
        ms: { events: 0, index: 0, verify: 0 },
      };
    } catch (error) {
      if (!(error instanceof ColdStoreError)) throw error;
      // A manifest whose files do not open is no cold chunk: withdraw it (the hot chunk serves again), then rebuild.
      await o.storage.remove(names.manifest);
    }
  }
  // Without a manifest nothing here is in use: leftovers of an interrupted freeze go.
  await removeChunkFiles(o, names);
  const build = new ChunkBuild(o, names, seams);
  try {
    return await build.run();
  } catch (error) {
    await build.abandon();
    throw error;
  }
}

/** Removes the chunk's three files and, for local storage, the temp files interrupted writers left beside them. */
async function removeChunkFiles(o: Resolved, names: ChunkFileNames): Promise<void> {
  await o.storage.remove(names.eventsPack);
  await o.indexStorage.remove(names.indexPack);
  await o.indexStorage.remove(names.indexHash);
  for (const [storage, name] of [
    [o.storage, names.eventsPack],
    [o.storage, names.manifest],
    [o.indexStorage, names.indexPack],
    [o.indexStorage, names.indexHash],
  ] as const) {
    if (!(storage instanceof LocalStorage)) continue; // other backends sweep their own temps
    const path = storage.pathOf(name);
    let entries: string[];
    try {
      entries = await readdir(dirname(path));
    } catch {
      continue; // no bucket directory yet
    }
    const prefix = `${basename(path)}.tmp-`;
    for (const entry of entries) {
      if (entry.startsWith(prefix) && isAtomicTempName(entry)) {
        await rm(join(dirname(path), entry), { force: true }).catch(() => undefined);
      }
    }
  }
}

/** One freeze in progress: its writers, scratch and timings, so a failure can undo what it started. */
class ChunkBuild {
  private readonly chunkId: number;
  private readonly buildId = new Uint8Array(randomBytes(BUILD_ID_BYTES));
  private readonly log: PostingsLog;
  private readonly table = new TermTable();
  private writer: PackfileWriter | undefined;
  private rawWriter: StorageWriter | undefined;
  private reader: ColdChunkReader | undefined;
  private partitions = 0;
  /** The term keys by term id, 16 bytes each (after step 2): the table's, or the termOrdinals' ids. */
  private keys: Uint8Array = new Uint8Array(0);
  /** With termOrdinals: the postings derived from the payloads, and those of the lists (step 3 adds them). */
  private readonly derived: PostingsDigest;
  private readonly listed: PostingsDigest;

  constructor(
    private readonly o: Resolved,
    private readonly names: ChunkFileNames,
    private readonly seams: FreezeSeams,
  ) {
    this.chunkId = o.hot.chunkId;
    this.log = new PostingsLog(Math.floor(o.postingsMemoryBytes / 2), o.scratchDir, seams.logBlockEntries);
    [this.derived, this.listed] = PostingsDigest.pair();
  }

  async run(): Promise<FreezeResult> {
    const started = performance.now();
    await this.seams.onStep?.('events');
    const offsets = this.o.hot.ledgerOffsets();
    const eventCount = offsets.eventCount;
    const lists = this.o.termOrdinals;
    if (lists !== undefined && lists.eventCount !== eventCount) {
      invalidArgument('termOrdinals', `lists of ${lists.eventCount} events for a chunk of ${eventCount}`);
    }
    const eventsSummary = await this.writeEvents(offsets);
    const eventsDone = performance.now();

    await this.seams.onStep?.('index-hash');
    const { mphfBytes, fingerprintOfTerm, slotOfTerm, fingerprintOfSlot, indexHashBytes } = await this.writeIndexHash();
    await this.seams.onStep?.('index-pack');
    const indexSummary =
      lists === undefined
        ? await this.writeIndexPack(slotOfTerm, fingerprintOfSlot)
        : await this.writeIndexPackFromLists(lists, slotOfTerm, fingerprintOfSlot);
    if (lists !== undefined && !this.derived.equals(this.listed)) {
      this.verifyFailed(
        `the hot chunk's term lists hold ${this.listed.count} postings, its payloads' terms ${this.derived.count}, or other ones`,
      );
    }
    const spilledBytes = this.log.spilledBytes;
    await this.log.dispose();
    const indexDone = performance.now();

    await this.seams.onStep?.('verify');
    const reader = await ColdChunkReader.open({
      chunkId: this.chunkId,
      storage: this.o.storage,
      indexStorage: this.o.indexStorage,
      ...(this.o.read ? { read: this.o.read } : {}),
    });
    this.reader = reader;
    const id = reader.identity;
    assert(
      id.eventCount === eventCount && id.termCount === this.keys.length / 16 && sameBytes(id.buildId, this.buildId),
      'the reopened files are the ones just written',
    );
    if (this.seams.skipVerify !== true) {
      await this.verifyEvents(reader, offsets, eventsSummary);
      await this.verifyTerms(eventCount, mphfBytes, fingerprintOfTerm, slotOfTerm);
    }
    const verifyDone = performance.now();

    await this.seams.onStep?.('manifest');
    const manifest = encodeManifest({
      chunkId: this.chunkId,
      eventCount,
      termCount: id.termCount,
      buildId: this.buildId,
      eventsPackBytes: id.eventsPackBytes,
      indexPackBytes: id.indexPackBytes,
      indexHashBytes: id.indexHashBytes,
      eventsContentHash: eventsSummary,
      indexContentHash: indexSummary,
      indexHashCrc: id.indexHashCrc,
    });
    await this.writeRaw(this.o.storage, this.names.manifest, manifest);
    return {
      reader,
      frozenNow: true,
      eventCount,
      termCount: id.termCount,
      bytes: { eventsPack: id.eventsPackBytes, indexPack: id.indexPackBytes, indexHash: indexHashBytes },
      spilledBytes,
      partitions: this.partitions,
      ms: { events: eventsDone - started, index: indexDone - eventsDone, verify: verifyDone - indexDone },
    };
  }

  /** Undoes a failed freeze: open writers aborted, the reader closed, scratch and written files removed. */
  async abandon(): Promise<void> {
    await this.writer?.abort().catch(() => undefined);
    await this.rawWriter?.abort().catch(() => undefined);
    await this.reader?.close().catch(() => undefined);
    await this.log.dispose();
    await removeChunkFiles(this.o, this.names).catch(() => undefined);
  }

  /** Step 1: events.pack, the term table and the postings log; returns the writer's hash of the hot payloads. */
  private async writeEvents(offsets: LedgerOffsets): Promise<Uint8Array> {
    const eventCount = offsets.eventCount;
    const dictionary = await this.sampleDictionary(eventCount);
    const writer = await PackfileWriter.create(this.o.storage, this.names.eventsPack, {
      formatId: EVENTS_PACK_FORMAT_ID,
      itemsPerRecord: this.o.eventsPerRecord,
      maxRecordBytes: EVENTS_MAX_RECORD_BYTES,
      codec: 'zstd',
      compressionLevel: this.o.compressionLevel,
      ...(dictionary === undefined ? {} : { dictionary }),
    });
    this.writer = writer;
    if (this.seams.flipPayload !== undefined) flipStoredItemForTest(writer, this.seams.flipPayload);
    const termWords = new Uint32Array(MAX_TERMS_PER_EVENT * 4);
    const termBytes = new Uint8Array(termWords.buffer);
    const { table, log, derived } = this;
    const regroup = this.o.termOrdinals === undefined;
    for (let start = 0; start < eventCount; start += WINDOW_EVENTS) {
      const end = Math.min(eventCount, start + WINDOW_EVENTS);
      const events = await this.o.hot.fetchRange({ start, end });
      if (!Array.isArray(events) || events.length !== end - start) {
        this.verifyFailed(`the hot chunk answered ${describeValue(events)} for the window [${start}, ${end})`);
      }
      for (let i = 0; i < events.length; i++) {
        const { ordinal, payload } = events[i]!;
        if (ordinal !== start + i || !(payload instanceof Uint8Array)) {
          this.verifyFailed(`the hot chunk answered ordinal ${ordinal} at ${start + i}`);
        }
        let terms: number;
        try {
          terms = deriveTermsInto(payload, termBytes, 0);
        } catch (error) {
          if (!(error instanceof EventsError)) throw error;
          this.verifyFailed(`the hot chunk's event ${ordinal} does not decode: ${error.message}`, error);
        }
        assert(terms >= 1, 'every event has a type term');
        const closing = writer.append(payload);
        if (closing !== undefined) await closing;
        if (!regroup) {
          // The lists give index.pack; the payloads' own terms only check them (step 3 compares the digests).
          for (let t = 0; t < terms; t++) derived.add(derived.termHash(termWords, t * 4), ordinal);
          continue;
        }
        for (let t = 0; t < terms; t++) {
          const id = table.intern(termWords, t * 4);
          const spilling = log.push(t === 0 ? (id | EVENT_MARK) >>> 0 : id);
          if (spilling !== undefined) await spilling;
        }
      }
    }
    const summary = await writer.finish(encodeEventsAppData(this.buildId, offsets));
    this.writer = undefined;
    return summary.contentHash;
  }

  /**
   * events.pack's dictionary: payload bytes from DICTIONARY_SPOTS windows spread evenly over the chunk, each spot
   * contributing up to its share (its payloads back to back, the last one cut), in chunk order. Undefined when the
   * chunk is too small for one. The bytes only steer compression: what is stored is checked by the content hash.
   */
  private async sampleDictionary(eventCount: number): Promise<Uint8Array | undefined> {
    const bytes =
      this.seams.dictionaryBytes ??
      Math.min(DICTIONARY_MAX_BYTES, eventCount * DICTIONARY_BYTES_PER_EVENT, MAX_DICTIONARY_BYTES);
    if (bytes < (this.seams.dictionaryBytes === undefined ? DICTIONARY_MIN_BYTES : 1) || eventCount === 0) {
      return undefined;
    }
    const out = new Uint8Array(bytes);
    let used = 0;
    const spots = Math.min(DICTIONARY_SPOTS, eventCount);
    for (let spot = 0; spot < spots && used < bytes; spot++) {
      const share = Math.ceil(((spot + 1) * bytes) / spots) - used;
      const start = Math.floor(((spot + 0.5) * eventCount) / spots);
      // Payloads of pubnet events are 100 to 400 bytes: a window of share / 64 events fills the share.
      const end = Math.min(eventCount, start + Math.max(4, Math.ceil(share / 64)));
      let taken = 0;
      for (const { payload } of await this.o.hot.fetchRange({ start, end })) {
        if (!(payload instanceof Uint8Array) || taken >= share) break;
        const length = Math.min(payload.length, share - taken);
        out.set(payload.subarray(0, length), used + taken);
        taken += length;
      }
      used += taken;
    }
    return used === 0 ? undefined : out.subarray(0, used);
  }

  /** Step 2: blinded keys, the MPHF, every term's slot and fingerprint; index.hash written. */
  private async writeIndexHash(): Promise<{
    mphfBytes: Uint8Array;
    fingerprintOfTerm: Uint32Array;
    slotOfTerm: Uint32Array;
    fingerprintOfSlot: Uint32Array;
    indexHashBytes: number;
  }> {
    const lists = this.o.termOrdinals;
    let keys: Uint8Array;
    if (lists === undefined) {
      this.table.sealed();
      keys = this.table.keyBytes();
    } else {
      keys = new Uint8Array(lists.termCount * TERM_KEY_BYTES);
      for (let t = 0; t < lists.termCount; t++) lists.keyInto(t, keys, t * TERM_KEY_BYTES);
    }
    this.keys = keys;
    const termCount = keys.length / TERM_KEY_BYTES;
    const routed = new Uint8Array(termCount * TERM_KEY_BYTES);
    const blinder = new SipHash128(this.o.secret);
    for (let t = 0; t < termCount; t++) blinder.hash(keys, t * 16, 16, routed, t * 16);
    let mphfBytes: Uint8Array;
    try {
      mphfBytes = buildMphf({ bytes: routed, keyLength: TERM_KEY_BYTES }, this.seams.mphfOptions);
    } catch (error) {
      if (!(error instanceof MphfError)) throw error;
      throw new ColdStoreError(ColdStoreErrorCode.BUILD_FAILED, `the MPHF over ${termCount} terms: ${error.message}`, {
        file: this.names.indexHash,
        cause: error,
      });
    }
    const mphf = openMphf(mphfBytes);
    const slotOfTerm = new Uint32Array(termCount);
    const fingerprintOfSlot = new Uint32Array(termCount);
    const fingerprintOfTerm = new Uint32Array(termCount);
    const taken = new Uint8Array(termCount);
    for (let t = 0; t < termCount; t++) {
      const slot = mphf.index(routed, t * 16, 16);
      assert(taken[slot] === 0, 'the MPHF maps the terms one-to-one onto [0, n)');
      taken[slot] = 1;
      slotOfTerm[t] = slot;
      fingerprintOfTerm[t] = readU32(routed, t * 16 + 12);
      fingerprintOfSlot[slot] = fingerprintOfTerm[t]! ^ (this.seams.wrongFingerprintOfTerm === t ? 1 : 0);
    }
    const written =
      this.seams.writtenMphfSeed === undefined
        ? mphfBytes
        : buildMphf({ bytes: routed, keyLength: TERM_KEY_BYTES }, { seed: this.seams.writtenMphfSeed });
    const file = encodeIndexHash({
      chunkId: this.chunkId,
      buildId: this.buildId,
      secret: this.o.secret,
      mphf: written,
      termCount,
    });
    await this.writeRaw(this.o.indexStorage, this.names.indexHash, file);
    return { mphfBytes, fingerprintOfTerm, slotOfTerm, fingerprintOfSlot, indexHashBytes: file.length };
  }

  /** Step 3: index.pack in slot order, one partition of slots per replay of the postings log. */
  private async writeIndexPack(slotOfTerm: Uint32Array, fingerprintOfSlot: Uint32Array): Promise<Uint8Array> {
    const termCount = slotOfTerm.length;
    const termCounts = this.table.counts();
    const countOfSlot = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) countOfSlot[slotOfTerm[t]!] = termCounts[t]!;
    const dropSlot = this.seams.dropOrdinalOfTerm === undefined ? -1 : slotOfTerm[this.seams.dropOrdinalOfTerm]!;
    const items = await this.openIndexPack();
    // A partition holds at most this many postings (or one slot, whatever its size): its first slots.
    const partitionPostings = Math.max(1, Math.floor(this.o.postingsMemoryBytes / 2 / 4));
    const partitionStarts: number[] = [];
    for (let slot = 0, postings = 0; slot < termCount; slot++) {
      if (slot === 0 || postings + countOfSlot[slot]! > partitionPostings) {
        partitionStarts.push(slot);
        postings = 0;
      }
      postings += countOfSlot[slot]!;
    }
    partitionStarts.push(termCount);
    // With more than one partition, the first replay rewrites the log's term ids into slots (event marks kept), so
    // the later replays compare entries without looking each one up in slotOfTerm: a random read of a 4-byte-per-term
    // table, a cache miss for every rare term's posting.
    let bySlot = false;
    for (let p = 0; p + 1 < partitionStarts.length; p++) {
      const first = partitionStarts[p]!;
      const end = partitionStarts[p + 1]!;
      let postings = 0;
      for (let slot = first; slot < end; slot++) postings += countOfSlot[slot]!;
      this.partitions++;
      const width = end - first;
      const starts = new Uint32Array(width + 1);
      for (let s = 0; s < width; s++) starts[s + 1] = starts[s]! + countOfSlot[first + s]!;
      const cursor = starts.slice(0, width);
      const ordinals = new Uint32Array(postings);
      let ordinal = -1;
      const from = first;
      if (bySlot) {
        await this.log.scan((entries, count) => {
          for (let i = 0; i < count; i++) {
            const entry = entries[i]!;
            if (entry >= EVENT_MARK) ordinal++;
            const local = (entry & 0x7fff_ffff) - from;
            // One unsigned comparison: negative locals wrap above `width`.
            if (local >>> 0 < width) ordinals[cursor[local]!++] = ordinal;
          }
        });
      } else {
        const relabel = partitionStarts.length > 2;
        await this.log.scan((entries, count) => {
          for (let i = 0; i < count; i++) {
            const entry = entries[i]!;
            const mark = entry & EVENT_MARK;
            if (mark !== 0) ordinal++;
            const slot = slotOfTerm[entry & 0x7fff_ffff]!;
            if (relabel) entries[i] = (slot | mark) >>> 0;
            const local = slot - from;
            if (local >>> 0 < width) ordinals[cursor[local]!++] = ordinal;
          }
        }, relabel);
        bySlot = relabel;
      }
      for (let s = 0; s < width; s++) {
        const slot = first + s;
        const lo = starts[s]! + (slot === dropSlot && starts[s + 1]! - starts[s]! > 1 ? 1 : 0);
        const closing = items.append(fingerprintOfSlot[slot]!, ordinals, lo, starts[s + 1]!);
        if (closing !== undefined) await closing;
      }
    }
    return items.finish();
  }

  /**
   * Step 3 from termOrdinals: index.pack in slot order, each slot's item encoded from its term's list as the lists
   * give it (one pass, nothing regrouped); every posting is added to the lists' digest, which run() compares with
   * the digest of the payloads' own terms.
   */
  private async writeIndexPackFromLists(
    lists: ChunkTermOrdinals,
    slotOfTerm: Uint32Array,
    fingerprintOfSlot: Uint32Array,
  ): Promise<Uint8Array> {
    const termCount = slotOfTerm.length;
    const termOfSlot = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) termOfSlot[slotOfTerm[t]!] = t;
    const dropSlot = this.seams.dropOrdinalOfTerm === undefined ? -1 : slotOfTerm[this.seams.dropOrdinalOfTerm]!;
    const items = await this.openIndexPack();
    const words = new Uint32Array(this.keys.buffer, this.keys.byteOffset, this.keys.length / 4);
    const { listed } = this;
    const end = lists.eventCount;
    this.partitions = 1;
    for (let slot = 0; slot < termCount; slot++) {
      const t = termOfSlot[slot]!;
      const ordinals = lists.ordinals(t);
      if (!(ordinals instanceof Uint32Array) || ordinals.length === 0) {
        this.verifyFailed(`the hot lists give term ${this.termHex(t)} ${describeValue(ordinals)}`);
      }
      const termHash = listed.termHash(words, t * 4);
      let previous = -1;
      for (let i = 0; i < ordinals.length; i++) {
        const ordinal = ordinals[i]!;
        if (ordinal <= previous || ordinal >= end) {
          this.verifyFailed(`the hot lists' term ${this.termHex(t)} holds ordinal ${ordinal} after ${previous}`);
        }
        listed.add(termHash, ordinal);
        previous = ordinal;
      }
      const lo = slot === dropSlot && ordinals.length > 1 ? 1 : 0;
      const closing = items.append(fingerprintOfSlot[slot]!, ordinals, lo, ordinals.length);
      if (closing !== undefined) await closing;
    }
    return items.finish();
  }

  /** index.pack's writer, and how items go into it: `fingerprint ‖ codec ‖ list or bitmap` of values[lo, hi). */
  private async openIndexPack(): Promise<{
    append(fingerprint: number, values: Uint32Array, lo: number, hi: number): Promise<void> | undefined;
    finish(): Promise<Uint8Array>;
  }> {
    const writer = await PackfileWriter.create(this.o.indexStorage, this.names.indexPack, {
      formatId: INDEX_PACK_FORMAT_ID,
      itemsPerRecord: INDEX_ITEMS_PER_RECORD,
      codec: 'none',
    });
    this.writer = writer;
    const encoder = new IndexItemWriter();
    let item = new Uint8Array(64 * 1024);
    return {
      append: (fingerprint, values, lo, hi) => {
        const size = FINGERPRINT_BYTES + encoder.plan(values, lo, hi);
        if (item.length < size) item = new Uint8Array(size * 2);
        writeU32(item, 0, fingerprint);
        encoder.write(values, lo, hi, item, FINGERPRINT_BYTES);
        return writer.append(item.subarray(0, size));
      },
      finish: async () => {
        const summary = await writer.finish(encodeIndexAppData(this.buildId));
        this.writer = undefined;
        return summary.contentHash;
      },
    };
  }

  /**
   * Step 4a: offsets as snapshotted; events.pack read back whole, in order, in large sequential reads (each record's
   * CRC checked and inflated) and hashed: equal to the hash the writer took of the hot payloads as it was given them
   * (`writtenHash`) and to the reopened trailer's.
   */
  private async verifyEvents(reader: ColdChunkReader, offsets: LedgerOffsets, writtenHash: Uint8Array): Promise<void> {
    const stored = reader.ledgerOffsets();
    if (stored.startLedger !== offsets.startLedger || !sameCounts(stored.counts(), offsets.counts())) {
      this.verifyFailed('events.pack holds other LedgerOffsets than the hot chunk');
    }
    const hasher = new PayloadHasher();
    let items = 0;
    await this.scanPack(this.o.storage, this.names.eventsPack, EVENTS_PACK_FORMAT_ID, (payload, itemSizes) => {
      hasher.addRecord(payload, itemSizes);
      items += itemSizes.length;
    });
    const readBack = hasher.digest();
    const trailerHash = reader.identity.eventsContentHash ?? new Uint8Array(0);
    if (items !== offsets.eventCount || !sameBytes(readBack, writtenHash) || !sameBytes(trailerHash, writtenHash)) {
      this.verifyFailed(
        `payload hashes differ: hot chunk as written ${hex(writtenHash)}, events.pack read back ${hex(readBack)} (${items} items), its trailer ${hex(trailerHash)}`,
      );
    }
  }

  /**
   * Step 4b: index.hash reopened as a reader opens it, holding the secret the keys were routed with and the very
   * MPHF bytes each term's slot was computed with (`mphfBytes`: so a reader's query of a term gives its slot, without
   * querying millions of keys again); index.pack read back whole in slot order, as 4a reads events.pack; for each
   * slot: the item's fingerprint must be its term's routed key's, its structure must pass the reader's check, and its
   * ordinals (decoded by plain decoders, not roaring) must equal the hot index's bitmap of the term over
   * [0, eventCount). The hot bitmaps are asked for in batches of VERIFY_TERMS keys in slot order.
   */
  private async verifyTerms(
    eventCount: number,
    mphfBytes: Uint8Array,
    fingerprintOfTerm: Uint32Array,
    slotOfTerm: Uint32Array,
  ): Promise<void> {
    const termCount = slotOfTerm.length;
    const hashFile = await this.o.indexStorage.open(this.names.indexHash);
    let written: Awaited<ReturnType<typeof openIndexHash>>;
    try {
      written = await openIndexHash(hashFile, this.chunkId);
    } finally {
      await hashFile.close();
    }
    if (
      !sameBytes(written.secret, this.o.secret) ||
      written.termCount !== termCount ||
      !sameBytes(written.bytes.subarray(INDEX_HASH_HEADER_BYTES), mphfBytes)
    ) {
      this.verifyFailed('index.hash holds another secret, term count or MPHF than the freeze built it with');
    }
    const termOfSlot = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) termOfSlot[slotOfTerm[t]!] = t;
    const keys = this.keys;
    const lists = this.o.termOrdinals;
    const window = { start: 0, end: eventCount };
    const cold = new Uint32Array(DECODE_MAX_ORDINALS);
    const hot = new Uint32Array(DECODE_MAX_ORDINALS + 1);
    let batchFirst = 0;
    let batch: (ReadonlyBitmap | undefined)[] = [];
    const loadBatch = async (first: number) => {
      const end = Math.min(termCount, first + VERIFY_TERMS);
      const batchKeys: Uint8Array[] = [];
      for (let slot = first; slot < end; slot++) {
        const t = termOfSlot[slot]!;
        batchKeys.push(keys.subarray(t * 16, t * 16 + 16));
      }
      batch = lists === undefined ? await this.o.hot.lookupTerms(batchKeys, window) : batchKeys.map(() => undefined);
      batchFirst = first;
    };
    let slot = 0;
    await this.scanPack(
      this.o.indexStorage,
      this.names.indexPack,
      INDEX_PACK_FORMAT_ID,
      async (payload, sizes, first) => {
        assert(first === slot, 'records are visited in order');
        // Items are addressed in the record's payload (no view per item: millions of terms).
        let at = 0;
        for (let i = 0; i < sizes.length; i++, slot++) {
          if (slot >= batchFirst + batch.length) await loadBatch(slot);
          const end = at + sizes[i]!;
          const t = termOfSlot[slot]!;
          if (end - at < INDEX_ITEM_HEADER_BYTES || readU32(payload, at) !== fingerprintOfTerm[t]) {
            throw new ColdStoreError(
              ColdStoreErrorCode.FINGERPRINT_MISMATCH,
              `term ${this.termHex(t)} routes to slot ${slot}, which holds another fingerprint`,
              { file: this.names.indexPack, field: `slot ${slot}` },
            );
          }
          const expected = lists === undefined ? batch[slot - batchFirst] : lists.ordinals(t);
          this.compareTerm(payload, at, end, expected, t, slot, eventCount, cold, hot);
          at = end;
        }
      },
    );
    if (slot !== termCount) this.verifyFailed(`index.pack holds ${slot} items for ${termCount} terms`);
  }

  /**
   * One slot of 4b, the item at `payload[from, to)`, of term id `t`: its structure (as a reader checks it), then its
   * ordinals against the hot bitmap. A delta list and a bitmap up to DECODE_MAX_ORDINALS are decoded by plain
   * decoders into `cold`; a larger bitmap is compared as a roaring set.
   */
  private compareTerm(
    payload: Uint8Array,
    from: number,
    to: number,
    expected: ReadonlyBitmap | Uint32Array | undefined,
    t: number,
    slot: number,
    eventCount: number,
    cold: Uint32Array,
    hot: Uint32Array,
  ): void {
    const body = from + INDEX_ITEM_HEADER_BYTES;
    const list = payload[from + INDEX_ITEM_CODEC_AT] !== ITEM_CODEC_ROARING;
    let size: number;
    if (list) {
      const decoded = decodeOrdinalList(payload, cold, from, to);
      if (typeof decoded === 'string') this.verifyFailed(`slot ${slot}: ${decoded}`);
      size = decoded;
    } else {
      const problem = checkPortableStructure(payload, body, to);
      if (problem !== undefined) this.verifyFailed(`slot ${slot}: ${problem}`);
      size = portableCardinality(payload, body);
    }
    if (expected === undefined)
      this.verifyFailed(`term ${this.termHex(t)} is in the chunk's events but not in the hot index`);
    let differs: boolean;
    if (expected instanceof Uint32Array) {
      // The term's list (termOrdinals, already checked against the payloads' terms): equal to the item's ordinals.
      if (expected.length !== size) {
        this.verifyFailed(
          `term ${this.termHex(t)}: index.pack holds ${size} ordinals, the hot lists ${expected.length}`,
        );
      }
      if (size <= DECODE_MAX_ORDINALS) {
        differs = !list && decodePortable(payload, body, cold) !== size;
        for (let k = 0; k < size && !differs; k++) differs = cold[k] !== expected[k];
      } else {
        const view = RoaringBitmap32.unsafeFrozenView(payload.subarray(body, to), 'unsafe_frozen_portable');
        differs = view.size !== size || view.andCardinality(new RoaringBitmap32(expected)) !== size;
      }
      if (differs) this.verifyFailed(`term ${this.termHex(t)}: index.pack and the hot lists hold different ordinals`);
      return;
    }
    const bitmap = expected;
    if (size <= DECODE_MAX_ORDINALS) {
      differs = !list && decodePortable(payload, body, cold) !== size;
      // One native call: the hot term's first size + 1 ordinals. Equal sets over the window have the same first
      // `size`, and no further one inside the window (a whole-term bitmap may hold ordinals past it).
      const got = bitmap.rangeUint32Array(hot, 0, size + 1);
      if (got.length < size || (got.length > size && got[size]! < eventCount)) {
        this.verifyFailed(
          `term ${this.termHex(t)}: index.pack holds ${size} ordinals, the hot index ${bitmap.rangeCardinality(0, eventCount)}`,
        );
      }
      for (let k = 0; k < size && !differs; k++) differs = cold[k] !== got[k];
    } else {
      const hotSize = bitmap.rangeCardinality(0, eventCount);
      if (hotSize !== size) {
        this.verifyFailed(`term ${this.termHex(t)}: index.pack holds ${size} ordinals, the hot index ${hotSize}`);
      }
      // A dense term (few per chunk): compared as roaring sets, without ordinal arrays of the chunk's size.
      const view = RoaringBitmap32.unsafeFrozenView(payload.subarray(body, to), 'unsafe_frozen_portable');
      differs = view.size !== size || view.maximum() >= eventCount || view.andCardinality(bitmap) !== size;
    }
    if (differs) this.verifyFailed(`term ${this.termHex(t)}: index.pack and the hot index hold different ordinals`);
  }

  /** Term id `t`'s key in hex, for messages. */
  private termHex(t: number): string {
    return hex(this.keys.subarray(t * 16, t * 16 + 16));
  }

  /** Opens `name` as a pack of `formatId` on its own (not the returned reader's) and visits its records in order. */
  private async scanPack(
    storage: Storage,
    name: string,
    formatId: number,
    visit: (payload: Uint8Array, itemSizes: Uint32Array, firstItem: number) => void | Promise<void>,
  ): Promise<void> {
    const file = await storage.open(name);
    let pack: PackfileReader;
    try {
      pack = await PackfileReader.open(file, formatId);
    } catch (error) {
      await file.close();
      throw error;
    }
    try {
      await pack.scanRecords(visit);
    } finally {
      await pack.close();
    }
  }

  /** Writes a whole small file atomically (index.hash, the manifest). */
  private async writeRaw(storage: Storage, name: string, bytes: Uint8Array): Promise<void> {
    const writer = await storage.createWriter(name);
    this.rawWriter = writer;
    await writer.write(bytes);
    await writer.commit();
    this.rawWriter = undefined;
  }

  private verifyFailed(detail: string, cause?: unknown): never {
    throw new ColdStoreError(
      ColdStoreErrorCode.VERIFY_FAILED,
      detail,
      cause === undefined ? { file: this.names.eventsPack } : { file: this.names.eventsPack, cause },
    );
  }
}

function sameCounts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
