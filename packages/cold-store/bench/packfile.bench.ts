// Packfile container benchmarks on a generated pack of STRATA_PACK_BENCH_ITEMS items (default 2,000,000; 50,000
// under STRATA_BENCH_QUICK) of ~210 B each, laid out like events.pack (128 items per record, 128 KiB byte cap,
// zstd level 3):
// - packfile.write (items/s): the streaming writer, temp + fsync + rename included, against writing the same item
//   bytes raw (concatenated, no records, no compression) through the same StorageWriter;
// - packfile.fetch-1000-scattered.c1/.c4/.c8 (p50 with p99, ms): readItems of 1,000 random sorted positions at
//   that concurrency, page cache warm; .c4 and .c8 against .c1 measured alternately in the same loop;
// - the same with .cold: the file's pages dropped (StorageFile.dropCache, MADV_PAGEOUT) before each request,
//   recorded only where dropCache works (Linux).
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchSession, quickMode, runBench, summarize } from '@strata/bench';
import { seededRandom } from '@strata/test-kit';
import { PackfileReader, PackfileWriter } from '../src/packfile/index.js';
import { LocalStorage } from '../src/storage/index.js';

const ITEMS = Number(process.env.STRATA_PACK_BENCH_ITEMS ?? (quickMode ? 50_000 : 2_000_000));
const FORMAT_ID = 0x5354_b001;
const NOISE = new Uint8Array(1 << 20);
const CONTRACTS = Array.from({ length: 64 }, (_, k) => new Uint8Array(32).fill(k * 3 + 1));
const TOPICS = Array.from({ length: 16 }, (_, k) => new TextEncoder().encode(`topic-${k}-transfer-mint-burn-swap-`));

{
  const random = seededRandom(1);
  for (let i = 0; i < NOISE.length; i++) NOISE[i] = Math.floor(random() * 256);
}

/** Item i: its index, a contract id and a topic from small pools (compressible), then 60–200 noise bytes. */
function item(i: number): Uint8Array {
  const h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  const noise = 60 + (h % 141);
  const contract = CONTRACTS[(h >>> 8) % CONTRACTS.length] as Uint8Array;
  const topic = TOPICS[(h >>> 16) % TOPICS.length] as Uint8Array;
  const out = new Uint8Array(4 + contract.length + topic.length + noise);
  new DataView(out.buffer).setUint32(0, i, true);
  out.set(contract, 4);
  out.set(topic, 4 + contract.length);
  const from = h % (NOISE.length - noise);
  out.set(NOISE.subarray(from, from + noise), 4 + contract.length + topic.length);
  return out;
}

async function writePack(storage: LocalStorage, name: string): Promise<number> {
  const writer = await PackfileWriter.create(storage, name, {
    formatId: FORMAT_ID,
    itemsPerRecord: 128,
    maxRecordBytes: 128 * 1024,
    codec: 'zstd',
  });
  for (let i = 0; i < ITEMS; i++) await writer.add(item(i));
  return (await writer.finish()).bytes;
}

async function writeRaw(storage: LocalStorage, name: string): Promise<number> {
  const writer = await storage.createWriter(name);
  let buffer = new Uint8Array(1 << 20);
  let used = 0;
  for (let i = 0; i < ITEMS; i++) {
    const bytes = item(i);
    if (used + bytes.length > buffer.length) {
      await writer.write(buffer.subarray(0, used));
      buffer = new Uint8Array(1 << 20);
      used = 0;
    }
    buffer.set(bytes, used);
    used += bytes.length;
  }
  await writer.write(buffer.subarray(0, used));
  await writer.commit();
  return writer.bytesWritten;
}

