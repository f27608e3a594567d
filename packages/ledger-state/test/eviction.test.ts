// The eviction scan's rules one at a time, on hand-built snapshots (chosen buckets in chosen slots), each expectation
// worked out from stellar-core's code (BucketManager::resolveBackgroundEvictionScan, SearchableLiveBucketListSnapshot::
// scanForEviction / scanForEvictionInBucket, LiveBucketList::updateStartingEvictionIterator /
// updateEvictionIterAndRecordStats) rather than from the oracle.
import { compareLedgerKeys, ttlKeyOf } from '@strata/ledger-key';
import { errorOf, hex, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import { type EvictionScanInput, type EvictionSettings, scanForEviction } from '../src/eviction/scan.js';
import type { EvictionIterator } from '../src/eviction/settings.js';
import {
  bucketFile,
  keyOf,
  parseBucketFile,
  type SorobanKind,
  slotOf,
  snapshotOf,
  sorobanEntry,
} from './eviction-oracle.js';

/** Ledger N-1 of most tests: odd and no multiple of 8, so no iterator offset is reset. */
const PREVIOUS = 101;
const N = PREVIOUS + 1;
const EXPIRED = PREVIOUS; // liveUntilLedgerSeq < N
const LIVE = N; // liveUntilLedgerSeq ≥ N: still live at N

type Files = Map<number, ReturnType<typeof bucketFile>>;

interface Entry {
  kind: SorobanKind;
  n: number;
  entry: Uint8Array;
  key: Uint8Array;
  ttlKey: Uint8Array;
}

const made = (kind: SorobanKind, n: number, version = 50, padding = 0): Entry => {
  const entry = sorobanEntry(kind, n, version, padding);
  const key = keyOf(entry);
  return { kind, n, entry, key, ttlKey: ttlKeyOf(key) };
};

const inKeyOrder = (entries: Entry[]): Entry[] => [...entries].sort((a, b) => compareLedgerKeys(a.key, b.key));

/** A scan with defaults: ledger N, protocol 23, iterator at level 1 curr 0, a large budget and cap. */
function run(
  files: Files,
  ttls: Map<Entry, number>,
  options: Partial<Omit<EvictionScanInput, 'settings' | 'snapshot'>> & {
    settings?: Partial<EvictionSettings>;
    previous?: number;
    modified?: Entry[];
  } = {},
) {
  const previous = options.previous ?? PREVIOUS;
  const byHash = new Map([...ttls].map(([e, liveUntil]) => [hex(e.ttlKey.subarray(4)), liveUntil]));
  const modified = new Set((options.modified ?? []).map((e) => hex(e.ttlKey.subarray(4))));
  const input: EvictionScanInput = {
    snapshot: snapshotOf(previous, files),
    ledgerSeq: previous + 1,
    protocolVersion: options.protocolVersion ?? 23,
    iterator: options.iterator ?? { bucketListLevel: 1, isCurrBucket: true, bucketFileOffset: 0 },
    settings: {
      evictionScanSize: 1_000_000,
      startingEvictionScanLevel: 1,
      maxEntriesToArchive: 100,
      ...options.settings,
    },
    liveUntilOf: options.liveUntilOf ?? ((hash) => byHash.get(hex(hash))),
    ttlModified: options.ttlModified ?? ((hash) => modified.has(hex(hash))),
    ...(options.newestEntryOf === undefined ? {} : { newestEntryOf: options.newestEntryOf }),
  };
  return scanForEviction(input);
}

const keysOf = (result: ReturnType<typeof run>) => result.evicted.map((e) => hex(e.key));
const it_ = (level: number, curr: boolean, offset: number): EvictionIterator => ({
  bucketListLevel: level,
  isCurrBucket: curr,
  bucketFileOffset: offset,
});
/** The file offsets where each record of a bucket ends (META first). */
const recordEnds = (file: ReturnType<typeof bucketFile>): number[] =>
  parseBucketFile(file.path).records!.map((r) => r.end);

/** Three expired temporary entries (key order) in level 1's curr, and where each record ends. */
function threeExpired() {
  const e = inKeyOrder([0, 1, 2].map((n) => made('temporary', n)));
  const file = bucketFile(
    tempDir('eviction'),
    23,
    e.map((x) => x.entry),
  );
  const files: Files = new Map([[slotOf(1, true), file]]);
  return { e, files, ttls: new Map(e.map((x) => [x, EXPIRED])), ends: recordEnds(file) };
}

describe('scanForEviction: what is evicted', () => {
  it('expired entries only (liveUntilLedgerSeq < N), with a TTL, in bucket order; the meta order for temporaries', () => {
    const dir = tempDir('eviction');
    const e = [0, 1, 2, 3].map((n) => made('temporary', n));
    const files: Files = new Map([
      [
        slotOf(1, true),
        bucketFile(
          dir,
          23,
          e.map((x) => x.entry),
        ),
      ],
    ]);
    // e[1] is live at N (liveUntil = N), e[2] has no TTL (already deleted), e[0] and e[3] expired.
    const result = run(
      files,
      new Map([
        [e[0]!, EXPIRED],
        [e[1]!, LIVE],
        [e[3]!, 5],
      ]),
    );
    const expected = inKeyOrder([e[0]!, e[3]!]);
    expect(keysOf(result)).toEqual(expected.map((x) => hex(x.key)));
    expect(result.evicted.map((x) => hex(x.entry))).toEqual(expected.map((x) => hex(x.entry)));
    expect(result.evicted.map((x) => x.liveUntilLedgerSeq)).toEqual(expected.map((x) => (x === e[0] ? EXPIRED : 5)));
    expect(result.evictedKeys.map(hex)).toEqual(expected.flatMap((x) => [hex(x.key), hex(x.ttlKey)]));
    expect(result.archivedEntries).toEqual([]);
    // The budget outlasts the list: the scan wrapped back to where it started.
    expect(result.iterator).toEqual(it_(1, true, 0));
  });

  it('before protocol 23 only TEMPORARY data; from 23 persistent data and code too, archived after the deleted keys', () => {
    const dir = tempDir('eviction');
    const temporary = made('temporary', 0);
    const persistent = made('persistent', 1);
    const code = made('code', 2);
    const all = [temporary, persistent, code];
    const files: Files = new Map([
      [
        slotOf(2, false),
        bucketFile(
          dir,
          23,
          all.map((x) => x.entry),
        ),
      ],
    ]);
    const ttls = new Map(all.map((x) => [x, EXPIRED]));
    for (const protocol of [20, 22]) {
      const result = run(files, ttls, { protocolVersion: protocol });
      expect(keysOf(result), `protocol ${protocol}`).toEqual([hex(temporary.key)]);
      expect(result.evictedKeys.map(hex)).toEqual([hex(temporary.key), hex(temporary.ttlKey)]);
    }
    const result = run(files, ttls, { protocolVersion: 23 });
    const order = inKeyOrder(all); // data before code
    expect(keysOf(result)).toEqual(order.map((x) => hex(x.key)));
    expect(result.evicted.map((x) => x.persistent)).toEqual(order.map((x) => x.kind !== 'temporary'));
    // LedgerCloseMetaFrame::populateEvictedEntries: deleted keys (temp key + TTL, persistent TTL), then archived keys.
    const deleted = order.flatMap((x) => (x.kind === 'temporary' ? [x.key, x.ttlKey] : [x.ttlKey]));
    const archived = order.filter((x) => x.kind !== 'temporary');
    expect(result.evictedKeys.map(hex)).toEqual([...deleted, ...archived.map((x) => x.key)].map(hex));
    expect(result.archivedEntries.map(hex)).toEqual(archived.map((x) => hex(x.entry)));
  });

  it('LIVE records are candidates like INIT; DEAD records and TTL entries never are', () => {
    const dir = tempDir('eviction');
    const a = made('temporary', 0);
    const b = made('temporary', 1);
    const gone = made('temporary', 2);
    const files: Files = new Map([
      [slotOf(1, true), bucketFile(dir, 23, [a.entry, b.entry], { dead: [gone.key], asLive: true })],
    ]);
    const result = run(
      files,
      new Map([
        [a, EXPIRED],
        [b, EXPIRED],
        [gone, EXPIRED],
      ]),
    );
    expect(keysOf(result)).toEqual(inKeyOrder([a, b]).map((x) => hex(x.key)));
  });

  it('entries whose TTL ledger N modified are skipped and do not count towards maxEntriesToArchive', () => {
    const { e, files, ttls, ends } = threeExpired(); // ends: [META, e0, e1, e2]
    // Cap 2 with e1 skipped: e0 and e2 evicted, the cap reached — the iterator is right after e2's record.
    const capped = run(files, ttls, { modified: [e[1]!], settings: { maxEntriesToArchive: 2 } });
    expect(keysOf(capped)).toEqual([e[0]!, e[2]!].map((x) => hex(x.key)));
    expect(capped.iterator).toEqual(it_(1, true, ends[3]!));
    // Cap 3: not reached, so the iterator is the end of the scan region (here: wrapped back to the start).
    const uncapped = run(files, ttls, { modified: [e[1]!], settings: { maxEntriesToArchive: 3 } });
    expect(keysOf(uncapped)).toEqual([e[0]!, e[2]!].map((x) => hex(x.key)));
    expect(uncapped.iterator).toEqual(it_(1, true, 0));
  });

  it('maxEntriesToArchive 0 evicts nothing and leaves the iterator at the end of the region; 1 stops after the first', () => {
    const { e, files, ttls, ends } = threeExpired();
    const region = ends[2]! + 1; // reads through e1's record and into e2's
    const none = run(files, ttls, { settings: { maxEntriesToArchive: 0, evictionScanSize: region } });
    expect(none.evicted).toEqual([]);
    expect(none.evictedKeys).toEqual([]);
    expect(none.iterator).toEqual(it_(1, true, ends[3]!));
    const one = run(files, ttls, { settings: { maxEntriesToArchive: 1, evictionScanSize: region } });
    expect(keysOf(one)).toEqual([hex(e[0]!.key)]);
    expect(one.iterator).toEqual(it_(1, true, ends[1]!));
  });

  it('a key expired in two scanned buckets is evicted once, with the version found first', () => {
    const dir = tempDir('eviction');
    const newer = made('temporary', 7, 90);
    const older = made('temporary', 7, 40);
    const files: Files = new Map([
      [slotOf(1, true), bucketFile(dir, 23, [newer.entry])],
      [slotOf(2, true), bucketFile(dir, 23, [older.entry])],
    ]);
    const result = run(files, new Map([[newer, EXPIRED]]));
    expect(result.evicted.map((x) => hex(x.entry))).toEqual([hex(newer.entry)]);
    // Starting below the newer version, the scan finds (and evicts) the older one: no newest-version check for
    // temporary entries.
    const fromLevel2 = run(files, new Map([[newer, EXPIRED]]), { settings: { startingEvictionScanLevel: 2 } });
    expect(fromLevel2.evicted.map((x) => hex(x.entry))).toEqual([hex(older.entry)]);
  });

  it('a persistent entry: at protocol 23 the scanned version, from 24 the newest (newestEntryOf, by default the snapshot)', () => {
    const dir = tempDir('eviction');
    const newest = made('persistent', 3, 90, 8);
    const stale = made('persistent', 3, 40);
    const files: Files = new Map([
      [slotOf(0, true), bucketFile(dir, 23, [newest.entry])],
      [slotOf(2, true), bucketFile(dir, 23, [stale.entry])],
    ]);
    const ttls = new Map([[newest, EXPIRED]]);
    const p23 = run(files, ttls, { protocolVersion: 23 });
    expect(p23.evicted.map((x) => hex(x.entry))).toEqual([hex(stale.entry)]);
    expect(p23.archivedEntries.map(hex)).toEqual([hex(stale.entry)]);
    const p24 = run(files, ttls, { protocolVersion: 24 });
    expect(p24.archivedEntries.map(hex)).toEqual([hex(newest.entry)]);
    const given = run(files, ttls, { protocolVersion: 25, newestEntryOf: () => newest.entry });
    expect(given.archivedEntries.map(hex)).toEqual([hex(newest.entry)]);
    // A TTL whose entry is gone is a broken state (stellar-core would dereference a null entry).
    const broken = errorOf(LedgerStateError, () =>
      run(files, ttls, { protocolVersion: 24, newestEntryOf: () => undefined }),
    );
    expect(broken.code).toBe('INCONSISTENT_STATE');
  });
});

describe('scanForEviction: where the scan goes', () => {
  it('a bucket before protocol 20 is skipped whole: nothing evicted from it, no budget spent on it', () => {
    const dir = tempDir('eviction');
    const old = made('temporary', 0);
    const fresh = made('temporary', 1);
    const snap = bucketFile(dir, 20, [fresh.entry]);
    const files: Files = new Map([
      [slotOf(1, true), bucketFile(dir, 19, [old.entry])],
      [slotOf(1, false), snap],
    ]);
    const size = recordEnds(snap).at(-1)!;
    const result = run(
      files,
      new Map([
        [old, EXPIRED],
        [fresh, EXPIRED],
      ]),
      { settings: { evictionScanSize: size } },
    );
    expect(keysOf(result)).toEqual([hex(fresh.key)]);
    // The budget was exactly the snap's size: the region ends at its last byte.
    expect(result.iterator).toEqual(it_(1, false, size));
  });

  it('the METAENTRY counts towards the budget', () => {
    const dir = tempDir('eviction');
    const e = made('temporary', 0);
    const file = bucketFile(dir, 23, [e.entry]);
    const meta = recordEnds(file)[0]!;
    expect(meta).toBe(20);
    const result = run(new Map([[slotOf(1, true), file]]), new Map([[e, EXPIRED]]), {
      settings: { evictionScanSize: meta },
    });
    expect(result.evicted).toEqual([]);
    expect(result.iterator).toEqual(it_(1, true, meta));
  });

  it('the record that crosses the budget is read whole; the rest of the budget carries into the next bucket', () => {
    const dir = tempDir('eviction');
    const a = inKeyOrder([0, 1, 2].map((n) => made('temporary', n)));
    const b = inKeyOrder([3, 4, 5].map((n) => made('temporary', n)));
    const curr = bucketFile(
      dir,
      23,
      a.map((x) => x.entry),
    );
    const snap = bucketFile(
      dir,
      23,
      b.map((x) => x.entry),
    );
    const files: Files = new Map([
      [slotOf(1, true), curr],
      [slotOf(1, false), snap],
    ]);
    const ttls = new Map([...a, ...b].map((x) => [x, EXPIRED]));
    const currEnds = recordEnds(curr);
    const snapEnds = recordEnds(snap);
    // From a's second record: the rest of curr, then snap's META and one byte of its first entry.
    const start = currEnds[1]!;
    const budget = currEnds.at(-1)! - start + snapEnds[0]! + 1;
    const result = run(files, ttls, { iterator: it_(1, true, start), settings: { evictionScanSize: budget } });
    expect(keysOf(result)).toEqual([a[1]!, a[2]!, b[0]!].map((x) => hex(x.key)));
    expect(result.iterator).toEqual(it_(1, false, snapEnds[1]!));
  });

  it('an offset at the end of its bucket reads nothing there; the scan moves on and stops back at that bucket', () => {
    const dir = tempDir('eviction');
    const a = made('temporary', 0);
    const b = made('temporary', 1);
    const curr = bucketFile(dir, 23, [a.entry]);
    const files: Files = new Map([
      [slotOf(1, true), curr],
      [slotOf(1, false), bucketFile(dir, 23, [b.entry])],
    ]);
    const end = recordEnds(curr).at(-1)!;
    const result = run(
      files,
      new Map([
        [a, EXPIRED],
        [b, EXPIRED],
      ]),
      { iterator: it_(1, true, end) },
    );
    // a lies before the offset in the start bucket, which is not scanned again in this ledger.
    expect(keysOf(result)).toEqual([hex(b.key)]);
    expect(result.iterator).toEqual(it_(1, true, 0));
  });

  it('an empty list: the iterator goes all the way round and ends at offset 0 of the bucket it started in', () => {
    const result = run(new Map(), new Map(), { iterator: it_(3, false, 100) });
    expect(result.evicted).toEqual([]);
    expect(result.iterator).toEqual(it_(3, false, 0));
  });

  it('a zero budget still moves past empty and pre-20 buckets to the first one it could read', () => {
    const dir = tempDir('eviction');
    const e = made('temporary', 0);
    const files: Files = new Map([
      [slotOf(1, false), bucketFile(dir, 19, [e.entry])],
      [slotOf(2, true), bucketFile(dir, 23, [e.entry])],
    ]);
    const result = run(files, new Map([[e, EXPIRED]]), { settings: { evictionScanSize: 0 } });
    expect(result.evicted).toEqual([]);
    expect(result.iterator).toEqual(it_(2, true, 0));
  });

  it('the bottom level has no snap: after its curr the scan wraps to the starting level', () => {
    const dir = tempDir('eviction');
    const bottom = made('temporary', 0);
    const low = made('temporary', 1);
    const files: Files = new Map([
      [slotOf(10, true), bucketFile(dir, 23, [bottom.entry])],
      [slotOf(10, false), bucketFile(dir, 23, [made('temporary', 9).entry])], // never visited
      [slotOf(2, false), bucketFile(dir, 23, [low.entry])],
    ]);
    const ttls = new Map([
      [bottom, EXPIRED],
      [low, EXPIRED],
    ]);
    const result = run(files, ttls, { iterator: it_(10, true, 0), settings: { startingEvictionScanLevel: 2 } });
    expect(keysOf(result)).toEqual([bottom, low].map((x) => hex(x.key)));
    expect(result.iterator).toEqual(it_(10, true, 0));
  });

  it('an iterator below the starting level (an upgrade raised it) restarts at that level’s curr, offset 0', () => {
    const dir = tempDir('eviction');
    const e = made('temporary', 0);
    const file = bucketFile(dir, 23, [e.entry]);
    const files: Files = new Map([
      [slotOf(1, false), file],
      [slotOf(3, true), file],
    ]);
    const ends = recordEnds(file);
    const result = run(files, new Map([[e, EXPIRED]]), {
      iterator: it_(1, false, 20),
      settings: { startingEvictionScanLevel: 3, evictionScanSize: ends.at(-1)! },
    });
    expect(keysOf(result)).toEqual([hex(e.key)]);
    expect(result.iterator).toEqual(it_(3, true, ends.at(-1)!));
  });

  it('the offset resets when ledger N-1 spilled into the bucket (by the spill schedule, not by hashes)', () => {
    const dir = tempDir('eviction');
    const e = inKeyOrder([0, 1].map((n) => made('temporary', n)));
    const file = bucketFile(
      dir,
      23,
      e.map((x) => x.entry),
    );
    const ttls = new Map(e.map((x) => [x, EXPIRED]));
    const afterFirst = recordEnds(file)[1]!;
    const budget = { evictionScanSize: 1 }; // one record
    // A curr at level 1 changes when level 0 spills: ledger N-1 even. The same file both times: only the
    // schedule decides.
    for (const [previous, reset] of [
      [100, true],
      [101, false],
    ] as const) {
      const files: Files = new Map([[slotOf(1, true), file]]);
      const result = run(files, ttls, { previous, iterator: it_(1, true, afterFirst), settings: budget });
      expect(result.iterator, `N-1 = ${previous}`).toEqual(
        it_(1, true, reset ? recordEnds(file)[0]! : recordEnds(file)[2]!),
      );
      expect(keysOf(result)).toEqual(reset ? [] : [hex(e[1]!.key)]);
    }
    // A snap at level 1 changes when level 1 spills: N-1 a multiple of 8.
    for (const [previous, reset] of [
      [96, true],
      [98, false],
    ] as const) {
      const files: Files = new Map([[slotOf(1, false), file]]);
      const result = run(files, ttls, { previous, iterator: it_(1, false, afterFirst), settings: budget });
      expect(result.iterator, `N-1 = ${previous}`).toEqual(
        it_(1, false, reset ? recordEnds(file)[0]! : recordEnds(file)[2]!),
      );
    }
  });
});

describe('scanForEviction: arguments', () => {
  it('bad inputs and out-of-range answers are INVALID_ARGUMENT', () => {
    const dir = tempDir('eviction');
    const e = made('persistent', 0);
    const other = made('persistent', 1);
    const files: Files = new Map([[slotOf(1, true), bucketFile(dir, 23, [e.entry])]]);
    const ttls = new Map([[e, EXPIRED]]);
    const good = () => run(files, ttls);
    expect(good).not.toThrow();
    const bad: [string, () => unknown][] = [
      ['input null', () => scanForEviction(null as never)],
      ['snapshot {}', () => scanForEviction({ ...inputOf(files), snapshot: {} as never })],
      ['snapshot of another ledger', () => scanForEviction({ ...inputOf(files), ledgerSeq: N + 1 })],
      ['ledgerSeq 1', () => scanForEviction({ ...inputOf(files), ledgerSeq: 1 })],
      ['protocol 19', () => run(files, ttls, { protocolVersion: 19 })],
      ['protocol 23.5', () => run(files, ttls, { protocolVersion: 23.5 })],
      ['iterator null', () => scanForEviction({ ...inputOf(files), iterator: null as never })],
      ['iterator level 11', () => run(files, ttls, { iterator: it_(11, true, 0) })],
      ['iterator offset -1', () => run(files, ttls, { iterator: it_(1, true, -1) })],
      ['iterator isCurr 1', () => run(files, ttls, { iterator: { ...it_(1, true, 0), isCurrBucket: 1 as never } })],
      ['start level 0', () => run(files, ttls, { settings: { startingEvictionScanLevel: 0 } })],
      ['start level 11', () => run(files, ttls, { settings: { startingEvictionScanLevel: 11 } })],
      ['scan size -1', () => run(files, ttls, { settings: { evictionScanSize: -1 } })],
      ['max entries 2^32', () => run(files, ttls, { settings: { maxEntriesToArchive: 2 ** 32 } })],
      ['liveUntilOf missing', () => run(files, ttls, { liveUntilOf: 'x' as never })],
      ['liveUntilOf answers -1', () => run(files, ttls, { liveUntilOf: () => -1 })],
      ['liveUntilOf answers "5"', () => run(files, ttls, { liveUntilOf: () => '5' as never })],
      ['ttlModified answers 1', () => run(files, ttls, { ttlModified: () => 1 as never })],
      ['newestEntryOf not a function', () => run(files, ttls, { newestEntryOf: 5 as never })],
      ['newestEntryOf: another key', () => run(files, ttls, { protocolVersion: 24, newestEntryOf: () => other.entry })],
      [
        'newestEntryOf: not XDR',
        () => run(files, ttls, { protocolVersion: 24, newestEntryOf: () => new Uint8Array(3) }),
      ],
    ];
    const failures: string[] = [];
    for (const [what, call] of bad) {
      try {
        const code = errorOf(LedgerStateError, call).code;
        if (code !== 'INVALID_ARGUMENT') failures.push(`${what}: ${code}`);
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('negative control: a broken ttlModified filter would be caught by the skip test', () => {
    const dir = tempDir('eviction');
    const e = made('temporary', 0);
    const files: Files = new Map([[slotOf(1, true), bucketFile(dir, 23, [e.entry])]]);
    const honest = run(files, new Map([[e, EXPIRED]]), { modified: [e] });
    const ignoring = run(files, new Map([[e, EXPIRED]]), { ttlModified: () => false });
    expect(keysOf(honest)).toEqual([]);
    expect(keysOf(ignoring)).not.toEqual(keysOf(honest));
  });
});

function inputOf(files: Files): EvictionScanInput {
  return {
    snapshot: snapshotOf(PREVIOUS, files),
    ledgerSeq: N,
    protocolVersion: 23,
    iterator: it_(1, true, 0),
    settings: { evictionScanSize: 100, startingEvictionScanLevel: 1, maxEntriesToArchive: 1 },
    liveUntilOf: () => undefined,
    ttlModified: () => false,
  };
}
