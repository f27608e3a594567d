// Collects every ledger key and ledger entry that appears in the stellar-core-lcm fixture streams, decoding each
// LedgerCloseMeta with @stellar/stellar-base (the oracle's decoder, not the engine). Used by the fixtures
// integration test and the benchmark.
//
// Rather than naming every path (fee processing, tx meta v0..v4 before/operations/after, post-apply fees, upgrade
// meta, evicted keys, Soroban footprints in the tx set...), it walks the whole decoded js-xdr tree and takes every
// `LedgerKey` and `LedgerEntry` it meets, plus the encoded keys inside FROZEN_LEDGER_KEYS config settings. The walk
// reads js-xdr's internal layout (`_attributes` of structs, `_value` of unions), which is stable across js-xdr 3/4.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';
import { lcmFixtureStreams } from '@strata/test-kit';
import { keyOfEntry } from './oracle.js';

export interface LcmKeyHarvest {
  /** Distinct XDR LedgerKeys (deduplicated by bytes), in first-seen order. */
  keys: Uint8Array[];
  /** Distinct XDR LedgerEntries (deduplicated by bytes), in first-seen order. */
  entries: Uint8Array[];
  /** Stream files read. */
  files: number;
  /** LedgerCloseMeta records stellar-base decoded. */
  decodedRecords: number;
  /** Records it could not decode (XDR newer than stellar-base 15), skipped. */
  skippedRecords: number;
  /** Why records were skipped, with counts. */
  skipReasons: Map<string, number>;
  /** LedgerEntryChange arms seen (ledgerEntryCreated, ...Removed, ...State, ...Restored), before deduplication. */
  changeKinds: Map<string, number>;
  /** Where keys were found, before deduplication: `change`, `entry`, `key` (a LedgerKey value), `frozen`. */
  sources: Map<string, number>;
}

/** Splits one stream into its records: a 4-byte big-endian record mark (top bit set, low 31 bits = length). */
export function* lcmRecords(stream: Buffer): Generator<Buffer> {
  let offset = 0;
  while (offset + 4 <= stream.length) {
    const mark = stream.readUInt32BE(offset);
    if ((mark & 0x80000000) === 0) throw new Error(`record mark without its top bit at offset ${offset}`);
    const length = mark & 0x7fffffff;
    offset += 4;
    if (offset + length > stream.length) throw new Error(`record at ${offset} runs past the end of the stream`);
    yield stream.subarray(offset, offset + length);
    offset += length;
  }
}

interface XdrNode {
  constructor: { structName?: string; unionName?: string };
  _attributes?: Record<string, unknown>;
  _value?: unknown;
}

const count = (map: Map<string, number>, name: string): void => {
  map.set(name, (map.get(name) ?? 0) + 1);
};

/**
 * Reads the streams and collects their keys and entries. `maxRecordsPerFile` caps the records decoded per
 * file (deterministic sampling, should the full walk ever become too slow); undefined reads everything.
 */
export function harvestLcmKeys(maxRecordsPerFile?: number): LcmKeyHarvest {
  const keys = new Map<string, Uint8Array>();
  const entries = new Map<string, Uint8Array>();
  const harvest: LcmKeyHarvest = {
    keys: [],
    entries: [],
    files: 0,
    decodedRecords: 0,
    skippedRecords: 0,
    skipReasons: new Map(),
    changeKinds: new Map(),
    sources: new Map(),
  };
  const addKeyBytes = (bytes: Buffer, source: string): void => {
    count(harvest.sources, source);
    const id = bytes.toString('base64');
    if (!keys.has(id)) keys.set(id, new Uint8Array(bytes));
  };
  const addEntry = (entry: xdr.LedgerEntry): void => {
    const bytes = entry.toXDR();
    const id = bytes.toString('base64');
    if (!entries.has(id)) entries.set(id, new Uint8Array(bytes));
    addKeyBytes(keyOfEntry(entry).toXDR(), 'entry');
  };

  const walk = (value: unknown): void => {
    if (value === null || value === undefined || typeof value !== 'object' || Buffer.isBuffer(value)) return;
    if (Array.isArray(value)) {
      for (const element of value) walk(element);
      return;
    }
    const node = value as XdrNode;
    const type = node.constructor.structName ?? node.constructor.unionName;
    switch (type) {
      case 'LedgerKey':
        addKeyBytes((value as xdr.LedgerKey).toXDR(), 'key');
        return;
      case 'LedgerEntry':
        // And walk on: a FROZEN_LEDGER_KEYS config-setting entry carries keys.
        addEntry(value as xdr.LedgerEntry);
        break;
      case 'LedgerEntryChange':
        count(harvest.changeKinds, (value as xdr.LedgerEntryChange).switch().name);
        break;
      case 'FrozenLedgerKeys':
      case 'FrozenLedgerKeysDelta':
        // EncodedLedgerKey is opaque<>: XDR LedgerKeys carried as bytes.
        for (const list of Object.values(node._attributes ?? {})) {
          for (const encoded of list as Buffer[]) {
            try {
              addKeyBytes(xdr.LedgerKey.fromXDR(encoded).toXDR(), 'frozen');
            } catch {
              count(harvest.sources, 'frozen-undecodable');
            }
          }
        }
        return;
      default:
    }
    if (node._attributes !== undefined) for (const field of Object.values(node._attributes)) walk(field);
    if (node._value !== undefined) walk(node._value);
  };

  for (const file of lcmFixtureStreams()) {
    harvest.files++;
    let records = 0;
    for (const record of lcmRecords(readFileSync(file))) {
      if (maxRecordsPerFile !== undefined && records++ >= maxRecordsPerFile) break;
      let meta: xdr.LedgerCloseMeta;
      try {
        meta = xdr.LedgerCloseMeta.fromXDR(record);
      } catch (error) {
        harvest.skippedRecords++;
        count(harvest.skipReasons, (error as Error).message.slice(0, 80));
        continue;
      }
      harvest.decodedRecords++;
      walk(meta);
    }
  }
  harvest.keys = [...keys.values()];
  harvest.entries = [...entries.values()];
  return harvest;
}
