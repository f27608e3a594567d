// The corruption loops of test/corruption.test.ts, run in a child process so that a hang is a killed child and a
// failed test rather than a stuck run. For each input it reads every record (framing, order), validates it with the
// schema walker and extracts it; the outcome must be a LedgerMetaError or a parse, never another exception:
//
//  - truncation: the stream cut at every byte position; the records before the cut must come out exactly as in the
//    whole stream, then a LedgerMetaError (TRUNCATED) unless the cut falls on a record boundary;
//  - flips: seeded random byte changes (1-4 per mutant, random values or single bits), within a count and time budget.
//
// Before each mutant it writes a description to a progress file, so a hang is reported with the input that hung.
import { readFileSync, writeFileSync } from 'node:fs';
import { seededRandom } from '@strata/test-kit';
import {
  extractLedger,
  iterateLedgerCloseMetaRecords,
  LedgerMetaError,
  validateLedgerCloseMeta,
} from '../src/index.js';

export interface CorruptionOptions {
  files: string[];
  seed: number;
  maxFlipMutants: number;
  flipBudgetMs: number;
  progressFile: string;
}

export interface CorruptionReport {
  cuts: number;
  cutErrors: number;
  flipMutants: number;
  flipErrors: number;
  flipParsed: number;
  codes: Record<string, number>;
  failures: string[];
}

/** Reads every record of `bytes`; returns how many records were read, or throws what the engine threw. */
function parseStream(bytes: Uint8Array, onRecord?: (record: number, lcm: Uint8Array) => void): number {
  let records = 0;
  for (const record of iterateLedgerCloseMetaRecords(bytes)) {
    validateLedgerCloseMeta(record.bytes, record);
    extractLedger(record.bytes, record);
    onRecord?.(record.record, record.bytes);
    records++;
  }
  return records;
}

export function runCorruption(options: CorruptionOptions): CorruptionReport {
  const report: CorruptionReport = {
    cuts: 0,
    cutErrors: 0,
    flipMutants: 0,
    flipErrors: 0,
    flipParsed: 0,
    codes: {},
    failures: [],
  };
  const classify = (error: unknown, what: string): void => {
    if (error instanceof LedgerMetaError) {
      report.codes[error.code] = (report.codes[error.code] ?? 0) + 1;
      if (!Number.isInteger(error.offset ?? 0)) report.failures.push(`${what}: non-integer offset`);
      return;
    }
    const text = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
    if (report.failures.length < 20) report.failures.push(`${what}: ${text}`);
  };

  for (const file of options.files) {
    const whole = new Uint8Array(readFileSync(file));
    // Record boundaries and the original records, to check what comes out before each cut.
    const boundaries = [0];
    const originals: Uint8Array[] = [];
    for (const record of iterateLedgerCloseMetaRecords(whole)) {
      originals.push(record.bytes);
      boundaries.push(record.offset + record.bytes.length);
    }
    for (let cut = 0; cut < whole.length; cut++) {
      report.cuts++;
      writeFileSync(options.progressFile, `${file} cut at ${cut}`);
      const completeRecords = boundaries.filter((end) => end > 0 && end <= cut).length;
      let seen = 0;
      try {
        const parsed = parseStream(whole.subarray(0, cut), (index, lcm) => {
          seen++;
          if (Buffer.compare(lcm, originals[index] ?? new Uint8Array()) !== 0) {
            report.failures.push(`${file} cut ${cut}: record ${index} differs from the original`);
          }
        });
        if (!boundaries.includes(cut) || parsed !== completeRecords) {
          report.failures.push(`${file} cut ${cut}: parsed ${parsed} records without an error`);
        }
      } catch (error) {
        report.cutErrors++;
        classify(error, `${file} cut ${cut}`);
        if (seen !== completeRecords) {
          report.failures.push(`${file} cut ${cut}: ${seen} records before the error, expected ${completeRecords}`);
        }
      }
    }
  }

  const random = seededRandom(options.seed);
  const started = Date.now();
  const inputs = options.files.map((file) => new Uint8Array(readFileSync(file)));
  while (report.flipMutants < options.maxFlipMutants && Date.now() - started < options.flipBudgetMs) {
    const fileIndex = Math.floor(random() * inputs.length);
    const mutant = (inputs[fileIndex] as Uint8Array).slice();
    const changes: string[] = [];
    const flipCount = 1 + Math.floor(random() * 4);
    for (let i = 0; i < flipCount; i++) {
      const position = Math.floor(random() * mutant.length);
      const value =
        random() < 0.5 ? (mutant[position] ?? 0) ^ (1 << Math.floor(random() * 8)) : Math.floor(random() * 256);
      mutant[position] = value;
      changes.push(`${position}=${value}`);
    }
    report.flipMutants++;
    const what = `${options.files[fileIndex]} flips ${changes.join(',')}`;
    writeFileSync(options.progressFile, what);
    try {
      parseStream(mutant);
      report.flipParsed++;
    } catch (error) {
      report.flipErrors++;
      classify(error, what);
    }
  }
  return report;
}

// Child-process entry: `corruption-runner.ts corruption-child <json options>`; the report goes back over IPC.
if (process.argv[2] === 'corruption-child' && process.send !== undefined) {
  const options = JSON.parse(process.argv[3] as string) as CorruptionOptions;
  const report = runCorruption(options);
  process.send(report, () => process.exit(0));
}
