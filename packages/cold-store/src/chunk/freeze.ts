// Freezing a chunk (spec §3.6): its cold files are built from the hot chunk's reader, read back and verified against
// it, and only then switched to, by a manifest written last (temp file, fsync, rename, directory fsync). What a
// crash leaves: no manifest — the hot chunk is what serves, and the next freeze removes whatever files it finds and
// builds again; a manifest — three complete files that were verified before it was written. A freeze of a chunk
// that has its manifest opens it instead of building (idempotent); one whose manifest names files that no longer
// open withdraws the manifest first, then rebuilds.
//
// Steps, and what each holds in memory (README "Freeze" states the bound):
// 1. events: fetchRange windows of the hot chunk → events.pack (zstd per record, LedgerOffsets in app data); each
//    event's terms interned in a TermTable (a dense id per distinct key) and appended to a PostingsLog (one u32 per
//    posting, spilled to a scratch file past half the postings budget); a SHA-256 over the payloads on the side.
// 2. index.hash: every term key blinded with the chunk's secret (SipHash-2-4-128), an MPHF over the routed keys,
//    each term's slot and fingerprint.
// 3. index.pack: slots in ascending order, in partitions whose postings fit the other half of the budget: each
//    partition replays the log once, scattering ordinals to its slots, then writes `fingerprint ‖ portable bitmap`
//    per slot.
// 4. verify: the files reopened through ColdChunkReader; every payload hashed again from events.pack (equal to the
//    hot-side hash and to the trailer's); index.pack read back in slot order, each term routed again through the
//    written index.hash, its fingerprint checked and its ordinals compared with the hot index's bitmap.
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
  TERM_KEY_BYTES,
} from '@strata/events';
import { type BuildOptions, buildMphf, MphfError, openMphf } from '@strata/mphf';
import roaring from 'roaring';
import { ColdStoreError, ColdStoreErrorCode, checkInteger, invalidArgument } from '../errors.js';
import { PackfileWriter } from '../packfile/index.js';
import { LocalStorage, type Storage, type StorageWriter } from '../storage/index.js';
import { encodeEventsAppData, encodeIndexAppData } from './app-data.js';
import { ColdChunkReader, type ColdReadOptions, checkStorage, MAX_FETCH_EVENTS } from './cold-chunk-reader.js';
import { encodeIndexHash } from './index-hash.js';
import {
  BUILD_ID_BYTES,
  type ChunkFileNames,
  chunkFileNames,
  copyOf,
  EVENTS_MAX_RECORD_BYTES,
  EVENTS_PACK_FORMAT_ID,
  FINGERPRINT_BYTES,
  INDEX_PACK_FORMAT_ID,
  ITEMS_PER_RECORD,
  readU32,
  sameBytes,
  writeU32,
} from './layout.js';
import { encodeManifest } from './manifest.js';
import { openFrozenChunk } from './open-chunk.js';
import { PayloadHasher } from './payload-hash.js';
import {
  checkPortableStructure,
  decodePortable,
  PortableRoaringWriter,
  portableCardinality,
} from './portable-roaring.js';
import { EVENT_MARK, PostingsLog } from './postings-log.js';
import { SIPHASH_KEY_BYTES, SipHash128 } from './siphash.js';
import { TermTable } from './term-table.js';

/** Default budget of a freeze's postings (half for the log in memory, half for one partition of index.pack). */
export const DEFAULT_POSTINGS_MEMORY_BYTES = 128 * 1024 * 1024;
/** Smallest postings budget accepted. */
export const MIN_POSTINGS_MEMORY_BYTES = 64 * 1024;
/** Default zstd level of events.pack records. */
export const DEFAULT_EVENTS_COMPRESSION_LEVEL = 3;
/** Events per fetchRange window a freeze reads from the hot chunk (and reads back from events.pack). */
const WINDOW_EVENTS = 16_384;
const { RoaringBitmap32 } = roaring;
/** Terms per lookupTerms call of the verification. */
const VERIFY_TERMS = 4_096;
/** Verification decodes terms up to this many ordinals into arrays; larger ones it compares as roaring sets. */
const DECODE_MAX_ORDINALS = 65_536;

