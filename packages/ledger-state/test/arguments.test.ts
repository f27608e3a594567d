// Every public function, constructor and method of @strata/ledger-state fed bad arguments — null, undefined, wrong
// types (numbers for strings, strings for bytes, plain objects for a Uint8Array), negative, fractional and
// out-of-range numbers, objects with one bad field, a symbol, an object without a prototype — one argument at a time,
// the others valid: each call must throw (or reject with) a LedgerStateError, never a TypeError or another package's
// error, and never succeed. Codes are INVALID_ARGUMENT unless listed (BAD_ENTRY for bytes that are no XDR value,
// BAD_GENESIS for a genesis stellar-core cannot make, IO for a path that is not there, BAD_STATE for a directory or
// network that is not the state's). The suite is test-kit's describeBadArguments (async calls are awaited):
// 1. every exported function and class has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted (entries that need the fixture stream skip it, saying so, without it);
// 3. each bad call throws or rejects with LedgerStateError (instanceof) with an expected code;
// 4. the refused calls changed nothing: no directory was made for them, the applied state is where its valid call
//    left it;
// 5. negative control: the suite's check catches a leaked TypeError, and the checker a wrong code and a call that
//    returns.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BucketListSnapshot } from '@strata/bucket-list';
import { generateNetwork, type LedgerCloseMetaRecord, openLedgerSource } from '@strata/ledger-meta';
import {
  badArgumentFailures,
  describeBadArguments,
  type EntryPoint,
  expectRejectionCode,
  fixturePath,
  fixturesMissingReason,
  withTempDir,
} from '@strata/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { costParams, dataEntry, dataKey, v21MemoryParams } from './soroban-state-support.js';

const {
  encodeEvictionIterator,
  GenesisReveals,
  genesisEntries,
  LedgerState,
  LedgerStateError,
  LedgerStateErrorCode,
  MAX_GENESIS_TEST_ACCOUNTS,
  SorobanState,
  TEST_NETWORK_PASSPHRASE: PASSPHRASE,
} = api;
const { BAD_ENTRY, BAD_GENESIS, BAD_STATE, INCONSISTENT_META, INVALID_ARGUMENT, IO, OUT_OF_ORDER } =
  LedgerStateErrorCode;

type Case = EntryPoint<api.LedgerStateErrorCode>;

// ---- a temporary root for every directory below, held for the whole file ----
let releaseRoot!: () => void;
let rootRemoved!: Promise<void>;
const root = await new Promise<string>((ready) => {
  rootRemoved = withTempDir(
    (dir) =>
      new Promise<void>((release) => {
        ready(dir);
        releaseRoot = release;
      }),
    'ledger-state-arguments',
  );
});

/** Paths handed to calls for a directory they may create: the ones made, and the ones whose call was accepted. */
const NEW_DIR = '<a new directory>';
const newDirs: string[] = [];
const acceptedDirs: string[] = [];
const dirOf = (dir: unknown): unknown => {
  if (dir !== NEW_DIR) return dir;
  const path = join(root, `new-${newDirs.length}`);
  newDirs.push(path);
  return path;
};
const accepted = async <T>(dir: unknown, call: () => Promise<T>): Promise<T> => {
  const result = await call();
  if (typeof dir === 'string') acceptedDirs.push(dir);
  return result;
};
const folder = (name: string): string => {
  const path = join(root, name);
  mkdirSync(path);
  return path;
};
const emptyFolder = folder('empty');
const nowhere = join(root, 'nowhere');
const garbageFile = join(root, 'garbage.xdr');
writeFileSync(garbageFile, 'not a stream of LedgerCloseMeta');

