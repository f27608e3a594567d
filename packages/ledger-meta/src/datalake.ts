// SEP-54 ledger-metadata data lakes on a local file system: the layout (names from the config), an atomic writer of
// zstd-compressed LedgerCloseMetaBatch files, and a range reader that computes each file's path instead of listing.
//
// Sources: SEP-54 v0.2.0 (stellar-protocol ecosystem/sep-0054.md): value = zstd(XDR LedgerCloseMetaBatch
// { uint32 startSequence; uint32 endSequence; LedgerCloseMeta ledgerCloseMetas<>; }); partition directory
// `%08X--%d-%d` of (0xFFFFFFFF - partitionStart, partitionStart, partitionEnd), omitted when a partition holds one
// batch; batch file `%08X--%d-%d.xdr.zst`, or `%08X--%d.xdr.zst` when a batch holds one ledger. The config is
// galexie's manifest `.config.json` at the lake root (stellar/go services/galexie manifest.go: networkPassphrase,
// version "1.0", compression, ledgersPerBatch, batchesPerPartition); batch and partition starts are multiples of
// their sizes (ledger 2 sits in batch 0-… and partition 0-…, as in the public lake's `FFFFFFFF--0-63999/`).
import { constants as bufferConstants } from 'node:buffer';
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assert, fsyncDirectory, writeFileAtomic } from '@strata/base';
import { compress } from 'zstd-napi';
// The native binding: its streaming decompressor lets us cap the output as it grows (the package's one-shot
// `decompress` allocates whatever size a frame header declares, which a hostile file controls).
import zstd from 'zstd-napi/binding.js';
import {
  checkBytes,
  checkInteger,
  checkLedgerRange,
  checkLedgerSequence,
  checkOptions,
  checkPath,
  checkString,
  invalidArgument,
  MAX_LEDGER_SEQUENCE,
  optionalInteger,
} from './arguments.js';
import { LedgerMetaError, LedgerMetaErrorCode, relocated } from './errors.js';
import { readLedgerSequence } from './ledger-close-meta.js';
import { skipXdr } from './xdr-walker.js';

/** The config file's name at the lake root (galexie `manifestFilename`). */
export const DATA_LAKE_CONFIG_FILE = '.config.json';
/** The manifest version galexie writes (`ManifestVersion`). */
export const DATA_LAKE_MANIFEST_VERSION = '1.0';
/** Galexie's defaults, which the public pubnet lake uses: one ledger per file, 64 000 files per partition. */
export const DEFAULT_LEDGERS_PER_BATCH = 1;
export const DEFAULT_BATCHES_PER_PARTITION = 64_000;

const MAX_UINT32 = MAX_LEDGER_SEQUENCE;
/** Ledgers per batch and batches per partition: at least 1, at most the number of ledger sequences. */
const MAX_LAYOUT_COUNT = MAX_UINT32 + 1;

export interface DataLakeConfig {
  networkPassphrase: string;
  version: string;
  compression: 'zstd';
  ledgersPerBatch: number;
  batchesPerPartition: number;
}

/** Where one batch lives: its aligned ledger range and its path relative to the lake root. */
export interface BatchLocation {
  /** First ledger the batch may hold (a multiple of ledgersPerBatch). */
  batchStart: number;
  /** Last ledger the batch may hold. */
  batchEnd: number;
  /** Partition directory name, or null when partitions hold a single batch. */
  partition: string | null;
  /** Batch file name. */
  file: string;
  /** `partition/file` or `file`. */
  relativePath: string;
}

function hex8(value: number): string {
  return value.toString(16).toUpperCase().padStart(8, '0');
}

/** The layout counts of a config or writer options, checked (integers in [1, 2^32]). */
function checkLayout(
  options: Record<string, unknown>,
  defaults: boolean,
): { ledgersPerBatch: number; batchesPerPartition: number } {
  const count = (name: 'ledgersPerBatch' | 'batchesPerPartition', fallback: number) =>
    defaults
      ? optionalInteger(options[name], name, 1, MAX_LAYOUT_COUNT, fallback)
      : checkInteger(options[name], name, 1, MAX_LAYOUT_COUNT);
  return {
    ledgersPerBatch: count('ledgersPerBatch', DEFAULT_LEDGERS_PER_BATCH),
    batchesPerPartition: count('batchesPerPartition', DEFAULT_BATCHES_PER_PARTITION),
  };
}

