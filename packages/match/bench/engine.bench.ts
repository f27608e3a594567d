// The match engine over one generated 8,388,608-event chunk (128 slabs; synthetic-chunk.ts has the corpus and why each
// family exists, engine-rows.ts each row's filters and the checks that prove their names), every figure against the
// whole-chunk baseline of the base branch (whole-chunk-baseline.ts) measured in the same run, over the same reader:
//
// - filters.<row>: the seed's filter-list table (spec §7), ns of wall time per request, whole-chunk window, ascending,
//   limit 1 unless the id says otherwise. A request is matchEvents(reader, plan, postFilter, window,
//   { direction, firstBatch: limit + 1 }) pulled for `limit` matches and then returned, as the pager does; the plan
//   and post-filter are made once per row, outside the timing (so is the baseline's planning).
// - filters.<row>.bytes: bytes allocated per request (the engine's, the baseline's beside it); see "Bytes" below.
// - pubnet-mix (p50, with p99) and pubnet-mix.p99: ms per request over the 700 real requests of
//   ../shared/fixtures/pubnet-getevents, each filter re-shaped into one 4-segment v1 filter (pubnet-requests.ts),
//   limit 1000, their ledger range (the whole chunk), against the corpus's pubnet family whose dominant contracts and
//   topics are the requests' own. Each request runs once to warm, then STRATA_BENCH_ROUNDS times alternating with its
//   baseline, the two taking turns going first (the second of a pair finds the request's term containers in cache:
//   measured 4-5 % faster, whichever side it is); a request's figure is the median of its runs; p50/p99 =
//   s[min(floor(q·n), n-1)] (spec §7).
// - limit-1-first-slab (8.4 M events) and limit-1-first-slab.1m (a 1,048,576-event chunk from the same generator: the
//   same first million events): a limit-1 request that matches in its first slab; limit-1-first-slab.growth times
//   the engine at 8.4 M against itself at 1 M (the ratio is the growth; the baseline's is in the note): its cost must
//   not grow with the chunk.
//
// Before timing, each row's pages from both sides are compared (same ordinals), the generator is self-tested
// (deriveTerms of sampled payloads = the terms whose bitmaps hold them), and the rows' meanings are checked.
//
// Bytes. Node 20 counts no allocations, so allocation.ts meters one request after a full collection: V8 heap growth
// + V8 external growth (ArrayBuffers) + CRoaring's net native growth (roaring's own allocator counter), each
// corrected by what collections during the call gave back. To keep collections out of the call, the bytes are measured
// in a child process of this file started with --max-semi-space-size/--min-semi-space-size 512 (a young generation
// no request fills); the note of each result says how many collections still ran (then external and roaring are
// lower bounds). Not counted: CRoaring memory allocated and freed inside one native call, and payload bytes, which
// the reader produces once per ordinal and then keeps, as a hot reader keeps stored bytes (both sides fetch the same
// ordinals). Each side first runs until the JIT has settled (optimized code is V8 heap too); the median of
// BYTES_SAMPLES requests is reported. Targets in MB are 10^6 bytes.
//
// Run: `pnpm --filter @strata/match bench` (all bench files; results to bench-results/match.json), or one file
// without touching the shared results: `cd packages/match && STRATA_BENCH_OUT=/tmp/match-bench.json node
// --expose-gc --conditions=strata-source --import tsx bench/engine.bench.ts`. STRATA_BENCH_QUICK=1 for a smoke run;
// STRATA_MATCH_BENCH_ROWS=<regex> runs only the rows whose id matches (for profiling: node --cpu-prof ...).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert } from '@strata/base';
import { type BenchSession, quickMode, runBench } from '@strata/bench';
import { matchEvents } from '../src/engine/match-events.js';
import { type AllocatedBytes, calibrate, describeAllocation, medianAllocation } from './allocation.js';
import { checkRows, type EngineRow, engineRows } from './engine-rows.js';
import { loadPubnetRequests, loadPubnetVocabulary, pubnetMissingReason } from './pubnet-requests.js';
import { checkSyntheticChunk, corpusVocabulary, FULL_CHUNK_EVENTS, SyntheticChunk } from './synthetic-chunk.js';
import {
  type OrdinalSink,
  type PageRequest,
  type PageSummary,
  prepareQuery,
  wholeChunkPage,
} from './whole-chunk-baseline.js';