async function measureWrite(bench: BenchSession, storage: LocalStorage): Promise<number> {
  const mine: number[] = [];
  const base: number[] = [];
  let packBytes = 0;
  let rawBytes = 0;
  for (let round = 0; round < bench.rounds; round++) {
    let t0 = performance.now();
    packBytes = await writePack(storage, 'bench.pack');
    mine.push((ITEMS * 1000) / (performance.now() - t0));
    t0 = performance.now();
    rawBytes = await writeRaw(storage, 'bench.raw');
    base.push((ITEMS * 1000) / (performance.now() - t0));
  }
  const median = (values: number[]) => summarize(values).median;
  bench.record(
    {
      id: 'packfile.write',
      value: median(mine),
      unit: 'items/s',
      higherIsBetter: true,
      samples: mine.length,
      baseline: {
        name: 'the same item bytes written raw through the same StorageWriter',
        value: median(base),
        unit: 'items/s',
      },
    },
    {
      note: `${ITEMS} items, ${(rawBytes / ITEMS).toFixed(0)} B raw each on average; pack ${(packBytes / 2 ** 20).toFixed(1)} MiB (${(packBytes / ITEMS).toFixed(1)} B/item), raw ${(rawBytes / 2 ** 20).toFixed(1)} MiB; fsync + rename included`,
    },
  );
  return packBytes;
}

/** `count` requests of 1,000 random sorted positions. */
function requests(count: number, seed: number): Uint32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const set = new Set<number>();
    while (set.size < Math.min(1000, ITEMS)) set.add(Math.floor(random() * ITEMS));
    return Uint32Array.from([...set].sort((a, b) => a - b));
  });
}

async function timeFetch(reader: PackfileReader, positions: Uint32Array, check: boolean): Promise<number> {
  const t0 = performance.now();
  const got = await reader.readItems(positions);
  const elapsed = performance.now() - t0;
  if (check) {
    positions.forEach((position, k) => {
      if (Buffer.compare(got[k] as Uint8Array, item(position)) !== 0) throw new Error(`item ${position} differs`);
    });
  }
  return elapsed;
}

async function measureFetch(bench: BenchSession, storage: LocalStorage, cold: boolean): Promise<void> {
  const open = async (concurrency: number) =>
    PackfileReader.open(await storage.open('bench.pack'), FORMAT_ID, { concurrency });
  const serial = await open(1);
  const sets = requests(cold ? (quickMode ? 5 : 40) : quickMode ? 20 : 200, cold ? 7 : 3);
  if (cold) {
    const probe = await storage.open('bench.pack');
    const works = probe.dropCache();
    await probe.close();
    if (!works) {
      console.log('packfile.fetch-1000-scattered.*.cold: skipped, dropCache does not work on this platform');
      await serial.close();
      return;
    }
  }
  const dropper = await storage.open('bench.pack');
  const suffix = cold ? '.cold' : '';
  const figure = (values: number[]) => {
    const { median, p99 } = summarize(values);
    return { median, p99 };
  };
  const serialTimes: number[] = [];
  for (const concurrency of [4, 8]) {
    const fanned = await open(concurrency);
    const mine: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < (cold ? 1 : bench.rounds); round++) {
      for (const [k, positions] of sets.entries()) {
        if (cold) dropper.dropCache();
        mine.push(await timeFetch(fanned, positions, round === 0 && k < 3));
        if (cold) dropper.dropCache();
        base.push(await timeFetch(serial, positions, false));
      }
    }
    if (concurrency === 4) serialTimes.push(...base);
    const m = figure(mine);
    const b = figure(base);
    bench.record(
      {
        id: `packfile.fetch-1000-scattered.c${concurrency}${suffix}`,
        value: m.median,
        unit: 'ms',
        higherIsBetter: false,
        p99: m.p99,
        samples: mine.length,
        baseline: { name: 'the same readItems at concurrency 1', value: b.median, unit: 'ms', p99: b.p99 },
      },
      {
        note: `1,000 random sorted positions of ${ITEMS}; page cache ${cold ? 'dropped before each request' : 'warm'}`,
      },
    );
    await fanned.close();
  }
  const s = figure(serialTimes);
  bench.record(
    {
      id: `packfile.fetch-1000-scattered.c1${suffix}`,
      value: s.median,
      unit: 'ms',
      higherIsBetter: false,
      p99: s.p99,
      samples: serialTimes.length,
    },
    { note: `concurrency 1 (the baseline samples of .c4${suffix}); page cache ${cold ? 'dropped' : 'warm'}` },
  );
  await Promise.all([serial.close(), dropper.close()]);
}

const dir = await mkdtemp(join(tmpdir(), 'strata-pack-bench-'));
try {
  const storage = new LocalStorage(dir);
  await runBench(async (bench) => {
    await measureWrite(bench, storage);
    await storage.remove('bench.raw');
    await measureFetch(bench, storage, false);
    await measureFetch(bench, storage, true);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
