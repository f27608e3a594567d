// The pubnet-like ledgers apply.bench.ts applies: @strata/ledger-meta's generateNetwork, from ledger 2 on a test
// genesis at protocol 23, with each ledger's evictedKeys replaced by the ones stellar-core's eviction scan gives.
//
// Why the rewrite: the generator evicts every TEMPORARY entry as soon as its TTL lapses (up to 1,000 a ledger), a
// model of its own; stellar-core evicts what its incremental scan of the BucketList finds (evictionScanSize bytes a
// ledger from the stored iterator), and LedgerState checks the meta's evictedKeys against that scan
// (EVICTION_MISMATCH — not a header check, so `verify: false` does not lift it). The meta stellar-core would write
// for the generated transactions carries the scan's keys, so that is what this module writes: it applies each
// ledger to a LedgerState of its own, runs the scan on that state as the ledger would (scanForEviction), puts the
// keys into the ledger's evictedKeys (the last field of LedgerCloseMetaV2) and applies the result — LedgerState's
// own scan then checks the rewrite. An entry the scan has not reached yet stays live, as on a node; the generator
// never touches an entry again after evicting it, so the rest of its ledgers stay consistent.
//
// The genesis: the test network's ledger 1 (genesisEntries) on the generator's passphrase, with the eviction
// parameters of testnet/pubnet (500 kB scanned a ledger, at most 1,000 entries) but starting at level 1 instead of
// 7 — a network of a few hundred ledgers has nothing below level 4, and the scan should read its 500 kB a ledger as
// a pubnet node's does. Everything else the generated ledgers need (the root account that funds the others, trust
// lines, Soroban entries and their TTLs) they create themselves; the genesis root account is simply not used.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  extractLedger,
  type GeneratorOptions,
  generateNetwork,
  SYNTHETIC_NETWORK_PASSPHRASE,
} from '@strata/ledger-meta';
import { withScannedEvictions } from '../src/eviction/scanned-evictions.js';
import { genesisEntries } from '../src/genesis/index.js';
import { type GenesisLedger, LedgerState } from '../src/ledger-state.js';

export const APPLY_PROTOCOL = 23;

/** The eviction parameters of the genesis (see the header): testnet/pubnet's budget, scanning from level 1. */
export const APPLY_EVICTION_PARAMS = { scanSize: 500_000, maxEntriesToArchive: 1_000, startingScanLevel: 1 } as const;

/** Ledger 1 of the network the generated ledgers continue. */
export function applyGenesis(): GenesisLedger {
  const networkPassphrase = SYNTHETIC_NETWORK_PASSPHRASE;
  return {
    networkPassphrase,
    protocolVersion: APPLY_PROTOCOL,
    entries: genesisEntries({
      networkPassphrase,
      protocolVersion: APPLY_PROTOCOL,
      config: { evictionParams: APPLY_EVICTION_PARAMS },
    }),
  };
}

export interface PubnetLikeLedgers {
  /** LedgerCloseMeta XDR of ledgers 2, 3, …, evictedKeys as the scan gives them. */
  readonly lcms: Uint8Array[];
  /** Means per ledger, over every ledger but the first (which only creates the root account). */
  readonly changesPerLedger: number;
  readonly eventsPerLedger: number;
  readonly evictedKeysPerLedger: number;
  /** Keys the generator evicted that the scan did not (yet): they stay live. */
  readonly evictionsDeferred: number;
  readonly bytesPerLedger: number;
}

/** Generates `options.ledgers` ledgers from ledger 2 and rewrites their evictions (see the header); minutes for thousands. */
export async function pubnetLikeLedgers(
  options: Omit<GeneratorOptions, 'startLedger' | 'protocolVersion' | 'networkPassphrase' | 'record'>,
): Promise<PubnetLikeLedgers> {
  const genesis = applyGenesis();
  const dir = await mkdtemp(join(tmpdir(), 'strata-bench-apply-data-'));
  const state = await LedgerState.create(dir, genesis, { verify: false, fsync: false, merger: 'inline' });
  const lcms: Uint8Array[] = [];
  let changes = 0;
  let events = 0;
  let evictedKeys = 0;
  let generatorEvicted = 0;
  let bytes = 0;
  try {
    for (const generated of generateNetwork({
      ...options,
      startLedger: 2,
      protocolVersion: APPLY_PROTOCOL,
      networkPassphrase: genesis.networkPassphrase,
      record: false,
    })) {
      const original = extractLedger(generated.lcm);
      const lcm = withScannedEvictions(state, generated.lcm, original);
      await state.apply(lcm);
      lcms.push(lcm);
      if (generated.sequence === 2) continue;
      const extract = extractLedger(lcm);
      const keys = extract.evictedKeys;
      changes += extract.changes.init.length + extract.changes.live.length + extract.changes.dead.length;
      events += extract.events.length;
      evictedKeys += keys.length;
      generatorEvicted += original.evictedKeys.length;
      bytes += lcm.length;
    }
  } finally {
    await state.close();
    await rm(dir, { recursive: true, force: true });
  }
  const counted = Math.max(1, lcms.length - 1);
  return {
    lcms,
    changesPerLedger: changes / counted,
    eventsPerLedger: events / counted,
    evictedKeysPerLedger: evictedKeys / counted,
    evictionsDeferred: generatorEvicted - evictedKeys,
    bytesPerLedger: bytes / counted,
  };
}