/** Set in the child that measures bytes; its results go to the file named by BYTES_OUT. */
const BYTES_CHILD = 'STRATA_MATCH_BENCH_BYTES_CHILD';
const BYTES_OUT = 'STRATA_MATCH_BENCH_BYTES_OUT';
/** MB of each semi-space of the bytes child's young generation. */
const BYTES_CHILD_SEMI_SPACE_MB = 512;
const BYTES_SAMPLES = quickMode ? 3 : 9;
/** Calls and milliseconds each side runs before its bytes are metered. */
const WARM_CALLS = quickMode ? 3 : 10;
const WARM_MS = quickMode ? 50 : 500;
const SMALL_CHUNK_EVENTS = 1 << 20;
const ENGINE = 'matchEvents (slab stepper), `limit` pulled then return()';
const BASELINE = 'whole chunk: AND per filter, OR, clip, select `limit`, fetch, post-filter';

const rowPattern = process.env.STRATA_MATCH_BENCH_ROWS;
const wanted = (id: string) => rowPattern === undefined || rowPattern === '' || new RegExp(rowPattern).test(id);
const log = (line: string) => console.error(`[engine.bench] ${line}`);

/** One page through the engine: matchEvents with firstBatch = limit + 1, `limit` matches pulled, then return(). */
async function enginePage(request: PageRequest, sink?: OrdinalSink): Promise<PageSummary> {
  const { reader, query, window, direction, limit } = request;
  let count = 0;
  let checksum = 0;
  const walk = matchEvents(reader, query.plan, query.postFilter, window, { direction, firstBatch: limit + 1 });
  for await (const match of walk) {
    count++;
    checksum ^= match.ordinal;
    sink?.(match.ordinal);
    if (count >= limit) break; // for-await's break calls the generator's return(): the walk ends there
  }
  return { count, checksum };
}

/** A row's request over one reader, both sides, the two pages compared once. */
interface RowRun {
  readonly row: EngineRow;
  engine(): Promise<PageSummary>;
  baseline(): Promise<PageSummary>;
}

async function rowRun(reader: SyntheticChunk, row: EngineRow): Promise<RowRun> {
  const request: PageRequest = {
    reader,
    query: prepareQuery(row.filters),
    window: { start: 0, end: reader.eventCount() },
    direction: row.direction,
    limit: row.limit,
  };
  const run: RowRun = { row, engine: () => enginePage(request), baseline: () => wholeChunkPage(request) };
  const fromEngine: number[] = [];
  const fromBaseline: number[] = [];
  await enginePage(request, (o) => fromEngine.push(o));
  await wholeChunkPage(request, (o) => fromBaseline.push(o));
  assert(fromEngine.join() === fromBaseline.join(), () => `${row.id}: engine and baseline pages differ`);
  return run;
}

interface Corpus {
  full: SyntheticChunk;
  small: SyntheticChunk;
  rows: ReturnType<typeof engineRows>;
}

async function buildCorpus(): Promise<Corpus> {
  const missing = pubnetMissingReason();
  if (missing !== undefined) log(`pubnet values stood in for, pubnet-mix skipped: ${missing}`);
  const vocabulary = corpusVocabulary(missing === undefined ? loadPubnetVocabulary() : undefined);
  const started = performance.now();
  const full = new SyntheticChunk(FULL_CHUNK_EVENTS, vocabulary, (line) => log(`8.4 M chunk: ${line}`));
  const small = new SyntheticChunk(SMALL_CHUNK_EVENTS, vocabulary);
  await checkSyntheticChunk(full, 4096);
  await checkSyntheticChunk(small, 1024);
  const rows = engineRows(full);
  checkRows(full, rows);
  log(`corpus built and checked in ${Math.round(performance.now() - started)} ms`);
  return { full, small, rows };
}

const toNs = (ms: number) => ms * 1e6;

async function timeRows(bench: BenchSession, corpus: Corpus): Promise<void> {
  for (const row of corpus.rows.table) {
    if (!wanted(row.id)) continue;
    const run = await rowRun(corpus.full, row);
    await bench.latency(row.id, {
      subject: { name: ENGINE, fn: run.engine },
      baseline: { name: BASELINE, fn: run.baseline },
      ...(row.targetMs === undefined ? {} : { target: { value: toNs(row.targetMs) } }),
      note: `ns per request; ${row.filters.length} filters, limit ${row.limit}: ${row.meaning}`,
    });
  }
}