// ---- valid material ----
const STREAM = ['stellar-core-lcm', 'OfferTests', '1e8e76b45b2c1981.xdr'];
const fixtureMissing = fixturesMissingReason(STREAM);
const streamFile = fixturePath(...STREAM);
const stateOptions = { merger: 'inline', fsync: false } as const;
const genesis: api.GenesisLedger = {
  networkPassphrase: PASSPHRASE,
  protocolVersion: 23,
  entries: genesisEntries({ networkPassphrase: PASSPHRASE, protocolVersion: 23 }),
};
const [genesisEntry] = genesis.entries as [Uint8Array];
/** A genesis entry last modified at ledger 2, and a contract data entry of ledger 1: neither can be genesis's. */
const laterEntry = Uint8Array.from(genesisEntry);
laterEntry[3] = 2;
const ledgerOneData = dataEntry(1, 1);
const memCostParams = costParams(v21MemoryParams());

/** The first ledger of the fixture stream, and the genesis it follows (absent fixtures: a placeholder, unused). */
let firstLedger: LedgerCloseMetaRecord | undefined;
let applyGenesis = genesis;
if (fixtureMissing === undefined) {
  for await (const record of openLedgerSource(streamFile)) {
    firstLedger = record;
    break;
  }
  applyGenesis = await api.genesisOf(streamFile, PASSPHRASE);
}
const NEEDS_FIXTURE = fixtureMissing === undefined ? {} : { validCallSkipped: `it needs ${fixtureMissing}` };

const applyState = await LedgerState.create(join(root, 'apply'), applyGenesis, stateOptions);
let applied: api.AppliedLedger | undefined;
const scanState = await LedgerState.create(join(root, 'scan'), genesis, stateOptions);
const snapshot: BucketListSnapshot = scanState.bucketList.snapshot();
/** A generated ledger 2 of scanState's network (withScannedEvictions rewrites such ledgers). */
const [generatedLedger] = [
  ...generateNetwork({ seed: 1, ledgers: 1, startLedger: 2, protocolVersion: 23, networkPassphrase: PASSPHRASE }),
].map((generated) => generated.lcm);
const archiveSource = join(root, 'archive-source');
await (await LedgerState.create(archiveSource, genesis, stateOptions)).close();
const archive = {
  has: readFileSync(join(archiveSource, 'has.json'), 'utf8'),
  bucketDir: join(archiveSource, 'buckets'),
  networkPassphrase: PASSPHRASE,
  protocolVersion: 23,
};
afterAll(async () => {
  snapshot.release();
  await applyState.close();
  await scanState.close();
  releaseRoot();
  await rootRemoved;
});

const iterator: api.EvictionIterator = { bucketListLevel: 1, isCurrBucket: true, bucketFileOffset: 0 };
const scanInput = (): api.EvictionScanInput => ({
  snapshot,
  ledgerSeq: 2,
  protocolVersion: 23,
  iterator,
  settings: { evictionScanSize: 100_000, maxEntriesToArchive: 10, startingEvictionScanLevel: 1 },
  liveUntilOf: () => undefined,
  ttlModified: () => false,
});
const firstAfterGenesis = (): api.FirstLedgerAfterGenesis => ({
  header: { ledgerSeq: 2, protocolVersion: 23 },
  changes: { init: [] },
});

