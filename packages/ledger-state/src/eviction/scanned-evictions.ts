// Synthetic sources' evictions made stellar-core's: a generator (@strata/ledger-meta's generateNetwork) evicts each
// TEMPORARY entry as soon as its TTL lapses, a model of its own; stellar-core evicts what its incremental scan of the
// BucketList finds, and LedgerState checks a ledger's evictedKeys against that scan (EVICTION_MISMATCH, not a
// header check: `verify: false` does not lift it). withScannedEvictions rewrites a generated ledger's evictedKeys to
// what the scan finds on the state the ledger is about to be applied to, the scan as LedgerState runs it; the
// state's own scan then checks the rewrite. An entry the scan has not reached yet stays live, as on a node.
import { assert } from '@strata/base';
import { CONFIG_SETTING_ID, LEDGER_ENTRY_TYPE, ledgerKeyOfEntry, readU32 } from '@strata/ledger-key';
import { extractLedger, type LedgerExtract } from '@strata/ledger-meta';
import { bytesOf, invalidArgument } from '../arguments.js';
import { ConfigSettings } from '../config-settings.js';
import { LedgerState, wrap } from '../ledger-state.js';
import { scanForEviction } from './scan.js';
import { decodeEvictionIterator, decodeStateArchivalSettings } from './settings.js';

const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/**
 * `lcm` (a LedgerCloseMetaV2, the next ledger of `state`) with its evictedKeys replaced by those stellar-core's scan
 * finds on `state`, given the TTLs the ledger's transactions change. `extract` is `extractLedger(lcm)` when the
 * caller has it already (one parse a ledger). The lcm's own evicted keys (in `changes.dead` too) are not changes.
 * INVALID_ARGUMENT for a state, lcm (not a LedgerCloseMetaV2) or extract (not lcm's) that is not one; BAD_ENTRY for
 * an lcm that does not parse.
 */
export function withScannedEvictions(state: LedgerState, lcm: Uint8Array, extract?: LedgerExtract): Uint8Array {
  if (!(state instanceof LedgerState)) throw invalidArgument('state', 'a LedgerState', state);
  bytesOf(lcm, 'lcm');
  if (lcm.length < 4 || readU32(lcm, 0) !== 2) throw invalidArgument('lcm', 'a LedgerCloseMetaV2', lcm);
  let parsed: LedgerExtract;
  if (extract === undefined) {
    try {
      parsed = extractLedger(lcm);
    } catch (error) {
      throw wrap(error, 'read the LedgerCloseMeta');
    }
  } else {
    if (typeof extract !== 'object' || extract === null || !Array.isArray(extract.evictedKeys)) {
      throw invalidArgument('extract', "lcm's LedgerExtract", extract);
    }
    parsed = extract;
  }
  return withEvictedKeys(lcm, parsed, scannedEvictions(state, parsed));
}

function scannedEvictions(state: LedgerState, extract: LedgerExtract): readonly Uint8Array[] {
  // As LedgerState: the iterator as the previous ledger left it, the archival settings after this ledger's changes.
  const changed = [...extract.changes.init, ...extract.changes.live];
  const previous = ConfigSettings.load((key) => state.bucketList.load(key));
  const settings = previous.with(changed);
  const body = (from: ConfigSettings, id: number): Uint8Array => {
    const found = from.body(id);
    assert(found !== undefined, `the state holds CONFIG_SETTING ${id}`);
    return found;
  };
  const evicted = new Set(extract.evictedKeys.map(latin1));
  const modified = new Set<string>();
  const noteTtl = (key: Uint8Array): void => {
    if (readU32(key, 0) === LEDGER_ENTRY_TYPE.TTL) modified.add(latin1(key.subarray(4, 36)));
  };
  for (const entry of changed) noteTtl(ledgerKeyOfEntry(entry));
  for (const key of extract.changes.dead) if (!evicted.has(latin1(key))) noteTtl(key);
  const snapshot = state.bucketList.snapshot();
  try {
    return scanForEviction({
      snapshot,
      ledgerSeq: extract.header.ledgerSeq,
      protocolVersion: state.protocolVersion,
      iterator: decodeEvictionIterator(body(previous, CONFIG_SETTING_ID.EVICTION_ITERATOR)),
      settings: decodeStateArchivalSettings(body(settings, CONFIG_SETTING_ID.STATE_ARCHIVAL)),
      liveUntilOf: (hash) => state.sorobanState.liveUntilOf(hash),
      ttlModified: (hash) => modified.has(latin1(hash)),
    }).evictedKeys;
  } finally {
    snapshot.release();
  }
}

/**
 * `lcm` (a LedgerCloseMetaV2 whose extract is `extract`) with its evictedKeys, the last field, replaced by `keys`.
 * Checks that the field is where it must be: its count and keys end the record.
 */
function withEvictedKeys(lcm: Uint8Array, extract: LedgerExtract, keys: readonly Uint8Array[]): Uint8Array {
  const old = extract.evictedKeys;
  const at = lcm.length - old.reduce((sum, key) => sum + key.length, 4);
  let ends = at > 0 && readU32(lcm, at) === old.length;
  let p = at + 4;
  for (const key of old) {
    ends &&= Buffer.from(lcm.subarray(p, p + key.length)).equals(key);
    p += key.length;
  }
  if (!ends) throw invalidArgument('extract', "the LedgerExtract of lcm (its evictedKeys end lcm's bytes)", extract);
  const out = new Uint8Array(at + keys.reduce((sum, key) => sum + key.length, 4));
  out.set(lcm.subarray(0, at));
  new DataView(out.buffer).setUint32(at, keys.length);
  p = at + 4;
  for (const key of keys) {
    out.set(key, p);
    p += key.length;
  }
  return out;
}