async function timeFirstSlab(bench: BenchSession, corpus: Corpus): Promise<void> {
  const row = corpus.rows.firstSlab;
  if (!wanted(row.id)) return;
  const note = `ns per request; limit 1: ${row.meaning}`;
  const full = await rowRun(corpus.full, row);
  const small = await rowRun(corpus.small, row);
  const at8m = await bench.latency(row.id, {
    subject: { name: `${ENGINE}, 8,388,608 events`, fn: full.engine },
    baseline: { name: `${BASELINE}, 8,388,608 events`, fn: full.baseline },
    note,
  });
  const at1m = await bench.latency(`${row.id}.1m`, {
    subject: { name: `${ENGINE}, 1,048,576 events`, fn: small.engine },
    baseline: { name: `${BASELINE}, 1,048,576 events`, fn: small.baseline },
    note,
  });
  // The two chunk sizes timed against each other in alternating rounds, so machine noise hits both: the ratio is
  // the growth. The baseline's growth, from the two rows above, goes in the note.
  const baselineGrowth = at8m.baseline!.value / at1m.baseline!.value;
  await bench.latency(`${row.id}.growth`, {
    subject: { name: `${ENGINE}, 8,388,608 events`, fn: full.engine },
    baseline: { name: `${ENGINE}, 1,048,576 events (same generator: the same first million events)`, fn: small.engine },
    note: `ratio = the engine's growth from 1 M to 8.4 M events; the whole-chunk baseline's: ${baselineGrowth.toFixed(2)}×`,
  });
}

/** Nearest-rank percentile of spec §7: s[min(floor(q·n), n-1)] over sorted s. */
function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(Math.floor(q * sorted.length), sorted.length - 1)]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function timePubnet(bench: BenchSession, corpus: Corpus): Promise<void> {
  if (!wanted('pubnet-mix') || !corpus.full.corpus.pubnetIsReal) return;
  const reader = corpus.full;
  const offsets = reader.ledgerOffsets();
  const all = loadPubnetRequests();
  const requests = quickMode ? all.filter((_, i) => i % 10 === 0) : all;
  const runs = requests.map((request) => {
    const page: PageRequest = {
      reader,
      query: prepareQuery(request.filters),
      window: offsets.windowForLedgers(request.startLedger, request.endLedger - 1),
      direction: 'asc',
      limit: request.limit,
    };
    return { engine: () => enginePage(page), baseline: () => wholeChunkPage(page) };
  });
  const pageSizes: number[] = [];
  for (const run of runs) {
    const [mine, theirs] = [await run.engine(), await run.baseline()];
    assert(mine.count === theirs.count && mine.checksum === theirs.checksum, 'pubnet pages agree');
    pageSizes.push(mine.count);
  }
  const samples = runs.map(() => ({ engine: [] as number[], baseline: [] as number[] }));
  for (let round = 0; round < bench.rounds; round++) {
    for (const [i, run] of runs.entries()) {
      // The two sides take turns going first: the second of a pair finds the request's term containers in cache.
      const engineFirst = (round + i) % 2 === 0;
      const t0 = performance.now();
      await (engineFirst ? run.engine() : run.baseline());
      const t1 = performance.now();
      await (engineFirst ? run.baseline() : run.engine());
      const t2 = performance.now();
      samples[i]!.engine.push(engineFirst ? t1 - t0 : t2 - t1);
      samples[i]!.baseline.push(engineFirst ? t2 - t1 : t1 - t0);
    }
  }
  const mine = samples.map((s) => median(s.engine)).sort((a, b) => a - b);
  const theirs = samples.map((s) => median(s.baseline)).sort((a, b) => a - b);
  const full = pageSizes.filter((n) => n === 1000).length;
  const note =
    `ms per request over ${runs.length} requests (median of ${bench.rounds} runs each), limit 1000; ` +
    `${full} pages full, ${pageSizes.filter((n) => n === 0).length} empty, median page ${median(pageSizes)} events`;
  for (const q of [0.5, 0.99]) {
    bench.record(
      {
        id: q === 0.5 ? 'pubnet-mix' : 'pubnet-mix.p99',
        value: percentile(mine, q),
        unit: 'ms',
        higherIsBetter: false,
        ...(q === 0.5 ? { p99: percentile(mine, 0.99) } : {}),
        samples: runs.length,
        baseline: {
          name: BASELINE,
          value: percentile(theirs, q),
          unit: 'ms',
          ...(q === 0.5 ? { p99: percentile(theirs, 0.99) } : {}),
        },
      },
      { note },
    );
  }
}

