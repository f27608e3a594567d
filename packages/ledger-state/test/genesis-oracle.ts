// Oracles for the genesis tests, built from other code than src/genesis: the ledger entries of a LedgerCloseMeta's
// changes as @stellar/stellar-base decodes them (where a stream reveals genesis values), and the bucketListHash of a
// list holding only the genesis batch, from @strata/bucket-list's fresh bucket and stellar-core's list hash.
import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-base';
import { freshLiveEntries, writeBucket } from '@strata/bucket-list';

/** The network passphrase of every stellar-core capture (src/test/test.cpp getTestConfig). */
export const CAPTURE_PASSPHRASE = '(V) (;,,;) (V)';

/** HotArchiveBucket::FIRST_PROTOCOL_SUPPORTING_PERSISTENT_EVICTION: the list hash covers the hot archive from here. */
const FIRST_PROTOCOL_HOT_ARCHIVE = 23;
/** LiveBucketList::kNumLevels (the hot archive has as many). */
const LEVELS = 11;
const ZERO_HASH = new Uint8Array(32);

interface XdrNode {
  _attributes?: Record<string, unknown>;
  _value?: unknown;
}

/** Every LedgerEntryChange under a decoded js-xdr value (structs' `_attributes`, unions' `_value`, arrays). */
function collectChanges(node: unknown, into: xdr.LedgerEntryChange[]): void {
  if (node === null || typeof node !== 'object') return;
  if (node instanceof xdr.LedgerEntryChange) {
    into.push(node);
    return;
  }
  if (Array.isArray(node)) {
    for (const item of node) collectChanges(item, into);
    return;
  }
  const { _attributes: fields, _value: arm } = node as XdrNode;
  if (fields !== undefined) for (const field of Object.values(fields)) collectChanges(field, into);
  else if (arm !== undefined) collectChanges(arm, into);
}

/**
 * The LedgerEntry XDR of every change in one LedgerCloseMeta that carries an entry (all kinds but REMOVED), in meta
 * order; undefined when stellar-base 15 cannot decode the record (XDR newer than it knows).
 */
export function changedEntriesOf(lcm: Uint8Array): Uint8Array[] | undefined {
  let meta: xdr.LedgerCloseMeta;
  try {
    meta = xdr.LedgerCloseMeta.fromXDR(Buffer.from(lcm.buffer, lcm.byteOffset, lcm.length));
  } catch {
    return undefined;
  }
  const changes: xdr.LedgerEntryChange[] = [];
  collectChanges(meta, changes);
  return changes
    .filter((change) => change.switch() !== xdr.LedgerEntryChangeType.ledgerEntryRemoved())
    .map((change) => new Uint8Array((change.value() as xdr.LedgerEntry).toXDR()));
}

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** BucketList::getHash: SHA-256 over the levels' SHA-256(curr ‖ snap); here only level 0's curr may hold a bucket. */
function listHash(level0Curr: Uint8Array): Uint8Array {
  const levels: Uint8Array[] = [];
  for (let level = 0; level < LEVELS; level++) levels.push(sha256(level === 0 ? level0Curr : ZERO_HASH, ZERO_HASH));
  return sha256(...levels);
}

/**
 * The header's bucketListHash after genesis (BucketManager::snapshotLedger): the live list holding the genesis batch
 * as INIT entries in level 0's curr, and from protocol 23 SHA-256(live ‖ hot archive) with an empty hot archive
 * (genesis adds no hot-archive batch). The bucket file is written into `dir`.
 */
export function genesisBucketListHash(
  entries: readonly Uint8Array[],
  protocolVersion: number,
  dir: string,
): Uint8Array {
  const payloads = freshLiveEntries(protocolVersion, { init: entries, live: [], dead: [] });
  const bucket = writeBucket(dir, 'live', protocolVersion, payloads, { fsync: false });
  const live = listHash(Buffer.from(bucket.hash, 'hex'));
  return protocolVersion < FIRST_PROTOCOL_HOT_ARCHIVE ? live : sha256(live, listHash(ZERO_HASH));
}

export function sha256Of(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}
