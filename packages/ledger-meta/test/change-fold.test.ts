// The fold rules of LedgerChangeFold on hand-built change sequences: (1) created then removed → nothing; (2) state
// then updated → live with the newest value; (3) state then removed → dead; (4) created then updated → init with the
// newest value; (5) removed then created again → live; (6) restored → live by default, init when `wasLive` says
// the entry was not in the live state; (7) an eviction after nothing else → dead; (8) no key in two lists, lists in key
// order; (9) a key reached through its words and its bytes is one key, and phases order changes read out of order;
// (10) the extractor path's sort of validated keys (packed prefix, comparator for ties) is compareLedgerKeys order;
// (11) with the ledger's sequence a RESTORED entry not written in the ledger is a read (spec ledger-state-replay.md
// §3.1); (12) a TTL keeps the largest of its UPDATED values since its last create, remove or restore (§3.2).
// (Event ids and TOIDs: event-id.property.test.ts.)
import { compareLedgerKeys, encodeLedgerEntry, encodeLedgerKey, ledgerKeyOfEntry } from '@strata/ledger-key';
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_ENTRY_CHANGE, LedgerChangeFold } from '../src/index.js';

const { CREATED, UPDATED, REMOVED, STATE, RESTORED } = LEDGER_ENTRY_CHANGE;

/** A TTL entry: the smallest LedgerEntry; `byte` picks the key, `liveUntil` stands for the value. */
function ttlEntry(byte: number, liveUntil: bigint): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: 7,
    data: { type: 'ttl', keyHash: new Uint8Array(32).fill(byte), liveUntilLedgerSeq: Number(liveUntil) },
  });
}

function fold(changes: [number, Uint8Array][], wasLive?: (key: Uint8Array) => boolean) {
  const changeFold = new LedgerChangeFold(wasLive === undefined ? {} : { wasLive });
  for (const [kind, value] of changes) {
    const isKey = kind === REMOVED;
    changeFold.observe(kind as 0, isKey ? value : ledgerKeyOfEntry(value), isKey ? null : value);
  }
  return changeFold.finish();
}

const a1 = ttlEntry(1, 100n);
const a1b = ttlEntry(1, 200n);
const a1c = ttlEntry(1, 300n);
const keyA1 = ledgerKeyOfEntry(a1);

