// The WebAssembly loop of the loser tree (src/loser-tree.wat) as a module and as a stand-in for the JavaScript tree in
// what the tree owes the buckets besides its output (which loser-tree.property.test.ts checks):
//  1. src/loser-tree-wasm.ts is the current build of src/loser-tree.wat, for the arena ABI this ledger-key provides.
//  2. Its page checks: the loop decides itself which records its buckets' loaded page indexes must see (page starts
//     and ends, sampled records), so the records whose check does work are exactly those the JavaScript tree's are,
//     at every sample rate. Negative controls: a loop misreading a page's end, or sampling with another multiplier,
//     is caught.
//  3. A malformed record mark in a type range is BAD_RECORD_MARK with the file and the mark's offset, as from the
//     JavaScript tree's reader.
//  4. Two TTL keys are ordered in the loop itself (a TTL key is its key hash, ordered as bytes), not by a call of the
//     comparator: TTL keys differing in any one byte of their hash, live and dead, come out in the comparator's
//     order, newest versions only, as from the JavaScript tree.
//  5. A tree closed hands its arena to the next tree (population's three scans run in one arena), which gives the
//     same entries as a tree in a new arena; a tree still open keeps its own (two trees read in turns give each the
//     JavaScript tree's entries); a closed tree refuses to be read (its arena may be another tree's).
import { closeSync, openSync, writeSync } from 'node:fs';
import { AssertionError } from '@strata/base';
import {
  compareLedgerKeys,
  encodeLedgerEntry,
  encodeLedgerKey,
  KEYED_RECORD_ARENA_ABI_VERSION,
  LEDGER_ENTRY_TYPE,
  ledgerKeyOfEntry,
} from '@strata/ledger-key';
import { errorOf, expectWasmModuleInSync, hex, tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type BucketFile, writeBucket } from '../src/bucket-file.js';
import { type BucketIndex, openBucketIndex } from '../src/bucket-index/bucket-index.js';
import { indexChecks, PageScanCheck } from '../src/bucket-index/page-index.js';
import { BucketError } from '../src/errors.js';
import { LOSER_TREE_ARENA_ABI, LoserTree, type LoserTreeInput, type LoserTreeOptions } from '../src/loser-tree.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';

it('src/loser-tree-wasm.ts is the current build of src/loser-tree.wat', async () => {
  await expectWasmModuleInSync(new URL('../src/loser-tree.wat', import.meta.url));
});

it('is written for the arena ABI this ledger-key provides', () => {
  expect(KEYED_RECORD_ARENA_ABI_VERSION).toBe(LOSER_TREE_ARENA_ABI);
});

const ACCOUNT = LEDGER_ENTRY_TYPE.ACCOUNT;
const TTL = LEDGER_ENTRY_TYPE.TTL;

/** A live bucket of ACCOUNT entries n for n in `numbers`, at `version`. */
function accounts(dir: string, numbers: number[], version: number): BucketFile {
  const entries = numbers.map((n) => {
    const accountId = new Uint8Array(32);
    new DataView(accountId.buffer).setUint32(0, n * 2654435761);
    return encodeLedgerEntry({ lastModifiedLedgerSeq: version, data: { type: 'account', accountId, balance: 7n } });
  });
  return writeBucket(dir, 'live', 23, freshLiveEntries(23, { init: entries, live: [], dead: [] }), { fsync: false });
}

/** Three buckets, newest first, with indexes loaded from their files (so scans check them); pages of 512 bytes. */
function loadedBuckets(dir: string): { files: BucketFile[]; indexes: BucketIndex[] } {
  const numbers = Array.from({ length: 600 }, (_, n) => n);
  const files = [
    accounts(
      dir,
      numbers.filter((n) => n % 5 === 0),
      3,
    ),
    accounts(
      dir,
      numbers.filter((n) => n % 2 === 0),
      2,
    ),
    accounts(dir, numbers, 1),
  ];
  const options = { pageSize: 512, inMemoryCutoff: 0 };
  for (const file of files) openBucketIndex(file, options).close(); // built and persisted
  return { files, indexes: files.map((file) => openBucketIndex(file, options)) };
}

function inputsOf(files: BucketFile[], indexes: BucketIndex[]): LoserTreeInput[] {
  return files.map((file, i) => {
    const range = indexes[i]!.typeRanges.get(ACCOUNT)!;
    const index = indexes[i] as BucketIndex & { scanCheck(start: number): PageScanCheck | undefined };
    const check = index.scanCheck(range.start);
    expect(check).toBeInstanceOf(PageScanCheck);
    return { path: file.path!, start: range.start, end: range.end, check };
  });
}