/** What the bytes child reports per row. */
interface BytesFigure {
  id: string;
  targetBytes?: number;
  engine: AllocatedBytes;
  baseline: AllocatedBytes;
}

/** Calls `call` at least WARM_CALLS times and for at least WARM_MS (at most 50 × WARM_CALLS calls). */
async function warm(call: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  for (let calls = 0; calls < 50 * WARM_CALLS; calls++) {
    if (calls >= WARM_CALLS && performance.now() - started >= WARM_MS) return;
    await call();
  }
}

/** The bytes child: builds the same corpus, meters every row's two sides, writes the figures as JSON. */
async function measureBytes(out: string): Promise<void> {
  log(await calibrate());
  const corpus = await buildCorpus();
  const figures: BytesFigure[] = [];
  for (const row of [...corpus.rows.table, corpus.rows.firstSlab]) {
    if (!wanted(row.id)) continue;
    const run = await rowRun(corpus.full, row);
    // Warm until the JIT has settled: optimized code and feedback are V8 heap too, and would count as the request's.
    await warm(run.engine);
    await warm(run.baseline);
    const figure: BytesFigure = {
      id: row.id,
      engine: await medianAllocation(run.engine, BYTES_SAMPLES),
      baseline: await medianAllocation(run.baseline, BYTES_SAMPLES),
    };
    if (row.targetBytes !== undefined) figure.targetBytes = row.targetBytes;
    figures.push(figure);
    log(`${row.id}: engine ${describeAllocation(figure.engine)}; baseline ${describeAllocation(figure.baseline)}`);
  }
  writeFileSync(out, JSON.stringify(figures));
}

/** Runs the bytes child (this file, a young generation no request fills) and records its figures. */
function recordBytes(bench: BenchSession): void {
  const scratch = mkdtempSync(join(tmpdir(), 'match-bench-bytes-'));
  const out = join(scratch, 'bytes.json');
  try {
    const execArgv = process.execArgv.includes('--expose-gc') ? process.execArgv : [...process.execArgv, '--expose-gc'];
    const child = spawnSync(
      process.execPath,
      [
        ...execArgv,
        `--max-semi-space-size=${BYTES_CHILD_SEMI_SPACE_MB}`,
        `--min-semi-space-size=${BYTES_CHILD_SEMI_SPACE_MB}`,
        fileURLToPath(import.meta.url),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, [BYTES_CHILD]: '1', [BYTES_OUT]: out } },
    );
    assert(child.status === 0, () => `the bytes child failed: ${child.error?.message ?? `exit ${child.status}`}`);
    const figures = JSON.parse(readFileSync(out, 'utf8')) as BytesFigure[];
    for (const figure of figures) {
      bench.record(
        {
          id: `${figure.id}.bytes`,
          value: figure.engine.total,
          unit: 'bytes/request',
          higherIsBetter: false,
          samples: BYTES_SAMPLES,
          baseline: { name: BASELINE, value: figure.baseline.total, unit: 'bytes/request' },
        },
        {
          ...(figure.targetBytes === undefined ? {} : { target: { value: figure.targetBytes } }),
          note:
            `median of ${BYTES_SAMPLES} requests; engine: ${describeAllocation(figure.engine)}; ` +
            `baseline: ${describeAllocation(figure.baseline)}`,
        },
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.env[BYTES_CHILD] === '1') {
  await measureBytes(process.env[BYTES_OUT]!);
} else {
  await runBench(async (bench) => {
    const corpus = await buildCorpus();
    await timeRows(bench, corpus);
    await timeFirstSlab(bench, corpus);
    await timePubnet(bench, corpus);
    recordBytes(bench);
  });
}