// ---- bad values, by what the argument should be ----
const A_SYMBOL = Symbol('bad');
const BARE = Object.create(null) as object;
const NOT_OBJECT = [null, undefined, 5, 'x', true, [], A_SYMBOL];
/** Not an options object (undefined is: the defaults). */
const NOT_OPTIONS = [null, 5, 'x', true, [], A_SYMBOL];
const NOT_PATH = [null, undefined, 5, '', {}, [], true, A_SYMBOL, BARE, new Uint8Array(4)];
const NOT_PASSPHRASE = [null, undefined, 5, '', {}, A_SYMBOL, BARE];
const NOT_STRING = [null, undefined, 5, {}, [], A_SYMBOL, BARE, new Uint8Array(4)];
const NOT_BYTES = [
  null,
  undefined,
  'abcd',
  5,
  {},
  [0, 0, 0, 0],
  new ArrayBuffer(8),
  new Uint16Array(4),
  A_SYMBOL,
  BARE,
];
const NOT_INTEGER = [null, undefined, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1', 1n, {}, A_SYMBOL];
const NOT_UINT32 = [...NOT_INTEGER, -1, 2 ** 32];
const NOT_FUNCTION = [null, 5, 'x', {}, A_SYMBOL];
/** Where a genesis protocol belongs: a non-integer is INVALID_ARGUMENT, an integer without a genesis BAD_GENESIS. */
const NO_GENESIS_PROTOCOL = [-1, 29, 2 ** 32];

const BAD_COMMON_OPTIONS = [
  { fsync: 'yes' },
  { fsync: null },
  { fsync: 0 },
  { merger: 'threads' },
  { merger: 5 },
  { merger: null },
  { rules: null },
  { rules: 5 },
  { rules: [] },
  { rules: { evictionIterator: 'x' } },
  { rules: { stateSizeWindow: 1 } },
  { rules: { restoreReads: null } },
  { rules: { maxTtlBumps: A_SYMBOL } },
];
const BAD_STATE_OPTIONS = [
  ...NOT_OPTIONS,
  ...[...BAD_COMMON_OPTIONS, { verify: 1 }, { restartMerges: 'no' }, { onEvent: 5 }, { onEvent: null }].map((bad) => ({
    ...stateOptions,
    ...bad,
  })),
];
const BAD_REPLAY_OPTIONS = [
  ...NOT_OPTIONS,
  ...[
    ...BAD_COMMON_OPTIONS,
    { networkPassphrase: 5 },
    { networkPassphrase: '' },
    { onLedger: 5 },
    { stopAtMismatch: 'x' },
  ].map((bad) => ({ ...stateOptions, ...bad })),
];

const g = genesis;
const BAD_GENESIS_LEDGER = [
  ...NOT_OBJECT,
  BARE,
  {},
  { ...g, networkPassphrase: undefined },
  { ...g, networkPassphrase: 5 },
  { ...g, networkPassphrase: '' },
  { ...g, protocolVersion: undefined },
  { ...g, protocolVersion: '23' },
  { ...g, protocolVersion: 1.5 },
  { ...g, protocolVersion: Number.NaN },
  { ...g, entries: undefined },
  { ...g, entries: 'x' },
  { ...g, entries: genesisEntry },
  { ...g, entries: [null] },
  { ...g, entries: [5] },
  { ...g, entries: [{}] },
  { ...g, entries: ['abcd'] },
];
const GENESIS_NOT_BUILDABLE = [
  ...NO_GENESIS_PROTOCOL.map((protocolVersion) => ({ ...g, protocolVersion })),
  { ...g, entries: [...g.entries, genesisEntry] },
  { ...g, entries: [laterEntry] },
  { ...g, entries: [ledgerOneData] },
  { ...g, entries: new Array(MAX_GENESIS_TEST_ACCOUNTS + 100) },
];
const GENESIS_NOT_XDR = [
  { ...g, entries: [new Uint8Array(3)] },
  { ...g, entries: [genesisEntry.subarray(0, 20)] },
];

const a = archive;
const BAD_ARCHIVE = [
  ...NOT_OBJECT,
  BARE,
  {},
  { ...a, has: undefined },
  { ...a, has: 5 },
  { ...a, has: new Uint8Array(3) },
  { ...a, has: '' },
  { ...a, has: 'not json' },
  { ...a, has: '{}' },
  ...NOT_PATH.map((bucketDir) => ({ ...a, bucketDir })),
  ...NOT_PASSPHRASE.map((networkPassphrase) => ({ ...a, networkPassphrase })),
  ...[...NOT_UINT32, 29].map((protocolVersion) => ({ ...a, protocolVersion })),
];

const NOT_ITERATOR = [
  ...NOT_OBJECT,
  BARE,
  {},
  ...[-1, 1.5, 2 ** 32, '1', null].map((bucketListLevel) => ({ ...iterator, bucketListLevel })),
  ...[1, undefined, 'true', null].map((isCurrBucket) => ({ ...iterator, isCurrBucket })),
  ...[-1, 1.5, 2 ** 53, Number.NaN, 1n].map((bucketFileOffset) => ({ ...iterator, bucketFileOffset })),
];
const s = scanInput();
const BAD_SCAN_INPUT = [
  ...NOT_OBJECT,
  BARE,
  {},
  ...[null, undefined, 5, {}, { ...snapshot }, BARE].map((bad) => ({ ...s, snapshot: bad })),
  ...[...NOT_UINT32, 1, 3].map((ledgerSeq) => ({ ...s, ledgerSeq })),
  ...[...NOT_UINT32, 19].map((protocolVersion) => ({ ...s, protocolVersion })),
  ...[...NOT_ITERATOR, { ...iterator, bucketListLevel: 11 }].map((bad) => ({ ...s, iterator: bad })),
  ...[
    ...NOT_OBJECT,
    BARE,
    { ...s.settings, evictionScanSize: -1 },
    { ...s.settings, maxEntriesToArchive: 1.5 },
    { ...s.settings, startingEvictionScanLevel: 0 },
    { ...s.settings, startingEvictionScanLevel: 11 },
    { ...s.settings, startingEvictionScanLevel: '1' },
  ].map((settings) => ({ ...s, settings })),
  ...[null, undefined, 5].map((liveUntilOf) => ({ ...s, liveUntilOf })),
  ...[null, undefined, 'x'].map((ttlModified) => ({ ...s, ttlModified })),
  ...[null, 5].map((newestEntryOf) => ({ ...s, newestEntryOf })),
];

const genesisOptions = { networkPassphrase: PASSPHRASE, protocolVersion: 23 };
const BAD_GENESIS_OPTIONS = [
  ...NOT_OBJECT,
  BARE,
  {},
  ...[
    { networkPassphrase: undefined },
    { networkPassphrase: 5 },
    { networkPassphrase: A_SYMBOL },
    { protocolVersion: undefined },
    { protocolVersion: 1.5 },
    { protocolVersion: '23' },
    { config: 5 },
    { config: null },
    { config: [] },
    { config: { sorobanHighLimitOverride: 'x' } },
    { config: { minimumPersistentEntryLifetime: -1 } },
    { config: { evictionParams: null } },
    { config: { evictionParams: { scanSize: 1.5 } } },
    { config: { evictionParams: { startingScanLevel: 2 ** 32 } } },
    { config: { testAccountCount: -1 } },
    { config: { testAccountCount: MAX_GENESIS_TEST_ACCOUNTS + 1 } },
    { overrides: 5 },
    { overrides: genesisEntry },
    { overrides: [null] },
    { overrides: ['abcd'] },
  ].map((bad) => ({ ...genesisOptions, ...bad })),
];

/** A ledger source path (argument 0) that is no path, not there, or no stream of LedgerCloseMeta. */
const BAD_SOURCE: Case['bad'] = [
  [0, NOT_PATH],
  [0, [nowhere], [IO]],
  [0, [garbageFile], [BAD_ENTRY]],
];

const sorobanChanges = () => ({ init: [], live: [], dead: [] });

const cases: Case[] = [
  // ---- LedgerState ----
  {
    name: 'LedgerState.create',
    call: (dir, genesisLedger, options) => {
      const path = dirOf(dir);
      return accepted(path, () => LedgerState.create(path as never, genesisLedger as never, options as never)).then(
        (state) => state.close(),
      );
    },
    valid: [NEW_DIR, genesis, stateOptions],
    bad: [
      [0, NOT_PATH],
      [0, [archiveSource], [BAD_STATE]],
      [1, BAD_GENESIS_LEDGER],
      [1, GENESIS_NOT_BUILDABLE, [BAD_GENESIS]],
      [1, GENESIS_NOT_XDR, [BAD_ENTRY]],
      [2, BAD_STATE_OPTIONS],
    ],
  },
  {
    name: 'LedgerState.open',
    call: (dir, options) => LedgerState.open(dir as never, options as never).then((state) => state.close()),
    valid: [archiveSource, stateOptions],
    bad: [
      [0, NOT_PATH],
      [0, [nowhere, emptyFolder], [BAD_STATE]],
      [
        1,
        [
          ...BAD_STATE_OPTIONS,
          ...[5, '', null, A_SYMBOL].map((networkPassphrase) => ({ ...stateOptions, networkPassphrase })),
        ],
      ],
      [1, [{ ...stateOptions, networkPassphrase: 'another network' }], [BAD_STATE]],
    ],
  },
  {
    name: 'LedgerState.fromHistoryArchive',
    call: (dir, archiveArgument, options) => {
      const path = dirOf(dir);
      return accepted(path, () =>
        LedgerState.fromHistoryArchive(path as never, archiveArgument as never, options as never),
      ).then((state) => state.close());
    },
    valid: [NEW_DIR, archive, stateOptions],
    bad: [
      [0, NOT_PATH],
      [0, [archiveSource], [BAD_STATE]],
      [1, BAD_ARCHIVE],
      [1, [{ ...archive, bucketDir: nowhere }], [IO]],
      [2, BAD_STATE_OPTIONS],
    ],
  },
  {
    name: 'LedgerState.apply',
    call: async (lcm, location) => {
      applied = await applyState.apply(lcm as never, location as never);
    },
    valid: [firstLedger?.bytes ?? new Uint8Array(16), firstLedger],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(16), firstLedger?.bytes.subarray(0, 100) ?? new Uint8Array(100)], [BAD_ENTRY]],
      [
        1,
        [
          ...NOT_OPTIONS,
          { file: 5 },
          { file: null },
          { record: -1 },
          { record: 1.5 },
          { offset: '0' },
          { offset: Number.NaN },
        ],
      ],
    ],
    ...NEEDS_FIXTURE,
  },

  // ---- eviction ----
  {
    name: 'scanForEviction',
    call: (input) => api.scanForEviction(input as never),
    valid: [scanInput()],
    bad: [[0, BAD_SCAN_INPUT]],
  },
  {
    name: 'withScannedEvictions',
    call: (state, lcm, extract) => api.withScannedEvictions(state as never, lcm as never, extract as never),
    valid: [scanState, generatedLedger, undefined],
    bad: [
      [0, [null, {}, snapshot, 'state']],
      [1, NOT_BYTES],
      [1, [new Uint8Array(3), Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0)]],
      [1, [Uint8Array.of(0, 0, 0, 2, 0, 0, 0, 0)], [BAD_ENTRY]],
      [2, [null, 5, {}, { evictedKeys: 'none' }]],
    ],
  },
  {
    name: 'decodeEvictionIterator',
    call: (body) => api.decodeEvictionIterator(body as never),
    valid: [encodeEvictionIterator(iterator)],
    bad: [
      [0, NOT_BYTES],
      [
        0,
        [new Uint8Array(15), new Uint8Array(17), Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 2, ...new Uint8Array(8))],
        [BAD_ENTRY],
      ],
      [0, [Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0xff, ...new Uint8Array(7))], [BAD_ENTRY]],
    ],
  },
  {
    name: 'encodeEvictionIterator',
    call: (value) => api.encodeEvictionIterator(value as never),
    valid: [iterator],
    bad: [[0, NOT_ITERATOR]],
  },
  {
    name: 'evictionIteratorEntry',
    call: (ledgerSeq, value) => api.evictionIteratorEntry(ledgerSeq as never, value as never),
    valid: [5, iterator],
    bad: [
      [0, NOT_UINT32],
      [1, NOT_ITERATOR],
    ],
  },
  {
    name: 'decodeStateArchivalSettings',
    call: (body) => api.decodeStateArchivalSettings(body as never),
    valid: [new Uint8Array(api.STATE_ARCHIVAL_BODY_BYTES)],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(47), new Uint8Array(49)], [BAD_ENTRY]],
    ],
  },

  // ---- genesis ----
  { name: 'GenesisReveals', call: () => new GenesisReveals(), valid: [], bad: [] },
  {
    name: 'GenesisReveals.observe',
    call: (entry) => new GenesisReveals().observe(entry as never),
    valid: [genesisEntry],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(3), genesisEntry.subarray(0, 20)], [BAD_ENTRY]],
      [0, [ledgerOneData], [INCONSISTENT_META]],
    ],
  },
  {
    name: 'genesisEntries',
    call: (options) => genesisEntries(options as never),
    valid: [genesisOptions],
    bad: [
      [0, BAD_GENESIS_OPTIONS],
      [
        0,
        [
          ...NO_GENESIS_PROTOCOL.map((protocolVersion) => ({ ...genesisOptions, protocolVersion })),
          { ...genesisOptions, overrides: [laterEntry] },
          { ...genesisOptions, overrides: [ledgerOneData] },
        ],
        [BAD_GENESIS],
      ],
      [0, [{ ...genesisOptions, overrides: [new Uint8Array(3)] }], [BAD_ENTRY]],
    ],
  },
  {
    name: 'genesisLedgerHeader',
    call: (options) => api.genesisLedgerHeader(options as never),
    valid: [{ protocolVersion: 23, bucketListHash: new Uint8Array(32) }],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          BARE,
          {},
          ...[
            { protocolVersion: '23' },
            { protocolVersion: 1.5 },
            { bucketListHash: undefined },
            { bucketListHash: 'x' },
            { bucketListHash: new Uint8Array(31) },
            { bucketListHash: new Array(32).fill(0) },
            { useConfigForGenesis: 'x' },
            { baseFee: -1 },
            { baseReserve: 1.5 },
            { maxTxSetSize: 2 ** 32 },
            { maxTxSetSize: '50' },
          ].map((bad) => ({ protocolVersion: 23, bucketListHash: new Uint8Array(32), ...bad })),
        ],
      ],
      [
        0,
        [
          { protocolVersion: 29, bucketListHash: new Uint8Array(32) },
          { protocolVersion: 23, bucketListHash: new Uint8Array(32), useConfigForGenesis: false },
          { protocolVersion: 0, bucketListHash: new Uint8Array(32), useConfigForGenesis: false, baseFee: 5 },
        ],
        [BAD_GENESIS],
      ],
    ],
  },
  {
    name: 'genesisProtocolOf',
    call: (ledger) => api.genesisProtocolOf(ledger as never),
    valid: [firstAfterGenesis()],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          BARE,
          {},
          ...[null, 5, {}, { ledgerSeq: 3, protocolVersion: 23 }, { ledgerSeq: 2, protocolVersion: -1 }].map(
            (header) => ({ ...firstAfterGenesis(), header }),
          ),
          ...[null, 5, {}, { init: 'x' }, { init: [5] }, { init: [null] }].map((changes) => ({
            ...firstAfterGenesis(),
            changes,
          })),
        ],
      ],
      [0, [{ ...firstAfterGenesis(), changes: { init: [new Uint8Array(3)] } }], [BAD_ENTRY]],
    ],
  },
  {
    name: 'genesisTestConfigOf',
    call: (revealed, protocolVersion) => api.genesisTestConfigOf(revealed as never, protocolVersion as never),
    valid: [[genesisEntry], 23],
    bad: [
      [0, [null, undefined, 5, 'x', {}, genesisEntry, [null], [5], ['abcd'], A_SYMBOL]],
      [0, [[laterEntry], [ledgerOneData]], [BAD_GENESIS]],
      [0, [[new Uint8Array(3)]], [BAD_ENTRY]],
      [1, NOT_INTEGER],
      [1, NO_GENESIS_PROTOCOL, [BAD_GENESIS]],
    ],
  },
  ...Object.entries({ networkId: api.networkId, rootAccountId: api.rootAccountId }).map(
    ([name, fn]): Case => ({
      name,
      call: (passphrase) => fn(passphrase as never),
      valid: [PASSPHRASE],
      bad: [[0, NOT_STRING]],
    }),
  ),
  {
    name: 'genesisState',
    call: (options) => api.genesisState(options as never),
    valid: [{ passphrase: PASSPHRASE, protocol: 23 }],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          BARE,
          {},
          { passphrase: 5, protocol: 23 },
          { passphrase: PASSPHRASE, protocol: 1.5 },
          { passphrase: PASSPHRASE, protocol: '23' },
          { passphrase: PASSPHRASE, protocol: 23, config: 5 },
          { passphrase: PASSPHRASE, protocol: 23, overrides: [5] },
        ],
      ],
      [0, [{ passphrase: PASSPHRASE, protocol: 29 }], [BAD_GENESIS]],
    ],
  },

  // ---- replay ----
  {
    name: 'genesisOf',
    call: (path, passphrase) => api.genesisOf(path as never, passphrase as never),
    valid: [streamFile, PASSPHRASE],
    bad: [...BAD_SOURCE, [0, [emptyFolder], [BAD_GENESIS]], [1, NOT_PASSPHRASE]],
    ...NEEDS_FIXTURE,
  },
  {
    name: 'replaySource',
    call: (path, options) => api.replaySource(path as never, options as never),
    valid: [streamFile, stateOptions],
    bad: [
      ...BAD_SOURCE,
      [
        1,
        [
          ...BAD_REPLAY_OPTIONS,
          ...NOT_PATH.filter((bad) => bad !== undefined).map((stateDir) => ({ ...stateOptions, stateDir })),
        ],
      ],
    ],
    ...NEEDS_FIXTURE,
  },
  {
    name: 'replayCaptureFolder',
    call: (path, options) => api.replayCaptureFolder(path as never, options as never),
    valid: [emptyFolder, stateOptions],
    bad: [
      [0, NOT_PATH],
      [0, [nowhere, garbageFile], [IO]],
      [
        1,
        [
          ...BAD_REPLAY_OPTIONS,
          { ...stateOptions, stateDir: emptyFolder },
          { ...stateOptions, onFile: 5 },
          { ...stateOptions, onFile: null },
        ],
      ],
    ],
  },
  {
    name: 'streamFilesUnder',
    call: (path) => api.streamFilesUnder(path as never),
    valid: [emptyFolder],
    bad: [
      [0, NOT_PATH],
      [0, [nowhere, garbageFile], [IO]],
    ],
  },

  // ---- SorobanState (its own checks; listed here so that the house rule covers it) ----
  {
    name: 'SorobanState',
    call: (options) => new SorobanState(options as never),
    valid: [{ ledgerSeq: 0, arenaChunkBytes: 4096 }],
    bad: [
      [
        0,
        [
          null,
          5,
          'x',
          A_SYMBOL,
          ...NOT_UINT32.filter((bad) => bad !== undefined).map((ledgerSeq) => ({ ledgerSeq })),
          ...[3, 4095, 2 ** 40, '4096', Number.NaN].map((arenaChunkBytes) => ({ arenaChunkBytes })),
        ],
      ],
    ],
  },
  {
    name: 'SorobanState.apply',
    call: (changes, options) => new SorobanState().apply(changes as never, options as never),
    valid: [sorobanChanges(), { ledgerSeq: 1, protocolVersion: 23, memCostParams }],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          BARE,
          { ...sorobanChanges(), init: null },
          { ...sorobanChanges(), live: 'x' },
          { ...sorobanChanges(), dead: [5] },
          { ...sorobanChanges(), init: [{}] },
        ],
      ],
      [0, [{ ...sorobanChanges(), init: [new Uint8Array(3)] }], [BAD_ENTRY]],
      [
        1,
        [
          ...NOT_OBJECT,
          BARE,
          ...NOT_UINT32.map((ledgerSeq) => ({ ledgerSeq, protocolVersion: 23, memCostParams })),
          ...NOT_UINT32.map((protocolVersion) => ({ ledgerSeq: 1, protocolVersion, memCostParams })),
          { ledgerSeq: 1, protocolVersion: 23 },
        ],
      ],
      [1, [{ ledgerSeq: 2, protocolVersion: 23, memCostParams }], [OUT_OF_ORDER]],
      [1, [{ ledgerSeq: 1, protocolVersion: 23, memCostParams: new Uint8Array(3) }], [BAD_ENTRY]],
    ],
  },
  {
    name: 'SorobanState.populate',
    call: (source, options) => new SorobanState().populate(source as never, options as never),
    valid: [
      { ledger: 1, scanCurrentLiveEntries: () => undefined },
      { protocolVersion: 23, memCostParams },
    ],
    bad: [
      [
        0,
        [
          ...NOT_OBJECT,
          BARE,
          {},
          { ledger: 1, scanCurrentLiveEntries: 5 },
          ...NOT_UINT32.map((ledger) => ({ ledger, scanCurrentLiveEntries: () => undefined })),
        ],
      ],
      [1, [...NOT_OBJECT, BARE, ...NOT_UINT32.map((protocolVersion) => ({ protocolVersion, memCostParams }))]],
    ],
  },
  {
    name: 'SorobanState.recomputeContractCodeSizes',
    call: (params) => new SorobanState().recomputeContractCodeSizes(params as never),
    valid: [memCostParams],
    bad: [
      [0, NOT_BYTES],
      [0, [new Uint8Array(3)], [BAD_ENTRY]],
    ],
  },
  ...(['get', 'has'] as const).map(
    (method): Case => ({
      name: `SorobanState.${method}`,
      call: (key) => new SorobanState()[method](key as never),
      valid: [dataKey(1)],
      bad: [
        [0, NOT_BYTES],
        [0, [new Uint8Array(3), dataKey(1).subarray(0, 12)], [INVALID_ARGUMENT, BAD_ENTRY]],
      ],
    }),
  ),
  {
    name: 'SorobanState.liveUntilOf',
    call: (hash) => new SorobanState().liveUntilOf(hash as never),
    valid: [new Uint8Array(32)],
    bad: [[0, [...NOT_BYTES, new Uint8Array(31), new Uint8Array(33)]]],
  },
  {
    name: 'SorobanState.forEachEntry',
    call: (visit) => new SorobanState().forEachEntry(visit as never),
    valid: [() => undefined],
    bad: [[0, [undefined, ...NOT_FUNCTION]]],
  },
];

