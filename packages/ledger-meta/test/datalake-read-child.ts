// Child side of test/datalake-memory.test.ts: reads a data-lake range in a process of its own (started under a
// virtual-memory limit) and prints one JSON line: the ledgers read (count and SHA-256 of each), the LedgerMetaError or
// other error it ended with, and the process's peak resident set. `datalake-read-child <lake> <rangeJSON>`.
import { createHash } from 'node:crypto';
import { type DataLakeRange, LedgerMetaError, readDataLake } from '../src/index.js';

export interface ReadChildReport {
  ledgers: string[];
  error: { name: string; code: string | null; file: string | null; message: string } | null;
  peakRssBytes: number;
}

const [lake, rangeJson] = process.argv.slice(2);
const report: ReadChildReport = { ledgers: [], error: null, peakRssBytes: 0 };
try {
  for await (const lcm of readDataLake(lake ?? '', JSON.parse(rangeJson ?? '{}') as DataLakeRange)) {
    report.ledgers.push(createHash('sha256').update(lcm).digest('hex'));
  }
} catch (error) {
  const known = error instanceof LedgerMetaError;
  report.error = {
    name: error instanceof Error ? error.name : typeof error,
    code: known ? error.code : null,
    file: known ? (error.file ?? null) : null,
    message: error instanceof Error ? error.message : String(error),
  };
}
// maxRSS is in KiB.
report.peakRssBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify(report)}\n`);
