// The `strata-gen` command: writes a deterministic pubnet-like synthetic network as a record-marked LCM stream or
// a SEP-54 data lake, with a progress bar (TTY) or JSON log lines, and prints a summary.
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DataLakeWriter } from '../datalake.js';
import { generateNetwork, resolveGeneratorOptions } from '../generator.js';
import { LedgerStreamWriter } from '../stream-writer.js';
import { createProgress } from './progress.js';

/** The stream file's name inside --out. */
export const STREAM_FILE_NAME = 'ledgers.xdr';

function positiveInt(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return value;
  };
}

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
}

export interface GenerateSummary {
  ledgers: number;
  events: number;
  transactions: number;
  bytes: number;
  seconds: number;
  path: string;
}

/** Generates and writes a network (the command's body, callable from other code and tests). */
export async function runGenerate(options: GenerateCommandOptions, tty?: boolean): Promise<GenerateSummary> {
  const generatorOptions = resolveGeneratorOptions({
    seed: options.seed,
    ledgers: options.ledgers,
    eventsPerLedger: options.eventsPerLedger,
    contracts: options.contracts,
    accounts: options.accounts,
    startLedger: options.startLedger,
    record: false,
  });
  const progress = createProgress({ unit: 'ledgers', total: options.ledgers, ...(tty === undefined ? {} : { tty }) });
  const started = performance.now();
  let events = 0;
  let transactions = 0;
  let done = 0;
  const path = options.format === 'stream' ? join(options.out, STREAM_FILE_NAME) : options.out;
  const sink =
    options.format === 'stream'
      ? await LedgerStreamWriter.create(path)
      : await DataLakeWriter.create(options.out, {
          ledgersPerBatch: options.ledgersPerBatch,
          batchesPerPartition: options.batchesPerPartition,
          networkPassphrase: generatorOptions.networkPassphrase,
        });
  for (const ledger of generateNetwork(generatorOptions)) {
    await (sink instanceof LedgerStreamWriter ? sink.write(ledger.lcm) : sink.write(ledger.lcm, ledger.sequence));
    events += ledger.eventCount;
    transactions += ledger.transactionCount;
    done++;
    progress.update(done, { events });
  }
  await sink.close();
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

export function buildProgram(): Command {
  return new Command('strata-gen')
    .description('Write a deterministic pubnet-like synthetic Stellar network (LedgerCloseMeta v2).')
    .requiredOption('--ledgers <n>', 'number of ledgers', positiveInt('--ledgers'))
    .requiredOption('--out <dir>', 'output directory')
    .option('--format <format>', 'stream (record-marked ledgers.xdr) or datalake (SEP-54)', 'stream')
    .option('--seed <seed>', 'seed: same seed and options, same bytes', '1')
    .option('--events-per-ledger <n>', 'mean contract events per ledger', positiveInt('--events-per-ledger'), 100)
    .option('--contracts <n>', 'Stellar Asset Contracts (XLM included)', positiveInt('--contracts'), 20)
    .option('--accounts <n>', 'accounts', positiveInt('--accounts'), 1000)
    .option('--start-ledger <n>', 'first ledger sequence', positiveInt('--start-ledger'), 2)
    .option('--ledgers-per-batch <n>', 'datalake: ledgers per batch file', positiveInt('--ledgers-per-batch'), 1)
    .option(
      '--batches-per-partition <n>',
      'datalake: batch files per partition',
      positiveInt('--batches-per-partition'),
      64_000,
    )
    .action(async (options: GenerateCommandOptions) => {
      if (options.format !== 'stream' && options.format !== 'datalake') {
        throw new InvalidArgumentError('--format must be stream or datalake');
      }
      const summary = await runGenerate(options);
      process.stdout.write(
        `${JSON.stringify({ ...summary, eventsPerSecond: Math.round(summary.events / summary.seconds) })}\n`,
      );
    });
}

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (error) {
    console.error(`strata-gen: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
