// Every public function, constructor and method of @strata/bucket-list fed bad arguments — null, undefined, wrong
// types, negative, fractional and out-of-range numbers, malformed objects — one argument at a time, the others
// valid: each call must throw (or reject with) a BucketError, never a TypeError, RangeError or plain Error, and never
// succeed (issue 15: `addLedger(n, p, null)` threw a TypeError). Codes are INVALID_ARGUMENT unless listed. A positive
// control runs each call with its valid arguments, so a failure is the bad argument's.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { holdTempDir, poolEntry, poolKey } from './support.js';

const {
  Bucket,
  BucketError,
  BucketInput,
  BucketListSnapshot,
  BucketManager,
  BucketOutput,
  InlineMerger,
  Schedule,
  WorkerMerger,
  ZERO_HASH,
} = api;

const { dir, release: releaseDir } = await holdTempDir('arguments');
let dirCount = 0;
const freshDir = (): string => {
  const path = join(dir, `d${dirCount++}`);
  mkdirSync(path);
  return path;
};

// Valid material: a small live bucket of LIVE records (so that merging it with itself is valid), its index, a view.
const sortedRecords = (): Uint8Array[] =>
  api.freshLiveEntries(23, { init: [], live: [0, 1, 2, 3, 4, 5].map((n) => poolEntry(n, 1)), dead: [] });
const records = sortedRecords();
const file = api.writeBucket(dir, 'live', 23, sortedRecords(), { fsync: false });
const key = poolKey(1);
const index = api.openBucketIndex(file, { inMemoryCutoff: 0, pageSize: 256 });
const emptySlots = (kind: 'live' | 'hot-archive') =>
  Array.from({ length: 22 }, () => ({ file: api.emptyBucket(kind), index: undefined }));
const view = new BucketListSnapshot(
  1,
  [{ file, index }, ...emptySlots('live').slice(1)],
  emptySlots('hot-archive'),
  () => {},
);
const has = (): api.HistoryArchiveState => ({
  version: 1,
  server: 'test',
  currentLedger: 5,
  currentBuckets: Array.from({ length: 11 }, () => ({ curr: ZERO_HASH, next: { state: 0 }, snap: ZERO_HASH })),
});
const emptyBatch = () => ({ init: [], live: [], dead: [] });
const job = (): api.MergeJob => ({
  dir,
  older: file,
  newer: file,
  keepTombstones: true,
  maxProtocolVersion: 23,
  fsync: false,
  index: {},
  deadline: 4,
});
const scheduleOps: api.ScheduleOps<number, number> = {
  empty: 0,
  isEmpty: (bucket) => bucket === 0,
  protocolOf: () => 23,
  startMerge: async () => 0,
  mergeIntoLevel0: (_curr, prepared) => prepared,
};
const managers: api.BucketManager[] = [];
const manager = await BucketManager.open(freshDir(), { merger: 'inline', fsync: false, create: true });
managers.push(manager);
const workerMerger = new WorkerMerger(1);
afterAll(async () => {
  index.close();
  view.release();
  for (const opened of managers) await opened.close();
  await workerMerger.close();
  await releaseDir();
});

// Bad values, by what the argument should be.
const NOT_NUMBER = [null, undefined, 'x', {}, [], true, 10n];
const BAD_COUNT = [...NOT_NUMBER, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]; // a non-negative integer
const NOT_BYTES = [null, undefined, 'x', 5, {}, [0, 0, 0, 0], new ArrayBuffer(8)];
const NOT_BYTES_LIST = [null, undefined, 'x', 5, {}, [null], [5], new Uint8Array(8)];
const NOT_OBJECT = [null, undefined, 'x', 5, true, []];
const NOT_OPTIONS = [null, 'x', 5, true, []]; // undefined is fine: the defaults
const NOT_STRING = [null, undefined, 5, {}, [], true, ''];
const NOT_KIND = [null, undefined, 'x', 5, {}, 'LIVE'];
const NOT_HASH = [null, undefined, 'x', 5, 'A'.repeat(64), '0'.repeat(63)];
const NOT_FUNCTION = [null, undefined, 'x', 5, {}];
const NOT_OPTIONAL_FUNCTION = [null, 'x', 5, {}];
const NOT_BUCKET_FILE = [
  null,
  undefined,
  'x',
  5,
  {},
  [],
  { ...file, size: -1 },
  { ...file, kind: 'x' },
  { ...file, hash: 'x' },
  { ...file, path: 5 },
  { ...file, entries: 1.5 },
];
const NOT_BATCH = [
  ...NOT_OBJECT,
  {},
  { init: [], live: [] },
  { init: null, live: [], dead: [] },
  { init: [], live: [5], dead: [] },
];
const NOT_HOT_BATCH = [null, 'x', 5, [], {}, { archived: [], restored: [null] }, { archived: 'x', restored: [] }];

