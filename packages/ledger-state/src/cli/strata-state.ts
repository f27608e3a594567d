// `strata-state`: replay LedgerCloseMeta into a ledger state and compare every bucketListHash with its header's, or
// show what a state directory holds. Output is data on stdout (one line per ledger, a summary), progress and logs on
// stderr; every failure is one line and exit code 1.
import type { BucketManager } from '@strata/bucket-list';
import {
  type CliIo,
  createProgress,
  newProgram,
  type ProgressReporter,
  packageManifest,
  processIo,
  run,
} from '@strata/cli-kit';
import { detectLedgerSource } from '@strata/ledger-meta';
import { LedgerStateError, LedgerStateErrorCode } from '../errors.js';
import { type AppliedLedger, LedgerState } from '../ledger-state.js';
import {
  type ReplaySummary,
  replayCaptureFolder,
  replaySource,
  streamFilesUnder,
  TEST_NETWORK_PASSPHRASE,
} from '../replay.js';
import { readStateFile } from '../state-file.js';

interface ReplayFlags {
  networkPassphrase: string;
  json: boolean;
  stateDir?: string;
}

/** Runs `strata-state` with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const manifest = packageManifest(import.meta.url);
  const program = newProgram(
    'strata-state',
    'Replay Stellar LedgerCloseMeta into a ledger state as stellar-core commits it, checking every bucketListHash.',
    io,
    { version: manifest.version, packageName: manifest.name },
  );
  program
    .command('replay')
    .description(
      'apply the ledgers of a stream file, a SEP-54 data lake or a folder; a folder of capture streams (searched ' +
        'recursively) replays each file as its own network from genesis. One line per ledger (computed and header ' +
        'hash), then "M of N ledgers match"; exit code 1 when any ledger does not match.',
    )
    .argument('<source>', 'stream file, data lake folder, or folder of stream files')
    .option('--network-passphrase <passphrase>', 'the network of the ledgers', TEST_NETWORK_PASSPHRASE)
    .option('--state-dir <dir>', 'keep the state here (a stream that does not start at ledger 2 continues it)')
    .option('--json', 'one JSON object per line', false)
    .action(async (source: string, flags: ReplayFlags) => {
      await replayCommand(source, flags, io);
    });
  program
    .command('inspect')
    .description('show a state: its ledger, the levels (curr/snap sizes, entries, protocol) and the Soroban state')
    .argument('<dir>', 'state directory')
    .option('--json', 'one JSON object', false)
    .action(async (dir: string, flags: { json: boolean }) => {
      await inspectCommand(dir, flags, io);
    });
  return run(program, ['node', 'strata-state', ...argv], io);
}

async function replayCommand(source: string, flags: ReplayFlags, io: CliIo): Promise<void> {
  // A folder of stream files is a set of capture networks; a data lake or a single stream is one network.
  const captureFolder = (await detectLedgerSource(source)) === 'stream-folder';
  const files = captureFolder ? await streamFilesUnder(source) : [source];
  const progress: ProgressReporter = createProgress({
    unit: captureFolder ? 'streams' : 'ledgers',
    total: captureFolder ? files.length : undefined,
    counters: ['matching'],
    tty: io.tty,
    stream: io.stderr,
  });
  let ledgers = 0;
  let matching = 0;
  let streams = 0;
  const onLedger = (applied: AppliedLedger, file: string | undefined): void => {
    ledgers++;
    if (applied.matches) matching++;
    const line = flags.json
      ? JSON.stringify({
          file,
          ledger: applied.ledger,
          protocolVersion: applied.protocolVersion,
          bucketListHash: applied.bucketListHash,
          headerBucketListHash: applied.headerBucketListHash,
          matches: applied.matches,
        })
      : `${applied.ledger} ${applied.bucketListHash} ${applied.headerBucketListHash} ${applied.matches ? 'match' : 'MISMATCH'}`;
    io.stdout.write(`${line}\n`);
    if (!captureFolder) progress.update(ledgers, { matching });
  };
  let summary: ReplaySummary;
  try {
    summary = captureFolder
      ? await replayCaptureFolder(source, {
          networkPassphrase: flags.networkPassphrase,
          onLedger,
          onFile: () => progress.update(++streams, { matching }),
        })
      : await replaySource(source, {
          networkPassphrase: flags.networkPassphrase,
          onLedger,
          ...(flags.stateDir === undefined ? {} : { stateDir: flags.stateDir }),
        });
  } catch (error) {
    progress.abort();
    throw error;
  }
  progress.finish({ ledgers: summary.ledgers, matching: summary.matching, files: summary.files });
  const line = `${summary.matching} of ${summary.ledgers} ledgers match`;
  io.stdout.write(
    flags.json
      ? `${JSON.stringify({ summary: line, files: summary.files, ledgers: summary.ledgers, matching: summary.matching, mismatches: summary.mismatches })}\n`
      : `${line}${captureFolder ? ` (${summary.files} streams)` : ''}\n`,
  );
  // A replay is a check: a ledger that does not match fails the command, naming the first one (scripts see exit 1).
  const first = summary.mismatches[0];
  if (first !== undefined) {
    throw new LedgerStateError(
      LedgerStateErrorCode.HASH_MISMATCH,
      `${summary.ledgers - summary.matching} of ${summary.ledgers} ledgers do not match, the first ledger ${first.ledger}`,
      first.file === undefined ? {} : { file: first.file },
    );
  }
}

async function inspectCommand(dir: string, flags: { json: boolean }, io: CliIo): Promise<void> {
  const file = readStateFile(dir);
  const state = await LedgerState.open(dir, { restartMerges: false, merger: 'inline' });
  try {
    const report = describeState(state, file?.networkPassphrase ?? state.networkPassphrase);
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    io.stdout.write(
      `ledger ${report.ledger} protocol ${report.protocolVersion} network ${JSON.stringify(report.networkPassphrase)}\n` +
        `bucketListHash ${report.bucketListHash}\n`,
    );
    for (const list of ['live', 'hotArchive'] as const) {
      io.stdout.write(`${list === 'live' ? 'live' : 'hot archive'} list:\n`);
      for (const level of report.levels[list]) {
        const slot = (s: SlotReport) => `${s.bytes} B ${s.entries} entries p${s.protocolVersion}`;
        io.stdout.write(`  level ${level.level}: curr ${slot(level.curr)} | snap ${slot(level.snap)}\n`);
      }
    }
    const soroban = report.soroban;
    io.stdout.write(
      `soroban state: ${soroban.data} data, ${soroban.code} code, size ${soroban.sizeBytes} B, memory ${soroban.memoryBytes} B\n`,
    );
  } finally {
    await state.close();
  }
}

interface SlotReport {
  hash: string;
  bytes: number;
  entries: number;
  protocolVersion: number;
}

function describeState(state: LedgerState, networkPassphrase: string) {
  const list: BucketManager = state.bucketList;
  const levels = (schedule: BucketManager['live']) =>
    schedule.levels.map((level, i) => ({ level: i, curr: slotOf(level.curr.file), snap: slotOf(level.snap.file) }));
  const soroban = state.sorobanState;
  return {
    ledger: state.ledger,
    protocolVersion: state.protocolVersion,
    networkPassphrase,
    bucketListHash: state.bucketListHash(),
    levels: { live: levels(list.live), hotArchive: levels(list.hotArchive) },
    soroban: {
      data: soroban.dataCount,
      code: soroban.codeCount,
      sizeBytes: soroban.stateSizeBytes,
      memoryBytes: soroban.memory().totalBytes,
    },
  };
}

function slotOf(file: { hash: string; size: number; entries: number; protocolVersion: number }): SlotReport {
  return { hash: file.hash, bytes: file.size, entries: file.entries, protocolVersion: file.protocolVersion };
}
