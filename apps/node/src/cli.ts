// `strata`: the node's command line. `ingest` feeds a data directory from a ledger source and exits; `inspect`
// shows what a data directory holds. Data goes to stdout, logs (pino JSON lines) and progress to stderr; every
// failure is one line on stderr and exit code 1 (@strata/cli-kit).
import { existsSync } from 'node:fs';
import {
  type CliIo,
  createProgress,
  integerOption,
  logger,
  MAX_LEDGER_SEQUENCE,
  newProgram,
  packageManifest,
  processIo,
  run,
  usageErrorFactory,
} from '@strata/cli-kit';
import { openHotReader } from '@strata/hot-store';
import { LedgerState } from '@strata/ledger-state';
import { dataDirLayout, hotChunkIds, hotChunkPath, readNodeFile } from './data-dir.js';
import { NodeError } from './errors.js';
import { StrataNode } from './node.js';

const usageError = usageErrorFactory(NodeError);

interface CommonFlags {
  dataDir: string;
  networkPassphrase?: string;
}

interface IngestFlags extends CommonFlags {
  source: string;
  from?: number;
  to?: number;
}

/** Runs `strata` with `argv` (process.argv form); resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  const manifest = packageManifest(import.meta.url);
  const program = newProgram('strata', 'The Strata node: a Stellar ledger state and contract-event store.', io, {
    version: manifest.version,
    packageName: manifest.name,
  });
  const ledgerOption = integerOption(1, MAX_LEDGER_SEQUENCE);
  program
    .command('ingest')
    .description(
      'ingest the ledgers of a source into the data directory, from where it stands (or --from) to --to or the ' +
        "source's end, then exit. A new data directory needs a source starting at ledger 2 (the network's genesis).",
    )
    .requiredOption('--source <path>', 'a LedgerCloseMeta stream file, a folder of stream files, or a SEP-54 data lake')
    .option('--data-dir <dir>', 'the data directory', './data')
    .option('--network-passphrase <passphrase>', 'the network (recorded in the data directory on first use)')
    .option('--from <ledger>', 'first ledger (not past the next one the data directory needs)', ledgerOption)
    .option('--to <ledger>', 'last ledger', ledgerOption)
    .action(async (flags: IngestFlags) => {
      if (flags.from !== undefined && flags.to !== undefined && flags.from > flags.to) {
        throw usageError('--to', `--to ${flags.to} is below --from ${flags.from}`);
      }
      await ingestCommand(flags, io);
    });
  program
    .command('start')
    .description(
      'follow the source: ingest what it holds, then wait for new ledgers (a growing stream file, folder or lake) ' +
        'and ingest them as they appear, until SIGINT or SIGTERM. The JSON-RPC server is not built yet.',
    )
    .requiredOption('--source <path>', 'a LedgerCloseMeta stream file, a folder of stream files, or a SEP-54 data lake')
    .option('--data-dir <dir>', 'the data directory', './data')
    .option('--network-passphrase <passphrase>', 'the network (recorded in the data directory on first use)')
    .option('--listen <address>', 'where the JSON-RPC server will listen (accepted; the server is not built yet)')
    .option(
      '--poll-ms <ms>',
      'how often to look for new ledgers when no change is seen',
      integerOption(10, 600_000),
      1000,
    )
    .action(async (flags: CommonFlags & { source: string; listen?: string; pollMs: number }) => {
      await startCommand(flags, io);
    });
  program
    .command('inspect')
    .description('show a data directory: network, position, ledger state, hot chunks')
    .option('--data-dir <dir>', 'the data directory', './data')
    .option('--json', 'one JSON object', false)
    .action(async (flags: { dataDir: string; json: boolean }) => {
      await inspectCommand(flags, io);
    });
  return run(program, argv, io);
}

async function ingestCommand(flags: IngestFlags, io: CliIo): Promise<void> {
  const log = logger(io.stderr);
  const node = await StrataNode.open(flags.dataDir, {
    source: flags.source,
    log,
    ...(flags.networkPassphrase === undefined ? {} : { networkPassphrase: flags.networkPassphrase }),
  });
  const start = node.nextLedger;
  const progress = createProgress({
    unit: 'ledgers',
    total: flags.to === undefined ? undefined : Math.max(0, flags.to - start + 1),
    counters: ['events'],
    tty: io.tty,
    stream: io.stderr,
  });
  // SIGINT / SIGTERM stop the ingest between two ledgers; what was ingested is recorded and the summary printed.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const summary = await node.ingest(
      flags.source,
      {
        signal: stop.signal,
        ...(flags.from === undefined ? {} : { from: flags.from }),
        ...(flags.to === undefined ? {} : { to: flags.to }),
      },
      (_ledger, so) => progress.update(so.ledgers, { events: so.events }),
    );
    progress.finish({ ...summary });
    io.stdout.write(
      `${JSON.stringify({ ...summary, nextLedger: node.nextLedger, bucketListHash: node.state.bucketListHash() })}\n`,
    );
  } catch (error) {
    progress.abort();
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await node.close();
  }
}

async function startCommand(
  flags: CommonFlags & { source: string; listen?: string; pollMs: number },
  io: CliIo,
): Promise<void> {
  const log = logger(io.stderr);
  if (flags.listen !== undefined)
    log.warn({ listen: flags.listen }, 'the JSON-RPC server is not built yet; not listening');
  const node = await StrataNode.open(flags.dataDir, {
    source: flags.source,
    log,
    ...(flags.networkPassphrase === undefined ? {} : { networkPassphrase: flags.networkPassphrase }),
  });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await node.follow(flags.source, { signal: stop.signal, pollMs: flags.pollMs });
    log.info({ nextLedger: node.nextLedger }, 'stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await node.close();
  }
}

async function inspectCommand(flags: { dataDir: string; json: boolean }, io: CliIo): Promise<void> {
  const layout = dataDirLayout(flags.dataDir);
  const file = readNodeFile(layout);
  if (file === undefined) {
    throw new NodeError('BAD_DATA_DIR', 'no node.json: not a data directory', { file: layout.root });
  }
  // Read-only readers: inspect may run beside a node that is ingesting into the same chunks.
  const chunks: { chunkId: number; latestLedger: number | null; events: number }[] = [];
  for (const chunkId of hotChunkIds(layout)) {
    const reader = openHotReader(hotChunkPath(layout, chunkId), { chunkId });
    try {
      chunks.push({ chunkId, latestLedger: reader.latestLedger() ?? null, events: reader.eventCount() });
    } finally {
      await reader.close();
    }
  }
  let state: Record<string, unknown> | null = null;
  if (existsSync(layout.stateDir)) {
    const opened = await LedgerState.open(layout.stateDir, { restartMerges: false, merger: 'inline' });
    try {
      state = {
        ledger: opened.ledger,
        protocolVersion: opened.protocolVersion,
        bucketListHash: opened.bucketListHash(),
        sorobanData: opened.sorobanState.dataCount,
        sorobanCode: opened.sorobanState.codeCount,
        sorobanSizeBytes: opened.sorobanState.stateSizeBytes,
      };
    } finally {
      await opened.close();
    }
  }
  const report = {
    formatVersion: file.formatVersion,
    networkPassphrase: file.networkPassphrase,
    networkId: file.networkId,
    firstLedger: file.firstLedger,
    position: file.position,
    state,
    hotChunks: chunks,
  };
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  io.stdout.write(
    `network ${JSON.stringify(file.networkPassphrase)} (id ${file.networkId})\n` +
      `position ${file.position === null ? 'none' : `${file.position.ledger} ${file.position.hash}`}\n`,
  );
  if (state !== null) {
    io.stdout.write(
      `state ledger ${state.ledger} protocol ${state.protocolVersion} bucketListHash ${state.bucketListHash}\n` +
        `soroban state ${state.sorobanData} data, ${state.sorobanCode} code, ${state.sorobanSizeBytes} B\n`,
    );
  }
  for (const chunk of chunks) {
    io.stdout.write(
      `hot chunk ${chunk.chunkId}: latest ledger ${chunk.latestLedger ?? 'none'}, ${chunk.events} events\n`,
    );
  }
}