export interface FreezeOptions {
  /** The hot chunk's reader (HotStore.reader() or openHotReader() of @strata/hot-store; any ChunkReader). */
  readonly hot: ChunkReader;
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
  /** zstd level of events.pack (default 3). */
  readonly compressionLevel?: number;
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
  /** Flips a byte of this ordinal's payload as it is written to events.pack. */
  readonly flipPayload?: number;
  /** Writes the manifest without verifying (a broken freeze). */
  readonly skipVerify?: boolean;
  /** Entries per postings-log block (default 2^20), so small chunks spill and partition. */
  readonly logBlockEntries?: number;
  /** Options of the MPHF build (a build that cannot succeed, for BUILD_FAILED). */
  readonly mphfOptions?: BuildOptions;
}

interface Resolved {
  readonly hot: ChunkReader;
  readonly storage: Storage;
  readonly indexStorage: Storage;
  readonly secret: Uint8Array;
  readonly postingsMemoryBytes: number;
  readonly scratchDir: string;
  readonly compressionLevel: number;
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
  if (options.read !== undefined && (typeof options.read !== 'object' || options.read === null)) {
    invalidArgument('read', 'expected an options object');
  }
  return {
    hot,
    storage: options.storage,
    indexStorage,
    secret: copyOf(secret),
    postingsMemoryBytes,
    scratchDir,
    compressionLevel,
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

  constructor(
    private readonly o: Resolved,
    private readonly names: ChunkFileNames,
    private readonly seams: FreezeSeams,
  ) {
    this.chunkId = o.hot.chunkId;
    this.log = new PostingsLog(Math.floor(o.postingsMemoryBytes / 2), o.scratchDir, seams.logBlockEntries);
  }

  async run(): Promise<FreezeResult> {
    const started = performance.now();
    await this.seams.onStep?.('events');
    const offsets = this.o.hot.ledgerOffsets();
    const eventCount = offsets.eventCount;
    const { hotHash, eventsSummary } = await this.writeEvents(offsets);
    const eventsDone = performance.now();

    await this.seams.onStep?.('index-hash');
    const { slotOfTerm, fingerprintOfSlot, indexHashBytes } = await this.writeIndexHash();
    await this.seams.onStep?.('index-pack');
    const indexSummary = await this.writeIndexPack(slotOfTerm, fingerprintOfSlot);
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
      id.eventCount === eventCount && id.termCount === this.table.size && sameBytes(id.buildId, this.buildId),
      'the reopened files are the ones just written',
    );
    if (this.seams.skipVerify !== true) {
      await this.verifyEvents(reader, offsets, hotHash, eventsSummary);
      await this.verifyTerms(reader, eventCount, slotOfTerm);
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

  /** Step 1: events.pack, the term table and the postings log, and the hot-side payload hash. */
  private async writeEvents(offsets: LedgerOffsets): Promise<{ hotHash: Uint8Array; eventsSummary: Uint8Array }> {
    const eventCount = offsets.eventCount;
    const writer = await PackfileWriter.create(this.o.storage, this.names.eventsPack, {
      formatId: EVENTS_PACK_FORMAT_ID,
      itemsPerRecord: ITEMS_PER_RECORD,
      maxRecordBytes: EVENTS_MAX_RECORD_BYTES,
      codec: 'zstd',
      compressionLevel: this.o.compressionLevel,
    });
    this.writer = writer;
    const hasher = new PayloadHasher();
    const termWords = new Uint32Array(MAX_TERMS_PER_EVENT * 4);
    const termBytes = new Uint8Array(termWords.buffer);
    const { table, log } = this;
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
        hasher.add(payload);
        await writer.add(this.seams.flipPayload === ordinal ? flipped(payload) : payload);
        for (let t = 0; t < terms; t++) {
          const id = table.intern(termWords, t * 4);
          const spilling = log.push(t === 0 ? (id | EVENT_MARK) >>> 0 : id);
          if (spilling !== undefined) await spilling;
        }
      }
    }
    const summary = await writer.finish(encodeEventsAppData(this.buildId, offsets));
    this.writer = undefined;
    return { hotHash: hasher.digest(), eventsSummary: summary.contentHash };
  }

