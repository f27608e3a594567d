// @strata/hot-store benchmarks, each against a stellar-rpc v1-style SQLite events table (v1-baseline.ts) in the
// same run:
// - ingest (events/s, index included, one ledger per transaction) and ingest.apply-p99 (ms per ledger, p99 over all
//   ledgers of a full pubnet-like chunk, with the first 1,000 ledgers' p99 beside it; .growth is their ratio, the
//   #973 regression as a figure) over a whole chunk of pubnet-like ledgers (pubnet-like.ts: 10,000 ledgers, ~900
//   events each, from @strata/ledger-meta's generator);
// - fetch-1000-scattered (p50 with p99, ms): 1,000 random ordinals of the full chunk, sorted, fetched at once, by the
//   store as it opens (its fetch worker answering part of each call), and .one-thread with fetchWorker false;
// - memory-per-term (bytes per term: the heap and external memory the rebuilt index takes, over its distinct terms)
//   and reopen (s: open a full chunk, index rebuilt from the durable postings), each in a fresh process;
// - query.pubnet-mix (p50 with p99, ms, and .p99): the 700 real requests of ../shared/fixtures/pubnet-getevents
//   through @strata/match's engine over the store, limit 1000, against @strata/match's bench corpus (8.4 M events
//   whose dominant contracts and topics are those of the requests) ingested into the store; engine only (no service
//   layer). Skipped, with the reason logged, when the fixture is missing.
// Sizes: STRATA_HOT_BENCH_LEDGERS (default 10,000; 300 under STRATA_BENCH_QUICK), STRATA_HOT_BENCH_EVENTS (900).
// Iterating on one figure: STRATA_HOT_BENCH_CHUNK_DIR=<dir> keeps the generated chunk (both stores, and chunk.json
// with its shape) in <dir> instead of a temp dir removed at exit; a later run with the same dir and sizes reuses it
// and skips the ingest figures (logged). It is the database as that run wrote it: rebuild (empty the dir) after a
// change to what ingest writes, such as the page size. STRATA_HOT_BENCH_SKIP=reopen,fetch,pubnet-mix (any of them)
// skips those figures. Neither is for recorded figures: those come from a full run.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchSession, measurePeakRss, quickMode, runBench, summarize } from '@strata/bench';
import {
  type ChunkReader,
  compilePostFilter,
  deriveTermsInto,
  MAX_TERMS_PER_EVENT,
  type OrdinalWindow,
  type StorageFilter,
  TERM_KEY_BYTES,
} from '@strata/events';
import { matchEvents, planQuery } from '@strata/match';
import { loadPubnetRequests, loadPubnetVocabulary, pubnetMissingReason } from '../../match/bench/pubnet-requests.js';
import { CHUNK_ID, corpusVocabulary, FULL_CHUNK_EVENTS, SyntheticChunk } from '../../match/bench/synthetic-chunk.js';
import { FETCH_ARITY, HotStore } from '../src/index.js';
import { chunkLedgers, type PubnetLikeOptions, templatePayloads } from './pubnet-like.js';
import type { ReopenRun } from './reopen.js';
import { V1EventsTable } from './v1-baseline.js';

const LEDGERS = Number(process.env.STRATA_HOT_BENCH_LEDGERS ?? (quickMode ? 300 : 10_000));
const EVENTS_PER_LEDGER = Number(process.env.STRATA_HOT_BENCH_EVENTS ?? 900);
const FIRST_LEDGERS = Math.min(1_000, LEDGERS);
const GENERATED_CHUNK = 1;
/** query.pubnet-mix runs the v1 baseline (seconds a request over 8.4 M events) on every this-many-th request. */
const BASELINE_EVERY = quickMode ? 1 : 25;
const BASELINE = 'stellar-rpc v1-style SQLite events table, indexes (contract_id, id) and (topic1, id)';
const log = (line: string) => console.log(`  ${line}`);
const reopenModule = fileURLToPath(new URL('./reopen.ts', import.meta.url));

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!;
}
const sortedCopy = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/**
 * The distinct 16-byte term keys seen, counted independently of the store (its index is what memory-per-term
 * divides): an open-addressing set in one typed array, so the count adds no objects to the heap the timed ingest
 * shares (a Set of 4 M strings made the garbage collector's passes, some of them inside the timed calls, longer).
 */