/** The SEP-54 location of the batch holding `ledger` (a uint32). Bad arguments are INVALID_ARGUMENT. */
export function batchLocation(
  ledger: number,
  config: Pick<DataLakeConfig, 'ledgersPerBatch' | 'batchesPerPartition'>,
): BatchLocation {
  checkLedgerSequence(ledger, 'ledger');
  const { ledgersPerBatch, batchesPerPartition } = checkLayout(checkOptions(config, 'config'), false);
  const batchStart = Math.floor(ledger / ledgersPerBatch) * ledgersPerBatch;
  const batchEnd = Math.min(batchStart + ledgersPerBatch - 1, MAX_UINT32);
  const file =
    batchEnd === batchStart
      ? `${hex8(MAX_UINT32 - batchStart)}--${batchStart}.xdr.zst`
      : `${hex8(MAX_UINT32 - batchStart)}--${batchStart}-${batchEnd}.xdr.zst`;
  let partition: string | null = null;
  if (batchesPerPartition > 1) {
    const size = ledgersPerBatch * batchesPerPartition;
    const partitionStart = Math.floor(ledger / size) * size;
    const partitionEnd = Math.min(partitionStart + size - 1, MAX_UINT32);
    partition = `${hex8(MAX_UINT32 - partitionStart)}--${partitionStart}-${partitionEnd}`;
  }
  return { batchStart, batchEnd, partition, file, relativePath: partition === null ? file : `${partition}/${file}` };
}

/**
 * Encodes LedgerCloseMetaBatch XDR from consecutive LCMs: at least one, starting at `startSequence`, the last one's
 * sequence within uint32. Bad arguments are INVALID_ARGUMENT.
 */
export function encodeLedgerCloseMetaBatch(startSequence: number, lcms: readonly Uint8Array[]): Uint8Array {
  checkLedgerSequence(startSequence, 'startSequence');
  if (!Array.isArray(lcms) || lcms.length === 0) throw invalidArgument('lcms', 'a non-empty array', lcms);
  checkLedgerSequence(startSequence + lcms.length - 1, 'lcms.length');
  for (let i = 0; i < lcms.length; i++) checkBytes(lcms[i], `lcms[${i}]`);
  const header = Buffer.alloc(BATCH_HEADER_BYTES);
  header.writeUInt32BE(startSequence, 0);
  header.writeUInt32BE(startSequence + lcms.length - 1, 4);
  header.writeUInt32BE(lcms.length, 8);
  return Buffer.concat([header, ...lcms]);
}

export interface DataLakeWriterOptions {
  /** Ledgers per batch file (default 1), an integer in [1, 2^32]. */
  ledgersPerBatch?: number;
  /** Batch files per partition directory (default 64 000), an integer in [1, 2^32]. */
  batchesPerPartition?: number;
  networkPassphrase: string;
  /** zstd level (default 3, zstd's own default), an integer zstd accepts (-131072 to 22). */
  compressionLevel?: number;
}

/**
 * Writes a SEP-54 lake under `root`: the config first, then one file per batch as ledgers arrive (in order,
 * consecutive). Each batch file is written atomically (temp, fsync, rename); directories are fsynced when a
 * partition is left and at `close()`, so after a crash every visible file is complete and the last batches may be
 * missing. A batch cut short by `close()` holds the ledgers it got (its name still says the aligned range, like
 * galexie's). One writer per lake; await each call.
 */
export class DataLakeWriter {
  private batch: Uint8Array[] = [];
  private batchFirst = -1;
  private nextSequence = -1;
  private readonly touchedDirectories = new Set<string>();
  /** Compressed bytes written so far. */
  bytesWritten = 0;
  filesWritten = 0;

  private constructor(
    readonly root: string,
    readonly config: DataLakeConfig,
    private readonly compressionLevel: number,
  ) {}

  /** Creates the lake's config under `root`. Bad arguments are INVALID_ARGUMENT, before anything is written. */
  static async create(root: string, options: DataLakeWriterOptions): Promise<DataLakeWriter> {
    checkPath(root, 'root');
    const checked = checkOptions(options, 'options');
    const config: DataLakeConfig = {
      networkPassphrase: checkString(checked.networkPassphrase, 'networkPassphrase'),
      version: DATA_LAKE_MANIFEST_VERSION,
      compression: 'zstd',
      ...checkLayout(checked, true),
    };
    const level = optionalInteger(checked.compressionLevel, 'compressionLevel', zstd.minCLevel(), zstd.maxCLevel(), 3);
    // The commit fsyncs root, which makes the config and the folder itself durable.
    await writeFileAtomic(join(root, DATA_LAKE_CONFIG_FILE), new TextEncoder().encode(JSON.stringify(config)));
    return new DataLakeWriter(root, config, level);
  }

