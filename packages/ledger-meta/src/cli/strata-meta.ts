// The `strata-meta` command: prints what a ledger source holds as JSON lines — one line per contract event
// (`events`) or one line per ledger with its init/live/dead bucket batch (`changes`) — for inspection, diffs and
// piping into other tools. Reads stream files, stream folders and SEP-54 data lakes (see openLedgerSource).
import { once } from 'node:events';
import { encodeContractStrkey } from '@strata/ledger-key';
import { Command, InvalidArgumentError } from 'commander';
import { extractLedger } from '../ledger-close-meta.js';
import { type LedgerSourceOptions, openLedgerSource } from '../source.js';

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** Where lines go: a writable with backpressure (stdout in the CLI, a PassThrough in tests). */
export type LineSink = NodeJS.WritableStream;

async function writeLine(out: LineSink, value: unknown): Promise<void> {
  if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
}

/** One JSON line per contract event: id, ledger, type, contractId (strkey or ''), topics and value (base64 XDR), txHash. */
export async function printEvents(path: string, range: LedgerSourceOptions, out: LineSink): Promise<number> {
  let count = 0;
  for await (const record of openLedgerSource(path, range)) {
    for (const event of extractLedger(record.bytes, record).events) {
      await writeLine(out, {
        id: event.id,
        ledger: event.ledger,
        type: event.type,
        contractId: event.contractId === null ? '' : encodeContractStrkey(event.contractId),
        topics: event.topics.map(base64),
        value: base64(event.value),
        txHash: hex(event.txHash),
      });
      count++;
    }
  }
  return count;
}

/** One JSON line per ledger: ledger, init and live (base64 LedgerEntry), dead (base64 LedgerKey), each in key order. */
export async function printChanges(path: string, range: LedgerSourceOptions, out: LineSink): Promise<number> {
  let count = 0;
  for await (const record of openLedgerSource(path, range)) {
    const { header, changes } = extractLedger(record.bytes, record);
    await writeLine(out, {
      ledger: header.ledgerSeq,
      init: changes.init.map(base64),
      live: changes.live.map(base64),
      dead: changes.dead.map(base64),
    });
    count++;
  }
  return count;
}

function ledgerNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new InvalidArgumentError('must be a ledger sequence (0..4294967295)');
  }
  return value;
}

export function buildProgram(out: LineSink = process.stdout): Command {
  const program = new Command('strata-meta').description(
    'Print the contract events or the per-ledger entry changes of a LedgerCloseMeta source as JSON lines.',
  );
  const range = (options: { from?: number; to?: number }): LedgerSourceOptions => ({
    ...(options.from === undefined ? {} : { from: options.from }),
    ...(options.to === undefined ? {} : { to: options.to }),
  });
  program
    .command('events')
    .description('one line per contract event')
    .argument('<source>', 'stream file, folder of stream files, or SEP-54 data lake')
    .option('--from <ledger>', 'first ledger', ledgerNumber)
    .option('--to <ledger>', 'last ledger', ledgerNumber)
    .action(async (source: string, options: { from?: number; to?: number }) => {
      await printEvents(source, range(options), out);
    });
  program
    .command('changes')
    .description('one line per ledger: its init / live / dead bucket batch')
    .argument('<source>', 'stream file, folder of stream files, or SEP-54 data lake')
    .option('--from <ledger>', 'first ledger', ledgerNumber)
    .option('--to <ledger>', 'last ledger', ledgerNumber)
    .action(async (source: string, options: { from?: number; to?: number }) => {
      await printChanges(source, range(options), out);
    });
  return program;
}

/** Runs the command line; errors (bad arguments, malformed input) print one line to stderr and set exit code 1. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  // `strata-meta events x | head`: the reader going away is a normal end, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (error) {
    console.error(`strata-meta: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
