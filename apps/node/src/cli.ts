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
import { coldChunkIds, DEFAULT_RETENTION_LEDGERS, isFrozen } from './event-chunks.js';
import { GENERATOR_PASSPHRASE, type NodeSource } from './generator-source.js';
import { StrataNode } from './node.js';
import {
  createRpcServer,
  DEFAULT_RPC_CONFIG,
  loadRpcConfigFile,
  nodeRpcBackend,
  RecentLedgers,
  rpcConfigFrom,
} from './rpc/index.js';
import { verifyDataDir } from './verify.js';

const usageError = usageErrorFactory(NodeError);
type Command = ReturnType<typeof newProgram>;

interface CommonFlags {
  dataDir: string;
  networkPassphrase?: string;
  source: string;
  retentionLedgers: number;
  seed?: string;
  ledgers?: number;
  eventsPerLedger?: number;
  accounts?: number;
  contracts?: number;
  closeEveryMs?: number;
  fsync: boolean;
}

interface IngestFlags extends CommonFlags {
  from?: number;
  to?: number;
}

const SOURCE_HELP =
  'a LedgerCloseMeta stream file, a folder of stream files, a SEP-54 data lake, or `generator` (the synthetic ' +
  'network of --seed and --ledgers; hash verification is off for it)';

/** The options every command that reads a source takes. */
function sourceOptions(command: Command): Command {
  return command
    .requiredOption('--source <path>', SOURCE_HELP)
    .option('--data-dir <dir>', 'the data directory', './data')
    .option(
      '--network-passphrase <passphrase>',
      `the network (recorded in the data directory on first use; the generator's default: ${JSON.stringify(GENERATOR_PASSPHRASE)})`,
    )
    .option(
      '--retention-ledgers <n>',
      'keep the event chunks of the newest n ledgers (0: keep all)',
      integerOption(0, MAX_LEDGER_SEQUENCE),
      DEFAULT_RETENTION_LEDGERS,
    )
    .option('--seed <seed>', 'generator: the seed (the same seed gives the same ledgers; default 1)')
    .option('--ledgers <n>', 'generator: ledgers from ledger 2', integerOption(1, 1_000_000_000))
    .option(
      '--events-per-ledger <n>',
      'generator: mean contract events a ledger (default 100)',
      integerOption(0, 100_000),
    )
    .option('--accounts <n>', 'generator: accounts (default 1000)', integerOption(0, 1_000_000))
    .option('--contracts <n>', 'generator: contracts (default 20)', integerOption(1, 100_000))
    .option(
      '--no-fsync',
      'do not fsync the ledger state on every ledger: crash-safe (atomic renames) but not power-cut-safe; faster',
    )
    .option(
      '--close-every-ms <ms>',
      'generator: after the first --ledgers, keep closing one ledger every <ms> (start only; default: the source ends)',
      integerOption(10, 3_600_000),
    );
}

/** The node's source and passphrase from the flags (`generator` needs --ledgers). */
function sourceOf(flags: CommonFlags): { source: NodeSource; networkPassphrase: string | undefined } {
  if (flags.source !== 'generator') return { source: flags.source, networkPassphrase: flags.networkPassphrase };
  if (flags.ledgers === undefined) throw usageError('--ledgers', '--source generator needs --ledgers');
  const seed = flags.seed === undefined ? 1 : /^[0-9]+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;
  return {
    source: {
      kind: 'generator',
      seed,
      ledgers: flags.ledgers,
      ...(flags.eventsPerLedger === undefined ? {} : { eventsPerLedger: flags.eventsPerLedger }),
      ...(flags.accounts === undefined ? {} : { accounts: flags.accounts }),
      ...(flags.contracts === undefined ? {} : { contracts: flags.contracts }),
      ...(flags.closeEveryMs === undefined ? {} : { closeEveryMs: flags.closeEveryMs }),
    },
    networkPassphrase: flags.networkPassphrase ?? GENERATOR_PASSPHRASE,
  };
}

async function openNode(flags: CommonFlags, log: ReturnType<typeof logger>) {
  const { source, networkPassphrase } = sourceOf(flags);
  const node = await StrataNode.open(flags.dataDir, {
    source,
    log,
    retentionLedgers: flags.retentionLedgers,
    fsync: flags.fsync,
    ...(networkPassphrase === undefined ? {} : { networkPassphrase }),
  });
  return { node, source };
}