describeBadArguments({
  errorClass: LedgerStateError,
  api: { ...api },
  entries: cases,
  defaultCodes: [INVALID_ARGUMENT],
});

describe('the bad-argument suite', () => {
  it('4. the refused calls changed nothing', () => {
    expect(newDirs.filter((path) => existsSync(path))).toEqual(acceptedDirs);
    expect(acceptedDirs).toHaveLength(2); // create's and fromHistoryArchive's valid calls
    expect(applyState.ledger).toBe(applied?.ledger ?? 1);
    if (applied !== undefined) expect(applyState.bucketListHash()).toBe(applied.bucketListHash);
  });

  it('5. negative control: it catches a leaked TypeError, a wrong code and a call that returns', async () => {
    const leaksTypeError = async (options: unknown) => (options as { merger: string }).merger.length;
    const leaky: Case = { name: 'leaky', call: leaksTypeError, valid: [stateOptions], bad: [[0, [null, undefined]]] };
    expect(await badArgumentFailures(LedgerStateError, leaky, [INVALID_ARGUMENT])).toEqual([
      expect.stringMatching(/^argument 0, bad value #0: .*TypeError/),
      expect.stringMatching(/^argument 0, bad value #1: .*TypeError/),
    ]);
    await expect(expectRejectionCode(LedgerStateError, () => api.networkId(5 as never), [IO], 'code')).rejects.toThrow(
      /code INVALID_ARGUMENT, expected one of IO/,
    );
    await expect(
      expectRejectionCode(LedgerStateError, () => api.networkId(PASSPHRASE), [INVALID_ARGUMENT], 'ok'),
    ).rejects.toThrow(/nothing was thrown/);
  });
});
