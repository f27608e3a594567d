// strata-meta's checks of the <source> argument, so that a path that holds no ledgers, or no ledgers in the range
// asked for, is an error that says why instead of an empty, successful run: before reading (an empty file, a zstd
// batch file passed as a record stream, a folder without stream files or a data lake's .config.json) and after a
// read that yielded nothing (the range is outside what the source holds). Also measures the source for the progress
// bar. Each problem is a LedgerMetaError INVALID_ARGUMENT whose detail names the path and what to pass instead.
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DATA_LAKE_CONFIG_FILE,
  detectLedgerSource,
  type LedgerCloseMetaRecord,
  LedgerMetaError,
  LedgerMetaErrorCode,
  type LedgerSourceKind,
  type LedgerSourceOptions,
  openLedgerSource,
} from '@strata/ledger-meta';
import { usageError } from './command.js';

/** The zstd frame magic number (RFC 8878 §3.1.1), little-endian on disk: what every SEP-54 batch file starts with. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/** A record mark is 4 bytes; a record-marked stream is at least that long. */
const RECORD_MARK_BYTES = 4;

/** What a source is, and how far through it a record is (for the progress bar). */
export interface CheckedSource {
  kind: LedgerSourceKind;
  /** `bytes` of the stream files, or `ledgers` of a data-lake range. */
  unit: 'bytes' | 'ledgers';
  /** The whole job in `unit`s; undefined for a data lake without both --from and --to. */
  total: number | undefined;
  /** Units done once `record`, the `ledgersRead`-th ledger yielded, has been read. */
  position(record: LedgerCloseMetaRecord, ledgersRead: number): number;
}

/** `from..to`, `from ledger N on`, `up to ledger N`. */
export function rangeText(range: LedgerSourceOptions): string {
  if (range.from !== undefined && range.to !== undefined) return `ledgers ${range.from}..${range.to}`;
  if (range.from !== undefined) return `ledgers from ${range.from} on`;
  return `ledgers up to ${range.to}`;
}

/** Checks `path` before it is read and measures it; throws INVALID_ARGUMENT (field `source`) when it is unusable. */
export async function checkSource(path: string, range: LedgerSourceOptions): Promise<CheckedSource> {
  const kind = await detectLedgerSource(path);
  if (kind === 'datalake') {
    const total = range.from !== undefined && range.to !== undefined ? range.to - range.from + 1 : undefined;
    return { kind, unit: 'ledgers', total, position: (_record, ledgersRead) => ledgersRead };
  }
  const files = kind === 'stream' ? [{ file: path, size: (await stat(path)).size }] : await streamFiles(path);
  if (kind === 'stream') await checkStreamFile(path);
  // Bytes before each file, so a record's position is its end within the whole source.
  const before = new Map<string, number>();
  let total = 0;
  for (const { file, size } of files) {
    before.set(file, total);
    total += size;
  }
  return {
    kind,
    unit: 'bytes',
    total,
    // `offset` is where the record's LedgerCloseMeta starts (after its mark), so this is where the record ends.
    position: (record) => (before.get(record.file ?? path) ?? 0) + record.offset + record.bytes.length,
  };
}

async function checkStreamFile(path: string): Promise<void> {
  const head = new Uint8Array(RECORD_MARK_BYTES);
  let length: number;
  try {
    const handle = await open(path, 'r');
    try {
      length = (await handle.read(head, 0, head.length, 0)).bytesRead;
    } finally {
      await handle.close();
    }
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot read the ledger source', { file: path, cause });
  }
  if (length === 0) {
    throw usageError('source', `${path} is empty: a LedgerCloseMeta stream holds at least one record`, path);
  }
  if (length === RECORD_MARK_BYTES && ZSTD_MAGIC.every((byte, i) => head[i] === byte)) {
    throw usageError(
      'source',
      `${path} is zstd-compressed (a SEP-54 data-lake batch file?), not a record-marked LedgerCloseMeta stream: ` +
        `pass the data lake's folder, the one that holds ${DATA_LAKE_CONFIG_FILE}`,
      path,
    );
  }
}

/** The `.xdr` files under a stream folder with their sizes, in the order openLedgerSource reads them (path order). */
async function streamFiles(dir: string): Promise<{ file: string; size: number }[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })).map(String).sort();
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot list the ledger folder', { file: dir, cause });
  }
  const streams = names.filter((name) => name.endsWith('.xdr'));
  if (streams.length === 0) {
    const detail =
      names.length === 0
        ? `${dir} is an empty folder`
        : names.some((name) => name.endsWith('.xdr.zst'))
          ? `${dir} holds .xdr.zst batch files but no ${DATA_LAKE_CONFIG_FILE}: a SEP-54 data lake needs the config ` +
            'galexie writes at its root (networkPassphrase, ledgersPerBatch, batchesPerPartition, compression)'
          : `${dir} holds no .xdr stream files and no ${DATA_LAKE_CONFIG_FILE} (so it is not a data lake either)`;
    throw usageError('source', detail, dir);
  }
  return Promise.all(
    streams.map(async (name) => ({ file: join(dir, name), size: (await stat(join(dir, name))).size })),
  );
}

