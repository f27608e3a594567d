// One measurement of state-bytes.bench.ts, in a process of its own (run with --expose-gc): build `count` CONTRACT_DATA
// entries with their TTLs, ledger by ledger, into the SorobanState or into the baseline (a Map from the hex TTL key
// hash to { entry, liveUntil, lastModified }: one object, one Uint8Array and one string per entry), and report the
// heap + external bytes the structure holds per entry, after full collections, with the entries' mean XDR size.
import { hash } from 'node:crypto';
import { encodeLedgerEntry, type LedgerEntryData, ledgerEntryLayout } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';
import { SorobanState } from '../src/soroban-state/soroban-state.js';

export type StateKind = 'soroban-state' | 'map';

export interface BytesReport {
  count: number;
  meanXdrBytes: number;
  bytesPerEntry: number;
  /** SorobanState only: what its arenas and indexes allocate, per entry. */
  structuralBytesPerEntry: number;
}

const contract = { type: 'contract' as const, contractId: new Uint8Array(32).fill(0xc0) };
const account = (n: number, tag: number) => {
  const id = new Uint8Array(32).fill(tag);
  new DataView(id.buffer).setUint32(0, n);
  return { type: 'address' as const, value: { type: 'account' as const, accountId: id } };
};

/** A mix of shapes seen on the network: SAC balances, allowances, small counters, contract-instance-sized values. */
function dataEntry(n: number, random: () => number): Uint8Array {
  const roll = random();
  let key: LedgerEntryData;
  if (roll < 0.6) {
    key = {
      type: 'contractData',
      contract,
      durability: 'persistent',
      key: { type: 'vec', value: [{ type: 'symbol', value: 'Balance' }, account(n, 0xaa)] },
      val: {
        type: 'map',
        value: [
          [
            { type: 'symbol', value: 'amount' },
            { type: 'i128', value: BigInt(n) * 1_000_000n },
          ],
          [
            { type: 'symbol', value: 'authorized' },
            { type: 'bool', value: true },
          ],
          [
            { type: 'symbol', value: 'clawback' },
            { type: 'bool', value: false },
          ],
        ],
      },
    };
  } else if (roll < 0.85) {
    key = {
      type: 'contractData',
      contract,
      durability: 'temporary',
      key: {
        type: 'vec',
        value: [
          { type: 'symbol', value: 'Allowance' },
          {
            type: 'map',
            value: [
              [{ type: 'symbol', value: 'from' }, account(n, 0xab)],
              [{ type: 'symbol', value: 'spender' }, account(n, 0xac)],
            ],
          },
        ],
      },
      val: {
        type: 'map',
        value: [
          [
            { type: 'symbol', value: 'amount' },
            { type: 'i128', value: BigInt(n) },
          ],
          [
            { type: 'symbol', value: 'expiration_ledger' },
            { type: 'u32', value: n },
          ],
        ],
      },
    };
  } else if (roll < 0.95) {
    key = {
      type: 'contractData',
      contract,
      durability: 'persistent',
      key: { type: 'u32', value: n },
      val: { type: 'u64', value: BigInt(n) },
    };
  } else {
    key = {
      type: 'contractData',
      contract,
      durability: 'persistent',
      key: {
        type: 'vec',
        value: [
          { type: 'symbol', value: 'Blob' },
          { type: 'u32', value: n },
        ],
      },
      val: { type: 'bytes', value: new Uint8Array(500 + Math.floor(random() * 1000)).fill(n & 0xff) },
    };
  }
  return encodeLedgerEntry({ lastModifiedLedgerSeq: 10, data: key });
}

/** The TTL entry of a data entry (its key hash computed here with node:crypto, independently of the state). */
function ttlEntryOf(entry: Uint8Array, layout: Int32Array): Uint8Array {
  ledgerEntryLayout(entry, 0, layout);
  const key = new Uint8Array(4 + layout[2]! - layout[1]!);
  key.set(entry.subarray(4, 8), 0);
  key.set(entry.subarray(layout[1]!, layout[2]!), 4);
  const ttl = new Uint8Array(48);
  const view = new DataView(ttl.buffer);
  view.setUint32(0, 10);
  view.setUint32(4, 9);
  ttl.set(hash('sha256', key, 'buffer'), 8);
  view.setUint32(40, 100_000);
  return ttl;
}

/** The baseline: one Map entry, object, Uint8Array and string per entry. */
class MapState {
  readonly entries = new Map<string, { entry: Uint8Array; liveUntil: number; lastModified: number }>();
  private readonly layout = new Int32Array(4);
  add(entry: Uint8Array, ttl: Uint8Array): void {
    const layout = this.layout;
    ledgerEntryLayout(entry, 0, layout);
    const key = new Uint8Array(4 + layout[2]! - layout[1]!);
    key.set(entry.subarray(4, 8), 0);
    key.set(entry.subarray(layout[1]!, layout[2]!), 4);
    const id = hash('sha256', key, 'hex');
    const view = new DataView(ttl.buffer, ttl.byteOffset);
    this.entries.set(id, { entry: entry.slice(), liveUntil: view.getUint32(40), lastModified: view.getUint32(0) });
  }
}

function heldBytes(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with --expose-gc');
  collect();
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

export function measure(kind: StateKind, count: number, seed: number): BytesReport {
  const random = seededRandom(seed);
  const layout = new Int32Array(4);
  const perLedger = 10_000;
  let xdrBytes = 0;
  const before = heldBytes();
  const state = kind === 'soroban-state' ? new SorobanState({ ledgerSeq: 1 }) : undefined;
  const map = kind === 'map' ? new MapState() : undefined;
  for (let first = 0, ledger = 2; first < count; first += perLedger, ledger++) {
    const init: Uint8Array[] = [];
    for (let n = first; n < Math.min(count, first + perLedger); n++) {
      const entry = dataEntry(n, random);
      xdrBytes += entry.length;
      const ttl = ttlEntryOf(entry, layout);
      if (map !== undefined) map.add(entry, ttl);
      else init.push(entry, ttl);
    }
    state?.apply(
      { init, live: [], dead: [] },
      { ledgerSeq: ledger, protocolVersion: 23, memCostParams: new Uint8Array(4) },
    );
  }
  const held = heldBytes() - before;
  const size = state?.dataCount ?? map?.entries.size ?? 0;
  if (size !== count) throw new Error(`${kind} holds ${size} entries, expected ${count}`);
  return {
    count,
    meanXdrBytes: xdrBytes / count,
    bytesPerEntry: held / count,
    structuralBytesPerEntry: state === undefined ? Number.NaN : state.memory().totalBytes / count,
  };
}
