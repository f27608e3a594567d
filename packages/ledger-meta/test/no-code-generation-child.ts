// Child side of test/no-code-generation.test.ts, started with `node --disallow-code-generation-from-strings`: generates
// a small network, writes it as a record stream and as a data lake, reads both back and validates and extracts every
// ledger, then prints one JSON line (ledgers, events, changes; or the error it ended with). `probe` instead checks that
// the flag is in force: it prints whether `new Function` was refused.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NoCodeGenerationReport {
  /** Ledgers extracted from the stream, then from the lake. */
  streamLedgers: number;
  lakeLedgers: number;
  events: number;
  changes: number;
  error: string | null;
}

async function extractEverything(): Promise<NoCodeGenerationReport> {
  // Imported here, not at the top: the probe must run whatever the package does when it loads.
  const {
    DataLakeWriter,
    encodeLedgerStream,
    extractLedger,
    generateNetwork,
    iterateLedgerCloseMetaRecords,
    openLedgerSource,
    SYNTHETIC_NETWORK_PASSPHRASE,
    validateLedgerCloseMeta,
  } = await import('../src/index.js');
  const report: NoCodeGenerationReport = { streamLedgers: 0, lakeLedgers: 0, events: 0, changes: 0, error: null };
  const ledgers = [...generateNetwork({ seed: 'no-eval', ledgers: 6, eventsPerLedger: 30, record: false })];
  for (const record of iterateLedgerCloseMetaRecords(encodeLedgerStream(ledgers.map((ledger) => ledger.lcm)))) {
    validateLedgerCloseMeta(record.bytes, record);
    const { events, changes } = extractLedger(record.bytes, record);
    report.streamLedgers++;
    report.events += events.length;
    report.changes += changes.init.length + changes.live.length + changes.dead.length;
  }
  const lake = await mkdtemp(join(tmpdir(), 'no-code-generation-'));
  try {
    const writer = await DataLakeWriter.create(lake, {
      networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE,
      ledgersPerBatch: 4,
    });
    for (const ledger of ledgers) await writer.write(ledger.lcm, ledger.sequence);
    await writer.close();
    for await (const record of openLedgerSource(lake)) {
      extractLedger(record.bytes, record);
      report.lakeLedgers++;
    }
  } finally {
    await rm(lake, { recursive: true, force: true });
  }
  return report;
}

if (process.argv[2] === 'probe') {
  let refused = false;
  try {
    new Function('return 1')();
  } catch (error) {
    refused = error instanceof EvalError;
  }
  process.stdout.write(`${JSON.stringify({ refused })}\n`);
} else {
  let report: NoCodeGenerationReport;
  try {
    report = await extractEverything();
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    report = { streamLedgers: 0, lakeLedgers: 0, events: 0, changes: 0, error: text };
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