/** The point loads of a manager or a snapshot: a LedgerKey each. */
function pointLoads(owner: string, target: Pick<api.BucketListSnapshot, 'load' | 'loadHotArchive'>): Case[] {
  return (['load', 'loadHotArchive'] as const).map((method) => ({
    name: `${owner}.${method}`,
    call: (k) => target[method](k as never),
    valid: [key],
    bad: [[...NOT_BYTES, new Uint8Array(3)]],
  }));
}

interface Case {
  name: string;
  call: (...args: unknown[]) => unknown;
  valid: unknown[];
  /** Bad values per argument position. */
  bad: unknown[][];
  /** Error codes accepted besides INVALID_ARGUMENT. */
  codes?: string[];
  /** Skip the positive control (the valid call has effects later cases would see). */
  noControl?: boolean;
}

const cases: Case[] = [
  { name: 'emptyBucket', call: (k) => api.emptyBucket(k as never), valid: ['live'], bad: [NOT_KIND] },
  { name: 'bucketFileName', call: (h) => api.bucketFileName(h as never), valid: [ZERO_HASH], bad: [NOT_HASH] },
  {
    name: 'new BucketOutput',
    call: (d, k, p, o) => new BucketOutput(d as never, k as never, p as never, o as never).abort(),
    valid: [dir, 'live', 23, { fsync: false }],
    bad: [
      NOT_STRING,
      NOT_KIND,
      [...BAD_COUNT, 2 ** 32],
      [...NOT_OPTIONS, { fsync: 'yes' }, { keepTombstones: 1 }, { writeBehind: null }],
    ],
  },
  {
    name: 'BucketOutput.put',
    call: (payload, type) => {
      const out = new BucketOutput(dir, 'live', 23, { fsync: false });
      try {
        out.put(payload as never, type as never);
      } finally {
        out.abort();
      }
    },
    valid: [records[0], undefined],
    bad: [
      [...NOT_BYTES, new Uint8Array(2)],
      [null, 'x', 1.5, {}],
    ],
  },
  {
    name: 'BucketOutput.putRun',
    call: (source, start, end, count) => {
      const out = new BucketOutput(dir, 'live', 23, { fsync: false });
      try {
        out.putRun(source as never, start as never, end as never, count as never);
      } finally {
        out.abort();
      }
    },
    valid: [new Uint8Array(16), 0, 16, 1],
    bad: [NOT_BYTES, [...BAD_COUNT, 17], [...BAD_COUNT, 17], [...BAD_COUNT, 0, 17]],
  },
  {
    name: 'BucketOutput.finish',
    call: (options) => {
      const out = new BucketOutput(dir, 'live', 23, { fsync: false });
      try {
        out.finish(options as never);
      } finally {
        out.abort();
      }
    },
    valid: [{ publish: false }],
    bad: [[...NOT_OPTIONS, { publish: 'x' }]],
  },
  {
    name: 'writeBucket',
    call: (d, k, p, payloads, o) => api.writeBucket(d as never, k as never, p as never, payloads as never, o as never),
    valid: [dir, 'live', 23, sortedRecords(), { fsync: false }],
    bad: [NOT_STRING, NOT_KIND, BAD_COUNT, [null, undefined, 5, {}, [null], [5]], [...NOT_OPTIONS, { fsync: 1 }]],
    codes: ['BAD_ENTRY'],
  },
  {
    name: 'new BucketInput',
    call: (bucket, options) => new BucketInput(bucket as never, options as never).close(),
    valid: [file, { check: true }],
    bad: [NOT_BUCKET_FILE, [...NOT_OPTIONS, { check: 'x' }, { bufferSize: -1 }, { bufferSize: 1.5 }]],
  },
  {
    name: 'verifyBucketFile',
    call: (path, kind, hash, onEntry) =>
      api.verifyBucketFile(path as never, kind as never, hash as never, onEntry as never),
    valid: [file.path, 'live', file.hash, () => {}],
    bad: [NOT_STRING, NOT_KIND, [null, 5, 'x'], NOT_OPTIONAL_FUNCTION],
  },
  {
    name: 'new Bucket',
    call: (f, i, e) => new Bucket(f as never, i as never, e as never),
    valid: [file, undefined, undefined],
    bad: [NOT_BUCKET_FILE, [null, 5, 'x'], [null, 5, 'x', [5]]],
  },
  {
    name: 'BucketManager.open',
    call: (d, o) => BucketManager.open(d as never, o as never).then((opened) => managers.push(opened)),
    valid: [join(dir, 'opened'), { merger: 'inline', fsync: false, create: true }],
    bad: [
      NOT_STRING,
      [
        ...NOT_OPTIONS,
        ...[
          { fsync: 'x' },
          { merger: 'threads' },
          { merger: {} },
          { merger: null },
          { workers: 0 },
          { workers: 1.5 },
          { index: null },
          { index: { pageSize: 1000 } },
          { index: { inMemoryCutoff: -1 } },
          { index: { persist: 'x' } },
          { index: { onIndexProblem: 5 } },
          { networkPassphrase: '' },
          { networkPassphrase: 5 },
          { restartMerges: 'x' },
          { onEvent: 5 },
          { create: 'yes' },
          { expect: null },
          { expect: { ledger: -1, bucketListHash: ZERO_HASH } },
          { expect: { ledger: 1, bucketListHash: 'x' } },
        ].map((bad) => ({ merger: 'inline', fsync: false, create: true, ...bad })),
      ],
    ],
  },
  {
    name: 'BucketManager.addLedger',
    call: (l, p, b, h) => manager.addLedger(l as never, p as never, b as never, h as never),
    valid: [1, 23, emptyBatch(), undefined],
    bad: [[...BAD_COUNT, 0, 2 ** 32], [...BAD_COUNT, 0, api.MAX_PROTOCOL_VERSION + 1], NOT_BATCH, NOT_HOT_BATCH],
    noControl: true,
  },
  ...pointLoads('BucketManager', manager),
  {
    name: 'BucketManager.assumeState',
    call: (h) => manager.assumeState(h as never),
    valid: [has()],
    bad: [
      [
        ...NOT_OBJECT,
        {},
        { ...has(), version: 3 },
        { ...has(), currentBuckets: null },
        { ...has(), currentLedger: -1 },
      ],
    ],
    noControl: true,
  },
  {
    name: 'BucketManager.listHash',
    call: (k) => manager.listHash(k as never),
    valid: ['live'],
    bad: [[null, 5, 'x', {}]],
  },
  {
    name: 'new BucketError',
    call: (code, detail, context) => new BucketError(code as never, detail as never, context as never),
    valid: ['IO', 'detail', { file: 'f', offset: 3, field: 'x' }],
    bad: [
      [null, undefined, 'NOPE', 5],
      [null, undefined, 5],
      [null, 5, 'x', { file: 5 }, { offset: 'x' }, { offset: 1.5 }, { field: 5 }],
    ],
  },
  {
    name: 'parseHistoryArchiveState',
    call: (text, f) => api.parseHistoryArchiveState(text as never, f as never),
    valid: [api.serializeHistoryArchiveState(has()), 'has.json'],
    bad: [
      [null, undefined, 5, {}, new Uint8Array(4)],
      [5, {}, null],
    ],
  },
  {
    name: 'serializeHistoryArchiveState',
    call: (h) => api.serializeHistoryArchiveState(h as never),
    valid: [has()],
    bad: [[...NOT_OBJECT, {}, { ...has(), version: 3 }, { ...has(), currentBuckets: [] }]],
  },
  {
    name: 'referencedBucketHashes',
    call: (h) => api.referencedBucketHashes(h as never),
    valid: [has()],
    bad: [[...NOT_OBJECT, {}, { ...has(), currentBuckets: null }]],
  },
  { name: 'indexPathOf', call: (p) => api.indexPathOf(p as never), valid: ['bucket.xdr'], bad: [NOT_STRING] },
  {
    name: 'openBucketIndex',
    call: (b, o) => api.openBucketIndex(b as never, o as never).close(),
    valid: [file, { pageSize: 256 }],
    bad: [
      NOT_BUCKET_FILE,
      [
        ...NOT_OPTIONS,
        { pageSize: 1000 },
        { pageSize: '16' },
        { inMemoryCutoff: -1 },
        { inMemoryCutoff: 'x' },
        { persist: 'x' },
        { onIndexProblem: 5 },
      ],
    ],
  },
  ...(['in-memory', 'page', 'empty'] as const).flatMap((kind): Case[] => {
    const make = () =>
      kind === 'empty'
        ? api.openBucketIndex(api.emptyBucket('live'))
        : api.openBucketIndex(file, { inMemoryCutoff: kind === 'page' ? 0 : Number.POSITIVE_INFINITY });
    const withIndex = (body: (opened: api.BucketIndex) => unknown) => {
      const opened = make();
      try {
        return body(opened);
      } finally {
        opened.close();
      }
    };
    return [
      {
        name: `BucketIndex.lookup (${kind})`,
        call: (k) => withIndex((opened) => opened.lookup(k as never)),
        valid: [key],
        bad: [[...NOT_BYTES, new Uint8Array(3)]],
      },
      {
        name: `BucketIndex.lookupSorted (${kind})`,
        call: (keys, found) => withIndex((opened) => opened.lookupSorted(keys as never, found as never)),
        valid: [[key], () => {}],
        bad: [[null, undefined, 5, 'x', [null], [5], [poolKey(2), poolKey(1)].sort().reverse()], NOT_FUNCTION],
      },
    ];
  }),
  ...Object.entries({
    levelSize: api.levelSize,
    levelHalf: api.levelHalf,
    keepTombstoneEntries: api.keepTombstoneEntries,
  }).map(
    (entry): Case => ({
      name: entry[0],
      call: (level) => entry[1](level as never),
      valid: [3],
      bad: [[...BAD_COUNT, 11]],
    }),
  ),
  ...Object.entries({
    levelShouldSpill: api.levelShouldSpill,
    shouldMergeWithEmptyCurr: api.shouldMergeWithEmptyCurr,
  }).map(
    ([name, fn]): Case => ({
      name,
      call: (ledger, level) => fn(ledger as never, level as never),
      valid: [64, 2],
      bad: [
        [...BAD_COUNT, 2 ** 32],
        [...BAD_COUNT, 11],
      ],
    }),
  ),
  {
    name: 'roundDown',
    call: (v, m) => api.roundDown(v as never, m as never),
    valid: [100, 16],
    bad: [BAD_COUNT, [...BAD_COUNT, 0, 3]],
  },
  {
    name: 'freshLiveEntries',
    call: (p, b) => api.freshLiveEntries(p as never, b as never),
    valid: [23, { init: [poolEntry(1, 1)], live: [], dead: [] }],
    bad: [BAD_COUNT, NOT_BATCH],
  },
  {
    name: 'freshHotArchiveEntries',
    call: (b) => api.freshHotArchiveEntries(b as never),
    valid: [{ archived: [], restored: [] }],
    bad: [[undefined, ...NOT_HOT_BATCH]],
  },
  {
    name: 'mergeArrays',
    call: (k, older, newer, keep) => api.mergeArrays(k as never, older as never, newer as never, keep as never),
    valid: ['live', records, records, true],
    bad: [
      NOT_KIND,
      [...NOT_BYTES_LIST, [...records].reverse(), [records[0], records[0]]],
      NOT_BYTES_LIST,
      [null, 5, 'x'],
    ],
    codes: ['BAD_ENTRY'],
  },
  {
    name: 'mergeBucketFiles',
    call: (d, older, newer, options) =>
      api.mergeBucketFiles(d as never, older as never, newer as never, options as never),
    valid: [dir, file, file, { maxProtocolVersion: 23, fsync: false }],
    bad: [
      NOT_STRING,
      NOT_BUCKET_FILE,
      NOT_BUCKET_FILE,
      [
        ...NOT_OBJECT,
        {},
        { maxProtocolVersion: -1 },
        { maxProtocolVersion: 23, readBufferSize: 2 },
        { maxProtocolVersion: 23, publish: 'x' },
        { maxProtocolVersion: 23, keepTombstones: 0 },
      ],
    ],
    codes: ['MISSING_BUCKET'],
  },
  {
    name: 'new WorkerMerger',
    call: (size) => new WorkerMerger(size as never),
    valid: [1],
    bad: [[null, 'x', 0, -1, 1.5, Number.NaN, 1e6]],
  },
  ...(['inline', 'workers'] as const).map(
    (kind): Case => ({
      name: `${kind === 'inline' ? 'InlineMerger' : 'WorkerMerger'}.merge`,
      call: (j) => (kind === 'inline' ? new InlineMerger() : workerMerger).merge(j as never),
      valid: [job()],
      bad: [
        [
          ...NOT_OBJECT,
          {},
          { ...job(), dir: 5 },
          { ...job(), older: null },
          { ...job(), keepTombstones: 'x' },
          { ...job(), maxProtocolVersion: 1.5 },
          { ...job(), fsync: undefined },
          { ...job(), index: null },
          { ...job(), deadline: 'soon' },
        ],
      ],
      noControl: kind === 'workers', // the control would start a worker thread; the inline one checks the job
    }),
  ),
  {
    name: 'new Schedule',
    call: (ops) => new Schedule(ops as never),
    valid: [scheduleOps],
    bad: [[...NOT_OBJECT, {}, { ...scheduleOps, startMerge: 5 }, { isEmpty: () => true }]],
  },
  {
    name: 'Schedule.addBatch',
    call: (ledger, protocol, prepared) =>
      new Schedule(scheduleOps).addBatch(ledger as never, protocol as never, prepared as never),
    valid: [1, 23, 0],
    bad: [[...BAD_COUNT, 0, 2 ** 32], BAD_COUNT],
  },
  {
    name: 'Schedule.restartMerges',
    call: (ledger) => new Schedule(scheduleOps).restartMerges(ledger as never),
    valid: [1],
    bad: [BAD_COUNT],
  },
  {
    name: 'new BucketListSnapshot',
    call: (ledger, live, hot, onRelease) =>
      new BucketListSnapshot(ledger as never, live as never, hot as never, onRelease as never),
    valid: [1, emptySlots('live'), emptySlots('hot-archive'), () => {}],
    bad: [
      BAD_COUNT,
      [null, undefined, 5, [], emptySlots('live').slice(1), [null, ...emptySlots('live').slice(1)]],
      [null, undefined, 5, []],
      NOT_FUNCTION,
    ],
  },
  ...pointLoads('BucketListSnapshot', view),
  {
    name: 'BucketListSnapshot.loadKeys',
    call: (keys) => view.loadKeys(keys as never),
    valid: [[key]],
    bad: [[null, undefined, 5, 'x', [null], [5]]],
  },
  {
    name: 'BucketListSnapshot.loadHotArchiveKeys',
    call: (keys) => view.loadHotArchiveKeys(keys as never),
    valid: [[key]],
    bad: [[null, undefined, 5, 'x', [null], [5]]],
  },
  {
    name: 'BucketListSnapshot.scanBucketType',
    call: (slot, type, callback) => view.scanBucketType(slot as never, type as never, callback as never),
    valid: [0, 0, () => {}],
    bad: [[...BAD_COUNT, 22], [...NOT_NUMBER, 1.5], NOT_FUNCTION],
  },
  ...(['scanCurrentLiveEntries', 'scanCurrentLiveEntriesBaseline'] as const).map(
    (name): Case => ({
      name: `BucketListSnapshot.${name}`,
      call: (type, callback) => view[name](type as never, callback as never),
      valid: [0, () => {}],
      bad: [[...NOT_NUMBER, 1.5, Number.NaN], NOT_FUNCTION],
    }),
  ),
  {
    name: 'BucketListSnapshot.liveEntries',
    call: async (type) => {
      for await (const _ of view.liveEntries(type as never)) {
        // drain
      }
    },
    valid: [0],
    bad: [[...NOT_NUMBER, 1.5]],
  },
];