  /** Step 2: blinded keys, the MPHF, every term's slot and fingerprint; index.hash written. */
  private async writeIndexHash(): Promise<{
    slotOfTerm: Uint32Array;
    fingerprintOfSlot: Uint32Array;
    indexHashBytes: number;
  }> {
    const { table } = this;
    table.sealed();
    const termCount = table.size;
    const keys = table.keyBytes();
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
    const taken = new Uint8Array(termCount);
    for (let t = 0; t < termCount; t++) {
      const slot = mphf.index(routed, t * 16, 16);
      assert(taken[slot] === 0, 'the MPHF maps the terms one-to-one onto [0, n)');
      taken[slot] = 1;
      slotOfTerm[t] = slot;
      fingerprintOfSlot[slot] = readU32(routed, t * 16 + 12) ^ (this.seams.wrongFingerprintOfTerm === t ? 1 : 0);
    }
    const file = encodeIndexHash({
      chunkId: this.chunkId,
      buildId: this.buildId,
      secret: this.o.secret,
      mphf: mphfBytes,
      termCount,
    });
    await this.writeRaw(this.o.indexStorage, this.names.indexHash, file);
    return { slotOfTerm, fingerprintOfSlot, indexHashBytes: file.length };
  }

  /** Step 3: index.pack in slot order, one partition of slots per replay of the postings log. */
  private async writeIndexPack(slotOfTerm: Uint32Array, fingerprintOfSlot: Uint32Array): Promise<Uint8Array> {
    const termCount = slotOfTerm.length;
    const termCounts = this.table.counts();
    const countOfSlot = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) countOfSlot[slotOfTerm[t]!] = termCounts[t]!;
    const dropSlot = this.seams.dropOrdinalOfTerm === undefined ? -1 : slotOfTerm[this.seams.dropOrdinalOfTerm]!;
    const writer = await PackfileWriter.create(this.o.indexStorage, this.names.indexPack, {
      formatId: INDEX_PACK_FORMAT_ID,
      itemsPerRecord: ITEMS_PER_RECORD,
      codec: 'none',
    });
    this.writer = writer;
    const encoder = new PortableRoaringWriter();
    let item = new Uint8Array(64 * 1024);
    // A partition holds at most this many postings (or one slot, whatever its size).
    const partitionPostings = Math.max(1, Math.floor(this.o.postingsMemoryBytes / 2 / 4));
    let first = 0;
    while (first < termCount) {
      let end = first;
      let postings = 0;
      while (end < termCount && (end === first || postings + countOfSlot[end]! <= partitionPostings)) {
        postings += countOfSlot[end]!;
        end++;
      }
      this.partitions++;
      const width = end - first;
      const starts = new Uint32Array(width + 1);
      for (let s = 0; s < width; s++) starts[s + 1] = starts[s]! + countOfSlot[first + s]!;
      const cursor = starts.slice(0, width);
      const ordinals = new Uint32Array(postings);
      let ordinal = -1;
      const from = first;
      await this.log.scan((entries, count) => {
        for (let i = 0; i < count; i++) {
          const entry = entries[i]!;
          if (entry >= EVENT_MARK) ordinal++;
          const local = slotOfTerm[entry & 0x7fff_ffff]! - from;
          // One unsigned comparison: negative locals wrap above `width`.
          if (local >>> 0 < width) ordinals[cursor[local]!++] = ordinal;
        }
      });
      for (let s = 0; s < width; s++) {
        const slot = first + s;
        const lo = starts[s]! + (slot === dropSlot && starts[s + 1]! - starts[s]! > 1 ? 1 : 0);
        const size = FINGERPRINT_BYTES + encoder.plan(ordinals, lo, starts[s + 1]!);
        if (item.length < size) item = new Uint8Array(size * 2);
        writeU32(item, 0, fingerprintOfSlot[slot]!);
        encoder.write(ordinals, item, FINGERPRINT_BYTES);
        await writer.add(item.subarray(0, size));
      }
      first = end;
    }
    const summary = await writer.finish(encodeIndexAppData(this.buildId));
    this.writer = undefined;
    return summary.contentHash;
  }

  /** Step 4a: offsets as snapshotted, every payload read back and hashed: equal to the hot side and the trailer. */
  private async verifyEvents(
    reader: ColdChunkReader,
    offsets: LedgerOffsets,
    hotHash: Uint8Array,
    eventsContentHash: Uint8Array,
  ): Promise<void> {
    const stored = reader.ledgerOffsets();
    if (stored.startLedger !== offsets.startLedger || !sameCounts(stored.counts(), offsets.counts())) {
      this.verifyFailed('events.pack holds other LedgerOffsets than the hot chunk');
    }
    const hasher = new PayloadHasher();
    const eventCount = offsets.eventCount;
    for (let start = 0; start < eventCount; start += MAX_FETCH_EVENTS) {
      const events = await reader.fetchRange({ start, end: Math.min(eventCount, start + MAX_FETCH_EVENTS) });
      for (const event of events) hasher.add(event.payload);
    }
    const readBack = hasher.digest();
    if (!sameBytes(readBack, hotHash) || !sameBytes(eventsContentHash, hotHash)) {
      this.verifyFailed(
        `payload hashes differ: hot chunk ${hex(hotHash)}, events.pack read back ${hex(readBack)}, its trailer ${hex(eventsContentHash)}`,
      );
    }
  }

  /**
   * Step 4b: index.pack read back in slot order, in batches; for each slot, its term routed again through the
   * written index.hash (the same slot, the item's fingerprint), the item's structure checked and its ordinals
   * decoded (a plain decoder, not roaring) and compared with the hot index's bitmap over [0, eventCount).
   */
  private async verifyTerms(reader: ColdChunkReader, eventCount: number, slotOfTerm: Uint32Array): Promise<void> {
    const termCount = slotOfTerm.length;
    const termOfSlot = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) termOfSlot[slotOfTerm[t]!] = t;
    const keys = this.table.keyBytes();
    const window = { start: 0, end: eventCount };
    const cold = new Uint32Array(DECODE_MAX_ORDINALS);
    const hot = new Uint32Array(DECODE_MAX_ORDINALS);
    for (let first = 0; first < termCount; first += VERIFY_TERMS) {
      const end = Math.min(termCount, first + VERIFY_TERMS);
      const batch: Uint8Array[] = [];
      for (let slot = first; slot < end; slot++) {
        const t = termOfSlot[slot]!;
        batch.push(keys.subarray(t * 16, t * 16 + 16));
      }
      const items = await reader.readIndexItems(first, end);
      const expected = await this.o.hot.lookupTerms(batch, window);
      for (let i = 0; i < batch.length; i++) {
        const slot = first + i;
        const key = batch[i]!;
        const item = items[i]!;
        const route = reader.route(key);
        if (route.slot !== slot) {
          this.verifyFailed(`index.hash routes term ${hex(key)} to slot ${route.slot}, its bitmap is at ${slot}`);
        }
        if (item.length < FINGERPRINT_BYTES || readU32(item, 0) !== route.fingerprint) {
          throw new ColdStoreError(
            ColdStoreErrorCode.FINGERPRINT_MISMATCH,
            `term ${hex(key)} routes to slot ${slot}, which holds another fingerprint`,
            { file: this.names.indexPack, field: `slot ${slot}` },
          );
        }
        const problem = checkPortableStructure(item, FINGERPRINT_BYTES, item.length);
        if (problem !== undefined) this.verifyFailed(`slot ${slot}: ${problem}`);
        const size = portableCardinality(item, FINGERPRINT_BYTES);
        const bitmap = expected[i];
        if (bitmap === undefined)
          this.verifyFailed(`term ${hex(key)} is in the chunk's events but not in the hot index`);
        const hotSize = bitmap.rangeCardinality(0, eventCount);
        if (hotSize !== size) {
          this.verifyFailed(`term ${hex(key)}: index.pack holds ${size} ordinals, the hot index ${hotSize}`);
        }
        let differs: boolean;
        if (size <= DECODE_MAX_ORDINALS) {
          const decoded = decodePortable(item, FINGERPRINT_BYTES, cold);
          bitmap.rangeUint32Array(hot, 0, size);
          differs = decoded !== size;
          for (let k = 0; k < size && !differs; k++) differs = cold[k] !== hot[k];
        } else {
          // A dense term (few per chunk): compared as roaring sets, without ordinal arrays of the chunk's size.
          const view = RoaringBitmap32.unsafeFrozenView(item.subarray(FINGERPRINT_BYTES), 'unsafe_frozen_portable');
          differs = view.size !== size || view.maximum() >= eventCount || view.andCardinality(bitmap) !== size;
        }
        if (differs) this.verifyFailed(`term ${hex(key)}: index.pack and the hot index hold different ordinals`);
      }
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

function flipped(payload: Uint8Array): Uint8Array {
  const copy = copyOf(payload);
  copy[copy.length - 1]! ^= 0x01;
  return copy;
}

function sameCounts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