  /**
   * Adds the next ledger; `sequence` defaults to the one read from the LCM's header. A ledger that does not follow
   * the previous one is OUT_OF_ORDER; bad arguments are INVALID_ARGUMENT.
   */
  async write(lcm: Uint8Array, sequence?: number): Promise<void> {
    checkBytes(lcm, 'lcm');
    sequence = sequence === undefined ? readLedgerSequence(lcm) : checkLedgerSequence(sequence, 'sequence');
    if (this.nextSequence >= 0 && sequence !== this.nextSequence) {
      throw new LedgerMetaError(
        LedgerMetaErrorCode.OUT_OF_ORDER,
        `ledger ${sequence} written after ${this.nextSequence - 1}: ledgers must be consecutive`,
      );
    }
    if (this.batch.length === 0) this.batchFirst = sequence;
    this.batch.push(lcm);
    this.nextSequence = sequence + 1;
    if (sequence === batchLocation(sequence, this.config).batchEnd) await this.flushBatch();
  }

  private async flushBatch(): Promise<void> {
    if (this.batch.length === 0) return;
    const location = batchLocation(this.batchFirst, this.config);
    const compressed = compress(encodeLedgerCloseMetaBatch(this.batchFirst, this.batch), {
      compressionLevel: this.compressionLevel,
    });
    const directory = location.partition === null ? this.root : join(this.root, location.partition);
    if (!this.touchedDirectories.has(directory)) {
      // Entering a new partition: make the previous ones' renames durable now rather than all at the end.
      for (const previous of this.touchedDirectories) await fsyncDirectory(previous);
      this.touchedDirectories.clear();
      this.touchedDirectories.add(directory);
    }
    await writeFileAtomic(join(this.root, location.relativePath), compressed, { fsyncDirectory: false });
    this.bytesWritten += compressed.length;
    this.filesWritten++;
    this.batch = [];
  }

  /** Writes the last (possibly partial) batch and fsyncs the directories. */
  async close(): Promise<void> {
    await this.flushBatch();
    for (const directory of this.touchedDirectories) await fsyncDirectory(directory);
    await fsyncDirectory(this.root);
  }
}

/** Reads and checks a lake's config. */
export async function readDataLakeConfig(root: string): Promise<DataLakeConfig> {
  const file = join(checkPath(root, 'root'), DATA_LAKE_CONFIG_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot read the data lake config', { file, cause });
  }
  const config = parsed as Partial<DataLakeConfig>;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_LAYOUT_COUNT;
  if (!count(config.ledgersPerBatch) || !count(config.batchesPerPartition) || config.compression !== 'zstd') {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.IO,
      'config needs integer ledgersPerBatch and batchesPerPartition in [1, 2^32] and compression "zstd"',
      { file },
    );
  }
  return config as DataLakeConfig;
}

export interface DataLakeRange {
  /** First ledger to read (a uint32); default: the oldest in the lake (found by listing two directories). */
  from?: number;
  /** Last ledger to read (a uint32, not below `from`); default: the newest in the lake. */
  to?: number;
  /**
   * Largest decompressed batch accepted, in bytes (an integer ≥ 1). Default: 12 + MAX_BATCH_BYTES_PER_LEDGER for
   * each ledger the batch declares (its name, then its header), at most MAX_BATCH_BYTES. A batch file that would
   * inflate beyond it is TOO_LONG, refused before (or while) inflating: memory is bounded by the cap, not by the file.
   */
  maxBatchBytes?: number;
}

/**
 * Default allowance per ledger of a batch, in decompressed bytes: a batch declaring n ledgers may inflate to
 * 12 + n × this, at most MAX_BATCH_BYTES. It is a quarter of the stream reader's record cap (DEFAULT_MAX_RECORD_BYTES)
 * on purpose: a stream record's length is checked against the bytes the file really holds, whereas a compressed
 * batch's size says nothing about what it inflates to, so this cap is all that keeps a small hostile file from taking
 * memory. Pubnet LCMs are a few MiB, and the generator's largest ledgers (GENERATOR_LIMITS) stay well below it.
 */
export const MAX_BATCH_BYTES_PER_LEDGER = 64 * 1024 * 1024;

/** The most one decompressed LedgerCloseMetaBatch may take by default, whatever its ledger count. */
export const MAX_BATCH_BYTES = 1024 * 1024 * 1024;