describe('LedgerChangeFold', () => {
  it('created then removed leaves nothing', () => {
    expect(
      fold([
        [CREATED, a1],
        [REMOVED, keyA1],
      ]),
    ).toEqual({ init: [], live: [], dead: [] });
  });
  it('state then updated is live with the newest value', () => {
    expect(
      fold([
        [STATE, a1],
        [UPDATED, a1b],
        [STATE, a1b],
        [UPDATED, a1c],
      ]),
    ).toEqual({ init: [], live: [a1c], dead: [] });
  });
  it('state then removed is dead', () => {
    expect(
      fold([
        [STATE, a1],
        [REMOVED, keyA1],
      ]),
    ).toEqual({ init: [], live: [], dead: [keyA1] });
  });
  it('created then updated is init with the newest value', () => {
    expect(
      fold([
        [CREATED, a1],
        [STATE, a1],
        [UPDATED, a1b],
      ]),
    ).toEqual({ init: [a1b], live: [], dead: [] });
  });
  it('removed then created again is live', () => {
    expect(
      fold([
        [STATE, a1],
        [REMOVED, keyA1],
        [CREATED, a1b],
      ]),
    ).toEqual({ init: [], live: [a1b], dead: [] });
  });
  it('restored is live by default (safe), init when wasLive says it came back from the archive', () => {
    expect(fold([[RESTORED, a1]])).toEqual({ init: [], live: [a1], dead: [] });
    expect(fold([[RESTORED, a1]], () => false)).toEqual({ init: [a1], live: [], dead: [] });
    expect(
      fold(
        [
          [RESTORED, a1],
          [UPDATED, a1b],
        ],
        () => true,
      ),
    ).toEqual({ init: [], live: [a1b], dead: [] });
    // Restored then removed: a tombstone when the entry may have been live (default), nothing when it came back
    // from the archive within this ledger.
    expect(
      fold([
        [RESTORED, a1],
        [REMOVED, keyA1],
      ]),
    ).toEqual({ init: [], live: [], dead: [keyA1] });
    expect(
      fold(
        [
          [RESTORED, a1],
          [REMOVED, keyA1],
        ],
        () => false,
      ),
    ).toEqual({ init: [], live: [], dead: [] });
  });
  it('with ledgerSeq, a RESTORED entry the ledger did not write (older lastModifiedLedgerSeq) is a read', () => {
    // a1 carries lastModifiedLedgerSeq 7: at ledger 8 its RESTORED restates an expired entry that stayed live.
    const atLedger = (ledgerSeq: number, changes: [number, Uint8Array][]) => {
      const changeFold = new LedgerChangeFold({ ledgerSeq, wasLive: () => false });
      for (const [kind, entry] of changes) changeFold.observe(kind as 0, ledgerKeyOfEntry(entry), entry);
      return { batch: changeFold.finish(), restored: changeFold.archiveRestores() };
    };
    expect(atLedger(8, [[RESTORED, a1]])).toEqual({ batch: { init: [], live: [], dead: [] }, restored: [] });
    // A later write still counts, as an update of the entry that was there.
    expect(
      atLedger(8, [
        [RESTORED, a1],
        [UPDATED, a1b],
      ]).batch,
    ).toEqual({ init: [], live: [a1b], dead: [] });
    // Written in this ledger (lastModifiedLedgerSeq 7 at ledger 7): a restore from the hot archive.
    expect(atLedger(7, [[RESTORED, a1]])).toEqual({ batch: { init: [a1], live: [], dead: [] }, restored: [keyA1] });
    // Restored from the archive and deleted again: nothing in the live batch, but still restored in the archive.
    const restoredThenRemoved = new LedgerChangeFold({ ledgerSeq: 7, wasLive: () => false });
    restoredThenRemoved.observe(RESTORED, keyA1, a1);
    restoredThenRemoved.observe(REMOVED, keyA1, null);
    expect(restoredThenRemoved.finish()).toEqual({ init: [], live: [], dead: [] });
    expect(restoredThenRemoved.archiveRestores()).toEqual([keyA1]);
  });
  it('corrections off: the literal net effect of the meta', () => {
    const literal = new LedgerChangeFold({ ledgerSeq: 8, corrections: { restoreReads: false, maxTtlBumps: false } });
    literal.observe(RESTORED, keyA1, a1);
    literal.observe(UPDATED, keyA1, a1c);
    literal.observe(UPDATED, keyA1, a1b);
    expect(literal.finish()).toEqual({ init: [], live: [a1b], dead: [] });
    expect(() => new LedgerChangeFold({ corrections: { maxTtlBumps: 1 as never } })).toThrow(/corrections.maxTtlBumps/);
  });
  it('a TTL keeps the largest UPDATED liveUntilLedgerSeq since its last create, remove or restore', () => {
    // Parallel read-only bumps listed in meta order 300, then 200: stellar-core commits 300.
    expect(
      fold([
        [STATE, a1],
        [UPDATED, a1c],
        [STATE, a1],
        [UPDATED, a1b],
      ]),
    ).toEqual({ init: [], live: [a1c], dead: [] });
    // After a remove and a create the count starts again: the created value stands, then a lower update is taken.
    expect(
      fold([
        [STATE, a1],
        [UPDATED, a1c],
        [REMOVED, keyA1],
        [CREATED, a1],
      ]),
    ).toEqual({ init: [], live: [a1], dead: [] });
    expect(
      fold([
        [RESTORED, a1c],
        [UPDATED, a1b],
      ]),
    ).toEqual({ init: [], live: [a1b], dead: [] });
  });
  it('an evicted key is dead', () => {
    const ttlKey = encodeLedgerKey({ type: 'ttl', keyHash: new Uint8Array(32).fill(9) });
    expect(fold([[REMOVED, ttlKey]])).toEqual({ init: [], live: [], dead: [ttlKey] });
  });
  it('finds a key the same way through its words (extractor) and its bytes (observe), and phases order changes', () => {
    // One buffer holding two TTL keys 4-aligned: the extractor's path reads their fields as 32-bit words. The key
    // hashes are not uniform bytes, so a byte path that composed its words in another byte order would miss them.
    const ttl = (seed: number, liveUntil: number) =>
      encodeLedgerEntry({
        lastModifiedLedgerSeq: 7,
        data: {
          type: 'ttl',
          keyHash: Uint8Array.from({ length: 32 }, (_, i) => seed * 37 + i),
          liveUntilLedgerSeq: liveUntil,
        },
      });
    const keyA = ledgerKeyOfEntry(ttl(1, 10));
    const keyB = ledgerKeyOfEntry(ttl(2, 10));
    const source = new Uint8Array(keyA.length + keyB.length);
    source.set(keyA, 0);
    source.set(keyB, keyA.length);
    const changeFold = new LedgerChangeFold();
    changeFold.useWordSource(source);
    // Read in the order txProcessing holds them: an apply change (phase 1) before a fee change (phase 0) it follows.
    changeFold.observePhased(1, UPDATED, 9, source, 4, keyA.length, null, ttl(1, 30));
    changeFold.observePhased(0, CREATED, 9, source, 4, keyA.length, null, ttl(1, 20));
    changeFold.observePhased(0, STATE, 9, source, keyA.length + 4, source.length, null, ttl(2, 10));
    // The same keys through the byte path (copies, hashed: neither is the previous change's key): no second fate.
    changeFold.observe(STATE, keyA.slice(), ttl(1, 20));
    changeFold.observe(REMOVED, keyB.slice(), null);
    expect(changeFold.finish()).toEqual({ init: [ttl(1, 30)], live: [], dead: [keyB] });
  });
  it('puts each key in one list, each list in key order', () => {
    const entries = [5, 3, 9, 1].map((byte) => ttlEntry(byte, 10n));
    const batch = fold([
      ...entries.map((entry): [number, Uint8Array] => [CREATED, entry]),
      [STATE, ttlEntry(7, 1n)],
      [REMOVED, ledgerKeyOfEntry(ttlEntry(7, 1n))],
    ]);
    expect(batch.init).toEqual([1, 3, 5, 9].map((byte) => ttlEntry(byte, 10n)));
    expect(batch.dead).toEqual([ledgerKeyOfEntry(ttlEntry(7, 1n))]);
  });
});

