// Ledger sources the node reads: a record-stream file, a folder of stream files, or a SEP-54 data lake, through
// @strata/ledger-meta. A single stream file is read without the reader's own order check so that the pipeline can
// say exactly what is wrong (gap, duplicate, out of order) and name the ledger; the other kinds keep the reader's
// check, whose OUT_OF_ORDER arrives wrapped in SOURCE_FAILED.

import {
  detectLedgerSource,
  extractLedger,
  type LedgerCloseMetaRecord,
  LedgerMetaError,
  openLedgerSource,
  readLedgerCloseMetaStream,
} from '@strata/ledger-meta';
import {
  type GenesisLedger,
  GenesisReveals,
  genesisEntries,
  genesisProtocolOf,
  genesisTestConfigOf,
} from '@strata/ledger-state';
import { NodeError } from './errors.js';

export interface SourceRange {
  /** First ledger to yield (inclusive). */
  readonly from?: number;
  /** Last ledger to yield (inclusive). */
  readonly to?: number;
}

/**
 * The records of `path` from `range.from` on, up to `range.to`, in source order. A record below `from` is skipped
 * (a stream is replayed from its start on every restart); the first record past `to` ends the iteration. Read errors
 * are NodeError SOURCE_FAILED with the LedgerMetaError as `cause`.
 */
export async function* sourceRecords(path: string, range: SourceRange = {}): AsyncGenerator<LedgerCloseMetaRecord> {
  const kind = await wrapSource(path, () => detectLedgerSource(path));
  const records =
    kind === 'stream'
      ? readLedgerCloseMetaStream(path, { checkOrder: false })
      : openLedgerSource(path, {
          ...(range.from === undefined ? {} : { from: range.from }),
          ...(range.to === undefined ? {} : { to: range.to }),
        });
  const iterator = records[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await wrapSource(path, () => iterator.next());
      if (next.done === true) return;
      const record = next.value;
      if (range.from !== undefined && record.ledgerSeq < range.from) continue;
      if (range.to !== undefined && record.ledgerSeq > range.to) return;
      yield record;
    }
  } finally {
    await iterator.return?.(undefined);
  }
}

/** The first ledger of a source (undefined when it is empty). */
export async function firstLedgerOf(path: string): Promise<number | undefined> {
  for await (const record of sourceRecords(path)) return record.ledgerSeq;
  return undefined;
}

async function wrapSource<T>(path: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof LedgerMetaError)) throw error;
    throw new NodeError('SOURCE_FAILED', `cannot read the source: ${error.message}`, {
      file: error.file ?? path,
      cause: error,
    });
  }
}

/**
 * The genesis (ledger 1) of the test network a source from ledger 2 records, as @strata/ledger-state's `genesisOf`
 * builds it (the protocol ledger 2 shows, the genesis values the stream reveals, the test Config they imply), but
 * reading only the leading run of consecutive, readable ledgers: a source with a gap, a duplicate or a corrupt
 * record further on still yields its network's genesis, and the pipeline then stops at that ledger with its own
 * error. A genesis value revealed only past the bad ledger would change ledger 2's bucketListHash, which
 * verification catches.
 */
export async function genesisFromSource(path: string, networkPassphrase: string): Promise<GenesisLedger> {
  const reveals = new GenesisReveals();
  let protocolVersion: number | undefined;
  let previous: number | undefined;
  try {
    for await (const record of sourceRecords(path)) {
      if (previous === undefined ? record.ledgerSeq !== 2 : record.ledgerSeq !== previous + 1) break;
      const extract = extractLedger(record.bytes, record, {
        onChange: (kind, bytes) => {
          if (kind !== 2) reveals.observe(bytes); // 2: REMOVED carries a key, not an entry
        },
      });
      protocolVersion ??= genesisProtocolOf(extract);
      previous = record.ledgerSeq;
    }
  } catch (error) {
    if (!(error instanceof NodeError) && !(error instanceof LedgerMetaError)) throw error;
  }
  if (protocolVersion === undefined) {
    throw new NodeError('SOURCE_MISMATCH', 'the source does not start with a readable ledger 2', { file: path });
  }
  const overrides = reveals.entries();
  const config = genesisTestConfigOf(overrides, protocolVersion);
  return {
    networkPassphrase,
    protocolVersion,
    entries: genesisEntries({ networkPassphrase, protocolVersion, config, overrides }),
  };
}