/** The largest `maxBatchBytes` a caller may set: one byte below the largest Buffer (the reader needs cap + 1). */
const MAX_BATCH_BYTES_OPTION = bufferConstants.MAX_LENGTH - 1;

/** LedgerCloseMetaBatch { uint32 startSequence; uint32 endSequence; LedgerCloseMeta ledgerCloseMetas<> }: the 12 bytes
 * before the LCMs (the two sequences and the array's count). */
const BATCH_HEADER_BYTES = 12;

/** Batch start of names like `FFFFFFFD--2-3.xdr.zst` / partitions `FFFFFFFF--0-63999`. */
const NAME_PATTERN = /^([0-9A-F]{8})--(\d+)(?:-(\d+))?(\.xdr\.zst)?$/;

/** The entry of `directory` with the smallest (newest) or largest (oldest) hex prefix, without reading others. */
async function extremeEntry(directory: string, oldest: boolean, files: boolean): Promise<string> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot list the data lake', { file: directory, cause });
  }
  let best: string | null = null;
  for (const name of names) {
    const match = NAME_PATTERN.exec(name);
    if (match === null || (match[4] !== undefined) !== files) continue;
    if (best === null || (oldest ? name > best : name < best)) best = name;
  }
  if (best === null)
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'no ledger files in the data lake', { file: directory });
  return best;
}

/** The oldest or newest batch file (relative path) of a lake: lists the root and one partition only. */
async function edgeBatch(root: string, config: DataLakeConfig, oldest: boolean): Promise<string> {
  if (config.batchesPerPartition === 1) return extremeEntry(root, oldest, true);
  const partition = await extremeEntry(root, oldest, false);
  return `${partition}/${await extremeEntry(join(root, partition), oldest, true)}`;
}

/**
 * Yields the LedgerCloseMeta XDR of ledgers `from..to` of a SEP-54 lake, in order, one batch file in memory at a
 * time (each yielded array is a view into that batch's decompressed bytes). Paths come from the config, so a range
 * touches only its own files. Bad arguments (a `from` or `to` that is not a uint32, `from` after `to`, a bad
 * `maxBatchBytes`) are INVALID_ARGUMENT, thrown by this call; missing files, bad zstd, a batch over the cap, malformed
 * or empty batch XDR and sequence mismatches throw LedgerMetaError naming the file (and the offset in the
 * decompressed batch) while iterating. A range with an explicit `to` must be in the lake entirely (OUT_OF_ORDER
 * otherwise). Safe to run several at once.
 */
export function readDataLake(root: string, range: DataLakeRange = {}): AsyncGenerator<Uint8Array, void, undefined> {
  checkPath(root, 'root');
  const options = checkOptions(range, 'range');
  const bounds = checkLedgerRange(options);
  const maxBatchBytes =
    options.maxBatchBytes === undefined
      ? undefined
      : checkInteger(options.maxBatchBytes, 'maxBatchBytes', 1, MAX_BATCH_BYTES_OPTION);
  return readLake(root, bounds, maxBatchBytes);
}

async function* readLake(
  root: string,
  range: { from?: number; to?: number },
  maxBatchBytes: number | undefined,
): AsyncGenerator<Uint8Array, void, undefined> {
  const config = await readDataLakeConfig(root);
  const openEnded = range.to === undefined;
  // Names found by listing are clamped to uint32: a name beyond it names no ledger the reader could ask for.
  const from =
    range.from ??
    Math.min(MAX_UINT32, Number(NAME_PATTERN.exec((await edgeBatch(root, config, true)).split('/').pop() ?? '')?.[2]));
  let to = range.to ?? -1;
  if (openEnded) {
    const newest = NAME_PATTERN.exec((await edgeBatch(root, config, false)).split('/').pop() ?? '');
    to = Math.min(MAX_UINT32, Number(newest?.[3] ?? newest?.[2]));
  }
  let expected = from;
  let yielded = 0;
  for (
    let batchStart = batchLocation(from, config).batchStart;
    batchStart <= to;
    batchStart += config.ledgersPerBatch
  ) {
    const location = batchLocation(batchStart, config);
    const file = join(root, location.relativePath);
    const batch = await readBatchFile(file, location, maxBatchBytes);
    // A gap between batches shows up as the next batch starting past `expected`; a short last batch is fine when the
    // range is open-ended (the lake's newest batch may be partial) and an error otherwise (checked after the loop).
    const { startSequence, lcms } = parseBatch(batch, file, location);
    // An open start begins at the oldest batch's first ledger (its name only gives the aligned start).
    if (range.from === undefined && expected === from) expected = Math.max(from, startSequence);
    for (let i = 0; i < lcms.length; i++) {
      const sequence = startSequence + i;
      if (sequence < expected || sequence > to) continue;
      if (sequence !== expected) {
        throw new LedgerMetaError(
          LedgerMetaErrorCode.OUT_OF_ORDER,
          `ledger ${expected} is missing (batch starts at ${startSequence})`,
          { file },
        );
      }
      yield lcms[i] as Uint8Array;
      yielded++;
      expected++;
    }
  }
  // An explicit end must be reached; with an open start, a `to` before the lake's first ledger yields nothing, which
  // is as wrong as a missing tail.
  if (!openEnded && (expected <= to || yielded === 0)) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.OUT_OF_ORDER,
      `ledgers ${Math.min(expected, to)}..${to} are not in the data lake`,
      { file: root },
    );
  }
}

