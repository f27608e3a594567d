// Shared by the hot-store tests: stores in temp dirs, generated ledgers of stored payloads, and an index rebuilt
// from the events table with deriveTerms (the oracle the store's own index is compared with).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkFirstLedger, deriveTerms, encodeContractEvent, encodePayload, termKeyHex } from '@strata/events';
import { seededRandom } from '@strata/test-kit/random';
import Database from 'better-sqlite3';
import fc from 'fast-check';

/** A directory removed by the returned cleanup (for harnesses that outlive one callback). */
export function scratchDir(prefix = 'hot'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `strata-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A symbol ScVal of `text`. */
export function symbol(text: string): Uint8Array {
  const bytes = new Uint8Array(8 + Math.ceil(text.length / 4) * 4);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 15);
  view.setUint32(4, text.length);
  bytes.set(new TextEncoder().encode(text), 8);
  return bytes;
}

/** A u32 ScVal. */
export function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 3);
  view.setUint32(4, value);
  return bytes;
}

export const TOPIC0 = ['transfer', 'mint', 'burn', 'fee', 'approve'].map(symbol);
export const CONTRACTS = Array.from({ length: 8 }, (_, i) => new Uint8Array(32).fill(i + 1));

/**
 * The stored payloads of `ledger` in a deterministic synthetic stream (seeded per ledger, so any process can
 * regenerate any ledger): minEvents..maxEvents events over a skewed vocabulary (few contracts and topic-0 symbols, topic 1
 * from a wider range, rare 5-topic and contract-less events), in event-id order.
 */
export function syntheticLedger(seed: number, ledger: number, maxEvents = 12, minEvents = 0): Uint8Array[] {
  const random = seededRandom(seed * 1_000_003 + ledger);
  const n = minEvents + Math.floor(random() * (maxEvents - minEvents + 1));
  const payloads: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() ** 2 * list.length)]!;
    const topicCount = random() < 0.05 ? 5 : Math.floor(random() * 4) + 1;
    const topics = [pick(TOPIC0)];
    for (let t = 1; t < topicCount; t++) topics.push(u32(Math.floor(random() * (t === 1 ? 200 : 8))));
    const contractId = random() < 0.05 ? undefined : pick(CONTRACTS);
    payloads.push(
      encodePayload({
        txHash: new Uint8Array(32).fill(ledger & 0xff),
        ledger,
        txIndex: 1 + Math.floor(i / 4),
        opIndex: 0,
        ledgerClosedAt: 1_700_000_000 + ledger * 5,
        eventIndex: i % 4,
        contractEvent: encodeContractEvent({
          ...(contractId === undefined ? {} : { contractId }),
          type: random() < 0.1 ? 0 : 1,
          topics,
          value: u32(i),
        }),
      }),
    );
  }
  return payloads;
}

/** The first ledger of chunk `chunkId`. */
export const firstLedgerOf = chunkFirstLedger;

/** The index the events table implies: every stored payload's terms, rebuilt from scratch with deriveTerms. */
export function indexFromEventsTable(path: string): Map<string, number[]> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const index = new Map<string, number[]>();
    const rows = db.prepare('SELECT ordinal, payload FROM events ORDER BY ordinal').raw().iterate() as IterableIterator<
      [number, Uint8Array]
    >;
    for (const [ordinal, payload] of rows) {
      for (const key of deriveTerms(payload)) {
        const hex = termKeyHex(key);
        let list = index.get(hex);
        if (list === undefined) {
          list = [];
          index.set(hex, list);
        }
        list.push(ordinal);
      }
    }
    return index;
  } finally {
    db.close();
  }
}

/** Map equality with a readable first difference. */
export function firstIndexDifference(a: Map<string, number[]>, b: Map<string, number[]>): string | undefined {
  if (a.size !== b.size) return `${a.size} terms vs ${b.size}`;
  for (const [key, list] of a) {
    const other = b.get(key);
    if (other === undefined) return `term ${key} missing`;
    if (other.length !== list.length || other.some((o, i) => o !== list[i])) return `term ${key} differs`;
  }
  return undefined;
}

/**
 * Ascending unique ordinals below `count`: up to `maxRuns` stretches of up to `maxRun` ordinals each from a random
 * start, some consecutive (a length divisible by 3) and some strided (1 + length % strideMod).
 */
export function ordinalSets(
  count: number,
  shape: { readonly maxRun: number; readonly maxRuns: number; readonly strideMod: number },
): fc.Arbitrary<number[]> {
  return fc
    .array(fc.tuple(fc.integer({ min: 0, max: count - 1 }), fc.integer({ min: 1, max: shape.maxRun })), {
      minLength: 1,
      maxLength: shape.maxRuns,
    })
    .map((runs) => {
      const set = new Set<number>();
      for (const [start, length] of runs) {
        const step = length % 3 === 0 ? 1 : 1 + (length % shape.strideMod);
        for (let i = 0; i < length && start + i * step < count; i++) set.add(start + i * step);
      }
      return [...set].sort((a, b) => a - b);
    });
}