class DistinctKeys {
  size = 0;
  private zero = false;
  private slots = new Uint32Array(4 << 16);
  private mask = (1 << 16) - 1;

  /** Adds the key in `words[at..at + 4)` (XXH3 output: its first word is a uniform hash). */
  add(words: Uint32Array, at: number): void {
    if (words[at] === 0 && words[at + 1] === 0 && words[at + 2] === 0 && words[at + 3] === 0) {
      // The all-zero key marks an empty slot, so it is counted on the side.
      if (!this.zero) this.size++;
      this.zero = true;
      return;
    }
    for (let slot = words[at]! & this.mask; ; slot = (slot + 1) & this.mask) {
      const s = slot * 4;
      const t = this.slots;
      if (t[s] === 0 && t[s + 1] === 0 && t[s + 2] === 0 && t[s + 3] === 0) {
        t.set(words.subarray(at, at + 4), s);
        if (++this.size * 2 > this.mask) this.grow();
        return;
      }
      if (t[s] === words[at] && t[s + 1] === words[at + 1] && t[s + 2] === words[at + 2] && t[s + 3] === words[at + 3])
        return;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    this.size = this.zero ? 1 : 0;
    for (let s = 0; s < old.length; s += 4) {
      if (old[s] !== 0 || old[s + 1] !== 0 || old[s + 2] !== 0 || old[s + 3] !== 0) this.add(old, s);
    }
  }
}

const root = join(tmpdir(), `strata-bench-hot-store-${process.pid}`);
const chunkDir = process.env.STRATA_HOT_BENCH_CHUNK_DIR || undefined;
const skipped = new Set((process.env.STRATA_HOT_BENCH_SKIP ?? '').split(',').filter((name) => name !== ''));
mkdirSync(root, { recursive: true });
try {
  await runBench(async (bench) => {
    const full = cachedChunk() ?? (await ingestGenerated(bench));
    if (!skipped.has('reopen')) await measureReopen(bench, full);
    if (!skipped.has('fetch')) await measureFetch(bench, full);
    if (!skipped.has('pubnet-mix')) await measurePubnetMix(bench);
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}

interface FullChunk {
  readonly hotPath: string;
  readonly v1Dir: string;
  readonly events: number;
  readonly terms: number;
}

/** The shape a kept chunk was generated with (chunk.json in STRATA_HOT_BENCH_CHUNK_DIR). */
interface KeptChunk {
  readonly ledgers: number;
  readonly eventsPerLedger: number;
  readonly events: number;
  readonly terms: number;
}

/** The chunk kept in STRATA_HOT_BENCH_CHUNK_DIR by an earlier run of these sizes, if any. */
function cachedChunk(): FullChunk | undefined {
  if (chunkDir === undefined || !existsSync(join(chunkDir, 'chunk.json'))) return undefined;
  const kept = JSON.parse(readFileSync(join(chunkDir, 'chunk.json'), 'utf8')) as KeptChunk;
  if (kept.ledgers !== LEDGERS || kept.eventsPerLedger !== EVENTS_PER_LEDGER) {
    throw new Error(`${chunkDir} holds a chunk of other sizes (${JSON.stringify(kept)}): empty it or use another`);
  }
  log(`reusing the chunk in ${chunkDir} (${kept.events} events): ingest figures skipped`);
  return { hotPath: join(chunkDir, 'generated-hot.sqlite'), v1Dir: join(chunkDir, 'generated-v1'), ...kept };
}

/** ingest, ingest.apply-p99 and its growth over one whole generated chunk, both stores side by side. */
async function ingestGenerated(bench: BenchSession): Promise<FullChunk> {
  const options: PubnetLikeOptions = {
    chunkId: GENERATED_CHUNK,
    ledgers: LEDGERS,
    eventsPerLedger: EVENTS_PER_LEDGER,
    templateLedgers: quickMode ? 20 : 250,
    ledgersPerAccountEpoch: 25,
  };
  let started = performance.now();
  const templates = templatePayloads(options);
  log(`${templates.length} template ledgers generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const dir = chunkDir ?? root;
  const hotPath = join(dir, 'generated-hot.sqlite');
  const v1Dir = join(dir, 'generated-v1');
  // A half-written chunk of an interrupted run (no chunk.json): only the files this bench writes go.
  for (const file of ['', '-wal', '-shm']) rmSync(hotPath + file, { force: true });
  rmSync(v1Dir, { recursive: true, force: true });
  mkdirSync(v1Dir, { recursive: true });
  const store = HotStore.open(hotPath, { chunkId: GENERATED_CHUNK, create: true });
  const v1 = new V1EventsTable(v1Dir, 'normal');
  const hotMs: number[] = [];
  const v1Ms: number[] = [];
  const terms = new DistinctKeys();
  const termBytes = new Uint8Array(MAX_TERMS_PER_EVENT * TERM_KEY_BYTES);
  const termWords = new Uint32Array(termBytes.buffer);
  let events = 0;
  started = performance.now();
  for (const { ledger, payloads } of chunkLedgers(options, templates)) {
    const t0 = performance.now();
    store.ingestLedger(ledger, payloads);
    const t1 = performance.now();
    hotMs.push(t1 - t0);
    v1.ingest(ledger, payloads);
    v1Ms.push(performance.now() - t1);
    events += payloads.length;
    for (const payload of payloads) {
      const n = deriveTermsInto(payload, termBytes, 0);
      for (let i = 0; i < n; i++) terms.add(termWords, (i * TERM_KEY_BYTES) / 4);
    }
    if (hotMs.length % 1000 === 0) {
      log(
        `${hotMs.length} ledgers, ${events} events, ${terms.size} terms (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
  // Both end durable (a FULL checkpoint), counted in their ingest time.
  let t0 = performance.now();
  store.sync();
  const hotSyncMs = performance.now() - t0;
  t0 = performance.now();
  v1.sync();
  const v1SyncMs = performance.now() - t0;
  store.close();
  v1.close();
  const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const shape = `${LEDGERS} ledgers, ${events} pubnet-like events (${(events / LEDGERS).toFixed(0)} a ledger), ${terms.size} distinct terms; synchronous normal on both, and one final sync (FULL checkpoint) each, counted`;
  bench.record(
    {
      id: 'ingest',
      value: events / ((sum(hotMs) + hotSyncMs) / 1000),
      unit: 'ops/s',
      higherIsBetter: true,
      baseline: { name: BASELINE, value: events / ((sum(v1Ms) + v1SyncMs) / 1000), unit: 'ops/s' },
    },
    { target: { value: 200_000 }, note: `events/s, index included, one ledger per transaction; ${shape}` },
  );
  const hotAll = sortedCopy(hotMs);
  const hotFirst = sortedCopy(hotMs.slice(0, FIRST_LEDGERS));
  const v1All = sortedCopy(v1Ms);
  const v1First = sortedCopy(v1Ms.slice(0, FIRST_LEDGERS));
  const p = (values: readonly number[], q: number) => percentile(values, q);
  const described = (first: number[], all: number[]) =>
    `first ${FIRST_LEDGERS}: p50 ${p(first, 0.5).toFixed(2)} / p99 ${p(first, 0.99).toFixed(2)} ms; all ${LEDGERS}: p50 ${p(all, 0.5).toFixed(2)} / p99 ${p(all, 0.99).toFixed(2)} ms`;
  bench.record(
    {
      id: 'ingest.apply-p99',
      value: p(hotAll, 0.99),
      unit: 'ms',
      higherIsBetter: false,
      baseline: { name: BASELINE, value: p(v1All, 0.99), unit: 'ms' },
    },
    {
      note: `one ledger's ingest, p99 over all ${LEDGERS} ledgers; store ${described(hotFirst, hotAll)}; baseline ${described(v1First, v1All)}`,
    },
  );
  bench.record(
    {
      id: 'ingest.apply-p99.growth',
      value: p(hotAll, 0.99) / p(hotFirst, 0.99),
      unit: 'x',
      higherIsBetter: false,
      baseline: { name: BASELINE, value: p(v1All, 0.99) / p(v1First, 0.99), unit: 'x' },
    },
    { target: { value: 1.5 }, note: `p99 over all ${LEDGERS} ledgers ÷ p99 over the first ${FIRST_LEDGERS}` },
  );
  if (chunkDir !== undefined) {
    const kept: KeptChunk = { ledgers: LEDGERS, eventsPerLedger: EVENTS_PER_LEDGER, events, terms: terms.size };
    writeFileSync(join(chunkDir, 'chunk.json'), JSON.stringify(kept));
  }
  return { hotPath, v1Dir, events, terms: terms.size };
}

/** reopen and memory-per-term: each open in a fresh process, the two stores alternating. */
async function measureReopen(bench: BenchSession, full: FullChunk): Promise<void> {
  const hot: ReopenRun[] = [];
  const v1: ReopenRun[] = [];
  for (let round = 0; round < bench.rounds; round++) {
    const execArgv = ['--expose-gc', '--max-old-space-size=8192'];
    const mine = await measurePeakRss({
      module: reopenModule,
      exportName: 'reopenHot',
      args: [full.hotPath, GENERATED_CHUNK],
      execArgv,
    });
    const theirs = await measurePeakRss({ module: reopenModule, exportName: 'reopenV1', args: [full.v1Dir], execArgv });
    hot.push(mine.result as ReopenRun);
    v1.push(theirs.result as ReopenRun);
    if (hot.at(-1)!.eventCount !== full.events)
      throw new Error(`reopen found ${hot.at(-1)!.eventCount} events, expected ${full.events}`);
  }
  const median = (runs: ReopenRun[], pick: (run: ReopenRun) => number) => summarize(runs.map(pick)).median;
  bench.record(
    {
      id: 'reopen',
      value: median(hot, (r) => r.ms) / 1000,
      unit: 's',
      higherIsBetter: false,
      baseline: {
        name: `${BASELINE} (open only: v1 keeps no in-memory index)`,
        value: median(v1, (r) => r.ms) / 1000,
        unit: 's',
      },
    },
    {
      note: `open a full chunk (${full.events} events) and rebuild its in-memory index from the durable postings; fresh process each, median of ${bench.rounds}`,
    },
  );
  bench.record(
    {
      id: 'memory-per-term',
      value: median(hot, (r) => r.indexBytes) / full.terms,
      unit: 'bytes',
      higherIsBetter: false,
    },
    {
      target: { value: 100 },
      note: `heap + external memory of the rebuilt index ÷ its ${full.terms} distinct terms, ${full.events} events (Go's hot index: ~170 B/term)`,
    },
  );
}

/** fetch-1000-scattered: 1,000 random ordinals of the full chunk, sorted, one fetch; the baseline selects each by id. */
async function measureFetch(bench: BenchSession, full: FullChunk): Promise<void> {
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const requests = Array.from({ length: quickMode ? 20 : 200 }, () => {
    const set = new Set<number>();
    while (set.size < 1000) set.add(Math.floor(random() * full.events));
    return Uint32Array.from([...set].sort((a, b) => a - b));
  });
  // The store as it opens by default (its fetch worker answers part of each call), then with fetchWorker false
  // (every group on the calling thread), each alternating with the baseline.
  const runs: { mine: number[]; base: number[]; workerGroups: number }[] = [];
  for (const fetchWorker of [true, false]) {
    const store = HotStore.open(full.hotPath, { chunkId: GENERATED_CHUNK, fetchWorker });
    const v1 = new V1EventsTable(full.v1Dir, 'full');
    try {
      const reader = store.reader();
      const first = await reader.fetchEvents(requests[0]!);
      const theirs = v1.fetch(requests[0]!);
      for (let i = 0; i < first.length; i++) {
        if (Buffer.compare(first[i]!, theirs[i]!) !== 0)
          throw new Error(`fetch: ordinal ${requests[0]![i]} differs from the baseline`);
      }
      const mine: number[] = [];
      const base: number[] = [];
      for (let round = 0; round < bench.rounds; round++) {
        for (const ids of requests) {
          const t0 = performance.now();
          await reader.fetchEvents(ids);
          const t1 = performance.now();
          v1.fetch(ids);
          base.push(performance.now() - t1);
          mine.push(t1 - t0);
        }
      }
      runs.push({
        mine: sortedCopy(mine),
        base: sortedCopy(base),
        workerGroups: store.fanoutState()?.stats.workerGroups ?? 0,
      });
      await reader.close();
    } finally {
      store.close();
      v1.close();
    }
  }
  const groups = Math.ceil(1000 / FETCH_ARITY) * requests.length * bench.rounds;
  const ids = ['fetch-1000-scattered', 'fetch-1000-scattered.one-thread'];
  const notes = [
    `1,000 random ordinals of ${full.events}, sorted, one fetchEvents; p50 with p99; the store's default fetch worker (a second thread and connection) answered ${((100 * runs[0]!.workerGroups) / groups).toFixed(0)} % of the groups`,
    `the same with fetchWorker false: every group read on the calling thread`,
  ];
  runs.forEach(({ mine: m, base: b }, i) => {
    bench.record(
      {
        id: ids[i]!,
        value: percentile(m, 0.5),
        unit: 'ms',
        higherIsBetter: false,
        p99: percentile(m, 0.99),
        samples: m.length,
        baseline: {
          name: `${BASELINE}: a point select per id`,
          value: percentile(b, 0.5),
          unit: 'ms',
          p99: percentile(b, 0.99),
        },
      },
      i === 0 ? { target: { value: 2 }, note: notes[i]! } : { note: notes[i]! },
    );
  });
}

/** One limit-`limit` page through the match engine: count and XOR of the ordinals. */
async function enginePage(
  reader: ChunkReader,
  filters: readonly StorageFilter[],
  window: OrdinalWindow,
  limit: number,
): Promise<{ count: number; checksum: number }> {
  const plan = planQuery(filters);
  const postFilter = compilePostFilter(filters);
  let count = 0;
  let checksum = 0;
  for await (const match of matchEvents(reader, plan, postFilter, window, {
    direction: 'asc',
    firstBatch: limit + 1,
  })) {
    count++;
    checksum ^= match.ordinal;
    if (count >= limit) break;
  }
  return { count, checksum };
}

/** query.pubnet-mix: the real requests over @strata/match's bench corpus ingested into the store. */
async function measurePubnetMix(bench: BenchSession): Promise<void> {
  const missing = pubnetMissingReason();
  if (missing !== undefined) {
    log(`query.pubnet-mix skipped: ${missing}`);
    return;
  }
  const events = quickMode ? FULL_CHUNK_EVENTS / 16 : FULL_CHUNK_EVENTS;
  let started = performance.now();
  const corpus = new SyntheticChunk(events, corpusVocabulary(loadPubnetVocabulary()));
  log(`pubnet corpus (${events} events) built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const hotPath = join(root, 'pubnet-hot.sqlite');
  const v1Dir = join(root, 'pubnet-v1');
  mkdirSync(v1Dir);
  const store = HotStore.open(hotPath, { chunkId: CHUNK_ID, create: true, synchronous: 'normal' });
  const v1 = new V1EventsTable(v1Dir, 'normal');
  const offsets = corpus.ledgerOffsets();
  started = performance.now();
  for (let ledger = offsets.startLedger; ledger <= offsets.lastLedger; ledger++) {
    const window = offsets.windowForLedgers(ledger, ledger);
    const payloads = (await corpus.fetchRange(window)).map((event) => event.payload);
    store.ingestLedger(ledger, payloads);
    v1.ingest(ledger, payloads);
  }
  log(`pubnet corpus ingested into both stores in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const reader = store.reader();
  try {
    const all = loadPubnetRequests();
    const requests = quickMode ? all.filter((_, i) => i % 10 === 0) : all;
    const runs = requests.map((request) => {
      const window = reader.ledgerOffsets().windowForLedgers(request.startLedger, request.endLedger - 1);
      const postFilter = compilePostFilter(request.filters);
      return {
        engine: () => enginePage(reader, request.filters, window, request.limit),
        baseline: async () => v1.page(request.filters, postFilter, window.start, window.end, request.limit),
      };
    });
    // Every page is checked against the same engine over the in-memory corpus (the same events); the v1 baseline,
    // seconds a request at this size, runs once on every BASELINE_EVERY-th request, after the engine's rounds (its
    // scans evict the store's pages and the engine's caches), and must give the same page.
    const pages: { count: number; checksum: number }[] = [];
    for (const [i, run] of runs.entries()) {
      const request = requests[i]!;
      const window = corpus.ledgerOffsets().windowForLedgers(request.startLedger, request.endLedger - 1);
      const [mine, expected] = [await run.engine(), await enginePage(corpus, request.filters, window, request.limit)];
      if (mine.count !== expected.count || mine.checksum !== expected.checksum) {
        throw new Error(`pubnet request ${request.id}: the store's page differs from the in-memory corpus's`);
      }
      pages.push(mine);
    }
    const samples = runs.map(() => ({ engine: [] as number[], baseline: [] as number[] }));
    for (let round = 0; round < bench.rounds; round++) {
      for (const [i, run] of runs.entries()) {
        const t0 = performance.now();
        await run.engine();
        samples[i]!.engine.push(performance.now() - t0);
      }
    }
    for (const [i, run] of runs.entries()) {
      if (i % BASELINE_EVERY !== 0) continue;
      const t0 = performance.now();
      const theirs = await run.baseline();
      samples[i]!.baseline.push(performance.now() - t0);
      if (theirs.count !== pages[i]!.count || theirs.checksum !== pages[i]!.checksum) {
        throw new Error(`pubnet request ${requests[i]!.id}: the baseline's page differs from the store's`);
      }
    }
    const mine = sortedCopy(samples.map((s) => summarize(s.engine).median));
    const theirs = sortedCopy(samples.filter((s) => s.baseline.length > 0).map((s) => summarize(s.baseline).median));
    const note = `ms per request over ${runs.length} real requests (median of ${bench.rounds} runs each; the baseline one run of every ${BASELINE_EVERY}th request, after the engine's), limit 1000, engine only, over ${events} events in the store (its default fetch worker on)`;
    bench.record(
      {
        id: 'query.pubnet-mix',
        value: percentile(mine, 0.5),
        unit: 'ms',
        higherIsBetter: false,
        p99: percentile(mine, 0.99),
        samples: runs.length,
        baseline: {
          name: `${BASELINE}: SQL range scan by contract id, post-filter`,
          value: percentile(theirs, 0.5),
          unit: 'ms',
          p99: percentile(theirs, 0.99),
        },
      },
      { target: { value: 2.23 }, note },
    );
    bench.record(
      {
        id: 'query.pubnet-mix.p99',
        value: percentile(mine, 0.99),
        unit: 'ms',
        higherIsBetter: false,
        samples: runs.length,
        baseline: {
          name: `${BASELINE}: SQL range scan by contract id, post-filter`,
          value: percentile(theirs, 0.99),
          unit: 'ms',
        },
      },
      { target: { value: 4.18 }, note },
    );
  } finally {
    await reader.close();
    store.close();
    v1.close();
  }
}
