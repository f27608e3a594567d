// Data-lake batches are read with memory bounded by the batch's cap, whatever the file holds. Properties:
// 1. A valid batch stored as thousands of 4-byte zstd frames (a legal multi-frame stream, ~3× larger than the batch)
//    decodes to the same ledgers in a child process limited to 2 GiB of address space, with a small peak RSS. (The
//    reader once allocated and kept a 4 MiB buffer per frame: ~90 GiB for this file.)
// 2. A zero bomb (2 GiB in about 70 KB of frames) behind a valid header declaring one ledger, in a lake of 4 ledgers
//    per batch, is TOO_LONG naming the file, under the same limits: the cap follows the header's ledger count
//    (12 + MAX_BATCH_BYTES_PER_LEDGER), not the name's or the old 1 GiB.
// 3. A single frame that declares more than the cap is TOO_LONG naming the file, before anything is inflated.
// The children are measured by the kernel (ulimit -v, peak RSS), never by time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from '@strata/bench';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { compress } from 'zstd-napi';
import zstd from 'zstd-napi/binding.js';
import {
  batchLocation,
  type DataLakeRange,
  DataLakeWriter,
  encodeLedgerCloseMetaBatch,
  type GeneratedLedger,
  generateNetwork,
  LedgerMetaError,
  MAX_BATCH_BYTES_PER_LEDGER,
  readDataLake,
  SYNTHETIC_NETWORK_PASSPHRASE,
} from '../src/index.js';
import { batchHeader } from './batch-header.js';
import type { ReadChildReport } from './datalake-read-child.js';

const childScript = fileURLToPath(new URL('./datalake-read-child.ts', import.meta.url));
/** Address space of a child: Node and tsx start in well under 2 GiB; the old reader needed far more. */
const CHILD_ADDRESS_SPACE_KIB = 2 * 1024 * 1024;
/** Peak RSS a child may reach: Node and tsx take ~100 MiB, a one-ledger batch's cap 64 MiB (twice while it grows). */
const CHILD_PEAK_RSS_BYTES = 512 * 1024 * 1024;
const MiB = 1024 * 1024;

