// Truncated and corrupted streams end in LedgerMetaError or a correct parse, never another exception or a hang:
// (1) every cut position of three small fixture streams and (2) seeded random byte flips, both run by
// test/corruption-runner.ts in a child process killed after a deadline; (3) hand-made framing faults (a mark without
// its top bit, a length over the cap, a huge length in a small file, ledgers out of order) name the record and
// offset; (4) the buffered file reader (tiny buffer) yields exactly the records of the in-memory iterator.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from '@strata/bench';
import { describeWithFixtures, errorOf, fixturePath, runChildWithDeadline, tempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import {
  iterateLedgerCloseMetaRecords,
  LedgerMetaError,
  LedgerMetaErrorCode,
  readLedgerCloseMetaStream,
} from '../src/index.js';
import type { CorruptionOptions, CorruptionReport } from './corruption-runner.js';

const runnerPath = fileURLToPath(new URL('./corruption-runner.ts', import.meta.url));

const smallStreams = [
  fixturePath('stellar-core-lcm', 'BeginSponsoringFutureReservesTests', '810737d7a4e635c4.xdr'),
  fixturePath('stellar-core-lcm', 'MergeTests', '7b2e6a32c85708f5.xdr'), // has contract events (SAC, v4 meta)
  fixturePath('stellar-core-lcm', 'InvokeHostFunctionTests', '22df21f5f58e57ba.xdr'), // Soroban tx set and meta
];

/** Runs the loops in a child (test-kit's runChildWithDeadline): a hang fails with the input in flight. */
function runChild(options: CorruptionOptions, killAfterMs: number): Promise<CorruptionReport> {
  return runChildWithDeadline<CorruptionReport>({
    script: runnerPath,
    args: ['corruption-child', JSON.stringify(options)],
    execArgv: typeScriptExecArgv(),
    killAfterMs,
    progressFile: options.progressFile,
    label: 'corruption child',
  });
}

function mark(length: number, topBit = true): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, ((topBit ? 0x80000000 : 0) | length) >>> 0);
  return bytes;
}

describeWithFixtures('corrupted streams', [['stellar-core-lcm']], () => {
  it('every truncation and random flips end in LedgerMetaError or a correct parse', async () => {
    const report = await runChild(
      {
        files: smallStreams,
        seed: Number(process.env.STRATA_CORRUPTION_SEED ?? 20_260_724),
        maxFlipMutants: 3_000,
        flipBudgetMs: 8_000,
        progressFile: join(tempDir('corruption'), 'in-flight.txt'),
      },
      50_000,
    );
    process.stdout.write(`corruption: ${JSON.stringify(report)}\n`);
    expect(report.failures).toEqual([]);
    expect(report.cuts).toBeGreaterThan(20_000);
    expect(report.flipMutants).toBeGreaterThan(100);
    expect(report.codes.TRUNCATED ?? 0).toBeGreaterThan(0);
  });

  it('names the record and offset of framing faults', () => {
    const stream = new Uint8Array(readFileSync(smallStreams[1] as string));
    const records = [...iterateLedgerCloseMetaRecords(stream)];
    const first = records[0];
    const second = records[1];
    if (first === undefined || second === undefined) throw new Error('fixture has fewer than two records');
    const secondMark = second.offset - 4;

    const noTopBit = stream.slice();
    noTopBit[secondMark] = (noTopBit[secondMark] ?? 0) & 0x7f;
    const badMark = errorOf(LedgerMetaError, () => [...iterateLedgerCloseMetaRecords(noTopBit)]);
    expect([badMark.code, badMark.record, badMark.offset]).toEqual([
      LedgerMetaErrorCode.BAD_RECORD_MARK,
      1,
      secondMark,
    ]);

    const overCap = errorOf(LedgerMetaError, () => [...iterateLedgerCloseMetaRecords(stream, { maxRecordBytes: 64 })]);
    expect([overCap.code, overCap.record, overCap.offset]).toEqual([LedgerMetaErrorCode.TOO_LONG, 0, 0]);

    const huge = new Uint8Array([...mark(0x7fffffff), 0, 0, 0, 0]);
    const hugeError = errorOf(LedgerMetaError, () => [
      ...iterateLedgerCloseMetaRecords(huge, { maxRecordBytes: 0x7fffffff }),
    ]);
    expect(hugeError.code).toBe(LedgerMetaErrorCode.TRUNCATED);

    // The same ledger twice: the second is out of order.
    const repeated = new Uint8Array([
      ...mark(first.bytes.length),
      ...first.bytes,
      ...mark(first.bytes.length),
      ...first.bytes,
    ]);
    const outOfOrder = errorOf(LedgerMetaError, () => [...iterateLedgerCloseMetaRecords(repeated)]);
    expect([outOfOrder.code, outOfOrder.record]).toEqual([LedgerMetaErrorCode.OUT_OF_ORDER, 1]);
    expect([...iterateLedgerCloseMetaRecords(repeated, { checkOrder: false })]).toHaveLength(2);
  });

  it('reads a file through a tiny buffer exactly as the in-memory iterator does, and reports IO and cuts', async () => {
    const dir = tempDir('stream');
    for (const source of smallStreams) {
      const bytes = new Uint8Array(readFileSync(source));
      const expected = [...iterateLedgerCloseMetaRecords(bytes)].map((record) => [record.offset, record.ledgerSeq]);
      const buffered: number[][] = [];
      for await (const record of readLedgerCloseMetaStream(source, { wholeFileBytes: 0, readBufferBytes: 16 })) {
        expect(Buffer.compare(record.bytes, bytes.subarray(record.offset, record.offset + record.bytes.length))).toBe(
          0,
        );
        buffered.push([record.offset, record.ledgerSeq]);
      }
      expect(buffered).toEqual(expected);

      const cut = join(dir, 'cut.xdr');
      writeFileSync(cut, bytes.subarray(0, bytes.length - 3));
      const records: number[] = [];
      let caught: unknown;
      try {
        for await (const record of readLedgerCloseMetaStream(cut, { wholeFileBytes: 0, readBufferBytes: 64 })) {
          records.push(record.record);
        }
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LedgerMetaError);
      expect((caught as LedgerMetaError).code).toBe(LedgerMetaErrorCode.TRUNCATED);
      expect((caught as LedgerMetaError).file).toBe(cut);
      expect(records).toHaveLength(expected.length - 1);
    }
    let missing: unknown;
    try {
      for await (const _ of readLedgerCloseMetaStream(join(dir, 'absent.xdr'))) break;
    } catch (error) {
      missing = error;
    }
    expect((missing as LedgerMetaError).code).toBe(LedgerMetaErrorCode.IO);
  });
});