/** The file offsets of the records whose check did work (past `record`'s fast path), and the entries returned. */
function checkedRecords(inputs: LoserTreeInput[], options: LoserTreeOptions): { checked: number[]; entries: number } {
  const prototype = PageScanCheck.prototype as unknown as { check(...args: unknown[]): void };
  const check = prototype.check;
  const checked: number[] = [];
  prototype.check = function (this: unknown, ...args: unknown[]): void {
    checked.push(args[3] as number);
    check.apply(this, args);
  };
  let entries = 0;
  const tree = new LoserTree(inputs, options);
  try {
    expect(tree.engine).toBe(options.loop === false ? 'javascript' : 'wasm');
    while (tree.next() !== undefined) entries++;
  } finally {
    tree.close();
    prototype.check = check;
  }
  return { checked: checked.sort((a, b) => a - b), entries };
}

describe('page checks', () => {
  const saved = { ...indexChecks };
  afterEach(() => Object.assign(indexChecks, saved));

  for (const sampleBits of [0, 1, 4, 10]) {
    it(`the loop has exactly the records checked that the JavaScript tree has (1 in 2^${sampleBits} sampled)`, () => {
      indexChecks.filterSampleBits = sampleBits;
      const { files, indexes } = loadedBuckets(tempDir('wasm-loser-tree'));
      try {
        const javascript = checkedRecords(inputsOf(files, indexes), { loop: false });
        const wasm = checkedRecords(inputsOf(files, indexes), {});
        expect(javascript.entries).toBe(600);
        expect(wasm.entries).toBe(600);
        // Page starts and ends of three buckets of a few dozen pages each, at least.
        expect(javascript.checked.length).toBeGreaterThan(100);
        expect(wasm.checked).toEqual(javascript.checked);
      } finally {
        for (const index of indexes) index.close();
      }
    });
  }

  it('negative control: a loop told pages end further on misses the records that end them, and the comparison sees it', () => {
    indexChecks.filterSampleBits = 10;
    const { files, indexes } = loadedBuckets(tempDir('wasm-loser-tree-control'));
    const descriptor = Object.getOwnPropertyDescriptor(PageScanCheck.prototype, 'quietEndBefore')!;
    try {
      const javascript = checkedRecords(inputsOf(files, indexes), { loop: false });
      Object.defineProperty(PageScanCheck.prototype, 'quietEndBefore', { get: () => Number.POSITIVE_INFINITY });
      const wasm = checkedRecords(inputsOf(files, indexes), {});
      expect(wasm.checked).not.toEqual(javascript.checked);
    } finally {
      Object.defineProperty(PageScanCheck.prototype, 'quietEndBefore', descriptor);
      for (const index of indexes) index.close();
    }
  });

  it('negative control: a loop sampling with another multiplier checks other records, and the comparison sees it', () => {
    indexChecks.filterSampleBits = 4;
    const { files, indexes } = loadedBuckets(tempDir('wasm-loser-tree-sample-control'));
    const statics = PageScanCheck as unknown as { sampleMultiplier: number };
    const multiplier = statics.sampleMultiplier;
    try {
      const javascript = checkedRecords(inputsOf(files, indexes), { loop: false });
      statics.sampleMultiplier = (multiplier ^ 0x5a5a_5a5a) | 1; // another odd multiplier
      const wasm = checkedRecords(inputsOf(files, indexes), {});
      expect(wasm.checked).not.toEqual(javascript.checked);
    } finally {
      statics.sampleMultiplier = multiplier;
      for (const index of indexes) index.close();
    }
  });
});

/** Two buckets of ACCOUNT entries 0..count-1 (a third of them newer in the first), indexed, and the tree's inputs. */
function twoAccountBuckets(dir: string, count: number) {
  const numbers = Array.from({ length: count }, (_, n) => n);
  const files = [
    accounts(
      dir,
      numbers.filter((n) => n % 3 === 0),
      2,
    ),
    accounts(dir, numbers, 1),
  ];
  const indexes = files.map((file) => openBucketIndex(file));
  const inputs = files.map((file, i) => {
    const range = indexes[i]!.typeRanges.get(ACCOUNT)!;
    return { path: file.path!, start: range.start, end: range.end, check: undefined };
  });
  return { files, indexes, inputs };
}

it('a malformed record mark is BAD_RECORD_MARK at its file and offset, in the loop as in the JavaScript tree', () => {
  const { files, indexes, inputs } = twoAccountBuckets(tempDir('wasm-loser-tree-mark'), 300);
  // The mark of the older bucket's 200th record, cleared (no last-fragment bit): records are the same size here.
  const recordBytes = (inputs[1]!.end - inputs[1]!.start) / 300;
  const markAt = inputs[1]!.start + 200 * recordBytes;
  const fd = openSync(files[1]!.path!, 'r+');
  writeSync(fd, new Uint8Array(4), 0, 4, markAt);
  closeSync(fd);
  try {
    for (const options of [{}, { loop: false }] as LoserTreeOptions[]) {
      const tree = new LoserTree(inputs, options);
      const error = errorOf(BucketError, () => {
        while (tree.next() !== undefined);
      });
      tree.close();
      expect(error.code).toBe('BAD_RECORD_MARK');
      expect(error.file).toBe(files[1]!.path);
      expect(error.offset).toBe(markAt);
    }
  } finally {
    for (const index of indexes) index.close();
  }
});

