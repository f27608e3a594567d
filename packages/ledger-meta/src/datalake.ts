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
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compress } from 'zstd-napi';
// The native binding: its streaming decompressor lets us cap the output as it grows (the package's one-shot
// `decompress` allocates whatever size a frame header declares, which a hostile file controls).
import zstd from 'zstd-napi/binding.js';
import { fsyncDirectory, writeFileAtomic } from './atomic-file.js';
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import { readLedgerSequence } from './ledger-close-meta.js';
import { skipXdr } from './xdr-walker.js';

/** The config file's name at the lake root (galexie `manifestFilename`). */
export const DATA_LAKE_CONFIG_FILE = '.config.json';
/** The manifest version galexie writes (`ManifestVersion`). */
export const DATA_LAKE_MANIFEST_VERSION = '1.0';
/** Galexie's defaults, which the public pubnet lake uses: one ledger per file, 64 000 files per partition. */
export const DEFAULT_LEDGERS_PER_BATCH = 1;
export const DEFAULT_BATCHES_PER_PARTITION = 64_000;

const MAX_UINT32 = 0xffff_ffff;

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

/** The SEP-54 location of the batch holding `ledger`. */
export function batchLocation(
  ledger: number,
  config: Pick<DataLakeConfig, 'ledgersPerBatch' | 'batchesPerPartition'>,
): BatchLocation {
  const { ledgersPerBatch, batchesPerPartition } = config;
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

/** Encodes LedgerCloseMetaBatch XDR from consecutive LCMs. */
export function encodeLedgerCloseMetaBatch(startSequence: number, lcms: readonly Uint8Array[]): Uint8Array {
  const header = Buffer.alloc(12);
  header.writeUInt32BE(startSequence, 0);
  header.writeUInt32BE(startSequence + lcms.length - 1, 4);
  header.writeUInt32BE(lcms.length, 8);
  return Buffer.concat([header, ...lcms]);
}

export interface DataLakeWriterOptions {
  ledgersPerBatch?: number;
  batchesPerPartition?: number;
  networkPassphrase: string;
  /** zstd level (default 3, zstd's own default). */
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

  static async create(root: string, options: DataLakeWriterOptions): Promise<DataLakeWriter> {
    const config: DataLakeConfig = {
      networkPassphrase: options.networkPassphrase,
      version: DATA_LAKE_MANIFEST_VERSION,
      compression: 'zstd',
      ledgersPerBatch: options.ledgersPerBatch ?? DEFAULT_LEDGERS_PER_BATCH,
      batchesPerPartition: options.batchesPerPartition ?? DEFAULT_BATCHES_PER_PARTITION,
    };
    if (!(config.ledgersPerBatch >= 1 && config.batchesPerPartition >= 1)) {
      throw new LedgerMetaError(
        LedgerMetaErrorCode.INVALID_ARGUMENT,
        'ledgersPerBatch and batchesPerPartition must be at least 1',
      );
    }
    await writeFileAtomic(join(root, DATA_LAKE_CONFIG_FILE), new TextEncoder().encode(JSON.stringify(config)));
    await fsyncDirectory(root);
    return new DataLakeWriter(root, config, options.compressionLevel ?? 3);
  }

  /** Adds the next ledger; `sequence` defaults to the one read from the LCM's header. */
  async write(lcm: Uint8Array, sequence = readLedgerSequence(lcm)): Promise<void> {
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
    await writeFileAtomic(join(this.root, location.relativePath), compressed);
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
  const file = join(root, DATA_LAKE_CONFIG_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot read the data lake config', { file, cause });
  }
  const config = parsed as Partial<DataLakeConfig>;
  const positive = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 1;
  if (!positive(config.ledgersPerBatch) || !positive(config.batchesPerPartition) || config.compression !== 'zstd') {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.IO,
      'config needs integer ledgersPerBatch and batchesPerPartition ≥ 1 and compression "zstd"',
      { file },
    );
  }
  return config as DataLakeConfig;
}

export interface DataLakeRange {
  /** First ledger to read; default: the oldest in the lake (found by listing two directories). */
  from?: number;
  /** Last ledger to read; default: the newest in the lake. */
  to?: number;
  /**
   * Largest decompressed batch accepted, in bytes (default MAX_BATCH_BYTES). A batch file that would inflate
   * beyond it is rejected before (or while) inflating, so a hostile file cannot exhaust memory.
   */
  maxBatchBytes?: number;
}

/** Default cap on one decompressed LedgerCloseMetaBatch: far above real batches (pubnet LCMs are a few MiB). */
export const MAX_BATCH_BYTES = 1024 * 1024 * 1024;

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
 * touches only its own files. Missing files, bad zstd, malformed batch XDR and sequence mismatches throw
 * LedgerMetaError naming the file (and the offset in the decompressed batch). Safe to run several at once.
 */
export async function* readDataLake(
  root: string,
  range: DataLakeRange = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const config = await readDataLakeConfig(root);
  const openEnded = range.to === undefined;
  const from =
    range.from ?? Number(NAME_PATTERN.exec((await edgeBatch(root, config, true)).split('/').pop() ?? '')?.[2]);
  let to = range.to ?? -1;
  if (openEnded) {
    const newest = NAME_PATTERN.exec((await edgeBatch(root, config, false)).split('/').pop() ?? '');
    to = Number(newest?.[3] ?? newest?.[2]);
  }
  let expected = from;
  for (
    let batchStart = batchLocation(from, config).batchStart;
    batchStart <= to;
    batchStart += config.ledgersPerBatch
  ) {
    const location = batchLocation(batchStart, config);
    const file = join(root, location.relativePath);
    const batch = await readBatchFile(file, range.maxBatchBytes ?? MAX_BATCH_BYTES);
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
      expected++;
    }
  }
  if (!openEnded && expected <= to) {
    throw new LedgerMetaError(LedgerMetaErrorCode.OUT_OF_ORDER, `ledgers ${expected}..${to} are not in the data lake`, {
      file: root,
    });
  }
}

