// hotTermOrdinals against the old derivation (every stored payload's terms, deriveTerms over the events table):
// the same terms with the same ordinals, for the store's own reader and a worker reader, across sealed slabs
// (sealed blobs reloaded into sparse runs and bitmaps) and an open slab, with dense (promoted) and sparse terms; a
// snapshot below the reader's count leaves out the ordinals and terms past it; bad arguments are refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeContractEvent, encodePayload, TERM_KEY_BYTES } from '@strata/events';
import { afterAll, describe, expect, it } from 'vitest';
import { HotStore, HotStoreError, type HotTermOrdinals, hotTermOrdinals, openHotReader } from '../src/index.js';
import {
  CONTRACTS,
  firstIndexDifference,
  firstLedgerOf,
  indexFromEventsTable,
  syntheticLedger,
  TOPIC0,
  u32,
} from './support.js';

const CHUNK = 31;
const FIRST = firstLedgerOf(CHUNK);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-term-ordinals-'));
  dirs.push(dir);
  return join(dir, 'chunk.db');
}

/**
 * A ledger of dense terms (syntheticLedger's small vocabulary, promoted to bitmaps) and sparse ones: a topic value
 * unique to each of a few events, and one shared by the events of ten ledgers.
 */
function mixedLedger(ledger: number): Uint8Array[] {
  const payloads = syntheticLedger(4, ledger, 3_000, 2_000);
  for (let i = 0; i < 4; i++) {
    payloads.push(
      encodePayload({
        txHash: new Uint8Array(32).fill(7),
        ledger,
        txIndex: 4_000, // after the synthetic events (event-id order)
        opIndex: 0,
        ledgerClosedAt: 1_700_000_000,
        eventIndex: i,
        contractEvent: encodeContractEvent({
          contractId: CONTRACTS[i]!,
          type: 1,
          topics: [TOPIC0[0]!, u32(1_000_000 + ledger * 4 + i), u32(2_000_000 + Math.floor(ledger / 10))],
          value: u32(i),
        }),
      }),
    );
  }
  return payloads;
}

/** The lists as the oracle's map: hex key → ordinals; a list empty, out of order, past the window or twice: thrown. */
function asMap(lists: HotTermOrdinals): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const key = new Uint8Array(TERM_KEY_BYTES + 3);
  for (let t = 0; t < lists.termCount; t++) {
    lists.keyInto(t, key, 3);
    const ordinals = Array.from(lists.ordinals(t));
    const hex = Buffer.from(key.subarray(3)).toString('hex');
    const bad =
      ordinals.length === 0 ||
      ordinals[ordinals.length - 1]! >= lists.eventCount ||
      ordinals.some((o, i) => i > 0 && o <= ordinals[i - 1]!) ||
      out.has(hex);
    if (bad) throw new Error(`term ${t} (${hex}): a bad list ${ordinals.slice(0, 8).join(',')}`);
    out.set(hex, ordinals);
  }
  return out;
}

/** The oracle cut to ordinals below `end`, terms left with none dropped. */
function below(index: Map<string, number[]>, end: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [key, list] of index) {
    const kept = list.filter((o) => o < end);
    if (kept.length > 0) out.set(key, kept);
  }
  return out;
}

describe('hotTermOrdinals', () => {
  it('equals the terms derived from the stored payloads, across sealed slabs, for both kinds of reader', async () => {
    const path = tempPath();
    const store = HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
    let ledger = FIRST;
    // Past one full slab (65,536 events): a sealed slab, then an open one.
    while (store.eventCount < 80_000) store.ingestLedger(ledger, mixedLedger(ledger++));
    store.ingestLedger(ledger++, []); // seals the full slab
    const oracle = indexFromEventsTable(path);
    const own = hotTermOrdinals(store.reader());
    expect(own.eventCount).toBe(store.eventCount);
    expect(firstIndexDifference(asMap(own), oracle)).toBeUndefined();
    // Some terms were promoted to bitmaps, most are sparse runs: both kinds are read.
    const sizes = [...oracle.values()].map((list) => list.length);
    expect(Math.max(...sizes)).toBeGreaterThan(64);
    expect(Math.min(...sizes)).toBeLessThanOrEqual(64);

    // A worker reader rebuilds its index from the sealed blob and the open slab's events.
    const worker = openHotReader(path, { chunkId: CHUNK });
    try {
      expect(firstIndexDifference(asMap(hotTermOrdinals(worker)), oracle)).toBeUndefined();
      // Below the reader's count: ordinals past the snapshot and terms with only those are left out.
      for (const end of [0, 1, 65_536, 70_001]) {
        const cut = hotTermOrdinals(worker, end);
        expect(cut.eventCount).toBe(end);
        expect(firstIndexDifference(asMap(cut), below(oracle, end))).toBeUndefined();
      }
    } finally {
      await worker.close();
      store.close();
    }
  });

  it('refuses what is not a hot reader, a count past the reader, a term outside the lists, a short key buffer', async () => {
    const path = tempPath();
    const store = HotStore.open(path, { chunkId: CHUNK, create: true, synchronous: 'normal' });
    try {
      store.ingestLedger(FIRST, syntheticLedger(1, FIRST, 12, 4));
      const reader = store.reader();
      const code = (fn: () => unknown) => {
        try {
          fn();
        } catch (error) {
          expect(error).toBeInstanceOf(HotStoreError);
          return (error as HotStoreError).code;
        }
        return 'no error';
      };
      expect(code(() => hotTermOrdinals({} as never))).toBe('INVALID_ARGUMENT');
      expect(code(() => hotTermOrdinals(reader, store.eventCount + 1))).toBe('INVALID_ARGUMENT');
      expect(code(() => hotTermOrdinals(reader, -1))).toBe('INVALID_ARGUMENT');
      const lists = hotTermOrdinals(reader);
      expect(code(() => lists.ordinals(lists.termCount))).toBe('INVALID_ARGUMENT');
      expect(code(() => lists.keyInto(0, new Uint8Array(15), 0))).toBe('INVALID_ARGUMENT');
      await reader.close();
      expect(code(() => hotTermOrdinals(reader))).toBe('CLOSED');
    } finally {
      store.close();
    }
  });
});
