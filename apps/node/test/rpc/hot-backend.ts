// A test RpcBackend over a real @strata/hot-store chunk of synthetic events, with the events kept as the oracle, and
// a gate that can hold chunk opens (to fill the server's queue or run past its timeout deterministically).
import { join } from 'node:path';
import { StrKey } from '@stellar/stellar-base';
import { chunkIdOfLedger, encodeContractEvent, encodePayload, formatEventId } from '@strata/events';
import { HotStore } from '@strata/hot-store';
import type { RpcBackend } from '../../src/rpc/index.js';

export const PASSPHRASE = 'Strata RPC test network ; 2026';
export const CONTRACTS = [new Uint8Array(32).fill(0xc1), new Uint8Array(32).fill(0xc2)];
export const NAMES = ['transfer', 'mint', 'burn'] as const;

/** ScVal Symbol XDR. */
export function symbol(text: string): Uint8Array {
  const bytes = new Uint8Array(8 + Math.ceil(text.length / 4) * 4);
  new DataView(bytes.buffer).setUint32(0, 15);
  new DataView(bytes.buffer).setUint32(4, text.length);
  bytes.set(new TextEncoder().encode(text), 8);
  return bytes;
}

/** ScVal U32 XDR. */
export function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setUint32(0, 3);
  new DataView(bytes.buffer).setUint32(4, value);
  return bytes;
}

export interface OracleEvent {
  id: string;
  ledger: number;
  contractId: string;
  type: 'contract' | 'system';
  topic: string[];
  value: string;
  closeTime: number;
}

export interface HotBackend {
  backend: RpcBackend;
  /** The chunk file and id (what an events worker opens: worker-chunks.ts). */
  path: string;
  chunkId: number;
  events: OracleEvent[];
  firstLedger: number;
  latestLedger: number;
  /** Holds every openChunk until the returned function is called. */
  hold(): () => void;
  close(): void;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** `ledgers` ledgers from `firstLedger`, a deterministic mix of 0..4 events each over two contracts and three names. */
export function hotBackend(dir: string, firstLedger = 2, ledgers = 60): HotBackend {
  const chunkId = chunkIdOfLedger(firstLedger);
  const path = join(dir, `${chunkId}.db`);
  const store = HotStore.open(path, { chunkId, create: true });
  const events: OracleEvent[] = [];
  let n = 0;
  for (let ledger = firstLedger; ledger < firstLedger + ledgers; ledger++) {
    const payloads: Uint8Array[] = [];
    const count = (ledger * 7) % 5;
    for (let i = 0; i < count; i++, n++) {
      const contract = CONTRACTS[n % 2]!;
      const type = n % 11 === 0 ? 0 : 1;
      const topics = n % 3 === 2 ? [symbol(NAMES[n % 3]!)] : [symbol(NAMES[n % 3]!), u32(n % 4)];
      const value = u32(n);
      const tx = 1 + Math.floor(i / 2);
      const op = i % 2;
      const closeTime = 1_700_000_000 + ledger * 5;
      payloads.push(
        encodePayload({
          txHash: new Uint8Array(32).fill(n % 256),
          ledger,
          txIndex: tx,
          opIndex: op,
          ledgerClosedAt: closeTime,
          eventIndex: i,
          contractEvent: encodeContractEvent({ contractId: contract, type, topics, value }),
        }),
      );
      events.push({
        id: formatEventId({ ledger, tx, op, event: i }),
        ledger,
        contractId: StrKey.encodeContract(Buffer.from(contract)),
        type: type === 0 ? 'system' : 'contract',
        topic: topics.map(b64),
        value: b64(value),
        closeTime,
      });
    }
    store.ingestLedger(ledger, payloads);
  }
  const latestLedger = firstLedger + ledgers - 1;
  let gate: Promise<void> | undefined;
  const reader = store.reader();
  const backend: RpcBackend = {
    networkPassphrase: PASSPHRASE,
    protocolVersion: () => 23,
    servedRange: () => ({
      oldestLedger: firstLedger,
      oldestLedgerCloseTime: 1_700_000_000 + firstLedger * 5,
      latestLedger,
      latestLedgerCloseTime: 1_700_000_000 + latestLedger * 5,
    }),
    latestLedger: () => undefined,
    openChunk: async () => {
      if (gate !== undefined) await gate;
      return { tier: 'hot', reader };
    },
    chunkCounts: () => ({ hot: 1, cold: 0 }),
    ledgerEntries: (keys) => ({ latestLedger, entries: keys.map(() => undefined) }),
  };
  return {
    backend,
    path,
    chunkId,
    events,
    firstLedger,
    latestLedger,
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    close: () => store.close(),
  };
}