async function readBatchFile(file: string, maxBytes: number): Promise<Uint8Array> {
  let compressed: Buffer;
  try {
    compressed = await readFile(file);
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot read batch file', { file, cause });
  }
  const tooLarge = (size: number) =>
    new LedgerMetaError(LedgerMetaErrorCode.TOO_LONG, `batch inflates to ${size} bytes, over the cap of ${maxBytes}`, {
      file,
      offset: 0,
    });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const dctx = new zstd.DCtx();
    let input: Uint8Array = compressed;
    // `remaining` is zstd's hint: 0 once the last frame is complete. Keep calling while input is left or the
    // previous call filled its output (more may be pending inside the decompressor).
    let remaining = 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
      const [hint, produced, consumed] = dctx.decompressStream(chunk, input);
      remaining = hint;
      total += produced;
      if (total > maxBytes) throw tooLarge(total);
      if (produced > 0) chunks.push(chunk.subarray(0, produced));
      input = input.subarray(consumed);
      if (input.length === 0 && produced < chunk.length) break;
      if (produced === 0 && consumed === 0) break; // no progress: the frame is cut short (checked below)
    }
    if (remaining !== 0) throw new Error('zstd frame is truncated');
  } catch (cause) {
    if (cause instanceof LedgerMetaError) throw cause;
    throw new LedgerMetaError(LedgerMetaErrorCode.BAD_COMPRESSION, 'not a valid zstd frame', {
      file,
      offset: 0,
      cause,
    });
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
}

/** Output chunk of the streaming decompressor: large enough that a typical batch needs a few native calls. */
const STREAM_CHUNK_BYTES = 4 * 1024 * 1024;

/** Splits a LedgerCloseMetaBatch into its LCMs, validating each and checking every sequence against the header. */
function parseBatch(
  batch: Uint8Array,
  file: string,
  location: BatchLocation,
): { startSequence: number; endSequence: number; lcms: Uint8Array[] } {
  if (batch.length < 12) {
    throw new LedgerMetaError(LedgerMetaErrorCode.TRUNCATED, `batch header needs 12 bytes, file has ${batch.length}`, {
      file,
      offset: 0,
    });
  }
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const startSequence = view.getUint32(0);
  const endSequence = view.getUint32(4);
  const count = view.getUint32(8);
  if (
    startSequence < location.batchStart ||
    endSequence > location.batchEnd ||
    endSequence - startSequence + 1 !== count
  ) {
    throw new LedgerMetaError(
      LedgerMetaErrorCode.BATCH_MISMATCH,
      `batch says ${startSequence}..${endSequence} with ${count} ledgers; its name says ${location.batchStart}..${location.batchEnd}`,
      { file, offset: 0, field: 'LedgerCloseMetaBatch' },
    );
  }
  const lcms: Uint8Array[] = [];
  let offset = 12;
  for (let i = 0; i < count; i++) {
    let end: number;
    try {
      end = skipXdr('LedgerCloseMeta', batch, offset);
    } catch (error) {
      if (error instanceof LedgerMetaError)
        throw error.locate({ file, fieldPrefix: `LedgerCloseMetaBatch.ledgerCloseMetas[${i}]` });
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