/** What a call did: its error, or 'returned'. */
async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call();
    return 'returned';
  } catch (error) {
    return error;
  }
}

const show = (value: unknown): string => {
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'function';
  if (value instanceof ArrayBuffer) return 'ArrayBuffer';
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}…` : text;
  } catch {
    return String(value);
  }
};

describe('bad arguments are BucketErrors', () => {
  it('the cases cover every function and class the package exports', () => {
    const exported = Object.entries(api).filter(([, value]) => typeof value === 'function');
    const uncovered = exported
      .map(([name]) => name)
      .filter((name) => !cases.some((c) => new RegExp(`\\b${name}\\b`).test(c.name)));
    expect(uncovered).toEqual([]);
  });

  for (const c of cases) {
    it(c.name, async () => {
      if (c.noControl !== true) expect(await outcome(() => c.call(...c.valid)), 'the valid call').toBe('returned');
      const wrong: string[] = [];
      for (let position = 0; position < c.bad.length; position++) {
        for (const value of c.bad[position]!) {
          const args = [...c.valid];
          args[position] = value;
          const result = await outcome(() => c.call(...args));
          const accepted = ['INVALID_ARGUMENT', ...(c.codes ?? [])];
          if (!(result instanceof BucketError) || !accepted.includes(result.code)) {
            const got = result instanceof Error ? `${result.name}: ${result.message}` : String(result);
            wrong.push(`argument ${position} = ${show(value)}: ${got.slice(0, 160)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
