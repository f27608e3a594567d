// @strata/cold-store benchmarks, each against the hot tier (@strata/hot-store) in the same run, over a generated
// pubnet-like chunk (../../hot-store/bench/pubnet-like.ts: 10,000 ledgers of ~900 SAC events, ~9 M events, millions
// of distinct terms) ingested into a hot store and frozen:
// - freeze (s): freezeChunk of the whole chunk in a fresh process (its peak RSS and CPU time in the note); baseline:
//   ingesting the same events into the hot store;
// - bytes-per-event: events.pack + index.pack + index.hash on disk ÷ events; baseline: the hot database's files;
// - open (ms): openChunk of the frozen chunk (manifest, three files, every check); baseline: openHotReader (its
//   index rebuilt from the database);
// - lookup.1, lookup.3, lookup.15 (µs): lookupTerms of that many terms of random events over the whole chunk, 64 key
//   sets in turn, so the reader's view cache holds their bitmaps after the first round; `.uncached`: the same with
//   the cache off (viewCacheBytes 0), each lookup making its bitmap (a frozen view, or a delta list's bitmap);
// - fetch-1000-scattered.c1 / .c4 / .c8 (p50 with p99, ms): 1,000 random ordinals, sorted, one fetchEvents, at that
//   fetch concurrency, page cache warm (events.pack's records read from its mapping); and the same with `.cold`:
//   the file's pages evicted before each fetch (StorageFile.dropCache: madvise MADV_PAGEOUT on Linux ≥ 5.4; the
//   batches not in memory are read with the fan-out of positioned reads; the hot baseline reads with SQLite's mmap
//   off and its database's pages evicted the same way; skipped where the platform cannot);
// - query.pubnet-mix (p50 with p99, ms, and .p99): the real requests of ../shared/fixtures/pubnet-getevents through
//   @strata/match's engine, limit 1000, over @strata/match's bench corpus (8.4 M events whose dominant values are
//   the requests') ingested into a hot store and frozen; skipped, with the reason logged, without the fixture.
// Sizes: STRATA_COLD_BENCH_LEDGERS (default 10,000; 300 under STRATA_BENCH_QUICK), STRATA_COLD_BENCH_EVENTS (900).
// STRATA_COLD_BENCH_CACHE=<dir> keeps the two ingested hot chunks (and their ingest times, the freeze's baseline) in
// <dir> and reuses them on the next run with the same sizes: ingesting them takes most of a run. The frozen files
// are always built afresh, under the run's own temp dir. Delete <dir> when done (a full run keeps ~4 GB there).
// STRATA_COLD_BENCH_ONLY=<ids> (comma-separated: freeze, open, lookup, fetch, pubnet-mix) runs only those groups
// (freeze also gives bytes-per-event; open, lookup and fetch build the generated chunk, and so record freeze too).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchSession, measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import {
  type ChunkReader,
  compilePostFilter,
  deriveTerms,
  type OrdinalWindow,
  type StorageFilter,
  type TermKey,
  termKeyHex,
} from '@strata/events';
import { HotStore, openHotReader } from '@strata/hot-store';
import { matchEvents, planQuery } from '@strata/match';
import { chunkLedgers, type PubnetLikeOptions, templatePayloads } from '../../hot-store/bench/pubnet-like.js';
import { loadPubnetRequests, loadPubnetVocabulary, pubnetMissingReason } from '../../match/bench/pubnet-requests.js';
import { CHUNK_ID, corpusVocabulary, FULL_CHUNK_EVENTS, SyntheticChunk } from '../../match/bench/synthetic-chunk.js';
import { ColdChunkReader, chunkFileNames, LocalStorage, openChunk, type StorageFile } from '../src/index.js';
import type { FreezeRun } from './freeze-job.js';