/** The default cap of a batch declaring `ledgers` ledgers (see MAX_BATCH_BYTES_PER_LEDGER). */
function defaultBatchCap(ledgers: number): number {
  return Math.min(MAX_BATCH_BYTES, BATCH_HEADER_BYTES + ledgers * MAX_BATCH_BYTES_PER_LEDGER);
}

/** Smallest output buffer of the decompressor, and the first guess's floor when the size is not declared. */
const MIN_OUTPUT_BYTES = 64 * 1024;
/** The compressed file is read through a buffer of at most this size (one read for a typical one-ledger batch). */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads and inflates one batch file with memory bounded by its cap (the caller's `maxBatchBytes`, else the ledgers
 * the batch declares: its name's count until the header is in, then the header's own). What is allocated does not
 * depend on the file: one read buffer (at most 1 MiB), one output buffer that doubles up to cap + 1 bytes (one byte
 * over the cap is how an overflow shows; the first frame's declared size is the first guess), and zstd's own window
 * (at most its default windowLogMax, 128 MiB). However many frames the file holds, they all inflate into that one
 * buffer, and a first frame declaring more than the cap is refused before anything is inflated.
 */
async function readBatchFile(
  file: string,
  location: BatchLocation,
  maxBatchBytes: number | undefined,
): Promise<Uint8Array> {
  let cap = maxBatchBytes ?? defaultBatchCap(location.batchEnd - location.batchStart + 1);
  const tooLarge = (what: string) =>
    new LedgerMetaError(LedgerMetaErrorCode.TOO_LONG, `${what}, over the cap of ${cap} bytes`, { file, offset: 0 });
  const io = async <T>(action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (cause) {
      throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot read batch file', { file, cause });
    }
  };
  const handle = await io(() => open(file, 'r'));
  try {
    const size = (await io(() => handle.stat())).size;
    const input = Buffer.allocUnsafeSlow(Math.max(1, Math.min(size, READ_CHUNK_BYTES)));
    let inputStart = 0;
    let inputEnd = 0;
    let position = 0; // file offset of input[inputEnd]
    const refill = async () => {
      const { bytesRead } = await io(() => handle.read(input, 0, input.length, position));
      inputStart = 0;
      inputEnd = bytesRead;
      position += bytesRead;
      // A file that shrank while being read ends here, as a truncated frame (checked by zstd's hint below).
      if (bytesRead === 0) position = size;
    };
    await refill();
    let out = Buffer.allocUnsafeSlow(0);
    let written = 0;
    try {
      const dctx = new zstd.DCtx();
      const declared = zstd.getFrameContentSize(input.subarray(0, inputEnd));
      if (declared !== null && declared > cap) throw tooLarge(`its zstd frame declares ${declared} bytes`);
      out = Buffer.allocUnsafeSlow(Math.min(cap + 1, declared ?? Math.max(MIN_OUTPUT_BYTES, size * 4)));
      let headerChecked = false;
      // `remaining` is zstd's hint: 0 once the last frame is complete and flushed.
      let remaining = 1;
      for (;;) {
        if (inputStart === inputEnd && position < size) await refill();
        if (written === out.length) {
          // Full: double, up to one byte over the cap (written ≤ cap here, so the new buffer is larger).
          const grown = Buffer.allocUnsafeSlow(Math.min(cap + 1, Math.max(MIN_OUTPUT_BYTES, out.length * 2)));
          assert(grown.length > written, 'the output buffer grows');
          grown.set(out.subarray(0, written));
          out = grown;
        }
        const [hint, produced, consumed] = dctx.decompressStream(
          out.subarray(written),
          input.subarray(inputStart, inputEnd),
        );
        remaining = hint;
        written += produced;
        inputStart += consumed;
        if (!headerChecked && written >= BATCH_HEADER_BYTES) {
          headerChecked = true;
          const { count } = readBatchHeader(out.subarray(0, written), file, location);
          if (maxBatchBytes === undefined) cap = Math.min(cap, defaultBatchCap(count));
        }
        if (written > cap) throw tooLarge(`batch inflates to more than ${cap} bytes`);
        const inputDone = inputStart === inputEnd && position >= size;
        // Done when the file is used up and zstd holds nothing back: the last frame ended, or it left output room.
        if (inputDone && (hint === 0 || written < out.length)) break;
        if (produced === 0 && consumed === 0 && written < out.length) break; // no progress: cut short (checked below)
      }
      if (remaining !== 0) {
        throw new LedgerMetaError(LedgerMetaErrorCode.BAD_COMPRESSION, 'the last zstd frame is cut short', {
          file,
          offset: 0,
        });
      }
    } catch (cause) {
      if (cause instanceof LedgerMetaError) throw cause;
      throw new LedgerMetaError(LedgerMetaErrorCode.BAD_COMPRESSION, 'not a valid zstd frame', {
        file,
        offset: 0,
        cause,
      });
    }
    if (written === out.length) return out;
    // A guess far above the batch is not kept alive with the batch's ledgers.
    return written < out.length * 0.75 ? Uint8Array.prototype.slice.call(out, 0, written) : out.subarray(0, written);
  } finally {
    await handle.close();
  }
}

/**
 * The LedgerCloseMetaBatch header, checked against the file's name: at least one ledger (SEP-54 batches are never
 * empty), all inside the name's range, and a count that matches the sequences. `batch` holds at least 12 bytes.
 */
function readBatchHeader(
  batch: Uint8Array,
  file: string,
  location: BatchLocation,
): { startSequence: number; endSequence: number; count: number } {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const startSequence = view.getUint32(0);
  const endSequence = view.getUint32(4);
  const count = view.getUint32(8);
  if (
    startSequence < location.batchStart ||
    endSequence > location.batchEnd ||
    endSequence < startSequence ||
    endSequence - startSequence + 1 !== count
  ) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.BATCH_MISMATCH,
      `batch says ${startSequence}..${endSequence} with ${count} ledgers; its name says ${location.batchStart}..${location.batchEnd}`,
      { file, offset: 0, field: 'LedgerCloseMetaBatch' },
    );
  }
  return { startSequence, endSequence, count };
}