/** How a read of a source over a range ended: `lastLedger` is the last one yielded, `error` what stopped it. */
export interface ReadOutcome {
  lastLedger: number | undefined;
  error?: unknown;
}

/**
 * The error to throw for a read of `path` over `range` that yielded no ledger, or that a data lake ended because
 * the range runs outside it (a missing batch file, or ledgers missing at the end): one that says what the source
 * holds. Any other failure is returned as it is. Streams are read a second time without the range to say what they
 * hold; a data lake is probed open-ended from a ledger (which reads nothing when that ledger is past its end) and
 * from its start.
 */
export async function explainRange(
  path: string,
  source: CheckedSource,
  range: LedgerSourceOptions,
  outcome: ReadOutcome,
): Promise<unknown> {
  const { error, lastLedger } = outcome;
  const ranged = range.from !== undefined || range.to !== undefined;
  if (source.kind === 'datalake') {
    if (error !== undefined && !outsideLake(error)) return error;
    if (lastLedger !== undefined) {
      // Part of the range was read: the rest is past the end when nothing at all follows the last ledger read.
      if ((await firstLedger(path, { from: lastLedger + 1 })) !== 'none') return error;
      return usageError(
        '--to',
        `${rangeText({ ...range, from: lastLedger + 1 })} are past the end of the data lake ${path}: its newest ledger is ${lastLedger}`,
        path,
      );
    }
    if (!ranged) return error ?? usageError('source', `the data lake ${path} holds no ledgers`, path);
    return (
      (await explainLakeRange(path, range)) ??
      error ??
      usageError('source', `no ${rangeText(range)} in the data lake ${path}`, path)
    );
  }
  if (error !== undefined) return error;
  const holds = source.kind === 'stream' ? `${path} holds` : `the streams in ${path} hold`;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  if (ranged) {
    for await (const record of openLedgerSource(path)) {
      first = Math.min(first, record.ledgerSeq);
      last = Math.max(last, record.ledgerSeq);
    }
  }
  if (last < first) return usageError('source', `${holds} no ledgers`, path);
  if (range.from !== undefined && range.from > last) {
    return usageError('--from', `ledger ${range.from} is past the end: ${holds} ledgers ${first}..${last}`, path);
  }
  return usageError('source', `no ${rangeText(range)}: ${holds} ledgers ${first}..${last}`, path);
}

/** Whether a data-lake read error means the range runs outside the lake: a missing batch file, missing ledgers. */
function outsideLake(error: unknown): boolean {
  if (!(error instanceof LedgerMetaError)) return false;
  if (error.code === LedgerMetaErrorCode.OUT_OF_ORDER) return true;
  return error.code === LedgerMetaErrorCode.IO && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Why a data-lake read over `range` (at least one end given) found nothing; undefined when it cannot tell. */
async function explainLakeRange(path: string, range: LedgerSourceOptions): Promise<LedgerMetaError | undefined> {
  // Open-ended from --from: the lake reads nothing at all when --from is past its newest batch.
  const next = range.from === undefined ? undefined : await firstLedger(path, { from: range.from });
  if (next === 'none') {
    return usageError('--from', `ledger ${range.from} is past the end of the data lake ${path}`, path);
  }
  const oldest = await firstLedger(path, {});
  if (typeof oldest === 'number' && range.to !== undefined && range.to < oldest) {
    const before = `${rangeText(range)} are before the start of the data lake ${path}: it begins at ledger ${oldest}`;
    return usageError(range.from === undefined ? '--to' : '--from', before, path);
  }
  if (typeof oldest === 'number' && range.from !== undefined && range.from < oldest) {
    const before = `ledger ${range.from} is before the start of the data lake ${path}: it begins at ledger ${oldest}`;
    return usageError('--from', before, path);
  }
  if (typeof next === 'number') {
    return usageError(
      'source',
      `no ${rangeText(range)} in the data lake ${path}: the next ledger it holds is ${next}`,
      path,
    );
  }
  return undefined;
}

/**
 * The first ledger a data-lake read over `range` yields: 'none' when it yields none without an error, 'missing'
 * when it fails (its first batch file is missing, or the lake ends before the range).
 */
async function firstLedger(path: string, range: LedgerSourceOptions): Promise<number | 'none' | 'missing'> {
  try {
    for await (const record of openLedgerSource(path, range)) return record.ledgerSeq;
  } catch (error) {
    if (outsideLake(error)) return 'missing';
    throw error;
  }
  return 'none';
}