const LEDGERS = Number(process.env.STRATA_COLD_BENCH_LEDGERS ?? (quickMode ? 300 : 10_000));
const EVENTS_PER_LEDGER = Number(process.env.STRATA_COLD_BENCH_EVENTS ?? 900);
const GENERATED_CHUNK = 1;
const HOT = 'hot tier (@strata/hot-store, SQLite + in-memory index)';
const log = (line: string) => console.log(`  ${line}`);
const freezeModule = fileURLToPath(new URL('./freeze-job.ts', import.meta.url));

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!;
}
const sortedCopy = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/** Bytes of every file under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** A deterministic generator for the bench's random picks. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const root = join(tmpdir(), `strata-bench-cold-store-${process.pid}`);
mkdirSync(root, { recursive: true });
const cacheDir = process.env.STRATA_COLD_BENCH_CACHE;
const only = process.env.STRATA_COLD_BENCH_ONLY?.split(',').map((id) => id.trim());
/** Whether the group `id` runs (all do without STRATA_COLD_BENCH_ONLY). */
const selected = (id: string) => only === undefined || only.includes(id);

/**
 * The directory of an ingested hot chunk called `name`: under the cache dir when one is set (reused when it holds a
 * complete ingest of the same `shape`: `ingest` is not called), else fresh under the run's root. Returns the
 * directory and the ingest's milliseconds (measured now, or recorded when the cached chunk was made).
 */
