// Every public function, constructor and method of @strata/bucket-list fed bad arguments — null, undefined, wrong
// types, negative, fractional and out-of-range numbers, malformed objects — one argument at a time, the others
// valid: each call must throw (or reject with) a BucketError, never a TypeError, RangeError or plain Error, and never
// succeed (issue 15: `addLedger(n, p, null)` threw a TypeError). Codes are INVALID_ARGUMENT unless listed. A positive
// control runs each call with its valid arguments (unless skipped, with the reason), so a failure is the bad
// argument's. The suite is test-kit's describeBadArguments (async calls are awaited: a rejection counts as thrown):
// 1. every exported function and class has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted;
// 3. each bad call throws or rejects with BucketError (instanceof) with an expected code;
// 4. negative control: the suite catches a leaked TypeError, and the checker a wrong code and a call that returns.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { badArgumentFailures, describeBadArguments, type EntryPoint, expectRejectionCode } from '@strata/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { holdTempDir, poolEntry, poolKey } from './support.js';

const {
  Bucket,
  BucketError,
  BucketErrorCode,
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

const { BAD_ENTRY, INVALID_ARGUMENT, MISSING_BUCKET } = BucketErrorCode;
/** The codes of entries that may read a record's contents (BAD_ENTRY) or a missing file first. */
const OR_BAD_ENTRY = [INVALID_ARGUMENT, BAD_ENTRY];
const OR_MISSING_BUCKET = [INVALID_ARGUMENT, MISSING_BUCKET];

/** The point loads of a manager or a snapshot: a LedgerKey each. */
function pointLoads(owner: string, target: Pick<api.BucketListSnapshot, 'load' | 'loadHotArchive'>): Case[] {
  return (['load', 'loadHotArchive'] as const).map((method) => ({
    name: `${owner}.${method}`,
    call: (k) => target[method](k as never),
    valid: [key],
    bad: [[0, [...NOT_BYTES, new Uint8Array(3)]]],
  }));
}

/** An entry point: its valid arguments, and bad ones as [position, values, codes (INVALID_ARGUMENT when omitted)]. */
type Case = EntryPoint<api.BucketErrorCode>;

const cases: Case[] = [
  { name: 'emptyBucket', call: (k) => api.emptyBucket(k as never), valid: ['live'], bad: [[0, NOT_KIND]] },
  { name: 'bucketFileName', call: (h) => api.bucketFileName(h as never), valid: [ZERO_HASH], bad: [[0, NOT_HASH]] },
  {
    name: 'BucketOutput',
    call: (d, k, p, o) => new BucketOutput(d as never, k as never, p as never, o as never).abort(),
    valid: [dir, 'live', 23, { fsync: false }],
    bad: [
      [0, NOT_STRING],
      [1, NOT_KIND],
      [2, [...BAD_COUNT, 2 ** 32]],
      [3, [...NOT_OPTIONS, { fsync: 'yes' }, { keepTombstones: 1 }, { writeBehind: null }]],
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
      [0, [...NOT_BYTES, new Uint8Array(2)]],
      [1, [null, 'x', 1.5, {}]],
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
    bad: [
      [0, NOT_BYTES],
      [1, [...BAD_COUNT, 17]],
      [2, [...BAD_COUNT, 17]],
      [3, [...BAD_COUNT, 0, 17]],
    ],
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
    bad: [[0, [...NOT_OPTIONS, { publish: 'x' }]]],
  },
  {
    name: 'writeBucket',
    call: (d, k, p, payloads, o) => api.writeBucket(d as never, k as never, p as never, payloads as never, o as never),
    valid: [dir, 'live', 23, sortedRecords(), { fsync: false }],
    bad: [
      [0, NOT_STRING, OR_BAD_ENTRY],
      [1, NOT_KIND, OR_BAD_ENTRY],
      [2, BAD_COUNT, OR_BAD_ENTRY],
      [3, [null, undefined, 5, {}, [null], [5]], OR_BAD_ENTRY],
      [4, [...NOT_OPTIONS, { fsync: 1 }], OR_BAD_ENTRY],
    ],
  },
  {
    name: 'BucketInput',
    call: (bucket, options) => new BucketInput(bucket as never, options as never).close(),
    valid: [file, { check: true }],
    bad: [
      [0, NOT_BUCKET_FILE],
      [1, [...NOT_OPTIONS, { check: 'x' }, { bufferSize: -1 }, { bufferSize: 1.5 }]],
    ],
  },
  {
    name: 'verifyBucketFile',
    call: (path, kind, hash, onEntry) =>
      api.verifyBucketFile(path as never, kind as never, hash as never, onEntry as never),
    valid: [file.path, 'live', file.hash, () => {}],
    bad: [
      [0, NOT_STRING],
      [1, NOT_KIND],
      [2, [null, 5, 'x']],
      [3, NOT_OPTIONAL_FUNCTION],
    ],
  },
  {
    name: 'Bucket',
    call: (f, i, e) => new Bucket(f as never, i as never, e as never),
    valid: [file, undefined, undefined],
    bad: [
      [0, NOT_BUCKET_FILE],
      [1, [null, 5, 'x']],
      [2, [null, 5, 'x', [5]]],
    ],
  },
  {
    name: 'BucketManager.open',
    call: (d, o) => BucketManager.open(d as never, o as never).then((opened) => managers.push(opened)),
    valid: [join(dir, 'opened'), { merger: 'inline', fsync: false, create: true }],
    bad: [
      [0, NOT_STRING],
      [
        1,
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
    ],
  },
  {
    name: 'BucketManager.addLedger',
    call: (l, p, b, h) => manager.addLedger(l as never, p as never, b as never, h as never),
    valid: [1, 23, emptyBatch(), undefined],
    bad: [
      [0, [...BAD_COUNT, 0, 2 ** 32]],
      [1, [...BAD_COUNT, api.MAX_PROTOCOL_VERSION + 1]],
      [2, NOT_BATCH],
      [3, NOT_HOT_BATCH],
    ],
    validCallSkipped: 'it would close ledger 1 of the shared manager, which later entries use',
  },
  ...pointLoads('BucketManager', manager),
  {
    name: 'BucketManager.assumeState',
    call: (h) => manager.assumeState(h as never),
    valid: [has()],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          {},
          { ...has(), version: 3 },
          { ...has(), currentBuckets: null },
          { ...has(), currentLedger: -1 },
        ],
      ],
    ],
    validCallSkipped: 'it would replace the state of the shared manager, which later entries use',
  },
  ...(['listHash', 'listSize'] as const).map(
    (method): Case => ({
      name: `BucketManager.${method}`,
      call: (k) => manager[method](k as never),
      valid: ['live'],
      bad: [[0, [null, 5, 'x', {}]]],
    }),
  ),
  {
    name: 'BucketError',
    call: (code, detail, context) => new BucketError(code as never, detail as never, context as never),
    valid: ['IO', 'detail', { file: 'f', offset: 3, field: 'x' }],
    bad: [
      [0, [null, undefined, 'NOPE', 5, Object.create(null), Symbol('code')]],
      [1, [null, undefined, 5]],
      [2, [null, 5, 'x', { file: 5 }, { offset: 'x' }, { offset: 1.5 }, { field: 5 }]],
    ],
  },
  {
    name: 'parseHistoryArchiveState',
    call: (text, f) => api.parseHistoryArchiveState(text as never, f as never),
    valid: [api.serializeHistoryArchiveState(has()), 'has.json'],
    bad: [
      [0, [null, undefined, 5, {}, new Uint8Array(4)]],
      [1, [5, {}, null]],
    ],
  },
  {
    name: 'serializeHistoryArchiveState',
    call: (h) => api.serializeHistoryArchiveState(h as never),
    valid: [has()],
    bad: [[0, [...NOT_OBJECT, {}, { ...has(), version: 3 }, { ...has(), currentBuckets: [] }]]],
  },
  {
    name: 'referencedBucketHashes',
    call: (h) => api.referencedBucketHashes(h as never),
    valid: [has()],
    bad: [[0, [...NOT_OBJECT, {}, { ...has(), currentBuckets: null }]]],
  },
  { name: 'indexPathOf', call: (p) => api.indexPathOf(p as never), valid: ['bucket.xdr'], bad: [[0, NOT_STRING]] },
  {
    name: 'openBucketIndex',
    call: (b, o) => api.openBucketIndex(b as never, o as never).close(),
    valid: [file, { pageSize: 256 }],
    bad: [
      [0, NOT_BUCKET_FILE],
      [
        1,
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
        bad: [[0, [...NOT_BYTES, new Uint8Array(3)]]],
      },
      {
        name: `BucketIndex.lookupSorted (${kind})`,
        call: (keys, found) => withIndex((opened) => opened.lookupSorted(keys as never, found as never)),
        valid: [[key], () => {}],
        bad: [
          [0, [null, undefined, 5, 'x', [null], [5], [poolKey(2), poolKey(1)].sort().reverse()]],
          [1, NOT_FUNCTION],
        ],
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
      bad: [[0, [...BAD_COUNT, 11]]],
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
        [0, [...BAD_COUNT, 2 ** 32]],
        [1, [...BAD_COUNT, 11]],
      ],
    }),
  ),
  {
    name: 'roundDown',
    call: (v, m) => api.roundDown(v as never, m as never),
    valid: [100, 16],
    bad: [
      [0, BAD_COUNT],
      [1, [...BAD_COUNT, 0, 3]],
    ],
  },
  {
    name: 'freshLiveEntries',
    call: (p, b) => api.freshLiveEntries(p as never, b as never),
    valid: [23, { init: [poolEntry(1, 1)], live: [], dead: [] }],
    bad: [
      [0, BAD_COUNT],
      [1, NOT_BATCH],
    ],
  },
  {
    name: 'freshHotArchiveEntries',
    call: (b) => api.freshHotArchiveEntries(b as never),
    valid: [{ archived: [], restored: [] }],
    bad: [[0, [undefined, ...NOT_HOT_BATCH]]],
  },
  {
    name: 'mergeArrays',
    call: (k, older, newer, keep) => api.mergeArrays(k as never, older as never, newer as never, keep as never),
    valid: ['live', records, records, true],
    bad: [
      [0, NOT_KIND, OR_BAD_ENTRY],
      [1, [...NOT_BYTES_LIST, [...records].reverse(), [records[0], records[0]]], OR_BAD_ENTRY],
      [2, NOT_BYTES_LIST, OR_BAD_ENTRY],
      [3, [null, 5, 'x'], OR_BAD_ENTRY],
    ],
  },
  {
    name: 'mergeBucketFiles',
    call: (d, older, newer, options) =>
      api.mergeBucketFiles(d as never, older as never, newer as never, options as never),
    valid: [dir, file, file, { maxProtocolVersion: 23, fsync: false }],
    bad: [
      [0, NOT_STRING, OR_MISSING_BUCKET],
      [1, NOT_BUCKET_FILE, OR_MISSING_BUCKET],
      [2, NOT_BUCKET_FILE, OR_MISSING_BUCKET],
      [
        3,
        [
          ...NOT_OBJECT,
          {},
          { maxProtocolVersion: -1 },
          { maxProtocolVersion: 23, readBufferSize: 2 },
          { maxProtocolVersion: 23, publish: 'x' },
          { maxProtocolVersion: 23, keepTombstones: 0 },
        ],
        OR_MISSING_BUCKET,
      ],
    ],
  },
  {
    name: 'WorkerMerger',
    call: (size) => new WorkerMerger(size as never),
    valid: [1],
    bad: [[0, [null, 'x', 0, -1, 1.5, Number.NaN, 1e6]]],
  },
  ...(['inline', 'workers'] as const).map(
    (kind): Case => ({
      name: `${kind === 'inline' ? 'InlineMerger' : 'WorkerMerger'}.merge`,
      call: (j) => (kind === 'inline' ? new InlineMerger() : workerMerger).merge(j as never),
      valid: [job()],
      bad: [
        [
          0,
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
      ],
      ...(kind === 'workers' && { validCallSkipped: 'it would start a worker thread; the inline one checks the job' }),
    }),
  ),
  {
    name: 'Schedule',
    call: (ops) => new Schedule(ops as never),
    valid: [scheduleOps],
    bad: [[0, [...NOT_OBJECT, {}, { ...scheduleOps, startMerge: 5 }, { isEmpty: () => true }]]],
  },
  {
    name: 'Schedule.addBatch',
    call: (ledger, protocol, prepared) =>
      new Schedule(scheduleOps).addBatch(ledger as never, protocol as never, prepared as never),
    valid: [1, 23, 0],
    bad: [
      [0, [...BAD_COUNT, 0, 2 ** 32]],
      [1, BAD_COUNT],
    ],
  },
  {
    name: 'Schedule.restartMerges',
    call: (ledger) => new Schedule(scheduleOps).restartMerges(ledger as never),
    valid: [1],
    bad: [[0, BAD_COUNT]],
  },
  {
    name: 'BucketListSnapshot',
    call: (ledger, live, hot, onRelease) =>
      new BucketListSnapshot(ledger as never, live as never, hot as never, onRelease as never),
    valid: [1, emptySlots('live'), emptySlots('hot-archive'), () => {}],
    bad: [
      [0, BAD_COUNT],
      [1, [null, undefined, 5, [], emptySlots('live').slice(1), [null, ...emptySlots('live').slice(1)]]],
      [2, [null, undefined, 5, []]],
      [3, NOT_FUNCTION],
    ],
  },
  ...pointLoads('BucketListSnapshot', view),
  {
    name: 'BucketListSnapshot.loadKeys',
    call: (keys) => view.loadKeys(keys as never),
    valid: [[key]],
    bad: [[0, [null, undefined, 5, 'x', [null], [5]]]],
  },
  {
    name: 'BucketListSnapshot.loadHotArchiveKeys',
    call: (keys) => view.loadHotArchiveKeys(keys as never),
    valid: [[key]],
    bad: [[0, [null, undefined, 5, 'x', [null], [5]]]],
  },
  {
    name: 'BucketListSnapshot.scanBucketType',
    call: (slot, type, callback) => view.scanBucketType(slot as never, type as never, callback as never),
    valid: [0, 0, () => {}],
    bad: [
      [0, [...BAD_COUNT, 22]],
      [1, [...NOT_NUMBER, 1.5]],
      [2, NOT_FUNCTION],
    ],
  },
  ...(['scanCurrentLiveEntries', 'scanCurrentLiveEntriesBaseline'] as const).map(
    (name): Case => ({
      name: `BucketListSnapshot.${name}`,
      call: (type, callback) => view[name](type as never, callback as never),
      valid: [0, () => {}],
      bad: [
        [0, [...NOT_NUMBER, 1.5, Number.NaN]],
        [1, NOT_FUNCTION],
      ],
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
    bad: [[0, [...NOT_NUMBER, 1.5]]],
  },
];

describeBadArguments({ errorClass: BucketError, api: { ...api }, entries: cases, defaultCodes: [INVALID_ARGUMENT] });

describe('the bad-argument suite', () => {
  it('4. negative control: it catches a leaked TypeError, a wrong code and a call that returns', async () => {
    const leaksTypeError = async (batch: unknown) => (batch as { live: unknown[] }).live.length;
    const leaky: Case = { name: 'leaky', call: leaksTypeError, valid: [emptyBatch()], bad: [[0, [null, undefined]]] };
    expect(await badArgumentFailures(BucketError, leaky, [INVALID_ARGUMENT])).toEqual([
      expect.stringMatching(/^argument 0, bad value #0: .*TypeError/),
      expect.stringMatching(/^argument 0, bad value #1: .*TypeError/),
    ]);
    await expect(expectRejectionCode(BucketError, () => api.emptyBucket('x' as never), ['IO'], 'code')).rejects.toThrow(
      /code INVALID_ARGUMENT, expected one of IO/,
    );
    await expect(
      expectRejectionCode(BucketError, () => api.emptyBucket('live'), [INVALID_ARGUMENT], 'ok'),
    ).rejects.toThrow(/nothing was thrown/);
  });
});