/** Reads `range` of the lake in a child under the address-space limit and returns its report. */
function readInChild(lake: string, range: DataLakeRange): ReadChildReport {
  const node = [process.execPath, '--disable-wasm-trap-handler', ...typeScriptExecArgv(), childScript];
  const child = spawnSync(
    'bash',
    [
      '-c',
      'ulimit -v "$1" && shift && exec "$@"',
      'bash',
      String(CHILD_ADDRESS_SPACE_KIB),
      ...node,
      lake,
      JSON.stringify(range),
    ],
    { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  expect(child.status, `child exited with ${child.status} (${child.signal}): ${child.stderr}`).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as ReadChildReport;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A lake of `ledgersPerBatch` ledgers per batch holding `ledgers` (none: only its config), for crafted batch files. */
async function lakeOf(ledgersPerBatch: number, ledgers: readonly GeneratedLedger[] = []): Promise<string> {
  const dir = tempDir('lake-memory');
  const options = { ledgersPerBatch, batchesPerPartition: 1, networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE };
  const writer = await DataLakeWriter.create(dir, options);
  for (const ledger of ledgers) await writer.write(ledger.lcm, ledger.sequence);
  await writer.close();
  return dir;
}

/** One zstd frame of `prefix` then `zeroBytes` zeros that declares its content size, compressed in 1 MiB steps. */
function frameDeclaringSize(prefix: Uint8Array, zeroBytes: number): Uint8Array {
  const cctx = new zstd.CCtx();
  cctx.setPledgedSrcSize(prefix.length + zeroBytes);
  const parts: Uint8Array[] = [];
  const out = Buffer.alloc(zstd.compressBound(MiB));
  const feed = (input: Uint8Array, end: boolean) => {
    let rest = input;
    for (;;) {
      const [remaining, produced, consumed] = cctx.compressStream2(
        out,
        rest,
        end ? zstd.EndDirective.end : zstd.EndDirective.continue,
      );
      parts.push(Buffer.from(out.subarray(0, produced)));
      rest = rest.subarray(consumed);
      if (rest.length === 0 && (!end || remaining === 0)) return;
    }
  };
  feed(prefix, false);
  const zeros = new Uint8Array(MiB);
  for (let left = zeroBytes; left > 0; left -= MiB) feed(zeros.subarray(0, Math.min(MiB, left)), false);
  feed(new Uint8Array(0), true);
  return Buffer.concat(parts);
}

describe('data-lake batches with bounded memory', () => {
  it('(1) decodes a batch of thousands of 4-byte zstd frames within 2 GiB of address space', async () => {
    const ledgers = [
      ...generateNetwork({
        seed: 'frames',
        ledgers: 3,
        eventsPerLedger: 100,
        accounts: 100,
        contracts: 4,
        record: false,
      }),
    ];
    const lake = await lakeOf(1, ledgers);
    const last = ledgers[2] as (typeof ledgers)[0];
    const batch = encodeLedgerCloseMetaBatch(last.sequence, [last.lcm]);
    const frames: Uint8Array[] = [];
    for (let at = 0; at < batch.length; at += 4) frames.push(compress(batch.subarray(at, at + 4)));
    const file = Buffer.concat(frames);
    expect(frames.length).toBeGreaterThan(20_000);
    expect(file.length).toBeGreaterThan(2 * batch.length);
    const location = batchLocation(last.sequence, { ledgersPerBatch: 1, batchesPerPartition: 1 });
    await writeFile(join(lake, location.relativePath), file);

    const report = readInChild(lake, {});
    expect(report.error).toBeNull();
    expect(report.ledgers).toEqual(ledgers.map((ledger) => sha256(ledger.lcm)));
    expect(report.peakRssBytes).toBeLessThan(CHILD_PEAK_RSS_BYTES);
  });

  it('(2) refuses a 2 GiB zero bomb behind a one-ledger header as TOO_LONG at the one-ledger cap', async () => {
    const lake = await lakeOf(4);
    const zeroFrame = compress(new Uint8Array(16 * MiB));
    const frames = [compress(batchHeader(4, 4, 1)), ...Array.from({ length: 128 }, () => zeroFrame)];
    const file = Buffer.concat(frames);
    expect(file.length).toBeLessThan(200_000);
    const location = batchLocation(4, { ledgersPerBatch: 4, batchesPerPartition: 1 });
    await writeFile(join(lake, location.relativePath), file);

    const report = readInChild(lake, { from: 4, to: 4 });
    expect(report.error?.code, report.error?.message).toBe('TOO_LONG');
    expect(report.error?.file).toBe(join(lake, location.relativePath));
    expect(report.error?.message).toContain(`cap of ${12 + MAX_BATCH_BYTES_PER_LEDGER} bytes`);
    expect(report.ledgers).toEqual([]);
    expect(report.peakRssBytes).toBeLessThan(CHILD_PEAK_RSS_BYTES);
  });

  it('(3) refuses a frame that declares more than the cap before inflating it', async () => {
    const lake = await lakeOf(1);
    const file = frameDeclaringSize(batchHeader(9, 9, 1), 256 * MiB);
    expect(zstd.getFrameContentSize(file)).toBe(12 + 256 * MiB);
    const path = join(lake, batchLocation(9, { ledgersPerBatch: 1, batchesPerPartition: 1 }).relativePath);
    await writeFile(path, file);
    let failure: unknown;
    try {
      for await (const _ of readDataLake(lake, { from: 9, to: 9 })) expect.unreachable();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(LedgerMetaError);
    expect((failure as LedgerMetaError).code).toBe('TOO_LONG');
    expect((failure as LedgerMetaError).file).toBe(path);
    expect((failure as LedgerMetaError).message).toContain(`declares ${12 + 256 * MiB} bytes`);
  });
});
