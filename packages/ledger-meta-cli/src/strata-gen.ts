// The `strata-gen` command: writes a deterministic pubnet-like synthetic network as a record-marked LCM stream or
// a SEP-54 data lake, with a progress bar (TTY) or JSON log lines, and prints a summary. Every numeric option is a
// whole number in a documented range (STRATA_GEN_LIMITS), checked with --out before anything is generated.
import { constants } from 'node:fs';
import { access, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type CliIo, createProgress, integerOption, processIo, run, systemErrorText } from '@strata/cli-kit';
import {
  DataLakeWriter,
  GENERATOR_LIMITS,
  generateNetwork,
  LedgerStreamWriter,
  resolveGeneratorOptions,
} from '@strata/ledger-meta';
import { type Command, Option } from 'commander';
import { newProgram, usageError } from './command.js';

/** The stream file's name inside --out. */
export const STREAM_FILE_NAME = 'ledgers.xdr';

/** The range of each numeric option, [min, max]. */
export const STRATA_GEN_LIMITS = {
  /** A long synthetic history; the last ledger must also fit a uint32 (see --start-ledger). */
  ledgers: [1, 10_000_000],
  eventsPerLedger: [0, GENERATOR_LIMITS.maxEventsPerLedger],
  contracts: [1, GENERATOR_LIMITS.maxContracts],
  accounts: [1, GENERATOR_LIMITS.maxAccounts],
  startLedger: [1, GENERATOR_LIMITS.maxLedger],
  ledgersPerBatch: [1, 10_000],
  batchesPerPartition: [1, 1_000_000],
} as const satisfies Record<string, readonly [number, number]>;

/**
 * A data-lake batch is held in memory while it is written (about 700 bytes per event): --ledgers-per-batch ×
 * --events-per-ledger is kept to this, so a batch stays a few hundred MiB, well below what the reader accepts.
 */
export const MAX_EVENTS_PER_BATCH = 200_000;

export interface GenerateCommandOptions {
  ledgers: number;
  out: string;
  format: 'stream' | 'datalake';
  seed: string;
  eventsPerLedger: number;
  contracts: number;
  accounts: number;
  startLedger: number;
  ledgersPerBatch: number;
  batchesPerPartition: number;
  /** Write into a non-empty --out (default: refuse). */
  force?: boolean;
}

export interface GenerateSummary {
  ledgers: number;
  events: number;
  transactions: number;
  bytes: number;
  seconds: number;
  path: string;
}

/** The checks that span options (each option's own range is checked by its parser). */
function checkCombinations(options: GenerateCommandOptions): void {
  const last = options.startLedger + options.ledgers - 1;
  if (last > GENERATOR_LIMITS.maxLedger) {
    throw usageError(
      '--ledgers',
      `--start-ledger ${options.startLedger} with --ledgers ${options.ledgers} ends at ledger ${last}, past ${GENERATOR_LIMITS.maxLedger} (event ids hold the ledger in 31 bits)`,
    );
  }
  const perBatch = options.ledgersPerBatch * options.eventsPerLedger;
  if (options.format === 'datalake' && perBatch > MAX_EVENTS_PER_BATCH) {
    throw usageError(
      '--ledgers-per-batch',
      `--ledgers-per-batch ${options.ledgersPerBatch} × --events-per-ledger ${options.eventsPerLedger} is ${perBatch} events per batch file, over ${MAX_EVENTS_PER_BATCH} (a batch is held in memory while it is written)`,
    );
  }
}

/**
 * Creates `path` and its missing parents one at a time. (Node's recursive mkdir never returns when the kernel
 * answers ENOENT for a parent that exists, as under /proc.)
 */
async function createFolder(path: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      await stat(dir);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) await mkdir(dir);
}

/**
 * Makes `out` ready to be written: created when missing; refused when it is a file, cannot be created or written,
 * or is a folder that holds anything (unless `force`). Errors are INVALID_ARGUMENT naming --out, in words.
 */
