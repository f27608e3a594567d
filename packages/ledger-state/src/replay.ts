// Replaying recorded networks: a stream of LedgerCloseMeta that starts at ledger 2 is a whole test network
// (stellar-core's --capture-lcm streams: ../shared/fixtures/stellar-core-lcm), whose genesis is rebuilt from the
// passphrase, the genesis protocol ledger 2 shows and the genesis values the stream reveals; a stream that starts
// later continues a state made before. Each ledger's computed bucketListHash is compared with its header's.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExtractOptions, extractLedger, openLedgerSource } from '@strata/ledger-meta';
import {
  booleanOr,
  invalidArgument,
  nonEmptyString,
  optionalFunction,
  optionalString,
  optionsRecord,
} from './arguments.js';
import { LedgerStateError } from './errors.js';
import { GenesisReveals, genesisEntries, genesisProtocolOf, genesisTestConfigOf } from './genesis/index.js';
import { type AppliedLedger, checkCommonOptions, LedgerState, type LedgerStateOptions, wrap } from './ledger-state.js';
import { readStateFile } from './state-file.js';

/** The passphrase of stellar-core's test networks (its unit tests' default Config), which the captures use. */
export const TEST_NETWORK_PASSPHRASE = '(V) (;,,;) (V)';

export interface ReplayOptions {
  /** The network's passphrase (default TEST_NETWORK_PASSPHRASE). */
  readonly networkPassphrase?: string;
  /**
   * The state directory. A stream from ledger 2 needs an empty or absent one (default: a temporary directory, deleted
   * afterwards); a later stream continues the state there.
   */
  readonly stateDir?: string;
  /** Called after each ledger. */
  readonly onLedger?: (ledger: AppliedLedger, file: string | undefined) => void;
  /** Stop at the first ledger whose hash differs (default false: replay on, counting). */
  readonly stopAtMismatch?: boolean;
  readonly fsync?: LedgerStateOptions['fsync'];
  readonly merger?: LedgerStateOptions['merger'];
  /** See LedgerStateOptions.rules (all on by default). */
  readonly rules?: LedgerStateOptions['rules'];
}

export interface ReplaySummary {
  /** The stream files replayed. */
  readonly files: number;
  readonly ledgers: number;
  /** Ledgers whose computed bucketListHash equals the header's. */
  readonly matching: number;
  /** The first ledger that did not match, per file. */
  readonly mismatches: readonly { readonly file: string | undefined; readonly ledger: number }[];
}

/**
 * Replays one source (a stream file, a folder of stream files read in name order as one stream, or a SEP-54 data
 * lake: @strata/ledger-meta openLedgerSource) into one state. Throws LedgerStateError for a ledger that cannot be
 * applied; a hash that differs is counted (or stops the replay with `stopAtMismatch`), not thrown.
 */
export async function replaySource(path: string, options: ReplayOptions = {}): Promise<ReplaySummary> {
  nonEmptyString(path, 'path');
  checkReplayOptions(options, false);
  const passphrase = options.networkPassphrase ?? TEST_NETWORK_PASSPHRASE;
  const ownDir = options.stateDir === undefined;
  const dir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'strata-replay-')));
  const stateOptions: LedgerStateOptions = {
    verify: false,
    fsync: options.fsync ?? !ownDir,
    merger: options.merger ?? 'inline',
    ...(options.rules === undefined ? {} : { rules: options.rules }),
  };
  let ledgers = 0;
  let matching = 0;
  const mismatches: { file: string | undefined; ledger: number }[] = [];
  let state: LedgerState | undefined;
  try {
    for await (const record of openLedgerSource(path)) {
      if (state === undefined) {
        state =
          record.ledgerSeq === 2 && readStateFile(dir) === undefined
            ? await LedgerState.create(dir, await genesisOf(path, passphrase), stateOptions)
            : await LedgerState.open(dir, { ...stateOptions, networkPassphrase: passphrase });
      }
      const applied = await state.apply(record.bytes, record);
      ledgers++;
      if (applied.matches) matching++;
      // The first ledger that differs, per file (a folder source is one stream of several files).
      else if (mismatches.length === 0 || mismatches.at(-1)?.file !== record.file) {
        mismatches.push({ file: record.file, ledger: applied.ledger });
      }
      options.onLedger?.(applied, record.file);
      if (!applied.matches && options.stopAtMismatch === true) break;
    }
  } catch (error) {
    throw wrap(error, 'replay the ledger source', path);
  } finally {
    await state?.close();
    if (ownDir) await rm(dir, { recursive: true, force: true });
  }
  return { files: 1, ledgers, matching, mismatches };
}

