// The node's data directory: where each store lives and node.json, the file that says which network the directory
// follows, in which format, and the position the node last recorded. Layout (README "Data directory"):
//
//   <data-dir>/node.json            this file (written atomically: temp file, fsync, rename, fsync of the folder)
//   <data-dir>/state/               @strata/ledger-state: buckets/, has.json, ledger-state.json
//   <data-dir>/events/hot/<id>.db   @strata/hot-store: one SQLite database per chunk of 10,000 ledgers
//   <data-dir>/events/cold/<id>/    @strata/cold-store's frozen chunk: packs/ and index/ (freezer.ts)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isErrnoError, writeFileAtomicSync } from '@strata/base';
import { NodeError } from './errors.js';

/**
 * node.json format versions. A directory written by another version is refused (FORMAT_VERSION), never guessed at.
 * 1: formatVersion, networkPassphrase, networkId, firstLedger, position { ledger, hash } | null.
 */
export const NODE_FORMAT_VERSION = 1;
export const NODE_FILE_NAME = 'node.json';

/** What node.json holds. */
export interface NodeFile {
  readonly formatVersion: number;
  readonly networkPassphrase: string;
  /** SHA-256 of the passphrase, hex: the network id stellar-core signs with. */
  readonly networkId: string;
  /** The first ledger the node put into its stores (the ledger after the state it started from). */
  readonly firstLedger: number;
  /**
   * The newest ledger every store holds durably, with its header hash (hex), or null before the first one. Never
   * ahead of any store: written only after the state committed the ledger and the hot chunk synced it.
   */
  readonly position: { readonly ledger: number; readonly hash: string } | null;
}

/** The paths of a data directory. */
export interface DataDirLayout {
  readonly root: string;
  readonly nodeFile: string;
  readonly stateDir: string;
  readonly hotDir: string;
  readonly coldDir: string;
  /**
   * The LedgerCloseMeta XDR of the ledger node.json's position names, written beside each position (atomic, not
   * fsynced: a cache). At startup it is used only when it is that ledger (sequence and header hash): getLatestLedger
   * answers right after a restart instead of waiting for the next ledger.
   */
  readonly latestLedgerFile: string;
}

export function dataDirLayout(root: string): DataDirLayout {
  return {
    root,
    nodeFile: join(root, NODE_FILE_NAME),
    stateDir: join(root, 'state'),
    hotDir: join(root, 'events', 'hot'),
    coldDir: join(root, 'events', 'cold'),
    latestLedgerFile: join(root, 'latest-ledger.xdr'),
  };
}

/** The hot chunk database of `chunkId`. */
export function hotChunkPath(layout: DataDirLayout, chunkId: number): string {
  return join(layout.hotDir, `${chunkId}.db`);
}

/** Chunk ids of the hot databases present, ascending. */
export function hotChunkIds(layout: DataDirLayout): number[] {
  if (!existsSync(layout.hotDir)) return [];
  return readdirSync(layout.hotDir)
    .map((name) => /^(\d+)\.db$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export function networkIdOf(passphrase: string): string {
  return createHash('sha256').update(passphrase, 'utf8').digest('hex');
}

/** node.json of `layout`, checked; undefined when the directory has none yet. */
export function readNodeFile(layout: DataDirLayout): NodeFile | undefined {
  let text: string;
  try {
    text = readFileSync(layout.nodeFile, 'utf8');
  } catch (error) {
    if (isErrnoError(error) && error.code === 'ENOENT') return undefined;
    throw new NodeError('IO', 'cannot read node.json', { file: layout.nodeFile, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new NodeError('BAD_DATA_DIR', 'node.json is not JSON', { file: layout.nodeFile, cause: error });
  }
  const bad = (field: string) =>
    new NodeError('BAD_DATA_DIR', `node.json has no valid ${field}`, { file: layout.nodeFile, field });
  if (typeof value !== 'object' || value === null) throw bad('object');
  const record = value as Record<string, unknown>;
  if (typeof record.formatVersion !== 'number') throw bad('formatVersion');
  if (record.formatVersion !== NODE_FORMAT_VERSION) {
    throw new NodeError(
      'FORMAT_VERSION',
      `the data directory has format version ${record.formatVersion}; this node reads version ${NODE_FORMAT_VERSION}`,
      { file: layout.nodeFile, field: 'formatVersion' },
    );
  }
  if (typeof record.networkPassphrase !== 'string' || record.networkPassphrase === '') throw bad('networkPassphrase');
  if (record.networkId !== networkIdOf(record.networkPassphrase)) throw bad('networkId');
  if (!isLedger(record.firstLedger)) throw bad('firstLedger');
  const position = record.position;
  if (position !== null) {
    const p = position as Record<string, unknown> | undefined;
    if (typeof p !== 'object' || !isLedger(p.ledger) || typeof p.hash !== 'string' || !/^[0-9a-f]{64}$/.test(p.hash)) {
      throw bad('position');
    }
  }
  return record as unknown as NodeFile;
}

/** Writes node.json atomically and durably (a crash leaves the old file or the new one). */
export function writeNodeFile(layout: DataDirLayout, file: NodeFile): void {
  try {
    mkdirSync(layout.root, { recursive: true });
    writeFileAtomicSync(layout.nodeFile, Buffer.from(`${JSON.stringify(file, null, 2)}\n`));
  } catch (error) {
    throw new NodeError('IO', 'cannot write node.json', { file: layout.nodeFile, cause: error });
  }
}

/** Refuses a data directory of another network than `passphrase` (when one is given). */
export function checkNetwork(layout: DataDirLayout, file: NodeFile, passphrase: string | undefined): void {
  if (passphrase === undefined || passphrase === file.networkPassphrase) return;
  throw new NodeError(
    'WRONG_NETWORK',
    `the data directory follows network ${JSON.stringify(file.networkPassphrase)}, not ${JSON.stringify(passphrase)}`,
    { file: layout.nodeFile, field: 'networkPassphrase' },
  );
}

function isLedger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}
