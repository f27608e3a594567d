// Random ledger histories of Soroban entries on a real BucketManager, closed the way stellar-core closes them: at each
// ledger N the eviction scan runs on the list as ledger N-1 left it, and its evictions are DEAD in ledger N's batch
// (archived in the hot archive from protocol 23). Each ledger's scan is handed to a checker with the oracle's inputs.
import { type BucketListSnapshot, BucketManager } from '@strata/bucket-list';
import { ttlKeyOf } from '@strata/ledger-key';
import { hex, seededRandom } from '@strata/test-kit';
import { type EvictionScanResult, type EvictionSettings, scanForEviction } from '../src/eviction/scan.js';
import type { EvictionIterator } from '../src/eviction/settings.js';
import { keyOf, type SorobanKind, sorobanEntry, ttlEntryOf } from './eviction-oracle.js';

export interface HistoryPlan {
  seed: number;
  /** Ledgers 1..ledgers are closed. */
  ledgers: number;
  /** Protocol of ledger 1, and from `upgradeLedger` on `upgradedProtocol`. */
  protocol: number;
  upgradeLedger: number;
  upgradedProtocol: number;
  /** Settings until `settingsLedger`, then `laterSettings` (an upgrade). */
  settings: EvictionSettings;
  settingsLedger: number;
  laterSettings: EvictionSettings;
  /** Most entries a ledger creates. */
  perLedger: number;
}

/** One ledger's scan: its inputs and the module's answer. */
export interface LedgerScan {
  snapshot: BucketListSnapshot;
  ledgerSeq: number;
  protocol: number;
  iterator: EvictionIterator;
  settings: EvictionSettings;
  /** TTL LedgerKeys (hex) ledger N modified. */
  ttlModified: Set<string>;
  result: EvictionScanResult;
}

interface ModelEntry {
  kind: SorobanKind;
  n: number;
  key: Uint8Array;
}

export const protocolAt = (plan: HistoryPlan, ledger: number): number =>
  ledger >= plan.upgradeLedger ? plan.upgradedProtocol : plan.protocol;
export const settingsAt = (plan: HistoryPlan, ledger: number): EvictionSettings =>
  ledger >= plan.settingsLedger ? plan.laterSettings : plan.settings;

/** Closes the plan's ledgers in a BucketManager in `dir`, calling `check` after each ledger's scan. */
export async function runHistory(dir: string, plan: HistoryPlan, check: (scan: LedgerScan) => void): Promise<void> {
  const random = seededRandom(plan.seed);
  const below = (n: number): number => Math.floor(random() * n);
  const manager = await BucketManager.open(dir, { create: true, merger: 'inline', fsync: false });
  // The model: the newest entry and TTL of every live key (what the lead's in-memory Soroban state holds).
  const entries = new Map<string, Uint8Array>();
  const ttls = new Map<string, number>();
  const known = new Map<string, ModelEntry>(); // every key ever created
  const gone: ModelEntry[] = []; // deleted or evicted keys, which may be created again
  let nextN = 0;
  let iterator: EvictionIterator = {
    bucketListLevel: plan.settings.startingEvictionScanLevel,
    isCurrBucket: true,
    bucketFileOffset: 0,
  };
  try {
    for (let ledger = 1; ledger <= plan.ledgers; ledger++) {
      const init: Uint8Array[] = [];
      const live: Uint8Array[] = [];
      const dead: Uint8Array[] = [];
      const touched = new Set<string>();
      const ttlModified = new Set<string>();
      const lifetime = (): number => ledger + below(12);
      // Creations: new keys, or keys deleted earlier.
      for (let c = below(plan.perLedger + 1); c > 0; c--) {
        let meta: ModelEntry;
        if (gone.length > 0 && random() < 0.2) meta = gone.splice(below(gone.length), 1)[0]!;
        else {
          const kind: SorobanKind = (['temporary', 'temporary', 'persistent', 'code'] as const)[below(4)]!;
          const n = nextN++;
          meta = { kind, n, key: keyOf(sorobanEntry(kind, n, 1)) };
          known.set(hex(meta.key), meta);
        }
        const id = hex(meta.key);
        if (touched.has(id)) continue;
        touched.add(id);
        const entry = sorobanEntry(meta.kind, meta.n, ledger, below(48));
        init.push(entry, ttlEntryOf(meta.key, lifetime(), ledger));
        ttlModified.add(hex(ttlKeyOf(meta.key)));
      }
      // Changes to existing keys: a new version with its TTL, a TTL bump, or a deletion (of both).
      const existing = [...entries.keys()];
      for (let c = below(3); c > 0 && existing.length > 0; c--) {
        const meta = known.get(existing[below(existing.length)]!)!;
        const id = hex(meta.key);
        if (touched.has(id)) continue;
        touched.add(id);
        ttlModified.add(hex(ttlKeyOf(meta.key)));
        const action = below(3);
        if (action === 0)
          live.push(sorobanEntry(meta.kind, meta.n, ledger, below(48)), ttlEntryOf(meta.key, lifetime(), ledger));
        else if (action === 1) live.push(ttlEntryOf(meta.key, lifetime(), ledger));
        else dead.push(meta.key, ttlKeyOf(meta.key));
      }

      const previousProtocol = protocolAt(plan, ledger - 1);
      let archived: readonly Uint8Array[] = [];
      if (ledger >= 2 && previousProtocol >= 20) {
        const snapshot = manager.snapshot();
        try {
          const settings = settingsAt(plan, ledger);
          const result = scanForEviction({
            snapshot,
            ledgerSeq: ledger,
            protocolVersion: previousProtocol,
            iterator,
            settings,
            liveUntilOf: (hash) => ttls.get(hex(hash)),
            ttlModified: (hash) => ttlModified.has(`00000009${hex(hash)}`),
            newestEntryOf: (key) => entries.get(hex(key)),
          });
          check({ snapshot, ledgerSeq: ledger, protocol: previousProtocol, iterator, settings, ttlModified, result });
          iterator = result.iterator;
          for (const { key, ttlKey } of result.evicted) dead.push(key, ttlKey);
          if (previousProtocol >= 23) archived = result.archivedEntries;
        } finally {
          snapshot.release();
        }
      }
      await manager.addLedger(ledger, protocolAt(plan, ledger), { init, live, dead }, { archived, restored: [] });

      // The model after ledger N.
      for (const entry of [...init, ...live]) {
        const key = keyOf(entry);
        if (key[3] === 9)
          ttls.set(hex(key.subarray(4)), new DataView(entry.buffer, entry.byteOffset).getUint32(entry.length - 8));
        else entries.set(hex(key), entry);
      }
      for (const key of dead) {
        if (key[3] === 9) ttls.delete(hex(key.subarray(4)));
        else if (entries.delete(hex(key))) gone.push(known.get(hex(key))!);
      }
    }
  } finally {
    await manager.close();
  }
}