async function prepareOutputFolder(out: string, force: boolean): Promise<void> {
  const refuse = (why: string) => usageError('--out', `--out ${out} ${why}`, out);
  let info: Awaited<ReturnType<typeof stat>> | undefined;
  try {
    info = await stat(out);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw refuse('is inside a file, not a folder');
    if (code !== 'ENOENT') throw refuse(`cannot be inspected: ${systemErrorText(error) ?? String(error)}`);
  }
  if (info === undefined) {
    try {
      await createFolder(out);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw refuse(
        code === 'ENOTDIR' || code === 'EEXIST'
          ? 'is inside a file, not a folder'
          : `cannot be created: ${systemErrorText(error) ?? String(error)}`,
      );
    }
    return;
  }
  if (!info.isDirectory()) throw refuse('is a file, not a folder');
  try {
    await access(out, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw refuse(`cannot be written: ${systemErrorText(error) ?? String(error)}`);
  }
  const entries = await readdir(out);
  if (entries.length > 0 && !force) {
    throw refuse(
      `is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}): pass --force to write into it (files of the same names are replaced, others are left)`,
    );
  }
}

/**
 * Generates and writes a network (the command's body, callable from other code and tests). Checks the options that
 * span others and prepares --out before generating; progress goes to `io.stderr`.
 */
export async function runGenerate(options: GenerateCommandOptions, io: CliIo = processIo()): Promise<GenerateSummary> {
  checkCombinations(options);
  const generatorOptions = resolveGeneratorOptions({
    seed: options.seed,
    ledgers: options.ledgers,
    eventsPerLedger: options.eventsPerLedger,
    contracts: options.contracts,
    accounts: options.accounts,
    startLedger: options.startLedger,
    record: false,
  });
  await prepareOutputFolder(options.out, options.force === true);
  const path = options.format === 'stream' ? join(options.out, STREAM_FILE_NAME) : options.out;
  const sink =
    options.format === 'stream'
      ? await LedgerStreamWriter.create(path)
      : await DataLakeWriter.create(options.out, {
          ledgersPerBatch: options.ledgersPerBatch,
          batchesPerPartition: options.batchesPerPartition,
          networkPassphrase: generatorOptions.networkPassphrase,
        });
  const progress = createProgress({
    unit: 'ledgers',
    total: options.ledgers,
    counters: ['events'],
    tty: io.tty,
    stream: io.stderr,
  });
  const started = performance.now();
  let events = 0;
  let transactions = 0;
  let done = 0;
  try {
    for (const ledger of generateNetwork(generatorOptions)) {
      await (sink instanceof LedgerStreamWriter ? sink.write(ledger.lcm) : sink.write(ledger.lcm, ledger.sequence));
      events += ledger.eventCount;
      transactions += ledger.transactionCount;
      done++;
      progress.update(done, { events });
    }
    await sink.close();
  } catch (error) {
    progress.abort();
    // A stream leaves no partial file; a data lake keeps the batches written so far (each file is whole).
    if (sink instanceof LedgerStreamWriter) await sink.abort();
    throw error;
  }
  const summary: GenerateSummary = {
    ledgers: done,
    events,
    transactions,
    bytes: sink.bytesWritten,
    seconds: (performance.now() - started) / 1000,
    path,
  };
  progress.finish({ ...summary });
  return summary;
}

export function buildProgram(io: CliIo = processIo()): Command {
  const limits = STRATA_GEN_LIMITS;
  const count = (range: readonly [number, number]) => integerOption(range[0], range[1]);
  const within = (what: string, range: readonly [number, number]) => `${what}, ${range[0]} to ${range[1]}`;
  return newProgram(
    'strata-gen',
    'Write a deterministic pubnet-like synthetic Stellar network (LedgerCloseMeta v2).',
    io,
  )
    .requiredOption('--ledgers <n>', within('number of ledgers', limits.ledgers), count(limits.ledgers))
    .requiredOption('--out <dir>', 'output folder (created if missing; must be empty unless --force)')
    .addOption(
      new Option('--format <format>', 'stream (record-marked ledgers.xdr) or datalake (SEP-54)')
        .choices(['stream', 'datalake'])
        .default('stream'),
    )
    .option('--seed <seed>', 'seed: same seed and options, same bytes', '1')
    .option(
      '--events-per-ledger <n>',
      within('mean contract events per ledger', limits.eventsPerLedger),
      count(limits.eventsPerLedger),
      100,
    )
    .option(
      '--contracts <n>',
      within('Stellar Asset Contracts, XLM included', limits.contracts),
      count(limits.contracts),
      20,
    )
    .option(
      '--accounts <n>',
      within('accounts (raised to --contracts + 1)', limits.accounts),
      count(limits.accounts),
      1000,
    )
    .option('--start-ledger <n>', within('first ledger sequence', limits.startLedger), count(limits.startLedger), 2)
    .option(
      '--ledgers-per-batch <n>',
      within('datalake: ledgers per batch file', limits.ledgersPerBatch),
      count(limits.ledgersPerBatch),
      1,
    )
    .option(
      '--batches-per-partition <n>',
      within('datalake: batch files per partition', limits.batchesPerPartition),
      count(limits.batchesPerPartition),
      64_000,
    )
    .option('--force', 'write into a non-empty --out (files of the same names are replaced)')
    .action(async (options: GenerateCommandOptions) => {
      const summary = await runGenerate(options, io);
      const eventsPerSecond = summary.seconds > 0 ? Math.round(summary.events / summary.seconds) : 0;
      io.stdout.write(`${JSON.stringify({ ...summary, eventsPerSecond })}\n`);
    });
}

/**
 * Runs the command line and returns the exit code: 0, or 1 after one line on stderr for a bad option, an unusable
 * --out or a failure while writing.
 */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  return run(buildProgram(io), argv, io);
}