async function hotChunkDir(name: string, shape: string, ingest: (dir: string) => Promise<number>) {
  const dir = join(cacheDir ?? root, name);
  const marker = join(dir, 'ingested.json');
  if (cacheDir !== undefined && existsSync(marker)) {
    const recorded = JSON.parse(readFileSync(marker, 'utf8')) as { shape: string; ingestMs: number };
    if (recorded.shape === shape) {
      log(`${name}: reusing the hot chunk cached in ${dir}`);
      return { dir, ingestMs: recorded.ingestMs };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const ingestMs = await ingest(dir);
  if (cacheDir !== undefined) writeFileSync(marker, JSON.stringify({ shape, ingestMs }));
  return { dir, ingestMs };
}
try {
  await runBench(async (bench) => {
    if (['freeze', 'open', 'lookup', 'fetch'].some(selected)) {
      const chunk = await generatedChunk(bench);
      if (selected('open')) await measureOpen(bench, chunk);
      if (selected('lookup')) await measureLookups(bench, chunk);
      if (selected('fetch')) await measureFetch(bench, chunk);
    }
    if (selected('pubnet-mix')) await measurePubnetMix(bench);
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}

interface GeneratedChunk {
  readonly hotPath: string;
  readonly dataDir: string;
  readonly indexDir: string;
  readonly events: number;
}

/** Ingests the pubnet-like chunk into a hot store (timed: the freeze's baseline), then freezes it in a child. */
async function generatedChunk(bench: BenchSession): Promise<GeneratedChunk> {
  const options: PubnetLikeOptions = {
    chunkId: GENERATED_CHUNK,
    ledgers: LEDGERS,
    eventsPerLedger: EVENTS_PER_LEDGER,
    templateLedgers: quickMode ? 20 : 250,
    ledgersPerAccountEpoch: 25,
  };
  let events = 0;
  const { dir: hotDir, ingestMs } = await hotChunkDir('generated-hot', JSON.stringify(options), async (dir) => {
    const templates = templatePayloads(options);
    const store = HotStore.open(join(dir, 'chunk.sqlite'), { chunkId: GENERATED_CHUNK, create: true });
    let ms = 0;
    for (const { ledger, payloads } of chunkLedgers(options, templates)) {
      const t0 = performance.now();
      store.ingestLedger(ledger, payloads);
      ms += performance.now() - t0;
      events += payloads.length;
      if ((ledger - options.chunkId * 10_000 - 1) % 1000 === 0) log(`${ledger} ledgers ingested, ${events} events`);
    }
    const t0 = performance.now();
    store.sync();
    ms += performance.now() - t0;
    store.close();
    return ms;
  });
  const hotPath = join(hotDir, 'chunk.sqlite');
  if (events === 0) {
    const reader = openHotReader(hotPath, { chunkId: GENERATED_CHUNK });
    events = reader.eventCount();
    await reader.close();
  }
  log(`${events} events ingested into the hot store in ${(ingestMs / 1000).toFixed(1)} s`);

  const dataDir = join(root, 'generated-data');
  const indexDir = join(root, 'generated-index');
  const runs: FreezeRun[] = [];
  let peak = 0;
  // Each round freezes from scratch (a freeze over an existing manifest only opens it).
  for (let round = 0; round < Math.max(1, Math.min(bench.rounds, 2)); round++) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(indexDir, { recursive: true, force: true });
    const report = await measurePeakRss({
      module: freezeModule,
      exportName: 'freezeJob',
      args: [hotPath, GENERATED_CHUNK, dataDir, indexDir, root],
      execArgv: ['--max-old-space-size=8192'],
    });
    runs.push(report.result as FreezeRun);
    peak = Math.max(peak, report.peakRssBytes);
  }
  const run = runs.reduce((best, r) => (r.ms < best.ms ? r : best));
  if (run.eventCount !== events) throw new Error(`the freeze saw ${run.eventCount} events, expected ${events}`);
  const shape = `${LEDGERS} ledgers, ${events} pubnet-like events, ${run.termCount} distinct terms`;
  bench.record(
    {
      id: 'freeze',
      value: run.ms / 1000,
      unit: 's',
      higherIsBetter: false,
      baseline: {
        name: `${HOT}: ingest of the same events, one ledger per transaction`,
        value: ingestMs / 1000,
        unit: 's',
      },
    },
    {
      target: { value: 40 },
      note: `freezeChunk in a fresh process, best of ${runs.length}: events ${(run.stepMs.events / 1000).toFixed(1)} s, index ${(run.stepMs.index / 1000).toFixed(1)} s, verify ${(run.stepMs.verify / 1000).toFixed(1)} s; CPU ${(run.cpuMs / 1000).toFixed(1)} s (user + system, all threads; per step: ${Object.entries(
        run.stepCpuMs,
      )
        .map(([step, cpuMs]) => `${step} ${(cpuMs / 1000).toFixed(1)}`)
        .join(
          ', ',
        )}); peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB including the hot reader's index (${(run.hotOpenMs / 1000).toFixed(1)} s to open); postings spilled ${(run.spilledBytes / 2 ** 20).toFixed(0)} MiB, ${run.partitions} index partitions; ${shape}`,
    },
  );
  const coldBytes = run.bytes.eventsPack + run.bytes.indexPack + run.bytes.indexHash;
  bench.record(
    {
      id: 'bytes-per-event',
      value: coldBytes / events,
      unit: 'B',
      higherIsBetter: false,
      baseline: { name: `${HOT}: database and WAL files`, value: bytesUnder(hotDir) / events, unit: 'B' },
    },
    {
      target: { value: 50 },
      note: `events.pack ${(run.bytes.eventsPack / events).toFixed(1)} B (its zstd dictionary included), index.pack ${(run.bytes.indexPack / events).toFixed(1)} B, index.hash ${(run.bytes.indexHash / events).toFixed(2)} B per event; ${shape}${quickMode ? "; quick mode's 20 template ledgers share transactions and accounts more than the full run's 250: its bytes per event read much lower than a full chunk's" : ''}`,
    },
  );
  return { hotPath, dataDir, indexDir, events };
}

function location(chunk: GeneratedChunk) {
  return {
    chunkId: GENERATED_CHUNK,
    storage: new LocalStorage(chunk.dataDir),
    indexStorage: new LocalStorage(chunk.indexDir),
  };
}

/** open: openChunk (manifest, files, checks) against openHotReader, alternating. */
async function measureOpen(bench: BenchSession, chunk: GeneratedChunk): Promise<void> {
  const cold: number[] = [];
  const hot: number[] = [];
  for (let round = 0; round < (quickMode ? 3 : 10); round++) {
    let t0 = performance.now();
    const opened = await openChunk(location(chunk));
    cold.push(performance.now() - t0);
    if (opened.tier !== 'cold') throw new Error('the generated chunk is not frozen');
    await opened.reader.close();
    if (round < (quickMode ? 2 : 3)) {
      t0 = performance.now();
      const reader = openHotReader(chunk.hotPath, { chunkId: GENERATED_CHUNK });
      hot.push(performance.now() - t0);
      await reader.close();
    }
  }
  bench.record(
    {
      id: 'open',
      value: summarize(cold).median,
      unit: 'ms',
      higherIsBetter: false,
      baseline: { name: `${HOT}: openHotReader (index rebuilt)`, value: summarize(hot).median, unit: 'ms' },
    },
    { note: `median of ${cold.length} cold opens (${hot.length} hot), ${chunk.events} events` },
  );
}

/** Terms of random events: what a request names (types, contracts, topic values), mostly sparse, some dense. */
async function sampleKeys(
  reader: ChunkReader,
  events: number,
  count: number,
  random: () => number,
): Promise<TermKey[]> {
  const keys = new Map<string, TermKey>();
  while (keys.size < count) {
    const ordinal = Math.floor(random() * events);
    const [payload] = await reader.fetchEvents([ordinal]);
    const terms = deriveTerms(payload!);
    const key = terms[Math.floor(random() * terms.length)]!;
    keys.set(termKeyHex(key), key);
  }
  return [...keys.values()];
}

/** lookup.1, lookup.3, lookup.15 over the whole chunk, cold views against hot bitmaps; cached, then uncached. */
async function measureLookups(bench: BenchSession, chunk: GeneratedChunk): Promise<void> {
  const cold = await ColdChunkReader.open(location(chunk));
  const uncached = await ColdChunkReader.open({ ...location(chunk), read: { viewCacheBytes: 0 } });
  const hot = openHotReader(chunk.hotPath, { chunkId: GENERATED_CHUNK });
  try {
    const window: OrdinalWindow = { start: 0, end: chunk.events };
    const random = lcg(777);
    const keySets = new Map<number, TermKey[][]>();
    for (const k of [1, 3, 15]) {
      keySets.set(k, await Promise.all(Array.from({ length: 64 }, () => sampleKeys(hot, chunk.events, k, random))));
    }
    // Every set once through each reader before anything is timed: the first row does not pay for compiling the
    // lookup path, and the cached reader's row starts with its cache filled.
    for (const sets of keySets.values()) {
      for (const set of sets) {
        for (const reader of [cold, uncached, hot]) await reader.lookupTerms(set, window);
      }
    }
    for (const [reader, suffix, what] of [
      [cold, '', 'view cache on (the sets fit: hits after the first round)'],
      [uncached, '.uncached', 'view cache off (viewCacheBytes 0): a new bitmap per term'],
    ] as const) {
      for (const [k, sets] of keySets) {
        let next = 0;
        let nextHot = 0;
        await bench.latency(`lookup.${k}${suffix}`, {
          subject: {
            name: `ColdChunkReader.lookupTerms, ${k} term(s)`,
            fn: () => reader.lookupTerms(sets[next++ % sets.length]!, window),
          },
          baseline: { name: `${HOT}: lookupTerms`, fn: () => hot.lookupTerms(sets[nextHot++ % sets.length]!, window) },
          note: `ns per call (the report's unit), ${k} term(s) of random events, whole-chunk window, 64 key sets in turn, ${what}; ${chunk.events} events`,
        });
      }
    }
  } finally {
    await Promise.all([cold.close(), uncached.close()]);
    await hot.close();
  }
}

/**
 * Evicts a file's pages (StorageFile.dropCache), through the one mapping LocalStorage shares between every handle of
 * the file, so the pages the reader read from its mapping go too. A full GC first: pages that an earlier, not yet
 * collected, mapping of the file still maps count as shared, which the kernel does not page out.
 */
function evict(file: StorageFile): boolean {
  globalThis.gc?.();
  return file.dropCache();
}

/** fetch-1000-scattered at concurrency 1, 4, 8: warm, then with the files' pages evicted before each fetch. */
async function measureFetch(bench: BenchSession, chunk: GeneratedChunk): Promise<void> {
  const random = lcg(12345);
  const requests = Array.from({ length: quickMode ? 20 : 200 }, () => {
    const set = new Set<number>();
    while (set.size < Math.min(1000, chunk.events)) set.add(Math.floor(random() * chunk.events));
    return Uint32Array.from([...set].sort((a, b) => a - b));
  });
  const names = chunkFileNames(GENERATED_CHUNK);
  const eventsFile = await new LocalStorage(chunk.dataDir).open(names.eventsPack);
  const hotFile = await new LocalStorage(join(chunk.hotPath, '..')).open('chunk.sqlite');
  const hotWarm = openHotReader(chunk.hotPath, { chunkId: GENERATED_CHUNK });
  const hotCold = openHotReader(chunk.hotPath, { chunkId: GENERATED_CHUNK, mmapSizeMiB: 0 });
  try {
    for (const concurrency of [1, 4, 8]) {
      const cold = await ColdChunkReader.open({ ...location(chunk), read: { concurrency } });
      try {
        const first = await cold.fetchEvents(requests[0]!);
        const theirs = await hotWarm.fetchEvents(requests[0]!);
        first.forEach((payload, i) => {
          if (Buffer.compare(payload, theirs[i]!) !== 0) throw new Error(`fetch: ordinal ${requests[0]![i]} differs`);
        });
        for (const pagesCold of [false, true]) {
          if (pagesCold && !evict(eventsFile)) {
            log(`fetch-1000-scattered.c${concurrency}.cold skipped: this platform cannot evict a file's pages`);
            continue;
          }
          const mine: number[] = [];
          const base: number[] = [];
          const before = cold.stats.events;
          for (let round = 0; round < bench.rounds; round++) {
            for (const ids of requests) {
              if (pagesCold) evict(eventsFile);
              let t0 = performance.now();
              await cold.fetchEvents(ids);
              mine.push(performance.now() - t0);
              if (pagesCold) evict(hotFile);
              t0 = performance.now();
              await (pagesCold ? hotCold : hotWarm).fetchEvents(ids);
              base.push(performance.now() - t0);
            }
          }
          const m = sortedCopy(mine);
          const b = sortedCopy(base);
          bench.record(
            {
              id: `fetch-1000-scattered.c${concurrency}${pagesCold ? '.cold' : ''}`,
              value: percentile(m, 0.5),
              unit: 'ms',
              higherIsBetter: false,
              p99: percentile(m, 0.99),
              samples: m.length,
              baseline: {
                name: `${HOT}: fetchEvents${pagesCold ? ' (SQLite mmap off, pages evicted)' : ''}`,
                value: percentile(b, 0.5),
                unit: 'ms',
                p99: percentile(b, 0.99),
              },
            },
            {
              note: `1,000 random ordinals of ${chunk.events}, sorted, one fetchEvents at concurrency ${concurrency}; ${pagesCold ? 'page cache cold (madvise MADV_PAGEOUT of the file before each fetch): batches not in memory read' : 'page cache warm: records read from the mapping'}; ${batchesNote(cold, before)}; p50 with p99`,
            },
          );
        }
      } finally {
        await cold.close();
      }
    }
  } finally {
    await eventsFile.close();
    await hotFile.close();
    await hotWarm.close();
    await hotCold.close();
  }
}

/** How a reader's events.pack batches were served since `before` (its stats then): from the mapping or read. */
function batchesNote(reader: ColdChunkReader, before: ColdChunkReader['stats']['events']): string {
  const { batches, mappedBatches } = reader.stats.events;
  return `${mappedBatches - before.mappedBatches} of ${batches - before.batches} batches from the mapping`;
}

/** One limit-`limit` page through the match engine: count and XOR of the ordinals. */
async function enginePage(
  reader: ChunkReader,
  filters: readonly StorageFilter[],
  window: OrdinalWindow,
  limit: number,
): Promise<{ count: number; checksum: number }> {
  let count = 0;
  let checksum = 0;
  for await (const match of matchEvents(reader, planQuery(filters), compilePostFilter(filters), window, {
    direction: 'asc',
    firstBatch: limit + 1,
  })) {
    count++;
    checksum ^= match.ordinal;
    if (count >= limit) break;
  }
  return { count, checksum };
}

/** query.pubnet-mix: the real requests over @strata/match's bench corpus, hot and frozen. */
async function measurePubnetMix(bench: BenchSession): Promise<void> {
  const missing = pubnetMissingReason();
  if (missing !== undefined) {
    log(`query.pubnet-mix skipped: ${missing}`);
    return;
  }
  const events = quickMode ? FULL_CHUNK_EVENTS / 16 : FULL_CHUNK_EVENTS;
  const corpus = new SyntheticChunk(events, corpusVocabulary(loadPubnetVocabulary()));
  const { dir: hotDir, ingestMs } = await hotChunkDir('pubnet-hot', JSON.stringify({ events }), async (dir) => {
    const store = HotStore.open(join(dir, 'chunk.sqlite'), { chunkId: CHUNK_ID, create: true });
    const offsets = corpus.ledgerOffsets();
    const t0 = performance.now();
    for (let ledger = offsets.startLedger; ledger <= offsets.lastLedger; ledger++) {
      const window = offsets.windowForLedgers(ledger, ledger);
      store.ingestLedger(
        ledger,
        (await corpus.fetchRange(window)).map((event) => event.payload),
      );
    }
    store.sync();
    store.close();
    return performance.now() - t0;
  });
  const hotPath = join(hotDir, 'chunk.sqlite');
  log(`pubnet corpus (${events} events) ingested in ${(ingestMs / 1000).toFixed(0)} s`);
  const store = HotStore.open(hotPath, { chunkId: CHUNK_ID });
  const dataDir = join(root, 'pubnet-data');
  const indexDir = join(root, 'pubnet-index');
  const frozen = await measurePeakRss({
    module: freezeModule,
    exportName: 'freezeJob',
    args: [hotPath, CHUNK_ID, dataDir, indexDir, root],
    execArgv: ['--max-old-space-size=8192'],
  });
  log(`pubnet corpus frozen in ${((frozen.result as FreezeRun).ms / 1000).toFixed(1)} s`);
  const hot = store.reader();
  const cold = await ColdChunkReader.open({
    chunkId: CHUNK_ID,
    storage: new LocalStorage(dataDir),
    indexStorage: new LocalStorage(indexDir),
  });
  try {
    const all = loadPubnetRequests();
    const requests = quickMode ? all.filter((_, i) => i % 10 === 0) : all;
    const runs = requests.map((request) => {
      const window = cold.ledgerOffsets().windowForLedgers(request.startLedger, request.endLedger - 1);
      return {
        cold: () => enginePage(cold, request.filters, window, request.limit),
        hot: () => enginePage(hot, request.filters, window, request.limit),
      };
    });
    // Every page is checked against the hot store's before anything is timed.
    for (const [i, run] of runs.entries()) {
      const [mine, theirs] = [await run.cold(), await run.hot()];
      if (mine.count !== theirs.count || mine.checksum !== theirs.checksum) {
        throw new Error(`pubnet request ${requests[i]!.id}: the frozen chunk's page differs from the hot chunk's`);
      }
    }
    const samples = runs.map(() => ({ cold: [] as number[], hot: [] as number[] }));
    for (let round = 0; round < bench.rounds; round++) {
      globalThis.gc?.(); // not the garbage of the ingest, the freeze or the round before
      for (const [i, run] of runs.entries()) {
        let t0 = performance.now();
        await run.cold();
        samples[i]!.cold.push(performance.now() - t0);
        t0 = performance.now();
        await run.hot();
        samples[i]!.hot.push(performance.now() - t0);
      }
    }
    const mine = sortedCopy(samples.map((s) => summarize(s.cold).median));
    const theirs = sortedCopy(samples.map((s) => summarize(s.hot).median));
    const note = `ms per request over ${runs.length} real requests (median of ${bench.rounds} runs each, alternating with the hot store), limit 1000, engine only, over ${events} events`;
    bench.record(
      {
        id: 'query.pubnet-mix',
        value: percentile(mine, 0.5),
        unit: 'ms',
        higherIsBetter: false,
        p99: percentile(mine, 0.99),
        samples: runs.length,
        baseline: {
          name: `${HOT}: the same engine`,
          value: percentile(theirs, 0.5),
          unit: 'ms',
          p99: percentile(theirs, 0.99),
        },
      },
      { target: { value: 3.0 }, note },
    );
    bench.record(
      {
        id: 'query.pubnet-mix.p99',
        value: percentile(mine, 0.99),
        unit: 'ms',
        higherIsBetter: false,
        samples: runs.length,
        baseline: { name: `${HOT}: the same engine`, value: percentile(theirs, 0.99), unit: 'ms' },
      },
      { target: { value: 5.9 }, note },
    );
  } finally {
    await cold.close();
    store.close();
  }
}
