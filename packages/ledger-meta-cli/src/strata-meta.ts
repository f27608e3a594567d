// The `strata-meta` command: prints what a ledger source holds as JSON lines — one line per contract event
// (`events`) or one line per ledger with its init/live/dead bucket batch (`changes`) — for inspection, diffs and
// piping into other tools. Reads stream files, stream folders and SEP-54 data lakes (see openLedgerSource). The
// XDR inside is base64 by default and decoded JSON (through @stellar/stellar-base) with `--json`. A source or range
// that holds no ledger is an error, not an empty success; progress goes to stderr (bar on a terminal, else pino).
import { once } from 'node:events';
import {
  type CliIo,
  createProgress,
  integerOption,
  MAX_LEDGER_SEQUENCE,
  type ProgressReporter,
  processIo,
  run,
} from '@strata/cli-kit';
import { encodeContractStrkey } from '@strata/ledger-key';
import {
  type ContractEventRecord,
  extractLedger,
  type LedgerCloseMetaRecord,
  type LedgerExtract,
  type LedgerSourceOptions,
  openLedgerSource,
} from '@strata/ledger-meta';
import type { Command } from 'commander';
import { newProgram, usageError } from './command.js';
import { checkSource, explainRange } from './source-check.js';
import { ledgerEntryJson, ledgerKeyJson, scValJson } from './xdr-json.js';

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** Where lines go: a writable with backpressure (stdout in the CLI, a PassThrough in tests). */
export type LineSink = NodeJS.WritableStream;

export interface PrintOptions {
  /** Decode the XDR into JSON (stellar-base) instead of printing it as base64. */
  json?: boolean;
  /** Progress of the read (default: none). */
  progress?: (unit: 'bytes' | 'ledgers', total: number | undefined) => ProgressReporter;
}

async function writeLine(out: LineSink, value: unknown): Promise<void> {
  if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
}

/**
 * Reads every ledger of `path` in `range`, calling `print` with its extract, and returns how many lines it printed.
 * A range with `from` after `to`, an unusable source or a range with no ledger in it is INVALID_ARGUMENT.
 */
async function printLedgers(
  path: string,
  range: LedgerSourceOptions,
  options: PrintOptions,
  print: (extract: LedgerExtract, record: LedgerCloseMetaRecord) => Promise<number>,
): Promise<number> {
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw usageError('--from', `--from ${range.from} is after --to ${range.to}: the range is empty`);
  }
  const source = await checkSource(path, range);
  const progress = options.progress?.(source.unit, source.total);
  let ledgers = 0;
  let lines = 0;
  let lastLedger: number | undefined;
  try {
    for await (const record of openLedgerSource(path, range)) {
      lines += await print(extractLedger(record.bytes, record), record);
      ledgers++;
      lastLedger = record.ledgerSeq;
      progress?.update(source.position(record, ledgers), { ledgers, lines });
    }
  } catch (error) {
    progress?.abort();
    throw await explainRange(path, source, range, { lastLedger, error });
  }
  if (ledgers === 0) {
    progress?.abort();
    throw await explainRange(path, source, range, { lastLedger });
  }
  progress?.finish({ ledgers, lines });
  return lines;
}

function eventLine(event: ContractEventRecord, json: boolean): Record<string, unknown> {
  return {
    id: event.id,
    ledger: event.ledger,
    type: event.type,
    contractId: event.contractId === null ? '' : encodeContractStrkey(event.contractId),
    topics: event.topics.map(json ? scValJson : base64),
    value: json ? scValJson(event.value) : base64(event.value),
    txHash: hex(event.txHash),
  };
}

/**
 * One JSON line per contract event: id, ledger, type, contractId (strkey or ''), topics and value (base64 XDR, or
 * with `json` stellar-base's native form), txHash (hex). Returns the number of events.
 */
export async function printEvents(
  path: string,
  range: LedgerSourceOptions,
  out: LineSink,
  options: PrintOptions = {},
): Promise<number> {
  return printLedgers(path, range, options, async ({ events }) => {
    for (const event of events) await writeLine(out, eventLine(event, options.json === true));
    return events.length;
  });
}

/**
 * One JSON line per ledger: ledger, init and live (LedgerEntry), dead (LedgerKey), each in key order; base64 XDR,
 * or decoded JSON with `json`. Returns the number of ledgers.
 */
export async function printChanges(
  path: string,
  range: LedgerSourceOptions,
  out: LineSink,
  options: PrintOptions = {},
): Promise<number> {
  const entry = options.json === true ? ledgerEntryJson : base64;
  const key = options.json === true ? ledgerKeyJson : base64;
  return printLedgers(path, range, options, async ({ header, changes }) => {
    await writeLine(out, {
      ledger: header.ledgerSeq,
      init: changes.init.map(entry),
      live: changes.live.map(entry),
      dead: changes.dead.map(key),
    });
    return 1;
  });
}

interface CommandOptions {
  from?: number;
  to?: number;
  json?: boolean;
}

export function buildProgram(io: CliIo = processIo()): Command {
  const program = newProgram(
    'strata-meta',
    'Print the contract events or the per-ledger entry changes of a LedgerCloseMeta source as JSON lines.',
    io,
  );
  const ledger = integerOption(0, MAX_LEDGER_SEQUENCE);
  const print = (printer: typeof printEvents) => async (source: string, options: CommandOptions) => {
    const range = {
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
    };
    await printer(source, range, io.stdout, {
      json: options.json === true,
      progress: (unit, total) =>
        createProgress({
          unit,
          total,
          counters: unit === 'ledgers' ? ['lines'] : ['ledgers', 'lines'],
          tty: io.tty,
          stream: io.stderr,
        }),
    });
  };
  for (const [name, description, printer] of [
    ['events', 'one line per contract event', printEvents],
    ['changes', 'one line per ledger: its init / live / dead bucket batch', printChanges],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument('<source>', 'stream file, folder of stream files, or SEP-54 data lake')
      .option('--from <ledger>', `first ledger (0 to ${MAX_LEDGER_SEQUENCE})`, ledger)
      .option('--to <ledger>', `last ledger (0 to ${MAX_LEDGER_SEQUENCE}, not below --from)`, ledger)
      .option('--json', 'decode the XDR into JSON (stellar-base) instead of base64')
      .action(print(printer));
  }
  return program;
}

/**
 * Runs the command line and returns the exit code: 0, or 1 after one line on stderr for a bad argument, an unusable
 * source, an empty range or malformed input.
 */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  // `strata-meta events x | head`: the reader going away is a normal end, not an error.
  if (io.stdout === process.stdout) {
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  return run(buildProgram(io), argv, io);
}