/** Splits a LedgerCloseMetaBatch into its LCMs, validating each and checking every sequence against the header. */
function parseBatch(
  batch: Uint8Array,
  file: string,
  location: BatchLocation,
): { startSequence: number; endSequence: number; lcms: Uint8Array[] } {
  if (batch.length < BATCH_HEADER_BYTES) {
    throw new LedgerMetaError(LedgerMetaErrorCode.TRUNCATED, `batch header needs 12 bytes, file has ${batch.length}`, {
      file,
      offset: 0,
    });
  }
  const { startSequence, endSequence, count } = readBatchHeader(batch, file, location);
  const lcms: Uint8Array[] = [];
  let offset = BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    let end: number;
    try {
      end = skipXdr('LedgerCloseMeta', batch, offset);
    } catch (error) {
      if (error instanceof LedgerMetaError) {
        throw relocated(error, { file, fieldPrefix: `LedgerCloseMetaBatch.ledgerCloseMetas[${i}]` });
      }
      throw error;
    }
    const lcm = batch.subarray(offset, end);
    const sequence = readLedgerSequence(lcm, { file, offset });
    if (sequence !== startSequence + i) {
      throw new LedgerMetaError(
        LedgerMetaErrorCode.BATCH_MISMATCH,
        `ledger ${sequence} where the batch expects ${startSequence + i}`,
        {
          file,
          offset,
          field: `LedgerCloseMetaBatch.ledgerCloseMetas[${i}]`,
        },
      );
    }
    lcms.push(lcm);
    offset = end;
  }
  if (offset !== batch.length) {
    throw new LedgerMetaError(LedgerMetaErrorCode.TRAILING_BYTES, `${batch.length - offset} bytes after the batch`, {
      file,
      offset,
    });
  }
  return { startSequence, endSequence, lcms };
}