/**
 * Replays every stream file (`*.xdr`) under `folder`, searched recursively, each as its own network from genesis
 * (how ../shared/fixtures/stellar-core-lcm is laid out), and sums them.
 */
export async function replayCaptureFolder(
  folder: string,
  options: Omit<ReplayOptions, 'stateDir'> & { readonly onFile?: (file: string, summary: ReplaySummary) => void } = {},
): Promise<ReplaySummary> {
  nonEmptyString(folder, 'folder');
  checkReplayOptions(options, true);
  const files = await streamFilesUnder(folder);
  let ledgers = 0;
  let matching = 0;
  const mismatches: { file: string | undefined; ledger: number }[] = [];
  for (const file of files) {
    const summary = await replaySource(file, options);
    ledgers += summary.ledgers;
    matching += summary.matching;
    mismatches.push(...summary.mismatches);
    options.onFile?.(file, summary);
  }
  return { files: files.length, ledgers, matching, mismatches };
}

/** `*.xdr` files under `folder`, recursively, in path order. */
export async function streamFilesUnder(folder: string): Promise<string[]> {
  nonEmptyString(folder, 'folder');
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith('.xdr')) out.push(path);
    }
  };
  try {
    await walk(folder);
  } catch (error) {
    throw wrap(error, 'list the stream files', folder);
  }
  return out;
}

/**
 * The genesis of the network a stream from ledger 2 records: its protocol from ledger 2 (genesisProtocolOf), and
 * the genesis values the stream reveals anywhere (entries last modified at ledger 1), with the test Config they imply.
 */
export async function genesisOf(
  path: string,
  networkPassphrase: string,
): Promise<{ networkPassphrase: string; protocolVersion: number; entries: Uint8Array[] }> {
  nonEmptyString(path, 'path');
  nonEmptyString(networkPassphrase, 'networkPassphrase');
  const reveals = new GenesisReveals();
  let protocolVersion: number | undefined;
  const options: ExtractOptions = {
    onChange: (kind, bytes) => {
      if (kind !== 2) reveals.observe(bytes);
    },
  };
  try {
    for await (const record of openLedgerSource(path)) {
      const extract = extractLedger(record.bytes, record, options);
      if (protocolVersion === undefined) {
        if (record.ledgerSeq !== 2) {
          throw new LedgerStateError('BAD_GENESIS', `the stream starts at ledger ${record.ledgerSeq}, not 2`, {
            file: record.file ?? path,
          });
        }
        protocolVersion = genesisProtocolOf(extract);
      }
    }
  } catch (error) {
    throw wrap(error, 'read the stream', path);
  }
  if (protocolVersion === undefined) throw new LedgerStateError('BAD_GENESIS', 'the stream is empty', { file: path });
  const overrides = reveals.entries();
  const config = genesisTestConfigOf(overrides, protocolVersion);
  return {
    networkPassphrase,
    protocolVersion,
    entries: genesisEntries({ networkPassphrase, protocolVersion, config, overrides }),
  };
}

/**
 * ReplayOptions checked before anything is read or created; replayCaptureFolder's (`folder`) add `onFile` and have
 * no `stateDir` (each stream file is its own network, in its own temporary state).
 */
function checkReplayOptions(value: unknown, folder: boolean): void {
  const options = optionsRecord(value, 'options', true);
  checkCommonOptions(options, 'options');
  optionalString(options.networkPassphrase, 'options.networkPassphrase');
  if (folder && options.stateDir !== undefined) {
    throw invalidArgument('options.stateDir', 'absent (every stream file gets its own state)', options.stateDir);
  }
  optionalString(options.stateDir, 'options.stateDir');
  optionalFunction(options.onLedger, 'options.onLedger');
  booleanOr(options.stopAtMismatch, 'options.stopAtMismatch', false);
  if (folder) optionalFunction(options.onFile, 'options.onFile');
}