it('orders TTL keys in the loop by their hash bytes, whichever byte they differ in, as the comparator does', () => {
  const dir = tempDir('wasm-loser-tree-ttl');
  // key hashes equal but for one byte (every position, two values each), so every word of the hash decides somewhere
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < 32; at++) {
    for (const value of [0x00, 0x7f, 0x80, 0xff]) {
      const hash = new Uint8Array(32).fill(0x5a);
      hash[at] = value;
      hashes.push(hash);
    }
  }
  const ttl = (keyHash: Uint8Array, version: number) =>
    encodeLedgerEntry({ lastModifiedLedgerSeq: version, data: { type: 'ttl', keyHash, liveUntilLedgerSeq: version } });
  const key = (keyHash: Uint8Array) => encodeLedgerKey({ type: 'ttl', keyHash });
  // newest bucket: a third of the keys updated, a third deleted; oldest bucket: every key
  const newer = freshLiveEntries(23, {
    init: [],
    live: hashes.filter((_, i) => i % 3 === 0).map((hash) => ttl(hash, 2)),
    dead: hashes.filter((_, i) => i % 3 === 1).map(key),
  });
  const files = [
    writeBucket(dir, 'live', 23, newer, { fsync: false }),
    writeBucket(
      dir,
      'live',
      23,
      freshLiveEntries(23, { init: hashes.map((hash) => ttl(hash, 1)), live: [], dead: [] }),
      {
        fsync: false,
      },
    ),
  ];
  const indexes = files.map((file) => openBucketIndex(file));
  const inputs = files.map((file, i) => {
    const range = indexes[i]!.typeRanges.get(TTL)!;
    return { path: file.path!, start: range.start, end: range.end, check: undefined };
  });
  const expected = hashes
    .map((hash, i) => (i % 3 === 0 ? ttl(hash, 2) : i % 3 === 1 ? undefined : ttl(hash, 1)))
    .filter((entry): entry is Uint8Array => entry !== undefined)
    .sort((a, b) => compareLedgerKeys(ledgerKeyOfEntry(a), ledgerKeyOfEntry(b)));
  try {
    for (const options of [{}, { loop: false }] as LoserTreeOptions[]) {
      const tree = new LoserTree(inputs, options);
      const entries: Uint8Array[] = [];
      try {
        expect(tree.engine).toBe(options.loop === false ? 'javascript' : 'wasm');
        for (let entry = tree.next(); entry !== undefined; entry = tree.next()) entries.push(entry.slice());
      } finally {
        tree.close();
      }
      expect(entries.map(hex)).toEqual(expected.map(hex));
    }
  } finally {
    for (const index of indexes) index.close();
  }
});

it('hands the arena of a closed tree to the next one, never one still in use, and refuses reads after close', () => {
  const { indexes, inputs } = twoAccountBuckets(tempDir('wasm-loser-tree-arena'), 400);
  const arenaOf = (tree: LoserTree) => (tree as unknown as { arena: unknown }).arena;
  const drain = (tree: LoserTree) => {
    const entries: string[] = [];
    for (let entry = tree.next(); entry !== undefined; entry = tree.next()) entries.push(hex(entry));
    return entries;
  };
  try {
    const reference = new LoserTree(inputs, { arena: false });
    const expected = drain(reference);
    reference.close();
    expect(expected.length).toBe(400);
    const first = new LoserTree(inputs);
    const arena = arenaOf(first);
    expect(arena).toBeDefined();
    expect(drain(first)).toEqual(expected);
    first.close();
    expect(() => first.next()).toThrow(AssertionError);
    const second = new LoserTree(inputs);
    expect(arenaOf(second)).toBe(arena);
    const third = new LoserTree(inputs);
    expect(arenaOf(third)).not.toBe(arena);
    // read in turns: neither tree may see the other's records
    const fromSecond: string[] = [];
    const fromThird: string[] = [];
    for (;;) {
      const a = second.next();
      const b = third.next();
      if (a !== undefined) fromSecond.push(hex(a));
      if (b !== undefined) fromThird.push(hex(b));
      if (a === undefined && b === undefined) break;
    }
    second.close();
    third.close();
    expect(fromSecond).toEqual(expected);
    expect(fromThird).toEqual(expected);
  } finally {
    for (const index of indexes) index.close();
  }
});