/** Runs `strata` with `argv` (process.argv form); resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  const manifest = packageManifest(import.meta.url);
  const program = newProgram('strata', 'The Strata node: a Stellar ledger state and contract-event store.', io, {
    version: manifest.version,
    packageName: manifest.name,
  });
  const ledgerOption = integerOption(1, MAX_LEDGER_SEQUENCE);
  sourceOptions(
    program
      .command('ingest')
      .description(
        'ingest the ledgers of a source into the data directory, from where it stands (or --from) to --to or the ' +
          "source's end, then exit. A new data directory needs a source starting at ledger 2 (the network's genesis).",
      ),
  )
    .option('--from <ledger>', 'first ledger (not past the next one the data directory needs)', ledgerOption)
    .option('--to <ledger>', 'last ledger', ledgerOption)
    .action(async (flags: IngestFlags) => {
      if (flags.from !== undefined && flags.to !== undefined && flags.from > flags.to) {
        throw usageError('--to', `--to ${flags.to} is below --from ${flags.from}`);
      }
      await ingestCommand(flags, io);
    });
  sourceOptions(
    program
      .command('start')
      .description(
        'follow the source: ingest what it holds, then wait for new ledgers (a growing stream file, folder or lake) ' +
          'and ingest them as they appear, serving Stellar RPC (JSON-RPC 2.0) meanwhile, until SIGINT or SIGTERM.',
      ),
  )
    .option('--listen <address>', 'where the JSON-RPC server listens, host:port (default 127.0.0.1:8000)')
    .option('--rpc-config <file>', 'JSON-RPC settings, a TOML or JSON file (README: "JSON-RPC"); flags win')
    .option(
      '--poll-ms <ms>',
      'how often to look for new ledgers when no change is seen',
      integerOption(10, 600_000),
      1000,
    )
    .action(async (flags: StartFlags) => {
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
  program
    .command('verify')
    .description(
      'verify a data directory: every bucket file against the hash it is named by, every frozen cold chunk against ' +
        'its manifest (sizes, content hashes, CRC, every record). Exit 1 naming the first file that does not match.',
    )
    .option('--data-dir <dir>', 'the data directory', './data')
    .action(async (flags: { dataDir: string }) => {
      const report = await verifyDataDir(flags.dataDir);
      io.stdout.write(`${JSON.stringify(report)}\n`);
    });
  return run(program, argv, io);
}

async function ingestCommand(flags: IngestFlags, io: CliIo): Promise<void> {
  const log = logger(io.stderr);
  const { node, source } = await openNode(flags, log);
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
      source,
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

type StartFlags = CommonFlags & { listen?: string; rpcConfig?: string; pollMs: number };

async function startCommand(flags: StartFlags, io: CliIo): Promise<void> {
  const log = logger(io.stderr);
  // The settings are checked before anything opens: a bad file or address fails at once.
  const base = flags.rpcConfig === undefined ? DEFAULT_RPC_CONFIG : loadRpcConfigFile(flags.rpcConfig);
  const config = rpcConfigFrom(
    {
      ...(flags.listen === undefined ? {} : { listen: flags.listen }),
      ledgerRetentionWindow: flags.retentionLedgers,
    },
    base,
  );
  const { node, source } = await openNode(flags, log);
  const ledgers = new RecentLedgers();
  // The ledger the node stopped at answers getLatestLedger at once (README "Data directory": latest-ledger.xdr).
  const restored = node.restoredLedger;
  if (restored !== undefined) ledgers.record(restored.bytes, restored.header);
  const backend = nodeRpcBackend(node, ledgers);
  const server = createRpcServer({ backend, config, logger: log });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { url } = await server.listen();
    log.info({ url, nextLedger: node.nextLedger }, 'serving JSON-RPC');
    await node.follow(source, {
      signal: stop.signal,
      pollMs: flags.pollMs,
      onLedger: (_ledger, _summary, committed) => ledgers.record(committed.bytes, committed.header),
    });
    log.info({ nextLedger: node.nextLedger }, 'stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    await backend.close();
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
    coldChunks: coldChunkIds(layout).map((chunkId) => ({ chunkId, frozen: isFrozen(layout, chunkId) })),
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
  for (const chunk of report.coldChunks) {
    io.stdout.write(`cold chunk ${chunk.chunkId}: ${chunk.frozen ? 'frozen' : 'no manifest (freeze interrupted)'}\n`);
  }
}