describe('LedgerChangeFold key order of the extractor path', () => {
  // The extractor's keys are validated, so byte-ordered types are sorted by their packed first differing word (top
  // bits and index in a Uint32Array) with a byte comparator for ties: the batch must still be in compareLedgerKeys
  // order, also for many keys that share long prefixes (ties of the packed bits) and for tables of every size.
  it('sorts validated keys as compareLedgerKeys does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 2000 }),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (count, sharedBytes, seed) => {
          let state = seed;
          const next = () => {
            state = (Math.imul(state, 1103515245) + 12345) >>> 0;
            return state >>> 24;
          };
          const entries = new Map<string, Uint8Array>();
          for (let i = 0; i < count; i++) {
            const keyHash = Uint8Array.from({ length: 32 }, (_, b) => (b < sharedBytes ? 0x5a : next()));
            const entry = encodeLedgerEntry({
              lastModifiedLedgerSeq: 1,
              data: { type: 'ttl', keyHash, liveUntilLedgerSeq: i },
            });
            entries.set(Buffer.from(keyHash).toString('hex'), entry);
          }
          const changeFold = new LedgerChangeFold();
          const keyed = [...entries.values()].map((entry) => ({ entry, key: ledgerKeyOfEntry(entry) }));
          for (const { entry, key } of keyed) changeFold.observePhased(0, CREATED, 9, key, 4, key.length, key, entry);
          const expected = keyed.sort((a, b) => compareLedgerKeys(a.key, b.key)).map(({ entry }) => entry);
          expect(changeFold.finish().init).toEqual(expected);
        },
      ),
      propertyParams({ numRuns: 25 }),
    );
  });
});
