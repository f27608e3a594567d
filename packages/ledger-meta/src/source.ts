// One entry point for every ledger source a user has on disk: a record-marked LedgerCloseMeta stream file, a SEP-54
// data lake (a folder with .config.json), or a folder of stream files (read one file after another, in name order,
// each a separate stream — stellar-core's test captures are laid out that way). Used by the CLIs and the node.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkLedgerRange, checkOptions, checkPath } from './arguments.js';
import { DATA_LAKE_CONFIG_FILE, readDataLake } from './datalake.js';
import { LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import { readLedgerSequence } from './ledger-close-meta.js';
import { type LedgerCloseMetaRecord, readLedgerCloseMetaStream } from './stream.js';

export type LedgerSourceKind = 'stream' | 'datalake' | 'stream-folder';

export interface LedgerSourceOptions {
  /** First ledger to yield (inclusive, a uint32). A data lake reads only the batch files from here on. */
  from?: number;
  /** Last ledger to yield (inclusive, a uint32, not below `from`). */
  to?: number;
}

/** What kind of source `path` is: a file is a stream, a folder with .config.json a data lake, else a stream folder. */
export async function detectLedgerSource(path: string): Promise<LedgerSourceKind> {
  checkPath(path, 'path');
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot open the ledger source', { file: path, cause });
  }
  if (!info.isDirectory()) return 'stream';
  try {
    await stat(join(path, DATA_LAKE_CONFIG_FILE));
    return 'datalake';
  } catch {
    return 'stream-folder';
  }
}

/** Stream files under `dir` (recursively), sorted by path so the order is the same on every machine. */
async function streamFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })).map(String);
  } catch (cause) {
    throw new LedgerMetaError(LedgerMetaErrorCode.IO, 'cannot list the ledger folder', { file: dir, cause });
  }
  return names
    .filter((name) => name.endsWith('.xdr'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * Every ledger of the source at `path` in order, as records (file, record index, offset, sequence, bytes), limited
 * to [from, to]. Bounded memory: one record (stream) or one batch (data lake) at a time. A bad `path`, a `from` or
 * `to` that is not a uint32, or `from` after `to` is INVALID_ARGUMENT, thrown by this call; everything found while
 * reading is a LedgerMetaError with the file and offset. A data-lake ledger's `offset` is 0 (it lives inside a
 * compressed batch).
 */
export function openLedgerSource(
  path: string,
  options: LedgerSourceOptions = {},
): AsyncGenerator<LedgerCloseMetaRecord, void, undefined> {
  checkPath(path, 'path');
  return readSource(path, checkLedgerRange(checkOptions(options, 'options')));
}

async function* readSource(
  path: string,
  range: { from?: number; to?: number },
): AsyncGenerator<LedgerCloseMetaRecord, void, undefined> {
  const kind = await detectLedgerSource(path);
  if (kind === 'datalake') {
    let record = 0;
    for await (const bytes of readDataLake(path, range)) {
      yield { file: path, record: record++, offset: 0, ledgerSeq: readLedgerSequence(bytes), bytes };
    }
    return;
  }
  const from = range.from ?? 0;
  const to = range.to ?? Number.MAX_SAFE_INTEGER;
  const files = kind === 'stream' ? [path] : await streamFiles(path);
  for (const file of files) {
    for await (const record of readLedgerCloseMetaStream(file)) {
      if (record.ledgerSeq > to) break;
      if (record.ledgerSeq >= from) yield record;
    }
  }
}
